import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pluginContext } from '@quire/core';
import type { HttpClient, IntegrationPlugin } from '@quire/core';
import plugin from '@quire/plugin-integration-slack';

let server: http.Server;
let base = '';
const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
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
      got.push({ headers: req.headers, body });
      res.writeHead(req.url === '/gone' ? 404 : 200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

test('text is posted as {text, channel}; the options name and icon are added', async () => {
  const r = await make({ username: 'Quire', iconEmoji: ':page_facing_up:' }).send({ target: { webhook_url: `${base}/T/B/X`, channel: '#ops' }, message: message('Invoice INV-1 is due') });
  assert.deepEqual(JSON.parse(got.at(-1)!.body), { text: 'Invoice INV-1 is due', channel: '#ops', username: 'Quire', icon_emoji: ':page_facing_up:' });
  assert.equal(got.at(-1)!.headers['content-type'], 'application/json');
  assert.equal(got.at(-1)!.headers['x-svc-workflow-id'], 'wf-1');
  assert.deepEqual(r.result, { status: 200, response: 'ok' });
});

test('a message that renders a JSON object is sent as it is (its own channel wins); a JSON array is text', async () => {
  await make().send({ target: { webhook_url: `${base}/T/B/X`, channel: '#ops' }, message: message('{"blocks": [], "channel": "#alerts"}') });
  assert.deepEqual(JSON.parse(got.at(-1)!.body), { blocks: [], channel: '#alerts' });
  await make().send({ target: { webhook_url: `${base}/T/B/X` }, message: message('[1, 2]') });
  assert.deepEqual(JSON.parse(got.at(-1)!.body), { text: '[1, 2]' });
});

test('an error answer fails the send with what was sent; the webhook URL is the secret field', async () => {
  await assert.rejects(make().send({ target: { webhook_url: `${base}/gone` }, message: message('hi') }), (e: any) => e.code === 'UPSTREAM_ERROR' && /answered HTTP 404/.test(e.message) && e.sent.payload === '{"text":"hi"}');
  assert.deepEqual(make().secretFields, ['webhook_url']);
  assert.throws(() => make({ iconEmoji: 'robot' }), /option "iconEmoji"/);
});
