#!/usr/bin/env node
// Runs every test file of the monorepo with node's test runner: the test files through tsx, the workspace packages
// they import from their build (dist/) when it is current (newer than every source, test/helpers/built-check.mjs),
// else from the TypeScript sources ("quire-source" condition); QUIRE_TEST_SOURCES=1 takes the sources always.
// On the build, the reader isolates the tests' servers fork run built JavaScript without tsx, as in production.
// Usage: node scripts/test.mjs [--services] [--list] [--save-times] [filter...]   (a filter keeps files whose path
// contains it; --list prints the selected files and exits; --save-times records the files' wall times in
// test/file-times.json, the order of the longest first on a fresh clone)
//
// Each run has a tag and a state dir: every test process gets TMPDIR=<state dir>/tmp, and databases and
// RabbitMQ prefixes made by the tests are named quire_t_<tag>_… (test/helpers/leftovers.mjs). When every
// test file has finished, the run lists what is still there (databases, queues, exchanges, temp files),
// prints it and fails; then it removes it. QUIRE_TEST_LEFTOVERS=warn only prints, =keep prints and leaves
// everything in place (to look at), =off skips the check.
// The wall and CPU time of each test file's process are printed at the end, and the wall times kept for the
// next run's order: the longest files start first (scripts/test-files.mjs).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtIsCurrent } from '../test/helpers/built-check.mjs';
import { RUN_ENV, STATE_ENV, describeLeftovers, findLeftovers, removeLeftovers } from '../test/helpers/leftovers.mjs';
import { bundleTestFiles } from './test-bundles.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const roots = ['test', ...fs.readdirSync(path.join(root, 'core')).map((p) => `core/${p}/test`), 'config/test', 'server/test', 'runner/test', ...fs.readdirSync(path.join(root, 'plugins')).map((p) => `plugins/${p}/test`)];
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
// --services: only the files whose behaviour depends on the store or the transport, marked by a line
// `// @services: <what depends on them>` at the top of the file. CI's second pass runs them on MariaDB +
// RabbitMQ. The rule for the marker: what the file proves depends on the store's SQL or the transport's
// semantics — store queries and migrations (filters, pagination, aggregates, deletion across tables),
// credits and concurrency (transactions, row locks), the transport and workers (retries, redelivery, leases,
// several processes sharing one database and broker), workflows, organizations and tenancy, accounts and
// sessions. A file that merely starts a test server to test a reader, a format, chat, search, generation or
// the HTTP surface does the same work on both paths and runs in the first pass only (every test server still
// runs on MariaDB + RabbitMQ in the second pass, so both paths are exercised for real).
const argv = process.argv.slice(2);
const servicesOnly = argv.includes('--services');
const saveTimes = argv.includes('--save-times');
const filters = argv.filter((a) => a !== '--services' && a !== '--list' && a !== '--save-times');
const SERVICES_MARK = /^\/\/ @services: \S/m;
const usesServices = (file) => {
  try {
    return SERVICES_MARK.test(fs.readFileSync(path.join(root, file), 'utf8'));
  } catch {
    return false;
  }
};
const matching = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
const selected = servicesOnly ? matching.filter((f) => usesServices(f)) : matching;
if (!selected.length) { console.error('no test files matched'); process.exit(1); }
if (servicesOnly) {
  // a reminder, not a rule: files that name the service variables but carry no marker (e.g. embedded-only tests)
  const named = matching.filter((f) => !selected.includes(f) && /\b(QUIRE_TEST_)?(MYSQL|AMQP)_URL\b/.test(fs.readFileSync(path.join(root, f), 'utf8')));
  if (named.length) console.error(`# not in the services pass (no "// @services:" line) though they name the service variables: ${named.join(', ')}`);
}
if (argv.includes('--list')) { console.log(selected.join('\n')); process.exit(0); }

