// @services: aggregate queries by day and dimension (SQL that differs between SQLite and MySQL)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';
import { makePdf } from '../helpers/fixtures.js';
import { signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';

const page = (tag: string, i: number) => ({ heading: `${tag} page ${i}`, lines: [`Invoice number ${tag}-${i}`, 'Total due: 310.00 EUR', 'Payment terms: 14 days'] });

async function upload(s: TestServer, u: TestUser, name: string, body: Uint8Array | string, expect: 'completed' | 'failed' = 'completed'): Promise<string> {
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, body), key: u.key });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 120_000, u.key);
  assert.equal(done.status, expect, JSON.stringify(done));
  return up.body.id;
}

describe('analytics over HTTP: the six endpoints count the work done', () => {
  let s: TestServer;
  let a: TestUser;
  let b: TestUser;
  let doc1: string;
  let kbId: string;
  let extractionConfidence: number;
  const docsOfA = new Set<string>();

  before(async () => {
    s = await startTestServer();
    a = await signUpUser(s, 'analytics-a@example.com');
    b = await signUpUser(s, 'analytics-b@example.com');
    // A: a 2-page PDF, a 1-page PDF, a text file (1 page) and a corrupt PDF (fails, not charged)
    doc1 = await upload(s, a, 'two.pdf', await makePdf([page('A', 1), page('A', 2)]));
    docsOfA.add(doc1);
    docsOfA.add(await upload(s, a, 'one.pdf', await makePdf([page('B', 1)])));
    docsOfA.add(await upload(s, a, 'notes.txt', 'Meeting notes\n\nThe budget for the harbour project is 40,000 EUR.'));
    docsOfA.add(await upload(s, a, 'broken.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntrailer\n%%EOF-truncated', 'failed'));
    const ex = await s.json('/api/extract/run', { method: 'POST', json: { document_id: doc1, config: { fields: [{ name: 'total_due', type: 'string' }] } }, key: a.key });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    extractionConfidence = (await s.json(`/v1/extractions/${ex.body.extraction_id}`, { key: a.key })).body.confidence;
    const kb = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Invoices' }, key: a.key });
    kbId = kb.body.knowledge_base?.id ?? kb.body.id;
    assert.ok((await s.json(`/api/knowledge-bases/${kbId}/documents`, { method: 'POST', json: { document_id: doc1 }, key: a.key })).status < 300);
    assert.equal((await s.json('/api/chat', { method: 'POST', json: { message: 'What is the total due?', knowledge_base_id: kbId }, key: a.key })).status, 200);
    // B: one document, never counted for A
    await upload(s, b, 'other.pdf', await makePdf([page('Z', 1), page('Z', 2), page('Z', 3)]));
  });
  after(async () => {
    await s?.close();
  });

  test('GET /api/analytics: summary, trends, period; knowledge_base_id narrows it', async () => {
    const r = await s.json('/api/analytics?period=7d', { key: a.key });
    assert.equal(r.status, 200);
    // 2 + 1 + 1 pages at 1.5, one extraction at 2, one chat query at 0.1
    assert.deepEqual(r.body.summary, { documents_processed: 3, extractions_run: 1, chat_queries: 1, total_pages: 4, total_credits_used: 8.1 });
    assert.deepEqual(r.body.trends.documents, { current: 3, previous: 0, change_percent: null });
    assert.deepEqual(r.body.trends.extractions, { current: 1, previous: 0, change_percent: null });
    const days = (Date.parse(r.body.period.end) - Date.parse(r.body.period.start)) / 86_400_000;
    assert.equal(Math.round(days), 7);
    assert.equal(Math.round((Date.parse((await s.json('/api/analytics', { key: a.key })).body.period.end) - Date.parse((await s.json('/api/analytics', { key: a.key })).body.period.start)) / 86_400_000), 30, 'default period 30d');

    const kb = await s.json(`/api/analytics?period=30d&knowledge_base_id=${kbId}`, { key: a.key });
    assert.deepEqual(kb.body.summary, { documents_processed: 1, extractions_run: 1, chat_queries: 1, total_pages: 2, total_credits_used: 5.1 });
    assert.equal((await s.json(`/api/analytics?knowledge_base_id=${kbId}`, { key: b.key })).status, 404, "another user's knowledge base");
    errorBody((await s.json('/api/analytics?period=2w', { key: a.key })).body, 'VALIDATION_ERROR');

    const other = await s.json('/api/analytics?period=7d', { key: b.key });
    assert.deepEqual(other.body.summary, { documents_processed: 1, extractions_run: 0, chat_queries: 0, total_pages: 3, total_credits_used: 4.5 });
  });

  test('GET /api/analytics/drilldown: counts and percentages by dimension', async () => {
    const status = await s.json('/api/analytics/drilldown?metric=documents&dimension=status&period=7d', { key: a.key });
    assert.deepEqual(status.body, { metric: 'documents', dimension: 'status', data: [{ value: 'completed', count: 3, percentage: 75 }, { value: 'failed', count: 1, percentage: 25 }] });
    const types = await s.json('/api/analytics/drilldown?metric=documents&dimension=file_type', { key: a.key });
    assert.deepEqual(types.body.data, [{ value: 'pdf', count: 3, percentage: 75 }, { value: 'txt', count: 1, percentage: 25 }]);
    const schema = await s.json('/api/analytics/drilldown?metric=extractions&dimension=schema', { key: a.key });
    assert.deepEqual(schema.body.data, [{ value: 'inline', count: 1, percentage: 100 }]);
    const chat = await s.json('/api/analytics/drilldown?metric=chat&dimension=status', { key: a.key });
    assert.equal(chat.body.data.reduce((n: number, d: any) => n + d.count, 0), 1);
    errorBody((await s.json('/api/analytics/drilldown?metric=documents&dimension=schema', { key: a.key })).body, 'VALIDATION_ERROR');
  });

  test('GET /api/analytics/query: daily rows, dimensions, filters, totals of every metric', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const q = await s.json('/api/analytics/query?metrics=documents_processed,credits_used&period=7d&aggregation=daily', { key: a.key });
    assert.equal(q.status, 200);
    assert.equal(q.body.data.length, 8, 'every day of the window, the partial first and last days included');
    const row = q.body.data.find((r: any) => r.date === today);
    assert.deepEqual(row, { date: today, documents_processed: 3, credits_used: 8.1 });
    assert.equal(q.body.data.filter((r: any) => r.date !== today).every((r: any) => r.documents_processed === 0 && r.credits_used === 0), true);
    assert.deepEqual(q.body.totals, { documents_processed: 3, credits_used: 8.1 });

    const byOp = await s.json('/api/analytics/query?metrics=credits_used&dimensions=operation&period=7d', { key: a.key });
    assert.deepEqual(
      byOp.body.data.map((r: any) => [r.operation, r.credits_used]).sort(),
      [['chat', 0.1], ['extract', 2], ['parse', 6]],
    );
    const filtered = await s.json(`/api/analytics/query?metrics=credits_used,extractions_run&filters=${encodeURIComponent(JSON.stringify({ operation: 'extract' }))}`, { key: a.key });
    assert.deepEqual(filtered.body.totals, { credits_used: 2, extractions_run: 1 });

    const all = await s.json('/api/analytics/query?period=30d&aggregation=monthly', { key: a.key });
    const t = all.body.totals;
    assert.equal(t.pages_processed, 4);
    assert.equal(t.extractions_run, 1);
    assert.equal(t.chat_queries, 1);
    assert.equal(t.total_credits, 8.1);
    assert.deepEqual(t.credits_by_operation, { parse: 6, extract: 2, chat: 0.1, generate: 0 });
    assert.equal(t.avg_extraction_confidence, Math.round(extractionConfidence * 10_000) / 10_000);
    assert.equal(t.extraction_accuracy, 1, 'nothing corrected');
    assert.equal(t.success_rate, 0.8, '4 of 5 jobs completed (the corrupt PDF failed)');
    assert.ok(t.avg_processing_time_ms > 0);
    assert.ok(t.avg_extraction_time_ms >= 0);
    assert.ok(t.avg_chat_response_time_ms >= 0);
    assert.equal(t.estimated_cost, null);
    errorBody((await s.json('/api/analytics/query?metrics=bogus', { key: a.key })).body, 'VALIDATION_ERROR');
    errorBody((await s.json('/api/analytics/query?filters=not-json', { key: a.key })).body, 'VALIDATION_ERROR');
  });

  test('GET /api/analytics/query: documents, pages and credits by file_type, and the file_type filter', async () => {
    const byType = await s.json('/api/analytics/query?metrics=documents_processed,pages_processed,credits_used&dimensions=file_type&period=7d', { key: a.key });
    assert.equal(byType.status, 200, JSON.stringify(byType.body));
    const rows = Object.fromEntries(byType.body.data.map((r: any) => [r.file_type, [r.documents_processed, r.pages_processed, r.credits_used]]));
    // two PDFs (2 + 1 pages) and the extraction of the 2-page PDF; one text file; the chat query has no file
    assert.deepEqual(rows, { pdf: [2, 3, 6.5], txt: [1, 1, 1.5], null: [0, 0, 0.1] });
    const pdf = await s.json(`/api/analytics/query?metrics=documents_processed,pages_processed,credits_used&period=7d&filters=${encodeURIComponent(JSON.stringify({ file_type: 'pdf' }))}`, { key: a.key });
    assert.equal(pdf.status, 200);
    assert.deepEqual(pdf.body.totals, { documents_processed: 2, pages_processed: 3, credits_used: 6.5 });
  });

  test('GET /api/analytics/realtime: nothing running, rates of the last 15 minutes, recent activity of the caller only', async () => {
    const r = await s.json('/api/analytics/realtime', { key: a.key });
    assert.equal(r.status, 200);
    assert.equal(r.body.active_jobs, 0);
    assert.equal(r.body.queue_depth, 0);
    assert.equal(r.body.processing_rate.documents_per_minute, 0.2);
    assert.equal(r.body.processing_rate.pages_per_minute, Math.round((4 / 15) * 1000) / 1000);
    const types = r.body.recent_activity.map((x: any) => x.type).sort();
    assert.deepEqual(types, ['chat.message', 'document.completed', 'document.completed', 'document.completed', 'document.failed', 'extraction.completed']);
    for (const x of r.body.recent_activity) if (x.document_id) assert.ok(docsOfA.has(x.document_id));
  });

  test('GET /api/analytics/export: csv, json and xlsx parse and carry the totals; reports list', async () => {
    const before = await s.json('/api/analytics/reports', { key: a.key });
    assert.deepEqual(before.body.reports.map((r: any) => r.id), ['weekly-usage', 'monthly-cost', 'quarterly-quality', 'yearly-overview']);
    for (const r of before.body.reports) {
      assert.deepEqual(Object.keys(r).slice(0, 6), ['id', 'name', 'type', 'schedule', 'last_generated', 'next_run']);
      assert.equal(r.last_generated, null);
      assert.ok(Date.parse(r.next_run) > Date.now());
    }

    const csv = await s.api('/api/analytics/export?period=7d', { key: a.key });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /^text\/csv/);
    assert.match(csv.headers.get('content-disposition')!, /^attachment; filename="analytics-7d-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parseCsv(await csv.text(), { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, 9, '8 days and the totals row');
    const total = rows.at(-1)!;
    assert.equal(total.date, 'total');
    assert.equal(Number(total.documents_processed), 3);
    assert.equal(Number(total['credits_by_operation.extract']), 2);
    assert.equal(total.estimated_cost, '');

    const json = await s.json('/api/analytics/export?format=json&metrics=chat_queries,pages_processed', { key: a.key });
    assert.deepEqual(json.body.totals, { chat_queries: 1, pages_processed: 4 });
    assert.equal(json.body.data.length, 31);

    const xlsx = await s.api('/api/analytics/export?format=xlsx&report=weekly-usage', { key: a.key });
    assert.equal(xlsx.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as any);
    const totals = new Map<string, unknown>();
    wb.getWorksheet('Totals')!.eachRow((r, i) => {
      if (i > 1) totals.set(String(r.getCell(1).value), r.getCell(2).value);
    });
    assert.equal(totals.get('documents_processed'), 3);
    assert.equal(totals.get('credits_used'), 8.1);
    assert.equal(wb.getWorksheet('Data')!.rowCount, 9, 'header and 8 days');

    const after = await s.json('/api/analytics/reports', { key: a.key });
    assert.ok(after.body.reports.find((r: any) => r.id === 'weekly-usage').last_generated);
    assert.equal(after.body.reports.find((r: any) => r.id === 'monthly-cost').last_generated, null);
    assert.equal((await s.json('/api/analytics/export?report=nope', { key: a.key })).status, 404);
  });
});
