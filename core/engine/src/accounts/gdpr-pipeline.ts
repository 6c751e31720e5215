/**
 * `gdpr-export`: one job per data export request, one stage `build` that writes the zip (accounts/gdpr.ts).
 * A failure marks the request failed. API processes also run the privacy sweep here: deletions whose grace
 * period is over are carried out, exports past their time are expired (every minute).
 */
import type { JobRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { everyInterval } from '../infra/periodic.js';
import { GDPR_EXPORT_PIPELINE, buildExport, completeExport, expireExports, failExport, removeExport, runDueDeletions } from './gdpr.js';

const requestOf = (job: JobRecord) => String((job.input as { request_id?: string } | null)?.request_id ?? '');
const SWEEP_MS = 60_000;

export function defineGdprPipeline(rt: Engine): void {
  rt.pipelines.define({
    name: GDPR_EXPORT_PIPELINE,
    stages: [{ name: 'build', run: async (ctx) => buildExport(rt, requestOf(ctx.job), ctx.signal) }],
    async onComplete(job, output) {
      await completeExport(rt, requestOf(job), output as { file_key: string; file_size: number });
    },
    async onFail(job, error) {
      await failExport(rt, requestOf(job), job.error ?? error.message);
    },
    // a build that ended after its user was erased: the zip it wrote (the whole account's data) goes
    async discard(job) {
      await removeExport(rt, requestOf(job));
    },
  });
  if (rt.role === 'server') startPrivacySweep(rt);
}

function startPrivacySweep(rt: Engine): void {
  rt.registry.service('privacy-sweep', () => {
    const log = rt.logger.child({ part: 'privacy' });
    const sweep = everyInterval(SWEEP_MS, () => Promise.all([runDueDeletions(rt), expireExports(rt)]), (err) => log.warn({ err: err.message }, 'privacy sweep failed'));
    return { value: true, close: () => sweep.stop() };
  });
}
