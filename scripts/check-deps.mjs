#!/usr/bin/env node
// The dependency rules of the monorepo (docs/architecture.md), checked over the package manifests and the
// import statements of every package's src/:
//   - each workspace package belongs to a layer, and imports only the @quire packages its layer may import;
//   - no plugin imports another plugin (built-ins load exactly like third-party plugins);
//   - the hosts (server, runner) and the worker never import the wrong layer (runner never imports server);
//   - every @quire package imported in src/ is declared in that package's dependencies;
//   - no import cycle between packages, and none between the files of a package (type imports included);
//   - no import cycle between the files of the studio (server/studio/src, .tsx included) nor of bench/;
//   - the engine's feature modules (core/engine/src/<module>/) import only the modules ENGINE_MODULES allows,
//     never both ways, and the engine's index.ts names what it exports (no `export *`).
// Usage: node scripts/check-deps.mjs [--json]. Exits 1 and lists the violations when there are any.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** What each layer may import (besides itself). */
export const RULES = {
  kernel: [],
  config: [],
  library: ['kernel', 'library'],
  plugin: ['kernel', 'library'],
  engine: ['kernel', 'config', 'library'],
  server: ['engine', 'kernel', 'config', 'library'],
  runner: ['engine', 'kernel', 'config'],
};

/** The layer of a workspace folder. */
export function layerOf(dir) {
  if (dir === 'core/kernel') return 'kernel';
  if (dir === 'core/engine') return 'engine';
  if (dir.startsWith('core/')) return 'library';
  if (dir.startsWith('plugins/')) return 'plugin';
  if (dir === 'config' || dir === 'server' || dir === 'runner') return dir;
  return null;
}

function workspaces() {
  const dirs = ['config', 'server', 'runner'];
  for (const parent of ['core', 'plugins']) for (const d of fs.readdirSync(path.join(root, parent)).sort()) if (fs.existsSync(path.join(root, parent, d, 'package.json'))) dirs.push(`${parent}/${d}`);
  return dirs.map((dir) => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
    return { dir, name: pkg.name, layer: layerOf(dir), deps: { ...pkg.dependencies, ...pkg.peerDependencies }, devDeps: pkg.devDependencies ?? {} };
  });
}

/** Source folders outside the packages' src/ whose files are checked for import cycles. */
export const EXTRA_SOURCES = [
  { dir: 'server/studio/src', what: 'the studio' },
  { dir: 'bench', what: 'the benchmarks' },
];

export function sourceFiles(dir) {
  const out = [];
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(p);
      } else if (/\.(ts|tsx|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

// static imports and re-exports (type-only ones too: they tie files together the same way), and import()
const IMPORT = /(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

export function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out = [];
  for (const m of text.matchAll(IMPORT)) out.push(m[1] ?? m[2]);
  return out;
}

/**
 * The file a relative import names: the specifier's .js/.mjs is the .ts/.tsx/.mts source beside it (or the
 * file itself), and a bare path may name a file with any source extension or a folder's index.
 */
export function resolveLocal(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  const stem = base.replace(/\.(js|mjs|jsx)$/, '');
  const candidates = [base, ...['.ts', '.tsx', '.mts', '.js', '.mjs'].map((x) => stem + x), ...['index.ts', 'index.tsx', 'index.js'].map((x) => path.join(base, x))];
  return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile()) ?? base.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts');
}

/** Import cycles between the given files (relative imports only), each as a list of paths relative to the root. */
export function fileCycles(files) {
  const graph = new Map();
  for (const file of files) graph.set(path.relative(root, file), new Set(importsOf(file).filter((x) => x.startsWith('.')).map((x) => path.relative(root, resolveLocal(file, x)))));
  return cycles(graph);
}

/** Cycles of a directed graph (Map node → Set of nodes), each as a list of nodes (Tarjan's strongly connected components). */
export function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? new Set()).has(v)) out.push(scc.reverse());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/**
 * The engine's modules (folders of core/engine/src) and what each may import besides itself: features above
 * the shared io/ (documents, read and chunk steps, parse config, inputs) and infra/ (url-fetch, signing,
 * secrets, ledger, credits, access checks, periodic tasks, webhooks, the evaluation sandbox). The files at the
 * top of src/ are the `engine` (ENGINE_ROOT: the Engine, its commands and the facade, which may import any
 * module) and the contracts every module uses (context.ts, jobs.ts, clock.ts, logger.ts, metrics.ts,
 * validation.ts), which count as infra. Docs: docs/architecture.md, "Engine modules".
 */
