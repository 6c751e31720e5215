/**
 * Split events (spec §6.1): `split.completed` / `split.failed`, not wrapped in the envelope, once per job.
 * A per-request webhook_url (run or batch) gets it as a signed delivery with the retry schedule of every
 * delivery (infra/webhooks.ts); without one, the event goes on the bus and from there to the webhooks
 * subscribed to it (the organization's, else the user's own), unwrapped as well (webhookBody).
 */
import type { JobRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf } from '../jobs.js';
import { documentFileUrl, publicErrorText } from '../io/documents.js';
import { inputOf } from './jobs.js';

export const resultsUrl = (rt: Pick<Engine, 'config'>, jobId: string) => `${rt.config.publicUrl ?? ''}/api/split/results/${jobId}`;

/** The split event's fields besides `event` and `timestamp`. */
export async function splitEventData(rt: Engine, job: JobRecord, status: 'completed' | 'failed', error?: string | null): Promise<Record<string, unknown>> {
  const sections = await rt.store.repo('split_sections').find({ job_id: job.id }, { order: { idx: 'ASC' } });
  const source = inputOf(job).source;
  return {
    job_id: job.id,
    document_id: job.document_id ?? (source.kind === 'document' ? source.document_id : source.kind === 'job' ? source.document_id : null),
    status,
    sections_summary: sections.map((s) => ({ section_id: s.id, name: s.section_name, page_start: s.page_start, page_end: s.page_end, type: s.section_type, document_id: s.document_id, file_url: s.document_id ? documentFileUrl(rt, s.document_id) : null })),
    results_url: resultsUrl(rt, job.id),
    ...(status === 'failed' ? { error: publicErrorText(error ?? job.error ?? 'failed', `job ${job.id}`) } : {}),
  };
}

export async function notifySplit(rt: Engine, job: JobRecord, status: 'completed' | 'failed', error?: string | null): Promise<void> {
  const event = `split.${status}`;
  const data = await splitEventData(rt, job, status, error);
  if (job.webhook_url) {
    await rt.webhooks.enqueue({ url: job.webhook_url, event, payload: { event, ...data, timestamp: new Date().toISOString() }, secret: '', user_id: job.user_id });
    return;
  }
  await rt.events.emit(event, data, ownerOf(job));
}

/** A batch is completed once every one of its jobs has ended. */
export async function settleBatch(rt: Engine, batchId: string | null): Promise<void> {
  if (!batchId) return;
  const batch = await rt.store.repo('split_batches').get(batchId);
  if (!batch || batch.status === 'completed') return;
  const jobs = await rt.store.repo('jobs').find({ id: batch.job_ids });
  if (jobs.length < batch.job_ids.length || jobs.some((j) => j.status !== 'completed' && j.status !== 'failed')) return;
  await rt.store.repo('split_batches').update({ id: batchId, status: 'processing' }, { status: 'completed', updated_at: new Date() });
}
