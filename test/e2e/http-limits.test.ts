import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { filesUnder, errorBody } from '../helpers/assertions.js';



/** A raw HTTP request (for Expect: 100-continue and chunked bodies), with what the server answered and whether it said continue. */
function rawRequest(url: string, opts: { method: string; headers: Record<string, string | number>; body?: Buffer | (() => AsyncIterable<Buffer>) }): Promise<{ status: number; body: any; continued: boolean; sent: number }> {
  return new Promise((resolve, reject) => {
    let continued = false;
    let sent = 0;
    const req = http.request(url, { method: opts.method, headers: opts.headers });
    const send = async () => {
      if (Buffer.isBuffer(opts.body)) {
        sent += opts.body.length;
        req.end(opts.body);
      } else if (opts.body) {
        for await (const c of opts.body()) {
          if (req.destroyed) return;
          sent += c.length;
          if (!req.write(c)) await new Promise((r) => req.once('drain', r));
        }
        req.end();
      } else req.end();
    };
    req.on('continue', () => {
      continued = true;
      send().catch(() => {});
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode!, body, continued, sent });
        req.destroy();
      });
    });
    req.on('error', reject);
    if (!String(opts.headers.expect ?? '').includes('100-continue')) send().catch(() => {});
  });
}

describe('HTTP body limits (upload limit 1 MB)', () => {
  let s: TestServer;
  const MB = 1024 * 1024;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_MAX_UPLOAD_MB: '1', QUIRE_MAX_PRESIGNED_MB: '2' } });
  });
  after(async () => {
    await s?.close();
  });

  test('fetch (undici) sending a body over the limit gets the 413 and its error body, not EPIPE / "fetch failed"', async () => {
    const big = Buffer.alloc(24 * MB, 'a');
    for (const p of ['/v1/documents', '/api/upload', '/api/parse']) {
      const r = await s.json(p, { method: 'POST', body: uploadForm('big.txt', big) });
      assert.equal(r.status, 413, `${p}: ${JSON.stringify(r.body)}`);
      errorBody(r.body, 'FILE_TOO_LARGE');
      assert.match(r.body.error.message, /1 MB/);
    }
    // a client that streams its body (1 MB every 20 ms), with and without a declared Content-Length: it is
    // still sending when the server refuses, and must get the 413 rather than a reset
    const head = Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n');
    const tail = Buffer.from('\r\n--xyz--\r\n');
    const slow = (n: number, first = Buffer.alloc(0), last = Buffer.alloc(0)) =>
      Readable.toWeb(
        Readable.from(
          (async function* () {
            yield first;
            for (let i = 0; i < n; i++) {
              yield Buffer.alloc(MB, 'b');
              await new Promise((r) => setTimeout(r, 20));
            }
            yield last;
          })(),
        ),
      ) as any;
    for (const declared of [true, false]) {
      const n = 24;
      const multipart = await fetch(`${s.url}/v1/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.key}`, 'content-type': 'multipart/form-data; boundary=xyz', ...(declared ? { 'content-length': String(head.length + n * MB + tail.length) } : {}) },
        body: slow(n, head, tail),
        duplex: 'half',
      } as RequestInit);
      assert.equal(multipart.status, 413, `multipart, Content-Length ${declared}`);
      errorBody(await multipart.json(), 'FILE_TOO_LARGE');
      const p = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: 'big.txt', file_size: 2 * MB } });
      const put = await fetch(p.body.upload_url, { method: 'PUT', headers: declared ? { 'content-length': String(n * MB) } : {}, body: slow(n), duplex: 'half' } as RequestInit);
      assert.equal(put.status, 413, `presigned, Content-Length ${declared}`);
      errorBody(await put.json(), 'FILE_TOO_LARGE');
      const json = await fetch(`${s.url}/v1/collections`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', ...(declared ? { 'content-length': String(n * MB) } : {}) }, body: slow(n), duplex: 'half' } as RequestInit);
      assert.equal(json.status, 413, `JSON, Content-Length ${declared}`);
      errorBody(await json.json(), 'FILE_TOO_LARGE');
    }
    // the server still answers on its connections, and nothing is left on disk
    assert.equal((await s.json('/healthz', { key: null })).status, 200);
    assert.deepEqual(filesUnder(path.join(s.dataDir, 'files')), []);
    assert.equal((await s.json('/v1/documents')).body.total, 0);
  });

  test('Expect: 100-continue: an over-limit Content-Length is answered 413 before the body; one within the limit is told to continue', async () => {
    const boundary = 'b0undary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const over = await rawRequest(`${s.url}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': 50 * MB, expect: '100-continue' },
      body: () => (async function* () {
        for (let i = 0; i < 50; i++) yield Buffer.alloc(MB, 'c');
      })(),
    });
    assert.equal(over.status, 413);
    assert.equal(over.continued, false, 'no 100 Continue for a body over the limit');
    assert.equal(over.sent, 0, 'the body was never sent');
    errorBody(over.body, 'FILE_TOO_LARGE');
    const small = Buffer.concat([head, Buffer.from('A short note.'), tail]);
    const ok = await rawRequest(`${s.url}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': small.length, expect: '100-continue' },
      body: small,
    });
    assert.equal(ok.continued, true);
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal((await waitForStatus(s, `/v1/documents/${ok.body.id}`)).status, 'completed');
    // a JSON route has the JSON limit
    const json = await rawRequest(`${s.url}/v1/collections`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', 'content-length': 5 * MB, expect: '100-continue' }, body: Buffer.alloc(0) });
    assert.equal(json.status, 413);
    assert.equal(json.continued, false);
    await s.json(`/v1/documents/${ok.body.id}`, { method: 'DELETE' });
  });

  test('presigned PUT: a refused size keeps the URL usable, the 413 names the real limit, the URL is used up only by a successful upload', async () => {
    const text = Buffer.from('Presigned upload text for the limit test.');
    const p = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: 'limit.txt', file_size: text.length } });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    // declared too large (Content-Length)
    const tooBig = await fetch(p.body.upload_url, { method: 'PUT', headers: p.body.headers, body: Buffer.concat([text, Buffer.from('and more')]) });
    assert.equal(tooBig.status, 413);
    const tb = (await tooBig.json()) as any;
    errorBody(tb, 'FILE_TOO_LARGE');
    assert.doesNotMatch(tb.error.message, /\b0 MB/);
    assert.match(tb.error.message, new RegExp(`${text.length} bytes`));
    assert.equal(tb.error.details.limit_bytes, text.length);
    // too large while streaming (chunked, no Content-Length)
    const chunked = await rawRequest(p.body.upload_url, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
      body: () => (async function* () {
        yield text;
        yield Buffer.from(' overflow');
      })(),
    });
    assert.equal(chunked.status, 413);
    errorBody(chunked.body, 'FILE_TOO_LARGE');
    // over the server's presigned limit, many MB, with fetch: the 413 arrives
    const p2 = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: 'big.txt', file_size: 2 * MB } });
    const huge = await fetch(p2.body.upload_url, { method: 'PUT', body: Buffer.alloc(20 * MB, 'd') });
    assert.equal(huge.status, 413);
    assert.match(((await huge.json()) as any).error.message, /2 MB/);
    // the right bytes: accepted with the same URL, and only then is the URL used up
    const good = await fetch(p.body.upload_url, { method: 'PUT', headers: p.body.headers, body: text });
    assert.equal(good.status, 200, await good.clone().text());
    const again = await fetch(p.body.upload_url, { method: 'PUT', headers: p.body.headers, body: text });
    assert.equal(again.status, 409);
    const id = p.body.file_id.slice('svc://'.length);
    assert.equal((await waitForStatus(s, `/v1/documents/${id}`)).status, 'completed');
    await s.json(`/v1/documents/${id}`, { method: 'DELETE' });
  });

  test('Content-Encoding: garbage or unknown encodings are 400 in the error body; gzip works', async () => {
    const cases: [string, Buffer][] = [
      ['br', Buffer.from('this is not brotli at all')],
      ['gzip', Buffer.from('not gzip either')],
      ['deflate', Buffer.from('nor deflate')],
      ['x-made-up', Buffer.from('{"name":"x"}')],
      ['gzip, br', Buffer.from('{"name":"x"}')],
    ];
    for (const [enc, body] of cases) {
      const r = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': enc }, body });
      assert.equal(r.status, 400, `${enc}: ${JSON.stringify(r.body)}`);
      errorBody(r.body, 'VALIDATION_ERROR');
    }
    const gz = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: zlib.gzipSync(JSON.stringify({ name: 'Zipped' })) });
    assert.equal(gz.status, 201, JSON.stringify(gz.body));
    assert.equal(gz.body.name, 'Zipped');
    // uploads are stored as sent: compressed uploads are refused
    const up = await s.json('/v1/documents', { method: 'POST', headers: { 'content-encoding': 'gzip' }, body: uploadForm('a.txt', 'text') });
    assert.equal(up.status, 400);
    errorBody(up.body, 'VALIDATION_ERROR');
    await s.json(`/v1/collections/${gz.body.id}`, { method: 'DELETE' });
  });

  test('JSON bodies: over 1 MB is 413, deep nesting is 400 before parsing, a gzip bomb stops at the limit; all answered fast', async () => {
    const many = JSON.stringify({ name: 'x', description: JSON.stringify(Array.from({ length: 1_000_000 }, () => ({}))) });
    assert.ok(many.length > 2 * 1024 * 1024);
    let t = Date.now();
    const big = await s.json('/v1/collections', { method: 'POST', json: JSON.parse(many) });
    assert.equal(big.status, 413, JSON.stringify(big.body).slice(0, 300));
    errorBody(big.body, 'FILE_TOO_LARGE');
    assert.match(big.body.error.message, /1 MB/);
    const objects = `[${Array.from({ length: 1_000_000 }, () => '{}').join(',')}]`;
    const arr = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json' }, body: objects });
    assert.equal(arr.status, 413);
    assert.ok(Date.now() - t < 30_000, `answered in ${Date.now() - t} ms`);

    t = Date.now();
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const d = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
    assert.equal(d.status, 400);
    errorBody(d.body, 'VALIDATION_ERROR');
    assert.match(d.body.error.message, /nested/);
    const deepObj = `{"name":"x","description":"y","settings":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`;
    assert.equal((await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json' }, body: deepObj })).status, 400);
    // brackets inside strings do not count
    const inString = await s.json('/v1/collections', { method: 'POST', json: { name: 'Brackets', description: '['.repeat(4000) + '{"\\"'.repeat(100) } });
    assert.equal(inString.status, 201, JSON.stringify(inString.body));
    await s.json(`/v1/collections/${inString.body.id}`, { method: 'DELETE' });

    const bomb = zlib.gzipSync(Buffer.from(`{"name":"${'a'.repeat(50 * 1024 * 1024)}"}`));
    assert.ok(bomb.length < 200 * 1024);
    const b = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: bomb });
    assert.equal(b.status, 413);
    assert.ok(Date.now() - t < 30_000, `answered in ${Date.now() - t} ms`);

    const notJson = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "x",' });
    assert.equal(notJson.status, 400);
    errorBody(notJson.body, 'VALIDATION_ERROR');
    const scalar = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"just a string"' });
    assert.equal(scalar.status, 400);
    const latin = await s.json('/v1/collections', { method: 'POST', headers: { 'content-type': 'application/json; charset=iso-8859-1' }, body: '{"name":"x"}' });
    assert.equal(latin.status, 400);
    assert.equal((await s.json('/healthz', { key: null })).status, 200);
  });
});

describe('keep-alive: an idle pooled connection outlives the clients\' idle time', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  /** GET /healthz on `agent`; which local port the request went out on (the same port = the same connection). */
  const get = (agent: http.Agent) =>
    new Promise<{ status: number; port: number; keepAlive: string }>((resolve, reject) => {
      const req = http.get(`${s.url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, port: req.socket!.localPort!, keepAlive: String(res.headers['keep-alive'] ?? '') }));
      });
      req.on('error', reject);
    });

  test('a connection reused after 6 s idle (past Node\'s 5 s default) is still open and answers', { timeout: 30_000 }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent);
      assert.equal(first.status, 200);
      assert.match(first.keepAlive, /timeout=65\b/, 'the server tells clients how long it keeps an idle connection');
      await new Promise((r) => setTimeout(r, 6_000));
      const second = await get(agent);
      assert.equal(second.status, 200);
      assert.equal(second.port, first.port, 'the pooled connection was reused, not reopened');
    } finally {
      agent.destroy();
    }
  });
});
