/**
 * Batch extraction: one schema over up to 50 documents, one document after another, in the background of
 * the process that accepted the batch. Progress and per-document results are written to the batch row
 * after every document, and the runner touches the row while a document runs (heartbeat). A batch left
 * 'processing' by a process that stopped (its heartbeat older than STALE_MS) is taken over — claimed with a
 * conditional update, so only one process resumes it — by resumeStaleBatches(), which the batch endpoints
 * call (at most every SWEEP_MS per process) and startBatchResumer() runs periodically for a host that
 * starts it; documents that already have a result are not extracted again.
 */
import { errors } from '@quire/core';
import type { ApiKeyRecord, ExtractBatchRecord } from '@quire/core';
import type { AuthInfo } from '../http/context.js';
import type { QuireRuntime } from '../runtime.js';
import { runExtraction } from './extraction.js';

export const STALE_MS = 60_000;
const HEARTBEAT_MS = 15_000;
const SWEEP_MS = 30_000;
/** how long a batch waits for a document that is still being processed */
const DOCUMENT_WAIT_MS = 10 * 60_000;

export type BatchResult = { success: true; extraction_id: string } | { success: false; error: string };

const running = new Map<string, { rt: QuireRuntime; done: Promise<void> }>();
const lastSweep = new WeakMap<QuireRuntime, number>();
/** runtimes whose batches stop between documents (the process is shutting down) */
const stopping = new WeakSet<QuireRuntime>();

/** The batch owner's identity for background runs (their user row and current memberships; no API key). */
export async function callerAuth(rt: QuireRuntime, userId: string): Promise<AuthInfo> {
  const user = await rt.store.repo('users').get(userId);
  if (!user) throw errors.notFound('user', userId);
  const memberships = (await rt.store.repo('memberships').find({ user_id: userId })).map((m) => ({ organization_id: m.organization_id, role: m.role }));
  const key: ApiKeyRecord = { id: 'background', user_id: userId, name: 'batch runner', prefix: '', key_hash: '', created_at: new Date(0), last_used_at: null, revoked_at: null, expires_at: null };
  return { user, key, memberships };
}

/** Starts (or continues) a batch in this process; returns at once. */
export function startBatch(rt: QuireRuntime, batchId: string): void {
  if (running.has(batchId) || stopping.has(rt)) return;
  const done = runBatch(rt, batchId)
    .catch((e) => rt.logger.warn({ batchId, err: (e as Error).message }, 'extraction batch stopped'))
    .finally(() => running.delete(batchId));
  running.set(batchId, { rt, done });
}

/**
 * Takes over stale batches now and every `everyMs`. The returned function stops that, lets this process's
 * batches stop after their current document (they stay 'processing' and are resumed later) and waits for them.
 */
export function startBatchResumer(rt: QuireRuntime, everyMs = SWEEP_MS): () => Promise<void> {
  const sweep = () => void resumeStaleBatches(rt, true).catch((e) => rt.logger.warn({ err: (e as Error).message }, 'batch resume sweep failed'));
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stopping.add(rt);
    await Promise.all([...running.values()].filter((r) => r.rt === rt).map((r) => r.done));
  };
}

async function runBatch(rt: QuireRuntime, batchId: string): Promise<void> {
  const repo = rt.store.repo('extract_batches');
  const batch = await repo.get(batchId);
  if (!batch || batch.status === 'completed' || batch.status === 'failed') return;
  await repo.update(batchId, { status: 'processing', updated_at: new Date() });
  const auth = await callerAuth(rt, batch.user_id);
  const cfg = (batch.config ?? {}) as { settings?: Record<string, unknown>; instructions?: string };
  const results = { ...(batch.results as Record<string, BatchResult>) };
  const total = batch.document_ids.length;
  const heartbeat = setInterval(() => void repo.update(batchId, { updated_at: new Date() }).catch(() => {}), HEARTBEAT_MS);
  heartbeat.unref();
  try {
    for (const documentId of batch.document_ids) {
      if (results[documentId]) continue;
      if (stopping.has(rt)) return;
      try {
        await waitForDocument(rt, documentId);
        const run = await runExtraction(rt, auth, {
          documentId,
          schemaId: batch.schema_id,
          settings: cfg.settings,
          ...(cfg.instructions ? { instructions: cfg.instructions } : {}),
          organizationId: batch.organization_id,
        });
        results[documentId] = { success: true, extraction_id: run.extraction_id };
      } catch (e) {
        results[documentId] = { success: false, error: (e as Error).message };
      }
      const done = Object.keys(results).length;
      await repo.update(batchId, { results, progress: Math.min(99, Math.floor((100 * done) / total)), updated_at: new Date() });
    }
    await repo.update(batchId, { status: 'completed', progress: 100, results, updated_at: new Date() });
  } finally {
    clearInterval(heartbeat);
  }
}

/** Waits while a document is pending or processing; a failed or missing document is an error for its entry. */
async function waitForDocument(rt: QuireRuntime, documentId: string): Promise<void> {
  const deadline = Date.now() + DOCUMENT_WAIT_MS;
  let delay = 200;
  for (;;) {
    const doc = await rt.store.repo('documents').get(documentId);
    if (!doc) throw errors.notFound('document', documentId);
    if (doc.status === 'completed' || doc.status === 'failed') return;
    if (Date.now() > deadline) throw errors.conflict(`Document ${documentId} was still ${doc.status} after ${DOCUMENT_WAIT_MS / 60_000} minutes`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(2000, delay * 1.5);
  }
}

/**
 * Takes over batches left 'processing' by a stopped process (heartbeat older than STALE_MS). Throttled per
 * process unless `force`.
 */
export async function resumeStaleBatches(rt: QuireRuntime, force = false): Promise<string[]> {
  const now = Date.now();
  if (stopping.has(rt) || (!force && now - (lastSweep.get(rt) ?? 0) < SWEEP_MS)) return [];
  lastSweep.set(rt, now);
  const repo = rt.store.repo('extract_batches');
  const stale = (await repo.find({ status: 'processing' })).filter((b) => !running.has(b.id) && now - b.updated_at.getTime() > STALE_MS);
  const resumed: string[] = [];
  for (const b of stale) {
    const claimed = await repo.update({ id: b.id, status: 'processing', updated_at: b.updated_at }, { updated_at: new Date() });
    if (claimed > 0) {
      resumed.push(b.id);
      startBatch(rt, b.id);
    }
  }
  return resumed;
}

export function apiBatchSummary(b: ExtractBatchRecord) {
  return { id: b.id, name: b.name, status: b.status, progress: b.progress, document_ids: b.document_ids, schema_id: b.schema_id, created_at: b.created_at.toISOString() };
}
