// @services: organizations, memberships and roles (store queries)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { runRetention } from '@quire/engine';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody, filesUnder } from '../helpers/assertions.js';
import { PASSWORD, addAndAccept, signUpUser, withSession } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';
import { makePdf } from '../helpers/fixtures.js';

describe('organizations over HTTP: CRUD, members and roles, leave, settings, allowed_domains, require_2fa, delete, retention', () => {
  let s: TestServer;
  let n = 0;
  const call = (u: TestUser, p: string, init: { method?: string; json?: unknown; body?: any } = {}) => s.json(p, { ...init, key: u.key });
  const user = (prefix = 'user', domain = 'example.com') => signUpUser(s, `${prefix}${++n}@${domain}`, `${prefix} ${n}`);
  const newOrg = async (u: TestUser, slug: string, settings?: unknown) => {
    const r = await call(u, '/api/organizations', { method: 'POST', json: { name: `Org ${slug}`, slug, ...(settings ? { settings } : {}) } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.organization;
  };
  const addMember = (owner: TestUser, orgId: string, u: TestUser, role: string) => addAndAccept(s, owner, orgId, u, role);
  const audit = (orgId: string) => s.runtime.store.repo('audit_log').find({ organization_id: orgId }, { order: { created_at: 'ASC' } });

  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('create with a unique URL-friendly slug, list with the caller role, get, rename; strangers get 404', async () => {
    const [ann, bob] = [await user('ann'), await user('bob')];
    const org = await newOrg(ann, 'acme-legal');
    assert.equal(org.slug, 'acme-legal');
    assert.equal(org.role, 'owner');
    assert.deepEqual(org.settings, { default_knowledge_base_id: null, billing_email: null, allowed_domains: [], require_2fa: false, data_retention_days: null, hipaa_enabled: false });

    const dup = await call(bob, '/api/organizations', { method: 'POST', json: { name: 'Other', slug: 'acme-legal' } });
    assert.equal(dup.status, 409);
    errorBody(dup.body, 'CONFLICT');
    for (const slug of ['Acme', 'a', '-acme', 'acme-', 'ac--me', 'acme legal', 'acme/legal', 'x'.repeat(65)]) {
      const r = await call(bob, '/api/organizations', { method: 'POST', json: { name: 'Bad', slug } });
      assert.equal(r.status, 400, slug);
      errorBody(r.body, 'VALIDATION_ERROR');
    }
    errorBody((await call(bob, '/api/organizations', { method: 'POST', json: { slug: 'no-name' } })).body, 'VALIDATION_ERROR');

    const list = await call(ann, '/api/organizations');
    assert.deepEqual(list.body.organizations.map((o: any) => [o.slug, o.role]), [['acme-legal', 'owner']]);
    assert.deepEqual((await call(bob, '/api/organizations')).body.organizations, []);

    assert.equal((await call(ann, `/api/organizations/${org.id}`)).body.organization.name, 'Org acme-legal');
    for (const [m, p] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['GET', '/members'], ['GET', '/settings'], ['PATCH', '/settings'], ['POST', '/leave']] as const) {
      const r = await call(bob, `/api/organizations/${org.id}${p}`, { method: m, ...(m === 'PATCH' ? { json: p ? { hipaa_enabled: true } : { name: 'x' } } : {}) });
      assert.equal(r.status, 404, `${m} ${p} by a stranger`);
      errorBody(r.body, 'NOT_FOUND');
    }
    const renamed = await call(ann, `/api/organizations/${org.id}`, { method: 'PATCH', json: { name: 'Acme Legal LLP' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.organization.name, 'Acme Legal LLP');
    assert.ok((await audit(org.id)).some((e) => e.action === 'organization.updated'));
  });

  test('members: add by id or email, list with email and name, change roles, remove; admins below owner; at least one owner; leave after transferring ownership', async () => {
    const [own, adm, mem, view, other] = [await user('own'), await user('adm'), await user('mem'), await user('view'), await user('other')];
    const org = await newOrg(own, 'roles-co');
    await addMember(own, org.id, adm, 'admin');
    await addMember(own, org.id, mem, 'member');
    const byEmail = await addAndAccept(s, adm, org.id, view, 'viewer', 'email');
    assert.equal(byEmail.user_id, view.id);

    const members = (await call(view, `/api/organizations/${org.id}/members`)).body.members;
    assert.deepEqual(members.map((m: any) => [m.email, m.role]), [[own.email, 'owner'], [adm.email, 'admin'], [mem.email, 'member'], [view.email, 'viewer']]);
    assert.ok(members.every((m: any) => m.id && m.user_id && m.name && m.created_at));
    assert.deepEqual((await call(mem, '/api/organizations')).body.organizations.map((o: any) => o.role), ['member']);

    // who may manage members
    assert.equal((await call(mem, `/api/organizations/${org.id}/members`, { method: 'POST', json: { user_id: other.id, role: 'viewer' } })).status, 403);
    assert.equal((await call(view, `/api/organizations/${org.id}/members/${mem.id}`, { method: 'PATCH', json: { role: 'viewer' } })).status, 403);
    assert.equal((await call(adm, `/api/organizations/${org.id}/members`, { method: 'POST', json: { user_id: other.id, role: 'owner' } })).status, 403, 'only owners grant owner');
    assert.equal((await call(adm, `/api/organizations/${org.id}/members/${own.id}`, { method: 'PATCH', json: { role: 'member' } })).status, 403, 'admins cannot demote owners');
    assert.equal((await call(adm, `/api/organizations/${org.id}/members/${own.id}`, { method: 'DELETE' })).status, 403, 'admins cannot remove owners');
    // an unknown user is invited like any other (the answer does not tell whether the account exists)
    assert.equal((await call(adm, `/api/organizations/${org.id}/members`, { method: 'POST', json: { user_id: '00000000-0000-4000-8000-000000000000', role: 'member' } })).status, 201);
    errorBody((await call(adm, `/api/organizations/${org.id}/members`, { method: 'POST', json: { user_id: mem.id, role: 'viewer' } })).body, 'CONFLICT');
    errorBody((await call(adm, `/api/organizations/${org.id}/members`, { method: 'POST', json: { user_id: other.id, role: 'boss' } })).body, 'VALIDATION_ERROR');

    // admin changes roles below owner and removes members
    const changed = await call(adm, `/api/organizations/${org.id}/members/${mem.id}`, { method: 'PATCH', json: { role: 'viewer' } });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.member.role, 'viewer');
    await addMember(adm, org.id, other, 'member');
    assert.equal((await call(adm, `/api/organizations/${org.id}/members/${other.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await call(other, `/api/organizations/${org.id}`)).status, 404, 'a removed member no longer sees the organization');
    assert.equal((await call(adm, `/api/organizations/${org.id}/members/${other.id}`, { method: 'DELETE' })).status, 404);

    // the only owner can neither leave, step down nor be removed
    for (const r of [
      await call(own, `/api/organizations/${org.id}/leave`, { method: 'POST' }),
      await call(own, `/api/organizations/${org.id}/members/${own.id}`, { method: 'PATCH', json: { role: 'admin' } }),
      await call(own, `/api/organizations/${org.id}/members/${own.id}`, { method: 'DELETE' }),
    ]) {
      assert.equal(r.status, 409, JSON.stringify(r.body));
      errorBody(r.body, 'CONFLICT');
      assert.match(r.body.error.message, /owner/);
    }
    // transfer: the owner makes the admin owner, then leaves
    assert.equal((await call(own, `/api/organizations/${org.id}/members/${adm.id}`, { method: 'PATCH', json: { role: 'owner' } })).body.member.role, 'owner');
    const left = await call(own, `/api/organizations/${org.id}/leave`, { method: 'POST' });
    assert.equal(left.status, 200, JSON.stringify(left.body));
    assert.equal((await call(own, `/api/organizations/${org.id}`)).status, 404);
    // transfer-ownership in one step: the new owner hands over to the viewer and becomes admin
    const t = await call(adm, `/api/organizations/${org.id}/transfer-ownership`, { method: 'POST', json: { user_id: view.id } });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.deepEqual(t.body.members.map((m: any) => [m.user_id, m.role]).sort(), [[adm.id, 'admin'], [mem.id, 'viewer'], [view.id, 'owner']].sort());
    assert.equal((await call(adm, `/api/organizations/${org.id}/transfer-ownership`, { method: 'POST', json: { user_id: mem.id } })).status, 403, 'no longer owner');
    // a viewer may leave
    assert.equal((await call(mem, `/api/organizations/${org.id}/leave`, { method: 'POST' })).status, 200);

    const actions = (await audit(org.id)).map((e) => e.action);
    for (const a of ['organization.created', 'organization.member.added', 'organization.member.role_changed', 'organization.member.removed', 'organization.member.left', 'organization.ownership_transferred']) assert.ok(actions.includes(a), a);
  });

  test('settings: the six of §4.14, validated; owners and admins change them; the default knowledge base is used where one is omitted', async () => {
    const [own, adm, mem, view] = [await user('sown'), await user('sadm'), await user('smem'), await user('sview')];
    const org = await newOrg(own, 'settings-co', { billing_email: 'Billing@Settings.example', hipaa_enabled: true });
    assert.equal(org.settings.billing_email, 'billing@settings.example');
    assert.equal(org.settings.hipaa_enabled, true);
    await addMember(own, org.id, adm, 'admin');
    await addMember(own, org.id, mem, 'member');
    await addMember(own, org.id, view, 'viewer');
    const path = `/api/organizations/${org.id}/settings`;
    assert.deepEqual((await call(view, path)).body.settings, { default_knowledge_base_id: null, billing_email: 'billing@settings.example', allowed_domains: [], require_2fa: false, data_retention_days: null, hipaa_enabled: true });

    for (const bad of [{ require_2fa: 'yes' }, { data_retention_days: 0 }, { data_retention_days: 1.5 }, { allowed_domains: ['not a domain'] }, { allowed_domains: 'example.com' }, { billing_email: 'nope' }, { hipaa_enabled: 1 }, { default_knowledge_base_id: 'kb-1' }, { colour: 'red' }, {}]) {
      const r = await call(adm, path, { method: 'PATCH', json: bad });
      assert.equal(r.status, 400, JSON.stringify(bad));
      errorBody(r.body, 'VALIDATION_ERROR');
    }
    for (const u of [mem, view]) assert.equal((await call(u, path, { method: 'PATCH', json: { hipaa_enabled: false } })).status, 403);
    assert.equal((await call(mem, `/api/organizations/${org.id}`, { method: 'PATCH', json: { name: 'Mine now' } })).status, 403);

    const changed = await call(adm, path, { method: 'PATCH', json: { data_retention_days: 30, allowed_domains: ['Example.com'], hipaa_enabled: false } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.settings, { default_knowledge_base_id: null, billing_email: 'billing@settings.example', allowed_domains: ['example.com'], require_2fa: false, data_retention_days: 30, hipaa_enabled: false });
    const entry = (await audit(org.id)).find((e) => e.action === 'organization.settings_changed')!;
    assert.deepEqual((entry.details as any).data_retention_days, { from: null, to: 30 });
    assert.equal(entry.user_id, adm.id);

    // the default must be a knowledge base of the organization
    const personal = (await call(adm, '/api/knowledge-bases', { method: 'POST', json: { name: 'Personal' } })).body.knowledge_base;
    errorBody((await call(adm, path, { method: 'PATCH', json: { default_knowledge_base_id: personal.id } })).body, 'VALIDATION_ERROR');
    const kb = (await call(adm, '/api/knowledge-bases', { method: 'POST', json: { name: 'Handbook', organization_id: org.id } })).body.knowledge_base;
    assert.equal((await call(adm, path, { method: 'PATCH', json: { default_knowledge_base_id: kb.id } })).body.settings.default_knowledge_base_id, kb.id);

    // an upload into the organization naming no knowledge base joins the default one (the admin may add to it)
    const pdf = await makePdf([{ heading: 'Handbook', lines: ['Holidays are booked through the portal.', 'The office opens at eight.'] }]);
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('handbook.pdf', pdf, { organization_id: org.id }), key: adm.key });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, adm.key);
    const inKb = await (async () => {
      for (let i = 0; i < 100; i++) {
        const d = (await call(mem, `/api/knowledge-bases/${kb.id}/documents`)).body.documents ?? [];
        if (d.length) return d;
        await new Promise((r) => setTimeout(r, 100));
      }
      return [];
    })();
    assert.deepEqual(inKb.map((d: any) => d.id), [up.body.document.id]);

    // chat without knowledge_base_id: the default of the organization the request names (organization_id or X-Organization-Id)
    for (const [body, headers] of [[{ message: 'When does the office open?', organization_id: org.id }, {}], [{ message: 'How are holidays booked?' }, { 'x-organization-id': org.id }]] as const) {
      const r = await s.json('/api/chat', { method: 'POST', json: body, headers, key: mem.key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.knowledge_base_id, kb.id);
    }
    const embed = await call(mem, '/api/v1/embed', { method: 'POST', json: { action: 'chat', chat: { message: 'When does the office open?', organization_id: org.id } } });
    assert.equal(embed.status, 200, JSON.stringify(embed.body));
    // naming no organization is a personal request: the caller's only organization is not used for it
    errorBody((await call(mem, '/api/chat', { method: 'POST', json: { message: 'How are holidays booked?' } })).body, 'VALIDATION_ERROR');
    errorBody((await call(mem, '/api/v1/embed', { method: 'POST', json: { action: 'chat', chat: { message: 'When does the office open?' } } })).body, 'VALIDATION_ERROR');
    // without any default: 400 naming the field
    const stranger = await user('nokb');
    const none = await call(stranger, '/api/chat', { method: 'POST', json: { message: 'Anything?' } });
    assert.equal(none.status, 400);
    errorBody(none.body, 'VALIDATION_ERROR');
    assert.match(none.body.error.message, /knowledge_base_id/);
    assert.equal((await call(stranger, '/api/chat', { method: 'POST', json: { message: 'Anything?', organization_id: org.id } })).status, 404);
    // a default knowledge base deleted since counts as none
    assert.equal((await call(adm, `/api/knowledge-bases/${kb.id}`, { method: 'DELETE' })).status, 200);
    errorBody((await call(mem, '/api/chat', { method: 'POST', json: { message: 'Anything?', organization_id: org.id } })).body, 'VALIDATION_ERROR');
  });

  test('allowed_domains limits who can be added', async () => {
    const own = await user('down', 'acme.test');
    const org = await newOrg(own, 'domains-co', { allowed_domains: ['acme.test'] });
    const inside = await user('in', 'acme.test');
    const outside = await user('out', 'elsewhere.test');
    await addMember(own, org.id, inside, 'member');
    // by email the domain is known at once; by user id it is checked when the invitee accepts
    const byEmail = await call(own, `/api/organizations/${org.id}/members`, { method: 'POST', json: { email: outside.email, role: 'viewer' } });
    const byId = await call(own, `/api/organizations/${org.id}/members`, { method: 'POST', json: { user_id: outside.id, role: 'member' } });
    assert.equal(byId.status, 201, JSON.stringify(byId.body));
    const accepted = await call(outside, `/api/user/invitations/${byId.body.invitation.id}/accept`, { method: 'POST' });
    for (const r of [byEmail, accepted]) {
      assert.equal(r.status, 403);
      errorBody(r.body, 'FORBIDDEN');
      assert.match(r.body.error.message, /acme\.test/);
    }
    assert.equal((await call(outside, `/api/organizations/${org.id}`)).status, 404);
    // widened, the same user can be added
    await call(own, `/api/organizations/${org.id}/settings`, { method: 'PATCH', json: { allowed_domains: ['acme.test', 'elsewhere.test'] } });
    await addMember(own, org.id, outside, 'viewer');
  });

  test('require_2fa: members without two-factor authentication are refused (403) on the organization and its resources until they turn it on', async () => {
    const [own, mem] = [await user('tfown'), await user('tfmem')];
    const org = await newOrg(own, 'strict-co');
    await addMember(own, org.id, mem, 'member');
    const kb = (await call(own, '/api/knowledge-bases', { method: 'POST', json: { name: 'Secrets', organization_id: org.id } })).body.knowledge_base;
    const memKb = (await call(mem, '/api/knowledge-bases', { method: 'POST', json: { name: 'Mine in org', organization_id: org.id } })).body.knowledge_base;
    assert.equal((await call(mem, `/api/knowledge-bases/${kb.id}`)).status, 200);

    // turning it on needs 2FA of one's own (else the owner would lock themselves out)
    errorBody((await call(own, `/api/organizations/${org.id}/settings`, { method: 'PATCH', json: { require_2fa: true } })).body, 'CONFLICT');
    const enrol = await withSession(s, own, '/api/user/2fa/enroll', { method: 'POST' });
    assert.equal(enrol.status, 201, JSON.stringify(enrol.body));
    const app = new TOTP({ secret: Secret.fromBase32(enrol.body.secret), algorithm: 'SHA1', digits: 6, period: 30 });
    assert.equal((await withSession(s, own, '/api/user/2fa/verify', { method: 'POST', json: { code: app.generate() } })).status, 200);
    assert.equal((await call(own, `/api/organizations/${org.id}/settings`, { method: 'PATCH', json: { require_2fa: true } })).body.settings.require_2fa, true);

    // the member without 2FA: 403 with the reason, on reads, writes, creation, lists and the organization itself
    const checks = [
      await call(mem, `/api/knowledge-bases/${kb.id}`),
      await call(mem, `/api/knowledge-bases/${memKb.id}`),
      await call(mem, `/api/knowledge-bases/${memKb.id}`, { method: 'PATCH', json: { name: 'renamed' } }),
      await call(mem, '/api/knowledge-bases', { method: 'POST', json: { name: 'New', organization_id: org.id } }),
      await call(mem, `/api/organizations/${org.id}`),
      await call(mem, `/api/organizations/${org.id}/members`),
      await withSession(s, mem, `/api/knowledge-bases/${kb.id}`),
    ];
    for (const r of checks) {
      assert.equal(r.status, 403, JSON.stringify(r.body));
      errorBody(r.body, 'FORBIDDEN');
      assert.match(r.body.error.message, /two-factor/);
    }
    const listed = (await call(mem, '/api/knowledge-bases')).body.knowledge_bases.map((k: any) => k.id);
    assert.ok(!listed.includes(kb.id) && !listed.includes(memKb.id), 'locked resources are not listed');
    assert.equal((await call(mem, '/api/organizations')).body.organizations[0].two_factor_required, true);
    // the owner with 2FA keeps access
    assert.equal((await call(own, `/api/knowledge-bases/${memKb.id}`)).status, 200);

    // the member turns 2FA on: access is back, and the session login now asks for the code
    const e2 = await withSession(s, mem, '/api/user/2fa/enroll', { method: 'POST' });
    const app2 = new TOTP({ secret: Secret.fromBase32(e2.body.secret), algorithm: 'SHA1', digits: 6, period: 30 });
    assert.equal((await withSession(s, mem, '/api/user/2fa/verify', { method: 'POST', json: { code: app2.generate() } })).status, 200);
    assert.equal((await call(mem, `/api/knowledge-bases/${kb.id}`)).status, 200);
    assert.equal((await call(mem, `/api/organizations/${org.id}`)).body.organization.role, 'member');
    const login = await s.json('/api/auth/login', { method: 'POST', json: { email: mem.email, password: PASSWORD }, key: null });
    assert.equal(login.status, 401);
    assert.equal(login.body.error.details.totp_required, true);
  });

  test('delete: owner only; every resource of the organization goes (files, chunks, vectors, jobs, rows); others are untouched', async () => {
    const [own, adm, outsider] = [await user('down'), await user('dadm'), await user('dout')];
    const org = await newOrg(own, 'doomed-co');
    await addMember(own, org.id, adm, 'admin');
    const vs = s.runtime.registry.tryGet('vector-store')!;
    const space = s.runtime.registry.get('embedder').space;

    const pdf = await makePdf([{ heading: 'Quarterly report', lines: ['Revenue grew by twelve percent.', 'Costs were flat.'] }]);
    const kept = await s.json('/api/upload', { method: 'POST', body: uploadForm('kept.pdf', pdf), key: outsider.key });
    await waitForStatus(s, `/v1/documents/${kept.body.document.id}`, 120_000, outsider.key);
    const vectorsBefore = await vs.count(space);
    const docs: string[] = [];
    for (const u of [own, adm]) {
      const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('report.pdf', pdf, { organization_id: org.id }), key: u.key });
      assert.equal(up.status, 200, JSON.stringify(up.body));
      docs.push(up.body.document.id);
    }
    for (const d of docs) assert.equal((await waitForStatus(s, `/v1/documents/${d}`, 120_000, own.key)).status, 'completed');
    assert.ok((await vs.count(space)) > vectorsBefore, 'the documents were indexed');
    const kb = (await call(adm, '/api/knowledge-bases', { method: 'POST', json: { name: 'Reports', organization_id: org.id } })).body.knowledge_base;
    await call(adm, `/api/knowledge-bases/${kb.id}/documents`, { method: 'POST', json: { document_id: docs[0] } });
    const chat = await call(adm, '/api/chat', { method: 'POST', json: { message: 'How much did revenue grow?', knowledge_base_id: kb.id } });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const schema = (await call(adm, '/api/extract/schemas', { method: 'POST', json: { name: 'Report', fields: [{ name: 'revenue', type: 'string' }], organization_id: org.id, is_shared: true } })).body;
    const preset = (await call(adm, '/api/parse/presets', { method: 'POST', json: { name: 'Org preset', scope: 'organization', organization_id: org.id } })).body;
    const hook = (await call(adm, '/api/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/quire', events: ['workflow.completed'], organization_id: org.id } })).body;
    const wf = (await call(adm, '/api/workflows', { method: 'POST', json: { name: 'Org flow', organization_id: org.id, definition: { steps: [{ id: 'parse', type: 'parse', config: {} }] } } })).body.workflow;
    assert.ok(schema && preset && hook.webhook_id && wf.id, JSON.stringify({ schema, preset, hook, wf }));
    const files = filesUnder(s.dataDir).filter((f) => docs.some((d) => f.includes(d)));
    assert.ok(files.length > 0, 'the documents have files in the data dir');

    for (const u of [adm]) {
      const r = await call(u, `/api/organizations/${org.id}`, { method: 'DELETE' });
      assert.equal(r.status, 403);
      errorBody(r.body, 'FORBIDDEN');
    }
    const del = await call(own, `/api/organizations/${org.id}`, { method: 'DELETE' });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal(del.body.deleted.documents, 2);

    assert.equal((await call(own, `/api/organizations/${org.id}`)).status, 404);
    assert.deepEqual((await call(adm, '/api/organizations')).body.organizations, []);
    for (const p of [...docs.map((d) => `/v1/documents/${d}`), `/api/knowledge-bases/${kb.id}`, `/api/chat/sessions/${chat.body.session_id}`, `/api/webhooks/${hook.webhook_id}`, `/api/workflows/${wf.id}`]) {
      assert.equal((await call(adm, p)).status, 404, p);
    }
    // every table: no row of the organization is left, nor a chunk of its documents, nor a file, nor a vector
    const store = s.runtime.store;
    for (const [t, cols] of Object.entries(store.tables!())) {
      if (cols.includes('organization_id') && t !== 'audit_log') assert.equal(await store.repo(t as any).count({ organization_id: org.id }), 0, t);
    }
    assert.equal(await store.repo('chunks').count({ document_id: docs }), 0);
    assert.equal(await store.repo('jobs').count({ document_id: docs }), 0);
    assert.deepEqual(filesUnder(s.dataDir).filter((f) => docs.some((d) => f.includes(d))), []);
    assert.equal(await vs.count(space), vectorsBefore, "the organization's vectors are gone, the outsider's stay");
    assert.equal((await call(outsider, `/v1/documents/${kept.body.document.id}`)).status, 200);
    assert.ok((await audit(org.id)).some((e) => e.action === 'organization.deleted' && e.user_id === own.id), 'the deletion is in the audit log');
    assert.ok(fs.existsSync(path.join(s.dataDir)));
  });

  test('retention: organization data past data_retention_days goes (files and vectors too); chat and analytics after 1 year; audit after 3 years', async () => {
    const [own, solo] = [await user('rown'), await user('rsolo')];
    const org = await newOrg(own, 'retention-co', { data_retention_days: 7 });
    const pdf = await makePdf([{ heading: 'Minutes', lines: ['The board approved the budget.'] }]);
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('minutes.pdf', pdf, { organization_id: org.id }), key: own.key });
    await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, own.key);
    const mine = await s.json('/api/upload', { method: 'POST', body: uploadForm('mine.pdf', pdf), key: solo.key });
    await waitForStatus(s, `/v1/documents/${mine.body.document.id}`, 120_000, solo.key);
    const kb = (await call(solo, '/api/knowledge-bases', { method: 'POST', json: { name: 'Solo' } })).body.knowledge_base;
    const chat = await call(solo, '/api/chat', { method: 'POST', json: { message: 'What was approved?', knowledge_base_id: kb.id } });
    assert.equal(chat.status, 200);
    const store = s.runtime.store;
    const day = 86_400_000;

    // 6 days on: nothing has expired
    let r = await runRetention(s.runtime, new Date(Date.now() + 6 * day));
    assert.deepEqual(r.organizations, {});
    assert.equal((await call(own, `/v1/documents/${up.body.document.id}`)).status, 200);

    // 8 days on: the organization's document is gone with its file and chunks; the personal one stays
    r = await runRetention(s.runtime, new Date(Date.now() + 8 * day));
    assert.equal(r.organizations[org.id]?.documents, 1, JSON.stringify(r));
    assert.equal((await call(own, `/v1/documents/${up.body.document.id}`)).status, 404);
    assert.equal(await store.repo('chunks').count({ document_id: up.body.document.id }), 0);
    assert.deepEqual(filesUnder(s.dataDir).filter((f) => f.includes(up.body.document.id)), []);
    assert.equal((await call(solo, `/v1/documents/${mine.body.document.id}`)).status, 200, 'documents are kept until deleted outside such organizations');
    assert.equal((await call(own, `/api/organizations/${org.id}`)).status, 200, 'the organization and its members stay');
    assert.equal(await store.repo('chat_messages').count({ session_id: chat.body.session_id }), 2);

    // a year and a day on: chat history and usage rows go; the audit log stays
    const usageBefore = await store.repo('usage').count({ user_id: solo.id });
    assert.ok(usageBefore > 0);
    r = await runRetention(s.runtime, new Date(Date.now() + 367 * day));
    assert.ok(r.chat_messages >= 2 && r.chat_sessions >= 1 && r.usage >= usageBefore, JSON.stringify(r));
    assert.equal((await call(solo, `/api/chat/sessions/${chat.body.session_id}`)).status, 404);
    assert.equal(await store.repo('usage').count({ user_id: solo.id }), 0);
    assert.equal((await call(solo, `/v1/documents/${mine.body.document.id}`)).status, 200);
    assert.ok((await audit(org.id)).length > 0);
    // three years and a day on: the audit entries go too
    r = await runRetention(s.runtime, new Date(Date.now() + (3 * 366 + 1) * day));
    assert.ok(r.audit_log > 0);
    assert.equal((await audit(org.id)).length, 0);
  });

  test('API key changes are in the audit log', async () => {
    const u = await user('keys');
    const made = await call(u, '/api/keys', { method: 'POST', json: { name: 'ci' } });
    const rotated = await call(u, `/api/keys/${made.body.id}/rotate`, { method: 'POST', json: {} });
    assert.equal(rotated.status, 201);
    assert.equal((await call(u, `/api/keys/${rotated.body.id}`, { method: 'DELETE' })).status, 200);
    const entries = await s.runtime.store.repo('audit_log').find({ user_id: u.id, target_type: 'api_key' }, { order: { created_at: 'ASC' } });
    const actions = entries.map((e) => [e.action, e.target_id]);
    assert.deepEqual(actions.filter(([, id]) => id === made.body.id || id === rotated.body.id), [
      ['api_key.created', made.body.id],
      ['api_key.rotated', rotated.body.id],
      ['api_key.revoked', rotated.body.id],
    ]);
    assert.ok(!JSON.stringify(entries).includes(made.body.key), 'no key in the log');
  });
});
