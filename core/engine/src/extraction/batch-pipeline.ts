/** Extraction batches as a pipeline: fanout (one child 'extract' job per document) → collect (see batch.ts). */
import type { JobRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf } from '../jobs.js';
import { BATCH_PIPELINE, collectBatch, fanOutBatch } from './batch.js';
import { EXTRACT_PIPELINE } from './service.js';
import type { ExtractJobInput } from './service.js';
import { removeExtractJobs } from './remove.js';

const PAGE = 500;

/**
 * The child extractions of a batch whose job was erased or deleted, removed with what they stored. Their ids
 * derive from the batch's and their documents', but the batch row that lists the documents is erased too: they
 * are found among the owner's extraction jobs by the batch they name (an erased owner has few left).
 */
async function removeChildren(rt: Engine, job: JobRecord): Promise<void> {
  const batchId = (job.input as { batch_id?: unknown } | null)?.batch_id;
  if (typeof batchId !== 'string' || !batchId) return;
  const owner = ownerOf(job);
  const where = owner.organization_id ? { organization_id: owner.organization_id, type: EXTRACT_PIPELINE } : { user_id: owner.user_id, organization_id: null, type: EXTRACT_PIPELINE };
  const children: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await rt.store.repo('jobs').find(where as never, { limit: PAGE, offset: offset || undefined });
    for (const j of page) if ((j.input as unknown as ExtractJobInput | null)?.batch_id === batchId) children.push(j.id);
    if (page.length < PAGE) break;
  }
  await removeExtractJobs(rt, children);
}

export function defineExtractBatchPipeline(rt: Engine): void {
  rt.pipelines.define({
    name: BATCH_PIPELINE,
    stages: [
      {
        name: 'fanout',
        async run(ctx) {
          const batchId = String((ctx.job.input as { batch_id?: unknown }).batch_id);
          return { batch_id: batchId, children: await fanOutBatch(rt, batchId) };
        },
      },
      {
        name: 'collect',
        async run(ctx) {
          const batchId = String(ctx.payload.batch_id);
          const batch = await collectBatch(rt, batchId, (ctx.payload.children ?? {}) as Record<string, string>, ctx.signal);
          return { batch_id: batchId, status: batch?.status ?? 'deleted', documents: batch?.document_ids.length ?? 0 };
        },
      },
    ],
    async onFail(job, error) {
      const batchId = String((job.input as { batch_id?: unknown } | null)?.batch_id ?? '');
      if (!batchId) return;
      await rt.store.repo('extract_batches').update({ id: batchId, status: ['pending', 'processing'] }, { status: 'failed', updated_at: new Date() });
      rt.logger.warn({ batchId, err: error.message }, 'extraction batch failed');
    },
    // a batch whose owner was erased (or whose job went with them) while it ran: the children its fanout made
    // go, with what they stored (a fanout that ends after the erasure may have made some)
    discard: (job) => removeChildren(rt, job),
  });
}
