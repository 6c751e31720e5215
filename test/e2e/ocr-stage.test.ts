// OCR is a pipeline stage of its own (read → ocr → chunk): the read stage leaves the pages without a text
// layer to it, and a document without such pages goes through it untouched. Embedded server (pass 1); the
// dedicated OCR worker over RabbitMQ is in ocr-worker.test.ts (pass 2).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument } from 'pdf-lib';
import { STAGE_NAMES } from '@quire/config';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { hasTesseract } from '../helpers/reader-harness.js';
import { makePdf } from '../helpers/fixtures.js';
import { scannedPng } from '../helpers/scans.js';

/** A PDF whose one page is that image, with no text layer. */
async function scannedPdf(lines: string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const png = await pdf.embedPng(scannedPng(lines));
  const page = pdf.addPage([png.width * 0.3, png.height * 0.3]);
  page.drawImage(png, { x: 0, y: 0, width: png.width * 0.3, height: png.height * 0.3 });
  return pdf.save();
}

const LINES = ['DELIVERY NOTE 4471', 'Received by Marta'];
const squash = (t: string) => String(t).replace(/\s+/g, '');

describe('the ocr stage', { skip: hasTesseract ? false : 'tesseract is not installed' }, () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const stagesOf = async (jobId: string) => (await s.runtime.store.repo('job_stages').find({ job_id: jobId })).map((r) => r.stage).sort();
  const upload = async (name: string, bytes: Uint8Array, type: string) => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes, {}, type) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const doc = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
    assert.equal(doc.status, 'completed', JSON.stringify(doc));
    const job = await s.runtime.store.repo('jobs').findOne({ document_id: up.body.id, type: 'document' });
    assert.ok(job, 'the upload has its ingest job');
    return { id: up.body.id as string, jobId: job.id, content: (await s.json(`/v1/documents/${up.body.id}/content`)).body };
  };

  test('every stage name of the pipelines can be named in QUIRE_RUN_STAGES', () => {
    const names = new Set(s.runtime.pipelines.stageKeys().map((k) => k.slice(k.indexOf('.') + 1)));
    for (const n of names) assert.ok((STAGE_NAMES as readonly string[]).includes(n), `${n} is not in STAGE_NAMES`);
    assert.ok(names.has('ocr'));
  });

  test('an uploaded scan goes read → ocr → chunk → index, and its text comes from OCR', async () => {
    const { jobId, content } = await upload('note.png', scannedPng(LINES), 'image/png');
    assert.deepEqual(await stagesOf(jobId), ['ingest.chunk', 'ingest.index', 'ingest.ocr', 'ingest.read']);
    assert.match(squash(content.text), /DELIVERYNOTE4471.*ReceivedbyMarta/s, JSON.stringify(content.text));
    assert.ok(content.ocr_engine, `ocr_engine is filled: ${JSON.stringify(content.ocr_engine)}`);
  });

  test('a scanned PDF through /api/parse goes fetch → read → ocr → chunk, with the OCR text in its chunks', async () => {
    const r = await s.json('/api/parse', { method: 'POST', body: uploadForm('scan.pdf', await scannedPdf(LINES)) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const text = (r.body.result.chunks as { content: string }[]).map((c) => c.content).join('\n');
    assert.match(squash(text), /DELIVERYNOTE4471.*ReceivedbyMarta/s, text);
    assert.deepEqual(await stagesOf(r.body.job_id), ['parse.chunk', 'parse.fetch', 'parse.ocr', 'parse.read']);
  });

  test('a PDF with a text layer passes through the ocr stage unread: nothing is OCRed', async () => {
    const before = await s.runtime.metrics.registry.getSingleMetricAsString('quire_ocr_pages_total').catch(() => '');
    const pdf = await makePdf([{ heading: 'Tide tables', lines: ['Brest high water 06:12'] }]);
    const { jobId, content } = await upload('tides.pdf', pdf, 'application/pdf');
    assert.deepEqual(await stagesOf(jobId), ['ingest.chunk', 'ingest.index', 'ingest.ocr', 'ingest.read']);
    assert.match(content.text, /Brest high water 06:12/);
    assert.ok(!content.ocr_engine, JSON.stringify(content.ocr_engine));
    const after = await s.runtime.metrics.registry.getSingleMetricAsString('quire_ocr_pages_total').catch(() => '');
    assert.equal(after, before, 'no page was OCRed');
  });
});
