// `quire-worker` processes (core/engine/src/worker-main.ts on the sources) next to a test server in this
// process: same database, queue prefix and data dir, so they run the stages the API process publishes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { AMQP_URL, makeTempDir, removeTempDir, startTestServer } from './server.js';
import type { TestServer } from './server.js';
import { workerArgs } from './built.js';
import { deleteRabbitPrefix } from './leftovers.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface WorkerProcess {
  /** the worker's id as it appears in job_stages.worker */
  id: string;
  child: ChildProcess;
  alive(): boolean;
  output(): string;
  /** SIGKILL: no clean-up, no acks, the lease runs out */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after 15 s */
  stop(): Promise<void>;
}

/** Starts a worker on the test server's database, queue and data dir; resolves once it consumes. */
export async function startWorker(s: TestServer, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const cfg = s.runtime.config;
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('QUIRE_') && k !== 'NODE_TEST_CONTEXT') base[k] = v;
  const child = spawn(process.execPath, workerArgs(), {
    cwd: ROOT,
    env: {
      ...base,
      QUIRE_DATA_DIR: cfg.dataDir,
      QUIRE_DB_URL: cfg.db.url ?? '',
      QUIRE_QUEUE_URL: cfg.queue.url ?? '',
      QUIRE_QUEUE_PREFIX: cfg.queue.prefix ?? '',
      QUIRE_LOG_LEVEL: process.env.QUIRE_TEST_LOG_LEVEL ?? 'warn',
      QUIRE_ALLOWED_HOSTS: '127.0.0.1,localhost',
      QUIRE_PDF_WORKERS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  child.stderr!.on('data', (b: Buffer) => lines.push(...b.toString('utf8').split('\n').filter(Boolean)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const id = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    const t = setTimeout(() => reject(new Error(`the worker did not start within 90 s:\n${lines.slice(-30).join('\n')}`)), 90_000);
    rl.on('line', (line) => {
      lines.push(line);
      const m = /^Quire worker (\S+) consuming/.exec(line);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(t);
      reject(new Error(`the worker exited (${code ?? signal}) before it started:\n${lines.slice(-30).join('\n')}`));
    });
  }).catch(async (e) => {
    if (alive()) child.kill('SIGKILL');
    await exited;
    throw e;
  });
  return {
    id,
    child,
    alive,
    output: () => lines.slice(-200).join('\n'),
    async kill9() {
      if (alive()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (alive()) {
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(15_000)]);
      }
      if (alive()) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A test server that runs no stages and two workers that run them, with a test plugin in place of a built-in. */
export interface CrashRig {
  /** the API process (QUIRE_RUN_STAGES=false), in this process */
  s: TestServer;
  workers: [WorkerProcess, WorkerProcess];
  /**
   * Kills (SIGKILL) the worker with this id (job_stages.worker of a running stage) and returns it and the
   * other one, which is to take the stage over once the lease runs out.
   */
  killWorker(id: string | null | undefined): Promise<{ victim: WorkerProcess; survivor: WorkerProcess }>;
  /** stops the workers and the server, deletes the queues and the plugin's folder */
  close(): Promise<void>;
}

/**
 * The set-up of the crash tests (a worker killed while it runs a stage, the other takes it over): a test
 * plugin written to a temp folder and loaded through QUIRE_PLUGINS in place of the built-in of the same kind
 * and name (e.g. a slow extractor or embedder, so that the kill lands while the stage runs), a test server
 * with QUIRE_RUN_STAGES=false and two `quire-worker` processes on its database and queue, all with a short
 * lease (QUIRE_WORKER_LEASE_S, default 2 s). Needs a database and a transport shared by processes (MariaDB
 * and RabbitMQ, CI's second pass).
 */
export async function startCrashRig(plugin: { kind: string; name: string; source: string }, opts: { leaseS?: number } = {}): Promise<CrashRig> {
  const pluginDir = makeTempDir(`crash-${plugin.kind}`);
  fs.writeFileSync(path.join(pluginDir, 'package.json'), JSON.stringify({ name: `quire-plugin-test-${plugin.kind}-${plugin.name}`, type: 'module', main: 'index.js', quire: { kind: plugin.kind, name: plugin.name, core: '^1' } }));
  fs.writeFileSync(path.join(pluginDir, 'index.js'), plugin.source);
  const env = { QUIRE_PLUGINS: pluginDir, QUIRE_WORKER_LEASE_S: String(opts.leaseS ?? 2) };
  let s: TestServer | undefined;
  const workers: WorkerProcess[] = [];
  const close = async () => {
    const prefix = s?.runtime.config.queue.prefix;
    for (const w of workers) await w.stop();
    await s?.close();
    // the retry queues the workers declared, which the test server does not know of
    if (prefix && AMQP_URL) await deleteRabbitPrefix(AMQP_URL, prefix).catch(() => {});
    removeTempDir(pluginDir);
  };
  try {
    s = await startTestServer({ env: { ...env, QUIRE_RUN_STAGES: 'false' } });
    workers.push(await startWorker(s, env));
    workers.push(await startWorker(s, env));
  } catch (e) {
    await close();
    throw e;
  }
  const pair = workers as [WorkerProcess, WorkerProcess];
  return {
    s,
    workers: pair,
    async killWorker(id) {
      const victim = pair.find((w) => w.id === id);
      assert.ok(victim, `the stage runs on one of the workers (${id}; workers ${pair.map((w) => w.id).join(', ')})`);
      await victim.kill9();
      return { victim, survivor: pair.find((w) => w !== victim)! };
    },
    close,
  };
}