export const ENGINE_MODULES = {
  infra: [],
  io: ['infra'],
  parse: ['io', 'infra'],
  search: ['io', 'infra'],
  extraction: ['parse', 'io', 'infra'],
  chat: ['search', 'io', 'infra'],
  generation: ['extraction', 'search', 'parse', 'io', 'infra'],
  split: ['parse', 'io', 'infra'],
  edit: ['parse', 'io', 'infra'],
  accounts: ['generation', 'io', 'infra'],
  workflows: ['accounts', 'extraction', 'parse', 'io', 'infra'],
  analytics: ['accounts', 'io', 'infra'],
};
export const ENGINE_ROOT = ['commands.ts', 'engine.ts', 'health-port.ts', 'index.ts', 'pipelines.ts', 'readiness.ts', 'status.ts', 'store-open.ts', 'worker-main.ts'];
export const ENGINE_SRC = 'core/engine/src';

/** The module of a file of the engine's src/ (its first folder; at the top, `engine` or `infra`). */
export function engineModuleOf(src, file) {
  const parts = path.relative(src, file).split(path.sep);
  if (parts.length > 1) return parts[0];
  return ENGINE_ROOT.includes(parts[0]) ? 'engine' : 'infra';
}

/** The imports between the engine's modules: Map "from → to" → the file imports that make it. */
export function engineModuleEdges(src) {
  const edges = new Map();
  for (const file of sourceFiles(src)) {
    const from = engineModuleOf(src, file);
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolveLocal(file, spec);
      const to = engineModuleOf(src, target);
      if (from === to) continue;
      const key = `${from} → ${to}`;
      if (!edges.has(key)) edges.set(key, []);
      edges.get(key).push(`${path.relative(src, file)} → ${path.relative(src, target)}`);
    }
  }
  return edges;
}

/** What breaks the engine's module rules in the folder src (the table: module → modules it may import). */
export function engineModuleProblems(src, table = ENGINE_MODULES, where = ENGINE_SRC) {
  const problems = [];
  // the table itself goes one way: no pair of modules allowed both ways, no cycle
  const allowed = new Map(Object.entries(table).map(([m, deps]) => [m, new Set(deps)]));
  for (const c of cycles(allowed)) problems.push(`the engine's module table allows a cycle: ${[...c, c[0]].join(' → ')}`);
  const edges = engineModuleEdges(src);
  const modules = new Set(sourceFiles(src).map((f) => engineModuleOf(src, f)));
  for (const m of modules) if (m !== 'engine' && !(m in table)) problems.push(`${where}/${m}/ is not an engine module (add it to ENGINE_MODULES in scripts/check-deps.mjs and to docs/architecture.md)`);
  for (const [key, via] of edges) {
    const [from, to] = key.split(' → ');
    if (edges.has(`${to} → ${from}`) && from < to) problems.push(`engine modules ${from} and ${to} import each other (${via[0]}; ${edges.get(`${to} → ${from}`)[0]})`);
    if (from === 'engine' || !(from in table)) continue;
    if (to === 'engine') problems.push(`${where}/${via[0].split(' → ')[0]}: the ${from} module imports the engine's top (${via[0].split(' → ')[1]})`);
    else if (!table[from].includes(to)) problems.push(`${where}/${via[0].split(' → ')[0]}: the ${from} module may not import the ${to} module (${via[0].split(' → ')[1]}; ${from} may import: ${table[from].join(', ') || 'no other module'})`);
  }
  const index = path.join(src, 'index.ts');
  if (fs.existsSync(index)) {
    for (const spec of fs.readFileSync(index, 'utf8').matchAll(/^\s*export\s+\*\s+(?:as\s+\w+\s+)?from\s+['"]([^'"]+)['"]/gm)) problems.push(`${where}/index.ts: \`export * from '${spec[1]}'\` (the facade names what it exports)`);
  }
  return problems;
}

