import type { JobRecord } from '@quire/core';
import type { EngineContext as Engine } from './context.js';
import { defineIngestPipeline } from './search/ingest.js';
import { defineParsePipeline } from './parse/pipeline.js';
import { defineExtractPipelines } from './extraction/pipeline.js';
import { defineWebhookPipeline } from './infra/webhook-pipeline.js';
import { defineWorkflowPipeline } from './workflows/pipeline.js';
import { defineGdprPipeline } from './accounts/gdpr-pipeline.js';
import { defineEditPipeline } from './edit/pipeline.js';
import { defineGeneratePipeline } from './generation/pipeline.js';
import { defineSplitPipeline } from './split/pipeline.js';

/** Registers every pipeline this process can run. */
export function definePipelines(rt: Engine): void {
  defineIngestPipeline(rt);
  defineParsePipeline(rt);
  defineExtractPipelines(rt);
  defineWebhookPipeline(rt.pipelines, rt.webhooks);
  defineWorkflowPipeline(rt);
  defineGdprPipeline(rt);
  defineEditPipeline(rt);
  defineGeneratePipeline(rt);
  defineSplitPipeline(rt);
}



export type { JobRecord };
