import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { createKey, findOrCreateUser } from '@quire/server';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { dispositionFileName, isPublicAddress, setHostResolver } from '@quire/engine';
import { verifyTimestampedSignature } from '@quire/engine';
import { filesUnder, errorBody } from '../helpers/assertions.js';

/** Test host names, given to the local file server by an injected resolver (no DNS involved). */
const FILES_HOST = 'files.quire.test';
const EVIL_HOST = 'evil.quire.test';
const MAPPED_HOST = 'mapped.quire.test';



describe('security over HTTP', () => {
  let s: TestServer;
  let fileServer: http.Server;
  let port = 0;
  let otherKey = '';
  const hooks: { headers: http.IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    fileServer = http.createServer((req, res) => {
      if (req.url === '/memo.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('Harbour memo: the ferry leaves at nine.');
      } else if (req.url === '/hook' && req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          hooks.push({ headers: req.headers, body });
          res.writeHead(200).end('ok');
        });
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', () => r()));
    port = (fileServer.address() as any).port;
    setHostResolver(async (host) => {
      if (host === FILES_HOST) return [{ address: '127.0.0.1', family: 4 }];
      if (host === EVIL_HOST) return [{ address: '10.0.0.7', family: 4 }];
      if (host === MAPPED_HOST) return [{ address: '::7f00:1', family: 6 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    });
    s = await startTestServer({ env: { QUIRE_ALLOWED_HOSTS: `127.0.0.1,localhost,${FILES_HOST}`, QUIRE_WEBHOOK_RETRY_DELAYS_S: '0.2,0.2,0.2,0.2' } });
    const other = await findOrCreateUser(s.runtime.store, 'other-security@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
  });
  after(async () => {
    setHostResolver(null);
    await s?.close();
    fileServer?.close();
  });

  test('URL inputs and webhooks with a host name: fetched and delivered through the pinned address; webhooks carry a timestamped signature', async () => {
    const before = Math.floor(Date.now() / 1000);
    // the webhook path on its own (the input is an IP literal)
    const job = await s.json('/api/parse/async', { method: 'POST', json: { input: `http://127.0.0.1:${port}/memo.txt`, webhook_url: `http://${FILES_HOST}:${port}/hook` } });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    const done = await waitForStatus(s, `/api/jobs/${job.body.job_id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const deadline = Date.now() + 20_000;
    while (!hooks.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(hooks.length, 1, 'delivered on the first attempt');
    const rows = await s.runtime.store.repo('webhook_deliveries').find({ url: `http://${FILES_HOST}:${port}/hook` });
    assert.equal(rows[0]!.attempts, 1);
    const hook = hooks[0]!;
    assert.equal(JSON.parse(hook.body).job_id, job.body.job_id);

    const { body: sec } = await s.json('/api/webhooks/callback-secret');
    // the signature of the spec, unchanged: HMAC of the exact raw body
    assert.equal(hook.headers['x-svc-signature'], `sha256=${createHmac('sha256', sec.secret).update(hook.body).digest('hex')}`);
    // the timestamped one: t is the attempt's time, v1 the HMAC of "<t>.<body>"
    const t = Number(hook.headers['x-svc-timestamp']);
    assert.ok(t >= before && t <= Math.floor(Date.now() / 1000) + 1, `timestamp ${t}`);
    assert.equal(hook.headers['x-svc-signature-v2'], `t=${t},v1=${createHmac('sha256', sec.secret).update(`${t}.${hook.body}`).digest('hex')}`);
    const v2 = String(hook.headers['x-svc-signature-v2']);
    assert.equal(verifyTimestampedSignature(sec.secret, hook.body, v2), true);
    assert.equal(verifyTimestampedSignature(sec.secret, hook.body, v2, { now: t + 3600 }), false, 'a replay an hour later is refused');
    assert.equal(verifyTimestampedSignature(sec.secret, hook.body, v2.replace(`t=${t}`, `t=${t + 3600}`), { now: t + 3600 }), false, 'a moved timestamp breaks v1');
    assert.equal(verifyTimestampedSignature(sec.secret, hook.body.replace('completed', 'failed'), v2), false);
    assert.deepEqual(sec.timestamped.headers, ['X-Svc-Timestamp', 'X-Svc-Signature-V2']);
    const openapi = await s.json('/openapi.json', { key: null });
    assert.match(JSON.stringify(openapi.body), /X-Svc-Signature-V2/);

    // URL inputs with a host name, synchronous and in the background
    const sync = await s.json('/api/parse', { method: 'POST', json: { input: `http://${FILES_HOST}:${port}/memo.txt` } });
    assert.equal(sync.status, 200, JSON.stringify(sync.body));
    assert.match(sync.body.result.chunks.map((c: any) => c.content).join(' '), /ferry leaves at nine/);
    const bg = await s.json('/api/parse/async', { method: 'POST', json: { input: `http://${FILES_HOST}:${port}/memo.txt` } });
    const bgDone = await waitForStatus(s, `/api/jobs/${bg.body.job_id}`);
    assert.equal(bgDone.status, 'completed', JSON.stringify(bgDone));
    assert.match(bgDone.result.chunks.map((c: any) => c.content).join(' '), /ferry leaves at nine/);

    // a name that resolves to a private or IPv4-compatible loopback address is refused (the injected answers are vetted as DNS answers)
    for (const host of [EVIL_HOST, MAPPED_HOST]) {
      const r = await s.json('/api/parse', { method: 'POST', json: { input: `http://${host}:${port}/memo.txt` } });
      assert.equal(r.status, 400, `${host}: ${JSON.stringify(r.body)}`);
      const w = await s.json('/api/parse/async', { method: 'POST', json: { input: `http://${FILES_HOST}:${port}/memo.txt`, webhook_url: `http://${host}:${port}/hook` } });
      assert.equal(w.status, 400, `webhook ${host}: ${JSON.stringify(w.body)}`);
    }
  });

  test('SSRF: IPv4-compatible, IPv4-mapped and NAT64 IPv6 forms of private addresses are refused, as inputs and as webhook URLs', async () => {
    const refused = ['::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '::10.0.0.1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::10.1.2.3', '64:ff9b:1::8.8.8.8', '::', '::1', 'fe80::1', 'fc00::1', '2002:7f00:1::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'not an address'];
    for (const a of refused) assert.equal(isPublicAddress(a), false, a);
    for (const a of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
    for (const host of ['[::127.0.0.1]', '[::a9fe:a9fe]', '[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', '[64:ff9b::7f00:1]', '[64:ff9b::a9fe:a9fe]']) {
      const r = await s.json('/api/parse', { method: 'POST', json: { input: `http://${host}:${port}/memo.txt` } });
      assert.equal(r.status, 400, `${host}: ${JSON.stringify(r.body)}`);
      errorBody(r.body, 'VALIDATION_ERROR');
      const a = await s.json('/api/parse/async', { method: 'POST', json: { input: `http://${host}:${port}/memo.txt` } });
      assert.equal(a.status, 400, `async ${host}`);
      const w = await s.json('/api/parse/async', { method: 'POST', json: { input: `http://127.0.0.1:${port}/memo.txt`, webhook_url: `http://${host}:${port}/hook` } });
      assert.equal(w.status, 400, `webhook ${host}: ${JSON.stringify(w.body)}`);
    }
  });

  test('after DELETE /v1/documents/<id>, its parse results are gone: studio link (html, json, markdown), GET /api/jobs, jobid:// and the stored files answer 404 / are removed', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('lighthouse.txt', 'Lighthouse log: the lamp was serviced on Tuesday.') });
    const id = up.body.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${id}`)).status, 'completed');
    const sync = await s.json('/api/parse', { method: 'POST', json: { input: `svc://${id}` } });
    assert.equal(sync.status, 200, JSON.stringify(sync.body));
    const async_ = await s.json('/api/parse/async', { method: 'POST', json: { input: `svc://${id}` } });
    assert.equal(async_.status, 202);
    assert.equal((await waitForStatus(s, `/api/jobs/${async_.body.job_id}`)).status, 'completed');
    const jobs = [sync.body.job_id, async_.body.job_id];
    const studio = sync.body.studio_link as string;
    const formats = ['html', 'json', 'markdown'];
    for (const f of formats) {
      const r = await fetch(`${studio}&format=${f}`);
      assert.equal(r.status, 200, f);
      assert.match(await r.text(), /lamp was serviced/);
    }
    for (const j of jobs) assert.equal((await s.json(`/api/jobs/${j}`)).status, 200);
    const fields = [{ name: 'day', type: 'string', description: 'Day of service' }];
    const viaJob = await s.json('/api/extract/run', { method: 'POST', json: { input: `jobid://${sync.body.job_id}`, config: { fields } } });
    assert.notEqual(viaJob.status, 404, JSON.stringify(viaJob.body));
    const stored = () => filesUnder(path.join(s.dataDir, 'files')).filter((f) => f.includes(id) || jobs.some((j) => f.includes(j)));
    assert.ok(stored().length >= 3, `original, content and job results stored: ${stored()}`);

    const del = await s.json(`/v1/documents/${id}`, { method: 'DELETE' });
    assert.deepEqual(del.body, { id, object: 'document', deleted: true });

    for (const f of formats) {
      const r = await fetch(`${studio}&format=${f}`);
      assert.equal(r.status, 404, `studio ${f}`);
      const body = await r.text();
      assert.doesNotMatch(body, /lamp was serviced/);
      errorBody(JSON.parse(body), 'NOT_FOUND');
    }
    for (const j of jobs) {
      assert.equal((await s.json(`/api/jobs/${j}`)).status, 404, `/api/jobs/${j}`);
      assert.equal((await s.json(`/v1/jobs/${j}`)).status, 404, `/v1/jobs/${j}`);
      const r = await s.json('/api/extract/run', { method: 'POST', json: { input: `jobid://${j}`, config: { fields } } });
      assert.equal(r.status, 404, `jobid://${j}: ${JSON.stringify(r.body)}`);
    }
    assert.deepEqual(stored(), [], 'no stored file of the document or of its parse jobs is left');
    assert.equal(await s.runtime.store.repo('jobs').count({ id: jobs }), 0);
  });

  test("DELETE of another user's id and of an unknown id answer the same 404, on every delete route; the owner's delete answers 200 once", async () => {
    const unknown = '6b1f3c1e-2d4a-4c5b-9e8f-0a1b2c3d4e5f';
    const doc = (await s.json('/v1/documents', { method: 'POST', body: uploadForm('owned.txt', 'Owned text.') })).body.id;
    const coll = (await s.json('/v1/collections', { method: 'POST', json: { name: 'Mine' } })).body.id;
    const kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Mine' } })).body.knowledge_base.id;
    const schema = (await s.json('/v1/schemas', { method: 'POST', json: { name: 'Mine', fields: [{ name: 'a', type: 'string' }] } })).body.id;
    const appSchema = (await s.json('/api/extract/schemas', { method: 'POST', json: { name: 'Mine too', fields: [{ name: 'a', type: 'string' }] } })).body.id;
    const preset = (await s.json('/api/parse/presets', { method: 'POST', json: { name: 'Mine' } })).body.preset.id;
    const adminId = (await s.runtime.store.repo('users').findOne({ email: 'admin@quire.local' }))!.id;
    const session = await s.runtime.store.repo('chat_sessions').insert({ id: 'c6f0f7a4-3b1d-4c6e-8f2a-1d2e3f4a5b6c', user_id: adminId, organization_id: null, knowledge_base_id: null, title: 'Mine', created_at: new Date(), updated_at: new Date() });
    const routes: [string, string][] = [
      ['/v1/documents/', doc],
      ['/v1/collections/', coll],
      ['/api/knowledge-bases/', kb],
      ['/v1/schemas/', schema],
      ['/api/extract/schemas/', appSchema],
      ['/api/parse/presets/', preset],
      ['/api/chat/sessions/', session.id],
    ];
    for (const [base, id] of routes) {
      assert.ok(id, `${base}: created`);
      const theirs = await s.json(base + id, { method: 'DELETE', key: otherKey });
      const random = await s.json(base + unknown, { method: 'DELETE', key: otherKey });
      assert.equal(theirs.status, 404, `${base}<someone else's>: ${JSON.stringify(theirs.body)}`);
      assert.equal(random.status, 404, `${base}<unknown>: ${JSON.stringify(random.body)}`);
      errorBody(theirs.body, 'NOT_FOUND');
      errorBody(random.body, 'NOT_FOUND');
      assert.equal(theirs.body.error.message.replace(id, '<id>'), random.body.error.message.replace(unknown, '<id>'), `${base}: same answer`);
      const mine = await s.json(base + id, { method: 'DELETE' });
      assert.equal(mine.status, 200, `${base}<mine>: ${JSON.stringify(mine.body)}`);
      const again = await s.json(base + id, { method: 'DELETE' });
      assert.equal(again.status, 404, `${base}<mine, again>`);
      assert.equal((await s.json(base + unknown, { method: 'DELETE' })).status, 404, `${base}<unknown, owner's key>`);
    }
  });

  test('file names: UTF-8 and RFC 5987 names decoded, bidi overrides and control characters removed, no path parts', async () => {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('Résumé_日本.txt', 'A résumé.') });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.filename, 'Résumé_日本.txt');
    assert.equal(up.body.document.name, 'Résumé_日本.txt');
    const v1 = await s.json('/v1/documents', { method: 'POST', body: uploadForm('../../Ünïcödé/naïve\u202Etxt.exe.txt', 'text') });
    assert.equal(v1.status, 201, JSON.stringify(v1.body));
    assert.equal(v1.body.name, 'naïvetxt.exe.txt');
    const sneaky = await s.json('/api/upload', { method: 'POST', body: uploadForm('in\u200Bvoice\u2066\u202D\u061C\u2028.txt', 'text') });
    assert.equal(sneaky.body.filename, 'invoice.txt');

    // filename*= (RFC 5987), as some clients send non-ASCII names; control characters can only come this way
    const boundary = 'quireboundary42';
    const raw = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="fallback.txt"; filename*=UTF-8''%C3%89t%C3%A9%00%07%1B%20%E2%80%AEtxt.%E6%97%A5%E6%9C%AC.txt\r\nContent-Type: text/plain\r\n\r\n`),
      Buffer.from('summer text'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const ext = await s.json('/api/upload', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: raw });
    assert.equal(ext.status, 200, JSON.stringify(ext.body));
    assert.equal(ext.body.filename, 'Été txt.日本.txt');

    const pre = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: '..\\..\\evil\u202Efdp.txt', file_size: 4 } });
    const put = await fetch(pre.body.upload_url, { method: 'PUT', body: 'text' });
    assert.equal(put.status, 200);
    assert.equal(((await put.json()) as any).document.name, 'evilfdp.txt');

    // names from a URL's Content-Disposition
    assert.equal(dispositionFileName(`attachment; filename="fallback.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9.pdf`), 'Résumé.pdf');
    assert.equal(dispositionFileName(`attachment; filename="${Buffer.from('Résumé.pdf', 'utf8').toString('latin1')}"`), 'Résumé.pdf');
    assert.equal(dispositionFileName(`attachment; filename*=UTF-8''%E0%A4%A.pdf`), '%E0%A4%A.pdf');
  });

  test('/readyz: status and ok per component without a key, details only for the admin key', async () => {
    const anon = await s.json('/readyz', { key: null });
    assert.equal(anon.status, 200);
    assert.equal(anon.body.status, 'ready');
    assert.deepEqual(anon.body.checks, { database: { ok: true }, queue: { ok: true } });
    for (const p of anon.body.plugins) assert.deepEqual(Object.keys(p).sort(), ['ok', 'plugin']);
    const text = JSON.stringify(anon.body);
    assert.doesNotMatch(text, /\/(usr|tmp|home|work|opt)\//, 'no absolute paths');
    assert.doesNotMatch(text, /\d+\.\d+\.\d+/, 'no versions');
    assert.doesNotMatch(text, /sqlite|mysql|amqp|dialect|transport"/i, 'no database or queue details');
    const user = await s.json('/readyz', { key: otherKey });
    assert.deepEqual(user.body.checks, { database: { ok: true }, queue: { ok: true } });
    const admin = await s.json('/readyz');
    assert.equal(admin.body.checks.database.ok, true);
    assert.equal(typeof admin.body.checks.database.dialect, 'string');
    assert.equal(typeof admin.body.checks.queue.transport, 'string');
  });

  test('errors: a non-Quire error is INTERNAL_ERROR with the request id, never its message; internal text in failed jobs and documents is not shown', async () => {
    const registry = s.runtime.registry as any;
    const health = registry.health;
    try {
      registry.health = async () => {
        const x: any = undefined;
        return x.length;
      };
      const r = await s.api('/readyz', { key: null, headers: { 'x-request-id': 'req-internal-0001' } });
      const body = (await r.json()) as any;
      assert.equal(r.status, 500);
      errorBody(body, 'INTERNAL_ERROR');
      assert.doesNotMatch(JSON.stringify(body), /Cannot read|length|undefined/);
      assert.match(body.error.message, /req-internal-0001/);
      assert.equal(body.error.details.request_id, 'req-internal-0001');
      // a Quire error carrying a tool's stderr is not shown either
      const { errors } = await import('@quire/core');
      registry.health = async () => {
        throw errors.processing('tesseract failed: Error in pixReadStream: Unknown format: no pix returned at /usr/lib/x86_64-linux-gnu/liblept.so');
      };
      const t = await s.api('/readyz', { key: null });
      const tb = (await t.json()) as any;
      assert.equal(t.status, 500);
      errorBody(tb, 'PROCESSING_ERROR');
      assert.doesNotMatch(JSON.stringify(tb), /pixReadStream|\/usr\/lib/);
      assert.match(tb.error.message, new RegExp(t.headers.get('x-request-id')!));
    } finally {
      registry.health = health;
    }

    const admin = (await s.runtime.store.repo('users').findOne({ email: 'admin@quire.local' }))!;
    const now = new Date();
    const jobId = '0f6c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
    await s.runtime.store.repo('jobs').insert({ id: jobId, user_id: admin.id, organization_id: null, type: 'parse', status: 'failed', progress: 0, progress_detail: null, document_id: null, input: { url: 'http://127.0.0.1/x' }, result: null, error: "Cannot read properties of undefined (reading 'length')", webhook_url: null, created_at: now, updated_at: now, completed_at: now });
    for (const p of [`/api/jobs/${jobId}`, `/v1/jobs/${jobId}`]) {
      const j = await s.json(p);
      assert.equal(j.body.status, 'failed');
      assert.doesNotMatch(j.body.error, /Cannot read/, p);
      assert.match(j.body.error, new RegExp(jobId), p);
    }
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('fails.txt', 'text') });
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    await s.runtime.store.repo('documents').update(up.body.id, { status: 'failed', error: "ENOENT: no such file or directory, open '/srv/quire/files/x'" });
    const d = await s.json(`/v1/documents/${up.body.id}`);
    assert.doesNotMatch(d.body.error, /ENOENT|\/srv\//);
    // Quire's own messages are kept
    await s.runtime.store.repo('jobs').update(jobId, { error: 'PDF could not be read: the file is damaged or not a valid pdf file' });
    assert.match((await s.json(`/api/jobs/${jobId}`)).body.error, /PDF could not be read/);
  });

  test('security headers on every response; the studio page has a strict CSP', async () => {
    for (const [p, key] of [['/healthz', null], ['/v1/nothing-here', null], ['/v1/documents', undefined]] as const) {
      const r = await s.api(p, { key });
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', p);
      assert.equal(r.headers.get('x-frame-options'), 'DENY', p);
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer', p);
      assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'.*frame-ancestors 'none'/, p);
    }
    const parsed = await s.json('/api/parse', { method: 'POST', body: uploadForm('page.txt', 'Studio <script>alert(1)</script> text.') });
    const studio = await fetch(parsed.body.studio_link);
    assert.equal(studio.status, 200);
    const csp = studio.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /style-src 'unsafe-inline'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(studio.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(studio.headers.get('x-frame-options'), 'DENY');
    assert.equal(studio.headers.get('referrer-policy'), 'no-referrer');
    assert.doesNotMatch(await studio.text(), /<script>/);
  });
});
