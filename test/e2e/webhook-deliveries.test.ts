// @services: webhook retries on the job engine (retry queues of the transport)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { WebhookDeliveryRecord } from '@quire/core';
import { signatureHeader, verifyTimestampedSignature } from '@quire/engine';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import type { Receiver } from '../helpers/receiver.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Webhook deliveries are jobs of the `webhook` pipeline: retried on the pipeline's own schedule
 * (QUIRE_WEBHOOK_RETRY_DELAYS_S, attempts = delays + 1, more than a parse stage gets), on whichever transport
 * the server runs (in-process, or RabbitMQ on the second pass), with the delivery row as the record.
 */
describe('webhook deliveries on the job engine', () => {
  let s: TestServer;
  let rx: Receiver;
  let base = '';
  const secret = 'whsec_test_secret';
  const user = randomUUID();

  before(async () => {
    s = await startTestServer({ env: { QUIRE_WEBHOOK_RETRY_DELAYS_S: '0.2,0.2,0.2' } });
    rx = await startReceiver();
    base = rx.base;
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  const hits = (path: string) => rx.hits(path);

  async function settled(id: string, timeoutMs = 20_000): Promise<WebhookDeliveryRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = await s.runtime.store.repo('webhook_deliveries').get(id);
      if (row && row.status !== 'pending') return row;
      if (Date.now() > deadline) throw new Error(`delivery ${id} still ${row?.status} after ${timeoutMs} ms: ${JSON.stringify(row)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function enqueue(path: string, payload: unknown = { hello: path }) {
    return s.runtime.webhooks.enqueue({ url: `${base}${path}`, event: 'test.event', payload, secret, user_id: user });
  }

  test('the webhook pipeline has its own retry policy: more attempts than the queue default', () => {
    assert.ok(s.runtime.pipelines.pipelines().includes('webhook'));
    assert.deepEqual(s.runtime.webhooks.retryPolicy().maxAttempts, 4);
    assert.equal(s.runtime.webhooks.retryPolicy().delayMs(1), 200);
    assert.ok(s.runtime.config.queue.maxAttempts < 4, 'the default is lower, so the policy is what allows 4 attempts');
  });

  test('a delivery answered 500 is retried and then delivered; both attempts are signed and recorded', async () => {
    rx.answer('/flaky', [500, 200]);
    const row = await enqueue('/flaky', { job_id: 'j1', status: 'completed' });
    assert.equal(row.status, 'pending');
    assert.equal(row.attempts, 0);
    const done = await settled(row.id);
    assert.equal(done.status, 'delivered', JSON.stringify(done));
    assert.equal(done.attempts, 2);
    assert.equal(done.last_status, 200);
    assert.equal(done.last_error, null);
    const got = hits('/flaky');
    assert.equal(got.length, 2);
    for (const h of got) {
      assert.equal(h.body, row.payload);
      assert.equal(h.headers['x-svc-delivery'], row.id);
      assert.equal(h.headers['x-svc-event'], 'test.event');
      assert.equal(h.headers['x-svc-signature'], signatureHeader(secret, row.payload));
      assert.ok(verifyTimestampedSignature(secret, row.payload, String(h.headers['x-svc-signature-v2'])));
    }
    const job = await s.runtime.pipelines.waitFor(row.id, 60_000);
    assert.equal(job.type, 'webhook');
    assert.equal(job.status, 'completed');
    assert.equal(job.user_id, user);
  });

  test('a delivery answered 410 fails at once, without retries', async () => {
    rx.answer('/gone', [410]);
    const row = await enqueue('/gone');
    const done = await settled(row.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.attempts, 1);
    assert.equal(done.last_status, 410);
    assert.equal(done.last_error, 'HTTP 410');
    const job = await s.runtime.pipelines.waitFor(row.id, 60_000);
    assert.equal(job.status, 'failed');
    await new Promise((r) => setTimeout(r, 700)); // longer than the retry delays: nothing more comes
    assert.equal(hits('/gone').length, 1);
    assert.equal((await s.runtime.store.repo('webhook_deliveries').get(row.id))!.attempts, 1);
  });

  test('429 is transient; a receiver that keeps failing gets every attempt of the schedule, then the delivery fails', async () => {
    rx.answer('/busy', [429, 200]);
    rx.answer('/down', [503]);
    const busy = await enqueue('/busy');
    const down = await enqueue('/down');
    const b = await settled(busy.id);
    assert.equal(b.status, 'delivered');
    assert.equal(b.attempts, 2);
    const d = await settled(down.id);
    assert.equal(d.status, 'failed');
    assert.equal(d.attempts, 4);
    assert.equal(d.last_status, 503);
    assert.equal(d.last_error, 'HTTP 503');
    assert.equal(hits('/down').length, 4);
  });

  test('a refused address is permanent; a cancelled delivery is not attempted again', async () => {
    const refused = await s.runtime.webhooks.enqueue({ url: 'http://10.1.2.3/hook', event: 'test.event', payload: {}, secret, user_id: user });
    const r = await settled(refused.id);
    assert.equal(r.status, 'failed');
    assert.equal(r.attempts, 1);
    assert.equal(r.last_status, null);
    assert.match(r.last_error ?? '', /non-public address/);

    rx.answer('/cancel', [500]);
    const row = await enqueue('/cancel');
    const deadline = Date.now() + 10_000;
    while (!hits('/cancel').length && Date.now() < deadline) await new Promise((x) => setTimeout(x, 20));
    await s.runtime.pipelines.cancel(row.id);
    const c = await settled(row.id);
    assert.equal(c.status, 'failed');
    assert.equal(c.last_error, 'Cancelled');
    const n = hits('/cancel').length;
    await new Promise((x) => setTimeout(x, 700));
    assert.equal(hits('/cancel').length, n);
  });
});
