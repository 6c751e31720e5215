// What a test run creates outside its own process, and how to find and remove what it left behind.
// Plain JavaScript: used by scripts/test.mjs (after every test file has finished) and by the TypeScript
// test helpers (types in leftovers.d.mts).
//
// A run has a tag (QUIRE_TEST_RUN, set by scripts/test.mjs; 'local' when a file is run by hand). Every
// MySQL database and RabbitMQ prefix a test creates is named `quire_t_<tag>_<random>`, so the end-of-run
// check sees only this run's resources even when other runs share the servers. Temporary files: the run
// gives every process its own TMPDIR (QUIRE_TEST_STATE_DIR/tmp), so whatever anyone leaves there is this
// run's. The store tests name their databases quire_test_<pid>_…: the pids of this run's test files are noted
// in the state dir (file-timer.mjs), so those are found too.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const RUN_ENV = 'QUIRE_TEST_RUN';
export const STATE_ENV = 'QUIRE_TEST_STATE_DIR';

/** Stage queues of the built-in pipelines (the names a server declares under its prefix). */
export const KNOWN_STAGES = ['ingest.read', 'ingest.chunk', 'ingest.index', 'parse.fetch', 'parse.read', 'parse.chunk', 'extract.load', 'extract.extract', 'extract_batch.fanout', 'extract_batch.collect'];

/** The run's tag: [a-z0-9] only, so it fits database and queue names. */
export function runTag() {
  const t = String(process.env[RUN_ENV] ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
  return t || 'local';
}

/** `quire_t_<tag>_` : the start of every database name and queue prefix of this run. */
export function resourceStem(tag = runTag()) {
  return `quire_t_${tag}_`;
}

/** Notes a resource in the run's state dir (if any) so the end-of-run check can look for it by name. */
export function recordResource(entry) {
  const dir = process.env[STATE_ENV];
  if (!dir) return;
  try {
    fs.appendFileSync(path.join(dir, 'resources.jsonl'), `${JSON.stringify(entry)}\n`);
  } catch {
    /* the state dir is gone: nothing to check against */
  }
}

export function readResources(stateDir) {
  return readJsonLines(path.join(stateDir, 'resources.jsonl'));
}

function readJsonLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return null;
    }
  }).filter(Boolean);
}

// ---- MySQL / MariaDB

async function mysqlAdmin(url) {
  const mysql = await import('mysql2/promise');
  const u = new URL(url);
  return mysql.createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password), connectTimeout: 10_000 });
}

/** Databases whose name starts with `stem`. */
export async function listDatabases(url, stem) {
  const conn = await mysqlAdmin(url);
  try {
    const like = stem.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
    const [rows] = await conn.query('SHOW DATABASES LIKE ?', [like]);
    return rows.map((r) => Object.values(r)[0]).map(String).sort();
  } finally {
    await conn.end().catch(() => {});
  }
}

export async function dropDatabase(url, name) {
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`refusing to drop database ${JSON.stringify(name)}`);
  const conn = await mysqlAdmin(url);
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await conn.end().catch(() => {});
  }
}

// ---- RabbitMQ

function run(cmd, args, timeoutMs) {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => resolve(err ? null : stdout));
  });
}

/**
 * Queues (with ready messages) and exchanges of the broker whose name starts with one of `stems`, listed
 * with rabbitmqctl; null when rabbitmqctl is not available here (another host, no permission).
 */
export async function listRabbit(stems) {
  const q = await run('rabbitmqctl', ['-q', 'list_queues', 'name', 'messages', '--no-table-headers'], 30_000);
  const x = q === null ? null : await run('rabbitmqctl', ['-q', 'list_exchanges', 'name', '--no-table-headers'], 30_000);
  if (q === null || x === null) return null;
  const match = (name) => stems.some((s) => name.startsWith(s));
  const queues = q.split('\n').map((l) => l.split('\t')).filter(([n]) => n && match(n)).map(([name, m]) => ({ name, messages: Number(m) || 0 }));
  const exchanges = x.split('\n').map((l) => l.trim()).filter((n) => n && match(n));
  return { queues, exchanges };
}

/** Which of these queues and exchanges exist (passive declares on a connection of its own). */
export async function probeRabbit(url, queues, exchanges) {
  const amqp = (await import('amqplib')).default;
  const conn = await amqp.connect(url);
  const found = { queues: [], exchanges: [] };
  try {
    for (const name of new Set(queues)) {
      const ch = await conn.createChannel();
      ch.on('error', () => {});
      try {
        const r = await ch.checkQueue(name);
        found.queues.push({ name, messages: r.messageCount });
      } catch {
        /* 404: not there (the channel is closed by the broker) */
      }
      await ch.close().catch(() => {});
    }
    for (const name of new Set(exchanges)) {
      const ch = await conn.createChannel();
      ch.on('error', () => {});
      try {
        await ch.checkExchange(name);
        found.exchanges.push(name);
      } catch {
        /* not there */
      }
      await ch.close().catch(() => {});
    }
  } finally {
    await conn.close().catch(() => {});
  }
  return found;
}

/** Deletes queues (first) and exchanges; those already gone are fine. */
export async function deleteRabbit(url, queues, exchanges) {
  const amqp = (await import('amqplib')).default;
  const conn = await amqp.connect(url);
  try {
    for (const name of new Set(queues)) {
      const ch = await conn.createChannel();
      ch.on('error', () => {});
      await ch.deleteQueue(name).catch(() => {});
      await ch.close().catch(() => {});
    }
    for (const name of new Set(exchanges)) {
      if (name.startsWith('amq.') || !name) continue;
      const ch = await conn.createChannel();
      ch.on('error', () => {});
      await ch.deleteExchange(name).catch(() => {});
      await ch.close().catch(() => {});
    }
  } finally {
    await conn.close().catch(() => {});
  }
}

