import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { JobRecord, JobStageRecord } from '../model/records.js';
import type { Store } from '../store.js';
import type { StageMessage, Transport } from '../transport/types.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { errors } from '../errors/index.js';
import { RequeueError, type RetryConsumeOptions } from './delivery.js';

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

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const CANCELLED = 'cancelled';
const STOPPING = 'stopping';

interface Active {
  jobId: string;
  controller: AbortController;
}

export function stageKey(pipeline: string, stage: string): string {
  return `${pipeline}.${stage}`;
}

/**
 * Runs pipelines as chains of stage messages over a Transport. Delivery is at-least-once; the job_stages
 * row claimed through Store.claimStage makes each stage complete once, and conditional updates on
 * jobs.status make completion, failure and their hooks happen once.
 */
export class PipelineRuntime {
  readonly workerId: string;
  private readonly store: Store;
  private readonly transport: Transport;
  private readonly logger: Logger;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs?: (attempt: number) => number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly defs = new Map<string, PipelineDefinition>();
  private readonly subs = new Map<string, { cancel(): Promise<void> }>();
  private readonly active = new Map<string, Active>();
  private readonly running = new Set<Promise<void>>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private stopping = false;

  constructor(opts: PipelineRuntimeOptions) {
    this.store = opts.store;
    this.transport = opts.transport;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'pipeline' });
    this.workerId = opts.workerId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.concurrency = Math.max(1, opts.concurrency ?? 2);
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
    this.retryDelayMs = opts.retryDelayMs;
    this.leaseMs = Math.max(100, opts.leaseMs ?? 30_000);
    this.pollMs = Math.max(10, Math.min(opts.pollMs ?? 1000, this.leaseMs / 3));
  }

  define(p: PipelineDefinition): void {
    if (!p || !NAME.test(p.name ?? '')) throw new Error(`pipeline name "${p?.name}" must match ${NAME}`);
    if (!Array.isArray(p.stages) || p.stages.length === 0) throw new Error(`pipeline ${p.name} has no stages`);
    const seen = new Set<string>();
    for (const s of p.stages) {
      if (!NAME.test(s.name ?? '')) throw new Error(`pipeline ${p.name}: stage name "${s.name}" must match ${NAME}`);
      if (seen.has(s.name)) throw new Error(`pipeline ${p.name}: duplicate stage "${s.name}"`);
      if (typeof s.run !== 'function') throw new Error(`pipeline ${p.name}: stage ${s.name} has no run()`);
      seen.add(s.name);
    }
    this.defs.set(p.name, p);
  }

  pipelines(): string[] {
    return [...this.defs.keys()];
  }

  /** Publishes stage 1 for an existing job row; the job stays 'pending' until a consumer picks it up. */
  async start(jobId: string, pipeline: string, payload: Record<string, unknown> = {}): Promise<void> {
    const def = this.defs.get(pipeline);
    if (!def) throw new Error(`unknown pipeline "${pipeline}"; known pipelines: ${this.pipelines().join(', ') || '(none)'}`);
    await this.transport.publish({ id: randomUUID(), jobId, pipeline, stage: def.stages[0]!.name, payload, attempt: 1 });
  }

  /** Consumes every stage of every defined pipeline, or only the queues named "<pipeline>.<stage>". */
  async consume(stages?: string[]): Promise<void> {
    this.stopping = false;
    const all = new Map<string, { def: PipelineDefinition; index: number }>();
    for (const def of this.defs.values()) def.stages.forEach((s, index) => all.set(stageKey(def.name, s.name), { def, index }));
    const wanted = stages ?? [...all.keys()];
    const unknown = wanted.filter((k) => !all.has(k));
    if (unknown.length) throw new Error(`unknown stage queue(s) ${unknown.join(', ')}; known: ${[...all.keys()].join(', ') || '(none)'}`);
    const options: RetryConsumeOptions = { prefetch: this.concurrency, maxAttempts: this.maxAttempts };
    if (this.retryDelayMs) options.retryDelayMs = this.retryDelayMs;
    for (const key of wanted) {
      if (this.subs.has(key)) continue;
      const { def, index } = all.get(key)!;
      const sub = await this.transport.consume(key, (msg) => this.track(def, index, msg), options);
      this.subs.set(key, sub);
    }
  }

  /** Stops consuming, aborts in-flight stages (their messages go back to the queue) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const a of this.active.values()) a.controller.abort(STOPPING);
    const subs = [...this.subs.values()];
    this.subs.clear();
    await Promise.allSettled(subs.map((s) => s.cancel()));
    await Promise.allSettled([...this.running]);
  }

  /** Marks the job failed with error 'Cancelled' (if it has not finished) and aborts its stage if it runs here. */
  async cancel(jobId: string): Promise<void> {
    const now = new Date();
    const n = await this.store.repo('jobs').update({ id: jobId, status: ['pending', 'processing'] }, { status: 'failed', error: 'Cancelled', completed_at: now, updated_at: now });
    for (const a of this.active.values()) if (a.jobId === jobId) a.controller.abort(CANCELLED);
    if (n > 0) {
      this.notify(jobId);
      const job = await this.store.repo('jobs').get(jobId);
      const def = job ? await this.pipelineOf(job) : undefined;
      if (job && def?.onFail) await this.hook('onFail', jobId, () => def.onFail!(job, new Error('Cancelled')));
    }
  }

  /** Resolves with the job once it is completed or failed (polls the store; wakes early when it ends here). */
  async waitFor(jobId: string, timeoutMs = 600_000): Promise<JobRecord> {
    const deadline = Date.now() + timeoutMs;
    let delay = 20;
    for (;;) {
      const job = await this.store.repo('jobs').get(jobId);
      if (!job) throw errors.notFound('Job', jobId);
      if (job.status === 'completed' || job.status === 'failed') return job;
      const left = deadline - Date.now();
      if (left <= 0) throw new JobTimeoutError(jobId, job.status, timeoutMs);
      await this.sleepUnlessNotified(jobId, Math.min(delay, left));
      delay = Math.min(500, Math.round(delay * 1.5));
    }
  }

  // ---------------------------------------------------------------------------------------------------

  private track(def: PipelineDefinition, index: number, msg: StageMessage): Promise<void> {
    const p = this.handle(def, index, msg);
    const tracked = p.catch(() => {}).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
    return p;
  }

  private async handle(def: PipelineDefinition, index: number, msg: StageMessage): Promise<void> {
    const key = stageKey(def.name, def.stages[index]!.name);
    const local = `${msg.jobId}:${key}`;
    if (this.stopping) throw new RequeueError('worker is stopping');
    if (this.active.has(local)) throw new RequeueError(`stage ${key} of job ${msg.jobId} is already running here`, this.busyDelay());
    const controller = new AbortController();
    this.active.set(local, { jobId: msg.jobId, controller });
    try {
      await this.runStage(def, index, msg, controller);
    } finally {
      this.active.delete(local);
    }
  }

  private async runStage(def: PipelineDefinition, index: number, msg: StageMessage, controller: AbortController): Promise<void> {
    const stage = def.stages[index]!;
    const key = stageKey(def.name, stage.name);
    const log = this.logger.child({ jobId: msg.jobId, stage: key, attempt: msg.attempt });
    const jobs = this.store.repo('jobs');
    let job = await jobs.get(msg.jobId);
    if (!job) {
      log.warn({}, 'stage message for a job that does not exist; dropped');
      return;
    }
    if (job.status === 'completed' || job.status === 'failed') {
      log.debug({ status: job.status }, 'job already finished; stage skipped');
      return;
    }
    const nextKey = index < def.stages.length - 1 ? stageKey(def.name, def.stages[index + 1]!.name) : null;
    const row = await this.claim(job, key, nextKey, log);
    if (!row) return;

    if (job.status === 'pending') {
      const now = new Date();
      const started = await jobs.update({ id: job.id, status: 'pending' }, { status: 'processing', updated_at: now });
      if (started > 0 && def.onStart) {
        const fresh = (await jobs.get(job.id)) ?? job;
        await this.hook('onStart', job.id, () => def.onStart!(fresh));
      }
    }
    job = await jobs.get(msg.jobId);
    if (!job || job.status !== 'processing') {
      await this.markStage(row, 'failed', job?.error ?? 'Cancelled');
      return;
    }

    const n = def.stages.length;
    let written = job.progress ?? 0;
    const jobId = job.id;
    const ctx: StageContext = {
      job,
      message: msg,
      payload: msg.payload ?? {},
      store: this.store,
      signal: controller.signal,
      logger: log,
      progress: async (fraction) => {
        const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
        const pct = Math.min(99, Math.floor(((index + f) / n) * 100));
        if (pct <= written) return;
        written = pct;
        await jobs.update({ id: jobId, status: 'processing' }, { progress: pct, updated_at: new Date() });
      },
    };

    const stopWatch = this.watch(jobId, controller, log);
    let output: Record<string, unknown>;
    try {
      output = ((await stage.run(ctx)) ?? {}) as Record<string, unknown>;
    } catch (err) {
      stopWatch();
      return this.stageFailed(def, msg, row, err, controller, log);
    }
    stopWatch();

    const now = new Date();
    if (index < n - 1) {
      const current = await jobs.get(jobId);
      if (!current || current.status !== 'processing') {
        await this.markStage(row, 'failed', current?.status === 'failed' ? (current.error ?? 'Cancelled') : `job ${current?.status ?? 'deleted'} meanwhile`);
        return;
      }
      if (!(await this.holds(row))) {
        log.warn({}, 'another worker took this stage over while it ran; this result is dropped');
        return;
      }
      // publish first, then mark: a crash in between re-runs this stage rather than losing its output
      await this.transport.publish({ id: randomUUID(), jobId, pipeline: def.name, stage: def.stages[index + 1]!.name, payload: output, attempt: 1 });
      await this.markStage(row, 'completed', null);
      const pct = Math.floor(((index + 1) / n) * 100);
      if (pct > written) await jobs.update({ id: jobId, status: 'processing' }, { progress: pct, updated_at: now });
      log.debug({}, 'stage completed');
      return;
    }

    const done = await this.store.transaction(async (tx) => {
      const mine = await tx.repo('job_stages').update({ id: row.id, worker: this.workerId, status: 'running' }, { status: 'completed', completed_at: now, error: null });
      if (mine === 0) return -1;
      return tx.repo('jobs').update({ id: jobId, status: 'processing' }, { status: 'completed', result: output, progress: 100, error: null, completed_at: now, updated_at: now });
    });
    if (done < 0) log.warn({}, 'another worker took this stage over while it ran; this result is dropped');
    if (done > 0) {
      log.info({}, 'job completed');
      this.notify(jobId);
      if (def.onComplete) {
        const final = (await jobs.get(jobId))!;
        await this.hook('onComplete', jobId, () => def.onComplete!(final, output));
      }
    }
  }

  /** Claims the stage row, or returns null when the message must be acked without running the stage. */
  private async claim(job: JobRecord, key: string, nextKey: string | null, log: Logger): Promise<JobStageRecord | null> {
    const stages = this.store.repo('job_stages');
    const beat = new Date(job.updated_at).getTime();
    const silentFor = Date.now() - (Number.isFinite(beat) ? beat : 0);
    // Look before claiming: a store may hand over a running row to anyone, but a holder whose job still
    // shows a heartbeat is alive, and running the stage beside it would duplicate its work.
    const existing = await stages.findOne({ job_id: job.id, stage: key });
    if (existing?.status === 'completed') {
      log.debug({}, 'stage already completed; duplicate message acked');
      return null;
    }
    if (existing && nextKey && (await stages.findOne({ job_id: job.id, stage: nextKey }))) {
      // the next stage started, so this one published its output and only missed marking itself (its worker
      // died in between): settle the row instead of running the stage again
      await stages.update({ id: existing.id, status: existing.status, worker: existing.worker }, { status: 'completed', completed_at: new Date() });
      log.warn({ previousWorker: existing.worker }, 'stage had published its output but was not marked completed; marked now');
      return null;
    }
    if (existing?.status === 'running' && existing.worker !== this.workerId && silentFor <= this.leaseMs) {
      throw new RequeueError(`stage ${key} of job ${job.id} is held by ${existing.worker}`, this.busyDelay());
    }
    const { claimed, row } = await this.store.claimStage(job.id, key, this.workerId);
    if (claimed) {
      if (existing?.status === 'running' && existing.worker !== this.workerId) log.warn({ previousWorker: existing.worker, silentForMs: silentFor }, 'took over a stage from a worker that stopped responding');
      return row;
    }
    if (row.status === 'completed') {
      log.debug({}, 'stage already completed; duplicate message acked');
      return null;
    }
    const take = async (where: Partial<JobStageRecord>) => {
      const patch = { status: 'running' as const, worker: this.workerId, attempts: (row.attempts ?? 0) + 1, started_at: new Date(), completed_at: null, error: null };
      const n = await stages.update({ id: row.id, ...where }, patch);
      return n > 0 ? { ...row, ...patch } : null;
    };
    if (row.status === 'failed') {
      const taken = await take({ status: 'failed' });
      if (taken) return taken;
      throw new RequeueError(`stage ${key} of job ${job.id} was claimed concurrently`, this.busyDelay());
    }
    // running, held by another worker: take it over only when its job shows no heartbeat for leaseMs
    if (row.worker === this.workerId || silentFor > this.leaseMs) {
      const taken = await take({ status: 'running', worker: row.worker });
      if (taken) {
        log.warn({ previousWorker: row.worker, silentForMs: silentFor }, 'took over a stage from a worker that stopped responding');
        return taken;
      }
    }
    throw new RequeueError(`stage ${key} of job ${job.id} is held by ${row.worker}`, this.busyDelay());
  }

  private async stageFailed(def: PipelineDefinition, msg: StageMessage, row: JobStageRecord, err: unknown, controller: AbortController, log: Logger): Promise<void> {
    const jobs = this.store.repo('jobs');
    const message = errorMessage(err);
    const job = await jobs.get(msg.jobId);
    if (!job || job.status === 'failed' || controller.signal.reason === CANCELLED) {
      await this.markStage(row, 'failed', job?.error ?? 'Cancelled');
      return;
    }
    if (controller.signal.reason === STOPPING) {
      // interrupted by stop(): free the row and give the message back without spending an attempt
      if (await this.markStage(row, 'failed', 'Interrupted: worker stopped', false)) throw new RequeueError('worker is stopping');
      return;
    }
    const final = !isRetryable(err) || msg.attempt >= this.maxAttempts;
    if (!(await this.markStage(row, 'failed', message, final))) {
      log.warn({ error: message }, 'stage failed after another worker took it over; left to that worker');
      return;
    }
    if (!final) {
      log.warn({ error: message }, 'stage failed; will retry');
      throw err instanceof Error ? err : new Error(message);
    }
    const now = new Date();
    const n = await jobs.update({ id: job.id, status: ['pending', 'processing'] }, { status: 'failed', error: message, completed_at: now, updated_at: now });
    log.error({ error: message }, 'job failed');
    if (n > 0) {
      this.notify(job.id);
      if (def.onFail) {
        const final = (await jobs.get(job.id)) ?? job;
        const e = err instanceof Error ? err : new Error(message);
        await this.hook('onFail', job.id, () => def.onFail!(final, e));
      }
    }
  }

  /** Settles the stage row if this worker still holds it (a fence against a worker that took it over). */
  private async markStage(row: JobStageRecord, status: 'completed' | 'failed', error: string | null, finished = true): Promise<boolean> {
    const n = await this.store.repo('job_stages').update({ id: row.id, worker: this.workerId, status: 'running' }, { status, error, completed_at: finished ? new Date() : null });
    return n > 0;
  }

  private async holds(row: JobStageRecord): Promise<boolean> {
    const now = await this.store.repo('job_stages').get(row.id);
    return !!now && now.status === 'running' && now.worker === this.workerId;
  }

  /** While a stage runs: abort it when its job gets cancelled elsewhere, and keep the job's heartbeat fresh. */
  private watch(jobId: string, controller: AbortController, log: Logger): () => void {
    const jobs = this.store.repo('jobs');
    let lastBeat = Date.now();
    let busy = false;
    const timer = setInterval(() => {
      if (busy || controller.signal.aborted) return;
      busy = true;
      (async () => {
        const job = await jobs.get(jobId);
        if (!job || job.status === 'failed') controller.abort(CANCELLED);
        else if (Date.now() - lastBeat >= this.leaseMs / 3) {
          lastBeat = Date.now();
          await jobs.update({ id: jobId, status: 'processing' }, { updated_at: new Date() });
        }
      })()
        .catch((e) => log.debug({ err: e }, 'job watch failed'))
        .finally(() => (busy = false));
    }, this.pollMs);
    timer.unref?.();
    return () => clearInterval(timer);
  }

  private async hook(name: string, jobId: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.logger.error({ err: e, jobId, hook: name }, 'pipeline hook failed');
    }
  }

  private async pipelineOf(job: JobRecord): Promise<PipelineDefinition | undefined> {
    const rows = await this.store.repo('job_stages').find({ job_id: job.id });
    for (const r of rows) {
      const dot = r.stage.indexOf('.');
      const def = this.defs.get(r.stage.slice(0, dot));
      if (def) return def;
    }
    return this.defs.get(job.type);
  }

  private busyDelay(): number {
    return Math.max(20, Math.min(5000, Math.round(this.leaseMs / 4)));
  }

  private notify(jobId: string): void {
    const set = this.waiters.get(jobId);
    if (!set) return;
    this.waiters.delete(jobId);
    for (const wake of set) wake();
  }

  private sleepUnlessNotified(jobId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(jobId);
      if (!set) this.waiters.set(jobId, (set = new Set()));
      const wake = () => {
        clearTimeout(t);
        set!.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      set.add(wake);
    });
  }
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

function isRetryable(err: unknown): boolean {
  if (err instanceof NonRetryableError) return false;
  if (err && typeof err === 'object') {
    const e = err as { status?: unknown; name?: unknown; retryable?: unknown };
    if (e.retryable === false) return false;
    if (e.name === 'QuireError' && typeof e.status === 'number' && e.status < 500) return false;
  }
  return true;
}
