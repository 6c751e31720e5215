/**
 * The engine's one job command: `submitJob(rt, pipeline, owner, input, opts)` makes the job row, reserves its
 * credits, records the rows that go with it, starts the pipeline and, when asked, waits for it. Every job
 * kind is submitted through it (uploads, parses, extractions and batches, generations, splits, form edits,
 * workflow executions, GDPR exports), so a host only validates, calls the engine function of its feature and
 * presents what comes back; no route makes, inserts, charges or starts a job itself
 * (test/architecture.test.ts).
 *
 * In one transaction (under the billed account's lock when credits are reserved, see reserveCredits): the
 * balance less what is held must cover `credits` (else 402 INSUFFICIENT_CREDITS and nothing is written), then
 * `with(tx, job)` writes the rows the job goes with (its document, edit job, export request, ...), then the job
 * row is inserted holding the reserved cost (or, `placeholder`, the row recorded earlier is given its input and
 * hold). After the commit `beforeStart` runs (events, audit) and the first stage is queued; a job that cannot be
 * queued is failed (its hold ends with it) and answered 503.
 */
import { randomUUID } from 'node:crypto';
import { JobTimeoutError, errors } from '@quire/core';
import type { JobRecord, Owned, Store } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { newJob } from '../jobs.js';
import { holdOf, reserveCredits, withHold } from './credits.js';
import type { Operation } from './ledger.js';

export interface SubmitOptions {
  /** the row's type when it is not the pipeline's name (an upload's `ingest` pipeline runs a 'document' job) */
  type?: JobRecord['type'];
  /** the job's id when the caller fixes it (derived ids, ids named before the job exists) */
  id?: string;
  documentId?: string | null;
  /** where the pipeline posts its completion */
  webhookUrl?: string | null;
  /** reserved atomically with the insert; the job holds the cost until it ends */
  credits?: { operation: Operation; units: number } | null;
  /**
   * Writes the rows the job goes with, in the job's transaction and before its row. Returning false drops the
   * submission (nothing more is written, nothing started: `created` false).
   */
  with?: (tx: Store, job: JobRecord) => Promise<unknown>;
  /**
   * The job holds up to `credits` of another job's hold, taken off it in the same transaction (a batch's child
   * takes its share of what the batch reserved: it stays held once, by whichever job will spend it).
   */
  takeHold?: { fromJob: string; credits: number };
  /** the row was recorded before (a synchronous parse's, from the moment its input arrived): it is updated */
  placeholder?: boolean;
  /** a job (or a row `with` writes) that exists already was submitted before: `created` false, no error */
  unique?: boolean;
  /** the first stage's payload (or that of `startAt`) */
  payload?: Record<string, unknown>;
  /** the stage the job starts at when the ones before it are done already (a split's child: read from its parent) */
  startAt?: string;
  /** runs after the commit, before the first stage is queued (events, audit, the caller's own bookkeeping) */
  beforeStart?: (job: JobRecord) => unknown;
  /** aborted before the start: the job is cancelled instead of started */
  signal?: AbortSignal;
  /**
   * Waits for the job to end, for at most `timeoutMs`: `done` is the job as it ended, or null when it still
   * runs then (and, with `cancelOnTimeout`, has been cancelled: nobody waits for it any more).
   */
  wait?: { timeoutMs: number; cancelOnTimeout?: boolean };
}

export interface Submitted {
  /** the job row as inserted (pending) */
  job: JobRecord;
  /** false when `unique` found it submitted before, or `with` dropped it */
  created: boolean;
  /** with `wait`: the job once ended, or null when it did not end in time */
  done: JobRecord | null;
}

const isConflict = (e: unknown) => (e as Error)?.name === 'StoreConflictError';

/** Submits a job of `pipeline` for `owner` (see the file's comment). */
export async function submitJob(rt: Engine, pipeline: string, owner: Owned, input: Record<string, unknown>, opts: SubmitOptions = {}): Promise<Submitted> {
  const row = newJob({ owner, type: opts.type ?? (pipeline as JobRecord['type']), id: opts.id, document_id: opts.documentId ?? null, input, webhook_url: opts.webhookUrl ?? null });
  const place = async (tx: Store, hold: number | null): Promise<JobRecord | null> => {
    let job = hold === null ? row : withHold(row, hold);
    const from = opts.takeHold ? await tx.repo('jobs').get(opts.takeHold.fromJob) : null;
    const left = holdOf(from?.input);
    const share = opts.takeHold ? Math.min(left, opts.takeHold.credits) : 0;
    if (opts.takeHold) job = withHold(row, share);
    if (opts.with && (await opts.with(tx, job)) === false) return null;
    if (opts.placeholder) await tx.repo('jobs').update(job.id, { input: job.input, document_id: job.document_id, webhook_url: job.webhook_url, updated_at: new Date() });
    else await tx.repo('jobs').insert(job);
    if (from && share > 0) await tx.repo('jobs').update(from.id, { input: withHold(from, Math.round((left - share) * 100) / 100).input });
    return job;
  };
  let job: JobRecord | null;
  try {
    if (opts.credits) job = await reserveCredits(rt, owner, opts.credits.operation, opts.credits.units, (tx, hold) => place(tx, hold));
    else if (opts.with || opts.takeHold) job = await rt.store.transaction((tx) => place(tx, null));
    else job = await place(rt.store, null);
  } catch (e) {
    if (opts.unique && isConflict(e)) return { job: row, created: false, done: null };
    throw e;
  }
  if (!job) return { job: row, created: false, done: null };
  await opts.beforeStart?.(job);
  if (opts.signal?.aborted) {
    await rt.pipelines.cancel(job.id).catch(() => {});
  } else {
    try {
      if (opts.startAt) await rt.transport.publish({ id: randomUUID(), jobId: job.id, pipeline, stage: opts.startAt, payload: opts.payload ?? {}, attempt: 1 });
      else await rt.pipelines.start(job.id, pipeline, opts.payload ?? {});
    } catch (e) {
      await rt.pipelines.fail(job.id, `could not queue the job: ${(e as Error).message}`).catch(() => {});
      throw errors.unavailable(`The queue is not available: ${(e as Error).message}`);
    }
  }
  if (!opts.wait) return { job, created: true, done: null };
  return { job, created: true, done: await awaitJob(rt, job.id, opts.wait) };
}

/** Waits for a job to end; null when it still runs after `timeoutMs` (then cancelled, with `cancelOnTimeout`). */
export async function awaitJob(rt: Engine, jobId: string, wait: { timeoutMs: number; cancelOnTimeout?: boolean }): Promise<JobRecord | null> {
  try {
    return await rt.pipelines.waitFor(jobId, wait.timeoutMs);
  } catch (e) {
    if (!(e instanceof JobTimeoutError)) throw e;
    if (wait.cancelOnTimeout) await rt.pipelines.cancel(jobId).catch(() => {});
    return null;
  }
}
