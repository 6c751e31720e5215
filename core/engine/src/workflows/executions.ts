/**
 * Workflow executions. An execution is a `workflow_executions` row and a job of the `workflow` pipeline
 * with the same id (workflows/pipeline.ts), so whichever process consumes the pipeline runs it, and a stage
 * taken over after a crash resumes after the last completed step (each step's result is in the log).
 * Executions that must happen once (one per event and workflow, one per scheduled tick) get an id derived
 * from what started them: a second process that starts the same one hits the primary key and does nothing.
 * Two limits hold back runaway workflows: an origin (the event or run that started a cascade of workflows
 * triggering each other through workflow.* events) starts at most QUIRE_WORKFLOW_MAX_EXECUTIONS executions in
 * all, counted atomically in the store, and an owner (a user's personal workflows, an organization's) has
 * at most QUIRE_WORKFLOW_MAX_RUNNING executions running at once; past either, 429 WORKFLOW_LIMIT.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { errors, isQuireError } from '@quire/core';
import type { Store, WorkflowExecutionRecord, WorkflowRecord, WorkflowTriggerRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf } from '../jobs.js';
import { submitJob } from '../infra/submit.js';
import { decryptSecret, encryptSecret, secretsKey } from '../infra/secrets.js';
import type { SecretsKeyHolder } from '../infra/secrets.js';
import { hmacHex, safeEqualHex } from '../infra/signing.js';
import { scopeWhere } from './scope.js';

export const WORKFLOW_PIPELINE = 'workflow';

/** job.input of a 'workflow' job. */
export interface WorkflowJobInput {
  execution_id: string;
  workflow_id: string;
  /** the definition as it was when the execution started (later edits do not change a running execution) */
  definition: { steps: { id: string; type: string; plugin?: string; config: Record<string, unknown> }[] };
  workflow_name: string;
  /** how many workflow events led to this execution (event triggers on workflow.* stop at MAX_CHAIN) */
  chain_depth: number;
  /** the event or run that started the cascade this execution is part of (its workflow.* events carry it) */
  origin_id?: string;
}

export const MAX_CHAIN = 3;

