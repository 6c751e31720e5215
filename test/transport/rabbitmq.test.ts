// @services: the RabbitMQ transport against a real broker
// RabbitMQ transport against a real broker: retries with backoff, dead-lettering, requeue, persistence,
// events fanout, reconnect, and the pipeline runtime's retry/failure behaviour over it with the real store.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { PipelineRuntime, NonRetryableError, RequeueError, PluginRegistry } from '@quire/core';
import type { QuireEvent, RetryConsumeOptions, StageMessage } from '@quire/core';
import rabbitPlugin, { RabbitTransport } from '@quire/plugin-transport-rabbitmq';
import { AMQP_URL, SKIP, deleteAmqp, deletePrefixes, drain, newJob, openStore, queueDepth, tempDir, testPrefix, unique, until } from './rabbitmq-helpers.js';

const url = AMQP_URL ?? '';
const prefix = testPrefix();
const transports: RabbitTransport[] = [];
const usedStages = new Set<string>();

async function transport(extra: Partial<ConstructorParameters<typeof RabbitTransport>[0]> = {}): Promise<RabbitTransport> {
  const t = new RabbitTransport({ url, prefix, reconnectMinMs: 50, reconnectMaxMs: 200, ...extra });
  await t.connect(5000);
  transports.push(t);
  return t;
}

const message = (stage: string, n = 1): StageMessage => {
  const [pipeline, st] = stage.split('.') as [string, string];
  usedStages.add(stage);
  return { id: `m${n}`, jobId: `job-${n}`, pipeline, stage: st, payload: { n }, attempt: 1 };
};

after(async () => {
  if (!AMQP_URL) return;
  const retry = transports.flatMap((t) => [...usedStages].flatMap((s) => t.retryQueuesOf(s)));
  for (const t of transports) await t.close();
  const n = transports[0]?.names ?? (await import('@quire/plugin-transport-rabbitmq')).queueNames(prefix);
  await deletePrefixes(url, [...[...usedStages].map((s) => n.stage(s)), ...new Set(retry), n.dead], [n.events]);
});

test('retries with attempt + 1 after the backoff, then succeeds; messages are persistent', { skip: SKIP }, async () => {
  const t = await transport();
  const stage = `${unique('retry')}.s`;
  const seen: { attempt: number; at: number }[] = [];
  const options: RetryConsumeOptions = { prefetch: 1, maxAttempts: 3, retryDelayMs: (a) => 150 * a };
  const t0 = Date.now();
  // publish before anyone consumes: the queue is declared durable on publish, the message waits
  await t.publish(message(stage));
  assert.equal(await t.depth(stage), 1);
  const raw = await drain(url, t.names.stage(stage));
  assert.equal(raw.length, 1);
  assert.equal(raw[0]!.properties.deliveryMode, 2, 'persistent');
  assert.equal(raw[0]!.properties.headers?.['x-quire-attempt'], 1);
  await t.publish(message(stage));
  await t.consume(stage, async (m) => {
    seen.push({ attempt: m.attempt, at: Date.now() - t0 });
    if (m.attempt < 3) throw new Error(`transient ${m.attempt}`);
  }, options);
  await until('third attempt', () => seen.length >= 3);
  assert.deepEqual(seen.map((s) => s.attempt), [1, 2, 3]);
  assert.ok(seen[1]!.at - seen[0]!.at >= 140, `first backoff ${seen[1]!.at - seen[0]!.at} ms`);
  assert.ok(seen[2]!.at - seen[1]!.at >= 290, `second backoff ${seen[2]!.at - seen[1]!.at} ms`);
  assert.deepEqual(t.retryQueuesOf(stage), [t.names.retry(stage, 150), t.names.retry(stage, 300)]);
  await until('queues to drain', async () => (await t.depth(stage)) === 0);
  await sleep(100);
  assert.equal(seen.length, 3);
  assert.equal(await t.deadDepth(), 0);
});

