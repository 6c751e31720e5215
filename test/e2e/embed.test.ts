import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { makePdf } from '../helpers/fixtures.js';

const INVOICE = 'INVOICE\n\nInvoice number: INV-2024-0042\nInvoice date: 2024-03-15\nDue date: 2024-04-14\nVendor: Northwind Traders\nBill to: Contoso Ltd\nSubtotal: 1,000.00 EUR\nTax: 250.00 EUR\nTotal amount due: 1,250.00 EUR\n';
const MEMBER = 'Rowing club membership\n\nMember name: Jane Doe\nLocker number: 42\nBoat class: Single scull\nCoach: Piet Visser\n';
const OBSERVATORY = 'Orvella Observatory\n\nThe Orvella Observatory was founded in 1893 by the astronomer Katrin Malmberg on the slopes of Mount Tessaly. The observatory discovered the comet Malmberg-Osei in 1927.';

describe('POST /api/v1/embed', () => {
  let s: TestServer;
  let files: http.Server;
  let filesUrl = '';
  const ids: Record<string, string> = {};
  let kb = '';
  let pdfBytes: Uint8Array;

  const embed = (json: unknown, opts: { key?: string | null; path?: string } = {}) => s.json(opts.path ?? '/api/v1/embed', { method: 'POST', json, key: opts.key });

  before(async () => {
    pdfBytes = await makePdf([
      { heading: 'Harbour ferries', lines: ['The first ferry leaves Aldholm at 06:40 every weekday.'] },
      { heading: 'Fares', lines: ['A single adult ticket costs 9 euros.'] },
    ]);
    // a file server on the operator's own network (allow-listed in tests), for URL inputs
    files = http.createServer((req, res) => {
      if (req.url === '/ferries.pdf') {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end(Buffer.from(pdfBytes));
      }
      if (req.url === '/invoice.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(INVOICE);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', () => r()));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    s = await startTestServer();
    for (const [name, body] of [['invoice.txt', INVOICE], ['membership.txt', MEMBER], ['observatory.txt', OBSERVATORY], ['ferries.pdf', pdfBytes]] as const) {
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, body) });
      assert.equal(up.status, 201);
      assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
      ids[name] = up.body.id;
    }
    kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Embed' } })).body.knowledge_base.id;
    await s.json(`/api/knowledge-bases/${kb}/documents`, { method: 'POST', json: { document_id: ids['observatory.txt'] } });
  });
  after(async () => {
    await s?.close();
    files?.close();
  });

  test('parse: svc:// gives the same parse result as /api/parse; an allow-listed URL is fetched', async () => {
    const r = await embed({ action: 'parse', parse: { input: `svc://${ids['ferries.pdf']}` } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.action, 'parse');
    const d = r.body.data;
    assert.deepEqual(Object.keys(d).sort(), ['duration', 'job_id', 'result', 'studio_link', 'usage']);
    assert.deepEqual(d.usage, { num_pages: 2, credits: 3 });
    assert.equal(d.result.type, 'full');
    const direct = await s.json('/api/parse', { method: 'POST', json: { input: `svc://${ids['ferries.pdf']}` } });
    assert.deepEqual(d.result.chunks.map((c: any) => [c.content, c.page, c.metadata.type]), direct.body.result.chunks.map((c: any) => [c.content, c.page, c.metadata.type]));
    assert.ok(d.result.chunks.some((c: any) => c.page === 2 && c.content.includes('9 euros')));
    const job = await s.json(`/v1/jobs/${d.job_id}`);
    assert.equal(job.body.status, 'completed');

    const url = await embed({ action: 'parse', parse: { input: `${filesUrl}/ferries.pdf` } });
    assert.equal(url.status, 200, JSON.stringify(url.body));
    assert.ok(url.body.data.result.chunks.some((c: any) => c.content.includes('06:40')));
    // the same endpoint under the versioned base URL
    const v1 = await embed({ action: 'parse', parse: { input: `svc://${ids['observatory.txt']}` } }, { path: '/v1/embed' });
    assert.equal(v1.status, 200);
    assert.match(v1.body.data.result.chunks.map((c: any) => c.content).join(' '), /Katrin Malmberg/);
  });

  test('parse failures keep their own error codes', async () => {
    const missing = await embed({ action: 'parse', parse: { input: 'svc://00000000-0000-4000-8000-000000000000' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    const gone = await embed({ action: 'parse', parse: { input: `${filesUrl}/nothing.pdf` } });
    assert.ok(gone.status >= 400 && gone.body.error.code !== 'VALIDATION_ERROR', JSON.stringify(gone.body));
    const unresolvable = await embed({ action: 'parse', parse: { input: 'https://no-such-host.invalid/file.pdf' } });
    assert.equal(unresolvable.status, 502);
    assert.equal(unresolvable.body.error.code, 'UPSTREAM_ERROR');
    assert.deepEqual(Object.keys(unresolvable.body.error).sort(), ['code', 'details', 'message']);
  });

  test('extract: with a schema, with the suggested schema, with the document\'s own fields', async () => {
    const schema = await s.json('/v1/schemas', { method: 'POST', json: { name: 'Invoice basics', fields: [{ name: 'invoice_number', type: 'string' }, { name: 'total', type: 'number', description: 'total amount due' }, { name: 'vendor', type: 'string' }] } });
    assert.equal(schema.status, 201, JSON.stringify(schema.body));
    const r = await embed({ action: 'extract', extract: { document_id: ids['invoice.txt'], schema_id: schema.body.id } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.action, 'extract');
    const d = r.body.data;
    for (const k of ['success', 'job_id', 'extraction_id', 'document_id', 'data', 'field_results', 'overall_confidence', 'processing_time', 'usage']) assert.ok(k in d, k);
    assert.equal(d.success, true);
    assert.equal(d.document_id, ids['invoice.txt']);
    assert.equal(d.data.invoice_number, 'INV-2024-0042');
    assert.equal(d.data.total, 1250);
    assert.equal(d.data.vendor, 'Northwind Traders');
    assert.equal(d.usage.credits, 2);
    assert.deepEqual(r.body.definition, { source: 'schema', schema_id: schema.body.id });
    const stored = await s.json(`/v1/extractions/${d.extraction_id}`);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.data.invoice_number, 'INV-2024-0042');

    const viaInput = await embed({ action: 'extract', extract: { input: `svc://${ids['invoice.txt']}`, schema_id: schema.body.id, include_citations: true } });
    assert.equal(viaInput.status, 200, JSON.stringify(viaInput.body));
    const f = viaInput.body.data.field_results.find((x: any) => x.field === 'invoice_number');
    assert.match(f.evidence.text, /INV-2024-0042/);

    const suggested = await embed({ action: 'extract', extract: { document_id: ids['invoice.txt'] } });
    assert.equal(suggested.status, 200, JSON.stringify(suggested.body));
    console.log(`embed extract without schema_id (invoice): ${JSON.stringify(suggested.body.definition)} → ${JSON.stringify(suggested.body.data.data)}`);
    assert.ok(['suggested_schema', 'detected_fields'].includes(suggested.body.definition.source));
    assert.ok(JSON.stringify(suggested.body.data.data).includes('INV-2024-0042'));

    const own = await embed({ action: 'extract', extract: { document_id: ids['membership.txt'] } });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    console.log(`embed extract without schema_id (membership): ${JSON.stringify(own.body.definition)} → ${JSON.stringify(own.body.data.data)}`);
    assert.equal(own.body.definition.source, 'detected_fields');
    const values = Object.values(own.body.data.data).map(String);
    assert.ok(values.includes('Jane Doe') && values.includes('Piet Visser'), JSON.stringify(own.body.data.data));

    const fromUrl = await embed({ action: 'extract', extract: { input: `${filesUrl}/invoice.txt`, schema_id: schema.body.id } });
    assert.equal(fromUrl.status, 200, JSON.stringify(fromUrl.body));
    assert.equal(fromUrl.body.data.data.invoice_number, 'INV-2024-0042');

    const unknownSchema = await embed({ action: 'extract', extract: { document_id: ids['invoice.txt'], schema_id: '00000000-0000-4000-8000-000000000000' } });
    assert.equal(unknownSchema.status, 404);
    assert.equal(unknownSchema.body.error.code, 'NOT_FOUND');
    const unknownDoc = await embed({ action: 'extract', extract: { document_id: '00000000-0000-4000-8000-000000000000', schema_id: schema.body.id } });
    assert.equal(unknownDoc.status, 404);
  });

  test('chat: one JSON answer with citations; sessions continue', async () => {
    const r = await embed({ action: 'chat', chat: { message: 'Who founded the Orvella Observatory?', knowledge_base_id: kb } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.action, 'chat');
    assert.match(r.body.data.message, /Katrin Malmberg/);
    assert.ok(r.body.data.citations.length >= 1);
    const chunks = (await s.json(`/v1/documents/${ids['observatory.txt']}/content?response=chunks`)).body.chunks;
    for (const c of r.body.data.citations) {
      assert.deepEqual(Object.keys(c).sort(), ['chunk_id', 'content', 'document_id', 'metadata']);
      assert.equal(c.document_id, ids['observatory.txt']);
      assert.equal(chunks.find((x: any) => x.id === c.chunk_id)?.content, c.content);
      assert.equal(c.metadata.document_name, 'observatory.txt');
    }
    const next = await embed({ action: 'chat', chat: { message: 'Which comet did it discover?', knowledge_base_id: kb, session_id: r.body.data.session_id, mode: 'deep' } });
    assert.equal(next.status, 200);
    assert.match(next.body.data.message, /Malmberg-Osei/);
    assert.equal(next.body.data.session_id, r.body.data.session_id);
    assert.equal(next.body.data.mode, 'deep');
    const msgs = await s.json(`/api/chat/sessions/${r.body.data.session_id}/messages`);
    assert.equal(msgs.body.messages.length, 4);
    const none = await embed({ action: 'chat', chat: { message: 'hello', knowledge_base_id: '00000000-0000-4000-8000-000000000000' } });
    assert.equal(none.status, 404);
    assert.equal(none.body.error.code, 'NOT_FOUND');
  });

  test('every validation error is a 400 VALIDATION_ERROR naming the field; a key is required', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const cases: [unknown, string][] = [
      [{}, 'body.action'],
      [{ action: 'summarise' }, 'body.action'],
      [{ action: 42 }, 'body.action'],
      [{ action: 'parse' }, 'body.parse'],
      [{ action: 'parse', parse: {} }, 'body.parse.input'],
      [{ action: 'parse', parse: { input: '' } }, 'body.parse.input'],
      [{ action: 'parse', parse: { input: 'ftp://example.com/a.pdf' } }, 'body.parse.input'],
      [{ action: 'parse', parse: { input: 'http://example.com/a.pdf' } }, 'body.parse.input'],
      [{ action: 'parse', parse: { input: 'svc://not-a-uuid' } }, 'body.parse.input'],
      [{ action: 'extract', extract: { input: 'jobid://42' } }, 'body.extract.input'],
      [{ action: 'extract' }, 'body.extract'],
      [{ action: 'extract', extract: {} }, 'body.extract.document_id'],
      [{ action: 'extract', extract: { document_id: 'abc' } }, 'body.extract.document_id'],
      [{ action: 'extract', extract: { document_id: uuid, schema_id: 'abc' } }, 'body.extract.schema_id'],
      [{ action: 'extract', extract: { document_id: uuid, input: `svc://${uuid}` } }, 'body.extract.input'],
      [{ action: 'chat' }, 'body.chat'],
      [{ action: 'chat', chat: { knowledge_base_id: uuid } }, 'body.chat.message'],
      [{ action: 'chat', chat: { message: 'hi' } }, 'body.chat.knowledge_base_id'],
      [{ action: 'chat', chat: { message: 'hi', knowledge_base_id: 'kb-1' } }, 'body.chat.knowledge_base_id'],
      [{ action: 'chat', chat: { message: 'hi', knowledge_base_id: uuid, session_id: 'x' } }, 'body.chat.session_id'],
      [{ action: 'chat', chat: { message: 'hi', knowledge_base_id: uuid, mode: 'slow' } }, 'body.chat.mode'],
      [{ action: 'chat', chat: { message: '', knowledge_base_id: uuid } }, 'body.chat.message'],
    ];
    for (const [json, field] of cases) {
      const r = await embed(json);
      assert.equal(r.status, 400, `${JSON.stringify(json)} → ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.ok(r.body.error.details.some((d: any) => d.field === field), `${JSON.stringify(json)}: ${JSON.stringify(r.body.error.details)}`);
    }
    const notJson = await s.json('/api/v1/embed', { method: 'POST', body: 'action=parse', headers: { 'content-type': 'text/plain' } });
    assert.equal(notJson.status, 400);
    const noKey = await embed({ action: 'chat', chat: { message: 'hi', knowledge_base_id: kb } }, { key: null });
    assert.equal(noKey.status, 401);
    const badKey = await embed({ action: 'chat', chat: { message: 'hi', knowledge_base_id: kb } }, { key: 'svc_0123456789abcdef' });
    assert.equal(badKey.status, 401);
  });

  test('credits: parse per page, extract 2.0, chat 0.1', async () => {
    const before = await s.runtime.store.repo('usage').find({});
    await embed({ action: 'chat', chat: { message: 'Who founded the Orvella Observatory?', knowledge_base_id: kb } });
    await embed({ action: 'parse', parse: { input: `svc://${ids['ferries.pdf']}` } });
    const rows = (await s.runtime.store.repo('usage').find({})).filter((r) => !before.some((b) => b.id === r.id));
    assert.deepEqual(rows.map((r) => [r.operation, r.credits]).sort(), [['chat', 0.1], ['parse', 3]]);
  });
});
