import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { QuireError, pluginContext, verifyTimestampedSignature } from '@quire/core';
import type { HttpClient, IntegrationPlugin } from '@quire/core';
import plugin from '@quire/plugin-integration-http';

let server: http.Server;
let base = '';
const got: { method: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

/** What the host gives as ctx.http, without its network policy: a plain request. */
const plainHttp: HttpClient = async (url, req = {}) => {
  const res = await fetch(url, { method: req.method, headers: req.headers, body: req.body, signal: req.signal, redirect: 'manual' });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
};
const make = (options = {}) => plugin.create(pluginContext(plugin, { options, http: plainHttp })) as IntegrationPlugin;
const message = (body: string) => ({ body, workflow: { id: 'wf-1', name: 'Invoices' }, execution: { id: 'x-1' } });

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ method: req.method!, headers: req.headers, body });
      if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end();
      else res.writeHead(req.url === '/fail' ? 503 : 200).end('thanks');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

test('sends the message with the target method and headers, signed with the webhook scheme when the target has a secret', async () => {
  const secret = 'a-secret-of-16-chars-or-more';
  const r = await make().send({ target: { url: `${base}/hook`, method: 'PUT', headers: { 'x-token': 't1' }, secret }, message: message('{"total": 12}') });
  const hit = got.at(-1)!;
  assert.equal(hit.method, 'PUT');
  assert.equal(hit.body, '{"total": 12}');
  assert.equal(hit.headers['content-type'], 'application/json');
  assert.equal(hit.headers['x-token'], 't1');
  assert.equal(hit.headers['x-svc-workflow-id'], 'wf-1');
  assert.equal(hit.headers['x-svc-execution-id'], 'x-1');
  assert.ok(verifyTimestampedSignature(secret, hit.body, String(hit.headers['x-svc-signature-v2'])));
  assert.ok(!verifyTimestampedSignature('another-secret-entirely', hit.body, String(hit.headers['x-svc-signature-v2'])));
  assert.deepEqual(r, { sent: { method: 'PUT', payload: '{"total": 12}', signed: true }, result: { status: 200, response: 'thanks' } });
});

test('plain text goes as text/plain and unsigned without a secret; the log keeps at most logChars of the payload', async () => {
  const r = await make({ logChars: 5 }).send({ target: { url: `${base}/text` }, message: message('Total 12 EUR') });
  const hit = got.at(-1)!;
  assert.equal(hit.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(hit.headers['x-svc-signature'], undefined);
  assert.equal(r.sent.payload, 'Total…');
  assert.equal(r.sent.method, 'POST');
});

test('a redirect or an error answer fails with UPSTREAM_ERROR, carrying what was sent', async () => {
  for (const [where, why] of [['/fail', /answered HTTP 503/], ['/moved', /a redirect\): redirects are not followed/]] as const) {
    await assert.rejects(make().send({ target: { url: `${base}${where}` }, message: message('x') }), (e: unknown) => {
      assert.ok(e instanceof QuireError && e.code === 'UPSTREAM_ERROR');
      assert.match(e.message, why);
      assert.deepEqual((e as unknown as { sent: unknown }).sent, { method: 'POST', payload: 'x' });
      return true;
    });
  }
});

test("the target schema refuses unknown fields, a short secret and a method it does not send; the plugin's options are checked", () => {
  const p = make();
  assert.ok(!p.target!.safeParse({ url: `${base}/x`, extra: 1 }).success);
  assert.ok(!p.target!.safeParse({ url: `${base}/x`, secret: 'short' }).success);
  assert.ok(!p.target!.safeParse({ url: `${base}/x`, method: 'GET' }).success);
  assert.deepEqual(p.secretFields, ['url', 'headers', 'secret']);
  assert.throws(() => make({ logChars: -1 }), /invalid options of plugin integration:http: option "logChars"/);
});
