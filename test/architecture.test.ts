// The dependency rules of docs/architecture.md hold for the code as it is: layers, no plugin → plugin import,
// hosts and worker on the engine, declared dependencies, no import cycle (scripts/check-deps.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error plain ES module without types
import { ENGINE_MODULES, ENGINE_SRC, EXTRA_SOURCES, RULES, check, cycles, engineModuleEdges, engineModuleProblems, fileCycles, importsOf, layerOf, sourceFiles } from '../scripts/check-deps.mjs';

const root = path.resolve(import.meta.dirname, '..');

test('the monorepo keeps its dependency rules (no cycle, no plugin → plugin import, hosts on the engine)', () => {
  const { packages, problems } = check() as { packages: { name: string; layer: string; imports: string[] }[]; problems: string[] };
  assert.deepEqual(problems, [], `dependency rules broken:\n${problems.join('\n')}`);
  const byName = new Map(packages.map((p) => [p.name, p]));
  // the runner and the worker never depend on the HTTP host
  assert.ok(!byName.get('@quire/runner')!.imports.includes('@quire/server'));
  assert.ok(!byName.get('@quire/engine')!.imports.includes('@quire/server'));
  assert.ok(byName.get('@quire/runner')!.imports.includes('@quire/engine'));
  for (const p of packages.filter((x) => x.layer === 'plugin')) assert.ok(p.imports.every((i) => byName.get(i)!.layer !== 'plugin'), `${p.name} imports a plugin`);
});

