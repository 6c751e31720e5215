import type { JobRecord, JobStageRecord } from '../model/records.js';
import type { Store } from '../store.js';
import type { Logger } from '../util/logger.js';
import { RequeueError } from './delivery.js';

/**
 * The job_stages row of a stage is its claim. A row held by another worker is left alone while the job
 * shows a heartbeat (jobs.updated_at) newer than leaseMs; older, the holder is taken for dead and the
 * stage taken over. Settling a row checks that this worker still holds it (a fence against takeovers).
 */
export class StageClaims {
  constructor(
    private readonly store: Store,
    private readonly workerId: string,
    private readonly leaseMs: number,
  ) {}

  /** Claims the stage row, or returns null when the message must be acked without running the stage. */
  async claim(job: JobRecord, key: string, nextKey: string | null, log: Logger): Promise<JobStageRecord | null> {
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

  /** Settles the stage row if this worker still holds it (a fence against a worker that took it over). */
  async mark(row: JobStageRecord, status: 'completed' | 'failed', error: string | null, finished = true): Promise<boolean> {
    const n = await this.store.repo('job_stages').update({ id: row.id, worker: this.workerId, status: 'running' }, { status, error, completed_at: finished ? new Date() : null });
    return n > 0;
  }

  async holds(row: JobStageRecord): Promise<boolean> {
    const now = await this.store.repo('job_stages').get(row.id);
    return !!now && now.status === 'running' && now.worker === this.workerId;
  }

  busyDelay(): number {
    return Math.max(20, Math.min(5000, Math.round(this.leaseMs / 4)));
  }
}
