import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '@quire/config';
import { reapWithThisProcess } from '@quire/core';
import { openTypeormStore } from '@quire/plugin-store-typeorm';
import { startServer } from '@quire/server';
import type { Clock } from '@quire/engine';
import { builtIsCurrent } from './built.js';
import { KNOWN_STAGES, STATE_ENV, deleteRabbitPrefix, dropDatabase, knownRabbitNames, recordResource, resourceStem } from './leftovers.mjs';

export { builtIsCurrent };

export const MYSQL_URL = process.env.QUIRE_TEST_MYSQL_URL;
export const AMQP_URL = process.env.QUIRE_TEST_AMQP_URL;

const ROOT = path.resolve(import.meta.dirname, '../..');

export type RunningServer = Awaited<ReturnType<typeof startServer>>;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

type RequestOptions = RequestInit & { json?: unknown; key?: string | null };

/** What both kinds of test server (in this process, or a child process) offer. */
export interface HttpTestServer {
  url: string;
  key: string;
  dataDir: string;
  /** fetch relative to the server with the bootstrap key (unless headers.authorization is given; key: null sends none) */
  api(pathname: string, init?: RequestOptions): Promise<Response>;
  json<T = any>(pathname: string, init?: RequestOptions): Promise<{ status: number; body: T; headers: Headers }>;
  close(): Promise<void>;
}

export interface TestServer extends RunningServer, HttpTestServer {
  url: string;
  /** the server's clock (rate-limit windows, session and key expiry): the system clock until moved or pinned */
  clock: TestClock;
  close(): Promise<void>;
}

/**
 * The clock a test server in this process reads (Engine.clock): the system time plus an offset a test moves
 * forward (advance), and that a test can pin (pin: time stands still until unpin), so an expiry or a
 * minute's window is tested without waiting for the wall clock.
 */
export class TestClock implements Clock {
  private offset = 0;
  private pinned: number | null = null;
  now(): number {
    return this.pinned ?? Date.now() + this.offset;
  }
  /** Moves the time forward by `ms` (also when pinned). */
  advance(ms: number): void {
    if (this.pinned !== null) this.pinned += ms;
    else this.offset += ms;
  }
  /** Time stands still at the present (of this clock) until unpin(). */
  pin(): void {
    this.pinned = this.now();
  }
  /** Time runs again from where it stood. */
  unpin(): void {
    if (this.pinned === null) return;
    this.offset = this.pinned - Date.now();
    this.pinned = null;
  }
}

// ---- resources of a test server, removed by close() and, for whatever a crash leaves, by the end-of-run check

/** Temp dirs of this process that are still there at exit (e.g. a test that never called close()). */
const openDirs = new Set<string>();
/** Child-process servers still running at exit. */
const openChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of openChildren) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const d of openDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A fresh temp dir (removed at process exit at the latest; remove it earlier with removeTempDir). */
export function makeTempDir(label = 'test'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `quire-${label}-`));
  openDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  openDirs.delete(dir);
}

interface ServerResources {
  env: Record<string, string>;
  dataDir: string;
  port: number;
  key: string;
  mysqlDb: string | null;
  amqpPrefix: string | null;
}

/**
 * Data dir, port, key, and when QUIRE_TEST_MYSQL_URL / QUIRE_TEST_AMQP_URL are set a database and a queue
 * prefix of its own (quire_t_<run>_<random>), noted for the end-of-run check.
 */
