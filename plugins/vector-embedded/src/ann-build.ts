/**
 * Worker thread: builds a space's ANN index from the database and saves it (see ann.ts). It reads the rows
 * and the tombstone sequence in one read transaction, so the file's name states exactly what it holds; the
 * searching thread then loads the file and applies what came after.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { AnnIndex } from './ann.js';
import type { AnnParams } from './ann.js';

interface Job {
  dbFile: string;
  dir: string;
  space: string;
  dimension: number;
  params: AnnParams;
}

const job = workerData as Job;
try {
  const db = new Database(job.dbFile, { readonly: true, fileMustExist: true, timeout: 15_000 });
  const ann = new AnnIndex(job.dimension, job.params);
  const BATCH = 4096;
  let maxRowid = 0, tombSeq = 0;
  db.transaction(() => {
    tombSeq = db.prepare(`SELECT coalesce(max(seq), 0) FROM tombstones`).pluck().get() as number;
    const rows = db.prepare(`SELECT rowid, vector FROM vectors WHERE space = ? ORDER BY rowid`).raw();
    const keys: number[] = [];
    const vecs = new Float32Array(BATCH * job.dimension);
    const flush = () => {
      ann.add(keys, vecs.subarray(0, keys.length * job.dimension));
      keys.length = 0;
    };
    for (const [rowid, blob] of rows.iterate(job.space) as Iterable<[number, Buffer]>) {
      if (blob.byteLength !== job.dimension * 4) continue;
      vecs.set(new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)), keys.length * job.dimension);
      keys.push(rowid);
      maxRowid = rowid;
      if (keys.length === BATCH) flush();
    }
    flush();
  })();
  db.close();
  const file = ann.save(job.dir, job.space, maxRowid, tombSeq);
  parentPort!.postMessage({ file, maxRowid, tombSeq, rows: ann.size });
} catch (e) {
  parentPort!.postMessage({ error: (e as Error).message });
}
