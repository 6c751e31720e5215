#!/usr/bin/env node
// Builds (`npm run build`) only when a source is newer than the last build, so that `npm start`, `npm run
// keys`, `worker`, `users` and `runner` start in seconds when nothing changed. The build's output goes to
// stderr: a command whose stdout is captured (KEY=$(npm run -s keys -- create …)) gets only its own output.
//   node scripts/build-if-stale.mjs           build when stale
//   node scripts/build-if-stale.mjs --stamp   record that the build is current (the end of `npm run build`)
//   node scripts/build-if-stale.mjs --check   exit 1 when stale, 0 when current (builds nothing)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const stamp = path.join(root, 'node_modules', '.quire-build-stamp');
const SOURCE = /\.(ts|tsx|mts|mjs|js|json|css|html)$/;
const SKIP = new Set(['node_modules', 'dist', 'test', 'bench', '.git']);

/** The newest modification time (ms) of the files the build reads, and that file. */
function newestSource() {
  let newest = { ms: 0, file: '' };
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (SKIP.has(e.name) || e.name.endsWith('.tsbuildinfo')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (SOURCE.test(e.name)) {
        const ms = fs.statSync(p).mtimeMs;
        if (ms > newest.ms) newest = { ms, file: p };
      }
    }
  };
  for (const d of ['core', 'plugins', 'server', 'runner', 'config']) walk(path.join(root, d));
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.base.json']) {
    const p = path.join(root, f);
    if (fs.existsSync(p) && fs.statSync(p).mtimeMs > newest.ms) newest = { ms: fs.statSync(p).mtimeMs, file: p };
  }
  return newest;
}

const stampMs = () => (fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0);
const arg = process.argv[2];
if (arg === '--stamp') {
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  // the time the build started would be safer, but sources edited during a build are rare: the end will do
  fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.exit(0);
}
const newest = newestSource();
const stale = newest.ms > stampMs();
if (arg === '--check') process.exit(stale ? 1 : 0);
if (!stale) process.exit(0);
console.error(`quire: building (${path.relative(root, newest.file) || 'first build'} is newer than the last build) …`);
// stdout of the build goes to stderr
const r = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
process.exit(r.status ?? 1);
