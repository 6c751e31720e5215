// @services: membership rules under concurrent changes (last owner), erasure across tables
/**
 * Organizations that hold under attack (issue 27), over HTTP:
 * - adding a member is an invitation the invitee accepts: no consent, no access; the answer does not tell
 *   whether an account has the email or id;
 * - a member's personal work never defaults into their organization (edit batches, configs, vocabulary,
 *   chat), and account erasure removes what was derived from the user's documents wherever it sits;
 * - rights come from current membership only: a removed member reads, lists and changes nothing of the
 *   organization, their own creations included;
 * - the last-owner rule holds when owners leave or demote each other at the same moment (run on MariaDB
 *   by CI's second pass: this file starts the test server);
 * - viewers cannot run edit detect, run or verify.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MYSQL_URL, startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import { startSmtpStub } from '../helpers/smtp-stub.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';
import { addAndAccept, signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';
import { makePdf } from '../helpers/fixtures.js';
import { formPdf } from './edit-fixtures.js';

describe('organizations under attack: consent to join, personal by default, current membership only, last owner under races, viewers', () => {
  let s: TestServer;
  let n = 0;
  const call = (u: TestUser, p: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) => s.json(p, { ...init, key: u.key });
  const user = async (prefix: string) => {
    const u = await signUpUser(s, `${prefix}${++n}@sec.example`, `${prefix} ${n}`);
    // the race test makes far more than the free plan's requests a minute
    await s.runtime.store.repo('users').update(u.id, { plan: 'premium' });
    return u;
  };
  const newOrg = async (u: TestUser, slug: string) => {
    const r = await call(u, '/api/organizations', { method: 'POST', json: { name: `Org ${slug}`, slug } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.organization.id as string;
  };
  const upload = async (u: TestUser, bytes: Uint8Array, org: string | null, name = 'form.pdf') => {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm(name, bytes, org ? { organization_id: org } : {}), key: u.key });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, u.key);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    return up.body.document.id as string;
  };

  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('adding a member makes an invitation: the same answer for known and unknown people, no access until accepted; decline and revoke', async () => {
    const [own, victim, other] = [await user('own'), await user('victim'), await user('other')];
    const org = await newOrg(own, 'inviting-co');
    const kb = (await call(own, '/api/knowledge-bases', { method: 'POST', json: { name: 'Trap', organization_id: org } })).body.knowledge_base.id;
    assert.equal((await call(own, `/api/organizations/${org}/settings`, { method: 'PATCH', json: { default_knowledge_base_id: kb } })).status, 200);

    const invite = (json: unknown) => call(own, `/api/organizations/${org}/members`, { method: 'POST', json });
    const known = await invite({ email: victim.email, role: 'member' });
    const unknown = await invite({ email: 'nobody-here@sec.example', role: 'member' });
    const knownId = await invite({ user_id: other.id, role: 'viewer' });
    const unknownId = await invite({ user_id: '00000000-0000-4000-8000-000000000000', role: 'viewer' });
    for (const r of [known, unknown, knownId, unknownId]) {
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.invitation.status, 'pending');
    }
    // the same fields whether or not the account exists, and nothing of the account (no name)
    const shape = (b: any) => Object.keys(b.invitation).sort().join();
    assert.equal(shape(known.body), shape(unknown.body));
    assert.equal(shape(knownId.body), shape(unknownId.body));
    assert.equal(known.body.invitation.user_id, null, 'an email invitation does not reveal the account id');
    assert.ok(!JSON.stringify(known.body).includes(victim.id));

    // invited is not a member: no access, not listed
    assert.equal((await call(victim, `/api/organizations/${org}`)).status, 404);
    assert.equal((await call(victim, `/api/knowledge-bases/${kb}`)).status, 404);
    assert.deepEqual((await call(victim, '/api/organizations')).body.organizations, []);
    assert.deepEqual((await call(own, `/api/organizations/${org}/members`)).body.members.map((m: any) => m.user_id), [own.id]);
    const pending = (await call(own, `/api/organizations/${org}/invitations`)).body.invitations;
    assert.equal(pending.length, 4);

    // the invitee sees their invitation (with the organization's name); nobody else can act on it
    const mine = (await call(victim, '/api/user/invitations')).body.invitations;
    assert.deepEqual(mine.map((i: any) => [i.id, i.organization.name, i.role]), [[known.body.invitation.id, 'Org inviting-co', 'member']]);
    assert.equal((await call(other, `/api/user/invitations/${known.body.invitation.id}/accept`, { method: 'POST' })).status, 404);

    // the victim, invited but not joined, chats personally: the organization's default knowledge base is not used
    const chat = await call(victim, '/api/chat', { method: 'POST', json: { message: 'My salary question' } });
    assert.equal(chat.status, 400, JSON.stringify(chat.body));
    errorBody(chat.body, 'VALIDATION_ERROR');

    // decline: closed, still no member
    assert.equal((await call(victim, `/api/user/invitations/${known.body.invitation.id}/decline`, { method: 'POST' })).status, 200);
    assert.equal((await call(victim, `/api/user/invitations/${known.body.invitation.id}/accept`, { method: 'POST' })).status, 409);
    assert.equal((await call(victim, `/api/organizations/${org}`)).status, 404);
    // revoke: the invitee can no longer accept; revoking again is fine
    const revoke = () => call(own, `/api/organizations/${org}/invitations/${knownId.body.invitation.id}`, { method: 'DELETE' });
    assert.equal((await revoke()).status, 200);
    assert.equal((await revoke()).status, 200);
    assert.deepEqual((await call(other, '/api/user/invitations')).body.invitations, []);
    assert.equal((await call(other, `/api/user/invitations/${knownId.body.invitation.id}/accept`, { method: 'POST' })).status, 409);
    assert.equal((await call(other, `/api/organizations/${org}`)).status, 404);
    // members cannot see or revoke invitations
    const mem = await user('mem');
    await addAndAccept(s, own, org, mem, 'member');
    assert.equal((await call(mem, `/api/organizations/${org}/invitations`)).status, 403);
    assert.equal((await call(mem, `/api/organizations/${org}/invitations/${unknown.body.invitation.id}`, { method: 'DELETE' })).status, 403);
    // accepted: a member with the invitation's role
    assert.deepEqual((await call(mem, '/api/organizations')).body.organizations.map((o: any) => [o.id, o.role]), [[org, 'member']]);
  });

  test("a member's personal work stays personal: edit batches, configs and vocabulary need the organization named", async () => {
    const [own, mem] = [await user('pown'), await user('pmem')];
    const org = await newOrg(own, 'personal-co');
    await addAndAccept(s, own, org, mem, 'member');
    const doc = await upload(mem, await formPdf(), null, 'personal-form.pdf');

    const batch = await call(mem, '/api/edit/batch', { method: 'POST', json: { document_ids: [doc], run_immediately: false } });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    assert.equal((await call(own, `/api/edit/batch/${batch.body.batch.id}`)).status, 404, "the owner does not see the member's personal batch");
    assert.equal((await s.runtime.store.repo('edit_batches').get(batch.body.batch.id))!.organization_id, null);

    for (const [p, json] of [['/api/edit/configs', { name: 'Mine' }], ['/api/edit/vocabulary', { canonical_term: 'City', aliases: ['hometown'] }]] as const) {
      const r = await call(mem, p, { method: 'POST', json });
      assert.equal(r.status, 400, `${p} without an organization: ${JSON.stringify(r.body)}`);
      errorBody(r.body, 'VALIDATION_ERROR');
      const named = await call(mem, p, { method: 'POST', json: { ...json, organization_id: org } });
      assert.equal(named.status, 201, JSON.stringify(named.body));
      const byHeader = await call(mem, p, { method: 'POST', json, headers: { 'x-organization-id': org } });
      assert.equal(byHeader.status, 201, JSON.stringify(byHeader.body));
    }
    assert.deepEqual((await call(mem, '/api/edit/vocabulary')).body.entries, [], 'no organization named: no organization vocabulary');
    assert.equal((await call(mem, `/api/edit/vocabulary?organization_id=${org}`)).body.entries.length, 2);
  });

  test("erasing an account removes what was derived from the user's documents, in an organization too", async () => {
    const [own, mem] = [await user('eown'), await user('emem')];
    const org = await newOrg(own, 'erase-co');
    await addAndAccept(s, own, org, mem, 'member');
    const doc = await upload(mem, await formPdf(), null, 'tax-form.pdf');
    // a batch the member ran in the organization over their personal form, and a fill of it
    const batch = await call(mem, '/api/edit/batch', { method: 'POST', json: { document_ids: [doc], organization_id: org, mappings: [] } });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const batchId = batch.body.batch.id;
    let view: any;
    for (let i = 0; i < 600; i++) {
      view = (await call(mem, `/api/edit/batch/${batchId}`)).body;
      if (view.status === 'completed' || view.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(view.status, 'completed', JSON.stringify(view));
    const run = await call(mem, '/api/edit/run', { method: 'POST', json: { document_id: doc, mappings: [] } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    // a document generated into the organization from the personal form
    const gen = await call(mem, '/api/generate/run', { method: 'POST', json: { template_prompt: '# Copy of my form {{name}}', output_format: 'markdown', source_document_ids: [doc], organization_id: org } });
    assert.equal(gen.status, 200, JSON.stringify(gen.body));
    const generated = gen.body.generated_document_id;
    assert.equal((await call(own, `/v1/documents/${generated}`)).status, 200, 'the owner sees it in the organization');
    const edits = await s.runtime.store.repo('edits').find({ document_id: doc });
    assert.equal(edits.length, 2);
    assert.ok(edits.some((e) => e.organization_id === org));

    const del = await call(mem, '/api/gdpr/delete-account', { method: 'POST', json: { immediate: true } });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    for (const t of ['edits', 'edit_jobs', 'edit_audit', 'chunks'] as const) assert.equal(await s.runtime.store.repo(t).count({ document_id: doc }), 0, t);
    for (const e of edits) assert.equal(await s.runtime.storage.exists(e.output_key), false, 'the filled file is gone');
    assert.equal((await call(own, `/v1/documents/${generated}`)).status, 404, 'the generated document is gone');
    const left = (await call(own, `/api/edit/batch/${batchId}`)).body;
    assert.ok(left.results === undefined || left.results.every((r: any) => r.edit_id === null), JSON.stringify(left));
  });

  test('removed from an organization, a member reads, lists and changes nothing of it, their own creations included', async () => {
    const [own, mem] = [await user('rown'), await user('rmem')];
    const org = await newOrg(own, 'removal-co');
    await addAndAccept(s, own, org, mem, 'member');
    const pdf = await makePdf([{ heading: 'Plans', lines: ['The zebracorn merger closes in May.'] }]);
    const doc = await upload(mem, pdf, org, 'plans.pdf');
    const kb = (await call(mem, '/api/knowledge-bases', { method: 'POST', json: { name: 'Mine in org', organization_id: org } })).body.knowledge_base.id;
    const tpl = await call(mem, '/api/generate/templates', { method: 'POST', json: { name: 'Letter', template_prompt: 'Dear {{name}}', organization_id: org } });
    assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
    const schema = await call(mem, '/api/extract/schemas', { method: 'POST', json: { name: 'Deal', fields: [{ name: 'month', type: 'string' }], organization_id: org, is_shared: true } });
    const schemaId = schema.body.id ?? schema.body.schema?.id;
    const wf = await call(mem, '/api/workflows', { method: 'POST', json: { name: 'Mine in org', organization_id: org, definition: { steps: [{ id: 'a', type: 'transform', config: { expression: '1' } }] } } });
    assert.equal(wf.status, 201, JSON.stringify(wf.body));
    const wfId = wf.body.workflow.id;
    assert.equal((await call(mem, `/v1/documents/${doc}`)).status, 200);

    assert.equal((await call(own, `/api/organizations/${org}/members/${mem.id}`, { method: 'DELETE' })).status, 200);
    // at once: nothing of the organization, though the member made it
    for (const p of [`/v1/documents/${doc}`, `/v1/documents/${doc}/content`, `/api/knowledge-bases/${kb}`, `/api/generate/templates/${tpl.body.template.id}`, `/api/extract/schemas/${schemaId}`, `/api/workflows/${wfId}`]) {
      const r = await call(mem, p);
      assert.equal(r.status, 404, `${p}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await call(mem, `/api/knowledge-bases/${kb}`, { method: 'PATCH', json: { description: 'still mine?' } })).status, 404);
    assert.equal((await call(mem, `/api/generate/templates/${tpl.body.template.id}`, { method: 'PUT', json: { name: 'Hijacked' } })).status, 404);
    assert.equal((await call(mem, `/v1/documents/${doc}`, { method: 'DELETE' })).status, 404);
    assert.equal((await call(mem, `/api/workflows/${wfId}`, { method: 'PUT', json: { name: 'Hijacked' } })).status, 404);
    assert.ok(!JSON.stringify((await call(mem, '/api/workflows')).body).includes(wfId));
    const chat = await call(mem, '/api/chat', { method: 'POST', json: { message: 'When does the merger close?', knowledge_base_id: kb } });
    assert.equal(chat.status, 404, JSON.stringify(chat.body));
    // lists
    assert.ok(!(await call(mem, '/v1/documents')).body.documents?.some((d: any) => d.id === doc));
    assert.ok(!JSON.stringify((await call(mem, '/api/knowledge-bases')).body).includes(kb));
    assert.ok(!JSON.stringify((await call(mem, '/api/generate/templates')).body).includes(tpl.body.template.id));
    assert.ok(!JSON.stringify((await call(mem, '/api/extract/schemas')).body).includes(schemaId));
    const search = await call(mem, '/v1/search', { method: 'POST', json: { query: 'zebracorn merger' } });
    assert.ok(!JSON.stringify(search.body).includes(doc), JSON.stringify(search.body));
    // the owner still has all of it
    assert.equal((await call(own, `/v1/documents/${doc}`)).status, 200);
    assert.equal((await call(own, `/api/knowledge-bases/${kb}`)).status, 200);
  });

  test('viewers cannot run edit detect, run or verify on organization documents (403)', async () => {
    const [own, view] = [await user('vown'), await user('vview')];
    const org = await newOrg(own, 'viewer-co');
    await addAndAccept(s, own, org, view, 'viewer');
    const doc = await upload(own, await formPdf(), org);
    const ran = await call(own, '/api/edit/run', { method: 'POST', json: { document_id: doc, mappings: [] } });
    assert.equal(ran.status, 200, JSON.stringify(ran.body));
    const before = await s.runtime.store.repo('edit_jobs').count({ document_id: doc });
    for (const [p, json] of [['/api/edit/detect', { document_id: doc }], ['/api/edit/run', { document_id: doc, mappings: [] }], ['/api/edit/verify', { edit_id: ran.body.edit_id }]] as const) {
      const r = await call(view, p, { method: 'POST', json });
      assert.equal(r.status, 403, `${p}: ${JSON.stringify(r.body)}`);
      errorBody(r.body, 'FORBIDDEN');
    }
    assert.equal(await s.runtime.store.repo('edit_jobs').count({ document_id: doc }), before, 'no job was made for the viewer');
    assert.equal((await call(view, `/v1/documents/${doc}`)).status, 200, 'the viewer still reads');
  });

  test('the last owner holds under races: two owners leaving at once, and mutual demotions, 20 times each', async () => {
    const [a, b] = [await user('racea'), await user('raceb')];
    const ownersOf = (org: string) => s.runtime.store.repo('memberships').count({ organization_id: org, role: 'owner' });
    const results = { leave: [] as number[][], demote: [] as number[][] };
    for (let i = 0; i < 20; i++) {
      for (const kind of ['leave', 'demote'] as const) {
        const org = await newOrg(a, `race-${kind}-${i}`);
        await addAndAccept(s, a, org, b, 'owner');
        const [ra, rb] = await Promise.all(
          kind === 'leave'
            ? [call(a, `/api/organizations/${org}/leave`, { method: 'POST' }), call(b, `/api/organizations/${org}/leave`, { method: 'POST' })]
            : [call(a, `/api/organizations/${org}/members/${b.id}`, { method: 'PATCH', json: { role: 'admin' } }), call(b, `/api/organizations/${org}/members/${a.id}`, { method: 'PATCH', json: { role: 'admin' } })],
        );
        results[kind].push([ra.status, rb.status]);
        assert.ok([ra.status, rb.status].every((st) => st === 200 || st === 409 || st === 403), `${kind} ${i}: ${ra.status} ${JSON.stringify(ra.body)} / ${rb.status} ${JSON.stringify(rb.body)}`);
        assert.equal(await ownersOf(org), 1, `${kind} ${i}: ${JSON.stringify([ra.body, rb.body])}`);
      }
    }
    // exactly one of each pair went through
    for (const kind of ['leave', 'demote'] as const) assert.ok(results[kind].every((p) => p.filter((st) => st === 200).length === 1), `${kind}: ${JSON.stringify(results[kind])}`);
  });

  test('erasure leaves no deleted text nor the user id in the SQLite files (free pages, write-ahead logs)', { skip: MYSQL_URL ? 'the SQLite files are checked on SQLite only' : false }, async () => {
    const u = await user('scrub');
    const marker = `Zanzibarquux${randomUUID().replace(/-/g, '')}`;
    const doc = await upload(u, await makePdf([{ heading: 'Secret memo', lines: [`The code word is ${marker} and nothing else.`, `Repeat: ${marker}.`] }]), null, 'memo.pdf');
    const content = await call(u, `/v1/documents/${doc}/content`);
    assert.ok(JSON.stringify(content.body).includes(marker), 'the marker was parsed');
    const files = () => fs.readdirSync(s.dataDir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.db(-wal)?$/.test(f)).map((f) => path.join(s.dataDir, f));
    const holding = (needle: string) => files().filter((f) => fs.readFileSync(f).includes(needle));
    assert.ok(holding(marker).length > 0, 'the marker is in the database files before erasure');

    // an invitation addressed to the user's email, and one they sent
    const own = await user('scrubown');
    const org = await newOrg(own, 'scrub-co');
    assert.equal((await call(own, `/api/organizations/${org}/members`, { method: 'POST', json: { email: u.email, role: 'member' } })).status, 201);
    // a member's document of an organization (handed to its owner on erasure), searched and chatted with
    const kept = await newOrg(own, 'scrub-kept');
    await addAndAccept(s, own, kept, u, 'member');
    const orgDoc = await upload(u, await makePdf([{ heading: 'Org memo', lines: ['The office moves to the harbour in June.'] }]), kept, 'org-memo.pdf');
    const kb = (await call(u, '/api/knowledge-bases', { method: 'POST', json: { name: 'Memos', organization_id: kept } })).body.knowledge_base.id;
    assert.equal((await call(u, `/api/knowledge-bases/${kb}/documents`, { method: 'POST', json: { document_id: orgDoc } })).status, 200);
    assert.equal((await call(u, '/api/chat', { method: 'POST', json: { message: 'Where does the office move?', knowledge_base_id: kb } })).status, 200);
    const theirs = await newOrg(u, 'scrub-theirs');
    assert.equal((await call(u, `/api/organizations/${theirs}/members`, { method: 'POST', json: { email: 'friend@sec.example', role: 'member' } })).status, 201);

    const del = await call(u, '/api/gdpr/delete-account', { method: 'POST', json: { immediate: true } });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(holding(marker), [], 'no file keeps the deleted text');
    assert.deepEqual(holding(u.id), [], 'no file keeps the user id');
    assert.deepEqual(holding(u.email), [], 'no file keeps the email');
    // the organization's document stays, with its owner, and is still found
    assert.equal((await call(own, `/v1/documents/${orgDoc}`)).status, 200);
    const found = await call(own, '/v1/search', { method: 'POST', json: { query: 'office harbour June' } });
    assert.ok(JSON.stringify(found.body).includes(orgDoc), JSON.stringify(found.body));
  });

  test('sign-up answers the same for a registered and a new email; the registered account is unchanged and its owner is told by email', async () => {
    const smtp = await startSmtpStub();
    const mailing = await startTestServer({ env: { QUIRE_SMTP_HOST: '127.0.0.1', QUIRE_SMTP_PORT: String(smtp.port), QUIRE_SMTP_FROM: 'quire@sec.example' } });
    try {
      const signUp = (email: string, password: string) => mailing.json('/api/auth/signup', { method: 'POST', json: { email, password }, key: null });
      const login = (email: string, password: string) => mailing.json('/api/auth/login', { method: 'POST', json: { email, password }, key: null });
      const first = await signUp('kept@sec.example', 'First-Pass9!');
      const fresh = await signUp('new-one@sec.example', 'First-Pass9!');
      const again = await signUp('Kept@sec.example', 'Second-Pass9!');
      assert.equal(first.status, 202, JSON.stringify(first.body));
      assert.deepEqual([again.status, again.body], [fresh.status, fresh.body], 'the same answer for a registered email');
      assert.equal(again.headers.getSetCookie().length, fresh.headers.getSetCookie().length);
      assert.equal(await mailing.runtime.store.repo('users').count({ email: 'kept@sec.example' }), 1, 'no second account');
      assert.equal((await login('kept@sec.example', 'Second-Pass9!')).status, 401, 'the second sign-up set no password');
      assert.equal((await login('kept@sec.example', 'First-Pass9!')).status, 200, 'the account still signs in with its password');
      // the owner of the registered email is told; nobody else gets mail
      const notice = await until('the notice', () => smtp.received.find((m) => m.to.includes('kept@sec.example')));
      assert.match(notice.data, /^Subject: Sign-up attempt with your email address$/m);
      assert.deepEqual(smtp.received.map((m) => m.to), [['kept@sec.example']]);
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });
});