export function check() {
  const pkgs = workspaces();
  const byName = new Map(pkgs.map((p) => [p.name, p]));
  const problems = [];
  const pkgGraph = new Map(pkgs.map((p) => [p.name, new Set()]));
  for (const p of pkgs) {
    if (!p.layer) continue;
    const files = sourceFiles(path.join(root, p.dir, 'src'));
    for (const file of files) {
      const rel = path.relative(root, file);
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        const dep = byName.get(name);
        if (!dep) continue;
        if (dep === p) continue;
        pkgGraph.get(p.name).add(dep.name);
        if (!(name in p.deps)) problems.push(`${rel}: imports ${name}, which ${p.dir}/package.json does not list in dependencies`);
        if (p.layer === 'plugin' && dep.layer === 'plugin') problems.push(`${rel}: a plugin imports another plugin (${name}); shared code belongs in a library under core/`);
        else if (!RULES[p.layer].includes(dep.layer)) problems.push(`${rel}: ${p.layer} package ${p.name} may not import ${dep.layer} package ${name} (a ${p.layer} may import: ${RULES[p.layer].join(', ') || 'no other @quire package'})`);
      }
    }
    for (const c of fileCycles(files)) problems.push(`import cycle in ${p.dir}: ${[...c, c[0]].map((f) => path.relative(p.dir, f)).join(' → ')}`);
    // a plugin's tests may use another plugin as a collaborator only when it is declared (devDependencies)
    if (p.layer === 'plugin') {
      for (const file of sourceFiles(path.join(root, p.dir, 'test'))) {
        for (const spec of importsOf(file)) {
          if (spec.startsWith('.')) {
            const target = path.resolve(path.dirname(file), spec);
            const within = path.relative(path.join(root, p.dir), target);
            if (within.startsWith('..') && path.relative(root, target).startsWith('plugins/')) problems.push(`${path.relative(root, file)}: imports another plugin's file ${path.relative(root, target)}`);
            continue;
          }
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
          const dep = byName.get(name);
          if (dep && dep !== p && dep.layer === 'plugin' && !(name in p.devDeps) && !(name in p.deps)) problems.push(`${path.relative(root, file)}: test uses plugin ${name} without listing it in devDependencies`);
          if (dep && (dep.layer === 'server' || dep.layer === 'runner' || dep.layer === 'engine')) problems.push(`${path.relative(root, file)}: a plugin's test imports the ${dep.layer} (${name}); test through the plugin API`);
        }
      }
    }
  }
  for (const x of EXTRA_SOURCES) {
    for (const c of fileCycles(sourceFiles(path.join(root, x.dir)))) problems.push(`import cycle in ${x.dir} (${x.what}): ${[...c, c[0]].map((f) => path.relative(x.dir, f)).join(' → ')}`);
  }
  for (const c of cycles(pkgGraph)) problems.push(`package cycle: ${[...c, c[0]].join(' → ')}`);
  problems.push(...engineModuleProblems(path.join(root, ENGINE_SRC)));
  return { packages: pkgs.map((p) => ({ dir: p.dir, name: p.name, layer: p.layer, imports: [...pkgGraph.get(p.name)].sort() })), problems };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const result = check();
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else {
    for (const p of result.packages) console.log(`${p.layer.padEnd(8)} ${p.name.padEnd(34)} → ${p.imports.join(', ') || '(nothing)'}`);
    console.log(result.problems.length ? `\n${result.problems.length} problem(s):\n${result.problems.map((x) => `  ${x}`).join('\n')}` : '\nno problems');
  }
  process.exit(result.problems.length ? 1 : 0);
}
