// @services: export and erasure across every table of the store
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { ANONYMOUS_ACTOR, runDueDeletions } from '@quire/engine';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody, filesUnder } from '../helpers/assertions.js';
import { makePdf } from '../helpers/fixtures.js';
import { organizationWithKnowledgeBase, signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';
import { holdCalls } from '../helpers/hold-calls.js';

const TXT_A = 'Harbour project notes\n\nThe harbour crane order was signed by Ilse Varga on 3 March. Budget 40,000 EUR.';
const TXT_B = 'Orchard ledger of Bram Quist\n\nApple harvest 1,200 kg, pear harvest 450 kg.';

async function upload(s: TestServer, u: TestUser, name: string, body: Uint8Array | string): Promise<string> {
  const up = await s.json('/api/upload', { method: 'POST', body: uploadForm(name, body), key: u.key });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal((await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, u.key)).status, 'completed');
  return up.body.document.id;
}

async function kbWithChat(s: TestServer, u: TestUser, docId: string, question: string) {
  const kb = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: `KB of ${u.email}` }, key: u.key });
  const kbId = kb.body.knowledge_base?.id ?? kb.body.id;
  assert.ok((await s.json(`/api/knowledge-bases/${kbId}/documents`, { method: 'POST', json: { document_id: docId }, key: u.key })).status < 300);
  const chat = await s.json('/api/chat', { method: 'POST', json: { message: question, knowledge_base_id: kbId }, key: u.key });
  assert.equal(chat.status, 200, JSON.stringify(chat.body));
  return { kbId, sessionId: chat.body.session_id as string };
}

