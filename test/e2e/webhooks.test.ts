// @services: webhook deliveries across restarts and two servers on one database and broker
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { createKey, findOrCreateUser } from '@quire/server';
import { fanOutEvent, verifyTimestampedSignature } from '@quire/engine';
import { AMQP_URL, MYSQL_URL, startTestServer, uploadForm, until, waitForStatus } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import type { Receiver } from '../helpers/receiver.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Webhook subscriptions (spec §4.15, §6) through HTTP: management, ownership, every §6.1 event the service
 * emits today reaching a subscribed receiver in the §6 envelope with a valid X-Svc-Signature over the raw
 * body, retries on the (shortened) 5-attempt schedule, redelivery, the test endpoint and secret rotation.
 */

const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('webhook subscriptions', () => {
  let s: TestServer;
  let rx: Receiver;
  let base = '';
  let otherKey = '';

  before(async () => {
    // five attempts (spec §6.3), 0.2 s apart instead of 1 min, 5 min, 30 min, 2 h
    s = await startTestServer({ env: { QUIRE_WEBHOOK_RETRY_DELAYS_S: '0.2,0.2,0.2,0.2' } });
    rx = await startReceiver();
    base = rx.base;
    const other = await findOrCreateUser(s.runtime.store, `other-webhooks-${randomUUID()}@test.local`, 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  const hits = (path: string) => rx.hits(path);

  async function create(path: string, events: string[], extra: Record<string, unknown> = {}) {
    const r = await s.json('/api/webhooks', { method: 'POST', json: { url: `${base}${path}`, events, ...extra } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body as { webhook_id: string; secret: string; url: string; events: string[] };
  }

  async function upload(name: string, body: string) {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, body) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    return { id: up.body.id as string, done: await waitForStatus(s, `/v1/documents/${up.body.id}`) };
  }

  const deliveries = async (id: string, query = '') => (await s.json(`/api/webhooks/${id}/deliveries?limit=100${query}`)).body.deliveries as any[];

  test('create, list, get, update, delete; the secret is shown only at creation; validation with the spec error body', async () => {
    const created = await s.json('/api/webhooks', { method: 'POST', json: { url: `${base}/crud`, events: ['document.completed', 'document.uploaded', 'document.completed'], description: 'crud' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const w = created.body;
    assert.match(w.webhook_id, /^[0-9a-f-]{36}$/);
    assert.equal(w.url, `${base}/crud`);
    assert.deepEqual(w.events, ['document.uploaded', 'document.completed'], 'unique, in §6.1 order');
    assert.equal(w.organization_id, null);
    assert.equal(w.active, true);
    assert.ok(!Number.isNaN(Date.parse(w.created_at)));
    assert.match(w.secret, /^whsec_[0-9a-f]{64}$/);
    // kept encrypted at rest: the row holds neither the secret nor its hex part
    const stored = (await s.runtime.store.repo('webhooks').get(w.webhook_id))!.secret;
    assert.ok(!stored.includes(w.secret.slice(6, 30)), 'the stored secret is not the secret');

    const one = await s.json(`/api/webhooks/${w.webhook_id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.webhook_id, w.webhook_id);
    assert.equal(one.body.secret, undefined);
    assert.ok(!JSON.stringify(one.body).includes(w.secret));
    const list = await s.json('/api/webhooks');
    assert.equal(list.status, 200);
    assert.ok(list.body.webhooks.some((x: any) => x.webhook_id === w.webhook_id));
    assert.equal(typeof list.body.total, 'number');
    assert.equal(typeof list.body.has_more, 'boolean');
    assert.ok(!JSON.stringify(list.body).includes(w.secret));
    const page = await s.json('/api/webhooks?limit=1&offset=0');
    assert.equal(page.body.webhooks.length, 1);

    const patched = await s.json(`/api/webhooks/${w.webhook_id}`, { method: 'PATCH', json: { events: ['*'], active: false, url: `${base}/crud2` } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.events, ['*']);
    assert.equal(patched.body.active, false);
    assert.equal(patched.body.status, 'inactive');
    assert.equal(patched.body.url, `${base}/crud2`);
    assert.equal((await s.json(`/api/webhooks/${w.webhook_id}`)).body.active, false);

    // validation: spec error body, field named
    const bad = async (json: unknown, field: string, path = '/api/webhooks', method = 'POST') => {
      const r = await s.json(path, { method, json });
      assert.equal(r.status, 400, `${JSON.stringify(json)} → ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.equal(typeof r.body.error.message, 'string');
      assert.ok(r.body.error.details.some((d: any) => d.field === field), `${JSON.stringify(json)}: ${JSON.stringify(r.body.error.details)}`);
    };
    await bad({ events: ['document.completed'] }, 'body.url');
    await bad({ url: 'http://example.com/hook', events: ['document.completed'] }, 'body.url'); // http for a host not allowed
    await bad({ url: 'ftp://example.com/hook', events: ['document.completed'] }, 'body.url');
    await bad({ url: 'not a url', events: ['document.completed'] }, 'body.url');
    await bad({ url: 'https://user:pw@127.0.0.1/hook', events: ['document.completed'] }, 'body.url');
    await bad({ url: 'https://10.1.2.3/hook', events: ['document.completed'] }, 'body.url'); // a private address
    await bad({ url: `${base}/x`, events: ['document.exploded'] }, 'body.events.0');
    await bad({ url: `${base}/x`, events: [] }, 'body.events');
    await bad({ url: `${base}/x`, events: 'document.completed' }, 'body.events');
    await bad({ url: `${base}/x`, events: ['*'], secret: 'mine' }, 'body');
    await bad({ url: `${base}/x`, events: ['*'], organization_id: 'nope' }, 'body.organization_id');
    await bad({ events: ['nope'] }, 'body.events.0', `/api/webhooks/${w.webhook_id}`, 'PATCH');
    await bad({ url: 'http://example.com/' }, 'body.url', `/api/webhooks/${w.webhook_id}`, 'PATCH');
    await bad({}, 'body', `/api/webhooks/${w.webhook_id}`, 'PATCH');
    const q = await s.json('/api/webhooks?limit=0');
    assert.equal(q.status, 400);
    assert.equal(q.body.error.code, 'VALIDATION_ERROR');
    // an organization the caller is not in
    const org = await s.json('/api/webhooks', { method: 'POST', json: { url: `${base}/x`, events: ['*'], organization_id: randomUUID() } });
    assert.equal(org.status, 404);
    assert.equal(org.body.error.code, 'NOT_FOUND');

    // delete: 404 afterwards, and again
    const del = await s.json(`/api/webhooks/${w.webhook_id}`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { success: true, webhook_id: w.webhook_id });
    assert.equal((await s.json(`/api/webhooks/${w.webhook_id}`)).status, 404);
    assert.equal((await s.json(`/api/webhooks/${w.webhook_id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await s.json('/api/webhooks/not-an-id')).status, 404);

    // documented in /openapi.json
    const api = await s.json('/openapi.json', { key: null });
    assert.ok(api.body.paths['/api/webhooks'].post.requestBody);
    assert.ok(api.body.paths['/api/webhooks'].get);
    for (const m of ['get', 'patch', 'delete']) assert.ok(api.body.paths['/api/webhooks/{id}'][m], m);
    for (const p of ['/api/webhooks/{id}/test', '/api/webhooks/{id}/rotate-secret', '/api/webhooks/{id}/deliveries/{delivery_id}/redeliver']) assert.ok(api.body.paths[p]?.post, p);
    assert.ok(api.body.paths['/api/webhooks/{id}/deliveries'].get);
    assert.ok(JSON.stringify(api.body.paths['/api/webhooks'].post.requestBody).includes('document.completed'));
  });

  test("someone else's webhook is a 404 for every operation, and is not listed", async () => {
    const w = await create('/mine', ['document.completed']);
    const delivery = (await s.json(`/api/webhooks/${w.webhook_id}/test`, { method: 'POST' })).body.delivery_id;
    const tries: [string, string, unknown?][] = [
      ['GET', `/api/webhooks/${w.webhook_id}`],
      ['PATCH', `/api/webhooks/${w.webhook_id}`, { active: false }],
      ['DELETE', `/api/webhooks/${w.webhook_id}`],
      ['POST', `/api/webhooks/${w.webhook_id}/test`],
      ['POST', `/api/webhooks/${w.webhook_id}/rotate-secret`],
      ['GET', `/api/webhooks/${w.webhook_id}/deliveries`],
      ['GET', `/api/webhooks/${w.webhook_id}/deliveries/${delivery}`],
      ['POST', `/api/webhooks/${w.webhook_id}/deliveries/${delivery}/redeliver`],
    ];
    for (const [method, path, json] of tries) {
      const r = await s.json(path, { method, json, key: otherKey });
      assert.equal(r.status, 404, `${method} ${path}: ${r.status}`);
      assert.equal(r.body.error.code, 'NOT_FOUND');
    }
    assert.ok(!(await s.json('/api/webhooks', { key: otherKey })).body.webhooks.some((x: any) => x.webhook_id === w.webhook_id));
    const still = await s.json(`/api/webhooks/${w.webhook_id}`);
    assert.equal(still.body.active, true);
    assert.equal(hits('/mine').length, 1, 'only the owner test was sent');
    // nor does someone else's upload reach it
    await s.json(`/api/webhooks/${w.webhook_id}`, { method: 'DELETE' });
  });

  test('every §6.1 event the service emits reaches a subscribed webhook, enveloped and signed over the raw body', async () => {
    const all = await create('/all', ['*']);
    const onlyCompleted = await create('/completed', ['document.completed']);
    const inactive = await create('/inactive', ['*'], { active: false });

    // document.uploaded, processing, completed
    const doc = await upload('events.txt', 'The harbour ferry leaves Aldholm at 06:40. A single ticket costs 9 euros. Invoice total: 120.50 EUR.');
    assert.equal(doc.done.status, 'completed');
    // document.failed
    const corrupt = await s.json('/v1/documents', { method: 'POST', body: uploadForm('broken.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntrailer\n%%EOF-truncated') });
    assert.equal((await waitForStatus(s, `/v1/documents/${corrupt.body.id}`)).status, 'failed');
    // extraction.started, extraction.completed
    const ex = await s.json('/api/extract/run', { method: 'POST', json: { document_id: doc.id, config: { fields: [{ name: 'total', type: 'number', description: 'Invoice total' }] } } });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    // extraction.failed (an input that cannot be fetched)
    await s.json('/api/extract/run', { method: 'POST', json: { input: 'http://127.0.0.1:9/nothing.pdf', config: { fields: [{ name: 'total', type: 'number' }] } } });
    // chat.session.created, chat.message
    const kb = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Webhook KB' } });
    const kbId = kb.body.knowledge_base.id;
    assert.equal((await s.json(`/api/knowledge-bases/${kbId}/documents/batch`, { method: 'POST', json: { document_ids: [doc.id] } })).status, 200);
    const chat = await s.json('/api/chat', { method: 'POST', json: { message: 'When does the ferry leave Aldholm?', knowledge_base_id: kbId } });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    // document.deleted
    assert.equal((await s.json(`/v1/documents/${corrupt.body.id}`, { method: 'DELETE' })).status, 200);
    // workflow.started, workflow.step.completed, workflow.completed; workflow.failed
    for (const expression of ['{"total": 120.5}', '$error("stopped on purpose")']) {
      const wf = await s.json('/api/workflows', { method: 'POST', json: { name: 'webhook events', definition: { steps: [{ id: 'map', type: 'transform', config: { expression } }] } } });
      assert.equal(wf.status, 201, JSON.stringify(wf.body));
      assert.equal((await s.json(`/api/workflows/${wf.body.workflow.id}/execute`, { method: 'POST', json: { trigger_data: {} } })).status, 202);
    }

    const expected = ['document.uploaded', 'document.processing', 'document.completed', 'document.failed', 'document.deleted', 'extraction.started', 'extraction.completed', 'extraction.failed', 'chat.message', 'chat.session.created', 'workflow.started', 'workflow.step.completed', 'workflow.completed', 'workflow.failed'];
    await until('every event type at the receiver', () => expected.every((e) => hits('/all').some((h) => h.headers['x-svc-event'] === e)), 60_000);

    for (const h of hits('/all')) {
      assert.equal(h.headers['x-svc-signature'], sign(all.secret, h.body), `signature of ${h.headers['x-svc-event']}`);
      assert.ok(verifyTimestampedSignature(all.secret, h.body, String(h.headers['x-svc-signature-v2'])));
      assert.equal(h.headers['content-type'], 'application/json');
      const env = JSON.parse(h.body);
      assert.deepEqual(Object.keys(env).sort(), ['data', 'event', 'timestamp', 'webhook_id']);
      assert.equal(env.event, h.headers['x-svc-event']);
      assert.equal(env.webhook_id, all.webhook_id);
      assert.ok(!Number.isNaN(Date.parse(env.timestamp)) && env.timestamp.endsWith('Z'));
      assert.equal(typeof env.data, 'object');
      assert.notEqual(env.event, 'document.processed', 'a platform event, not a webhook event');
    }
    const envOf = (event: string, pred: (d: any) => boolean) => hits('/all').map((h) => JSON.parse(h.body)).find((e) => e.event === event && pred(e.data));
    const completed = envOf('document.completed', (d) => d.id === doc.id);
    assert.deepEqual(Object.keys(completed.data).sort(), ['file_size', 'file_type', 'id', 'name', 'pages', 'processing_time_ms', 'status']);
    assert.equal(completed.data.status, 'completed');
    const extracted = envOf('extraction.completed', (d) => d.document_id === doc.id);
    for (const k of ['extraction_id', 'document_id', 'schema_id', 'overall_confidence', 'fields_extracted', 'data']) assert.ok(k in extracted.data, k);

    // exactly one delivery per event and webhook: the completed event of this document once, here and in the log
    await until('the completed-only webhook', () => hits('/completed').some((h) => JSON.parse(h.body).data.id === doc.id));
    assert.ok(hits('/completed').every((h) => h.headers['x-svc-event'] === 'document.completed'));
    assert.equal(hits('/all').filter((h) => h.headers['x-svc-event'] === 'document.completed' && JSON.parse(h.body).data.id === doc.id).length, 1);
    const log = await deliveries(all.webhook_id);
    assert.ok(log.length >= expected.length);
    await until('every delivery settled', async () => (await deliveries(all.webhook_id)).every((d) => d.status === 'delivered'));
    for (const d of await deliveries(all.webhook_id)) {
      assert.equal(d.attempts, 1);
      assert.equal(d.last_status_code, 200);
      assert.equal(typeof d.latency_ms, 'number');
      assert.equal(d.next_retry_at, null);
    }
    const ids = (await deliveries(all.webhook_id)).map((d) => d.delivery_id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal((await deliveries(inactive.webhook_id)).length, 0, 'an inactive webhook gets nothing');
    assert.equal(hits('/inactive').length, 0);
    const onlyLog = await deliveries(onlyCompleted.webhook_id);
    assert.ok(onlyLog.every((d) => d.event === 'document.completed'));

    // an event handled twice (as by two processes that both receive it) makes one delivery
    const event = { id: randomUUID(), type: 'document.completed', timestamp: new Date().toISOString(), user_id: (await s.runtime.store.repo('webhooks').get(all.webhook_id))!.user_id, organization_id: null, data: completed.data };
    const [a, b] = await Promise.all([fanOutEvent(s.runtime, event), fanOutEvent(s.runtime, event)]);
    assert.equal(a.length + b.length, 2, 'one delivery for each of the two matching webhooks, whichever call made it');
    assert.equal((await fanOutEvent(s.runtime, event)).length, 0);
    await until('the duplicate-safe event delivered', () => hits('/all').filter((h) => h.headers['x-svc-delivery'] === [...a, ...b].find((d) => d.webhook_id === all.webhook_id)!.id).length === 1);

    for (const w of [all, onlyCompleted, inactive]) await s.json(`/api/webhooks/${w.webhook_id}`, { method: 'DELETE' });
  });

  test('a receiver answering 500 gets the 5 attempts of the schedule, then the delivery is failed; redelivery sends the same body again', async () => {
    rx.answer('/down', [500]);
    const w = await create('/down', ['document.uploaded']);
    const doc = await s.json('/v1/documents', { method: 'POST', body: uploadForm('retry.txt', 'Retry me.') });
    assert.equal(doc.status, 201);
    const failed = await until('the delivery failed', async () => (await deliveries(w.webhook_id)).find((d) => d.status === 'failed'), 60_000);
    assert.equal(failed.event, 'document.uploaded');
    assert.equal(failed.attempts, 5);
    assert.equal(failed.max_attempts, 5);
    assert.equal(failed.last_status_code, 500);
    assert.equal(failed.last_error, 'HTTP 500');
    assert.equal(failed.next_retry_at, null);
    assert.equal(typeof failed.latency_ms, 'number');
    const attempts = hits('/down');
    assert.equal(attempts.length, 5);
    for (const h of attempts) {
      assert.equal(h.headers['x-svc-delivery'], failed.delivery_id);
      assert.equal(h.body, attempts[0]!.body, 'every attempt sends the same bytes');
      assert.equal(h.headers['x-svc-signature'], sign(w.secret, h.body));
    }
    const hook = await until('the webhook marked failing', async () => {
      const r = (await s.json(`/api/webhooks/${w.webhook_id}`)).body;
      return r.status === 'failing' ? r : null;
    });
    assert.equal(hook.consecutive_failures, 1);
    assert.equal(hook.last_delivery_status, 'failed');
    const one = await s.json(`/api/webhooks/${w.webhook_id}/deliveries/${failed.delivery_id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.payload, JSON.parse(attempts[0]!.body));
    assert.equal((await s.json(`/api/webhooks/${w.webhook_id}/deliveries?status=failed`)).body.total, 1);

    // the receiver is back: redeliver
    rx.answer('/down', [200]);
    const again = await s.json(`/api/webhooks/${w.webhook_id}/deliveries/${failed.delivery_id}/redeliver`, { method: 'POST' });
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.equal(again.body.redelivery_of, failed.delivery_id);
    assert.notEqual(again.body.delivery_id, failed.delivery_id);
    assert.equal(again.body.event, 'document.uploaded');
    const done = await until('the redelivery delivered', async () => {
      const d = (await s.json(`/api/webhooks/${w.webhook_id}/deliveries/${again.body.delivery_id}`)).body;
      return d.status === 'delivered' ? d : null;
    });
    assert.equal(done.attempts, 1);
    assert.equal(done.last_status_code, 200);
    const last = hits('/down').at(-1)!;
    assert.equal(last.headers['x-svc-delivery'], again.body.delivery_id);
    assert.equal(last.body, attempts[0]!.body);
    assert.equal(last.headers['x-svc-signature'], sign(w.secret, last.body));
    const healthy = (await s.json(`/api/webhooks/${w.webhook_id}`)).body;
    assert.equal(healthy.status, 'active');
    assert.equal(healthy.consecutive_failures, 0);
    assert.equal((await s.json(`/api/webhooks/${w.webhook_id}/deliveries/${randomUUID()}/redeliver`, { method: 'POST' })).status, 404);
    await waitForStatus(s, `/v1/documents/${doc.body.id}`);
    await s.json(`/api/webhooks/${w.webhook_id}`, { method: 'DELETE' });
  });

  test('the test endpoint sends a signed test event now and reports the answer; rotating the secret changes the signature', async () => {
    const w = await create('/probe', ['document.completed']);
    const ok = await s.json(`/api/webhooks/${w.webhook_id}/test`, { method: 'POST' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.success, true);
    assert.equal(ok.body.status_code, 200);
    assert.equal(ok.body.event, 'webhook.test');
    assert.equal(typeof ok.body.latency_ms, 'number');
    assert.equal(ok.body.error, null);
    const first = hits('/probe').at(-1)!; // answered before the endpoint returned
    assert.equal(first.headers['x-svc-delivery'], ok.body.delivery_id);
    assert.equal(first.headers['x-svc-signature'], sign(w.secret, first.body));
    const env = JSON.parse(first.body);
    assert.equal(env.event, 'webhook.test');
    assert.equal(env.webhook_id, w.webhook_id);
    const logged = (await deliveries(w.webhook_id)).find((d) => d.delivery_id === ok.body.delivery_id);
    assert.equal(logged.status, 'delivered');

    rx.answer('/probe', [503]);
    const down = await s.json(`/api/webhooks/${w.webhook_id}/test`, { method: 'POST' });
    assert.equal(down.status, 200);
    assert.equal(down.body.success, false);
    assert.equal(down.body.status_code, 503);
    assert.equal(down.body.error, 'HTTP 503');
    assert.equal((await deliveries(w.webhook_id)).find((d) => d.delivery_id === down.body.delivery_id).status, 'failed');
    rx.answer('/probe', [200]);

    const rotated = await s.json(`/api/webhooks/${w.webhook_id}/rotate-secret`, { method: 'POST' });
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.secret, /^whsec_[0-9a-f]{64}$/);
    assert.notEqual(rotated.body.secret, w.secret);
    assert.equal((await s.json(`/api/webhooks/${w.webhook_id}`)).body.secret, undefined);
    const after = await s.json(`/api/webhooks/${w.webhook_id}/test`, { method: 'POST' });
    assert.equal(after.body.success, true);
    const signed = hits('/probe').at(-1)!;
    assert.equal(signed.headers['x-svc-delivery'], after.body.delivery_id);
    assert.equal(signed.headers['x-svc-signature'], sign(rotated.body.secret, signed.body));
    assert.notEqual(signed.headers['x-svc-signature'], sign(w.secret, signed.body));

    // events too are signed with the new secret
    const doc = await upload('rotated.txt', 'Signed with the new secret.');
    const hit = await until('the completed event', () => hits('/probe').find((h) => h.headers['x-svc-event'] === 'document.completed' && JSON.parse(h.body).data.id === doc.id));
    assert.equal(hit.headers['x-svc-signature'], sign(rotated.body.secret, hit.body));
    await s.json(`/api/webhooks/${w.webhook_id}`, { method: 'DELETE' });
  });
});

/** Environment of a second server on the same data dir, database and broker prefix as `a` (same bootstrap key: call it with { key: a.key }). */
function sameInstallation(a: TestServer): Record<string, string> {
  const env: Record<string, string> = { QUIRE_DATA_DIR: a.dataDir, QUIRE_BOOTSTRAP_API_KEY: a.key };
  if (a.runtime.config.db.url) env.QUIRE_DB_URL = a.runtime.config.db.url;
  if (a.runtime.config.queue.url) env.QUIRE_QUEUE_PREFIX = a.runtime.config.queue.prefix;
  return env;
}

/** Stops a test server's API and engine but keeps its data dir, database and queues (close() removes them later). */
async function stopKeepingData(a: TestServer): Promise<void> {
  await new Promise<void>((r) => a.server.close(() => r()));
  a.server.closeAllConnections?.();
  await a.runtime.close();
}

describe('webhook deliveries across restarts and processes', () => {
  let rx: Receiver;
  let base = '';
  const hits = (path: string) => rx.hits(path);

  before(async () => {
    rx = await startReceiver();
    base = rx.base;
  });
  after(() => rx?.close());

  test('a retry pending when the server stops is sent by the server that starts next', async () => {
    // the first retry waits 15 s: the server is stopped well before it is due, even on a loaded machine
    // (the document is processed first, which took over 5 s with every core busy)
    const env = { QUIRE_WEBHOOK_RETRY_DELAYS_S: '15,0.2,0.2,0.2' };
    const a = await startTestServer({ env });
    let b: TestServer | null = null;
    try {
      rx.answer('/restart', [500, 200]);
      const w = await a.json('/api/webhooks', { method: 'POST', json: { url: `${base}/restart`, events: ['document.uploaded'] } });
      assert.equal(w.status, 201);
      const up = await a.json('/v1/documents', { method: 'POST', body: uploadForm('restart.txt', 'Delivered after a restart.') });
      assert.equal(up.status, 201);
      await until('the first attempt', () => hits('/restart').length === 1);
      await waitForStatus(a, `/v1/documents/${up.body.id}`);
      await stopKeepingData(a);
      const pending = (await a.json(`/api/webhooks/${w.body.webhook_id}/deliveries`).catch(() => null)) ?? null;
      assert.equal(pending, null, 'the first server no longer answers');
      assert.equal(hits('/restart').length, 1, 'the retry was still pending when the server stopped');

      b = await startTestServer({ env: { ...env, ...sameInstallation(a) } });
      const got = await b.json(`/api/webhooks/${w.body.webhook_id}/deliveries`, { key: a.key });
      assert.equal(got.status, 200, JSON.stringify(got.body));
      const log = got.body.deliveries;
      assert.equal(log.length, 1);
      assert.equal(log[0].attempts, 1);
      assert.equal(log[0].last_status_code, 500);
      assert.ok(log[0].next_retry_at, 'the next retry time is shown');
      const done = await until('the retry delivered by the new server', async () => {
        const d = (await b!.json(`/api/webhooks/${w.body.webhook_id}/deliveries`, { key: a.key })).body.deliveries[0];
        return d.status === 'delivered' ? d : null;
      });
      assert.equal(done.attempts, 2);
      assert.equal(hits('/restart').length, 2);
      assert.equal(hits('/restart')[1]!.body, hits('/restart')[0]!.body);
      assert.equal(hits('/restart')[1]!.headers['x-svc-signature'], sign(w.body.secret, hits('/restart')[1]!.body));
    } finally {
      await b?.close();
      await a.close().catch(() => {});
    }
  });

  test('two servers on one database and broker: each receives every event, one delivery is made', { skip: !(MYSQL_URL && AMQP_URL) && 'needs a shared database and broker (second test pass)' }, async () => {
    const a = await startTestServer();
    let b: TestServer | null = null;
    try {
      b = await startTestServer({ env: sameInstallation(a) });
      const seenByB = new Set<string>();
      b.runtime.events.on('*', (e) => void seenByB.add(`${e.type}:${String(e.data.id)}`));
      const w = await a.json('/api/webhooks', { method: 'POST', json: { url: `${base}/twice`, events: ['*'] } });
      assert.equal(w.status, 201);
      const up = await a.json('/v1/documents', { method: 'POST', body: uploadForm('twice.txt', 'One delivery per event.') });
      assert.equal(up.status, 201);
      const doc = up.body.id as string;
      await waitForStatus(a, `/v1/documents/${doc}`);
      const types = ['document.uploaded', 'document.processing', 'document.completed'];
      await until('both servers saw the events', () => types.every((t) => seenByB.has(`${t}:${doc}`)));
      const mine = () => hits('/twice').filter((h) => JSON.parse(h.body).data.id === doc);
      await until('every event at the receiver', () => types.every((t) => mine().some((h) => h.headers['x-svc-event'] === t)));
      const deliveries = await until('every delivery settled', async () => {
        const list = (await b!.json(`/api/webhooks/${w.body.webhook_id}/deliveries?limit=100`, { key: a.key })).body.deliveries as any[];
        return list.length >= types.length && list.every((d) => d.status === 'delivered') ? list : null;
      });
      for (const t of types) {
        assert.equal(deliveries.filter((d) => d.event === t).length, 1, `one delivery of ${t}`);
        assert.equal(new Set(mine().filter((h) => h.headers['x-svc-event'] === t).map((h) => h.headers['x-svc-delivery'])).size, 1, `one delivery id of ${t} at the receiver`);
      }
    } finally {
      await b?.close();
      await a.close();
    }
  });
});
