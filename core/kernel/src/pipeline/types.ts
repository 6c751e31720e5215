import { ERROR_CATALOGUE, QuireError } from '../errors/index.js';
import type { ErrorCode } from '../errors/index.js';
import type { JobRecord, ProgressDetail } from '../model/records.js';
import type { Store } from '../store.js';
import type { StageMessage, Transport } from '../transport/types.js';
import type { Logger } from '../util/logger.js';

export interface StageContext {
  /** re-read from the store when the stage starts */
  job: JobRecord;
  message: StageMessage;
  /** output of the previous stage (first stage: the payload given to start()) */
  payload: Record<string, unknown>;
  store: Store;
  /** aborted on stop() or when the job is cancelled */
  signal: AbortSignal;
  logger: Logger;
  /** this stage's progress 0..1; written to jobs.progress 0..100 scaled across the pipeline's stages */
  progress(fraction: number): Promise<void>;
  /**
   * Counts of work done (merged into jobs.progress_detail, e.g. `{pages_read: 12, pages_total: 40}`) with,
   * when given, this stage's progress 0..1 as for progress(). Writes are applied in the order they are made
   * and `progress` never goes down, so a caller may fire them without awaiting each.
   */
  report(detail: ProgressDetail, fraction?: number): Promise<void>;
}

export interface StageDefinition {
  name: string;
  /** Returns a small output object passed to the next stage (big data goes to the store or blob storage). */
  run(ctx: StageContext): Promise<Record<string, unknown> | void>;
}

export interface PipelineDefinition {
  name: string;
  stages: StageDefinition[];
  /** once, when the first stage first starts */
  onStart?(job: JobRecord): Promise<void>;
  /**
   * Exactly once, inside the transaction that marks the job completed (on `tx`, the store of that
   * transaction): what must change together with the job's status, such as the charge of its work. A job's
   * credit hold ends when it completes, so a charge written later would leave a moment when neither counts.
   */
  onCompleting?(tx: Store, job: JobRecord, output: Record<string, unknown>): Promise<void>;
  /** exactly once, after the last stage completed */
  onComplete?(job: JobRecord, output: Record<string, unknown>): Promise<void>;
  /** exactly once, on final failure (including cancellation) */
  onFail?(job: JobRecord, error: Error): Promise<void>;
  /**
   * Called when a stage run or the completion hook of a job ends and the job turns out to be gone (deleted
   * meanwhile) or erased (its owner's data is being erased: error ERASED, see PipelineRuntime): removes what
   * they may have written meanwhile that names the job's owner outside the job's own rows (stored files,
   * vectors, rows of other tables). `job` is the row as it is now, or as the run last read it when it is
   * gone (`gone` true). It may run more than once, and beside the erasure: it only removes.
   */
  discard?(job: JobRecord, gone: boolean): Promise<void>;
  /**
   * This pipeline's own retry policy, used instead of the runtime's maxAttempts and retryDelayMs for its
   * stages (e.g. webhook deliveries: more attempts, minutes apart). A stage that throws a retryable error
   * is delivered again after delayMs(attempt), until attempt maxAttempts; then the job fails. Both
   * transports take it per consumer: in-process as timers, RabbitMQ as TTL retry queues (delays rounded
   * to two significant digits, one queue per distinct delay).
   */
  retry?: RetryPolicy;
}

export interface RetryPolicy {
  /** deliveries of a stage message before the job fails (>= 1) */
  maxAttempts: number;
  /** delay before delivery attempt+1 after delivery `attempt` failed */
  delayMs(attempt: number): number;
}

/** A stage throws this (or a QuireError with status < 500) to fail the job at once, without retries. */
const NON_RETRYABLE = Symbol.for('quire.non-retryable');

export class NonRetryableError extends Error {
  /** holds for errors of any copy of the SDK (a plugin bundles its own) */
  static override [Symbol.hasInstance](v: unknown): boolean {
    return !!v && typeof v === 'object' && (v as Record<symbol, unknown>)[NON_RETRYABLE] === true;
  }
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetryableError';
    Object.defineProperty(this, NON_RETRYABLE, { value: true });
  }
}

