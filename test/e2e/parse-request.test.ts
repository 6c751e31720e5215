// A parse request is resolved once, the same way on the synchronous (POST /api/parse) and the background
// (POST /api/parse/async) path: an svc:// document's parsed content is reused unless the request gives OCR
// options of its own, and then both read it again with them, naming the chunks after the document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { makePdf } from '../helpers/fixtures.js';

async function waitJob(s: TestServer, id: string): Promise<any> {
  for (let i = 0; i < 3000; i++) {
    const r = await s.json(`/api/jobs/${id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (r.body.status === 'completed' || r.body.status === 'failed') return r.body;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`job ${id} did not end`);
}

describe('parse requests: one resolution for the synchronous and the background parse', () => {
  let s: TestServer;
  let docId: string;
  let docChunkIds: string[];

  before(async () => {
    s = await startTestServer();
    const pdf = await makePdf([
      { heading: 'Quarterly ledger', lines: ['Revenue grew by 12 percent in the harbour district.', 'Costs stayed flat across the orchard sites.'] },
      { heading: 'Outlook', lines: ['The turbine order ships in March.', 'Copper prices are expected to rise.'] },
    ]);
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('ledger.pdf', pdf) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    docId = up.body.id;
    assert.equal((await waitJob(s, docId)).status, 'completed');
    const content = await s.json(`/v1/documents/${docId}/content?response=chunks`);
    docChunkIds = content.body.chunks.map((c: any) => c.id);
    assert.ok(docChunkIds.length > 0);
  });
  after(() => s?.close());

  const syncParse = async (config?: Record<string, unknown>) => {
    const r = await s.json('/api/parse', { method: 'POST', json: { input: `svc://${docId}`, ...(config ? { config } : {}) } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.result.chunks as any[];
  };
  const asyncParse = async (config?: Record<string, unknown>) => {
    const r = await s.json('/api/parse/async', { method: 'POST', json: { input: `svc://${docId}`, ...(config ? { config } : {}) } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const job = await waitJob(s, r.body.job_id);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    return job.result.chunks as any[];
  };

  for (const [what, config] of [['no config', undefined], ['a config without OCR options', { chunking: { max_chunk_size: 1000 } }]] as const) {
    test(`${what}: both reuse the document's parsed content (its chunk ids)`, async () => {
      const sync = await syncParse(config);
      const background = await asyncParse(config);
      assert.deepEqual(sync.map((c) => c.id), docChunkIds);
      assert.deepEqual(background.map((c) => c.id), docChunkIds);
      assert.deepEqual(background.map((c) => c.content), sync.map((c) => c.content));
    });
  }

  test('OCR options given: both read the document again with them, and answer the same chunks', async () => {
    const config = { ocr: { enabled: false } };
    const sync = await syncParse(config);
    const background = await asyncParse(config);
    assert.ok(sync.length > 0);
    assert.deepEqual(background.map((c) => c.id), sync.map((c) => c.id));
    assert.deepEqual(background.map((c) => c.content), sync.map((c) => c.content));
    assert.ok(sync.every((c) => c.id.startsWith(`${docId}:`)), JSON.stringify(sync.map((c) => c.id)));
  });

  test('an invalid config is refused the same way on both paths', async () => {
    const config = { ocr: { language: 'Not a language!' } };
    const a = await s.json('/api/parse', { method: 'POST', json: { input: `svc://${docId}`, config } });
    const b = await s.json('/api/parse/async', { method: 'POST', json: { input: `svc://${docId}`, config } });
    assert.equal(a.status, 400, JSON.stringify(a.body));
    assert.equal(b.status, 400, JSON.stringify(b.body));
    assert.equal(a.body.error.code, b.body.error.code);
  });
});