async function serverResources(opts: { env?: Record<string, string>; plan?: string }): Promise<ServerResources> {
  const dataDir = makeTempDir('test');
  const port = await freePort();
  const key = `svc_${randomBytes(20).toString('hex')}`;
  const name = `${resourceStem()}${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    QUIRE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_BOOTSTRAP_API_KEY: key,
    QUIRE_BOOTSTRAP_PLAN: opts.plan ?? 'premium',
    QUIRE_LOG_LEVEL: process.env.QUIRE_TEST_LOG_LEVEL ?? 'silent',
    QUIRE_ALLOWED_HOSTS: '127.0.0.1,localhost',
    QUIRE_PDF_WORKERS: '2',
    QUIRE_OCR_CONCURRENCY: '2',
  };
  let mysqlDb: string | null = null;
  if (MYSQL_URL) {
    const u = new URL(MYSQL_URL);
    mysqlDb = name;
    u.pathname = `/${mysqlDb}`;
    env.QUIRE_DB_URL = u.href;
    recordResource({ kind: 'mysql', name: mysqlDb });
  }
  const dbUrl = env.QUIRE_DB_URL;
  let amqpPrefix: string | null = null;
  if (AMQP_URL) {
    amqpPrefix = name;
    env.QUIRE_QUEUE_URL = AMQP_URL;
    env.QUIRE_QUEUE_PREFIX = amqpPrefix;
    recordResource({ kind: 'amqp', prefix: amqpPrefix });
  }
  Object.assign(env, opts.env ?? {});
  // the PDF reader's parse workers start at the first PDF (its public option `prestart: false`), not with every
  // test server: most never read a PDF, and two worker processes loading PDFium cost about half a second of
  // CPU per server. A test that brings its own plugin selection or plugin options gets the defaults.
  if (opts.env?.QUIRE_PLUGIN_OPTIONS === undefined && opts.env?.QUIRE_PLUGINS === undefined) env.QUIRE_PLUGIN_OPTIONS = JSON.stringify({ 'reader:pdf': { prestart: false } });
  // an explicit override wins (a test may point a server at another database or prefix)
  if (mysqlDb && env.QUIRE_DB_URL !== dbUrl) mysqlDb = null;
  if (amqpPrefix && env.QUIRE_QUEUE_PREFIX !== amqpPrefix) amqpPrefix = null;
  // the default SQLite database in the fresh data dir starts as a copy of the run's migrated one (never when a
  // test brings its own data dir, database or plugins: those open what they are given)
  if (!env.QUIRE_DB_URL && env.QUIRE_DATA_DIR === dataDir && !env.QUIRE_PLUGINS) await seedSqlite(dataDir);
  return { env, dataDir, port, key, mysqlDb, amqpPrefix };
}

// ---- a migrated SQLite database, made once per run and copied into each test server's data dir

let sqliteTemplate: Promise<string> | null = null;

/**
 * The path of an SQLite database on which every migration has run: made by the first test server of the run
 * (in the run's state dir, QUIRE_TEST_STATE_DIR, shared by the test processes; else once per process) and
 * copied for each test server after it, instead of running the migrations again for every server (tens of
 * ms of CPU each, and a transaction's fsyncs). The server still runs the migrations on the copy: the ones
 * recorded in it are skipped and any missing one runs, so a server starts on the same schema either way.
 */
function migratedSqlite(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const stateDir = process.env[STATE_ENV];
    const home = stateDir && fs.existsSync(stateDir) ? path.join(stateDir, 'sqlite-template') : makeTempDir('sqlite-template');
    const file = path.join(home, 'quire.db');
    if (fs.existsSync(file)) return file;
    // made aside, then renamed into place: another test process may be making it at the same time
    const aside = `${home}.${process.pid}.${randomBytes(3).toString('hex')}`;
    try {
      const store = await openTypeormStore({ dataDir: aside });
      await store.close();
      try {
        fs.renameSync(aside, home);
      } catch (e) {
        if (!fs.existsSync(file)) throw e; // another process put its copy there first: use that one
      }
    } finally {
      fs.rmSync(aside, { recursive: true, force: true });
    }
    return file;
  })();
  return sqliteTemplate;
}

async function seedSqlite(dataDir: string): Promise<void> {
  const target = path.join(dataDir, 'quire.db');
  let template: string;
  try {
    template = await migratedSqlite();
  } catch {
    sqliteTemplate = null;
    return; // the server migrates its database itself
  }
  fs.copyFileSync(template, target, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(target, 0o600);
}

/** Drops the database, deletes the queues and exchanges under the prefix, removes the dirs; never throws. */
async function releaseResources(r: ServerResources, rabbit: { queues: string[]; exchanges: string[] } | null, extraDirs: string[] = []): Promise<void> {
  const problems: string[] = [];
  if (r.mysqlDb) await dropDatabase(MYSQL_URL!, r.mysqlDb).catch((e) => problems.push(`drop database ${r.mysqlDb}: ${(e as Error).message}`));
  if (r.amqpPrefix) {
    if (rabbit) recordResource({ kind: 'amqp', prefix: r.amqpPrefix, queues: rabbit.queues, exchanges: rabbit.exchanges });
    const known = rabbit ?? knownRabbitNames(r.amqpPrefix);
    // a server in this process tells which queues it used; a child process's retry queues are only found by listing
    await deleteRabbitPrefix(AMQP_URL!, r.amqpPrefix, known, { list: rabbit === null }).catch((e) => problems.push(`delete queues ${r.amqpPrefix}.*: ${(e as Error).message}`));
  }
  for (const d of [r.dataDir, ...extraDirs]) removeTempDir(d);
  if (problems.length) console.error(`# test server clean-up: ${problems.join('; ')}`);
}