test('after maxAttempts the message goes to the dead-letter queue with the error in headers', { skip: SKIP }, async () => {
  const t = await transport({ prefix: testPrefix() });
  const stage = `${unique('dead')}.s`;
  let calls = 0;
  await t.consume(stage, async () => { calls++; throw new Error('always broken'); }, { prefetch: 1, maxAttempts: 2, retryDelayMs: () => 20 } as RetryConsumeOptions);
  await t.publish(message(stage, 7));
  await until('dead letter', async () => (await t.deadDepth()) === 1);
  assert.equal(calls, 2);
  const [dead] = await drain(url, t.names.dead);
  const h = dead!.properties.headers!;
  assert.equal(h['x-quire-error'], 'always broken');
  assert.equal(h['x-quire-attempts'], 2);
  assert.equal(h['x-quire-queue'], t.names.stage(stage));
  assert.ok(!Number.isNaN(Date.parse(h['x-quire-failed-at'])));
  const body = JSON.parse(dead!.content.toString());
  assert.equal(body.jobId, 'job-7');
  assert.equal(body.attempt, 2);
  assert.equal(await t.depth(stage), 0);
  await t.close();
  await deleteAmqp(url, [t.names.stage(stage), ...t.retryQueuesOf(stage), t.names.dead], [t.names.events]);
});

test('RequeueError gives the message back without spending an attempt; unreadable messages are dead-lettered', { skip: SKIP }, async () => {
  const t = await transport({ prefix: testPrefix() });
  const stage = `${unique('requeue')}.s`;
  const attempts: number[] = [];
  await t.consume(stage, async (m) => {
    attempts.push(m.attempt);
    if (attempts.length < 3) throw new RequeueError('busy', 30);
  }, { prefetch: 1, maxAttempts: 1 });
  await t.publish(message(stage));
  await until('three deliveries', () => attempts.length >= 3);
  assert.deepEqual(attempts, [1, 1, 1]);
  // garbage straight into the queue
  await deleteAmqp(url, []); // (connection sanity)
  const amqp = (await import('amqplib')).default;
  const conn = await amqp.connect(url);
  const ch = await conn.createChannel();
  ch.sendToQueue(t.names.stage(stage), Buffer.from('not json'));
  await ch.close();
  await conn.close();
  await until('garbage dead-lettered', async () => (await t.deadDepth()) === 1);
  const [dead] = await drain(url, t.names.dead);
  assert.match(String(dead!.properties.headers!['x-quire-error']), /unreadable message/);
  assert.equal(attempts.length, 3);
  await t.close();
  await deleteAmqp(url, [t.names.stage(stage), ...t.retryQueuesOf(stage), t.names.dead], [t.names.events]);
});

test('prefetch bounds the messages in flight per consumer; a second consumer shares the queue', { skip: SKIP }, async () => {
  const t = await transport();
  const stage = `${unique('prefetch')}.s`;
  let inFlight = 0;
  let max = 0;
  let done = 0;
  const handler = async () => {
    inFlight++;
    max = Math.max(max, inFlight);
    await sleep(40);
    inFlight--;
    done++;
  };
  for (let i = 0; i < 8; i++) await t.publish(message(stage, i));
  const a = await t.consume(stage, handler, { prefetch: 2, maxAttempts: 1 });
  const b = await t.consume(stage, handler, { prefetch: 1, maxAttempts: 1 });
  await until('all handled', () => done === 8);
  assert.ok(max <= 3, `at most prefetch 2 + 1 in flight, saw ${max}`);
  assert.ok(max >= 2);
  await a.cancel();
  await b.cancel();
  await t.publish(message(stage, 99));
  await sleep(100);
  assert.equal(done, 8, 'cancelled consumers take nothing more');
  assert.equal(await t.depth(stage), 1);
});

test('events fan out to every subscribed process exactly once', { skip: SKIP }, async () => {
  const p1 = await transport();
  const p2 = await transport();
  const got1: QuireEvent[] = [];
  const got2: QuireEvent[] = [];
  await p1.subscribeEvents((e) => got1.push(e));
  await p2.subscribeEvents((e) => got2.push(e));
  const event: QuireEvent = { id: unique('ev'), type: 'document.completed', timestamp: new Date().toISOString(), user_id: 'u', organization_id: null, data: { document_id: 'd1' } };
  await p1.publishEvent(event);
  await until('both receive', () => got1.length >= 1 && got2.length >= 1);
  await sleep(100);
  assert.deepEqual(got1, [event]);
  assert.deepEqual(got2, [event]);
});

