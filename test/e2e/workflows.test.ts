// @services: workflows: scheduler, claims shared by two servers, stages over the transport
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, findOrCreateUser } from '@quire/server';
import { onEvent, scheduleTick } from '@quire/engine';
import { makePdf } from '../helpers/fixtures.js';
import { MYSQL_URL, startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import type { Receiver } from '../helpers/receiver.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Workflows (spec §4.9) through HTTP: an upload of a PDF triggers parse → extract → condition → integration
 * and a local receiver gets the templated payload; validation and ownership; the step log; scheduled ticks
 * (six-field cron with seconds, allowed for tests by QUIRE_CRON_SECONDS, and a short scheduler interval);
 * webhook triggers; templates; an email step without SMTP.
 */
describe('workflows', () => {
  let s: TestServer;
  let rx: Receiver;
  let base = '';
  let otherKey = '';
  const hits = (path: string) => rx.hits(path);

  before(async () => {
    s = await startTestServer({ env: { QUIRE_CRON_SECONDS: 'true', QUIRE_SCHEDULER_INTERVAL_S: '0.2' } });
    rx = await startReceiver();
    base = rx.base;
    rx.answer('/fail', [500]);
    const other = await findOrCreateUser(s.runtime.store, 'other-workflows@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  const invoicePdf = () =>
    makePdf([{ heading: 'INVOICE', lines: ['ACME Supplies Ltd', 'Invoice Number: INV-7731', 'Date: 2024-03-05', 'Bill To: Globex Corporation', '', 'Subtotal: $1,000.00', 'Tax: $234.50', 'Total: $1,234.50'] }]);

  async function upload(name: string, bytes: Uint8Array | string): Promise<string> {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    return up.body.id;
  }

  async function integration(body: Record<string, unknown>) {
    const r = await s.json('/api/workflows/integrations', { method: 'POST', json: body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.integration;
  }

  async function workflow(body: Record<string, unknown>, key?: string) {
    const r = await s.json('/api/workflows', { method: 'POST', json: body, key });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.workflow;
  }

  const executions = async (id: string, key?: string) => (await s.json(`/api/workflows/${id}/executions?limit=100`, { key })).body.executions as any[];
  const finished = (id: string, executionId: string) =>
    until(`execution ${executionId} to finish`, async () => {
      const [x] = (await s.json(`/api/workflows/${id}/executions?execution_id=${executionId}`)).body.executions;
      return x && x.status !== 'running' ? x : null;
    }, 120_000);

  test('document.uploaded with a file_type filter runs parse → extract → condition → integration; the receiver gets the extracted values', async () => {
    const hook = await integration({ name: 'receiver', integration_type: 'webhook', config: { url: `${base}/invoices`, headers: { 'x-token': 'secret-token-123' } } });
    assert.equal(hook.config.url, `${base.replace(/^http:\/\//, 'http://')}/****`, 'the URL is masked');
    assert.deepEqual(hook.config.headers, { 'x-token': '****' });
    const wf = await workflow({
      name: 'Invoices over 100',
      trigger_type: 'event',
      trigger_config: { event: 'document.uploaded', filters: { file_type: 'pdf' } },
      definition: {
        steps: [
          { id: 'parse', type: 'parse', config: {} },
          { id: 'extract', type: 'extract', config: { schema_id: 'invoice' } },
          { id: 'big', type: 'condition', config: { field: 'total', operator: 'gt', value: 100 } },
          { id: 'notify', type: 'integration', config: { integration_id: hook.id, template: '{"invoice": "{{invoice_number}}", "total": {{total}}, "vendor": {{json vendor}}, "document": "{{document_name}}", "workflow": "{{workflow.name}}"}' } },
        ],
      },
    });
    assert.equal(wf.trigger_type, 'event');
    assert.equal(wf.enabled, true);

    // a text file does not pass the filter; the PDF does
    const txt = await upload('notes.txt', 'Just some notes, total 5.');
    const pdf = await upload('invoice-7731.pdf', await invoicePdf());
    const got = await until('the receiver to get the invoice', () => hits('/invoices')[0], 120_000);
    const payload = JSON.parse(got.body);
    assert.equal(payload.invoice, 'INV-7731');
    assert.equal(payload.total, 1234.5);
    assert.equal(payload.document, 'invoice-7731.pdf');
    assert.equal(payload.workflow, 'Invoices over 100');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-token'], 'secret-token-123', 'the integration\'s headers are sent');

    await waitForStatus(s, `/v1/documents/${txt}`);
    const list = await until('the execution to complete', async () => {
      const xs = await executions(wf.id);
      return xs.length && xs.every((x) => x.status !== 'running') ? xs : null;
    });
    assert.equal(list.length, 1, 'one execution: the text file was filtered out, the PDF event ran once');
    const x = list[0];
    assert.equal(x.status, 'completed', JSON.stringify(x));
    assert.equal(x.triggered_by, 'event');
    assert.equal(x.trigger_data.document_id, pdf);
    assert.equal(x.trigger_data.event, 'document.uploaded');
    assert.deepEqual(x.execution_log.map((e: any) => [e.step_id, e.status]), [['parse', 'completed'], ['extract', 'completed'], ['big', 'completed'], ['notify', 'completed']]);
    for (const e of x.execution_log) {
      assert.equal(typeof e.duration_ms, 'number');
      assert.ok('input' in e && 'output' in e && e.error === null, JSON.stringify(e));
    }
    assert.equal(x.execution_log[1].output.data.total, 1234.5);
    assert.equal(x.execution_log[2].output.result, true);
    assert.equal(x.execution_log[3].output.status, 200);
    assert.equal(hits('/invoices').length, 1);

    // the same workflow on the same document, manually, with a condition that fails: the integration is skipped
    const put = await s.json(`/api/workflows/${wf.id}`, { method: 'PUT', json: { definition: { steps: [{ id: 'extract', type: 'extract', config: { schema_id: 'invoice' } }, { id: 'huge', type: 'condition', config: { expression: 'total > 1000000' } }, { id: 'notify', type: 'integration', config: { integration_id: hook.id } }] } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const run = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { document_id: pdf } } });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    assert.equal(run.body.status, 'running');
    assert.ok(run.body.execution_id && !Number.isNaN(Date.parse(run.body.started_at)));
    const done = await finished(wf.id, run.body.execution_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.triggered_by, 'manual');
    assert.deepEqual(done.execution_log.map((e: any) => [e.step_id, e.status]), [['extract', 'completed'], ['huge', 'completed'], ['notify', 'skipped']]);
    assert.equal(hits('/invoices').length, 1, 'nothing more was sent');
  });

  test('integration secrets are encrypted at rest and never returned', async () => {
    const hook = await integration({ name: 'chat', integration_type: 'messaging', config: { webhook_url: `${base}/slack/T000/B000/XXXXSECRET`, channel: '#invoices' } });
    assert.equal(hook.config.channel, '#invoices');
    assert.ok(!JSON.stringify(hook).includes('XXXXSECRET'));
    const listed = await s.json('/api/workflows/integrations');
    assert.ok(!JSON.stringify(listed.body).includes('XXXXSECRET'));
    assert.ok(listed.body.integrations.some((i: any) => i.id === hook.id));
    const row = await s.runtime.store.repo('integrations').get(hook.id);
    assert.ok(row?.secrets && !row.secrets.includes('XXXXSECRET') && !JSON.stringify(row.config).includes('XXXXSECRET'));
    // a messaging step sends Slack-style JSON {text, channel}
    const wf = await workflow({ name: 'post', definition: { steps: [{ id: 'say', type: 'integration', config: { integration_id: hook.id, template: 'Hello {{who}}' } }] } });
    const run = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { who: 'team "A"' } } });
    assert.equal((await finished(wf.id, run.body.execution_id)).status, 'completed');
    assert.deepEqual(JSON.parse(hits('/slack/T000/B000/XXXXSECRET')[0]!.body), { text: 'Hello team "A"', channel: '#invoices' });
    // an update without the secret keeps it; a plain http URL to a host not allowed is refused
    const up = await s.json(`/api/workflows/integrations?id=${hook.id}`, { method: 'PUT', json: { config: { channel: '#ops' } } });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.integration.config.channel, '#ops');
    const bad = await s.json('/api/workflows/integrations', { method: 'POST', json: { name: 'x', integration_type: 'webhook', config: { url: 'http://example.com/hook' } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
  });

  test('validation answers 400 with the spec error body, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } }, 'name'],
      [{ name: 'x', definition: { steps: [] } }, 'definition.steps'],
      [{ name: 'x', definition: { steps: [{ id: 'a', type: 'teleport', config: {} }] } }, 'definition.steps.0.type'],
      [{ name: 'x', definition: { steps: [{ id: 'a', type: 'extract', config: {} }] } }, 'definition.steps.0.config.schema_id'],
      [{ name: 'x', definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '$$$(' } }] } }, 'definition.steps.0.config.expression'],
      [{ name: 'x', definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }, { id: 'a', type: 'transform', config: { expression: '2' } }] } }, 'definition.steps.1.id'],
      [{ name: 'x', definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }, { id: 'c', type: 'condition', config: { expression: 'true', on_false: 'a' } }] } }, 'definition.steps.1.config.on_false'],
      [{ name: 'x', trigger_type: 'scheduled', trigger_config: { cron_expression: '* * *' }, definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } }, 'trigger_config.cron_expression'],
      [{ name: 'x', trigger_type: 'scheduled', trigger_config: { cron_expression: '0 9 * * 1', timezone: 'Mars/Olympus' }, definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } }, 'trigger_config.timezone'],
      [{ name: 'x', trigger_type: 'event', trigger_config: { event: 'document.teleported' }, definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } }, 'trigger_config.event'],
      [{ name: 'x', definition: { steps: [{ id: 'a', type: 'integration', config: { integration_id: '00000000-0000-4000-8000-000000000000' } }] } }, 'definition.steps.0.config.integration_id'],
    ];
    for (const [body, field] of cases) {
      const r = await s.json('/api/workflows', { method: 'POST', json: body });
      assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.equal(typeof r.body.error.message, 'string');
      assert.ok(JSON.stringify(r.body.error.details).includes(field), `${field} in ${JSON.stringify(r.body.error.details)}`);
    }
    const badIntegration = await s.json('/api/workflows/integrations', { method: 'POST', json: { name: 'mail', integration_type: 'email', config: { to: 'not-an-address' } } });
    assert.equal(badIntegration.status, 400);
    assert.ok(JSON.stringify(badIntegration.body.error.details).includes('config.to'));
    const badExecute = await s.json('/api/workflows/00000000-0000-4000-8000-000000000000/execute', { method: 'POST', json: { trigger_data: 'nope' } });
    assert.equal(badExecute.status, 400);
  });

  test("someone else's workflow, executions, schedule and integration answer 404", async () => {
    const hook = await integration({ name: 'mine', integration_type: 'webhook', config: { url: `${base}/mine` } });
    const wf = await workflow({ name: 'mine', definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } });
    const theirs = await workflow({ name: 'theirs', definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } }, otherKey);
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/workflows/${wf.id}`],
      ['PUT', `/api/workflows/${wf.id}`, { name: 'hijacked' }],
      ['DELETE', `/api/workflows/${wf.id}`],
      ['POST', `/api/workflows/${wf.id}/execute`, { trigger_data: {} }],
      ['GET', `/api/workflows/${wf.id}/executions`],
      ['POST', `/api/workflows/${wf.id}/schedule`, { cron_expression: '0 9 * * 1' }],
      ['GET', `/api/workflows/integrations?workflow_id=${wf.id}`],
      ['PUT', `/api/workflows/integrations?id=${hook.id}`, { name: 'hijacked' }],
      ['DELETE', `/api/workflows/integrations?id=${hook.id}`],
    ];
    for (const [method, path, json] of calls) {
      const r = await s.json(path, { method, key: otherKey, ...(json ? { json } : {}) });
      assert.equal(r.status, 404, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'NOT_FOUND');
    }
    const list = await s.json('/api/workflows', { key: otherKey });
    assert.deepEqual(list.body.workflows.map((w: any) => w.id), [theirs.id]);
    assert.ok(!(await s.json('/api/workflows/integrations', { key: otherKey })).body.integrations.some((i: any) => i.id === hook.id));
    // a workflow of theirs cannot use my integration
    const use = await s.json('/api/workflows', { method: 'POST', key: otherKey, json: { name: 'steal', definition: { steps: [{ id: 'a', type: 'integration', config: { integration_id: hook.id } }] } } });
    assert.equal(use.status, 400);
    assert.equal((await s.json(`/api/workflows/${wf.id}`)).body.workflow.name, 'mine');
    const del = await s.json(`/api/workflows/${wf.id}`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    assert.equal((await s.json(`/api/workflows/${wf.id}`)).status, 404);
  });

  test('a scheduled workflow fires once per tick, also when several schedulers look at once', async () => {
    const wf = await workflow({ name: 'every second', trigger_type: 'scheduled', trigger_config: { cron_expression: '* * * * * *', timezone: 'Europe/Amsterdam' }, definition: { steps: [{ id: 'when', type: 'transform', config: { mapping: { at: 'trigger.scheduled_time' } } }] } });
    const schedule = await s.json(`/api/workflows/${wf.id}/schedule`);
    assert.equal(schedule.status, 200);
    assert.equal(schedule.body.schedule.cron_expression, '* * * * * *');
    assert.equal(schedule.body.schedule.timezone, 'Europe/Amsterdam');
    // a second API process on the same database and queue (CI pass 2) runs its own scheduler
    const second = MYSQL_URL ? await startTestServer({ env: { QUIRE_CRON_SECONDS: 'true', QUIRE_SCHEDULER_INTERVAL_S: '0.2', QUIRE_DB_URL: s.runtime.config.db.url!, QUIRE_QUEUE_PREFIX: s.runtime.config.queue.prefix } }) : null;
    try {
      // and extra passes of this process's scheduler race with it
      await until('three ticks', async () => {
        await Promise.all([scheduleTick(s.runtime), scheduleTick(s.runtime)]);
        return (await executions(wf.id)).length >= 3;
      });
    } finally {
      const off = await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'PUT', json: { enabled: false } });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      await second?.close();
    }
    const xs = await until('the ticks to finish', async () => {
      const list = await executions(wf.id);
      return list.every((x) => x.status !== 'running') ? list : null;
    });
    const times = xs.map((x) => x.trigger_data.scheduled_time);
    assert.equal(new Set(times).size, times.length, `one execution per tick: ${times.join(', ')}`);
    for (const x of xs) {
      assert.equal(x.triggered_by, 'scheduled');
      assert.equal(x.status, 'completed', JSON.stringify(x));
      assert.equal(x.execution_log[0].output.at, x.trigger_data.scheduled_time);
    }
    const ticks = await s.runtime.store.repo('workflow_ticks').find({ workflow_id: wf.id });
    assert.equal(ticks.length, xs.length);
    assert.equal((await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'DELETE' })).status, 200);
    assert.equal((await s.json(`/api/workflows/${wf.id}`)).body.workflow.trigger_type, 'manual');
  });

  test('an event makes one execution per workflow, however many processes receive it', async () => {
    const wf = await workflow({ name: 'on upload', trigger_type: 'event', trigger_config: { event: 'document.uploaded', filters: { file_type: ['txt', 'md'] } }, definition: { steps: [{ id: 'name', type: 'transform', config: { expression: 'name' } }] } });
    // a second API process on the same database and queue (CI pass 2) receives every event too
    const second = MYSQL_URL ? await startTestServer({ env: { QUIRE_DB_URL: s.runtime.config.db.url!, QUIRE_QUEUE_PREFIX: s.runtime.config.queue.prefix } }) : null;
    try {
      const id = await upload('one.txt', 'One event, one execution.');
      const [x] = await until('the execution', async () => {
        const xs = await executions(wf.id);
        return xs.length && xs.every((e) => e.status !== 'running') ? xs : null;
      });
      assert.equal(x.trigger_data.document_id, id);
      assert.equal(x.execution_log[0].output, 'one.txt');
      // the same event handled again (as by another process) starts nothing
      const event = { id: x.trigger_data.event_id, type: 'document.uploaded', timestamp: x.trigger_data.timestamp, user_id: (await s.runtime.store.repo('workflows').get(wf.id))!.user_id, organization_id: null, data: { id, name: 'one.txt', file_type: 'txt' } };
      assert.equal(await onEvent(s.runtime, event), 0);
      await waitForStatus(s, `/v1/documents/${id}`);
      assert.equal((await executions(wf.id)).length, 1);
    } finally {
      await s.json(`/api/workflows/${wf.id}`, { method: 'DELETE' });
      await second?.close();
    }
  });

  test('a webhook trigger has a signed inbound URL; its JSON body is the trigger data', async () => {
    const wf = await workflow({ name: 'inbound', trigger_type: 'webhook', definition: { steps: [{ id: 'echo', type: 'transform', config: { expression: '{"order": order, "doubled": amount * 2}' } }] } });
    const url: string = wf.trigger_config.webhook_url;
    assert.ok(url.startsWith(`${s.url}/api/workflows/${wf.id}/webhook/`), url);
    const path = url.slice(s.url.length);
    const wrong = await s.json(`${path.slice(0, -4)}0000`, { method: 'POST', key: null, json: { order: 'A-1', amount: 21 } });
    assert.equal(wrong.status, 404);
    const r = await s.json(path, { method: 'POST', key: null, json: { order: 'A-1', amount: 21 } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const x = await finished(wf.id, r.body.execution_id);
    assert.equal(x.triggered_by, 'webhook');
    assert.deepEqual(x.execution_log[0].output, { order: 'A-1', doubled: 42 });
  });

  test('an email step without SMTP configured fails with a clear error', async () => {
    // an email integration sends to its owner's own address (or an organization's members)
    const me = (await s.json('/api/user/profile')).body;
    assert.ok(me.email, JSON.stringify(me));
    const mail = await integration({ name: 'mail', integration_type: 'email', config: { to: me.email, subject: 'Invoice {{invoice}}' } });
    const wf = await workflow({ name: 'mail it', definition: { steps: [{ id: 'mail', type: 'integration', config: { integration_id: mail.id, template: 'Total {{total}}' } }] } });
    const r = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { invoice: 'INV-1', total: 5 } } });
    const x = await finished(wf.id, r.body.execution_id);
    assert.equal(x.status, 'failed');
    assert.match(x.error, /QUIRE_SMTP_HOST/);
    assert.equal(x.execution_log[0].status, 'failed');
    assert.match(x.execution_log[0].error, /Email is not configured/);
    assert.equal(x.execution_log[0].input.subject, 'Invoice INV-1');
  });

  test('a transform expression that recurses forever or builds a huge sequence fails its step instead of holding the service', async () => {
    for (const [expression, why] of [
      ['( $f := function($x) { $f($x) }; $f(1) )', /stack overflow|timeout/i],
      ['$count([1..9999999])', /sequence|size|large/i],
    ] as const) {
      const wf = await workflow({ name: 'runaway', definition: { steps: [{ id: 'spin', type: 'transform', config: { expression } }] } });
      const r = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: {} } });
      const x = await finished(wf.id, r.body.execution_id);
      assert.equal(x.status, 'failed', expression);
      assert.match(x.execution_log[0].error, why, x.execution_log[0].error);
    }
    assert.equal((await s.json('/healthz')).status, 200);
  });

  test('templates by category; a workflow made from one runs', async () => {
    const all = await s.json('/api/workflows/templates');
    assert.deepEqual([...new Set(all.body.templates.map((t: any) => t.category))].sort(), ['contract', 'general', 'invoice', 'resume']);
    const inv = await s.json('/api/workflows/templates?category=invoice');
    assert.ok(inv.body.templates.length >= 1 && inv.body.templates.every((t: any) => t.category === 'invoice'));
    assert.equal((await s.json('/api/workflows/templates?category=recipes')).status, 400);
    const hook = await integration({ name: 'summaries', integration_type: 'webhook', config: { url: `${base}/summaries` } });
    const made = await s.json('/api/workflows/templates', { method: 'POST', json: { template_id: 'invoice-pdf-summary', name: 'My invoices', integration_id: hook.id, enabled: false } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const wf = made.body.workflow;
    assert.equal(wf.name, 'My invoices');
    assert.deepEqual(wf.definition.steps.map((st: any) => st.type), ['parse', 'extract', 'transform', 'integration']);
    const doc = await upload('invoice-template.pdf', await invoicePdf());
    const run = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { document_id: doc } } });
    const x = await finished(wf.id, run.body.execution_id);
    assert.equal(x.status, 'completed', JSON.stringify(x));
    const sent = JSON.parse(hits('/summaries')[0]!.body);
    assert.equal(sent.total, 1234.5);
    assert.match(sent.text, /INV-7731/);
    assert.equal((await s.json('/api/workflows/templates', { method: 'POST', json: { template_id: 'nope' } })).status, 404);
    // made without "enabled": disabled, and the answer says so; with enabled: true it is on at once
    const quiet = await s.json('/api/workflows/templates', { method: 'POST', json: { template_id: 'invoice-pdf-summary' } });
    assert.equal(quiet.status, 201, JSON.stringify(quiet.body));
    assert.equal(quiet.body.workflow.enabled, false, 'a template does not start spending credits on its own');
    assert.match(quiet.body.message, /Created disabled/);
    assert.equal((await s.json(`/api/workflows/${quiet.body.workflow.id}`)).body.workflow.enabled, false);
    const on = await s.json('/api/workflows/templates', { method: 'POST', json: { template_id: 'invoice-pdf-summary', enabled: true } });
    assert.equal(on.body.workflow.enabled, true);
    assert.equal(on.body.message, undefined);
    for (const id of [quiet.body.workflow.id, on.body.workflow.id]) assert.ok([200, 204].includes((await s.json(`/api/workflows/${id}`, { method: 'DELETE' })).status));
  });

  test('/openapi.json documents the workflow endpoints', async () => {
    const doc = (await s.json('/openapi.json')).body;
    for (const p of ['/api/workflows', '/api/workflows/{id}', '/api/workflows/{id}/execute', '/api/workflows/{id}/executions', '/api/workflows/{id}/schedule', '/api/workflows/integrations', '/api/workflows/templates']) assert.ok(doc.paths[p], `${p} in /openapi.json`);
  });
});
