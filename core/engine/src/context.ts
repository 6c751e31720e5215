/**
 * What the pipelines and services of the engine use of a running engine. The Engine class (engine.ts)
 * implements it; pipelines and services depend on this interface only, so that the class that defines the
 * pipelines is not imported back by them (no import cycle).
 */
import type { BlobStorage, EventBus, Logger, PipelineRuntime, PluginRegistry, Store, Transport } from '@quire/core';
import type { QuireConfig } from '@quire/config';
import type { WebhookDispatcher } from './infra/webhooks.js';
import type { EvalSandbox } from './infra/sandbox.js';
import type { EngineMetrics } from './metrics.js';

export type RuntimeRole = 'server' | 'worker' | 'runner';

export interface EngineContext {
  readonly config: Readonly<QuireConfig>;
  readonly logger: Logger;
  /** server (API host), worker (`quire-worker`) or runner (headless over folders) */
  readonly role: RuntimeRole;
  readonly registry: PluginRegistry;
  readonly events: EventBus;
  readonly store: Store;
  readonly storage: BlobStorage;
  readonly transport: Transport;
  readonly pipelines: PipelineRuntime;
  readonly webhooks: WebhookDispatcher;
  /** this engine's Prometheus series */
  readonly metrics: EngineMetrics;
  /** where workflow steps' expressions and templates are evaluated: isolates with a time and a memory limit */
  readonly workflowSandbox: EvalSandbox;
  /** key of signed links and of webhook callback secrets */
  readonly signingSecret: string;
  /** this process in job_stages.worker */
  readonly workerId: string;
}