/** Queue and exchange names an in-process server declared: its stage queues, the retry queues it used, dead, events. */
function rabbitNamesOf(running: RunningServer, prefix: string): { queues: string[]; exchanges: string[] } {
  const known = knownRabbitNames(prefix);
  const defs = (running.runtime.pipelines as unknown as { defs?: Map<string, { name: string; stages: { name: string }[] }> }).defs;
  const stages = defs ? [...defs.values()].flatMap((d) => d.stages.map((s) => `${d.name}.${s.name}`)) : KNOWN_STAGES;
  const transport = running.runtime.transport as unknown as { retryQueuesOf?: (stage: string) => string[] };
  const retry = transport.retryQueuesOf ? stages.flatMap((s) => transport.retryQueuesOf!(s)) : [];
  return { queues: [...new Set([...retry, ...stages.map((s) => `${prefix}.${s}`), ...known.queues])], exchanges: known.exchanges };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (t = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}

function httpClient(base: string, key: string): Pick<HttpTestServer, 'api' | 'json'> {
  const api: HttpTestServer['api'] = (pathname, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${init.key ?? key}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(base + pathname, { ...init, headers, body });
  };
  return {
    api,
    async json(pathname, init) {
      const res = await api(pathname, init);
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: res.status, body, headers: res.headers };
    },
  };
}

/**
 * Starts a real Quire server in this process on a free port with a fresh data dir. When QUIRE_TEST_MYSQL_URL /
 * QUIRE_TEST_AMQP_URL are set (CI's second pass), it runs on MariaDB and RabbitMQ, with a database and a
 * queue prefix of its own. close() stops it and removes the database, the queues and exchanges, and the
 * data dir (also when the server fails to start, or stopping it fails or hangs).
 */
export async function startTestServer(opts: { env?: Record<string, string>; plan?: 'free' | 'standard' | 'premium' } = {}): Promise<TestServer> {
  const res = await serverResources(opts);
  let running: RunningServer;
  try {
    running = await startServer(loadConfig(res.env));
  } catch (e) {
    await releaseResources(res, null);
    throw e;
  }
  const base = `http://127.0.0.1:${res.port}`;
  let closed: Promise<void> | null = null;
  const clock = new TestClock();
  running.runtime.clock = clock;
  return {
    ...running,
    clock,
    url: base,
    key: res.key,
    dataDir: res.dataDir,
    ...httpClient(base, res.key),
    close() {
      closed ??= (async () => {
        const rabbit = res.amqpPrefix ? rabbitNamesOf(running, res.amqpPrefix) : null;
        try {
          await withTimeout(running.close(), 60_000, 'stopping the test server');
        } finally {
          if (res.amqpPrefix) {
            // retry queues declared while stopping
            const later = rabbitNamesOf(running, res.amqpPrefix);
            rabbit!.queues = [...new Set([...later.queues, ...rabbit!.queues])];
          }
          await releaseResources(res, rabbit);
        }
      })();
      return closed;
    },
  };
}

// ---- a server in a child process

export interface ServerProcess extends HttpTestServer {
  pid: number;
  child: ChildProcess;
  /** TMPDIR of the server process (empty but for tsx-<euid>, the shared tsx cache, unless it leaves temp files behind) */
  tmpDir: string;
  /** resident memory of the server process and its child processes, bytes (0 once it has exited) */
  rss(): number;
  /** the last lines the process wrote (logs at QUIRE_TEST_LOG_LEVEL, default warn; crashes) */
  output(): string;
  /** whether the process is still running */
  alive(): boolean;
}

function vmRssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        out.push(...fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number));
      } catch {
        /* thread gone */
      }
    }
  } catch {
    /* process gone */
  }
  return out;
}

