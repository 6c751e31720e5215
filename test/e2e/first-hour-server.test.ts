// A new user's first hour with the service: API keys from the CLI, what the server says at start, the README.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@quire/config';
import { describeDatabase, describeQueue, stagesOffHint, stagesStatus } from '../../server/src/serve.js';
import { freePort, startTestServer } from '../helpers/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** what a user's shell has: no npm_* variables of an outer npm run, no QUIRE_* settings of this test run */
const userEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && !/^QUIRE_(DB_URL|QUEUE_URL|DATA_DIR|RUN_STAGES)$/.test(k)) env[k] = v;
  return { ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false', ...extra };
};
const tempDir = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `quire-first-hour-${label}-`));
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function assertBuilt(): void {
  assert.ok(fs.existsSync(path.join(root, 'server/dist/bin.js')), 'server/dist is missing: run `npm run build` first (npm test does)');
}

/** `npm run keys -- <args>` as a user types it (its prekeys build is left out: npm test has just built). */
function keysCli(env: NodeJS.ProcessEnv, ...args: string[]) {
  return spawnSync('npm', ['run', '--ignore-scripts', '-s', 'keys', '--', ...args], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
}

test('npm run keys runs the built command, says which database it wrote to, and its key works on a server with the same QUIRE_DATA_DIR', { timeout: 180_000 }, async () => {
  assert.equal(pkg.scripts.keys, 'node server/dist/bin.js keys', 'the built code, not tsx on the sources');
  assertBuilt();
  const dataDir = tempDir('keys');
  const otherDir = tempDir('keys-other');
  const s = await startTestServer({ env: { QUIRE_DATA_DIR: dataDir } });
  try {
    // the same settings the server has (on CI's second pass that includes its MySQL database)
    const dbUrl = s.runtime.config.db.url;
    const env = userEnv({ QUIRE_DATA_DIR: dataDir, ...(dbUrl ? { QUIRE_DB_URL: dbUrl } : {}) });
    const r = keysCli(env, 'create', '--name', 'first-hour');
    assert.equal(r.status, 0, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
    const key = r.stdout.trim();
    assert.match(key, /^svc_[0-9a-f]{32,}$/, 'stdout is the key alone');
    if (dbUrl) {
      const u = new URL(dbUrl);
      assert.match(r.stderr, new RegExp(`database: mysql://[^\\s]*@?${esc(u.host)}${esc(u.pathname)} \\(QUIRE_DB_URL\\)`));
      if (u.password) assert.ok(!r.stderr.includes(u.password), 'the password is hidden');
    } else {
      assert.match(r.stderr, new RegExp(`database: sqlite ${esc(path.join(dataDir, 'quire.db'))} \\(QUIRE_DATA_DIR\\)`));
    }
    const ok = await s.api('/v1/documents', { key });
    assert.equal(ok.status, 200, await ok.text());

    const list = keysCli(env, 'list');
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${esc(key.slice(0, 12))}….*first-hour.*active`));

    // a misspelt variable is named on stderr with the one meant; stdout stays the command's output
    const typo = keysCli({ ...env, QUIRE_DATA_DIRR: otherDir }, 'list');
    assert.equal(typo.status, 0, typo.stderr);
    assert.match(typo.stderr, /warning: QUIRE_DATA_DIRR is not a Quire setting and is ignored \(did you mean QUIRE_DATA_DIR\?\)/);
    assert.doesNotMatch(typo.stdout, /QUIRE_DATA_DIRR/);

    if (!dbUrl) {
      // the mistake the database line is there for: a key written to another data dir is not this server's
      const other = keysCli(userEnv({ QUIRE_DATA_DIR: otherDir }), 'create', '--name', 'elsewhere');
      assert.equal(other.status, 0, other.stderr);
      assert.match(other.stderr, new RegExp(`database: sqlite ${esc(path.join(otherDir, 'quire.db'))}`));
      assert.equal((await s.api('/v1/documents', { key: other.stdout.trim() })).status, 401);
    }
  } finally {
    await s.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(otherDir, { recursive: true, force: true });
  }
});

test('the server says at start, in one structured log line, what it runs on (version, address, database, queue, vector store, storage, plugins, what is missing), and says when it runs no stages (log and /readyz)', { timeout: 120_000 }, async () => {
  assertBuilt();
  const dataDir = tempDir('serve');
  const port = await freePort();
  const env = userEnv({ PORT: String(port), HOST: '127.0.0.1', QUIRE_PUBLIC_URL: `http://127.0.0.1:${port}`, QUIRE_DATA_DIR: dataDir, QUIRE_RUN_STAGES: 'false', QUIRE_LOG_LEVEL: 'info', QUIRE_PDF_WORKERS: '1' });
  const child = spawn(process.execPath, [path.join(root, 'server/dist/bin.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const end = Date.now() + 90_000;
    while (!/"msg":"Quire started"/.test(out)) {
      assert.ok(child.exitCode === null, `the server stopped: ${out}\n${err}`);
      assert.ok(Date.now() < end, `no start-up line: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // stdout is not a terminal: every line on it is JSON, the start-up line among them
    const lines = out.trim().split('\n').map((l) => {
      try {
        return JSON.parse(l) as Record<string, any>;
      } catch {
        assert.fail(`a line that is not JSON: ${l}`);
      }
    });
    const started = lines.filter((l) => l.msg === 'Quire started');
    assert.equal(started.length, 1, 'one start-up line');
    const s = started[0]!.startup;
    assert.equal(s.version, JSON.parse(fs.readFileSync(path.join(root, 'core/engine/package.json'), 'utf8')).version);
    assert.equal(s.listen, `http://127.0.0.1:${port}`);
    assert.equal(s.database, `sqlite ${path.join(dataDir, 'quire.db')}`);
    assert.equal(s.databaseKind, 'sqlite');
    assert.match(s.queue, /^in-process/);
    assert.equal(s.queueKind, 'inprocess');
    assert.equal(s.vectorStore, 'embedded');
    assert.equal(s.storage, 'disk');
    assert.equal(s.dataDir, dataDir);
    assert.ok(s.plugins.includes('store:typeorm') && s.plugins.includes('reader:pdf'), JSON.stringify(s.plugins));
    assert.ok(Array.isArray(s.missing));
    for (const m of s.missing) assert.deepEqual(Object.keys(m).sort(), ['plugin', 'reason']);
    assert.match(s.stages, /^off: run quire worker/);
    assert.ok(lines.some((l) => /pipeline stages are not run in this process \(QUIRE_RUN_STAGES=false\).*quire worker/.test(l.msg)), 'the stages-off warning');
    // the listening line comes before it (the server answers while it connects)
    assert.ok(lines.findIndex((l) => /^listening/.test(l.msg)) < lines.findIndex((l) => l.msg === 'Quire started'));
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    const body = (await ready.json()) as { stages?: string };
    assert.match(body.stages ?? '', /^off: run quire worker/);
  } finally {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  // a server that runs its stages says so in /readyz
  const s = await startTestServer();
  try {
    const { body } = await s.json('/readyz', { key: null });
    assert.equal(body.stages, 'on');
  } finally {
    await s.close();
  }
});

test('database and queue are described without passwords; stages off is explained for RabbitMQ and for the in-process queue', () => {
  const c = loadConfig({ QUIRE_DATA_DIR: '/srv/quire', QUIRE_DB_URL: 'mysql://quire:s3cret@db:3306/quire', QUIRE_QUEUE_URL: 'amqp://quire:hush@mq:5672', QUIRE_QUEUE_PREFIX: 'prod', QUIRE_RUN_STAGES: 'false' });
  assert.equal(describeDatabase(c), 'mysql://quire:***@db:3306/quire');
  assert.equal(describeQueue(c), 'rabbitmq amqp://quire:***@mq:5672 (queue prefix prod)');
  assert.equal(stagesStatus(c), 'off: run quire worker');
  assert.match(stagesOffHint(c)!, /not run in this process.*start `quire worker`/);
  const embedded = loadConfig({ QUIRE_DATA_DIR: '/srv/quire', QUIRE_RUN_STAGES: 'false' });
  assert.equal(describeDatabase(embedded), `sqlite ${path.join('/srv/quire', 'quire.db')}`);
  assert.match(describeQueue(embedded), /^in-process/);
  assert.match(stagesStatus(embedded), /^off: run quire worker, with QUIRE_QUEUE_URL/);
  assert.match(stagesOffHint(embedded)!, /in-process queue reaches no other process/);
  assert.equal(describeDatabase(loadConfig({ QUIRE_DB_URL: 'sqlite:///var/lib/quire/q.db' })), 'sqlite /var/lib/quire/q.db');
  const on = loadConfig({ QUIRE_DATA_DIR: '/srv/quire' });
  assert.equal(stagesStatus(on), 'on');
  assert.equal(stagesOffHint(on), null);
});

test('the README documents the test variables, the worker lease, stages off and where keys are written', () => {
  const section = (title: string) => {
    const start = readme.indexOf(`\n## ${title}\n`);
    assert.ok(start >= 0, `README has a "## ${title}" section`);
    const next = readme.indexOf('\n## ', start + 4);
    return readme.slice(start, next < 0 ? undefined : next);
  };
  // every QUIRE_TEST_* variable and QUIRE_CORPUS that the test code, the test script or CI reads
  const names = new Set<string>();
  const scan = (p: string) => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p)) if (e !== 'node_modules' && e !== 'fixtures') scan(path.join(p, e));
    } else if (/\.(ts|mts|mjs|js)$/.test(p) || path.basename(p) === 'run') {
      for (const m of fs.readFileSync(p, 'utf8').matchAll(/\bQUIRE_(TEST_[A-Z0-9_]*[A-Z0-9]|CORPUS)\b/g)) names.add(m[0]);
    }
  };
  for (const d of ['test', ...fs.readdirSync(path.join(root, 'core')).map((p) => `core/${p}/test`), 'config/test', 'server/test', 'runner/test', 'scripts/test.mjs', '.ci/run']) scan(path.join(root, d));
  for (const p of fs.readdirSync(path.join(root, 'plugins'))) scan(path.join(root, 'plugins', p, 'test'));
  for (const n of ['QUIRE_TEST_MYSQL_URL', 'QUIRE_TEST_AMQP_URL', 'QUIRE_CORPUS']) assert.ok(names.has(n), `${n} is still read by the tests`);
  const tests = section('Tests');
  for (const n of names) assert.ok(tests.includes(`\`${n}\``), `the README's Tests section explains ${n}`);
  assert.match(tests, /scripts\/install-system-deps\.sh/);
  assert.match(tests, /node scripts\/test\.mjs/);

  const scaling = section('Scaling out');
  assert.match(scaling, /QUIRE_WORKER_LEASE_S/);
  assert.match(scaling, /"stages": "off: run quire worker"/);

  const quick = section('Quick start');
  assert.match(quick, /npm run (-s )?keys[^\n]*\n[\s\S]*same `QUIRE_DATA_DIR`/);
});

test('npm start, keys, worker, users and runner build only when a source is newer than the last build, and the build talks on stderr', { timeout: 120_000 }, () => {
  for (const s of ['prestart', 'prekeys', 'preworker', 'preusers', 'prerunner']) assert.equal(pkg.scripts[s], 'node scripts/build-if-stale.mjs', s);
  assert.match(pkg.scripts.build, /node scripts\/build-if-stale\.mjs --stamp$/, 'a build records that it is current');
  // the script in a small project of its own: a source, a build that copies it to dist and records the stamp
  const dir = tempDir('stale');
  try {
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.mkdirSync(path.join(dir, 'core/x/src'), { recursive: true });
    fs.copyFileSync(path.join(root, 'scripts/build-if-stale.mjs'), path.join(dir, 'scripts/build-if-stale.mjs'));
    fs.writeFileSync(path.join(dir, 'core/x/src/a.ts'), 'export const a = 1;\n');
    const build = "node -e \"require('fs').appendFileSync('builds.txt', 'built\\n'); console.log('build output')\" && node scripts/build-if-stale.mjs --stamp";
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', private: true, scripts: { build } }));
    const run = () => spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: dir, env: userEnv(), encoding: 'utf8', timeout: 60_000 });
    const builds = () => (fs.existsSync(path.join(dir, 'builds.txt')) ? fs.readFileSync(path.join(dir, 'builds.txt'), 'utf8').split('\n').filter(Boolean).length : 0);
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    assert.equal(builds(), 1, 'never built: builds');
    assert.equal(first.stdout, '', 'the build writes nothing on stdout');
    assert.match(first.stderr, /building \(.*\) …[\s\S]*build output/);
    const again = run();
    assert.equal(again.status, 0, again.stderr);
    assert.equal(builds(), 1, 'nothing changed: no build');
    assert.equal(again.stderr, '');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(dir, 'core/x/src/a.ts'), later, later);
    assert.equal(spawnSync(process.execPath, ['scripts/build-if-stale.mjs', '--check'], { cwd: dir }).status, 1, 'a newer source: stale');
    assert.equal(run().status, 0);
    assert.equal(builds(), 2, 'a newer source: builds again');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('npm run -s keys -- create prints the key alone on stdout (with its pre-script)', { timeout: 180_000 }, () => {
  assertBuilt();
  const dataDir = tempDir('keys-s');
  try {
    const r = spawnSync('npm', ['run', '-s', 'keys', '--', 'create', '--name', 'me'], { cwd: root, env: userEnv({ QUIRE_DATA_DIR: dataDir }), encoding: 'utf8', timeout: 150_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^svc_[0-9a-f]{32,}\n$/, `stdout: ${JSON.stringify(r.stdout)}`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