test('reconnects after the connection drops: publishes fail loudly meanwhile, consumers and events resume', { skip: SKIP }, async () => {
  const t = await transport({ reconnectMinMs: 300 });
  const stage = `${unique('reconnect')}.s`;
  const handled: number[] = [];
  const events: string[] = [];
  await t.consume(stage, async (m) => void handled.push(m.payload.n as number), { prefetch: 1, maxAttempts: 1 });
  await t.subscribeEvents((e) => events.push(e.id));
  await t.publish(message(stage, 1));
  await until('first message', () => handled.length === 1);
  await sleep(100); // let its ack reach the broker (an ack cut with the connection means a redelivery: at-least-once)
  // cut the TCP connection under the transport
  (t as unknown as { link: { conn: { connection: { stream: { destroy(e: Error): void } } } } }).link.conn.connection.stream.destroy(new Error('connection cut by the test'));
  await until('disconnect noticed', async () => !(await t.health()).ok, 60_000);
  assert.match((await t.health()).message ?? '', /reconnecting/);
  await assert.rejects(t.publish(message(stage, 2)), (e: Error & { code?: string }) => e.code === 'SERVICE_UNAVAILABLE' && /connection is down/.test(e.message));
  await until('reconnected', async () => (await t.health()).ok, 60_000);
  await t.ping();
  await t.publish(message(stage, 3));
  await until('consumer resumed', () => handled.includes(3));
  await t.publishEvent({ id: 'after-reconnect', type: 'x', timestamp: new Date().toISOString(), user_id: null, organization_id: null, data: {} });
  await until('event subscription resumed', () => events.includes('after-reconnect'));
  assert.deepEqual(handled, [1, 3]);
});

test('the plugin takes url and prefix from its options, concurrency and attempts from the shared settings; health reports the broker', { skip: SKIP }, async () => {
  const reg = new PluginRegistry({
    shared: { 'queue.concurrency': 4, 'queue.maxAttempts': 5 },
    dataDir: '/tmp',
    selected: { transport: 'rabbitmq' },
    options: { 'transport:rabbitmq': { url, prefix } },
  });
  reg.register(rabbitPlugin, JSON.parse(fs.readFileSync(new URL('../../plugins/transport-rabbitmq/package.json', import.meta.url), 'utf8')).quire);
  await reg.start();
  const t = reg.get('transport') as RabbitTransport;
  assert.equal(t.name, 'rabbitmq');
  assert.equal((t as unknown as { opts: { prefetch: number; maxAttempts: number } }).opts.prefetch, 4);
  assert.equal((t as unknown as { opts: { prefetch: number; maxAttempts: number } }).opts.maxAttempts, 5);
  const [h] = await reg.health();
  assert.equal(h!.ok, true);
  assert.doesNotMatch(h!.message!, /guest:guest/, 'the password is not shown');
  await reg.close();
  const bad = new PluginRegistry({ dataDir: '/tmp', selected: { transport: 'rabbitmq' } });
  bad.register(rabbitPlugin);
  await assert.rejects(bad.start(), /QUIRE_QUEUE_URL/);
  const down = new RabbitTransport({ url: 'amqp://guest:guest@127.0.0.1:1', reconnectMinMs: 20 });
  await assert.rejects(down.connect(100), (e: Error & { code?: string }) => e.code === 'SERVICE_UNAVAILABLE' && !/guest:guest/.test(e.message));
});

