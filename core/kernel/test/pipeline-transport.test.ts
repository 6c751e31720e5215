import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { InProcessTransport, inProcessTransportPlugin } from '../src/transport/inprocess.js';
import { RequeueError, type RetryConsumeOptions } from '../src/pipeline/delivery.js';
import { PluginRegistry } from '../src/plugin/registry.js';
import type { QuireEvent, StageMessage } from '../src/transport/types.js';

const msg = (n: number, stage = 's'): StageMessage => ({ id: `m${n}`, jobId: `j${n}`, pipeline: 'p', stage, payload: { n }, attempt: 1 });

test('in-process transport: FIFO per queue, prefetch bounds concurrency, depth counts waiting messages', async () => {
  const t = new InProcessTransport();
  for (let i = 0; i < 6; i++) await t.publish(msg(i));
  await t.publish(msg(99, 'other'));
  assert.equal(await t.depth('p.s'), 6);
  assert.equal(await t.depth('p.other'), 1);
  const order: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const sub = await t.consume('p.s', async (m) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    order.push(m.payload.n as number);
    await sleep(10);
    inFlight--;
  }, { prefetch: 2, maxAttempts: 1 });
  while (order.length < 6 || inFlight) await sleep(5);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
  assert.equal(maxInFlight, 2);
  assert.equal(await t.depth('p.s'), 0);
  assert.equal(await t.depth('p.other'), 1);
  await sub.cancel();
  await t.publish(msg(7));
  await sleep(10);
  assert.equal(order.length, 6, 'a cancelled consumer takes nothing more');
  assert.equal(await t.depth('p.s'), 1);
  await t.close();
});

test('in-process transport: retries with attempt + 1 after the delay, then dead-letters', async () => {
  const t = new InProcessTransport();
  const seen: [number, number][] = [];
  const delays: number[] = [];
  const options: RetryConsumeOptions = { prefetch: 1, maxAttempts: 3, retryDelayMs: (a) => { delays.push(a); return 15; } };
  const t0 = Date.now();
  await t.consume('p.s', async (m) => { seen.push([m.attempt, Date.now() - t0]); throw new Error(`nope ${m.attempt}`); }, options);
  await t.publish(msg(1));
  while (t.deadLetters().length === 0) await sleep(5);
  assert.deepEqual(seen.map((s) => s[0]), [1, 2, 3]);
  assert.ok(seen[2]![1] >= 28, `delays were applied (${seen.map((s) => s[1])})`);
  assert.deepEqual(delays, [1, 2]);
  const [dl] = t.deadLetters();
  assert.equal(dl!.queue, 'p.s');
  assert.equal(dl!.error, 'nope 3');
  assert.equal(dl!.message.attempt, 3);
  assert.equal(await t.depth('p.s'), 0);
  await t.close();
});

test('in-process transport: RequeueError puts the message back without spending an attempt', async () => {
  const t = new InProcessTransport();
  const attempts: number[] = [];
  await t.consume('p.s', async (m) => {
    attempts.push(m.attempt);
    if (attempts.length < 3) throw new RequeueError('busy', 5);
  }, { prefetch: 1, maxAttempts: 1 });
  await t.publish(msg(1));
  while (attempts.length < 3) await sleep(5);
  await sleep(10);
  assert.deepEqual(attempts, [1, 1, 1]);
  assert.equal(t.deadLetters().length, 0);
  await t.close();
});

test('in-process transport: messages are copies, events reach local subscribers, close stops everything', async () => {
  const t = new InProcessTransport();
  const m = msg(1);
  await t.publish(m);
  m.payload.n = 42;
  let got: StageMessage | undefined;
  await t.consume('p.s', async (x) => void (got = x), { prefetch: 1, maxAttempts: 1 });
  while (!got) await sleep(1);
  assert.equal(got.payload.n, 1);
  const events: QuireEvent[] = [];
  await t.subscribeEvents((e) => events.push(e));
  await t.publishEvent({ id: 'e1', type: 'document.completed', timestamp: new Date().toISOString(), user_id: 'u', organization_id: null, data: { a: 1 } });
  await sleep(1);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.type, 'document.completed');
  await t.ping();
  assert.deepEqual(await t.health(), { ok: true, message: 'in-process stage queues' });
  await t.close();
  await assert.rejects(t.publish(msg(2)), /closed/);
  await assert.rejects(t.ping(), /closed/);
});

test('in-process transport loads through the plugin registry like any plugin', async () => {
  const reg = new PluginRegistry({ dataDir: '/tmp', selected: { transport: 'inprocess' } });
  reg.register(inProcessTransportPlugin);
  await reg.start();
  const t = reg.get('transport');
  assert.equal(t.name, 'inprocess');
  assert.ok(t instanceof InProcessTransport);
  await reg.close();
});
