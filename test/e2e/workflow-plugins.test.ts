// @services: plugin steps run as workflow executions over the transport, saved integrations in the store
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verifyTimestampedSignature } from '@quire/engine';
import { startReceiver } from '../helpers/receiver.js';
import type { Receiver } from '../helpers/receiver.js';
import { packSdk, writePluginPackage } from '../helpers/sdk.js';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A third-party integration: posts {tag, label, workflow, text} to its target's URL with the host's HTTP. */
const AUDIT = `import { definePlugin, errors, sendFailed, z } from '@quire/sdk';
export default definePlugin({
  kind: 'integration', name: 'audit',
  options: z.strictObject({ tag: z.string().default('audit') }),
  create: (ctx) => ({
    target: z.strictObject({ url: z.string().url(), label: z.string().max(50) }),
    async send({ target, message, signal }) {
      const body = JSON.stringify({ tag: ctx.options.tag, label: target.label, workflow: message.workflow?.name, text: message.body });
      const sent = { url: target.url, bytes: body.length };
      const res = await ctx.http(target.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal }).catch((e) => { throw sendFailed(e, sent); });
      if (res.status >= 300) throw sendFailed(errors.upstream('the audit log answered ' + res.status), sent);
      return { sent, result: { status: res.status, label: target.label } };
    },
  }),
});
`;

/** A replacement of the built-in Slack integration: a chat that takes {content, room}. */
const CHAT = `import { definePlugin, z } from '@quire/sdk';
export default definePlugin({
  kind: 'integration', name: 'slack',
  create: (ctx) => ({
    target: z.strictObject({ webhook_url: z.string().url(), channel: z.string().optional() }),
    secretFields: ['webhook_url'],
    async send({ target, message, signal }) {
      const body = JSON.stringify({ content: message.body, room: target.channel ?? null });
      const res = await ctx.http(target.webhook_url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-chat': 'replacement' }, body, signal });
      return { sent: { payload: body }, result: { status: res.status, via: 'replacement' } };
    },
  }),
});
`;

/** A third-party extractor: "name: value" pairs of the document's text. */
const KEYVALUE = `import { definePlugin } from '@quire/sdk';
export default definePlugin({
  kind: 'extractor', name: 'keyvalue',
  create: () => ({
    async extract({ doc, fields }) {
      const data = {};
      const fieldResults = [];
      for (const f of fields) {
        const at = doc.text.indexOf(f.name + ': ');
        data[f.name] = at < 0 ? null : doc.text.slice(at + f.name.length + 2).split(/\\s/)[0];
        fieldResults.push({ field: f.name, value: data[f.name], confidence: at < 0 ? 0 : 0.9, evidence: null });
      }
      return { data, fieldResults };
    },
  }),
});
`;

const pkg = (name: string) => ({ name, version: '1.0.0', type: 'module', main: 'index.js', peerDependencies: { '@quire/sdk': '^1' } });

