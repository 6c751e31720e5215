// `quire-worker` processes (core/engine/src/worker-main.ts on the sources) next to a test server in this
// process: same database, queue prefix and data dir, so they run the stages the API process publishes.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from './server.js';
import { workerArgs } from './built.js';

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
