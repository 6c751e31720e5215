// @services: workflows: a set of triggers per workflow, schedules that run the documents of a knowledge base
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, findOrCreateUser } from '@quire/server';
import { scheduleTick } from '@quire/engine';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';

/**
 * A workflow keeps every trigger it is given (event, schedule, webhook) until that one is removed, and the
 * API shows them all; a schedule with an input runs each document of a knowledge base once.
 */
describe('workflow triggers', () => {
  let s: TestServer;
  let otherKey = '';

  before(async () => {
    s = await startTestServer({ env: { QUIRE_CRON_SECONDS: 'true', QUIRE_SCHEDULER_INTERVAL_S: '0.2' } });
    const other = await findOrCreateUser(s.runtime.store, 'other-triggers@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
  });
  after(async () => {
    await s?.close();
  });

  async function workflow(body: Record<string, unknown>) {
    const r = await s.json('/api/workflows', { method: 'POST', json: body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.workflow;
  }
  const executions = async (id: string) => (await s.json(`/api/workflows/${id}/executions?limit=100`)).body.executions as any[];
  const settled = (id: string, count: number) =>
    until(`${count} finished executions`, async () => {
      const xs = await executions(id);
      return xs.length >= count && xs.every((x) => x.status !== 'running') ? xs : null;
    }, 120_000);
  const types = (w: any) => w.triggers.map((t: any) => t.type).sort();

  async function uploadTo(kbId: string | null, name: string, text: string): Promise<string> {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm(name, text, kbId ? { knowledge_base_id: kbId } : {}) });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    await waitForStatus(s, `/v1/documents/${up.body.document.id}`);
    return up.body.document.id;
  }

  test('adding a schedule keeps the upload trigger; removing it leaves the upload trigger; a webhook joins them', async () => {
    const wf = await workflow({
      name: 'on upload and nightly',
      trigger_type: 'event',
      trigger_config: { event: 'document.uploaded', filters: { file_type: 'txt' } },
      definition: { steps: [{ id: 'name', type: 'transform', config: { expression: 'name' } }] },
    });
    assert.deepEqual(wf.triggers, [{ type: 'event', config: { event: 'document.uploaded', filters: { file_type: 'txt' } }, primary: true }]);
    const sched = await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'POST', json: { cron_expression: '0 3 1 1 *', timezone: 'UTC' } });
    assert.equal(sched.status, 201, JSON.stringify(sched.body));
    let got = (await s.json(`/api/workflows/${wf.id}`)).body.workflow;
    // the upload trigger stays the primary one; the schedule is beside it
    assert.equal(got.trigger_type, 'event');
    assert.deepEqual(types(got), ['event', 'scheduled']);
    assert.equal(got.triggers.find((t: any) => t.type === 'scheduled').config.cron_expression, '0 3 1 1 *');
    assert.equal((await s.json(`/api/workflows/${wf.id}/schedule`)).body.schedule.cron_expression, '0 3 1 1 *');
    const listed = (await s.json('/api/workflows')).body.workflows.find((w: any) => w.id === wf.id);
    assert.deepEqual(types(listed), ['event', 'scheduled']);

    // an upload still triggers it
    await uploadTo(null, 'first.txt', 'An upload while the workflow is also scheduled.');
    const [x] = await settled(wf.id, 1);
    assert.equal(x.triggered_by, 'event');
    assert.equal(x.execution_log[0].output, 'first.txt');

    // the schedule goes: the upload trigger is still there, and still fires
    assert.equal((await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'DELETE' })).status, 200);
    got = (await s.json(`/api/workflows/${wf.id}`)).body.workflow;
    assert.equal(got.trigger_type, 'event');
    assert.deepEqual(got.trigger_config, { event: 'document.uploaded', filters: { file_type: 'txt' } });
    assert.deepEqual(types(got), ['event']);
    assert.equal((await s.json(`/api/workflows/${wf.id}/schedule`)).status, 404);
    await uploadTo(null, 'second.txt', 'An upload after the schedule was removed.');
    const xs = await settled(wf.id, 2);
    assert.deepEqual(xs.map((e) => e.execution_log[0].output).sort(), ['first.txt', 'second.txt']);

    // a webhook trigger joins the set (PUT triggers); its inbound URL works; the event trigger stays primary
    const put = await s.json(`/api/workflows/${wf.id}`, { method: 'PUT', json: { triggers: [...got.triggers.map((t: any) => ({ type: t.type, config: t.config })), { type: 'webhook', config: {} }] } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.workflow.trigger_type, 'event');
    assert.deepEqual(types(put.body.workflow), ['event', 'webhook']);
    const url: string = put.body.workflow.triggers.find((t: any) => t.type === 'webhook').config.webhook_url;
    const hook = await s.json(url.slice(s.url.length), { method: 'POST', key: null, json: { name: 'from-the-hook' } });
    assert.equal(hook.status, 202, JSON.stringify(hook.body));
    const all = await settled(wf.id, 3);
    assert.equal(all.find((e) => e.id === hook.body.execution_id).execution_log[0].output, 'from-the-hook');

    // two triggers of one type are refused; trigger_type manual removes every trigger
    const twice = await s.json(`/api/workflows/${wf.id}`, { method: 'PUT', json: { triggers: [{ type: 'webhook' }, { type: 'webhook' }] } });
    assert.equal(twice.status, 400);
    errorBody(twice.body, 'VALIDATION_ERROR');
    const manual = await s.json(`/api/workflows/${wf.id}`, { method: 'PUT', json: { trigger_type: 'manual' } });
    assert.equal(manual.body.workflow.trigger_type, 'manual');
    assert.deepEqual(manual.body.workflow.triggers, []);
    assert.equal((await s.json(url.slice(s.url.length), { method: 'POST', key: null, json: {} })).status, 404);
  });

  test('the trigger_type filter finds a workflow by any of its triggers, with the right total and pages', async () => {
    const owner = await findOrCreateUser(s.runtime.store, 'filter-triggers@test.local', 'premium');
    const key = (await createKey(s.runtime.store, owner.id, 'filter')).key;
    const make = async (name: string, body: Record<string, unknown>) => {
      const r = await s.json('/api/workflows', { method: 'POST', key, json: { name, definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] }, ...body } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.workflow.id as string;
    };
    const upload = { trigger_type: 'event', trigger_config: { event: 'document.uploaded' } };
    // an upload trigger with a schedule beside it: the primary trigger stays the upload one
    const both = await make('upload and nightly', upload);
    assert.equal((await s.json(`/api/workflows/${both}/schedule`, { method: 'POST', key, json: { cron_expression: '0 3 1 1 *' } })).status, 201);
    const nightly = await make('nightly', { trigger_type: 'scheduled', trigger_config: { cron_expression: '0 4 1 1 *' } });
    const hooked = await make('hook and upload', { trigger_type: 'webhook', trigger_config: {}, triggers: [{ type: 'event', config: { event: 'document.uploaded' } }] });
    const byHand = await make('by hand', {});
    // someone else's scheduled workflow is never listed
    assert.equal((await s.json('/api/workflows', { method: 'POST', key: otherKey, json: { name: 'theirs', trigger_type: 'scheduled', trigger_config: { cron_expression: '0 5 1 1 *' }, definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } } })).status, 201);

    const list = async (q: string) => {
      const r = await s.json(`/api/workflows?${q}`, { key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as { workflows: any[]; total: number; has_more: boolean };
    };
    const ids = (l: { workflows: any[] }) => l.workflows.map((w) => w.id).sort();
    const scheduled = await list('trigger_type=scheduled');
    assert.deepEqual(ids(scheduled), [both, nightly].sort());
    assert.equal(scheduled.total, 2);
    assert.equal(scheduled.has_more, false);
    const events = await list('trigger_type=event');
    assert.deepEqual(ids(events), [both, hooked].sort());
    assert.equal(events.total, 2);
    assert.deepEqual(ids(await list('trigger_type=webhook')), [hooked]);
    assert.deepEqual(ids(await list('trigger_type=manual')), [byHand]);
    assert.equal((await list('')).total, 4);
    // pages of the filtered list: the total is of the filter, the pages cover it once
    const p1 = await list('trigger_type=scheduled&limit=1');
    const p2 = await list('trigger_type=scheduled&limit=1&offset=1');
    assert.equal(p1.total, 2);
    assert.equal(p1.has_more, true);
    assert.equal(p2.total, 2);
    assert.equal(p2.has_more, false);
    assert.deepEqual([...ids(p1), ...ids(p2)].sort(), [both, nightly].sort());
    const past = await list('trigger_type=scheduled&offset=2');
    assert.deepEqual(past.workflows, []);
    assert.equal(past.total, 2);
    // a trigger removed no longer matches
    assert.equal((await s.json(`/api/workflows/${both}/schedule`, { method: 'DELETE', key })).status, 200);
    assert.deepEqual(ids(await list('trigger_type=scheduled')), [nightly]);
  });

  test('a schedule made first, an upload trigger added after: both stay, removing the schedule leaves the upload one primary', async () => {
    const wf = await workflow({ name: 'scheduled first', trigger_type: 'scheduled', trigger_config: { cron_expression: '0 3 1 1 *' }, definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } });
    const put = await s.json(`/api/workflows/${wf.id}`, { method: 'PUT', json: { trigger_type: 'event', trigger_config: { event: 'document.processed' } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.workflow.trigger_type, 'event');
    assert.deepEqual(types(put.body.workflow), ['event', 'scheduled']);
    assert.equal((await s.json(`/api/workflows/${wf.id}/schedule`)).status, 200);
    assert.equal((await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'DELETE' })).status, 200);
    const got = (await s.json(`/api/workflows/${wf.id}`)).body.workflow;
    assert.equal(got.trigger_type, 'event');
    assert.deepEqual(types(got), ['event']);
    assert.equal((await s.json(`/api/workflows/${wf.id}`, { method: 'DELETE' })).status, 200);
  });

  test('a schedule with a knowledge base as input runs each of its documents once; a tick with none new starts nothing', async () => {
    const kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Scheduled inbox' } })).body.knowledge_base;
    const a = await uploadTo(kb.id, 'alpha.txt', 'Alpha report. The pumps were serviced in March.');
    const b = await uploadTo(kb.id, 'bravo.txt', 'Bravo report. The valves were replaced in April.');
    await uploadTo(null, 'elsewhere.txt', 'Not in the knowledge base.');
    const wf = await workflow({ name: 'digest the inbox', definition: { steps: [{ id: 'parse', type: 'parse', config: {} }, { id: 'name', type: 'transform', config: { expression: 'document_name' } }] } });

    // someone else's knowledge base is refused, as is an input naming none
    const theirs = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Not yours' }, key: otherKey })).body.knowledge_base;
    const refused = await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'POST', json: { cron_expression: '* * * * * *', input: { knowledge_base_id: theirs.id } } });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    errorBody(refused.body, 'VALIDATION_ERROR');
    assert.equal((await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'POST', json: { cron_expression: '* * * * * *', input: { since: 'all' } } })).status, 400);

    const sched = await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'POST', json: { cron_expression: '* * * * * *', input: { knowledge_base_id: kb.id } } });
    assert.equal(sched.status, 201, JSON.stringify(sched.body));
    assert.deepEqual(sched.body.schedule.input, { knowledge_base_id: kb.id, since: 'last_success' });
    const first = await settled(wf.id, 2);
    for (const x of first) {
      assert.equal(x.status, 'completed', JSON.stringify(x));
      assert.equal(x.triggered_by, 'scheduled');
      assert.equal(x.execution_log[0].output.document_id, x.trigger_data.document_id);
    }
    assert.deepEqual(first.map((x) => x.trigger_data.document_id).sort(), [a, b].sort());
    assert.deepEqual(first.map((x) => x.execution_log[1].output).sort(), ['alpha.txt', 'bravo.txt']);

    // later ticks find nothing new: no more executions
    const ticksBefore = (await s.runtime.store.repo('workflow_ticks').find({ workflow_id: wf.id })).length;
    await until('two more ticks', async () => {
      await scheduleTick(s.runtime);
      return (await s.runtime.store.repo('workflow_ticks').find({ workflow_id: wf.id })).length >= ticksBefore + 2;
    });
    assert.equal((await executions(wf.id)).length, 2);

    // a document added later is run at the next tick, alone
    const c = await uploadTo(kb.id, 'charlie.txt', 'Charlie report. The filters were cleaned in May.');
    const three = await settled(wf.id, 3);
    assert.equal(three.filter((x) => x.trigger_data.document_id === c).length, 1);
    const off = await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'PUT', json: { enabled: false } });
    assert.equal(off.status, 200);
    const done = await settled(wf.id, 3);
    assert.equal(done.length, 3, 'each document once');
    assert.deepEqual(done.map((x) => x.trigger_data.document_id).sort(), [a, b, c].sort());
  });

  test('since all: every document of the knowledge base at every tick', async () => {
    const kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Every time' } })).body.knowledge_base;
    const a = await uploadTo(kb.id, 'one.txt', 'One.');
    const b = await uploadTo(kb.id, 'two.txt', 'Two.');
    const wf = await workflow({ name: 'all of them', definition: { steps: [{ id: 'doc', type: 'transform', config: { expression: 'trigger.document_id' } }] } });
    const sched = await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'POST', json: { cron_expression: '* * * * * *', input: { collection_id: kb.id, since: 'all' } } });
    assert.equal(sched.status, 201, JSON.stringify(sched.body));
    // a tick a second keeps starting executions: wait for four, stop the schedule, then let them finish
    await until('four executions', async () => (await executions(wf.id)).length >= 4, 120_000);
    await s.json(`/api/workflows/${wf.id}/schedule`, { method: 'PUT', json: { enabled: false } });
    const xs = await settled(wf.id, 4);
    const byTick = new Map<string, string[]>();
    for (const x of xs) byTick.set(x.trigger_data.scheduled_time, [...(byTick.get(x.trigger_data.scheduled_time) ?? []), x.execution_log[0].output]);
    const full = [...byTick.values()].filter((docs) => docs.length === 2);
    assert.ok(full.length >= 2, JSON.stringify([...byTick]));
    for (const docs of full) assert.deepEqual(docs.sort(), [a, b].sort());
  });
});
