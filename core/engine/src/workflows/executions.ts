/**
 * Workflow executions. An execution is a `workflow_executions` row and a job of the `workflow` pipeline
 * with the same id (pipelines/workflow.ts), so whichever process consumes the pipeline runs it, and a stage
 * taken over after a crash resumes after the last completed step (each step's result is in the log).
 * Executions that must happen once (one per event and workflow, one per scheduled tick) get an id derived
 * from what started them: a second process that starts the same one hits the primary key and does nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { StoreConflictError, errors } from '@quire/core';
import type { WorkflowExecutionRecord, WorkflowRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { newJob, ownerOf } from '../jobs.js';
import { hmacHex, safeEqualHex } from '../services/signing.js';

export const WORKFLOW_PIPELINE = 'workflow';

/** job.input of a 'workflow' job. */
export interface WorkflowJobInput {
  execution_id: string;
  workflow_id: string;
  /** the definition as it was when the execution started (later edits do not change a running execution) */
  definition: { steps: { id: string; type: string; config: Record<string, unknown> }[] };
  workflow_name: string;
  /** how many workflow events led to this execution (event triggers on workflow.* stop at MAX_CHAIN) */
  chain_depth: number;
}

export const MAX_CHAIN = 3;

/** A UUID-shaped id derived from its parts (the same parts give the same id in every process). */
export function derivedId(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The secret part of a workflow's inbound webhook URL. */
export function webhookToken(rt: Pick<Engine, 'signingSecret'>, workflowId: string): string {
  return hmacHex(rt.signingSecret, `workflow-webhook:${workflowId}`);
}

export function checkWebhookToken(rt: Pick<Engine, 'signingSecret'>, workflowId: string, token: string): boolean {
  return safeEqualHex(webhookToken(rt, workflowId), token);
}

/** API shape of a workflow (spec §2.2 Workflow, plus organization_id, updated_at and, for webhook triggers, the inbound URL). */
export function apiWorkflow(rt: Pick<Engine, 'signingSecret' | 'config'>, w: WorkflowRecord) {
  const trigger = { ...w.trigger_config };
  if (w.trigger_type === 'webhook') trigger.webhook_url = `${rt.config.publicUrl}/api/workflows/${w.id}/webhook/${webhookToken(rt, w.id)}`;
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    definition: w.definition,
    trigger_type: w.trigger_type,
    trigger_config: trigger,
    enabled: w.enabled,
    organization_id: w.organization_id,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
}

/** API shape of an execution (spec §2.2: id, status, triggered_by, started_at, completed_at, execution_log) plus its workflow, trigger data and error. */
export function apiExecution(x: WorkflowExecutionRecord) {
  return {
    id: x.id,
    workflow_id: x.workflow_id,
    status: x.status,
    triggered_by: x.triggered_by,
    trigger_data: x.trigger_data,
    started_at: x.started_at.toISOString(),
    completed_at: x.completed_at ? x.completed_at.toISOString() : null,
    error: x.error,
    execution_log: x.execution_log,
  };
}

/**
 * Records an execution (status running) and its job, and queues it. With `id` (derived from an event or a
 * tick) and `tick`, a second call for the same one returns null: the row, or the tick's claim, exists.
 */
export async function startExecution(
  rt: Engine,
  wf: WorkflowRecord,
  triggeredBy: 'manual' | 'scheduled' | 'webhook' | 'event',
  triggerData: Record<string, unknown>,
  opts: { id?: string; tick?: Date; chainDepth?: number } = {},
): Promise<WorkflowExecutionRecord | null> {
  const now = new Date();
  const id = opts.id ?? randomUUID();
  const row: WorkflowExecutionRecord = {
    id,
    ...ownerOf(wf),
    workflow_id: wf.id,
    status: 'running',
    triggered_by: triggeredBy,
    trigger_data: triggerData,
    execution_log: [],
    error: null,
    started_at: now,
    completed_at: null,
  };
  const input: WorkflowJobInput = { execution_id: id, workflow_id: wf.id, definition: wf.definition as WorkflowJobInput['definition'], workflow_name: wf.name, chain_depth: opts.chainDepth ?? 0 };
  try {
    await rt.store.transaction(async (tx) => {
      if (opts.tick) await tx.repo('workflow_ticks').insert({ id: derivedId('tick', wf.id, opts.tick.toISOString()), workflow_id: wf.id, tick_time: opts.tick, execution_id: id, created_at: now });
      await tx.repo('workflow_executions').insert(row);
      await tx.repo('jobs').insert(newJob({ id, owner: ownerOf(wf), type: 'workflow', input: input as unknown as Record<string, unknown> }));
    });
  } catch (e) {
    if (e instanceof StoreConflictError || (e as Error)?.name === 'StoreConflictError') return null;
    throw e;
  }
  try {
    await rt.pipelines.start(id, WORKFLOW_PIPELINE, {});
  } catch (e) {
    await rt.pipelines.fail(id, `could not queue the execution: ${(e as Error).message}`).catch(() => {});
    throw errors.unavailable(`The queue is not available: ${(e as Error).message}`);
  }
  return row;
}
