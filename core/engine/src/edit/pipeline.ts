/**
 * `edit`: one job per edit job (the runtime job's id is the edit job's), one stage `run` that detects,
 * fills and renders (edit/jobs.ts), moving the edit job through detecting → filling → rendering. A failure
 * fails the edit job at once: what failed is in its error.
 */
import { errors, isQuireError } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { EDIT_PIPELINE, failEditJob, runEditJob } from './jobs.js';

export function defineEditPipeline(rt: Engine): void {
  rt.pipelines.define({
    name: EDIT_PIPELINE,
    stages: [
      {
        name: 'run',
        async run(ctx) {
          try {
            return await runEditJob(rt, ctx.job.id, ctx.signal);
          } catch (e) {
            if (ctx.signal.aborted) throw e;
            const err = isQuireError(e) ? e : errors.processing(`Edit failed: ${(e as Error)?.message ?? String(e)}`);
            throw Object.assign(err, { retryable: false });
          }
        },
      },
    ],
    async onFail(job, error) {
      await failEditJob(rt, job.id, job.error ?? error.message);
    },
    // a run that ended after its owner was erased (or its job went with them): the edits it made, their output
    // files and their audit rows go
    async discard(job) {
      const edits = await rt.store.repo('edits').find({ edit_job_id: job.id });
      for (const e of edits) {
        await rt.storage.delete(e.output_key);
        await rt.storage.deletePrefix(`edits/${e.id}/`);
      }
      await rt.store.repo('edit_audit').delete({ edit_job_id: job.id });
      if (edits.length) await rt.store.repo('edits').delete({ id: edits.map((e) => e.id) });
    },
  });
}
