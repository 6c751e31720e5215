import type { JobRecord } from '../model/records.js';
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
  /** exactly once, after the last stage completed */
  onComplete?(job: JobRecord, output: Record<string, unknown>): Promise<void>;
  /** exactly once, on final failure (including cancellation) */
  onFail?(job: JobRecord, error: Error): Promise<void>;
}

/** A stage throws this (or a QuireError with status < 500) to fail the job at once, without retries. */
export class NonRetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetryableError';
  }
}

/** waitFor() gave up before the job finished. */
export class JobTimeoutError extends Error {
  constructor(readonly jobId: string, readonly status: string, timeoutMs: number) {
    super(`job ${jobId} still ${status} after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}

export interface PipelineRuntimeOptions {
  store: Store;
  transport: Transport;
  logger?: Logger;
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
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

export function isRetryable(err: unknown): boolean {
  if (err instanceof NonRetryableError) return false;
  if (err && typeof err === 'object') {
    const e = err as { status?: unknown; name?: unknown; retryable?: unknown };
    if (e.retryable === false) return false;
    if (e.name === 'QuireError' && typeof e.status === 'number' && e.status < 500) return false;
  }
  return true;
}
