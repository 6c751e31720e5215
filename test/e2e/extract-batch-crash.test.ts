// @services: a batch taken over by another worker after a crash (leases in the store, RabbitMQ)
// An extraction batch on two worker processes (API with QUIRE_RUN_STAGES=false; MariaDB + RabbitMQ, CI's
// second pass). The worker running a batch child's extract stage is killed with SIGKILL while the stage
// runs (a test extractor, loaded through QUIRE_PLUGINS, takes a few seconds per document); with a short
// lease the other worker takes the stage over. The batch completes once, every document has exactly one
// extraction, one 'extract' charge and one extraction.completed event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { batchJobId } from '@quire/engine';
import { MYSQL_URL, AMQP_URL, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startCrashRig } from '../helpers/workers.js';
import type { CrashRig } from '../helpers/workers.js';
import { makePdf } from '../helpers/fixtures.js';

const SKIP = MYSQL_URL && AMQP_URL ? false : 'needs MariaDB and RabbitMQ shared by several processes: set QUIRE_TEST_MYSQL_URL and QUIRE_TEST_AMQP_URL (CI pass 2)';
const DOCS = 4;

/** An extractor that takes ~4 s per document (abortable) and answers "<field>@<first words of the document>". */
const SLOW_EXTRACTOR = `export default {
  kind: 'extractor', name: 'layout', core: '^1',
  create: () => ({
    async extract({ doc, fields, signal, onEvent }) {
      for (let i = 0; i < 20; i++) {
        if (signal?.aborted) throw new Error('aborted');
        await new Promise((r) => setTimeout(r, 200));
        await onEvent?.({ type: 'progress', progress: Math.round((100 * (i + 1)) / 20), progress_message: 'slowly' });
      }
      const tag = /INV-\\d+/.exec(doc.text)?.[0] ?? 'none';
      const data = {};
      const fieldResults = [];
      for (const f of fields) {
        data[f.name] = f.name + '@' + tag;
        fieldResults.push({ field: f.name, value: data[f.name], confidence: 0.9, evidence: null });
        await onEvent?.({ type: 'field_extracted', field: { fieldId: f.name, fieldName: f.name, value: data[f.name], confidence: 0.9 } });
      }
      return { data, fieldResults };
    },
  }),
};`;

describe('extraction batch: a worker killed during a child stage', { skip: SKIP, timeout: 300_000 }, () => {
  let rig: CrashRig;
  let s: TestServer;
  before(async () => {
    rig = await startCrashRig({ kind: 'extractor', name: 'layout', source: SLOW_EXTRACTOR });
    s = rig.s;
  });
  after(async () => {
    await rig?.close();
  });

  test('the batch completes once; one extraction and one charge per document', async () => {
    const docs: string[] = [];
    for (let i = 0; i < DOCS; i++) {
      const pdf = await makePdf([{ heading: 'ACME Supplies Ltd', lines: [`Invoice Number: INV-${8000 + i}`, 'Bill To: Initech Limited', `Total: ${100 + i}.00`] }]);
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(`invoice-${i}.pdf`, pdf) });
      assert.equal(up.status, 201, JSON.stringify(up.body));
      docs.push(up.body.id);
    }
    for (const d of docs) assert.equal((await waitForStatus(s, `/v1/documents/${d}`)).status, 'completed');

    const completedEvents = new Map<string, number>();
    const off = s.runtime.events.on('extraction.completed', (e) => void completedEvents.set(String(e.data.job_id), (completedEvents.get(String(e.data.job_id)) ?? 0) + 1));
    try {
      const created = await s.json('/api/extract/batch', { method: 'POST', json: { name: 'crash', document_ids: docs, schema_id: 'invoice' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const batchId = created.body.id as string;
      const children = docs.map((d) => batchJobId(batchId, d));

      // the first child whose extract stage runs: its worker is killed while the extractor works
      const held = await until('a running extract stage', async () => {
        const rows = await s.runtime.store.repo('job_stages').find({ job_id: children, stage: 'extract.extract', status: 'running' });
        return rows[0];
      }, 120_000);
      await sleep(500);
      const { survivor } = await rig.killWorker(held.worker);

      const done = await until('the batch to complete', async () => {
        const r = await s.json(`/api/extract/batch/${batchId}`);
        return r.body.status === 'completed' || r.body.status === 'failed' ? r : null;
      }, 150_000, 250);
      assert.equal(done.body.status, 'completed', JSON.stringify(done.body.results));
      assert.equal(done.body.progress, 100);
      assert.deepEqual(Object.keys(done.body.results).sort(), [...docs].sort());

      const store = s.runtime.store;
      for (const [i, d] of docs.entries()) {
        const r = done.body.results[d];
        assert.equal(r.success, true, `${d}: ${JSON.stringify(r)}`);
        const xs = await store.repo('extractions').find({ document_id: d });
        assert.equal(xs.length, 1, `one extraction for document ${i}`);
        assert.equal(xs[0]!.id, r.extraction_id);
        assert.equal((xs[0]!.data as Record<string, unknown>).invoice_number, `invoice_number@INV-${8000 + i}`);
        assert.equal(await store.repo('usage').count({ resource_id: r.extraction_id, operation: 'extract' }), 1, `one charge for document ${i}`);
        assert.equal(await store.repo('jobs').count({ type: 'extract', document_id: d }), 1, `one child job for document ${i}`);
      }
      // the killed worker's stage was taken over by the other one
      const taken = (await store.repo('job_stages').findOne({ job_id: held.job_id, stage: 'extract.extract' }))!;
      assert.equal(taken.status, 'completed');
      assert.equal(taken.worker, survivor.id);
      assert.ok(taken.attempts >= 2, `attempts ${taken.attempts}`);
      const parent = (await store.repo('jobs').get(batchJobId(batchId, 'batch')))!;
      assert.equal((await until('the batch job to complete', async () => ((await store.repo('jobs').get(parent.id))!.status === 'completed' ? true : null), 30_000)), true);
      assert.equal(await store.repo('jobs').count({ type: 'extract_batch' }), 1);

      // one extraction.completed per child (onComplete ran once, on whichever worker finished it)
      await until('every child\'s extraction.completed', async () => children.every((c) => completedEvents.has(c)), 30_000);
      await sleep(1000);
      for (const c of children) assert.equal(completedEvents.get(c), 1, `extraction.completed of ${c}`);
      // the batch row says completed and stays so
      await sleep(500);
      assert.equal((await store.repo('extract_batches').get(batchId))!.status, 'completed');
    } finally {
      off();
    }
  });
});
