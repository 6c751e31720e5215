// @services: stages on a separate worker process over MariaDB and RabbitMQ
// Extraction on a dedicated worker: the API process does not run stages (QUIRE_RUN_STAGES=false) and a
// separate `quire-worker` process does, over MariaDB and RabbitMQ (CI's second pass). The synchronous
// /v1/extractions and the Server-Sent Events of /api/extract/run both work, their stages ran on the worker,
// and the stream shows the worker's progress and field events (relayed over the event bus).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MYSQL_URL, AMQP_URL, startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import { sseEvents } from '../helpers/sse.js';
import type { TestServer } from '../helpers/server.js';
import { startWorker } from '../helpers/workers.js';
import type { WorkerProcess } from '../helpers/workers.js';
import { makePdf } from '../helpers/fixtures.js';
import { deleteRabbitPrefix } from '../helpers/leftovers.mjs';

const SKIP = MYSQL_URL && AMQP_URL ? false : 'needs MariaDB and RabbitMQ shared by two processes: set QUIRE_TEST_MYSQL_URL and QUIRE_TEST_AMQP_URL (CI pass 2)';
const FIELDS = [
  { name: 'invoice_number', type: 'string', description: 'Invoice number' },
  { name: 'customer', type: 'string', description: 'Bill-to customer' },
];

describe('extraction on a separate worker process', { skip: SKIP, timeout: 240_000 }, () => {
  let s: TestServer;
  let worker: WorkerProcess;
  let docId: string;
  before(async () => {
    s = await startTestServer({ env: { QUIRE_RUN_STAGES: 'false' } });
    worker = await startWorker(s);
    const pdf = await makePdf([{ heading: 'ACME Supplies Ltd', lines: ['Invoice Number: INV-7001', 'Date: 2024-03-05', 'Bill To: Initech Limited', 'Total: 512.40'] }]);
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('invoice-7001.pdf', pdf) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    docId = up.body.id;
    const doc = await waitForStatus(s, `/v1/documents/${docId}`);
    assert.equal(doc.status, 'completed', JSON.stringify(doc));
  });
  after(async () => {
    const prefix = s?.runtime.config.queue.prefix;
    await worker?.stop();
    await s?.close();
    // the worker's retry queues, if it used any
    if (prefix && AMQP_URL) await deleteRabbitPrefix(AMQP_URL, prefix).catch(() => {});
  });

  const stageWorkers = async (jobId: string) => Object.fromEntries((await s.runtime.store.repo('job_stages').find({ job_id: jobId })).map((r) => [r.stage, r.worker]));

  test('POST /v1/extractions runs on the worker and answers with the extracted values', async () => {
    assert.notEqual(worker.id, s.runtime.workerId);
    const r = await s.json('/v1/extractions', { method: 'POST', json: { document_id: docId, fields: FIELDS } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.invoice_number, 'INV-7001');
    assert.deepEqual(await stageWorkers(r.body.job_id), { 'extract.load': worker.id, 'extract.extract': worker.id });
    const usage = await s.runtime.store.repo('usage').find({ resource_id: r.body.id, operation: 'extract' });
    assert.equal(usage.length, 1, 'charged once');
  });

  test('the SSE stream of /api/extract/run relays the worker\'s events and ends with the result', async () => {
    const res = await s.api('/api/extract/run?stream=1', { method: 'POST', json: { document_id: docId, config: { fields: FIELDS } } });
    assert.equal(res.status, 200);
    const jobId = res.headers.get('x-job-id')!;
    const events: { event: string; data: any }[] = [];
    for await (const e of sseEvents(res)) events.push(e);
    const types = events.map((e) => e.event);
    assert.equal(types[0], 'progress');
    assert.equal(events[0]!.data.job_id, jobId);
    assert.equal(types.at(-1), 'complete', types.join(' '));
    assert.equal(types.filter((t) => t === 'field_extracted').length, FIELDS.length, types.join(' '));
    const progress = events.filter((e) => e.event === 'progress').map((e) => e.data.progress);
    assert.ok(progress.every((p, i) => i === 0 || p >= progress[i - 1]!), `progress ${progress.join(',')}`);
    const done = events.at(-1)!.data;
    assert.equal(done.job.status, 'completed');
    assert.equal(done.result.data.invoice_number, 'INV-7001');
    assert.deepEqual(await stageWorkers(jobId), { 'extract.load': worker.id, 'extract.extract': worker.id });
  });

  test('errors found at submission are answered by the API process before a job exists', async () => {
    const before = await s.runtime.store.repo('jobs').count({ type: 'extract' });
    assert.equal((await s.json('/v1/extractions', { method: 'POST', json: { document_id: '7b0c3e0e-8d7e-4b8e-9b43-4a43c1e3a001', fields: FIELDS } })).status, 404);
    assert.equal((await s.json('/api/extract/run', { method: 'POST', json: { document_id: docId } })).status, 400);
    assert.equal(await s.runtime.store.repo('jobs').count({ type: 'extract' }), before);
  });
});