describe('workflow steps run integration plugins, built-in or third-party', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-workflow-plugins-'));
  const audit = path.join(root, 'audit');
  const chat = path.join(root, 'chat');
  const keyvalue = path.join(root, 'keyvalue');
  let rx: Receiver;
  let s: TestServer;

  before(async () => {
    assert.ok(path.relative(ROOT, root).startsWith('..'), 'the plugins are outside the repository');
    const sdk = await packSdk(root);
    await writePluginPackage(audit, pkg('quire-plugin-audit'), { 'index.js': AUDIT }, sdk);
    await writePluginPackage(chat, pkg('quire-plugin-chat'), { 'index.js': CHAT }, sdk);
    await writePluginPackage(keyvalue, pkg('quire-plugin-keyvalue'), { 'index.js': KEYVALUE }, sdk);
    rx = await startReceiver();
    s = await startTestServer({ env: { QUIRE_PLUGINS: `${audit},${keyvalue}`, QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'integration:audit': { tag: 'books' } }) } });
  });
  after(async () => {
    await s?.close();
    await rx?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function run(server: TestServer, steps: unknown[], triggerData: Record<string, unknown> = {}) {
    const made = await server.json('/api/workflows', { method: 'POST', json: { name: 'plugins at work', definition: { steps } } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const r = await server.json(`/api/workflows/${made.body.workflow.id}/execute`, { method: 'POST', json: { trigger_data: triggerData } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    return until(
      'the execution to finish',
      async () => {
        const [x] = (await server.json(`/api/workflows/${made.body.workflow.id}/executions?execution_id=${r.body.execution_id}`)).body.executions;
        return x && x.status !== 'running' ? x : null;
      },
      120_000,
    );
  }

  test('a third-party integration plugin loaded with QUIRE_PLUGINS runs as a workflow step', async () => {
    const x = await run(s, [{ id: 'log', type: 'plugin', plugin: 'integration:audit', config: { url: `${rx.base}/audit`, label: 'invoices', template: 'Total {{total}}' } }], { total: 42 });
    assert.equal(x.status, 'completed', JSON.stringify(x));
    const [hit] = rx.hits('/audit');
    assert.ok(hit, 'the plugin posted to its target');
    assert.deepEqual(JSON.parse(hit.body), { tag: 'books', label: 'invoices', workflow: 'plugins at work', text: 'Total 42' });
    assert.deepEqual(x.execution_log[0].output, { plugin: 'integration:audit', status: 200, label: 'invoices' });
    assert.equal(x.execution_log[0].input.url, `${rx.base}/audit`);
  });

  test("a plugin step's target is checked by the plugin's schema, and an unknown plugin is refused, when the workflow is saved", async () => {
    const bad = await s.json('/api/workflows', { method: 'POST', json: { name: 'bad', definition: { steps: [{ id: 'log', type: 'plugin', plugin: 'integration:audit', config: { url: 'not a url', label: 'x' } }] } } });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.match(bad.body.error.message, /definition\.steps\.0\.config\.url/);
    const unknown = await s.json('/api/workflows', { method: 'POST', json: { name: 'bad', definition: { steps: [{ id: 'x', type: 'plugin', plugin: 'integration:nowhere', config: {} }] } } });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
    assert.match(unknown.body.error.message, /no integration plugin "nowhere"; loaded: .*audit/);
    const kind = await s.json('/api/workflows', { method: 'POST', json: { name: 'bad', definition: { steps: [{ id: 'x', type: 'plugin', plugin: 'storage:disk', config: {} }] } } });
    assert.equal(kind.status, 400, JSON.stringify(kind.body));
  });

  test('the built-in HTTP integration as a plugin step: signed with the webhook scheme, secrets kept in a saved integration, the SSRF rules apply', async () => {
    const secret = 'whsec_0123456789abcdef';
    // a target with secret fields (an http URL, headers, its signing secret) is not written in a definition
    const inline = await s.json('/api/workflows', { method: 'POST', json: { name: 'bad', definition: { steps: [{ id: 'post', type: 'plugin', plugin: 'integration:http', config: { url: `${rx.base}/signed`, secret } }] } } });
    assert.equal(inline.status, 400, JSON.stringify(inline.body));
    assert.match(inline.body.error.message, /definition\.steps\.0\.config\.url: integration:http keeps url secret: save the target as an integration/);
    const saved = await s.json('/api/workflows/integrations', { method: 'POST', json: { name: 'books', integration_type: 'webhook', config: { url: `${rx.base}/signed`, secret } } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    assert.equal(saved.body.integration.config.secret, '****');
    const x = await run(s, [{ id: 'post', type: 'plugin', plugin: 'integration:http', config: { integration_id: saved.body.integration.id, template: '{"n": "{{n}}"}' } }], { n: 7 });
    assert.equal(x.status, 'completed', JSON.stringify(x));
    const [hit] = rx.hits('/signed');
    assert.equal(hit!.body, '{"n": "7"}');
    assert.equal(hit!.headers['content-type'], 'application/json');
    assert.ok(verifyTimestampedSignature(secret, hit!.body, String(hit!.headers['x-svc-signature-v2'])), 'X-Svc-Signature-V2 verifies');
    assert.equal(hit!.headers['x-svc-timestamp'], /t=(\d+)/.exec(String(hit!.headers['x-svc-signature-v2']))![1]);
    assert.match(String(hit!.headers['x-svc-signature']), /^sha256=[0-9a-f]{64}$/);
    assert.deepEqual(x.execution_log[0].output, { plugin: 'integration:http', integration_id: saved.body.integration.id, name: 'books', status: 200, response: 'ok' });
    assert.doesNotMatch(JSON.stringify(x.execution_log), /whsec_/);
    // a private address is refused by the host's outbound HTTP, whichever plugin asks
    const ssrf = await run(s, [{ id: 'post', type: 'plugin', plugin: 'integration:audit', config: { url: 'https://10.11.12.13/hook', label: 'x' } }]);
    assert.equal(ssrf.status, 'failed');
    assert.match(ssrf.execution_log[0].error, /non-public address/);
    const plain = await run(s, [{ id: 'post', type: 'plugin', plugin: 'integration:audit', config: { url: 'http://example.com/audit', label: 'x' } }]);
    assert.equal(plain.status, 'failed');
    assert.match(plain.execution_log[0].error, /only https URLs/);
    assert.equal(plain.execution_log[0].input.url, 'http://example.com/audit', "the log's input is what the plugin attempted");
  });

  test('a third-party extractor plugin runs as a workflow step on the trigger document; its data feeds the next steps', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('bill.txt', 'invoice: INV-9 total: 31 EUR') });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    const fields = [{ name: 'invoice', type: 'string' }, { name: 'total', type: 'number' }];
    const x = await run(
      s,
      [
        { id: 'kv', type: 'plugin', plugin: 'extractor:keyvalue', config: { fields } },
        { id: 'log', type: 'plugin', plugin: 'integration:audit', config: { url: `${rx.base}/extracted`, label: 'kv', template: '{{invoice}} {{total}}' } },
      ],
      { document_id: up.body.id },
    );
    assert.equal(x.status, 'completed', JSON.stringify(x));
    assert.deepEqual(x.execution_log[0].output.data, { invoice: 'INV-9', total: '31' });
    assert.deepEqual(x.execution_log[0].input, { plugin: 'extractor:keyvalue', document_id: up.body.id, fields: ['invoice', 'total'] });
    assert.equal(JSON.parse(rx.hits('/extracted')[0]!.body).text, 'INV-9 31');
    // the step is checked when saved: a loaded extractor, valid fields
    const unknown = await s.json('/api/workflows', { method: 'POST', json: { name: 'bad', definition: { steps: [{ id: 'kv', type: 'plugin', plugin: 'extractor:nowhere', config: { fields } }] } } });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
    assert.match(unknown.body.error.message, /no extractor plugin "nowhere"; loaded: .*keyvalue/);
    const noFields = await s.json('/api/workflows', { method: 'POST', json: { name: 'bad', definition: { steps: [{ id: 'kv', type: 'plugin', plugin: 'extractor:keyvalue', config: { fields: [] } }] } } });
    assert.equal(noFields.status, 400, JSON.stringify(noFields.body));
    assert.match(noFields.body.error.message, /definition\.steps\.0\.config\.fields/);
  });

  test('an email plugin step may send only to the owner (recipient rules as for email integrations)', async () => {
    const r = await s.json('/api/workflows', { method: 'POST', json: { name: 'mail', definition: { steps: [{ id: 'm', type: 'plugin', plugin: 'integration:email', config: { to: 'stranger@elsewhere.example' } }] } } });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.error.message, /stranger@elsewhere\.example is not a recipient/);
  });

  test('replacing the slack plugin by configuration changes what a messaging integration sends', async () => {
    const steps = (id: string) => [{ id: 'say', type: 'integration', config: { integration_id: id, template: 'Hello {{who}}' } }];
    const integration = async (server: TestServer, where: string) => {
      const r = await server.json('/api/workflows/integrations', { method: 'POST', json: { name: 'chat', integration_type: 'messaging', config: { webhook_url: `${rx.base}/${where}`, channel: '#ops' } } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.integration.id as string;
    };
    // the built-in: a Slack-style {text, channel}
    const builtIn = await run(s, steps(await integration(s, 'slack')), { who: 'team' });
    assert.equal(builtIn.status, 'completed', JSON.stringify(builtIn));
    assert.deepEqual(JSON.parse(rx.hits('/slack')[0]!.body), { text: 'Hello team', channel: '#ops' });
    // the same workflow on a server where QUIRE_PLUGINS names a plugin integration:slack of its own
    const replaced = await startTestServer({ env: { QUIRE_PLUGINS: chat } });
    try {
      const x = await run(replaced, steps(await integration(replaced, 'chat')), { who: 'team' });
      assert.equal(x.status, 'completed', JSON.stringify(x));
      const [hit] = rx.hits('/chat');
      assert.deepEqual(JSON.parse(hit!.body), { content: 'Hello team', room: '#ops' });
      assert.equal(hit!.headers['x-chat'], 'replacement');
      assert.equal(x.execution_log[0].output.via, 'replacement');
      assert.equal(x.execution_log[0].output.integration_type, 'messaging');
    } finally {
      await replaced.close();
    }
  });
});
