// @services: concurrent credit reservations (a row locked FOR UPDATE on MariaDB)
/**
 * Credits are reserved, not merely checked: 50 chargeable requests fired at once never reserve more than the
 * balance (uploads, async generations, extraction runs, extraction batches). Runs on MariaDB in CI's second
 * pass (QUIRE_TEST_MYSQL_URL), where the account's lock is a row locked FOR UPDATE.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { makePdf } from '../helpers/fixtures.js';
import { signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';

const BURST = 50;
/** the free plan's monthly allocation here */
const ALLOCATION = 21.5;

const onePage = (tag: string) => makePdf([{ heading: `${tag} invoice`, lines: [`Invoice number ${tag}-1`, 'Total due: 120.00 EUR'] }]);

describe('credits under concurrency: a burst of chargeable requests never overspends the balance', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_CREDITS_FREE: String(ALLOCATION) } });
  });
  after(async () => {
    await s?.close();
  });

  const credits = async (u: TestUser) => (await s.json('/api/user/credits', { key: u.key })).body;

  /**
   * Waits until none of the user's work holds credits any more (every job accepted has ended). Polled
   * slowly: the free plan allows 100 requests a minute, and the burst takes half of them.
   */
  async function settled(u: TestUser, timeoutMs = 300_000): Promise<any> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const c = await credits(u);
      if (c.credits_held === 0) return c;
      if (Date.now() > end) throw new Error(`work still holds credits: ${JSON.stringify(c)}`);
      await new Promise((r) => setTimeout(r, 1500));
    }
  }

  /** A user with one processed one-page document (1.5 credits: 20 left). */
  async function userWithDocument(email: string): Promise<{ u: TestUser; docId: string }> {
    const u = await signUpUser(s, email);
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('invoice.pdf', await onePage(email)), key: u.key });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal((await settled(u)).credits_remaining, 20);
    return { u, docId: up.body.id };
  }

  /** Fires the requests at once; every answer is an acceptance or a 402. */
  async function burst(fire: () => Promise<{ status: number; body: any }>, accepted: number): Promise<any[]> {
    const answers = await Promise.all(Array.from({ length: BURST }, fire));
    for (const a of answers) assert.ok(a.status === accepted || a.status === 402, `${a.status} ${JSON.stringify(a.body)}`);
    for (const a of answers.filter((x) => x.status === 402)) assert.equal(a.body.error.code, 'INSUFFICIENT_CREDITS');
    return answers.filter((a) => a.status === accepted).map((a) => a.body);
  }

  test('uploads: 1.5 credits each, 21.5 allow 14 of 50', async () => {
    const u = await signUpUser(s, 'burst-uploads@example.com');
    const pdf = await onePage('U');
    const ok = await burst(() => s.json('/v1/documents', { method: 'POST', body: uploadForm('u.pdf', pdf), key: u.key }), 201);
    assert.equal(ok.length, 14);
    const c = await settled(u);
    const docs = (await s.json('/v1/documents?limit=100', { key: u.key })).body;
    assert.equal(docs.total, 14);
    assert.deepEqual(new Set(docs.data.map((d: any) => d.status)), new Set(['completed']));
    assert.equal(c.credits_used, 21);
    assert.equal(c.credits_remaining, 0.5);
  });

  test('async generations: 1 credit each, 20 left allow 20 of 50', async () => {
    const { u, docId } = await userWithDocument('burst-generate@example.com');
    const ok = await burst(() => s.json('/api/generate/run', { method: 'POST', json: { template_prompt: 'A summary of the invoice', output_format: 'markdown', source_document_ids: [docId], async: true }, key: u.key }), 202);
    assert.equal(ok.length, 20);
    const c = await settled(u);
    assert.equal(c.usage_summary.generate, 20);
    assert.equal(c.credits_remaining, 0);
  });

  test('extraction runs: 2 credits each, 20 left allow 10 of 50', async () => {
    const { u, docId } = await userWithDocument('burst-extract@example.com');
    const ok = await burst(() => s.json('/api/extract/run', { method: 'POST', json: { document_id: docId, config: { fields: [{ name: 'total_due', type: 'string' }] } }, key: u.key }), 200);
    assert.equal(ok.length, 10);
    const c = await settled(u);
    assert.equal(c.usage_summary.extract, 20);
    assert.equal(c.credits_remaining, 0);
  });

  test('extraction batches: 2 credits a document, 20 left allow 10 batches of one document of 50', async () => {
    const { u, docId } = await userWithDocument('burst-batch@example.com');
    const ok = await burst(() => s.json('/api/extract/batch', { method: 'POST', json: { document_ids: [docId], schema_id: 'invoice' }, key: u.key }), 201);
    assert.equal(ok.length, 10);
    const c = await settled(u);
    assert.equal(c.usage_summary.extract, 20);
    assert.equal(c.credits_remaining, 0);
    // the batches that were refused were not recorded; the others completed
    const list = (await s.json('/api/extract/batch?limit=100', { key: u.key })).body;
    assert.equal(list.total, 10);
    assert.deepEqual(new Set(list.batches.map((b: any) => b.status)), new Set(['completed']));
  });
});
