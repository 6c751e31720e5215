/**
 * Batch extraction: one schema over up to 50 documents, run by the job runtime. A batch is a parent job
 * (pipeline `extract_batch`: fanout → collect) whose fanout stage makes one child 'extract' job per
 * document (ids derived from the batch and the document, so a stage re-run after a takeover makes none
 * twice), acting as the batch's owner (actingAs: their user and memberships, no API key). A child waits
 * for a document that is still pending or processing inside its load stage. Each child, when it ends,
 * writes its result into the batch row with a conditional update (optimistic: the row's progress is the
 * version, so two children finishing at once on two workers both land); the write that adds the last
 * result completes the batch, once. The collect stage waits for the children and records any result a
 * hook did not (a worker that died between a child's end and its hook); it is taken over like any stage.
 */
import { createHash, randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { ExtractBatchRecord, JobRecord, Owned } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { actingAs } from '../infra/access.js';
import { ownerOf } from '../jobs.js';
import { submitJob } from '../infra/submit.js';
import { creditsFor } from '../infra/ledger.js';
import { EXTRACT_PIPELINE, prepareExtraction } from './service.js';
import type { ExtractJobInput } from './service.js';

export const BATCH_PIPELINE = 'extract_batch';

export type BatchResult = { success: true; extraction_id: string } | { success: false; error: string };

/** A stable UUID for (batch, part): the parent job and each child job of a batch have one id, whoever makes them. */
export function batchJobId(batchId: string, part: string): string {
  const h = createHash('sha256').update(`${batchId}:${part}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Starts a batch whose row is already 'processing' (one picked up again after a restart): inserts its
 * parent job and starts the pipeline. Returns false when the batch's job already exists (started before; it
 * runs, or ran, on the runtime).
 */
export async function startBatch(rt: Engine, batchId: string): Promise<boolean> {
  const batch = await rt.store.repo('extract_batches').get(batchId);
  if (!batch || batch.status === 'completed' || batch.status === 'failed') return false;
  const { created } = await submitJob(rt, BATCH_PIPELINE, ownerOf(batch), { batch_id: batch.id }, { id: batchJobId(batch.id, 'batch'), unique: true });
  return created;
}

/**
 * Runs a batch (a new one, `insert`, or one created with run_immediately false): reserves the credits of
 * its extractions and, in the same transaction, records it 'processing' and inserts its parent job holding
 * them; then starts the pipeline. 402 when the balance cannot cover the batch (nothing is written). Returns
 * false when the batch was started before. The fanout hands each child extraction its share of the hold
 * (moveHold), which the child holds until it is charged.
 */
export async function runBatch(rt: Engine, batch: ExtractBatchRecord, insert = false): Promise<boolean> {
  const { created } = await submitJob(rt, BATCH_PIPELINE, ownerOf(batch), { batch_id: batch.id }, {
    id: batchJobId(batch.id, 'batch'),
    credits: { operation: 'extract', units: batch.document_ids.length },
    unique: true,
    with: async (tx) => {
      const repo = tx.repo('extract_batches');
      const now = new Date();
      if (insert) await repo.insert({ ...batch, status: 'processing', updated_at: now });
      else if (!(await repo.update({ id: batch.id, status: 'pending' }, { status: 'processing', updated_at: now }))) return false;
      return true;
    },
  });
  return created;
}

/**
 * fanout: one child extraction per document that has no result yet. A document the owner can no longer
 * read, or a definition that no longer resolves, is that document's error result.
 */
export async function fanOutBatch(rt: Engine, batchId: string): Promise<Record<string, string>> {
  const batch = await rt.store.repo('extract_batches').get(batchId);
  if (!batch) return {};
  const cfg = (batch.config ?? {}) as { settings?: Record<string, unknown>; instructions?: string };
  const auth = await actingAs(rt.store, batch.user_id);
  const jobs = rt.store.repo('jobs');
  const children: Record<string, string> = {};
  for (const documentId of batch.document_ids) {
    if ((batch.results as Record<string, unknown>)[documentId]) continue;
    const id = batchJobId(batchId, documentId);
    children[documentId] = id;
    let existing = await jobs.get(id);
    if (!existing) {
      let child: JobRecord;
      try {
        child = await prepareExtraction(rt, auth, {
          documentId,
          schemaId: batch.schema_id,
          settings: cfg.settings,
          ...(cfg.instructions ? { instructions: cfg.instructions } : {}),
          organizationId: batch.organization_id,
          waitForDocument: true,
          batchId,
          jobId: id,
        });
      } catch (e) {
        await recordResult(rt, batchId, documentId, { success: false, error: (e as Error).message });
        delete children[documentId];
        continue;
      }
      // the child takes an extraction's worth of the batch's hold; one made meanwhile by another run is left to it
      const { created } = await submitJob(rt, EXTRACT_PIPELINE, ownerOf(child), child.input ?? {}, { id, documentId: child.document_id, takeHold: { fromJob: batchJobId(batchId, 'batch'), credits: creditsFor('extract', 1) }, unique: true });
      if (created) continue;
      existing = await jobs.get(id);
      if (!existing) continue;
    }
    // made by an earlier run of this stage: started again only if it never began (a duplicate start is harmless)
    if (existing.status === 'pending' && (await rt.store.repo('job_stages').count({ job_id: id })) === 0) await rt.pipelines.start(id, EXTRACT_PIPELINE);
  }
  return children;
}

/** collect: waits until every document of the batch has a result, recording those of finished children. */
export async function collectBatch(rt: Engine, batchId: string, children: Record<string, string>, signal: AbortSignal): Promise<ExtractBatchRecord | null> {
  let delay = 200;
  for (;;) {
    const batch = await rt.store.repo('extract_batches').get(batchId);
    if (!batch || batch.status === 'completed' || batch.status === 'failed') return batch;
    const missing = batch.document_ids.filter((d) => !(batch.results as Record<string, unknown>)[d]);
    for (const d of missing) {
      const child = children[d] ? await rt.store.repo('jobs').get(children[d]!) : null;
      if (child && (child.status === 'completed' || child.status === 'failed')) await recordChildResult(rt, batchId, child);
      else if (!child) await recordResult(rt, batchId, d, { success: false, error: 'The extraction of this document was not started' });
    }
    signal.throwIfAborted();
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(2000, Math.round(delay * 1.5));
  }
}

/** A finished child job's result, written into its batch. */
export async function recordChildResult(rt: Engine, batchId: string, child: JobRecord): Promise<void> {
  const input = child.input as unknown as ExtractJobInput;
  const documentId = input.source.kind === 'document' ? input.source.document_id : child.document_id;
  if (!documentId) return;
  const result: BatchResult = child.status === 'completed' ? { success: true, extraction_id: input.extraction_id } : { success: false, error: child.error ?? 'failed' };
  await recordResult(rt, batchId, documentId, result);
}

/**
 * Adds one document's result to the batch row, unless it has one: a conditional update on (status,
 * progress) — progress grows with every result, as a batch has at most 50 documents — retried on a lost
 * race. The update that adds the last result also completes the batch.
 */
export async function recordResult(rt: Engine, batchId: string, documentId: string, result: BatchResult): Promise<void> {
  const repo = rt.store.repo('extract_batches');
  for (let attempt = 0; attempt < 50; attempt++) {
    const b = await repo.get(batchId);
    if (!b || b.status !== 'processing') return;
    const results = { ...(b.results as Record<string, BatchResult>) };
    if (results[documentId] || !b.document_ids.includes(documentId)) return;
    results[documentId] = result;
    const total = b.document_ids.length;
    const done = b.document_ids.filter((d) => results[d]).length;
    const complete = done >= total;
    const progress = complete ? 100 : Math.min(99, Math.floor((100 * done) / total));
    const n = await repo.update({ id: b.id, status: 'processing', progress: b.progress }, { results, progress, ...(complete ? { status: 'completed' as const } : {}), updated_at: new Date() });
    if (n > 0) {
      if (complete) rt.logger.info({ batchId, documents: total }, 'extraction batch completed');
      return;
    }
    await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 20 * (attempt + 1))));
  }
  throw new Error(`batch ${batchId}: could not record the result of document ${documentId}`);
}

/**
 * POST /api/extract/batch: records a batch of one resolved schema over documents the caller checked, owned
 * by `owner`; runs it at once unless told not to (then it stays pending until runPendingBatch). The batch
 * as answered: 'processing' when it runs. 402 when the balance cannot cover its extractions (nothing is
 * recorded then).
 */
export async function createBatch(
  rt: Engine,
  owner: Owned,
  f: { name?: string; documentIds: string[]; schemaId: string; schemaName: string | null; config: ExtractBatchRecord['config']; runNow: boolean },
): Promise<ExtractBatchRecord> {
  const now = new Date();
  const n = f.documentIds.length;
  const row: ExtractBatchRecord = {
    id: randomUUID(),
    ...owner,
    name: f.name ?? `Batch of ${n} document${n === 1 ? '' : 's'} (${f.schemaName ?? f.schemaId})`,
    status: 'pending',
    progress: 0,
    document_ids: f.documentIds,
    schema_id: f.schemaId,
    config: f.config,
    results: {},
    created_at: now,
    updated_at: now,
  };
  // every document is an extraction (2 credits each): a batch the balance cannot cover is not recorded
  if (f.runNow) await runBatch(rt, row, true);
  else await rt.store.repo('extract_batches').insert(row);
  return f.runNow ? { ...row, status: 'processing' } : row;
}

/**
 * POST /api/extract/batch/:id/run: starts a batch created with run_immediately false (402 when the balance
 * cannot cover it: it stays pending); a batch already running is left as it is, a completed one is 409.
 * The batch as stored after.
 */
export async function runPendingBatch(rt: Engine, batch: ExtractBatchRecord): Promise<ExtractBatchRecord> {
  if (batch.status === 'pending') await runBatch(rt, batch);
  else if (batch.status === 'completed') throw errors.conflict(`Batch ${batch.id} is already completed`, { status: batch.status });
  return (await rt.store.repo('extract_batches').get(batch.id)) ?? batch;
}

export function apiBatchSummary(b: ExtractBatchRecord) {
  return { id: b.id, name: b.name, status: b.status, progress: b.progress, document_ids: b.document_ids, schema_id: b.schema_id, created_at: b.created_at.toISOString() };
}