test('the check sees a cycle, a plugin importing a plugin and a host importing the wrong layer', () => {
  const graph = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a'])],
    ['d', new Set(['a'])],
  ]);
  assert.deepEqual(cycles(graph).map((c: string[]) => [...c].sort()), [['a', 'b', 'c']]);
  assert.deepEqual(cycles(new Map([['x', new Set(['y'])], ['y', new Set()]])), []);
  assert.equal(layerOf('plugins/reader-pdf'), 'plugin');
  assert.equal(layerOf('core/layout'), 'library');
  assert.equal(layerOf('core/engine'), 'engine');
  assert.ok(!RULES.plugin.includes('plugin') && !RULES.plugin.includes('engine'));
  assert.ok(!RULES.runner.includes('server') && !RULES.engine.includes('server'));
  // besides the packages' src/, the studio and the benchmarks are checked for cycles
  assert.deepEqual(EXTRA_SOURCES.map((x: { dir: string }) => x.dir).sort(), ['bench', 'server/studio/src']);
  // imports are read from source text, type-only and re-exports included, comments ignored
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deps-'));
  try {
    const f = path.join(dir, 'x.ts');
    fs.writeFileSync(f, "import type { A } from './a.js';\nexport { b } from '@quire/b';\n// import x from '@quire/commented';\nconst m = await import('@quire/dyn');\n");
    assert.deepEqual(importsOf(f), ['./a.js', '@quire/b', '@quire/dyn']);
    // .tsx files are read, and a './x.js' import names the .tsx (or .ts) source beside it: a type-only cycle counts
    fs.writeFileSync(path.join(dir, 'page.tsx'), "import { Panel } from './panel.js';\nexport const Page = () => <Panel />;\n");
    fs.writeFileSync(path.join(dir, 'panel.tsx'), "import type { Sel } from './page.js';\nimport { util } from './util';\nexport const Panel = () => null;\n");
    fs.writeFileSync(path.join(dir, 'util.ts'), 'export const util = 1;\n');
    const files = sourceFiles(dir) as string[];
    assert.ok(files.some((x) => x.endsWith('page.tsx')));
    assert.deepEqual(fileCycles(files).map((c: string[]) => c.map((x) => path.basename(x)).sort()), [['page.tsx', 'panel.tsx']]);
    fs.writeFileSync(path.join(dir, 'panel.tsx'), "import { util } from './util';\nexport const Panel = () => null;\n");
    assert.deepEqual(fileCycles(sourceFiles(dir)), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the engine is feature modules that depend one way, above io/ and infra/, behind a curated facade', () => {
  const src = path.join(root, ENGINE_SRC);
  const table = ENGINE_MODULES as Record<string, string[]>;
  // every folder of the engine's src/ is a module of the table, and every module of the table is a folder
  const folders = fs.readdirSync(src, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  assert.deepEqual(folders, Object.keys(table).sort());
  for (const m of ['parse', 'extraction', 'chat', 'search', 'generation', 'split', 'edit', 'workflows', 'accounts', 'analytics']) assert.ok(table[m].includes('io') && table[m].includes('infra'), `${m} sits above io/ and infra/`);
  assert.deepEqual(table.infra, []);
  assert.deepEqual(table.io, ['infra']);
  // the allowed graph has no two-way pair and no cycle
  for (const [m, deps] of Object.entries(table)) for (const d of deps) assert.ok(!table[d]?.includes(m), `${m} and ${d} may import each other`);
  assert.deepEqual(cycles(new Map(Object.entries(table).map(([m, d]) => [m, new Set(d)]))), []);
  // the code keeps it: no two-way dependency between modules, each import allowed, no import cycle between files
  const edges = engineModuleEdges(src) as Map<string, string[]>;
  const twoWay = [...edges.keys()].filter((k) => edges.has(k.split(' → ').reverse().join(' → ')));
  assert.deepEqual(twoWay, [], `modules importing each other:\n${twoWay.map((k) => `${k}: ${edges.get(k)![0]}`).join('\n')}`);
  assert.deepEqual(engineModuleProblems(src), []);
  assert.deepEqual(fileCycles(sourceFiles(src)), []);
  // the facade names what it exports
  const index = fs.readFileSync(path.join(src, 'index.ts'), 'utf8');
  assert.deepEqual(index.match(/^\s*export\s+\*.*$/gm) ?? [], []);
  assert.ok(/^export \{ Engine \} from '\.\/engine\.js';$/m.test(index));
});

test('the engine module check sees a two-way pair, a forbidden import, an unknown folder and an export *', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-modules-'));
  try {
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    write('infra/base.ts', 'export const base = 1;\n');
    write('context.ts', "import type { base } from './infra/base.js';\nexport type Ctx = typeof base;\n");
    write('low/a.ts', "import { base } from '../infra/base.js';\nexport const a = base;\n");
    write('high/b.ts', "import { a } from '../low/a.js';\nexport const b = a;\n");
    write('engine.ts', "import { b } from './high/b.js';\nexport const engine = b;\n");
    write('index.ts', "export { engine } from './engine.js';\n");
    const table = { infra: [], low: ['infra'], high: ['low', 'infra'] };
    assert.deepEqual(engineModuleProblems(dir, table, 'src'), []);
    // the low module imports the high one (type-only counts): a two-way pair and an import the table refuses
    write('low/a.ts', "import { base } from '../infra/base.js';\nimport type { b } from '../high/b.js';\nexport const a = base;\nexport type B = typeof b;\n");
    let problems = engineModuleProblems(dir, table, 'src') as string[];
    assert.ok(problems.some((p) => /high and low import each other/.test(p)), problems.join('\n'));
    assert.ok(problems.some((p) => /the low module may not import the high module/.test(p)), problems.join('\n'));
    write('low/a.ts', "import { base } from '../infra/base.js';\nexport const a = base;\n");
    // a module importing the engine's top, a folder missing from the table, a table allowing both ways, an export *
    write('stray/c.ts', "export const c = 1;\n");
    write('high/b.ts', "import { a } from '../low/a.js';\nimport type { engine } from '../engine.js';\nexport const b = a;\nexport type E = typeof engine;\n");
    write('index.ts', "export * from './engine.js';\n");
    problems = engineModuleProblems(dir, { infra: [], low: ['infra', 'high'], high: ['low', 'infra'] }, 'src') as string[];
    for (const re of [/src\/stray\/ is not an engine module/, /the high module imports the engine's top/, /module table allows a cycle/, /src\/index\.ts: `export \* from '\.\/engine\.js'`/]) assert.ok(problems.some((p) => re.test(p)), `${re}: ${problems.join('\n')}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('docs/architecture.md and the README describe the layers the check enforces', () => {
  const doc = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  for (const name of ['@quire/core', '@quire/engine', '@quire/layout', '@quire/office', '@quire/text', '@quire/fields', 'scripts/check-deps.mjs']) assert.ok(doc.includes(name), `docs/architecture.md names ${name}`);
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  assert.ok(readme.includes('docs/architecture.md'));
  // the engine's module table of docs/architecture.md is the one check-deps enforces
  for (const [m, deps] of Object.entries(ENGINE_MODULES as Record<string, string[]>)) {
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${m}/\` |`));
    assert.ok(row, `docs/architecture.md has a row for ${m}/`);
    const allowed = row!.split('|').at(-2)!.trim();
    assert.deepEqual(allowed === 'no other module' ? [] : allowed.split(', ').map((x) => x.replace(/^`|\/`$/g, '')), deps, `docs/architecture.md: what ${m}/ may import`);
    assert.ok(readme.includes(`\`${m}/\``), `the README's architecture section names ${m}/`);
  }
  const section = readme.slice(readme.indexOf('## Architecture'), readme.indexOf('\n## ', readme.indexOf('## Architecture') + 1));
  assert.ok(section.length > 100, 'the README has an architecture section');
  for (const stale of ['services/', 'pipelines/', 'presenters']) assert.ok(!doc.includes(stale) && !section.includes(stale), `no stale ${stale} in the architecture docs`);
});

/** The lines of the route files (server/src/routes) that match `re`, as "file:line: text". */
function routeLinesMatching(re: RegExp): string[] {
  const dir = path.join(root, 'server/src/routes');
  const found: string[] = [];
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    if (!f.endsWith('.ts')) continue;
    fs.readFileSync(path.join(dir, f), 'utf8').split('\n').forEach((line, i) => {
      if (re.test(line)) found.push(`server/src/routes/${f.split(path.sep).join('/')}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

test('routes read and write through the engine: no store.repo(, tx.repo( or .transaction( in a route file', () => {
  const found = routeLinesMatching(/\.repo\(|\.transaction\(/);
  assert.deepEqual(found, [], `route files query the store directly (add an engine function instead):\n${found.join('\n')}`);
});

/** What builds, charges, starts or waits for a job by hand: the engine's submitJob (and the feature functions over it) does. */
const JOB_BUILDING = /\bnewJob\(|\bcreateJob\(|repo\(\s*['"]jobs['"]\s*\)|\.insert\(|\bpipelines\.(start|waitFor|cancel|fail)\(|\breserveCredits\(|\bholdCredits\(|\bwithHold\(|\bcharge\(|\btransport\.publish\(/;

test('routes submit jobs through the engine: no route makes, inserts, charges, starts or waits for a job itself', () => {
  const found = routeLinesMatching(JOB_BUILDING);
  assert.deepEqual(found, [], `route files build jobs themselves (call the feature's engine function, which submits through submitJob):\n${found.join('\n')}`);
  // the pattern sees each way of doing it
  for (const line of ["const job = newJob({ owner, type: 'parse' });", "await ctx.quire.store.repo('jobs').insert(job);", 'await rt.pipelines.start(job.id, "parse", {});', 'const done = await rt.pipelines.waitFor(job.id, 1000);', "await reserveCredits(rt, owner, 'parse', 1, place);", "const hold = await holdCredits(rt, owner, 'parse', 2);"]) {
    assert.ok(JOB_BUILDING.test(line), line);
  }
  assert.ok(!JOB_BUILDING.test('const { job } = await submitGeneration(rt, auth, body);'));
});
