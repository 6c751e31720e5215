/** Extraction batches as a pipeline: fanout (one child 'extract' job per document) → collect (see batch.ts). */
import type { EngineContext as Engine } from '../context.js';
import { BATCH_PIPELINE, collectBatch, fanOutBatch } from './batch.js';

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
  });
}
