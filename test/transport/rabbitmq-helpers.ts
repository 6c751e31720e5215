// Shared by the RabbitMQ tests and their worker child process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import amqp from 'amqplib';
import storePlugin from '@quire/plugin-store-typeorm';
import { silentLogger } from '@quire/core';
import type { JobRecord, PipelineDefinition, PluginContext, Store } from '@quire/core';
import { deleteRabbitPrefix, recordResource, resourceStem } from '../helpers/leftovers.mjs';

export const AMQP_URL = process.env.QUIRE_TEST_AMQP_URL;
export const SKIP = AMQP_URL ? false : 'set QUIRE_TEST_AMQP_URL (e.g. amqp://guest:guest@127.0.0.1:5672) to run the RabbitMQ tests';

export const unique = (what: string) => `${what}_${randomUUID().slice(0, 8)}`;

const prefixes = new Set<string>();

/**
 * A queue prefix of its own for this test (quire_t_<run>_…, which the end-of-run check looks for); every
 * queue and exchange under it is deleted by deletePrefixes().
 */
export function testPrefix(): string {
  const prefix = `${resourceStem()}${randomUUID().slice(0, 8)}`;
  prefixes.add(prefix);
  recordResource({ kind: 'amqp', prefix });
  return prefix;
}

/**
 * Deletes the given queues and exchanges, then everything else under the prefixes handed out by
 * testPrefix() (retry queues of killed workers too, when rabbitmqctl can list them).
 */
export async function deletePrefixes(url: string, queues: string[] = [], exchanges: string[] = []): Promise<void> {
  await deleteAmqp(url, queues, exchanges);
  for (const p of prefixes) {
    await deleteRabbitPrefix(url, p);
    prefixes.delete(p);
  }
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'quire-rabbit-'));
}

/** The real store: SQLite under dataDir (one file shared by every process of a test). */
export async function openStore(dataDir: string): Promise<Store> {
  const ctx = { options: {}, config: { db: {} }, dataDir, logger: silentLogger, get: () => { throw new Error('no plugins here'); }, tryGet: () => undefined } as unknown as PluginContext;
  return (await storePlugin.create(ctx)) as Store;
}

export async function newJob(store: Store, patch: Partial<JobRecord> = {}): Promise<JobRecord> {
  const now = new Date();
  return store.repo('jobs').insert({
    id: randomUUID(), user_id: 'u-test', organization_id: null, type: 'test', status: 'pending', progress: 0, progress_detail: null, document_id: null,
    input: null, result: null, error: null, webhook_url: null, created_at: now, updated_at: now, completed_at: null, ...patch,
  });
}

/** Reads a counter kept in the store (rate_counters) without changing it. */
export async function counter(store: Store, id: string): Promise<number> {
  return store.increment(id, 0, new Date(Date.now() + 3600_000));
}

/**
 * The crash-test pipeline: prepare → work → finish. `work` records every start and every completion in
 * `sideFile` and counts completions in the store; with `block` it tells the parent it took the message
 * (a "TOOK <jobId>" line on stdout) and then never returns, ignoring its abort signal.
 */
export function crashPipeline(name: string, opts: { sideFile: string; worker: string; block: boolean; store: Store }): PipelineDefinition {
  const note = (line: string) => fs.appendFileSync(opts.sideFile, `${line}\n`);
  return {
    name,
    stages: [
      { name: 'prepare', run: async (ctx) => ({ n: (ctx.payload.n as number) ?? 0 }) },
      {
        name: 'work',
        async run(ctx) {
          note(`start ${opts.worker}`);
          if (opts.block) {
            process.stdout.write(`TOOK ${ctx.job.id}\n`);
            await new Promise(() => {});
          }
          await ctx.progress(0.5);
          await sleep(50);
          await opts.store.increment(`crash:${ctx.job.id}:work`, 1, new Date(Date.now() + 3600_000));
          note(`done ${opts.worker}`);
          return { n: (ctx.payload.n as number) * 2 };
        },
      },
      { name: 'finish', run: async (ctx) => ({ answer: ctx.payload.n }) },
    ],
    async onComplete(job) {
      await opts.store.increment(`crash:${job.id}:complete`, 1, new Date(Date.now() + 3600_000));
      note(`complete ${opts.worker}`);
    },
  };
}

/** Resolves with the first stdout line of `child` that matches. */
export function waitForLine(child: ChildProcess, re: RegExp, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    const done = (f: () => void) => {
      clearTimeout(t);
      rl.off('line', onLine);
      child.off('exit', onExit);
      f();
    };
    const onLine = (line: string) => { if (re.test(line)) done(() => resolve(line)); };
    const onExit = (code: number | null, sig: string | null) => done(() => reject(new Error(`worker exited (${code ?? sig}) before printing ${re}`)));
    const t = setTimeout(() => done(() => reject(new Error(`no ${re} from the worker within ${timeoutMs} ms`))), timeoutMs);
    rl.on('line', onLine);
    child.once('exit', onExit);
  });
}

/** Deletes queues and exchanges with a connection of its own (ignores those already gone). */
export async function deleteAmqp(url: string, queues: string[], exchanges: string[] = []): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    for (const q of queues) {
      const ch = await conn.createChannel();
      ch.on('error', () => {});
      await ch.deleteQueue(q).catch(() => {});
      await ch.close().catch(() => {});
    }
    for (const x of exchanges) {
      const ch = await conn.createChannel();
      ch.on('error', () => {});
      await ch.deleteExchange(x).catch(() => {});
      await ch.close().catch(() => {});
    }
  } finally {
    await conn.close().catch(() => {});
  }
}

/** Messages ready in a queue (0 when it does not exist), asked with a connection of its own. */
export async function queueDepth(url: string, queue: string): Promise<number> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    return (await ch.checkQueue(queue)).messageCount;
  } catch (e) {
    if (/NOT_FOUND|404/.test((e as Error).message)) return 0;
    throw e;
  } finally {
    await conn.close().catch(() => {});
  }
}

/** Takes every message from a queue (raw), for assertions. */
export async function drain(url: string, queue: string): Promise<amqp.GetMessage[]> {
  const conn = await amqp.connect(url);
  const out: amqp.GetMessage[] = [];
  try {
    const ch = await conn.createChannel();
    for (;;) {
      const m = await ch.get(queue, { noAck: true });
      if (!m) break;
      out.push(m);
    }
  } finally {
    await conn.close().catch(() => {});
  }
  return out;
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
