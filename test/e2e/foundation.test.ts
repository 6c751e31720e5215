import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, findOrCreateUser, revokeKey } from '@quire/server';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';


describe('foundation over HTTP', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('health and readiness need no key; readiness checks db and queue', async () => {
    const h = await s.json('/healthz', { key: null });
    assert.equal(h.status, 200);
    assert.equal(h.body.status, 'ok');
    const r = await s.json('/readyz', { key: null });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.checks.database.ok, true);
    assert.equal(r.body.checks.queue.ok, true);
    assert.ok(r.headers.get('x-request-id'));
  });

  test('request ids are echoed when sane and generated otherwise', async () => {
    const a = await s.api('/healthz', { key: null, headers: { 'x-request-id': 'client-req-12345' } });
    assert.equal(a.headers.get('x-request-id'), 'client-req-12345');
    const b = await s.api('/healthz', { key: null, headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(b.headers.get('x-request-id'), 'bad id with spaces');
  });

  test('auth: missing, malformed, unknown and revoked keys get 401 with the error body', async () => {
    const missing = await s.json('/v1/documents', { key: null });
    assert.equal(missing.status, 401);
    errorBody(missing.body, 'UNAUTHORIZED');
    const malformed = await s.json('/v1/documents', { headers: { authorization: 'Token abc' } });
    assert.equal(malformed.status, 401);
    errorBody(malformed.body, 'UNAUTHORIZED');
    const unknown = await s.json('/v1/documents', { key: `svc_${'ab'.repeat(20)}` });
    assert.equal(unknown.status, 401);
    errorBody(unknown.body, 'UNAUTHORIZED');

    const user = await findOrCreateUser(s.runtime.store, 'revoke@test.local', 'premium');
    const { key, record } = await createKey(s.runtime.store, user.id, 'temp');
    assert.match(key, /^svc_[0-9a-f]{48}$/);
    const stored = await s.runtime.store.repo('api_keys').get(record.id);
    assert.notEqual(stored!.key_hash, key, 'only a hash is stored');
    assert.ok(!JSON.stringify(stored).includes(key.slice(4)), 'the key itself is not stored');
    assert.equal((await s.json('/v1/documents', { key })).status, 200);
    await revokeKey(s.runtime.store, record.id);
    const revoked = await s.json('/v1/documents', { key });
    assert.equal(revoked.status, 401);
    errorBody(revoked.body, 'UNAUTHORIZED');
  });

  test('malformed JSON and invalid fields are 400 VALIDATION_ERROR with details', async () => {
    const bad = await s.json('/api/parse/async', { method: 'POST', body: '{"input": ', headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 400);
    errorBody(bad.body, 'VALIDATION_ERROR');
    const invalid = await s.json('/api/parse/async', { method: 'POST', json: { input: 'svc://not-a-uuid' } });
    assert.equal(invalid.status, 400);
    errorBody(invalid.body, 'VALIDATION_ERROR');
    const missing = await s.json('/api/parse/async', { method: 'POST', json: {} });
    assert.equal(missing.status, 400);
    assert.ok(missing.body.error.details.some((d: any) => d.field === 'body.input'), JSON.stringify(missing.body));
    const badOption = await s.json('/api/parse/async', { method: 'POST', json: { input: 'https://example.com/a.pdf', config: { chunking: { strategy: 'nonsense' } } } });
    assert.equal(badOption.status, 400);
    assert.ok(badOption.body.error.details.some((d: any) => d.field === 'config.chunking.strategy'), JSON.stringify(badOption.body));
    const query = await s.json('/v1/documents?limit=1000');
    assert.equal(query.status, 400);
    assert.ok(query.body.error.details.some((d: any) => d.field === 'query.limit'));
  });

  test('unknown route is 404 NOT_FOUND; wrong method is 405 with Allow', async () => {
    const nf = await s.json('/v1/nothing-here');
    assert.equal(nf.status, 404);
    errorBody(nf.body, 'NOT_FOUND');
    const na = await s.json('/v1/documents', { method: 'PUT', json: {} });
    assert.equal(na.status, 405);
    errorBody(na.body, 'METHOD_NOT_ALLOWED');
    assert.match(na.headers.get('allow') ?? '', /GET/);
    const doc404 = await s.json('/v1/documents/00000000-0000-4000-8000-000000000000');
    assert.equal(doc404.status, 404);
    errorBody(doc404.body, 'NOT_FOUND');
  });

  test('rate-limit headers on every authenticated response', async () => {
    const r = await s.api('/v1/documents');
    assert.equal(r.headers.get('x-ratelimit-limit'), '10000');
    const remaining = Number(r.headers.get('x-ratelimit-remaining'));
    assert.ok(remaining > 0 && remaining < 10000);
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    assert.ok(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61);
  });

  test('free plan: the 101st request in a minute is 429 with Retry-After and the rate-limit body', async () => {
    const user = await findOrCreateUser(s.runtime.store, 'free@test.local', 'free');
    const { key } = await createKey(s.runtime.store, user.id, 'free');
    const now = new Date();
    // stay inside one minute window
    if (now.getSeconds() > 50) await new Promise((r) => setTimeout(r, (61 - now.getSeconds()) * 1000));
    let last: Response | null = null;
    for (let i = 0; i < 100; i++) {
      last = await s.api('/v1/documents', { key });
      assert.equal(last.status, 200, `request ${i + 1}`);
      await last.arrayBuffer();
    }
    assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
    const over = await s.api('/v1/documents', { key });
    assert.equal(over.status, 429);
    const retry = Number(over.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    const body = await over.json();
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'type']);
    assert.equal(body.error.type, 'rate_limit_error');
    assert.equal(body.error.code, 'rate_limit_exceeded');
  });

  test('/v1/jobs/<id> answers for a job id and for a document id', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('note.txt', 'Quarterly report.\n\nRevenue grew in every region.') });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(up.body.status, 'pending');
    assert.equal(up.body.pages, null);
    const byDoc = await waitForStatus(s, `/v1/jobs/${up.body.id}`);
    assert.equal(byDoc.object, 'job');
    assert.equal(byDoc.id, up.body.id);
    assert.equal(byDoc.status, 'completed', JSON.stringify(byDoc));
    assert.equal(byDoc.result.document_id, up.body.id);
    assert.equal(typeof byDoc.created, 'number');

    const job = await s.json('/api/parse/async', { method: 'POST', json: { input: `svc://${up.body.id}` } });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    const byJob = await waitForStatus(s, `/v1/jobs/${job.body.job_id}`);
    assert.equal(byJob.id, job.body.job_id);
    assert.equal(byJob.status, 'completed', JSON.stringify(byJob));
    assert.ok(Array.isArray(byJob.result.chunks) && byJob.result.chunks.length > 0);
    assert.match(byJob.result.chunks.map((c: any) => c.content).join(' '), /Revenue grew/);
  });

  test('the OpenAPI document lists the routes', async () => {
    const r = await s.json('/openapi.json', { key: null });
    assert.equal(r.status, 200);
    assert.equal(r.body.openapi, '3.1.0');
    for (const p of ['/v1/documents', '/v1/documents/{id}', '/v1/jobs/{id}', '/api/parse', '/api/upload']) assert.ok(r.body.paths[p], p);
    assert.ok(r.body.paths['/v1/documents'].get.parameters.some((x: any) => x.name === 'limit'));
  });
});
