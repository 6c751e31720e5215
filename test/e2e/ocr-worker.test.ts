// @services: a dedicated OCR worker and a reader-only worker over MariaDB and RabbitMQ
// OCR on its own queue: the API process runs no stages (QUIRE_RUN_STAGES=false), one `quire-worker` runs the
// reading stages without OCR (QUIRE_RUN_STAGES=fetch,read,chunk,index) and another only OCR
// (QUIRE_RUN_STAGES=ocr). A scanned upload completes with its OCR text, its ocr stage ran in the OCR worker and
// every other stage in the reader worker; a text PDF's ocr stage, which has nothing to OCR, also goes there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MYSQL_URL, AMQP_URL, startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startWorker } from '../helpers/workers.js';
import type { WorkerProcess } from '../helpers/workers.js';
import { makePdf } from '../helpers/fixtures.js';
import { hasTesseract } from '../helpers/reader-harness.js';
import { deleteRabbitPrefix } from '../helpers/leftovers.mjs';
import { scannedPng } from '../helpers/scans.js';

const SKIP = !(MYSQL_URL && AMQP_URL) ? 'needs MariaDB and RabbitMQ shared by three processes: set QUIRE_TEST_MYSQL_URL and QUIRE_TEST_AMQP_URL (CI pass 2)' : hasTesseract ? false : 'tesseract is not installed';

describe('OCR on a dedicated worker process', { skip: SKIP, timeout: 400_000 }, () => {
  let s: TestServer;
  let reader: WorkerProcess;
  let ocr: WorkerProcess;
  before(async () => {
    s = await startTestServer({ env: { QUIRE_RUN_STAGES: 'false' } });
    // each with its metrics on a health port: the pages each process OCRed
    const metrics = { QUIRE_WORKER_HEALTH_PORT: '0', QUIRE_METRICS: 'on' };
    reader = await startWorker(s, { ...metrics, QUIRE_RUN_STAGES: 'fetch,read,chunk,index' });
    ocr = await startWorker(s, { ...metrics, QUIRE_RUN_STAGES: 'ocr' });
  });
  after(async () => {
    const prefix = s?.runtime.config.queue.prefix;
    await reader?.stop();
    await ocr?.stop();
    await s?.close();
    if (prefix && AMQP_URL) await deleteRabbitPrefix(AMQP_URL, prefix).catch(() => {});
  });

  /** quire_ocr_pages_total of a worker (its /metrics on the health port it printed) */
  const ocrPages = async (w: WorkerProcess) => {
    const url = /health: (http:\/\/\S+)/.exec(w.output())?.[1];
    assert.ok(url, w.output());
    const text = await (await fetch(`${url.replace('0.0.0.0', '127.0.0.1')}/metrics`)).text();
    const m = /^quire_ocr_pages_total (\d+)/m.exec(text);
    assert.ok(m, text.slice(0, 2000));
    return Number(m[1]);
  };
  const stageWorkers = async (jobId: string) => Object.fromEntries((await s.runtime.store.repo('job_stages').find({ job_id: jobId })).map((r) => [r.stage, r.worker]));
  const upload = async (name: string, bytes: Uint8Array, type: string) => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes, {}, type) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const doc = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
    assert.equal(doc.status, 'completed', `${JSON.stringify(doc)}\nreader:\n${reader.output()}\nocr:\n${ocr.output()}`);
    const job = (await s.runtime.store.repo('jobs').findOne({ document_id: up.body.id, type: 'document' }))!;
    return { jobId: job.id, content: (await s.json(`/v1/documents/${up.body.id}/content`)).body };
  };

  test('each worker consumes only the stages it was given', () => {
    assert.ok(reader.alive() && ocr.alive());
    assert.notEqual(reader.id, ocr.id);
    assert.notEqual(reader.id, s.runtime.workerId);
  });

  test('a scanned upload is OCRed by the OCR worker; the reader worker reads, chunks and indexes it', async () => {
    const { jobId, content } = await upload('note.png', scannedPng(['DELIVERY NOTE 4471', 'Received by Marta']), 'image/png');
    assert.match(String(content.text).replace(/\s+/g, ''), /DELIVERYNOTE4471.*ReceivedbyMarta/s, JSON.stringify(content.text));
    assert.ok(content.ocr_engine, `ocr_engine is filled: ${JSON.stringify(content)}`);
    assert.deepEqual(await stageWorkers(jobId), { 'ingest.read': reader.id, 'ingest.ocr': ocr.id, 'ingest.chunk': reader.id, 'ingest.index': reader.id });
    assert.equal(await ocrPages(reader), 0, 'the reader worker OCRed nothing');
    assert.equal(await ocrPages(ocr), 1, 'the OCR worker OCRed the page');
  });

  test('a PDF with a text layer passes through the OCR worker without OCR', async () => {
    const { jobId, content } = await upload('tides.pdf', await makePdf([{ heading: 'Tide tables', lines: ['Brest high water 06:12'] }]), 'application/pdf');
    assert.match(content.text, /Brest high water 06:12/);
    assert.ok(!content.ocr_engine, JSON.stringify(content.ocr_engine));
    assert.deepEqual(await stageWorkers(jobId), { 'ingest.read': reader.id, 'ingest.ocr': ocr.id, 'ingest.chunk': reader.id, 'ingest.index': reader.id });
  });
});