// ---- the run's tag, state dir and TMPDIR
const tag = `r${Date.now().toString(36).slice(-5)}${randomBytes(2).toString('hex')}`;
const systemTmp = os.tmpdir();
const stateDir = fs.mkdtempSync(path.join(systemTmp, `quire-run-${tag}-`));
const tmpDir = path.join(stateDir, 'tmp');
fs.mkdirSync(tmpDir);
// tsx keeps its transform cache in <tmpdir>/tsx-<euid>: point that at the machine's cache (a cold cache per run is slow)
const tsxDir = `tsx-${process.geteuid ? process.geteuid() : os.userInfo().username}`;
fs.mkdirSync(path.join(systemTmp, tsxDir), { recursive: true });
fs.symlinkSync(path.join(systemTmp, tsxDir), path.join(tmpDir, tsxDir));
const timesFile = path.join(stateDir, 'file-times.jsonl');

// ---- the order: longest first (the wall times of the last run on this machine, else test/file-times.json, a
// record of CI's times; a file never timed counts as UNTIMED_S), so that no long file starts last while the
// other worker has nothing left to do
const TIMES_SEED = path.join(root, 'test/file-times.json');
const TIMES_CACHE = path.join(root, 'node_modules/.cache/quire/test-times.json');
const readTimes = (file) => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
};
const UNTIMED_S = 30;
const known = { ...readTimes(TIMES_SEED), ...readTimes(TIMES_CACHE) };
const weight = (f) => known[f] ?? UNTIMED_S;
const ordered = [...selected].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));

// the packages from the build when it is current: what `npm test` runs (it builds first); a source edited since the
// last build makes the run take every package from the sources, so a test never runs older code than the sources
const onBuild = process.env.QUIRE_TEST_SOURCES !== '1' && builtIsCurrent();
console.log(`# workspace packages from ${onBuild ? 'the build (dist/ is newer than every source)' : 'the TypeScript sources'}`);
// on the build, the TypeScript test files run as JavaScript bundles, without a TypeScript loader in their
// processes (scripts/test-bundles.mjs; QUIRE_TEST_TSX=1 runs them under tsx): the bundle of <file> is
// node_modules/.cache/quire/test-bundles/<run>/<file, .mjs>, the name a failure in TAP shows
const bundleDir = path.join(root, 'node_modules/.cache/quire/test-bundles', tag);
let bundles = new Map();
if (onBuild && process.env.QUIRE_TEST_TSX !== '1') {
  try {
    bundles = await bundleTestFiles(root, ordered, bundleDir);
    const left = ordered.filter((f) => /\.(ts|mts)$/.test(f) && !bundles.has(path.normalize(f)));
    console.log(`# ${bundles.size} test file(s) bundled to JavaScript${left.length ? `; under tsx (they import TypeScript sources of a package): ${left.join(', ')}` : ''}`);
  } catch (e) {
    console.log(`# the test files could not be bundled (${e.message.split('\n')[0]}): all run under tsx`);
    bundles = new Map();
  }
}
const fromBundle = new Map([...bundles].map(([f, b]) => [b, path.resolve(root, f)]));
// test files at once: one more than the machine's cores (at least 2). Several files wait more than they compute (timers,
// webhooks, erasures held until their stages end), so a slot beyond the cores keeps both cores busy: on the 2-core CI machine
// pass 1 took 637 s at 3 against 729–762 s at 2, the same 1,184 tests green (CPU 1,217 against 1,270–1,326 s)
const concurrency = process.env.QUIRE_TEST_CONCURRENCY ?? String(Math.max(2, os.availableParallelism() + 1));
const args = [
  ...(onBuild ? [] : ['--conditions=quire-source']),
  '--import', pathToFileURL(path.join(root, 'test/helpers/ts-loader.mjs')).href,
  '--import', pathToFileURL(path.join(root, 'test/helpers/file-timer.mjs')).href,
  path.join(root, 'scripts/test-files.mjs'), concurrency, '300000',
  ...ordered.map((f) => bundles.get(path.normalize(f)) ?? f),
];
const env = {
  ...process.env,
  QUIRE_LOG_LEVEL: process.env.QUIRE_LOG_LEVEL ?? 'silent',
  [RUN_ENV]: tag,
  [STATE_ENV]: stateDir,
  TMPDIR: tmpDir,
};
const started = Date.now();
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env });
let status = r.status ?? 1;
console.log(`\n# ${selected.length} test file(s) in ${((Date.now() - started) / 1000).toFixed(1)} s (run ${tag})`);

