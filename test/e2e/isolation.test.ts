// @services: tenant filters of every store query that takes an id
/**
 * The isolation suite (issue: accounts and governance): two organizations, a user of another tenant and
 * all four roles, over every resource type and every route that takes an id, through HTTP with API keys
 * made by signed-up users. It shows:
 * - 0 cross-tenant reads or writes: someone else's resource is a 404 on every route (never 200 or 403);
 * - a personal resource (no organization) is its owner's alone, even for admins of the owner's organization;
 * - viewers read organization resources and are refused (403) on every write and at creating;
 * - members read every organization resource, manage their own, and are refused (403) on others';
 * - admins manage all of the organization's resources.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';
import { addAndAccept, signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';
import { makePdf } from '../helpers/fixtures.js';

interface Call {
  m: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  p: (id: string) => string;
  body?: (id: string) => unknown;
  /** writes need write access; a delete removes the resource (run last) */
  kind: 'read' | 'write' | 'delete';
}

interface Kind {
  name: string;
  /** makes one resource as `u` (in `org` when given), returns its id */
  make: (u: TestUser, org: string | null) => Promise<string>;
  calls: Call[];
}

describe('isolation over HTTP: two tenants, four roles, every resource type and every route that takes an id', () => {
  let s: TestServer;
  // organization A: owner, admin, two members, viewer; organization B: its owner (the other tenant)
  let owner: TestUser, admin: TestUser, member: TestUser, member2: TestUser, viewer: TestUser, outsider: TestUser;
  let orgA = '';
  let orgB = '';
  /** a processed document and a knowledge base of organization A (made by the admin), used by other routes */
  let sharedDoc = '';
  let sharedKb = '';
  /** a processed document of organization B, for the other tenant's extractions */
  let otherDoc = '';
  /** a processed personal document of the member, for their personal extractions */
  let memberDoc = '';
  const docFor = (u: TestUser, org: string | null) => (u === outsider ? otherDoc : org ? sharedDoc : memberDoc);
  let pdf: Uint8Array;
  const counts = { crossTenant: 0, viewerWrites: 0, memberWritesOnOthers: 0, adminWrites: 0 };

  const call = (u: TestUser, m: string, p: string, json?: unknown) => s.json(p, { method: m, key: u.key, ...(json !== undefined ? { json } : {}) });
  const created = async (r: Promise<{ status: number; body: any }>, pick: (b: any) => string) => {
    const x = await r;
    assert.ok(x.status === 200 || x.status === 201, JSON.stringify(x.body));
    return pick(x.body);
  };
  const uploadDoc = async (u: TestUser, org: string | null) => {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('policy.pdf', pdf, org ? { organization_id: org } : {}), key: u.key });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, u.key);
    assert.equal(done.status, 'completed');
    return up.body.document.id as string;
  };

  before(async () => {
    s = await startTestServer();
    [owner, admin, member, member2, viewer, outsider] = await Promise.all(['owner', 'admin', 'member', 'member2', 'viewer', 'outsider'].map((n) => signUpUser(s, `${n}@iso.example`, n)));
    // set-up only: the suite makes far more than the free plan's 100 requests a minute per key
    for (const u of [owner, admin, member, member2, viewer, outsider]) await s.runtime.store.repo('users').update(u.id, { plan: 'premium' });
    orgA = await created(call(owner, 'POST', '/api/organizations', { name: 'A', slug: 'tenant-a' }), (b) => b.organization.id);
    orgB = await created(call(outsider, 'POST', '/api/organizations', { name: 'B', slug: 'tenant-b' }), (b) => b.organization.id);
    for (const [u, role] of [[admin, 'admin'], [member, 'member'], [member2, 'member'], [viewer, 'viewer']] as const) {
      await addAndAccept(s, owner, orgA, u, role);
    }
    pdf = await makePdf([{ heading: 'Travel policy', lines: ['Invoice number INV-2024-17.', 'Economy class for flights under six hours.'] }]);
    sharedDoc = await uploadDoc(admin, orgA);
    otherDoc = await uploadDoc(outsider, orgB);
    memberDoc = await uploadDoc(member, null);
    sharedKb = await created(call(admin, 'POST', '/api/knowledge-bases', { name: 'Shared', organization_id: orgA }), (b) => b.knowledge_base.id);
  });
  after(async () => {
    await s?.close();
  });

  const kinds: Kind[] = [
    {
      name: 'documents',
      make: (u, org) => uploadDoc(u, org),
      calls: [
        { m: 'GET', p: (id) => `/v1/documents/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/v1/documents/${id}/content`, kind: 'read' },
        { m: 'GET', p: (id) => `/v1/jobs/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/jobs/${id}`, kind: 'read' },
        { m: 'DELETE', p: (id) => `/v1/documents/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'knowledge bases and collections',
      make: (u, org) => created(call(u, 'POST', '/api/knowledge-bases', { name: 'KB', ...(org ? { organization_id: org } : {}) }), (b) => b.knowledge_base.id),
      calls: [
        { m: 'GET', p: (id) => `/api/knowledge-bases/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/knowledge-bases/${id}/documents`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/knowledge-bases/${id}/analytics`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/knowledge-bases/${id}/suggestions`, kind: 'read' },
        { m: 'POST', p: (id) => `/api/knowledge-bases/${id}/suggestions/check-duplicates`, body: () => ({ document_ids: [sharedDoc] }), kind: 'read' },
        { m: 'GET', p: (id) => `/v1/collections/${id}`, kind: 'read' },
        { m: 'PATCH', p: (id) => `/api/knowledge-bases/${id}`, body: () => ({ description: 'changed' }), kind: 'write' },
        { m: 'POST', p: (id) => `/api/knowledge-bases/${id}/documents`, body: () => ({ document_id: sharedDoc }), kind: 'write' },
        { m: 'POST', p: (id) => `/api/knowledge-bases/${id}/documents/batch`, body: () => ({ document_ids: [sharedDoc] }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/knowledge-bases/${id}/documents?document_id=${sharedDoc}`, kind: 'write' },
        { m: 'POST', p: (id) => `/v1/collections/${id}`, body: () => ({ name: 'renamed' }), kind: 'write' },
        { m: 'POST', p: (id) => `/v1/collections/${id}/documents`, body: () => ({ document_id: sharedDoc }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/knowledge-bases/${id}`, kind: 'delete' },
        { m: 'DELETE', p: (id) => `/v1/collections/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'extraction schemas',
      make: (u, org) => created(call(u, 'POST', '/api/extract/schemas', { name: 'Invoice', fields: [{ name: 'invoice_number', type: 'string' }], ...(org ? { organization_id: org, is_shared: true } : {}) }), (b) => b.id ?? b.schema?.id),
      calls: [
        { m: 'GET', p: (id) => `/v1/schemas/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/extract/schemas/${id}`, kind: 'read' },
        { m: 'POST', p: (id) => `/v1/schemas/${id}`, body: () => ({ description: 'changed' }), kind: 'write' },
        { m: 'PUT', p: (id) => `/api/extract/schemas/${id}`, body: () => ({ description: 'changed again' }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/v1/schemas/${id}`, kind: 'delete' },
        { m: 'DELETE', p: (id) => `/api/extract/schemas/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'extractions',
      make: (u, org) => created(call(u, 'POST', '/api/extract/run', { document_id: docFor(u, org), config: { fields: [{ name: 'invoice_number', type: 'string' }] }, ...(org ? { organization_id: org } : {}) }), (b) => b.extraction_id),
      calls: [
        { m: 'GET', p: (id) => `/v1/extractions/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/extract/results/${id}`, kind: 'read' },
        { m: 'POST', p: () => '/api/extract/corrections', body: (id) => ({ extraction_id: id, field_id: 'invoice_number', corrected_value: 'INV-1' }), kind: 'write' },
        { m: 'PUT', p: () => '/api/extract/corrections', body: (id) => ({ extraction_id: id, corrections: [] }), kind: 'write' },
      ],
    },
    {
      name: 'parse presets',
      make: (u, org) => created(call(u, 'POST', '/api/parse/presets', { name: 'Preset', ...(org ? { scope: 'organization', organization_id: org } : {}) }), (b) => b.preset.id),
      calls: [
        { m: 'GET', p: (id) => `/api/parse/presets/${id}`, kind: 'read' },
        { m: 'PATCH', p: (id) => `/api/parse/presets/${id}`, body: () => ({ description: 'changed' }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/parse/presets/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'chat sessions',
      make: async (u, org) => {
        const kb = org === orgA ? sharedKb : await created(call(u, 'POST', '/api/knowledge-bases', { name: 'Chat KB', ...(org ? { organization_id: org } : {}) }), (b) => b.knowledge_base.id);
        return created(call(u, 'POST', '/api/chat', { message: 'Which class for short flights?', knowledge_base_id: kb }), (b) => b.session_id);
      },
      calls: [
        { m: 'GET', p: (id) => `/api/chat/sessions/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/chat/sessions/${id}/messages`, kind: 'read' },
        { m: 'DELETE', p: (id) => `/api/chat/sessions/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'extraction batches',
      make: (u, org) => created(call(u, 'POST', '/api/extract/batch', { document_ids: [docFor(u, org)], schema_id: 'invoice', run_immediately: false, ...(org ? { organization_id: org } : {}) }), (b) => b.batch_id ?? b.id ?? b.batch?.id),
      calls: [
        { m: 'GET', p: (id) => `/api/extract/batch/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/extract/batch/${id}/comparison`, kind: 'read' },
        { m: 'POST', p: (id) => `/api/extract/batch/${id}/run`, kind: 'write' },
      ],
    },
    {
      name: 'webhooks',
      make: (u, org) => created(call(u, 'POST', '/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['workflow.completed'], ...(org ? { organization_id: org } : {}) }), (b) => b.webhook_id),
      calls: [
        { m: 'GET', p: (id) => `/api/webhooks/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/webhooks/${id}/deliveries`, kind: 'read' },
        { m: 'PATCH', p: (id) => `/api/webhooks/${id}`, body: () => ({ description: 'changed' }), kind: 'write' },
        { m: 'POST', p: (id) => `/api/webhooks/${id}/rotate-secret`, kind: 'write' },
        { m: 'POST', p: (id) => `/api/webhooks/${id}/test`, kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/webhooks/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'workflows',
      make: (u, org) => created(call(u, 'POST', '/api/workflows', { name: 'Flow', definition: { steps: [{ id: 'parse', type: 'parse', config: {} }] }, trigger_type: 'scheduled', trigger_config: { cron_expression: '0 3 * * *' }, ...(org ? { organization_id: org } : {}) }), (b) => b.workflow.id),
      calls: [
        { m: 'GET', p: (id) => `/api/workflows/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/workflows/${id}/executions`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/workflows/${id}/schedule`, kind: 'read' },
        { m: 'PUT', p: (id) => `/api/workflows/${id}`, body: () => ({ description: 'changed' }), kind: 'write' },
        { m: 'POST', p: (id) => `/api/workflows/${id}/schedule`, body: () => ({ cron_expression: '0 3 * * *' }), kind: 'write' },
        { m: 'PUT', p: (id) => `/api/workflows/${id}/schedule`, body: () => ({ enabled: false }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/workflows/${id}/schedule`, kind: 'write' },
        { m: 'POST', p: (id) => `/api/workflows/${id}/execute`, body: () => ({ trigger_data: {} }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/workflows/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'integrations',
      make: (u, org) => created(call(u, 'POST', '/api/workflows/integrations', { name: 'Hook', integration_type: 'webhook', config: { url: 'http://127.0.0.1:9/int' }, ...(org ? { organization_id: org } : {}) }), (b) => b.integration.id),
      calls: [
        { m: 'PUT', p: (id) => `/api/workflows/integrations?id=${id}`, body: () => ({ name: 'changed' }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/workflows/integrations?id=${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'generation templates',
      make: (u, org) => created(call(u, 'POST', '/api/generate/templates', { name: 'Memo', template_prompt: '# Memo for {{document.name}}', output_format: 'markdown', ...(org ? { organization_id: org, is_shared: true } : {}) }), (b) => b.template.id),
      calls: [
        { m: 'GET', p: (id) => `/api/generate/templates/${id}`, kind: 'read' },
        { m: 'PUT', p: (id) => `/api/generate/templates/${id}`, body: () => ({ description: 'changed' }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/generate/templates/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'split configurations',
      make: (u, org) => created(call(u, 'POST', '/api/split/configs', { name: 'Every page', settings: { method: 'page' }, ...(org ? { organization_id: org } : {}) }), (b) => b.config.id),
      calls: [
        { m: 'GET', p: (id) => `/api/split/configs/${id}`, kind: 'read' },
        { m: 'PATCH', p: (id) => `/api/split/configs/${id}`, body: () => ({ description: 'changed' }), kind: 'write' },
        { m: 'DELETE', p: (id) => `/api/split/configs/${id}`, kind: 'delete' },
      ],
    },
    {
      name: 'edit projects',
      make: (u, org) => created(call(u, 'POST', '/api/edit/projects', { document_id: docFor(u, org), name: 'Form' }), (b) => b.project.id),
      calls: [
        { m: 'GET', p: (id) => `/api/edit/projects/${id}`, kind: 'read' },
        { m: 'GET', p: (id) => `/api/edit/projects/${id}/runs`, kind: 'read' },
        { m: 'POST', p: (id) => `/api/edit/projects/${id}/rerun`, body: () => ({}), kind: 'write' },
      ],
    },
  ];

  const expect = async (u: TestUser, c: Call, id: string, status: number | 'ok', what: string) => {
    const r = await call(u, c.m, c.p(id), c.body?.(id));
    if (status === 'ok') assert.ok(r.status < 400, `${what}: ${c.m} ${c.p(id)} → ${r.status} ${JSON.stringify(r.body)}`);
    else {
      assert.equal(r.status, status, `${what}: ${c.m} ${c.p(id)} → ${r.status} ${JSON.stringify(r.body)}`);
      errorBody(r.body, status === 404 ? 'NOT_FOUND' : 'FORBIDDEN');
    }
  };

  for (const k of kinds) {
    test(k.name, async () => {
      const inOrg = await k.make(member, orgA); // a member's resource in organization A
      const personal = await k.make(member, null); // the same member's personal resource
      const inB = await k.make(outsider, orgB); // the other tenant's
      const own = await k.make(member2, orgA); // another member's, which they manage themselves below
      // nobody outside sees or changes anything: 404 on every route, writes and deletes included
      for (const c of k.calls) {
        for (const id of [inOrg, personal]) {
          await expect(outsider, c, id, 404, 'other tenant');
          counts.crossTenant++;
        }
        for (const u of [owner, viewer]) {
          await expect(u, c, inB, 404, 'organization A on B');
          counts.crossTenant++;
        }
        for (const u of [admin, member2]) await expect(u, c, personal, 404, "someone's personal resource");
      }
      // viewers and other members read organization resources but change nothing
      for (const c of k.calls) {
        for (const u of [viewer, member2]) {
          if (c.kind === 'read') await expect(u, c, inOrg, 'ok', 'read in the organization');
          else {
            await expect(u, c, inOrg, 403, u === viewer ? 'viewer write' : "member write on another's");
            if (u === viewer) counts.viewerWrites++;
            else counts.memberWritesOnOthers++;
          }
        }
      }
      // admins manage all; members manage their own (deletes last, the first delete route only)
      for (const [u, id] of [[admin, inOrg], [member2, own], [member, personal]] as const) {
        for (const c of k.calls.filter((x) => x.kind === 'write')) {
          await expect(u, c, id, 'ok', 'allowed write');
          if (u === admin) counts.adminWrites++;
        }
        const del = k.calls.find((x) => x.kind === 'delete');
        if (del) {
          await expect(u, del, id, 'ok', 'allowed delete');
          const read = k.calls.find((x) => x.kind === 'read');
          if (read) await expect(u, read, id, 404, 'after delete');
        }
      }
    });
  }

  test('creating in an organization: viewers 403, strangers 404; keys stay their owner\'s', async () => {
    const creates: [string, (org: string) => unknown][] = [
      ['/api/knowledge-bases', (org) => ({ name: 'x', organization_id: org })],
      ['/api/extract/schemas', (org) => ({ name: 'x', fields: [{ name: 'a', type: 'string' }], organization_id: org })],
      ['/api/parse/presets', (org) => ({ name: 'x', scope: 'organization', organization_id: org })],
      ['/api/webhooks', (org) => ({ url: 'http://127.0.0.1:9/x', events: ['workflow.completed'], organization_id: org })],
      ['/api/workflows', (org) => ({ name: 'x', definition: { steps: [{ id: 'p', type: 'parse', config: {} }] }, organization_id: org })],
      ['/api/extract/batch', (org) => ({ document_ids: [sharedDoc], schema_id: 'invoice', organization_id: org })],
      ['/api/generate/templates', (org) => ({ name: 'x', template_prompt: 'x', output_format: 'html', organization_id: org, is_shared: true })],
      ['/api/split/configs', (org) => ({ name: 'x', organization_id: org })],
    ];
    for (const [p, body] of creates) {
      const v = await call(viewer, 'POST', p, body(orgA));
      assert.equal(v.status, 403, `viewer POST ${p}: ${JSON.stringify(v.body)}`);
      const o = await call(outsider, 'POST', p, body(orgA));
      assert.equal(o.status, 404, `stranger POST ${p}: ${JSON.stringify(o.body)}`);
    }
    const v = await s.json('/api/upload', { method: 'POST', body: uploadForm('x.pdf', pdf, { organization_id: orgA }), key: viewer.key });
    assert.equal(v.status, 403);
    // API keys are personal: nobody else, not even an owner of the same organization, sees or changes them
    const keyId = (await call(member, 'GET', '/api/keys')).body.data[0].id;
    for (const u of [owner, admin, viewer, outsider]) {
      for (const [m, p] of [['GET', `/api/keys/${keyId}`], ['POST', `/api/keys/${keyId}/rotate`], ['DELETE', `/api/keys/${keyId}`]]) {
        const r = await call(u, m!, p!, m === 'POST' ? {} : undefined);
        assert.equal(r.status, 404, `${m} ${p}`);
      }
    }
    assert.equal((await call(member, 'GET', `/api/keys/${keyId}`)).status, 200);
    // the counts of this run, for the closing note
    console.log(`isolation: ${counts.crossTenant} cross-tenant calls all 404, ${counts.viewerWrites} viewer writes all 403, ${counts.memberWritesOnOthers} member writes on others' all 403, ${counts.adminWrites} admin writes allowed`);
  });
});