test('pipeline runtime over RabbitMQ: a flaky stage is retried, a broken one fails the job once, 4xx fails at once', { skip: SKIP, timeout: 30_000 }, async () => {
  const dir = tempDir();
  const store = await openStore(dir);
  const t = await transport();
  const runtime = new PipelineRuntime({ store, transport: t, maxAttempts: 3, retryDelayMs: () => 50, pollMs: 50, concurrency: 2 });
  const pipeline = unique('rt');
  ['flaky', 'broken', 'reject'].forEach((s) => usedStages.add(`${pipeline}.${s}`));
  const attempts: Record<string, number[]> = { flaky: [], broken: [], reject: [] };
  const failed: string[] = [];
  const completed: string[] = [];
  runtime.define({
    name: pipeline,
    stages: [
      {
        name: 'flaky',
        async run(ctx) {
          attempts.flaky!.push(ctx.message.attempt);
          if (ctx.payload.mode === 'flaky' && ctx.message.attempt < 3) throw new Error('flaky');
          return { mode: ctx.payload.mode };
        },
      },
      {
        name: 'broken',
        async run(ctx) {
          attempts.broken!.push(ctx.message.attempt);
          if (ctx.payload.mode === 'broken') throw new Error('broken for good');
          return ctx.payload;
        },
      },
      {
        name: 'reject',
        async run(ctx) {
          attempts.reject!.push(ctx.message.attempt);
          if (ctx.payload.mode === 'reject') throw new NonRetryableError('unsupported input');
          return { ok: ctx.payload.mode };
        },
      },
    ],
    onComplete: async (job) => void completed.push(job.id),
    onFail: async (job, e) => void failed.push(`${job.id}:${e.message}`),
  });
  await runtime.consume();
  try {
    const flaky = await newJob(store);
    const broken = await newJob(store);
    const reject = await newJob(store);
    await runtime.start(flaky.id, pipeline, { mode: 'flaky' });
    await runtime.start(broken.id, pipeline, { mode: 'broken' });
    await runtime.start(reject.id, pipeline, { mode: 'reject' });
    const [a, b, c] = await Promise.all([flaky, broken, reject].map((j) => runtime.waitFor(j.id, 60_000)));
    assert.equal(a!.status, 'completed');
    assert.deepEqual(a!.result, { ok: 'flaky' });
    assert.equal(b!.status, 'failed');
    assert.equal(b!.error, 'broken for good');
    assert.equal(c!.status, 'failed');
    assert.equal(c!.error, 'unsupported input');
    await sleep(100);
    assert.deepEqual(completed, [flaky.id]);
    assert.deepEqual(failed.sort(), [`${broken.id}:broken for good`, `${reject.id}:unsupported input`].sort());
    assert.deepEqual(attempts.flaky!.sort(), [1, 1, 1, 2, 3], 'flaky job: attempts 1..3; the others pass on attempt 1');
    assert.deepEqual(attempts.broken!.sort(), [1, 1, 1, 2, 3]);
    assert.deepEqual(attempts.reject!.sort(), [1, 1]);
    const row = (await store.repo('job_stages').findOne({ job_id: broken.id, stage: `${pipeline}.broken` }))!;
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 3);
    for (const s of ['flaky', 'broken', 'reject']) assert.equal(await t.depth(`${pipeline}.${s}`), 0);
    assert.equal(await t.deadDepth(), 0, 'the runtime settles final failures itself');
    for (const q of t.retryQueuesOf(`${pipeline}.flaky`)) assert.equal(await queueDepth(url, q), 0);
  } finally {
    await runtime.stop();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a refused login fails the start within seconds with the reason, instead of retrying until the connect timeout', { skip: SKIP, timeout: 60_000 }, async () => {
  const { spawnSync } = await import('node:child_process');
  const { serverArgs } = await import('../helpers/built.js');
  const u = new URL(url);
  u.password = 'not-the-password';
  const dataDir = tempDir();
  const started = Date.now();
  const r = spawnSync(process.execPath, [...serverArgs(), 'worker'], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, QUIRE_DATA_DIR: dataDir, QUIRE_QUEUE_URL: u.toString(), QUIRE_DB_URL: '', QUIRE_LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 50_000,
  });
  const ms = Date.now() - started;
  fs.rmSync(dataDir, { recursive: true, force: true });
  assert.notEqual(r.status, 0, 'the worker does not start');
  assert.match(r.stderr, /refused the login or the virtual host/);
  assert.ok(!r.stderr.includes('not-the-password'), 'the password is not shown');
  // the connect timeout is 30 s: well under it (the process start included)
  assert.ok(ms < 60_000, `failed after ${ms} ms`);
});

test('the API with a refused RabbitMQ login listens at once and its /readyz says failed, with the reason, within seconds', { skip: SKIP, timeout: 60_000 }, async () => {
  const { loadConfig } = await import('@quire/config');
  const { startServer } = await import('@quire/server');
  const { freePort } = await import('../helpers/server.js');
  const u = new URL(url);
  u.password = 'not-the-password';
  const dataDir = tempDir();
  const port = await freePort();
  const s = await startServer(loadConfig({ PORT: String(port), HOST: '127.0.0.1', QUIRE_DATA_DIR: dataDir, QUIRE_QUEUE_URL: u.toString(), QUIRE_QUEUE_PREFIX: testPrefix(), QUIRE_LOG_LEVEL: 'silent', QUIRE_PDF_WORKERS: '1' }), { waitReady: false });
  try {
    const started = Date.now();
    let body: any;
    let status = 0;
    do {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      status = r.status;
      body = await r.json();
      if (body.status === 'connecting') await sleep(100);
    } while (body.status === 'connecting' && Date.now() - started < 30_000);
    const ms = Date.now() - started;
    assert.equal(status, 503);
    assert.equal(body.status, 'failed');
    assert.match(body.error, /refused the login or the virtual host/);
    assert.ok(!JSON.stringify(body).includes('not-the-password'), 'the password is not shown');
    // the connect timeout is 30 s: the refusal is said well before (the plugins' start included)
    assert.ok(ms < 60_000, `failed after ${ms} ms`);
  } finally {
    await s.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