// ---- wall time of each test file's process (test/helpers/file-timer.mjs)
try {
  const wanted = new Set(selected.map((f) => path.resolve(root, f)));
  const rows = fs.readFileSync(timesFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).map((t) => ({ ...t, file: fromBundle.get(t.file) ?? t.file })).filter((t) => wanted.has(path.resolve(root, t.file))).sort((a, b) => b.ms - a.ms);
  if (rows.length) {
    // CPU: the file's process and the child processes it waited for; a loaded machine stretches the wall time,
    // hardly the CPU time, so CPU compares runs, and wall far above CPU is a file that waits
    const cpu = (t) => (typeof t.cpuMs === 'number' ? `${(t.cpuMs / 1000).toFixed(1).padStart(7)} s` : '      ? s');
    const totalCpu = rows.reduce((n, t) => n + (t.cpuMs ?? 0), 0);
    console.log(`# wall and CPU time per test file (CPU of all: ${(totalCpu / 1000).toFixed(1)} s; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}):`);
    for (const t of rows) console.log(`#   ${(t.ms / 1000).toFixed(1).padStart(7)} s ${cpu(t)} CPU  ${path.relative(root, t.file)}${t.code ? ` (exit ${t.code})` : ''}`);
    // the next run's order; --save-times also writes them to test/file-times.json (the order of a fresh clone)
    const measured = Object.fromEntries(rows.map((t) => [path.relative(root, t.file), Math.round(t.ms / 100) / 10]));
    const save = (file) => {
      // files that were moved or removed since drop out (a moved file is timed again under its new path)
      const all = Object.fromEntries(Object.entries({ ...readTimes(file), ...measured }).filter(([f]) => fs.existsSync(path.join(root, f))));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(Object.fromEntries(Object.keys(all).sort().map((k) => [k, all[k]])), null, 1)}\n`);
    };
    save(TIMES_CACHE);
    if (saveTimes) save(TIMES_SEED);
  }
} catch {
  /* no times (the runner did not start) */
}

// ---- leftovers: only now, when every test file has finished
const mode = process.env.QUIRE_TEST_LEFTOVERS ?? 'fail';
if (mode !== 'off') {
  const where = { mysqlUrl: process.env.QUIRE_TEST_MYSQL_URL || undefined, amqpUrl: process.env.QUIRE_TEST_AMQP_URL || undefined };
  const leftovers = await findLeftovers({ tag, stateDir, tmpDir, ...where, ignoreTemp: [tsxDir] });
  const lines = describeLeftovers(leftovers);
  for (const e of leftovers.errors) console.log(`# leftover check could not look: ${e}`);
  if (lines.length) {
    console.log(`# the tests left ${lines.length} thing(s) behind:\n${lines.join('\n')}`);
    if (mode === 'fail') {
      console.log('# FAIL: tests must remove the databases, queues, exchanges and temp files they create (see test/helpers/server.ts)');
      if (status === 0) status = 1;
    }
  } else {
    console.log('# nothing left behind (databases, queues, exchanges, temp files)');
  }
  if (mode !== 'keep') await removeLeftovers(leftovers, where);
}
fs.rmSync(bundleDir, { recursive: true, force: true });
if (mode !== 'keep') fs.rmSync(stateDir, { recursive: true, force: true });
else console.log(`# run state kept in ${stateDir}`);
process.exit(status);