/** The names a server with this prefix declares, as far as they are known without asking the broker. */
export function knownRabbitNames(prefix, stages = KNOWN_STAGES) {
  return { queues: [...stages.map((s) => `${prefix}.${s}`), `${prefix}.dead`], exchanges: [`${prefix}.events`] };
}

/**
 * Deletes everything under a prefix: the names given, plus (when rabbitmqctl answers) any other queue or
 * exchange whose name starts with `<prefix>.`, e.g. retry queues of a process that is gone.
 */
export async function deleteRabbitPrefix(url, prefix, known = knownRabbitNames(prefix), opts = { list: true }) {
  let queues = [...known.queues];
  let exchanges = [...known.exchanges];
  if (opts.list) {
    const listed = await listRabbit([`${prefix}.`]);
    if (listed) {
      queues = [...queues, ...listed.queues.map((q) => q.name)];
      exchanges = [...exchanges, ...listed.exchanges];
    }
  }
  // retry queues dead-letter into stage queues: delete them first
  queues.sort((a, b) => Number(b.includes('.retry.')) - Number(a.includes('.retry.')));
  await deleteRabbit(url, queues, exchanges);
}

// ---- temporary files

/** Entries left in a directory (recursive sizes), except those named in `ignore`. */
export function listTemp(dir, ignore = []) {
  if (!fs.existsSync(dir)) return [];
  const size = (p) => {
    let st;
    try {
      st = fs.lstatSync(p);
    } catch {
      return 0;
    }
    if (!st.isDirectory()) return st.size;
    let n = 0;
    for (const e of fs.readdirSync(p)) n += size(path.join(p, e));
    return n;
  };
  return fs.readdirSync(dir).filter((e) => !ignore.includes(e)).sort().map((e) => ({ path: path.join(dir, e), bytes: size(path.join(dir, e)) }));
}

// ---- the end-of-run check

/**
 * Everything of run `tag` still there: databases, queues and exchanges named `quire_t_<tag>_…` (plus the
 * names recorded in the state dir), and entries of the run's TMPDIR.
 */
export async function findLeftovers({ tag, stateDir, tmpDir, mysqlUrl, amqpUrl, ignoreTemp = [] }) {
  const stem = resourceStem(tag);
  const out = { databases: [], queues: [], exchanges: [], temp: [], errors: [] };
  const recorded = stateDir ? readResources(stateDir) : [];
  if (mysqlUrl) {
    try {
      out.databases = await listDatabases(mysqlUrl, stem);
      // the store tests' own databases: quire_test_<pid of the test file's process>_<time>
      const pids = new Set(stateDir ? readJsonLines(path.join(stateDir, 'pids.jsonl')).map((p) => String(p.pid)) : []);
      if (pids.size) out.databases.push(...(await listDatabases(mysqlUrl, 'quire_test_')).filter((d) => pids.has(/^quire_test_(\d+)_/.exec(d)?.[1] ?? '')));
    } catch (e) {
      out.errors.push(`MySQL: ${e.message}`);
    }
  }
  if (amqpUrl) {
    const stems = [stem, ...new Set(recorded.filter((r) => r.kind === 'amqp' && !r.prefix.startsWith(stem)).map((r) => `${r.prefix}.`))];
    const listed = await listRabbit(stems);
    if (listed) {
      out.queues = listed.queues;
      out.exchanges = listed.exchanges;
    } else {
      // no rabbitmqctl here: passive declares of every name the tests recorded
      const queues = recorded.filter((r) => r.kind === 'amqp').flatMap((r) => [...knownRabbitNames(r.prefix).queues, ...(r.queues ?? [])]);
      const exchanges = recorded.filter((r) => r.kind === 'amqp').flatMap((r) => [...knownRabbitNames(r.prefix).exchanges, ...(r.exchanges ?? [])]);
      try {
        const found = await probeRabbit(amqpUrl, queues, exchanges);
        out.queues = found.queues;
        out.exchanges = found.exchanges;
      } catch (e) {
        out.errors.push(`RabbitMQ: ${e.message}`);
      }
    }
  }
  if (tmpDir) out.temp = listTemp(tmpDir, ignoreTemp);
  return out;
}

export function describeLeftovers(l) {
  const lines = [];
  for (const d of l.databases) lines.push(`  database ${d}`);
  for (const q of l.queues) lines.push(`  queue ${q.name} (${q.messages} messages)`);
  for (const x of l.exchanges) lines.push(`  exchange ${x}`);
  for (const t of l.temp) lines.push(`  temp ${t.path} (${(t.bytes / 1024).toFixed(0)} KB)`);
  return lines;
}

/** Removes what findLeftovers found (temp entries are removed with the run's state dir by the caller). */
export async function removeLeftovers(l, { mysqlUrl, amqpUrl }) {
  if (mysqlUrl) for (const d of l.databases) await dropDatabase(mysqlUrl, d).catch(() => {});
  if (amqpUrl && (l.queues.length || l.exchanges.length)) await deleteRabbit(amqpUrl, l.queues.map((q) => q.name), l.exchanges).catch(() => {});
}