/** waitFor() gave up before the job finished. */
export class JobTimeoutError extends Error {
  constructor(readonly jobId: string, readonly status: string, timeoutMs: number) {
    super(`job ${jobId} still ${status} after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}

/** Told what the stages this process runs come to (metrics); it must not throw. */
export interface PipelineObserver {
  /** a stage ran to `status` in `seconds` ('retry': it failed and its message goes back for another attempt) */
  stage(pipeline: string, stage: string, status: 'completed' | 'failed' | 'retry', seconds: number): void;
  /** a job of `kind` (jobs.type) reached its final state in this process */
  job(kind: string, pipeline: string, state: 'completed' | 'failed'): void;
}

export interface PipelineRuntimeOptions {
  store: Store;
  transport: Transport;
  logger?: Logger;
  observer?: PipelineObserver;
  /** identifies this process in job_stages.worker (default host:pid:random) */
  workerId?: string;
  /** messages handled at once per stage queue (transport prefetch), default 2 */
  concurrency?: number;
  /** deliveries of a stage message before the job fails, default 3 */
  maxAttempts?: number;
  /** backoff before delivery attempt+1; default: the transport's */
  retryDelayMs?: (attempt: number) => number;
  /** how often a running stage looks for cancellation and refreshes its job's heartbeat, default 1000 ms */
  pollMs?: number;
  /**
   * A stage claimed by another worker whose job has shown no heartbeat (jobs.updated_at) for this long is
   * taken over: that worker died with the message. Default 30000 ms; heartbeats are sent every leaseMs/3.
   */
  leaseMs?: number;
  /**
   * Stages of one owner (organization, else user) this process runs at once per stage queue; a further
   * message of that owner goes back to the queue for a moment, so that others' documents get the free
   * slots. 0 (default) = no limit.
   */
  fairShare?: number;
}

export function stageKey(pipeline: string, stage: string): string {
  return `${pipeline}.${stage}`;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Checks a pipeline definition; throws with what is wrong. */
export function validatePipeline(p: PipelineDefinition): void {
  if (!p || !NAME.test(p.name ?? '')) throw new Error(`pipeline name "${p?.name}" must match ${NAME}`);
  if (!Array.isArray(p.stages) || p.stages.length === 0) throw new Error(`pipeline ${p.name} has no stages`);
  const seen = new Set<string>();
  for (const s of p.stages) {
    if (!NAME.test(s.name ?? '')) throw new Error(`pipeline ${p.name}: stage name "${s.name}" must match ${NAME}`);
    if (seen.has(s.name)) throw new Error(`pipeline ${p.name}: duplicate stage "${s.name}"`);
    if (typeof s.run !== 'function') throw new Error(`pipeline ${p.name}: stage ${s.name} has no run()`);
    seen.add(s.name);
  }
  if (p.retry !== undefined) {
    if (!Number.isInteger(p.retry?.maxAttempts) || p.retry.maxAttempts < 1) throw new Error(`pipeline ${p.name}: retry.maxAttempts must be an integer >= 1`);
    if (typeof p.retry.delayMs !== 'function') throw new Error(`pipeline ${p.name}: retry.delayMs must be a function`);
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** Error codes of Node, drivers and brokers that say "try again later": the network, the disk, a lock. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN',
  'EBUSY', 'EMFILE', 'ENFILE', 'EAGAIN', 'EIO', 'ENOSPC', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT',
  'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ECONNLOST',
]);

/** Codes of the error catalogue that a later attempt may get past (a remote service, a dependency). */
const TRANSIENT_QUIRE_CODES = new Set(['UPSTREAM_ERROR', 'SERVICE_UNAVAILABLE', 'rate_limit_exceeded']);

/** Marks an error as transient: the stage that threw it is retried (up to the attempt limit). */
export function transient<E extends Error>(e: E): E {
  (e as E & { retryable?: boolean }).retryable = true;
  return e;
}

/**
 * Whether a failed stage is worth another attempt. Permanent: bad input, over a limit, a password, a
 * file a reader cannot read or a parse that ran out of its time (PROCESSING_ERROR, UNPROCESSABLE and
 * every 4xx code), programming errors (TypeError and the like). Transient: I/O, the broker or the
 * database, a remote service (UPSTREAM_ERROR, SERVICE_UNAVAILABLE), and errors explicitly marked so.
 * An unknown plain Error is taken as transient.
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof NonRetryableError) return false;
  if (!err || typeof err !== 'object') return true;
  const e = err as { status?: unknown; name?: unknown; retryable?: unknown; code?: unknown; cause?: unknown };
  if (e.retryable === false) return false;
  if (e.retryable === true) return true;
  if (e.name === 'QuireError') return typeof e.code === 'string' && TRANSIENT_QUIRE_CODES.has(e.code);
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  if (err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError || err instanceof ReferenceError) {
    // fetch() reports network failures as TypeError('fetch failed') with the cause inside
    const cause = e.cause as { code?: unknown } | undefined;
    return !!cause && typeof cause.code === 'string' && TRANSIENT_CODES.has(cause.code);
  }
  return true;
}

/**
 * What the runtime keeps, in job.result.error, of the error that failed a job: the stage, and a QuireError's
 * code and details (job.error has the message). A caller that waits for the job, maybe in another process,
 * rebuilds the error with jobError(). The API shows a job's result only once it is completed.
 */
export interface StageErrorRecord {
  stage: string;
  code: string | null;
  details: unknown;
}

export function stageErrorRecord(stage: string, err: unknown): StageErrorRecord {
  const q = err instanceof QuireError ? err : null;
  return { stage, code: q?.code ?? null, details: q?.details ?? null };
}

/** The error a failed job stands for: a QuireError with the failing stage's code, else a plain Error with job.error. */
export function jobError(job: JobRecord): Error {
  const kept = (job.result as { error?: StageErrorRecord } | null)?.error;
  const message = job.error ?? 'failed';
  if (kept?.code && kept.code in ERROR_CATALOGUE) return new QuireError(kept.code as ErrorCode, message, kept.details ?? undefined);
  return new Error(message);
}

/** The stage whose error failed the job, or null (cancelled, failed by fail(), or not failed). */
export function failedStage(job: JobRecord): string | null {
  return (job.result as { error?: StageErrorRecord } | null)?.error?.stage ?? null;
}