describe('privacy over HTTP: consents, export, account deletion', () => {
  let s: TestServer;
  let a: TestUser;
  let b: TestUser;
  const aDocs: { id: string; name: string; bytes: Uint8Array | string }[] = [];
  let bDoc: string;
  let aKb: { kbId: string; sessionId: string };
  let aExtraction: string;
  let vectorsWithoutA = 0;

  before(async () => {
    s = await startTestServer();
    a = await signUpUser(s, 'ilse@example.com', 'Ilse Varga');
    b = await signUpUser(s, 'bram@example.com', 'Bram Quist');
    bDoc = await upload(s, b, 'orchard-ledger.txt', TXT_B);
    await kbWithChat(s, b, bDoc, 'How many kg of pears?');
    const vs = s.runtime.registry.get('vector-store');
    vectorsWithoutA = await vs.count(s.runtime.registry.get('embedder').space);
    const pdf = await makePdf([{ heading: 'Crane order', lines: ['Order number CR-7781', 'Total: 18,400 EUR'] }]);
    aDocs.push({ id: await upload(s, a, 'crane-order.pdf', pdf), name: 'crane-order.pdf', bytes: pdf });
    aDocs.push({ id: await upload(s, a, 'harbour-notes.txt', TXT_A), name: 'harbour-notes.txt', bytes: TXT_A });
    const ex = await s.json('/api/extract/run', { method: 'POST', json: { document_id: aDocs[0]!.id, config: { fields: [{ name: 'order_number', type: 'string' }] } }, key: a.key });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    aExtraction = ex.body.extraction_id;
    aKb = await kbWithChat(s, a, aDocs[1]!.id, 'Who signed the crane order?');
    assert.ok((await vs.count(s.runtime.registry.get('embedder').space)) > vectorsWithoutA, "A's documents are indexed");
  });
  after(async () => {
    await s?.close();
  });

  test('consents: recorded at sign-up, granted and revoked with history; required ones cannot be withdrawn', async () => {
    const start = await s.json('/api/gdpr/consent', { key: a.key });
    assert.equal(start.status, 200);
    assert.deepEqual(Object.keys(start.body.consents).sort(), ['privacy', 'terms']);
    assert.equal(start.body.consents.terms.granted, true);
    assert.equal(start.body.consents.terms.version, '1');
    assert.ok(Date.parse(start.body.consents.terms.granted_at));

    assert.equal((await s.json('/api/gdpr/consent', { method: 'POST', json: { consentType: 'marketing', granted: true }, key: a.key })).status, 200);
    const batch = await s.json('/api/gdpr/consent', { method: 'POST', json: { consents: [{ type: 'analytics', granted: true }, { type: 'marketing', granted: false }] }, key: a.key });
    assert.equal(batch.body.consents.marketing.granted, false);
    assert.ok(batch.body.consents.marketing.revoked_at);
    assert.equal(batch.body.consents.marketing.granted_at, undefined);
    assert.equal(batch.body.consents.analytics.granted, true);
    const revoked = await s.json('/api/gdpr/consent?type=analytics', { method: 'DELETE', key: a.key });
    assert.equal(revoked.body.consents.analytics.granted, false);

    const terms = await s.json('/api/gdpr/consent?type=terms', { method: 'DELETE', key: a.key });
    assert.equal(terms.status, 409);
    errorBody(terms.body, 'CONFLICT');
    errorBody((await s.json('/api/gdpr/consent', { method: 'POST', json: { consentType: 'data_processing', granted: true }, key: a.key })).body, 'VALIDATION_ERROR');
    errorBody((await s.json('/api/gdpr/consent', { method: 'POST', json: { consentType: 'newsletter', granted: true }, key: a.key })).body, 'VALIDATION_ERROR');

    const history = await s.json('/api/gdpr/consent?history=true', { key: a.key });
    assert.deepEqual(
      history.body.history.map((h: any) => `${h.type}:${h.granted}`),
      ['terms:true', 'privacy:true', 'marketing:true', 'analytics:true', 'marketing:false', 'analytics:false'],
    );
    assert.deepEqual((await s.json('/api/gdpr/consent/renewal-check', { key: a.key })).body, { needs_renewal: false, types: [], reason: null, current_version: '1' });
    // B's consents are B's
    assert.equal((await s.json('/api/gdpr/consent?history=true', { key: b.key })).body.history.length, 2);
  });

  test('renewal: a new policy version asks for terms and privacy again until renewed', async () => {
    // a second server on the same database and data dir, with policy version 2
    const v2 = await startTestServer({ env: { QUIRE_DATA_DIR: s.dataDir, QUIRE_DB_URL: s.runtime.config.db.url ?? '', QUIRE_POLICY_VERSION: '2' } });
    try {
      const check = await v2.json('/api/gdpr/consent/renewal-check', { key: b.key });
      assert.equal(check.body.needs_renewal, true);
      assert.deepEqual(check.body.types, ['terms', 'privacy']);
      assert.match(check.body.reason, /version 2/);
      const renewed = await v2.json('/api/gdpr/consent/renew', { method: 'POST', json: { consentTypes: ['terms', 'privacy'] }, key: b.key });
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      assert.equal(renewed.body.consents.terms.version, '2');
      assert.equal(renewed.body.renewal.needs_renewal, false);
    } finally {
      await v2.close();
    }
  });

  test('export: a zip of every document, extraction, chat message, knowledge base, key (metadata) and consent of the user, nothing of another', async () => {
    const extraKey = await s.json('/api/keys', { method: 'POST', json: { name: 'second key' }, key: a.key });
    assert.equal(extraKey.status, 201);
    const req = await s.json('/api/gdpr/export', { method: 'POST', key: a.key });
    assert.equal(req.status, 202, JSON.stringify(req.body));
    assert.equal(req.body.status, 'pending');
    assert.ok(Date.parse(req.body.estimated_completion));
    assert.equal((await s.json(`/api/gdpr/export?requestId=${req.body.request_id}`, { key: b.key })).status, 404, "another user's export");
    const done = await until('export completed', async () => {
      const r = await s.json(`/api/gdpr/export?requestId=${req.body.request_id}`, { key: a.key });
      return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
    }, 60_000, 200);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.ok(done.file_size > 0);
    const ttl = Date.parse(done.expires_at) - Date.parse(done.completed_at);
    assert.ok(Math.abs(ttl - 24 * 3600_000) < 5_000, 'expires 24 hours after it was made');

    const bad = await s.api(done.file_url.slice(s.url.length).replace(/sig=[0-9a-f]+/, 'sig=00'), { key: null });
    assert.equal(bad.status, 401);
    const res = await s.api(done.file_url.slice(s.url.length), { key: null });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    assert.match(res.headers.get('content-disposition')!, /^attachment; filename="quire-export-\d{4}-\d{2}-\d{2}\.zip"$/);
    const zip = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const read = (name: string) => JSON.parse(strFromU8(zip[name]!));

    const profile = read('profile.json');
    assert.equal(profile.email, 'ilse@example.com');
    assert.equal(profile.password_hash, undefined);
    assert.deepEqual(read('documents.json').map((d: any) => d.id).sort(), aDocs.map((d) => d.id).sort());
    for (const d of aDocs) {
      assert.deepEqual(Buffer.from(zip[`documents/${d.id}/${d.name}`]!), Buffer.from(d.bytes), `the file of ${d.name}`);
      assert.ok(zip[`documents/${d.id}/content.json`], `the parsed content of ${d.name}`);
    }
    assert.deepEqual(read('extractions.json').map((x: any) => x.id), [aExtraction]);
    const chats = read('chat_history.json');
    assert.equal(chats.length, 1);
    assert.equal(chats[0].id, aKb.sessionId);
    assert.deepEqual(chats[0].messages.map((m: any) => m.role), ['user', 'assistant']);
    assert.equal(chats[0].messages[0].content, 'Who signed the crane order?');
    const kbs = read('knowledge_bases.json');
    assert.deepEqual(kbs.map((k: any) => [k.id, k.document_ids]), [[aKb.kbId, [aDocs[1]!.id]]]);
    const keys = read('api_keys.json');
    assert.deepEqual(keys.map((k: any) => k.name).sort(), ['second key', 'tests']);
    for (const k of keys) {
      assert.deepEqual(Object.keys(k).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes']);
      assert.ok(a.key.startsWith(k.prefix) || extraKey.body.key.startsWith(k.prefix));
    }
    assert.deepEqual(read('consents.json').map((c: any) => `${c.type}:${c.granted}`), ['terms:true', 'privacy:true', 'marketing:true', 'analytics:true', 'marketing:false', 'analytics:false']);
    assert.ok(read('audit_log.json').some((e: any) => e.action === 'gdpr.export.requested'));

    // nothing of the other user, and no secret
    const everything = Object.values(zip).map((u) => Buffer.from(u).toString('latin1')).join('\n');
    for (const foreign of [b.id, bDoc, 'bram@example.com', 'Orchard ledger', 'pears']) assert.ok(!everything.includes(foreign), `found ${foreign} of the other user`);
    for (const secret of [a.key, extraKey.body.key]) assert.ok(!everything.includes(secret), 'an API key is in the export');
    assert.ok(!/scrypt|\$s0\$|key_hash/.test(everything), 'no hash in the export');
  });

  test('deletion with a grace period: scheduled, cancelled; a due one is carried out by the sweep', async () => {
    const g = await signUpUser(s, 'grace@example.com');
    const asked = await s.json('/api/gdpr/delete-account', { method: 'POST', json: { reason: 'trying it out' }, key: g.key });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal(asked.body.status, 'scheduled');
    assert.equal(asked.body.grace_period_days, 7);
    assert.ok(Math.abs(Date.parse(asked.body.scheduled_at) - (Date.now() + 7 * 86_400_000)) < 60_000);
    assert.ok(asked.body.message);
    const status = await s.json('/api/gdpr/delete-account', { key: g.key });
    assert.deepEqual([status.body.request_id, status.body.status, status.body.can_cancel], [asked.body.request_id, 'scheduled', true]);
    assert.equal((await s.json(`/api/gdpr/delete-account?requestId=${asked.body.request_id}`, { method: 'DELETE', key: b.key })).status, 404, "another user's request");
    const cancelled = await s.json(`/api/gdpr/delete-account?requestId=${asked.body.request_id}`, { method: 'DELETE', key: g.key });
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal((await s.json('/api/gdpr/delete-account', { key: g.key })).body.can_cancel, false);
    assert.equal((await s.json(`/api/gdpr/delete-account?requestId=${asked.body.request_id}`, { method: 'DELETE', key: g.key })).status, 409);
    // nothing happens to a cancelled request when its day comes
    assert.equal(await runDueDeletions(s.runtime, new Date(Date.now() + 8 * 86_400_000)), 0);
    assert.equal((await s.json('/api/user/profile', { key: g.key })).status, 200);

    // a scheduled one is carried out once the grace period is over
    const again = await s.json('/api/gdpr/delete-account', { method: 'POST', json: {}, key: g.key });
    assert.equal(again.body.status, 'scheduled');
    assert.equal(await runDueDeletions(s.runtime, new Date(Date.now() + 60_000)), 0, 'not before its time');
    assert.equal(await runDueDeletions(s.runtime, new Date(Date.now() + 8 * 86_400_000)), 1);
    assert.equal((await s.json('/api/user/profile', { key: g.key })).status, 401);
    assert.equal(await s.runtime.store.repo('users').get(g.id), null);
  });

  test('an erasure right after an upload completes waits for its completion work: nothing the upload writes late carries the user', async () => {
    // The document is marked completed before the rest of its completion runs (adding it to its knowledge
    // base, the document.completed handlers): an erasure asked for at that moment must not finish before that
    // work, or its writes (the knowledge-base link names the user) land after the erasure. The completion is
    // held at a known point (the link's insert) until the erasure has answered or has waited a while.
    const c = await signUpUser(s, 'late@example.com', 'Late Writer');
    const kb = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Late links' }, key: c.key });
    assert.equal(kb.status, 201, JSON.stringify(kb.body));
    const kbId = kb.body.knowledge_base.id as string;
    const links = s.runtime.store.repo('collection_documents') as any;
    // the completion's link of the document to its knowledge base waits at the hold, then is written
    const hold = holdCalls(links, 'insert', (row: { collection_id: string }) => row.collection_id === kbId);
    try {
      const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('late.txt', 'Late ledger of Kees Vonk\n\nThe kiln order was signed by Kees Vonk.', { knowledge_base_id: kbId }), key: c.key });
      assert.equal(up.status, 200, JSON.stringify(up.body));
      assert.equal((await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, c.key)).status, 'completed');
      await hold.reached; // the document reads completed; its completion waits at the hold
      const del = s.json('/api/gdpr/delete-account', { method: 'POST', json: { immediate: true }, key: c.key });
      // the completion goes on once the erasure has answered (an erasure that does not wait for it), or after a
      // while (one that waits: it answers only after the completion's writes)
      await Promise.race([del, new Promise((r) => setTimeout(r, 3000))]);
      hold.release();
      const answer = await del;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await hold.written; // the completion's write that names the user has run (before or after the erasure)
      const tables = s.runtime.store.tables!();
      for (const [t, cols] of Object.entries(tables)) {
        if (!cols.includes('user_id')) continue;
        assert.equal(await (s.runtime.store.repo(t as any) as any).count({ user_id: c.id }), 0, `rows of the user in ${t} after the erasure`);
      }
      assert.equal(await links.count({ collection_id: kbId }), 0, 'no link to the erased knowledge base');
    } finally {
      hold.restore();
    }
  });

  test('an erasure while a document.completed handler is under way waits for it: the webhook delivery it records does not outlive the user', async () => {
    // the webhook fan-out reads the user's webhooks, then records a delivery (naming the user) for each: held
    // between the two until the erasure has answered or has waited a while, as in the test above
    const d = await signUpUser(s, 'hooked@example.com', 'Hooked Writer');
    const hook = await s.json('/api/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/hook', events: ['document.completed'] }, key: d.key });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const hold = holdCalls(s.runtime.webhooks, 'enqueueUnique', (row: { user_id: string }) => row.user_id === d.id);
    try {
      await upload(s, d, 'hooked.txt', 'Hooked ledger\n\nThe order was signed.');
      await hold.reached;
      const del = s.json('/api/gdpr/delete-account', { method: 'POST', json: { immediate: true }, key: d.key });
      await Promise.race([del, new Promise((r) => setTimeout(r, 3000))]);
      hold.release();
      const answer = await del;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await hold.written;
      for (const t of ['webhook_deliveries', 'jobs', 'webhooks']) assert.equal(await (s.runtime.store.repo(t as any) as any).count({ user_id: d.id }), 0, `rows of the user in ${t} after the erasure`);
    } finally {
      hold.restore();
    }
  });

  test('deleting an organization right after an upload into it completes waits for its completion work: nothing written late carries the organization', async () => {
    // as for an account: the organization's document reads completed before its completion has linked it to
    // the organization's knowledge base; the link (naming the organization) is held until the deletion has
    // answered or has waited a while
    const { owner: o, orgId: org, kbId } = await organizationWithKnowledgeBase(s, 'org-late@example.com', { name: 'Late Org', slug: 'late-org' }, 'Org links');
    const links = s.runtime.store.repo('collection_documents') as any;
    const hold = holdCalls(links, 'insert', (row: { collection_id: string }) => row.collection_id === kbId);
    try {
      const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('org-late.txt', 'Org ledger of Ines Varga\n\nThe kiln order was signed by Ines Varga.', { knowledge_base_id: kbId, organization_id: org }), key: o.key });
      assert.equal(up.status, 200, JSON.stringify(up.body));
      assert.equal((await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, o.key)).status, 'completed');
      await hold.reached;
      const del = s.json(`/api/organizations/${org}`, { method: 'DELETE', key: o.key });
      await Promise.race([del, new Promise((r) => setTimeout(r, 3000))]);
      hold.release();
      const answer = await del;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await hold.written;
      const tables = s.runtime.store.tables!();
      for (const [t, cols] of Object.entries(tables)) {
        if (!cols.includes('organization_id') || t === 'audit_log') continue;
        assert.equal(await (s.runtime.store.repo(t as any) as any).count({ organization_id: org }), 0, `rows of the organization in ${t} after its deletion`);
      }
      assert.equal(await links.count({ collection_id: kbId }), 0, 'no link to the deleted knowledge base');
    } finally {
      hold.restore();
    }
  });

  test('immediate deletion: no file, vector, row or key of the user remains; the audit log keeps anonymised entries', async () => {
    const exportsBefore = await s.runtime.store.repo('data_export_requests').find({ user_id: a.id });
    const jobs = await s.runtime.store.repo('jobs').find({ user_id: a.id });
    const ids = [...aDocs.map((d) => d.id), ...jobs.map((j) => j.id), ...exportsBefore.map((e) => e.id)];
    assert.ok(filesUnder(s.dataDir).some((f) => ids.some((id) => f.includes(id))), 'the user has files before');

    const del = await s.json('/api/gdpr/delete-account', { method: 'POST', json: { immediate: true, reason: 'leaving' }, key: a.key });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal(del.body.status, 'completed');
    assert.equal(del.body.grace_period_days, 0);

    // keys and sessions
    assert.equal((await s.json('/api/user/profile', { key: a.key })).status, 401);
    const viaSession = await fetch(`${s.url}/api/user/profile`, { headers: { cookie: a.cookie } });
    assert.equal(viaSession.status, 401);
    // files: original, parsed content, job inputs and results, the export zip
    const left = filesUnder(s.dataDir).filter((f) => ids.some((id) => path.relative(s.dataDir, f).includes(id)));
    assert.deepEqual(left, []);
    // vectors
    const space = s.runtime.registry.get('embedder').space;
    assert.equal(await s.runtime.registry.get('vector-store').count(space), vectorsWithoutA);
    // every table with a user_id column, the users table, the audit log anonymised
    const tables = s.runtime.store.tables!();
    for (const [t, cols] of Object.entries(tables)) {
      if (!cols.includes('user_id')) continue;
      assert.equal(await (s.runtime.store.repo(t as any) as any).count({ user_id: a.id }), 0, `rows of the user in ${t}`);
    }
    for (const [t, cols] of Object.entries(tables)) {
      if (!cols.includes('document_id')) continue;
      assert.equal(await (s.runtime.store.repo(t as any) as any).count({ document_id: aDocs.map((d) => d.id) }), 0, `rows of the user's documents in ${t}`);
    }
    assert.equal(await s.runtime.store.repo('users').get(a.id), null);
    assert.equal(await s.runtime.store.repo('users').findOne({ email: 'ilse@example.com' }), null);
    const anon = await s.runtime.store.repo('audit_log').find({ user_id: ANONYMOUS_ACTOR });
    assert.ok(anon.some((e) => e.action === 'gdpr.account.deleted'));
    assert.ok(anon.some((e) => e.action === 'gdpr.export.requested'));
    assert.ok(anon.every((e) => e.ip === null && JSON.stringify(e.details) === '{"anonymised":true}'));

    // the other user is untouched
    assert.equal((await s.json(`/v1/documents/${bDoc}`, { key: b.key })).body.status, 'completed');
    assert.equal((await s.json('/api/chat/sessions', { key: b.key })).body.sessions.length, 1);
    assert.equal((await s.json('/api/gdpr/consent?history=true', { key: b.key })).status, 200);
  });
});
