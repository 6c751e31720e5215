// Whether the build output is current: every workspace's dist/ at least as new as its src/. Plain JavaScript,
// so that scripts/test.mjs can ask before any TypeScript loader is there; test/helpers/built.ts re-exports it.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

let current;

/**
 * Whether every workspace's build output (dist/) is at least as new as its sources (src/): then the built
 * code runs what the sources say. Computed once per process.
 */
export function builtIsCurrent() {
  if (current !== undefined) return current;
  const newest = (dir, ext) => {
    let t = 0;
    if (!fs.existsSync(dir)) return t;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) t = Math.max(t, newest(p, ext));
      else if (ext.test(e.name)) t = Math.max(t, fs.statSync(p).mtimeMs);
    }
    return t;
  };
  const workspaces = ['config', 'server', 'runner', ...fs.readdirSync(path.join(ROOT, 'core')).map((p) => `core/${p}`), ...fs.readdirSync(path.join(ROOT, 'plugins')).map((p) => `plugins/${p}`)].map((w) => path.join(ROOT, w));
  if (!fs.existsSync(path.join(ROOT, 'server/dist/bin.js'))) return (current = false);
  current = workspaces.every((w) => !fs.existsSync(path.join(w, 'src')) || newest(path.join(w, 'src'), /\.(ts|mts|js|mjs|json)$/) <= newest(path.join(w, 'dist'), /\.(js|mjs|json)$/));
  return current;
}

/**
 * The build of a package's TypeScript source: <package>/src/<path>.ts → <package>/dist/<path>.js (every
 * workspace package compiles src/ to dist/: tsconfig rootDir and outDir), when that file exists; else null.
 * Whether the build is current is the caller's question (builtIsCurrent).
 */
export function builtFile(file) {
  const TS = /\.(ts|mts)$/;
  if (!TS.test(file)) return null;
  const parts = path.resolve(file).split(path.sep);
  const at = parts.lastIndexOf('src');
  if (at < 1) return null;
  const pkg = parts.slice(0, at).join(path.sep);
  if (!fs.existsSync(path.join(pkg, 'package.json'))) return null;
  const js = path.join(pkg, 'dist', ...parts.slice(at + 1)).replace(TS, (m) => (m === '.mts' ? '.mjs' : '.js'));
  return fs.existsSync(js) ? js : null;
}
