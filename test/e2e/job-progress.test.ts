// @services: the progress_detail column of jobs and the order of progress writes across stages on the transport
// The progress of a document's processing on its job: progress (0-100) never goes back across polls, and
// progress_detail counts the pages read and the chunks made and indexed (issue 32).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { makePdf } from '../helpers/fixtures.js';
import { PDFDocument } from 'pdf-lib';
import { hasTesseract } from '../helpers/reader-harness.js';
import { scannedPng } from '../helpers/scans.js';

const WORDS = ['ledger', 'harbour', 'invoice', 'turbine', 'orchard', 'quarry', 'lantern', 'meadow', 'copper', 'glacier', 'summit', 'canal'];

/** A born-digital PDF of `n` pages, each with a heading and a few lines of distinct text. */
function pages(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    heading: `Section ${i + 1}: ${WORDS[i % WORDS.length]} report`,
    lines: Array.from({ length: 12 }, (_, j) => `Line ${j + 1} of page ${i + 1} records the ${WORDS[(i + j) % WORDS.length]} figures for week ${(i * 12 + j) % 52}.`),
  }));
}

/** Polls a job until it ends, keeping every answer seen. */
async function pollJob(s: TestServer, id: string): Promise<any[]> {
  const seen: any[] = [];
  for (let i = 0; i < 6000; i++) {
    const r = await s.json(`/api/jobs/${id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    seen.push(r.body);
    if (r.body.status === 'completed' || r.body.status === 'failed') return seen;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`job ${id} did not end: ${JSON.stringify(seen.at(-1))}`);
}

function assertMonotonic(seen: any[]): void {
  const values = seen.map((b) => b.progress);
  for (const v of values) assert.ok(typeof v === 'number' && v >= 0 && v <= 100, `progress ${v}`);
  for (let i = 1; i < values.length; i++) assert.ok(values[i] >= values[i - 1], `progress went back from ${values[i - 1]} to ${values[i]}: ${values.join(',')}`);
  assert.equal(values.at(-1), 100);
}

describe('job progress and progress_detail over HTTP', () => {
  let s: TestServer;
  let pdf: Uint8Array;
  const N = 24;

  before(async () => {
    s = await startTestServer();
    pdf = await makePdf(pages(N));
  });
  after(async () => {
    await s?.close();
  });

  test('an uploaded multi-page PDF: progress never goes back; the final detail counts its pages and chunks', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('progress.pdf', pdf) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const seen = await pollJob(s, up.body.id);
    const last = seen.at(-1);
    assert.equal(last.status, 'completed', JSON.stringify(last));
    assertMonotonic(seen);
    for (const b of seen) assert.equal(typeof b.progress_detail, 'object', 'every answer carries progress_detail');

    const doc = (await s.json(`/v1/documents/${up.body.id}`)).body;
    assert.equal(doc.pages, N);
    const chunks = (await s.json(`/v1/documents/${up.body.id}/content?response=chunks`)).body.chunks;
    assert.ok(chunks.length >= 1);
    assert.deepEqual(last.progress_detail, { pages_total: N, pages_read: N, pages_ocr: 0, chunks: chunks.length, chunks_indexed: chunks.length });
    // counts never exceed their totals on the way
    for (const b of seen) {
      const d = b.progress_detail;
      if (d.pages_read !== undefined) assert.ok(d.pages_read <= d.pages_total, JSON.stringify(d));
      if (d.chunks_indexed !== undefined) assert.ok(d.chunks_indexed <= d.chunks, JSON.stringify(d));
    }
    // the search index holds what chunks_indexed says
    const found = await s.json('/v1/search', { method: 'POST', json: { query: 'glacier figures', limit: 5 } });
    assert.ok(found.body.data.some((r: any) => r.document_id === up.body.id), JSON.stringify(found.body));
  });

  test('an async parse of an svc:// document: pages and chunks of its result', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('progress-2.pdf', pdf) });
    assert.equal(up.status, 201);
    assert.equal((await pollJob(s, up.body.id)).at(-1).status, 'completed');
    const started = await s.json('/api/parse/async', { method: 'POST', json: { input: `svc://${up.body.id}`, config: {} } });
    assert.ok(started.status === 200 || started.status === 202, JSON.stringify(started.body));
    const seen = await pollJob(s, started.body.job_id);
    const last = seen.at(-1);
    assert.equal(last.status, 'completed', JSON.stringify(last));
    assertMonotonic(seen);
    assert.equal(last.progress_detail.pages_total, N);
    assert.equal(last.progress_detail.pages_read, N);
    assert.equal(last.progress_detail.chunks, last.result.chunks.length);
  });

  test('a PDF with a scanned page among text pages: pages_ocr counts the page read with OCR', { skip: hasTesseract ? false : 'tesseract is not installed' }, async () => {
    const mixed = await PDFDocument.load(await makePdf(pages(2)));
    const png = await mixed.embedPng(scannedPng(['DELIVERY NOTE 4471', 'Received by Marta']));
    mixed.addPage([png.width * 0.3, png.height * 0.3]).drawImage(png, { x: 0, y: 0, width: png.width * 0.3, height: png.height * 0.3 });
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('mixed.pdf', await mixed.save()) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const seen = await pollJob(s, up.body.id);
    const last = seen.at(-1);
    assert.equal(last.status, 'completed', JSON.stringify(last));
    assertMonotonic(seen);
    const chunks = (await s.json(`/v1/documents/${up.body.id}/content?response=chunks`)).body.chunks;
    assert.deepEqual(last.progress_detail, { pages_total: 3, pages_read: 3, pages_ocr: 1, chunks: chunks.length, chunks_indexed: chunks.length });
  });
});
