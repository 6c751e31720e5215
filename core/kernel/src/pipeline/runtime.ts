import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { JobRecord, JobStageRecord, ProgressDetail } from '../model/records.js';
import type { Store } from '../store.js';
import type { StageMessage, Transport } from '../transport/types.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { errors } from '../errors/index.js';
import { RequeueError, type RetryConsumeOptions } from './delivery.js';
import { StageClaims } from './claims.js';
import { JobTimeoutError, errorMessage, isRetryable, stageErrorRecord, stageKey, validatePipeline } from './types.js';
import type { PipelineDefinition, PipelineObserver, PipelineRuntimeOptions, StageContext } from './types.js';

export { NonRetryableError, JobTimeoutError, stageKey, isRetryable, transient, jobError, failedStage, stageErrorRecord } from './types.js';
export type { StageContext, StageDefinition, PipelineDefinition, PipelineRuntimeOptions, PipelineObserver, RetryPolicy, StageErrorRecord } from './types.js';

const CANCELLED = 'cancelled';
const CANCELLED_MESSAGE = 'Cancelled';
const STOPPING = 'stopping';

/**
 * The error of a job whose owner's data is being erased (account or organization deletion). The erasure
 * sets it on every job of the owner, in one committed update, before it deletes anything: a stage run or
 * completion hook that ends and finds its job erased or gone calls the pipeline's `discard` (what it wrote
 * meanwhile goes), wherever it runs. A pending or running job is failed with it as well (its stages stop).
 */
export const ERASED = 'Erased';

interface Active {
  jobId: string;
  controller: AbortController;
  /** the stage queue and the job's owner, for fair sharing */
  key: string;
  owner: string | null;
  /** settles when the stage run (and the completion or failure hook it calls) is over */
  finished: Promise<void>;
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
  private readonly fairShare: number;
  private readonly defs = new Map<string, PipelineDefinition>();
  private readonly subs = new Map<string, { cancel(): Promise<void> }>();
  private readonly active = new Map<string, Active>();
  private readonly running = new Set<Promise<void>>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private stopping = false;
  private readonly claims: StageClaims;
  private readonly observer?: PipelineObserver;