/** RSS of a process and all its descendants (tesseract, soffice…), from /proc. */
export function treeRss(pid: number): number {
  let total = 0;
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    total += vmRssOf(p);
    stack.push(...childrenOf(p));
  }
  return total;
}

/**
 * Starts `node --conditions=quire-source --import tsx server/src/bin.ts` (or, with `built`, `node
 * server/dist/bin.js`: what production runs; under tsx every worker thread also carries tsx and the TypeScript
 * sources, several hundred MB of RSS more) as a child process (its own process group), with a temp data dir,
 * a TMPDIR of its own, a free port and the same database/queue arrangement as startTestServer. Good for
 * measuring the service's memory (rss()) and for killing it. close() stops it (SIGTERM, then SIGKILL of the
 * group after 15 s) and removes everything it had.
 */
export async function startServerProcess(opts: { env?: Record<string, string>; plan?: 'free' | 'standard' | 'premium'; startTimeoutMs?: number; built?: boolean } = {}): Promise<ServerProcess> {
  const res = await serverResources(opts);
  const tmpDir = makeTempDir('test-tmp');
  // tsx keeps its transform cache in <TMPDIR>/tsx-<euid>: share this process's cache (a cold one makes start-up slow)
  const tsxDir = `tsx-${process.geteuid ? process.geteuid() : os.userInfo().username}`;
  try {
    fs.mkdirSync(path.join(os.tmpdir(), tsxDir), { recursive: true });
    fs.symlinkSync(path.join(os.tmpdir(), tsxDir), path.join(tmpDir, tsxDir));
  } catch {
    /* a cold cache then */
  }
  res.env.QUIRE_LOG_LEVEL = opts.env?.QUIRE_LOG_LEVEL ?? process.env.QUIRE_TEST_LOG_LEVEL ?? 'warn';
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('QUIRE_') && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  Object.assign(env, res.env, { TMPDIR: tmpDir });
  const args = opts.built ? ['server/dist/bin.js'] : ['--conditions=quire-source', '--import', 'tsx', 'server/src/bin.ts'];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  openChildren.add(child);
  // killed with this process's exit handler normally; by a reaper if this process is killed (a time limit)
  const reaper = reapWithThisProcess(child.pid!);
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const base = `http://127.0.0.1:${res.port}`;
  const stop = async () => {
    if (alive()) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
    }
    try {
      process.kill(-child.pid!, 'SIGKILL'); // what is left of the group: the server if it hung, its tesseract/soffice children
    } catch {
      /* the group is gone */
    }
    if (alive()) await exited;
    openChildren.delete(child);
    reaper.release();
  };
  try {
    const deadline = Date.now() + (opts.startTimeoutMs ?? 90_000);
    for (;;) {
      if (!alive()) throw new Error(`the server process exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${lines.slice(-30).join('\n')}`);
      try {
        // the server listens before it connects: it is started once /readyz no longer says connecting
        const r = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) });
        const body = (await r.json().catch(() => ({}))) as { status?: string; error?: string };
        if (body.status === 'failed') throw new Error(`the server process could not connect: ${body.error}\n${lines.slice(-30).join('\n')}`);
        if (body.status !== 'connecting') break;
      } catch (e) {
        if (/could not connect/.test((e as Error).message)) throw e;
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`the server process was not ready within ${opts.startTimeoutMs ?? 90_000} ms:\n${lines.slice(-30).join('\n')}`);
      await sleep(100);
    }
  } catch (e) {
    await stop();
    await releaseResources(res, null, [tmpDir]);
    throw e;
  }
  let closed: Promise<void> | null = null;
  return {
    url: base,
    key: res.key,
    dataDir: res.dataDir,
    tmpDir,
    pid: child.pid!,
    child,
    ...httpClient(base, res.key),
    rss: () => (alive() ? treeRss(child.pid!) : 0),
    output: () => lines.join('\n'),
    alive,
    close() {
      closed ??= (async () => {
        try {
          await stop();
        } finally {
          await releaseResources(res, null, [tmpDir]);
        }
      })();
      return closed;
    },
  };
}

// ---- watching a server while it works

export interface ServerWatch {
  /** stops sampling and returns what was seen */
  stop(): Promise<ServerWatchResult>;
  /** the RSS figures so far (the /healthz figures arrive with stop()) */
  snapshot(): ServerWatchResult;
}

