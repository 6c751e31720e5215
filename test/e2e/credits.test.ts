// @services: credit balances and charges, reserved in store transactions
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { filesUnder, errorBody } from '../helpers/assertions.js';
import { unzipSync, zipSync, strToU8 } from 'fflate';
import { makeDocx, makePdf } from '../helpers/fixtures.js';
import { signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';

const pdfOf = (n: number, tag: string) =>
  makePdf(Array.from({ length: n }, (_, i) => ({ heading: `${tag} page ${i + 1}`, lines: [`Invoice number ${tag}-${i + 1}`, 'Total due: 120.00 EUR', 'Payment terms: 30 days'] })));

/** Files of the data dir's blob storage (documents, content, jobs), not the database or the vector index. */
const blobs = (s: TestServer) => filesUnder(s.dataDir).filter((f) => /(^|[/\\])(documents|content|jobs)[/\\]/.test(path.relative(s.dataDir, f)));

describe('credits: monthly allocation, balance from the usage ledger, refusal up front (402)', () => {
  let s: TestServer;
  let a: TestUser;
  let b: TestUser;

  before(async () => {
    // sign-up users are on the free plan: 10 credits a month here
    s = await startTestServer({ env: { QUIRE_CREDITS_FREE: '10' } });
    a = await signUpUser(s, 'credits-a@example.com');
    b = await signUpUser(s, 'credits-b@example.com');
  });
  after(async () => {
    await s?.close();
  });

  test('GET /api/user/credits: shape, arithmetic and refusals before any work', async () => {
    const fresh = await s.json('/api/user/credits', { key: a.key });
    assert.equal(fresh.status, 200);
    const now = new Date();
    assert.deepEqual(fresh.body, {
      total_allocation: 10,
      credits_used: 0,
      credits_remaining: 10,
      credits_held: 0,
      percentage_used: 0,
      usage_summary: { parse: 0, extract: 0, chat: 0, generate: 0 },
      period: { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(), end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString() },
      subscription: { status: 'active', plan: 'free', renews_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString() },
    });

    // 3 pages: 4.5 credits, charged when processing completes
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('three.pdf', await pdfOf(3, 'A')), key: a.key });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 120_000, a.key);
    assert.equal(done.status, 'completed');
    assert.equal(done.pages, 3);
    let c = (await s.json('/api/user/credits', { key: a.key })).body;
    assert.equal(c.credits_used, 4.5);
    assert.equal(c.credits_remaining, 5.5);
    assert.equal(c.percentage_used, 45);
    assert.equal(c.usage_summary.parse, 4.5);
    const filesBefore = blobs(s).sort();

    // a 4-page parse (6 credits) is refused before it starts, through every door: sync parse, upload, v1 upload
    const four = await pdfOf(4, 'B');
    const sync = await s.json('/api/parse', { method: 'POST', body: uploadForm('four.pdf', four), key: a.key });
    assert.equal(sync.status, 402);
    errorBody(sync.body, 'INSUFFICIENT_CREDITS');
    assert.equal(sync.body.error.details.required, 6);
    assert.equal(sync.body.error.details.remaining, 5.5);
    const upload = await s.json('/api/upload', { method: 'POST', body: uploadForm('four.pdf', four), key: a.key });
    assert.equal(upload.status, 402);
    errorBody(upload.body, 'INSUFFICIENT_CREDITS');
    const v1 = await s.json('/v1/documents', { method: 'POST', body: uploadForm('four.pdf', four), key: a.key });
    assert.equal(v1.status, 402);
    // nothing processed, stored or charged
    const list = (await s.json('/v1/documents', { key: a.key })).body;
    assert.equal(list.total, 1);
    assert.deepEqual(blobs(s).sort(), filesBefore, 'no file of the refused parses is left');
    c = (await s.json('/api/user/credits', { key: a.key })).body;
    assert.equal(c.credits_used, 4.5);

    // an extraction: 2 credits
    const ex = await s.json('/api/extract/run', { method: 'POST', json: { document_id: up.body.id, config: { fields: [{ name: 'total_due', type: 'string' }] } }, key: a.key });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.usage.credits, 2);

    // an async parse of the 3-page document (4.5) no longer fits in 3.5: 402 before any job is queued
    const asyncParse = await s.json('/api/parse/async', { method: 'POST', json: { input: `svc://${up.body.id}` }, key: a.key });
    assert.equal(asyncParse.status, 402);
    errorBody(asyncParse.body, 'INSUFFICIENT_CREDITS');

    // chat: 0.1
    const kb = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Invoices' }, key: a.key });
    assert.equal(kb.status, 201);
    const kbId = kb.body.knowledge_base?.id ?? kb.body.id;
    assert.equal((await s.json(`/api/knowledge-bases/${kbId}/documents`, { method: 'POST', json: { document_id: up.body.id }, key: a.key })).status < 300, true);
    const chat = await s.json('/api/chat', { method: 'POST', json: { message: 'What is the total due?', knowledge_base_id: kbId }, key: a.key });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));

    // a batch of one document: 2 credits (3.4 left → 1.4)
    const schema = await s.json('/api/extract/schemas', { method: 'POST', json: { name: 'Totals', fields: [{ name: 'total_due', type: 'string' }] }, key: a.key });
    assert.ok(schema.status < 300, JSON.stringify(schema.body));
    const schemaId = schema.body.id ?? schema.body.schema?.id;
    const batch = await s.json('/api/extract/batch', { method: 'POST', json: { document_ids: [up.body.id], schema_id: schemaId }, key: a.key });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const finished = await waitForStatus(s, `/api/extract/batch/${batch.body.id}`, 120_000, a.key);
    assert.equal(finished.status, 'completed');

    // now an extraction (2) does not fit in 1.4, a chat query (0.1) still does
    const refused = await s.json('/api/extract/run', { method: 'POST', json: { document_id: up.body.id, config: { fields: [{ name: 'total_due', type: 'string' }] } }, key: a.key });
    assert.equal(refused.status, 402);
    errorBody(refused.body, 'INSUFFICIENT_CREDITS');
    const refusedBatch = await s.json('/api/extract/batch', { method: 'POST', json: { document_ids: [up.body.id], schema_id: schemaId }, key: a.key });
    assert.equal(refusedBatch.status, 402);
    assert.equal((await s.json('/api/chat', { method: 'POST', json: { message: 'Payment terms?', knowledge_base_id: kbId }, key: a.key })).status, 200);

    c = (await s.json('/api/user/credits', { key: a.key })).body;
    assert.deepEqual(c.usage_summary, { parse: 4.5, extract: 4, chat: 0.2, generate: 0 });
    assert.equal(c.credits_used, 8.7);
    assert.equal(c.credits_remaining, 1.3);
    assert.equal(c.percentage_used, 87);

    // the other user's balance is their own
    const other = (await s.json('/api/user/credits', { key: b.key })).body;
    assert.equal(other.credits_used, 0);
    assert.equal(other.credits_remaining, 10);
  });

  test("organizations are billed for their resources, with their owner's plan allocation", async () => {
    const owner = await signUpUser(s, 'credits-owner@example.com');
    const made = await s.json('/api/organizations', { method: 'POST', json: { name: 'Credit Co', slug: 'credit-co' }, key: owner.key });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const org = made.body.organization.id;
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('org.pdf', await pdfOf(2, 'O'), { organization_id: org }), key: owner.key });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, owner.key)).status, 'completed');
    const personal = (await s.json('/api/user/credits', { key: owner.key })).body;
    assert.equal(personal.credits_used, 0, 'not billed to the person');
    const billed = (await s.json(`/api/user/credits?organization_id=${org}`, { key: owner.key })).body;
    assert.equal(billed.organization_id, org);
    assert.equal(billed.total_allocation, 10);
    assert.equal(billed.credits_used, 3);
    assert.equal(billed.usage_summary.parse, 3);
    assert.equal((await s.json(`/api/user/credits?organization_id=${org}`, { key: b.key })).status, 404, 'not a member');
    // 7 left: a 5-page upload (7.5) to the organization is refused, one to the person (7.5 of 10) is not
    const five = await pdfOf(5, 'P');
    const refused = await s.json('/api/upload', { method: 'POST', body: uploadForm('five.pdf', five, { organization_id: org }), key: owner.key });
    assert.equal(refused.status, 402);
    assert.deepEqual(refused.body.error.details.billed_to, { type: 'organization', id: org });
    const own = await s.json('/api/upload', { method: 'POST', body: uploadForm('five.pdf', five), key: owner.key });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    await waitForStatus(s, `/v1/documents/${own.body.document.id}`, 120_000, owner.key);
  });

  test('work under way holds its credits: a burst of uploads cannot each see the balance of before the others', async () => {
    // a server that queues but does not process: every upload stays pending, holding its estimated cost
    const idle = await startTestServer({ env: { QUIRE_CREDITS_FREE: '10', QUIRE_RUN_STAGES: 'false' } });
    try {
      const u = await signUpUser(idle, 'credits-burst@example.com');
      const two = await pdfOf(2, 'H');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const up = await idle.json('/api/upload', { method: 'POST', body: uploadForm(`h${i}.pdf`, two), key: u.key });
        assert.equal(up.status, 200, JSON.stringify(up.body));
        ids.push(up.body.document.id);
      }
      const c = (await idle.json('/api/user/credits', { key: u.key })).body;
      assert.equal(c.credits_used, 0, 'nothing charged yet');
      assert.equal(c.credits_held, 9);
      const fourth = await idle.json('/api/upload', { method: 'POST', body: uploadForm('h3.pdf', two), key: u.key });
      assert.equal(fourth.status, 402);
      assert.equal(fourth.body.error.details.held, 9);
      assert.equal(fourth.body.error.details.remaining, 1);
      const parse = await idle.json('/api/parse/async', { method: 'POST', json: { input: `svc://${ids[0]}` }, key: u.key });
      assert.equal(parse.status, 402, 'a parse of one of them (2 pages estimated: 3) does not fit in 1 either');
    } finally {
      await idle.close();
    }
  });

  test('ocr.agentic is charged 3.0 a page (spec §8.3), counted with parses', async () => {
    const one = await pdfOf(1, 'C');
    const r = await s.json('/api/parse', { method: 'POST', body: uploadForm('one.pdf', one, { config: JSON.stringify({ ocr: { agentic: true } }) }), key: b.key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.usage, { num_pages: 1, credits: 3 });
    const c = (await s.json('/api/user/credits', { key: b.key })).body;
    assert.equal(c.credits_used, 3);
    assert.equal(c.usage_summary.parse, 3);
    // refused up front at that rate: 3 pages cost 9 of the 7 left (a standard parse, 4.5, would fit)
    const three = await s.json('/api/parse', { method: 'POST', body: uploadForm('three.pdf', await pdfOf(3, 'D'), { config: JSON.stringify({ ocr: { agentic: true } }) }), key: b.key });
    assert.equal(three.status, 402, JSON.stringify(three.body));
    assert.equal(three.body.error.details.required, 9);
    assert.equal(three.body.error.details.remaining, 7);
  });

  test("a docx is estimated at the pages its app recorded (docProps/app.xml)", async () => {
    // B has 7 left; a docx whose app.xml says 7 pages would cost 10.5
    const parts = unzipSync(new Uint8Array(await makeDocx()));
    parts['docProps/app.xml'] = strToU8('<?xml version="1.0" encoding="UTF-8"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>7</Pages></Properties>');
    const r = await s.json('/api/upload', { method: 'POST', body: uploadForm('long.docx', zipSync(parts)), key: b.key });
    assert.equal(r.status, 402, JSON.stringify(r.body));
    assert.equal(r.body.error.details.units, 7);
    assert.equal(r.body.error.details.required, 10.5);
    assert.equal(r.body.error.details.remaining, 7);
  });
});
