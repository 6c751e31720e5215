#!/usr/bin/env node
// Runs every test file of the monorepo with node's test runner on the TypeScript sources (tsx, "source" condition).
// Usage: node scripts/test.mjs [filter...]   (a filter keeps files whose path contains it)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const roots = ['test', 'core/test', 'config/test', 'server/test', 'runner/test', ...fs.readdirSync(path.join(root, 'plugins')).map((p) => `plugins/${p}/test`)];
const files = [];
const walk = (dir) => {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'fixtures' && e.name !== 'node_modules') walk(p); }
    else if (/\.test\.(ts|mts|js|mjs)$/.test(e.name)) files.push(path.relative(root, p));
  }
};
for (const r of roots) walk(path.join(root, r));
const filters = process.argv.slice(2);
const selected = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
if (!selected.length) { console.error('no test files matched'); process.exit(1); }
const args = ['--conditions=quire-source', '--import', 'tsx', '--test', `--test-concurrency=${process.env.QUIRE_TEST_CONCURRENCY ?? 2}`, '--test-timeout=300000', ...selected];
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, QUIRE_LOG_LEVEL: process.env.QUIRE_LOG_LEVEL ?? 'silent' } });
process.exit(r.status ?? 1);
