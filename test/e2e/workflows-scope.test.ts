// @services: workflow triggers and runs (events over the transport, store queries by scope)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createKey, findOrCreateUser } from '@quire/server';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';
import { addAndAccept } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';

/** a user made in the store with a premium key (no rate limit gets in the way of polling) */
type User = Pick<TestUser, 'id' | 'email' | 'key'>;

/**
 * Workflows act only within their own scope (an organization's workflow on that organization's resources,
 * a personal one on its owner's personal resources), whoever edits or triggers them: references checked
 * at edit and at run, trigger URLs with a rotatable secret shown only to those who may edit, events matched
 * within their scope, and limits on the executions one event or run may start and an owner may run at once.
 */
describe('workflows within their scope', () => {
  let s: TestServer;
  let n = 0;
  const BUDGET = 12;
  const user = async (prefix: string, domain = 'scope.test'): Promise<User> => {
    const u = await findOrCreateUser(s.runtime.store, `${prefix}-${++n}@${domain}`, 'premium');
    return { id: u.id, email: u.email, key: (await createKey(s.runtime.store, u.id, 'tests')).key };
  };
  const call = (u: User | null, path: string, init: { method?: string; json?: unknown; body?: any } = {}) => s.json(path, { ...init, key: u ? u.key : null });

  /** A new organization of `owner` with members by role (through the members API; kept in one place). */
  async function organization(owner: User, members: [User, string][] = []): Promise<string> {
    const r = await call(owner, '/api/organizations', { method: 'POST', json: { name: `Scope ${++n}`, slug: `scope-${n}-${Date.now().toString(36)}` } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    // adding a member is an invitation the invitee accepts
    for (const [m, role] of members) await addAndAccept(s, owner as TestUser, r.body.organization.id, m as TestUser, role);
    return r.body.organization.id;
  }

  async function upload(u: User, name: string, text: string, organizationId?: string): Promise<string> {
    const r = await call(u, '/api/upload', { method: 'POST', body: uploadForm(name, text, organizationId ? { organization_id: organizationId } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await waitForStatus(s, `/v1/documents/${r.body.document.id}`, 120_000, u.key);
    return r.body.document.id;
  }

  async function workflow(u: User, body: Record<string, unknown>) {
    const r = await call(u, '/api/workflows', { method: 'POST', json: body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.workflow;
  }

  const executions = async (u: User, id: string) => (await call(u, `/api/workflows/${id}/executions?limit=100`)).body.executions as any[];
  const finished = (u: User, id: string, executionId: string) =>
    until(`execution ${executionId} to finish`, async () => {
      const [x] = (await call(u, `/api/workflows/${id}/executions?execution_id=${executionId}`)).body.executions;
      return x && x.status !== 'running' ? x : null;
    }, 120_000);
  /** the executions of a workflow once there are at least `count` and none is running */
  const settled = (u: User, id: string, count: number) =>
    until(`${count} finished executions of ${id}`, async () => {
      const xs = await executions(u, id);
      return xs.length >= count && xs.every((x) => x.status !== 'running') ? xs : null;
    }, 120_000, 100);

  const SECRET = 'PERSONAL-LEDGER-7731 private salary figures';
  const parseOnly = { steps: [{ id: 'read', type: 'parse', config: {} }] };

  before(async () => {
    s = await startTestServer({ env: { QUIRE_WORKFLOW_MAX_EXECUTIONS: String(BUDGET), QUIRE_WORKFLOW_MAX_RUNNING: '100' } });
  });
  after(async () => {
    await s?.close();
  });

  test("an admin cannot point an organization's workflow at the creator's personal document or integration; an id templated in is refused when it runs", async () => {
    const [ann, adm] = [await user('ann'), await user('adm')];
    const org = await organization(ann, [[adm, 'admin']]);
    const personal = await upload(ann, 'ledger.txt', SECRET);
    const orgDoc = await upload(ann, 'org-note.txt', 'An organization note.', org);
    const hook = await call(ann, '/api/workflows/integrations', { method: 'POST', json: { name: 'mine', integration_type: 'webhook', config: { url: 'http://127.0.0.1:9/mine' } } });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const wf = await workflow(ann, { name: 'org parse', organization_id: org, definition: parseOnly });

    const refused: [User, unknown, string][] = [
      [adm, { steps: [{ id: 'read', type: 'parse', config: { document_id: personal } }] }, 'definition.steps.0.config.document_id'],
      [ann, { steps: [{ id: 'read', type: 'parse', config: { document_id: personal } }] }, 'definition.steps.0.config.document_id'],
      [adm, { steps: [{ id: 'send', type: 'integration', config: { integration_id: hook.body.integration.id } }] }, 'definition.steps.0.config.integration_id'],
    ];
    for (const [who, definition, field] of refused) {
      const r = await call(who, `/api/workflows/${wf.id}`, { method: 'PUT', json: { definition } });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      errorBody(r.body, 'VALIDATION_ERROR');
      assert.ok(JSON.stringify(r.body.error.details).includes(field), JSON.stringify(r.body.error));
    }
    // nor in a new workflow of the organization, nor in a trigger filter
    const created = await call(adm, '/api/workflows', { method: 'POST', json: { name: 'x', organization_id: org, trigger_type: 'event', trigger_config: { event: 'document.processed', filters: { document_id: personal } }, definition: parseOnly } });
    assert.equal(created.status, 400, JSON.stringify(created.body));
    assert.ok(JSON.stringify(created.body.error.details).includes('trigger_config.filters.document_id'));
    // a personal workflow does not reach into the organization either
    const mine = await call(ann, '/api/workflows', { method: 'POST', json: { name: 'y', definition: { steps: [{ id: 'read', type: 'parse', config: { document_id: orgDoc } }] } } });
    assert.equal(mine.status, 400, JSON.stringify(mine.body));
    // and the personal integration cannot be linked to the organization's workflow
    const link = await call(ann, `/api/workflows/integrations?id=${hook.body.integration.id}`, { method: 'PUT', json: { workflow_id: wf.id } });
    assert.equal(link.status, 400, JSON.stringify(link.body));
    assert.ok(JSON.stringify(link.body.error.details).includes('workflow_id'));

    // the organization's own document is fine
    const ok = await call(adm, `/api/workflows/${wf.id}`, { method: 'PUT', json: { definition: { steps: [{ id: 'read', type: 'parse', config: { document_id: orgDoc } }] } } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const run = await call(adm, `/api/workflows/${wf.id}/execute`, { method: 'POST', json: {} });
    assert.equal((await finished(adm, wf.id, run.body.execution_id)).status, 'completed');

    // an id that only a template names is checked when the step runs: the step fails, the text stays out of the log
    const templated = await call(adm, `/api/workflows/${wf.id}`, { method: 'PUT', json: { definition: { steps: [{ id: 'read', type: 'parse', config: { document_id: '{{ref}}' } }] } } });
    assert.equal(templated.status, 200, JSON.stringify(templated.body));
    const sneaky = await call(adm, `/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { ref: personal } } });
    assert.equal(sneaky.status, 202, JSON.stringify(sneaky.body));
    const x = await finished(adm, wf.id, sneaky.body.execution_id);
    assert.equal(x.status, 'failed', JSON.stringify(x));
    assert.match(x.execution_log[0].error, /not found/);
    assert.ok(!JSON.stringify(x).includes('PERSONAL-LEDGER'), JSON.stringify(x));
    // and trigger data naming it is refused up front
    const direct = await call(adm, `/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { document_id: personal } } });
    assert.equal(direct.status, 400, JSON.stringify(direct.body));
    assert.ok(JSON.stringify(direct.body.error.details).includes('trigger_data.document_id'));
  });

  test('the inbound URL of a webhook trigger is shown only to those who may edit; its secret rotates; trigger data stays in scope', async () => {
    const [ann, vic] = [await user('ann'), await user('vic')];
    const org = await organization(ann, [[vic, 'viewer']]);
    const personal = await upload(ann, 'ledger.txt', SECRET);
    const wf = await workflow(ann, { name: 'inbound', organization_id: org, trigger_type: 'webhook', definition: parseOnly });
    const url: string = wf.trigger_config.webhook_url;
    assert.ok(url.startsWith(`${s.url}/api/workflows/${wf.id}/webhook/`), url);
    const token = url.slice(url.lastIndexOf('/') + 1);

    const seen = await call(vic, `/api/workflows/${wf.id}`);
    assert.equal(seen.status, 200);
    assert.equal(seen.body.workflow.trigger_config.webhook_url, undefined);
    const listed = await call(vic, '/api/workflows');
    assert.ok(listed.body.workflows.some((w: any) => w.id === wf.id));
    assert.ok(!JSON.stringify(listed.body).includes(token) && !JSON.stringify(seen.body).includes(token), 'no secret for a viewer');
    assert.equal((await call(ann, `/api/workflows/${wf.id}`)).body.workflow.trigger_config.webhook_url, url);

    // a personal document id in the trigger data is refused, and nothing runs
    const path = url.slice(s.url.length);
    const bad = await call(null, path, { method: 'POST', json: { document_id: personal } });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    errorBody(bad.body, 'VALIDATION_ERROR');
    assert.deepEqual(await executions(ann, wf.id), []);

    // rotation: viewers cannot, strangers do not see it; the old URL stops at once, the new one works
    assert.equal((await call(vic, `/api/workflows/${wf.id}/trigger/rotate`, { method: 'POST' })).status, 403);
    assert.equal((await call(await user('eve'), `/api/workflows/${wf.id}/trigger/rotate`, { method: 'POST' })).status, 404);
    const rotated = await call(ann, `/api/workflows/${wf.id}/trigger/rotate`, { method: 'POST' });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const fresh: string = rotated.body.workflow.trigger_config.webhook_url;
    assert.ok(fresh.startsWith(`${s.url}/api/workflows/${wf.id}/webhook/`) && fresh !== url, fresh);
    const old = await call(null, path, { method: 'POST', json: { hello: 1 } });
    assert.equal(old.status, 404);
    errorBody(old.body, 'NOT_FOUND');
    const now = await call(null, fresh.slice(s.url.length), { method: 'POST', json: { hello: 1 } });
    assert.equal(now.status, 202, JSON.stringify(now.body));
    assert.equal((await executions(ann, wf.id)).length, 1);
    // ids that are not Quire's (another system's, a prebuilt schema's name) name nothing here
    const external = await call(null, fresh.slice(s.url.length), { method: 'POST', json: { document_id: 'EXT-42', schema_id: 'invoice' } });
    assert.equal(external.status, 202, JSON.stringify(external.body));
  });

  test("an event triggers workflows of its own scope: an organization's workflow not on its creator's personal uploads, a personal one not on the organization's", async () => {
    const ann = await user('ann');
    const org = await organization(ann);
    const name = { steps: [{ id: 'name', type: 'transform', config: { expression: 'name' } }] };
    const orgWf = await workflow(ann, { name: 'org uploads', organization_id: org, trigger_type: 'event', trigger_config: { event: 'document.uploaded' }, definition: name });
    const myWf = await workflow(ann, { name: 'my uploads', trigger_type: 'event', trigger_config: { event: 'document.uploaded' }, definition: name });
    await upload(ann, 'mine-1.txt', SECRET);
    await upload(ann, 'org-1.txt', 'Organization text one.', org);
    await settled(ann, orgWf.id, 1);
    await settled(ann, myWf.id, 1);
    // a second pair: by the time its executions are there, the first pair's events were long handled
    await upload(ann, 'org-2.txt', 'Organization text two.', org);
    await upload(ann, 'mine-2.txt', 'Mine again.');
    const names = async (id: string, count: number) => (await settled(ann, id, count)).map((x) => x.execution_log[0].output).sort();
    assert.deepEqual(await names(orgWf.id, 2), ['org-1.txt', 'org-2.txt']);
    assert.deepEqual(await names(myWf.id, 2), ['mine-1.txt', 'mine-2.txt']);
  });

  test("a member removed from the organization no longer gets its events through a workflow they saved", async () => {
    const [own, adm] = [await user('own'), await user('adm')];
    const org = await organization(own, [[adm, 'admin']]);
    const on = { event: 'document.uploaded' };
    const theirs = await workflow(adm, { name: 'leaky', organization_id: org, trigger_type: 'event', trigger_config: on, definition: parseOnly });
    const sentinel = await workflow(own, { name: 'sentinel', organization_id: org, trigger_type: 'event', trigger_config: on, definition: parseOnly });
    await upload(own, 'before.txt', 'Before the removal.', org);
    assert.equal((await settled(own, theirs.id, 1)).length, 1, 'it fires while they are a member');
    const removed = await call(own, `/api/organizations/${org}/members/${adm.id}`, { method: 'DELETE' });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    await upload(own, 'after.txt', 'After the removal: not for them.', org);
    await settled(own, sentinel.id, 2);
    const xs = await executions(own, theirs.id);
    assert.equal(xs.length, 1, JSON.stringify(xs.map((x) => x.trigger_data.name)));
    // run by hand, it does not act for them either
    const run = await call(own, `/api/workflows/${theirs.id}/execute`, { method: 'POST', json: {} });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    const x = await finished(own, theirs.id, run.body.execution_id);
    assert.equal(x.status, 'failed');
    assert.match(x.error, /no longer a member/);
  });

  test(`workflows chained on workflow.completed start at most ${BUDGET} executions from one run`, async () => {
    const fan = await user('fan');
    const wfs = [];
    for (let i = 0; i < 8; i++) wfs.push(await workflow(fan, { name: `chain ${i}`, trigger_type: 'event', trigger_config: { event: 'workflow.completed' }, definition: { steps: [{ id: 'n', type: 'transform', config: { expression: `${i}` } }] } }));
    const all = async () => (await Promise.all(wfs.map((w) => executions(fan, w.id)))).flat();
    const run = await call(fan, `/api/workflows/${wfs[0].id}/execute`, { method: 'POST', json: {} });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    await until(`${BUDGET} executions, all finished`, async () => {
      const xs = await all();
      assert.ok(xs.length <= BUDGET, `${xs.length} executions from one run`);
      return xs.length === BUDGET && xs.every((x) => x.status !== 'running');
    }, 120_000, 100);
    // a run of someone else's completes after them (its events come after the first run's last ones), and the count holds
    const sam = await user('sam');
    const other = await workflow(sam, { name: 'later', definition: { steps: [{ id: 'n', type: 'transform', config: { expression: '1' } }] } });
    const later = await call(sam, `/api/workflows/${other.id}/execute`, { method: 'POST', json: {} });
    assert.equal((await finished(sam, other.id, later.body.execution_id)).status, 'completed');
    assert.equal((await all()).length, BUDGET);
  });

  test('an owner runs at most QUIRE_WORKFLOW_MAX_RUNNING executions at once: a manual execute past it is 429 WORKFLOW_LIMIT', async () => {
    // a receiver that holds its requests until released keeps the executions running
    const held: http.ServerResponse[] = [];
    const hold = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => held.push(res));
    });
    await new Promise<void>((r) => hold.listen(0, '127.0.0.1', () => r()));
    const small = await startTestServer({ env: { QUIRE_WORKFLOW_MAX_RUNNING: '2' } });
    try {
      const post = (path: string, json: unknown) => small.json(path, { method: 'POST', json });
      const hook = await post('/api/workflows/integrations', { name: 'slow', integration_type: 'webhook', config: { url: `http://127.0.0.1:${(hold.address() as { port: number }).port}/slow` } });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const wf = await post('/api/workflows', { name: 'slow', definition: { steps: [{ id: 'send', type: 'integration', config: { integration_id: hook.body.integration.id } }] } });
      const execute = () => post(`/api/workflows/${wf.body.workflow.id}/execute`, { trigger_data: {} });
      const release = () => {
        for (const res of held.splice(0)) res.writeHead(200).end('ok');
      };
      /** releases what the receiver holds until every execution completed */
      const drain = (count: number) =>
        until(`${count} completed executions`, async () => {
          release();
          const xs = (await small.json(`/api/workflows/${wf.body.workflow.id}/executions`)).body.executions as any[];
          assert.ok(xs.every((x) => x.status !== 'failed'), JSON.stringify(xs));
          return xs.length === count && xs.every((x) => x.status === 'completed');
        }, 60_000, 100);
      assert.equal((await execute()).status, 202);
      assert.equal((await execute()).status, 202);
      // the first is sending (held), the second is queued or sending: both are running
      await until('an execution to be sending', () => held.length >= 1, 60_000);
      const third = await execute();
      assert.equal(third.status, 429, JSON.stringify(third.body));
      errorBody(third.body, 'WORKFLOW_LIMIT');
      assert.match(third.body.error.message, /QUIRE_WORKFLOW_MAX_RUNNING/);
      await drain(2);
      assert.equal((await execute()).status, 202, 'room again once they finished');
      await drain(3);
      // executes fired at the same moment are counted under the owner's lock: exactly the limit is accepted
      const burst = await Promise.all(Array.from({ length: 12 }, execute));
      assert.deepEqual(burst.map((r) => r.status).sort(), [...Array(10).fill(429), 202, 202].sort(), JSON.stringify(burst.map((r) => r.body)));
      await drain(5);
    } finally {
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
      await small.close();
      await new Promise<void>((r) => {
        hold.close(() => r());
        hold.closeAllConnections();
      });
    }
  });

  test("an email integration sends only to its owner's address, the organization's members or its allowed_domains", async () => {
    const [ann, mem] = [await user('ann'), await user('mem')];
    const org = await organization(ann, [[mem, 'member']]);
    const email = (u: User | null, to: unknown, organizationId?: string) => call(u ?? ann, '/api/workflows/integrations', { method: 'POST', json: { name: 'mail', integration_type: 'email', config: { to }, ...(organizationId ? { organization_id: organizationId } : {}) } });
    const refused = async (r: { status: number; body: any }, address: string) => {
      assert.equal(r.status, 400, JSON.stringify(r.body));
      errorBody(r.body, 'VALIDATION_ERROR');
      assert.ok(r.body.error.message.includes(address), r.body.error.message);
      assert.ok(JSON.stringify(r.body.error.details).includes('config.to'));
    };
    await refused(await email(ann, 'someone@elsewhere.example'), 'someone@elsewhere.example');
    await refused(await email(ann, [ann.email, mem.email]), mem.email);
    const own = await email(ann, ann.email.toUpperCase());
    assert.equal(own.status, 201, JSON.stringify(own.body));
    const members = await email(ann, [ann.email, mem.email], org);
    assert.equal(members.status, 201, JSON.stringify(members.body));
    await refused(await email(ann, 'boss@partner.example', org), 'boss@partner.example');
    const settings = await call(ann, `/api/organizations/${org}/settings`, { method: 'PATCH', json: { allowed_domains: ['partner.example'] } });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    assert.equal((await email(ann, 'boss@partner.example', org)).status, 201);
    // an update is checked the same way
    await refused(await call(ann, `/api/workflows/integrations?id=${own.body.integration.id}`, { method: 'PUT', json: { config: { to: 'someone@elsewhere.example' } } }), 'someone@elsewhere.example');
  });
});
