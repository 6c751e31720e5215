import Router from '@koa/router';
import { errors } from '@quire/core';
import type { JobRecord } from '@quire/core';
import type { AuthInfo } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { canRead, documentJob, readableJob } from '@quire/engine';
import { epoch, jobStillServed, publicErrorText } from '@quire/engine';
import type { Engine } from '@quire/engine';

/** A job by its id, or the processing job of a document by the document's id. */
export async function findJob(rt: Engine, auth: AuthInfo, id: string): Promise<JobRecord> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw errors.notFound('job', id);
  const job = (await readableJob(rt, null, id)) ?? (await documentJob(rt, id));
  if (!job || !canRead(auth, job) || !(await jobStillServed(rt, job))) throw errors.notFound('job', id);
  return job;
}

export function v1Job(job: JobRecord, idAsRequested: string) {
  return {
    id: idAsRequested,
    object: 'job',
    status: job.status,
    result: job.status === 'completed' ? { ...(job.document_id ? { document_id: job.document_id } : {}), ...(job.result ?? {}) } : null,
    error: job.status === 'failed' ? (publicErrorText(job.error, `job ${job.id}`) ?? 'failed') : null,
    created: epoch(job.created_at),
  };
}

export function jobRoutes(router: Router<any, any>): void {
  route(router, { method: 'get', path: '/v1/jobs/:id', summary: 'Job status by job id or document id', tag: 'Jobs (v1)' }, async (ctx) => {
    const auth = requireAuth(ctx);
    const job = await findJob(ctx.quire, auth, ctx.params.id!);
    return v1Job(job, ctx.params.id!);
  });

  route(router, { method: 'get', path: '/api/jobs/:id', summary: 'Status and result of a background job: progress 0-100 and progress_detail {pages_total, pages_read, pages_ocr, chunks, chunks_indexed} as its stages report them', tag: 'Parse' }, async (ctx) => {
    const auth = requireAuth(ctx);
    const job = await findJob(ctx.quire, auth, ctx.params.id!);
    return {
      job_id: job.id,
      id: job.id,
      type: job.type,
      status: job.status,
      progress: job.progress,
      // the counts behind progress (docs/api: pages_total, pages_read, pages_ocr, chunks, chunks_indexed)
      progress_detail: job.progress_detail ?? {},
      document_id: job.document_id,
      result: job.status === 'completed' ? job.result : null,
      error: job.status === 'failed' ? publicErrorText(job.error, `job ${job.id}`) : null,
      webhook_url: job.webhook_url,
      created_at: job.created_at.toISOString(),
      updated_at: job.updated_at.toISOString(),
      completed_at: job.completed_at?.toISOString() ?? null,
    };
  });
}
