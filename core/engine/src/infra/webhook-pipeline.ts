import type { PipelineRuntime } from '@quire/core';
import { WEBHOOK_PIPELINE } from './webhooks.js';
import type { WebhookDispatcher } from './webhooks.js';

/**
 * `webhook`: one job per webhook delivery (the job's id is the delivery's), one stage `deliver` that makes one
 * attempt. Retries follow the pipeline's own policy, `webhooks.retryDelaysMs` (attempts = delays + 1), not the
 * runtime's: a transient failure (5xx, 408, 429, timeout, network) throws and the transport delivers the
 * stage message again after the delay (in-process: a timer, its message kept in stage_messages; RabbitMQ: a
 * TTL retry queue per delay), so a pending retry survives restarts on both. A permanent failure (other 4xx,
 * refused address) fails the job at once; onFail (also on the last attempt and on cancellation) marks the
 * delivery row failed.
 */
export function defineWebhookPipeline(pipelines: PipelineRuntime, webhooks: WebhookDispatcher): void {
  pipelines.define({
    name: WEBHOOK_PIPELINE,
    retry: webhooks.retryPolicy(),
    stages: [
      {
        name: 'deliver',
        run: (ctx) => webhooks.deliver(deliveryIdOf(ctx.payload, ctx.job.id), ctx),
      },
    ],
    async onFail(job, error) {
      await webhooks.failed(deliveryIdOf(job.input ?? {}, job.id), error.message);
    },
  });
}

function deliveryIdOf(from: Record<string, unknown>, jobId: string): string {
  return typeof from.delivery_id === 'string' ? from.delivery_id : jobId;
}
