// @services: an upload whose worker is killed while its chunks are being indexed (leases in the store, RabbitMQ)
// Two worker processes (API with QUIRE_RUN_STAGES=false; MariaDB + RabbitMQ, CI's second pass). A document
// read where it is chunked is stored and indexed by its read stage, batch after batch; a test embedder
// (loaded through QUIRE_PLUGINS in place of the local one) takes a few milliseconds per text, so that the
// worker can be killed with SIGKILL once some of the document's vectors are written and not all. With a
// short lease the other worker runs the stage again: the document completes with exactly one row per chunk
// and exactly one vector per chunk (no copy left by the killed attempt).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MYSQL_URL, AMQP_URL, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startCrashRig } from '../helpers/workers.js';
import type { CrashRig } from '../helpers/workers.js';
import { makePdf } from '../helpers/fixtures.js';

const SKIP = MYSQL_URL && AMQP_URL ? false : 'needs MariaDB and RabbitMQ shared by several processes: set QUIRE_TEST_MYSQL_URL and QUIRE_TEST_AMQP_URL (CI pass 2)';
const PAGES = 120;
const SPACE = 'slow-test-16';

/** An embedder that answers one request after the other, 12 ms per text: 16 numbers from the text's characters. */
const SLOW_EMBEDDER = `let chain = Promise.resolve();
const vec = (t) => { const v = new Float32Array(16); for (let i = 0; i < t.length; i++) v[(t.charCodeAt(i) + i) % 16] += 1; let n = 0; for (const x of v) n += x * x; n = Math.sqrt(n) || 1; return v.map((x) => x / n); };
export default {
  kind: 'embedder', name: 'local', core: '^1',
  create: () => ({
    space: '${SPACE}', dimension: 16,
    embed(texts) {
      const run = chain.then(() => new Promise((r) => setTimeout(r, 12 * texts.length))).then(() => texts.map(vec));
      chain = run.catch(() => {});
      return run;
    },
    async health() { return { ok: true, message: 'slow test embedder' }; },
  }),
};`;

describe('streamed ingest: a worker killed while a document is indexed', { skip: SKIP, timeout: 300_000 }, () => {
  let rig: CrashRig;
  let s: TestServer;
  before(async () => {
    rig = await startCrashRig({ kind: 'embedder', name: 'local', source: SLOW_EMBEDDER });
    s = rig.s;
  });
  after(async () => {
    await rig?.close();
  });

  test('after the retry: one row and one vector per chunk', async () => {
    const pages = Array.from({ length: PAGES }, (_, i) => ({
      heading: `Section ${i + 1}: depot ${['north', 'south', 'east', 'west'][i % 4]} review`,
      lines: Array.from({ length: 16 }, (_, l) => `Depot ${i + 1} line ${l + 1}: ${1000 + i * 7 + l} crates of glacier water shipped; inspector ${(i + l) % 9} noted ${l % 5} late trucks.`),
    }));
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('depots.pdf', await makePdf(pages)) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const docId = up.body.id as string;
    const store = s.runtime.store;
    const job = await until('the document\'s job', async () => store.repo('jobs').findOne({ document_id: docId }));

    // the read stage indexes as it goes: killed once some of the document's vectors are written, not all
    const seen: string[] = [];
    const held = await until('a read stage part-way through indexing', async () => {
      const j = await store.repo('jobs').get(job.id);
      const d = (j?.progress_detail ?? {}) as { chunks?: number; chunks_indexed?: number };
      const stages = await store.repo('job_stages').find({ job_id: job.id });
      const now = JSON.stringify({ status: j?.status, d, stages: stages.map((r) => `${r.stage}:${r.status}`) });
      if (seen.at(-1) !== now) seen.push(now);
      if (!(d.chunks && d.chunks_indexed && d.chunks_indexed < d.chunks)) return null;
      return stages.find((r) => r.stage === 'ingest.read' && r.status === 'running');
    }, 90_000, 20).catch((e) => {
      throw new Error(`${(e as Error).message}; seen:\n${seen.join('\n')}`);
    });
    const { survivor } = await rig.killWorker(held.worker);

    const doc = await waitForStatus(s, `/v1/documents/${docId}`, 180_000);
    assert.equal(doc.status, 'completed', JSON.stringify(doc));
    const stage = (await store.repo('job_stages').findOne({ job_id: job.id, stage: 'ingest.read' }))!;
    assert.equal(stage.worker, survivor.id, 'the other worker ran the stage again');
    assert.ok(stage.attempts >= 2, `attempts ${stage.attempts}`);

    const rows = await store.repo('chunks').find({ document_id: docId });
    const ids = rows.map((r) => r.id);
    assert.ok(rows.length > 128, `several batches of chunks (${rows.length})`);
    assert.equal(new Set(ids).size, ids.length, 'one row per chunk');
    assert.deepEqual(rows.map((r) => r.idx).sort((a, b) => a - b), rows.map((_, i) => i), 'chunk indexes 0..n-1, once each');

    const db = new Database(path.join(s.runtime.config.dataDir, 'vectors', 'vectors.db'), { readonly: true, fileMustExist: true });
    try {
      const vectors = db.prepare('SELECT id FROM vectors WHERE space = ? AND document_id = ?').all(SPACE, docId) as { id: string }[];
      assert.equal(vectors.length, rows.length, 'one vector per chunk: none left over from the killed attempt');
      assert.deepEqual(vectors.map((v) => v.id).sort(), [...ids].sort());
    } finally {
      db.close();
    }
    const detail = (await store.repo('jobs').get(job.id))!.progress_detail as Record<string, number>;
    assert.equal(detail.chunks, rows.length);
    assert.equal(detail.chunks_indexed, rows.length);
  });
});