/** A UUID-shaped id derived from its parts (the same parts give the same id in every process). */
export function derivedId(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The resource an extractor plugin step of an execution is charged under (the usage row's resource_id): tied to
 * the run, so that the run's discard finds its charge when the run ends after its owner was erased.
 */
export const stepChargeId = (executionId: string, stepId: string): string => derivedId('workflow-extractor', executionId, stepId);

type Keyed = Pick<Engine, 'signingSecret'> & SecretsKeyHolder;

/** A new random trigger secret, encrypted as the row keeps it. */
export function newTriggerSecret(rt: SecretsKeyHolder): string {
  return encryptSecret(secretsKey(rt), randomBytes(32).toString('hex'));
}

/**
 * The secret part of a workflow's inbound webhook URL: its random trigger secret (new on each rotation); a
 * workflow made before trigger secrets existed keeps its signed token until its secret is first rotated.
 */
export function webhookToken(rt: Keyed, w: Pick<WorkflowRecord, 'id' | 'trigger_secret'>): string {
  return w.trigger_secret ? decryptSecret(secretsKey(rt), w.trigger_secret) : hmacHex(rt.signingSecret, `workflow-webhook:${w.id}`);
}

export function checkWebhookToken(rt: Keyed, w: Pick<WorkflowRecord, 'id' | 'trigger_secret'>, token: string): boolean {
  return safeEqualHex(webhookToken(rt, w), token);
}

/**
 * API shape of a workflow (spec §2.2 Workflow, plus organization_id, updated_at, `triggers` — every
 * automatic trigger it has, trigger_type/trigger_config being the primary one — and, for webhook triggers
 * and callers who may edit the workflow, the inbound URL; others never see it).
 */
export function apiWorkflow(rt: Keyed & Pick<Engine, 'config'>, w: WorkflowRecord, mayEdit: boolean, triggers: Pick<WorkflowTriggerRecord, 'type' | 'config'>[]) {
  const url = `${rt.config.publicUrl}/api/workflows/${w.id}/webhook/${webhookToken(rt, w)}`;
  const shown = (type: string, config: Record<string, unknown>) => (type === 'webhook' && mayEdit ? { ...config, webhook_url: url } : { ...config });
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    definition: w.definition,
    trigger_type: w.trigger_type,
    trigger_config: shown(w.trigger_type, w.trigger_config),
    triggers: triggers.map((t) => ({ type: t.type, config: shown(t.type, t.config), primary: t.type === w.trigger_type })),
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

/** The running executions of the workflow's owner (its organization, or its user's personal ones), counted on `store`. */
const runningOf = (store: Store, wf: WorkflowRecord) => store.repo('workflow_executions').count({ ...scopeWhere(wf), status: 'running' });

const runningLimit = (wf: WorkflowRecord, running: number, maxRunning: number) =>
  errors.workflowLimit(`${running} executions of this ${wf.organization_id ? 'organization' : 'account'} are running (QUIRE_WORKFLOW_MAX_RUNNING ${maxRunning}); try again when one has finished`, { limit: 'running', max: maxRunning, running });

/** how long the count of an origin's executions is kept */
const ORIGIN_TTL_MS = 24 * 3600_000;

/** Records that a schedule's input document is run by this execution (the last one, when it ran before). */
async function recordInput(tx: Store, workflowId: string, documentId: string, executionId: string, now: Date): Promise<void> {
  const id = derivedId('input', workflowId, documentId);
  const n = await tx.repo('workflow_inputs').update(id, { execution_id: executionId, updated_at: now });
  if (!n) await tx.repo('workflow_inputs').insert({ id, workflow_id: workflowId, document_id: documentId, execution_id: executionId, created_at: now, updated_at: now });
}

/**
 * Records an execution (status running) and its job, and queues it. With `id` (derived from an event or a
 * tick) and `tick`, a second call for the same one returns null: the row, or the tick's claim, exists.
 * `inputDocumentId`: the schedule's input document it runs (recorded with it, workflow_inputs).
 * `originId`: the cascade it belongs to (default: this execution starts one). Past the owner's running
 * executions or the origin's budget it throws 429 WORKFLOW_LIMIT and starts nothing.
 */
export async function startExecution(
  rt: Engine,
  wf: WorkflowRecord,
  triggeredBy: 'manual' | 'scheduled' | 'webhook' | 'event',
  triggerData: Record<string, unknown>,
  opts: { id?: string; tick?: Date; chainDepth?: number; originId?: string; inputDocumentId?: string } = {},
): Promise<WorkflowExecutionRecord | null> {
  const now = new Date();
  const id = opts.id ?? randomUUID();
  if (opts.id && (await rt.store.repo('workflow_executions').get(opts.id))) return null;
  const { maxRunning, maxExecutionsPerOrigin } = rt.config.workflows;
  // a first look spares the origin's budget; the count that decides is taken again under the owner's lock below
  const seen = await runningOf(rt.store, wf);
  if (seen >= maxRunning) throw runningLimit(wf, seen, maxRunning);
  const originId = opts.originId ?? id;
  const counter = `workflow-origin:${originId}`;
  if ((await rt.store.increment(counter, 1, new Date(now.getTime() + ORIGIN_TTL_MS))) > maxExecutionsPerOrigin) {
    throw errors.workflowLimit(`The event or run ${originId} already started ${maxExecutionsPerOrigin} workflow executions (QUIRE_WORKFLOW_MAX_EXECUTIONS)`, { limit: 'origin', max: maxExecutionsPerOrigin, origin_id: originId });
  }
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
  const input: WorkflowJobInput = { execution_id: id, workflow_id: wf.id, definition: wf.definition as WorkflowJobInput['definition'], workflow_name: wf.name, chain_depth: opts.chainDepth ?? 0, origin_id: originId };
  let created: boolean;
  try {
    // a job that cannot be queued is failed and answered 503 (submitJob)
    ({ created } = await submitJob(rt, WORKFLOW_PIPELINE, ownerOf(wf), input as unknown as Record<string, unknown>, {
      id,
      type: 'workflow',
      unique: true,
      with: async (tx) => {
        // count and insert under the owner's lock: executions started at the same moment cannot all pass the count
        await tx.lock(`workflow-running:${wf.organization_id ?? wf.user_id}`);
        const running = await runningOf(tx, wf);
        if (running >= maxRunning) throw runningLimit(wf, running, maxRunning);
        if (opts.tick) await tx.repo('workflow_ticks').insert({ id: derivedId('tick', wf.id, opts.tick.toISOString()), workflow_id: wf.id, tick_time: opts.tick, execution_id: id, created_at: now });
        await tx.repo('workflow_executions').insert(row);
        if (opts.inputDocumentId) await recordInput(tx, wf.id, opts.inputDocumentId, id, now);
      },
    }));
  } catch (e) {
    // held back by the running limit: it does not count against the origin's budget
    if (isQuireError(e) && e.code === 'WORKFLOW_LIMIT') await rt.store.increment(counter, -1, new Date(now.getTime() + ORIGIN_TTL_MS));
    throw e;
  }
  if (!created) {
    // another process started this one: it is counted there
    await rt.store.increment(counter, -1, new Date(now.getTime() + ORIGIN_TTL_MS));
    return null;
  }
  return row;
}