  constructor(opts: PipelineRuntimeOptions) {
    this.store = opts.store;
    this.transport = opts.transport;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'pipeline' });
    this.workerId = opts.workerId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.concurrency = Math.max(1, opts.concurrency ?? 2);
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
    this.retryDelayMs = opts.retryDelayMs;
    this.leaseMs = Math.max(100, opts.leaseMs ?? 30_000);
    this.fairShare = Math.max(0, Math.floor(opts.fairShare ?? 0));
    this.pollMs = Math.max(10, Math.min(opts.pollMs ?? 1000, this.leaseMs / 3));
    this.claims = new StageClaims(this.store, this.workerId, this.leaseMs);
    this.observer = opts.observer;
  }

  define(p: PipelineDefinition): void {
    validatePipeline(p);
    this.defs.set(p.name, p);
  }

  pipelines(): string[] {
    return [...this.defs.keys()];
  }

  /** Every stage queue of the defined pipelines, "<pipeline>.<stage>". */
  stageKeys(): string[] {
    return [...this.defs.values()].flatMap((def) => def.stages.map((s) => stageKey(def.name, s.name)));
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
    for (const key of wanted) {
      if (this.subs.has(key)) continue;
      const { def, index } = all.get(key)!;
      // the pipeline's own retry policy, else the runtime's (the transport applies attempts and delays)
      const options: RetryConsumeOptions = { prefetch: this.concurrency, maxAttempts: this.attemptsOf(def) };
      const delay = def.retry?.delayMs ?? this.retryDelayMs;
      if (delay) options.retryDelayMs = delay;
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
    await this.fail(jobId, CANCELLED_MESSAGE);
  }

  /**
   * Fails an unfinished job with `reason` (once: a job that already ended is left alone), aborts its stage if
   * it runs here and calls the pipeline's onFail. Returns whether this call failed it.
   */
  async fail(jobId: string, reason: string): Promise<boolean> {
    const now = new Date();
    const n = await this.store.repo('jobs').update({ id: jobId, status: ['pending', 'processing'] }, { status: 'failed', error: reason, completed_at: now, updated_at: now });
    for (const a of this.active.values()) if (a.jobId === jobId) a.controller.abort(CANCELLED);
    if (n > 0) {
      this.notify(jobId);
      const job = await this.store.repo('jobs').get(jobId);
      const def = job ? await this.pipelineOf(job) : undefined;
      if (job && def) this.observer?.job(job.type, def.name, 'failed');
      if (job && def?.onFail) await this.hook('onFail', jobId, () => def.onFail!(job, new Error(reason)));
    }
    return n > 0;
  }

  /** The jobs with a stage running in this process now. */
  activeJobIds(): string[] {
    return [...new Set([...this.active.values()].map((a) => a.jobId))];
  }

  /**
   * Waits until no stage of these jobs runs in this process, the completion and failure hooks they call
   * included (a job reads completed before its onComplete hook has run), for at most `timeoutMs`. True when
   * none runs any more.
   */
  async settle(jobIds: Iterable<string>, timeoutMs = 60_000): Promise<boolean> {
    const ids = new Set(jobIds);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = [...this.active.values()].filter((a) => ids.has(a.jobId)).map((a) => a.finished);
      if (!running.length) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(running), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
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
    let owner: string | null = null;
    if (this.fairShare > 0) {
      const job = await this.store.repo('jobs').get(msg.jobId);
      owner = job ? (job.organization_id ?? job.user_id ?? null) : null;
      let mine = 0;
      for (const a of this.active.values()) if (a.key === key && owner !== null && a.owner === owner) mine++;
      // one owner's documents wait behind the others' while it already holds its share of this stage's slots
      if (mine >= this.fairShare) throw new RequeueError(`owner of job ${msg.jobId} already runs ${mine} ${key} stage(s) here`, 200);
    }
    // checked after the lookup above, with nothing awaited between the check and the claim of the slot
    if (this.active.has(local)) throw new RequeueError(`stage ${key} of job ${msg.jobId} is already running here`, this.claims.busyDelay());
    const controller = new AbortController();
    let over!: () => void;
    const finished = new Promise<void>((resolve) => (over = resolve));
    this.active.set(local, { jobId: msg.jobId, controller, key, owner, finished });
    try {
      await this.runStage(def, index, msg, controller);
    } finally {
      this.active.delete(local);
      over();
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
    const row = await this.claims.claim(job, key, nextKey, log);
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
    if (!job) {
      // deleted meanwhile (an erasure may have swept its stage rows before this claim): the row goes too
      await this.store.repo('job_stages').delete(row.id);
      return;
    }
    if (job.status !== 'processing') {
      await this.claims.mark(row, 'failed', job.error ?? 'Cancelled');
      return;
    }

    const n = def.stages.length;
    let written = job.progress ?? 0;
    let detail: ProgressDetail = { ...(job.progress_detail ?? {}) };
    const jobId = job.id;
    const ran = job;
    // progress writes go one after another: two in flight at once could land in the other order and move
    // the job's progress backwards
    let writes: Promise<unknown> = Promise.resolve();
    const write = (patch: Partial<JobRecord>): Promise<void> => {
      const p = writes.then(() => jobs.update({ id: jobId, status: 'processing' }, { ...patch, updated_at: new Date() }));
      writes = p.catch(() => {});
      return p.then(() => {});
    };
    const percent = (fraction: number | undefined): number | null => {
      if (fraction === undefined) return null;
      const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
      const pct = Math.min(99, Math.floor(((index + f) / n) * 100));
      return pct > written ? pct : null;
    };
    const ctx: StageContext = {
      job,
      message: msg,
      payload: msg.payload ?? {},
      store: this.store,
      signal: controller.signal,
      logger: log,
      progress: async (fraction) => {
        const pct = percent(fraction);
        if (pct === null) return;
        written = pct;
        await write({ progress: pct });
      },
      report: async (counts, fraction) => {
        const changed: ProgressDetail = {};
        for (const [k, v] of Object.entries(counts)) if (Number.isFinite(v) && detail[k] !== v) changed[k] = Math.max(0, Math.floor(v));
        const pct = percent(fraction);
        if (!Object.keys(changed).length && pct === null) return;
        detail = { ...detail, ...changed };
        if (pct !== null) written = pct;
        await write({ progress_detail: detail, ...(pct !== null ? { progress: pct } : {}) });
      },
    };

    const stopWatch = this.watch(jobId, controller, log);
    const began = performance.now();
    const seconds = () => (performance.now() - began) / 1000;
    let output: Record<string, unknown>;
    try {
      output = ((await stage.run(ctx)) ?? {}) as Record<string, unknown>;
    } catch (err) {
      stopWatch();
      return this.stageFailed(def, msg, ran, row, err, controller, log, seconds());
    }
    stopWatch();
    this.observer?.stage(def.name, stage.name, 'completed', seconds());
    // progress reports the stage made without awaiting them land before the stage's end is written
    await writes;

    const now = new Date();
    if (index < n - 1) {
      const current = await jobs.get(jobId);
      if (!current || current.status !== 'processing') {
        await this.claims.mark(row, 'failed', current?.status === 'failed' ? (current.error ?? 'Cancelled') : `job ${current?.status ?? 'deleted'} meanwhile`);
        await this.discardIfErased(def, current, ran, log);
        return;
      }
      if (!(await this.claims.holds(row))) {
        log.warn({}, 'another worker took this stage over while it ran; this result is dropped');
        return;
      }
      // this stage's end is written before the next stage can start: a later write of it could land after
      // the next stage's first reports and move the progress backwards
      const pct = Math.floor(((index + 1) / n) * 100);
      if (pct > written) await jobs.update({ id: jobId, status: 'processing' }, { progress: pct, updated_at: now });
      // publish first, then mark: a crash in between re-runs this stage rather than losing its output
      await this.transport.publish({ id: randomUUID(), jobId, pipeline: def.name, stage: def.stages[index + 1]!.name, payload: output, attempt: 1 });
      await this.claims.mark(row, 'completed', null);
      log.debug({}, 'stage completed');
      return;
    }

    const done = await this.store.transaction(async (tx) => {
      const mine = await tx.repo('job_stages').update({ id: row.id, worker: this.workerId, status: 'running' }, { status: 'completed', completed_at: now, error: null });
      if (mine === 0) return -1;
      const completed = await tx.repo('jobs').update({ id: jobId, status: 'processing' }, { status: 'completed', result: output, progress: 100, error: null, completed_at: now, updated_at: now });
      if (completed > 0 && def.onCompleting) await def.onCompleting(tx, job, output);
      return completed;
    });
    if (done <= 0) {
      // not completed because the job was erased or deleted while the stage ran (an erasure deletes the job's
      // stage rows with it, so this run's row may be gone too): what the stage wrote goes
      const current = await jobs.get(jobId);
      if (done < 0 && current && current.error !== ERASED) log.warn({}, 'another worker took this stage over while it ran; this result is dropped');
      await this.discardIfErased(def, current, ran, log);
    }
    if (done > 0) {
      log.info({}, 'job completed');
      this.observer?.job(job.type, def.name, 'completed');
      this.notify(jobId);
      if (def.onComplete) {
        const final = await jobs.get(jobId);
        if (final && final.error !== ERASED) await this.hook('onComplete', jobId, () => def.onComplete!(final, output));
        // erased (or deleted) before or while the hook ran: what the stages and the hook wrote goes
        await this.discardIfErased(def, await jobs.get(jobId), final ?? ran, log);
      }
    }
  }

  /**
   * After a stage run or completion hook of `last`: when its job is now gone (`now` null) or erased, calls
   * the pipeline's discard. Sound against an erasure because the erasure commits ERASED on the job before it
   * deletes anything, and this check reads the job after every write of the run: a run that reads the job
   * live wrote all it wrote before the erasure began, so the erasure's sweep finds it; a run that reads it
   * erased removes what it wrote.
   */
  private async discardIfErased(def: PipelineDefinition, now: JobRecord | null, last: JobRecord, log: Logger): Promise<void> {
    if (now && now.error !== ERASED) return;
    if (!def.discard) return;
    log.warn({ gone: !now }, 'job erased or deleted while it ran: what it wrote is removed');
    await this.hook('discard', last.id, () => def.discard!(now ?? last, !now));
  }

  private async stageFailed(def: PipelineDefinition, msg: StageMessage, ran: JobRecord, row: JobStageRecord, err: unknown, controller: AbortController, log: Logger, seconds: number): Promise<void> {
    const jobs = this.store.repo('jobs');
    const message = errorMessage(err);
    const job = await jobs.get(msg.jobId);
    if (!job || job.status === 'failed' || controller.signal.reason === CANCELLED) {
      await this.claims.mark(row, 'failed', job?.error ?? 'Cancelled');
      // a stage stopped by an erasure (or whose job was deleted) may have written part of its work
      await this.discardIfErased(def, job, job ?? ran, log);
      return;
    }
    if (controller.signal.reason === STOPPING) {
      // interrupted by stop(): free the row and give the message back without spending an attempt
      if (await this.claims.mark(row, 'failed', 'Interrupted: worker stopped', false)) throw new RequeueError('worker is stopping');
      return;
    }
    const final = !isRetryable(err) || msg.attempt >= this.attemptsOf(def);
    if (!(await this.claims.mark(row, 'failed', message, final))) {
      log.warn({ error: message }, 'stage failed after another worker took it over; left to that worker');
      return;
    }
    this.observer?.stage(def.name, msg.stage, final ? 'failed' : 'retry', seconds);
    if (!final) {
      log.warn({ error: message }, 'stage failed; will retry');
      throw err instanceof Error ? err : new Error(message);
    }
    const now = new Date();
    const n = await jobs.update({ id: job.id, status: ['pending', 'processing'] }, { status: 'failed', error: message, result: { error: stageErrorRecord(msg.stage, err) }, completed_at: now, updated_at: now });
    log.error({ error: message }, 'job failed');
    if (n > 0) {
      this.observer?.job(job.type, def.name, 'failed');
      this.notify(job.id);
      if (def.onFail) {
        const final = (await jobs.get(job.id)) ?? job;
        const e = err instanceof Error ? err : new Error(message);
        await this.hook('onFail', job.id, () => def.onFail!(final, e));
      }
    }
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

  /** Deliveries of a stage message of this pipeline before its job fails. */
  private attemptsOf(def: PipelineDefinition): number {
    return def.retry?.maxAttempts ?? this.maxAttempts;
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