export interface ServerWatchResult {
  /** RSS when watching started, bytes */
  rssStartBytes: number;
  rssMaxBytes: number;
  rssSamples: number;
  healthMaxMs: number;
  healthSamples: number;
  /** health checks that failed or took longer than the limit: [ms since start, latency or error] */
  healthSlow: [number, string][];
}

/**
 * The /healthz sampler, run in a worker thread so that work in the test's own thread (building or sending a
 * large body) cannot show up as server latency: GET /healthz on a connection of its own each time (no
 * keep-alive: what a new client sees), one at a time, every `everyMs`; on 'stop' it posts what it saw.
 */
const HEALTH_SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, everyMs, slowMs } = workerData;
const t0 = Date.now();
const r = { healthMaxMs: 0, healthSamples: 0, healthSlow: [] };
let running = true;
parentPort.on('message', (m) => { if (m === 'stop') running = false; });
function once() {
  const start = performance.now();
  return new Promise((resolve) => {
    const req = http.get(url + '/healthz', { agent: false, timeout: 10000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - start, error: res.statusCode === 200 ? undefined : 'HTTP ' + res.statusCode }));
      res.on('error', (e) => resolve({ ms: performance.now() - start, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (e) => resolve({ ms: performance.now() - start, error: e.message }));
  });
}
(async () => {
  while (running) {
    const { ms, error } = await once();
    r.healthMaxMs = Math.max(r.healthMaxMs, ms);
    r.healthSamples++;
    if (error || ms >= slowMs) r.healthSlow.push([Date.now() - t0, error || Math.round(ms) + ' ms']);
    await new Promise((res) => setTimeout(res, Math.max(0, everyMs - ms)));
  }
  parentPort.postMessage(r);
})();
`;

/**
 * Samples the server's RSS (every rssEveryMs, child-process servers only; also at start and stop) and the
 * latency of GET /healthz from another client without credentials (every healthEveryMs, from a worker thread;
 * one request at a time, so a stalled server shows as one long sample).
 */
export function watchServer(s: HttpTestServer & { rss?: () => number }, opts: { rssEveryMs?: number; healthEveryMs?: number; slowMs?: number } = {}): ServerWatch {
  const first = s.rss ? s.rss() : 0;
  const r: ServerWatchResult = { rssStartBytes: first, rssMaxBytes: first, rssSamples: s.rss ? 1 : 0, healthMaxMs: 0, healthSamples: 0, healthSlow: [] };
  const sampleRss = () => {
    r.rssMaxBytes = Math.max(r.rssMaxBytes, s.rss!());
    r.rssSamples++;
  };
  const rssTimer = s.rss ? setInterval(sampleRss, opts.rssEveryMs ?? 100) : null;
  const worker = new Worker(HEALTH_SAMPLER, { eval: true, execArgv: [], workerData: { url: s.url, everyMs: opts.healthEveryMs ?? 200, slowMs: opts.slowMs ?? 500 } });
  const health = new Promise<Pick<ServerWatchResult, 'healthMaxMs' | 'healthSamples' | 'healthSlow'>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    snapshot: () => ({ ...r, healthSlow: [...r.healthSlow] }),
    async stop() {
      if (rssTimer) {
        clearInterval(rssTimer);
        sampleRss();
      }
      worker.postMessage('stop');
      Object.assign(r, await health);
      await worker.terminate();
      return { ...r, healthSlow: [...r.healthSlow] };
    },
  };
}

/**
 * Polls `fn` until it returns a truthy value and returns that value. Events cross RabbitMQ's fanout
 * before local handlers see them, so a test waits for an event instead of expecting it at once.
 */
export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 30_000, every = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Polls until the document or job reaches completed/failed. */
export async function waitForStatus(s: Pick<HttpTestServer, 'json'>, pathname: string, timeoutMs = 120_000, key?: string): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await s.json(pathname, { key });
    if (body?.status === 'completed' || body?.status === 'failed') return body;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pathname}: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export function uploadForm(name: string, bytes: Uint8Array | string, fields: Record<string, string> = {}, type = 'application/octet-stream'): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)], { type }), name);
  return form;
}

export const CORPUS = process.env.QUIRE_CORPUS ?? path.resolve(import.meta.dirname, '../../../shared/corpus');
export const hasCorpus = fs.existsSync(path.join(CORPUS, 'manifest.json'));
