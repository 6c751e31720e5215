import type { JobRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { defineIngestPipeline } from './ingest.js';
import { defineParsePipeline } from './parse.js';
import { defineExtractPipelines } from './extract.js';
import { defineWebhookPipeline } from './webhook.js';
import { defineWorkflowPipeline } from './workflow.js';

/** Registers every pipeline this process can run. */
export function definePipelines(rt: Engine): void {
  defineIngestPipeline(rt);
  defineParsePipeline(rt);
  defineExtractPipelines(rt);
  defineWebhookPipeline(rt.pipelines, rt.webhooks);
  defineWorkflowPipeline(rt);
}



export type { JobRecord };
