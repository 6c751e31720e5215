/**
 * What the workflow routes do with the store: workflows made, changed and deleted (with their executions,
 * ticks and links), a schedule set or removed, the trigger secret rotated, executions listed, integrations
 * deleted. The routes validate, check who may act and present.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { IntegrationRecord, Owned, WorkflowExecutionRecord, WorkflowRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { newTriggerSecret } from './executions.js';

/** The fields of a new workflow the caller chooses. */
export type NewWorkflow = Pick<WorkflowRecord, 'name' | 'description' | 'definition' | 'trigger_type' | 'trigger_config' | 'enabled' | 'schedule_from'>;

/** Stores a new workflow with a fresh trigger secret. */
export async function createWorkflow(rt: Engine, owner: Owned, fields: NewWorkflow): Promise<WorkflowRecord> {
  const now = new Date();
  const row: WorkflowRecord = { id: randomUUID(), ...owner, ...fields, trigger_secret: newTriggerSecret(rt), created_at: now, updated_at: now };
  await rt.store.repo('workflows').insert(row);
  return row;
}

/** Writes a workflow's changed fields (never its id, owner, creation time or trigger secret). */
export async function saveWorkflow(rt: Engine, next: WorkflowRecord): Promise<void> {
  const { id, user_id: _u, organization_id: _o, created_at: _c, trigger_secret: _t, ...patch } = next;
  await rt.store.repo('workflows').update(id, patch);
}

/** Deletes a workflow: its running executions are cancelled, its executions and schedule ticks go, its integrations stay unlinked. */
export async function deleteWorkflow(rt: Engine, w: WorkflowRecord): Promise<void> {
  for (const x of await rt.store.repo('workflow_executions').find({ workflow_id: w.id, status: 'running' })) await rt.pipelines.cancel(x.id).catch(() => {});
  await rt.store.transaction(async (tx) => {
    await tx.repo('workflows').delete(w.id);
    await tx.repo('workflow_executions').delete({ workflow_id: w.id });
    await tx.repo('workflow_ticks').delete({ workflow_id: w.id });
    await tx.repo('integrations').update({ workflow_id: w.id }, { workflow_id: null });
  });
}

/** Executions of a workflow, newest first (`limit`), or the one named (404 when it is not of this workflow). */
export async function workflowExecutions(rt: Engine, w: WorkflowRecord, opts: { executionId?: string; limit: number }): Promise<WorkflowExecutionRecord[]> {
  const repo = rt.store.repo('workflow_executions');
  if (opts.executionId) {
    const x = await repo.findOne({ id: opts.executionId, workflow_id: w.id });
    if (!x) throw errors.notFound('execution', opts.executionId);
    return [x];
  }
  return repo.find({ workflow_id: w.id }, { order: { started_at: 'DESC' }, limit: opts.limit });
}

/** Makes the workflow scheduled by a cron expression (checked by the caller); the schedule counts from now. */
export async function scheduleWorkflow(rt: Engine, w: WorkflowRecord, cron: string, timezone: string, enabled: boolean): Promise<WorkflowRecord> {
  const now = new Date();
  const patch = { trigger_type: 'scheduled', trigger_config: { cron_expression: cron.trim(), timezone }, enabled, schedule_from: now, updated_at: now };
  await rt.store.repo('workflows').update(w.id, patch);
  return { ...w, ...patch };
}

/** Removes a workflow's schedule: it becomes manual. */
export async function unscheduleWorkflow(rt: Engine, w: WorkflowRecord): Promise<void> {
  await rt.store.repo('workflows').update(w.id, { trigger_type: 'manual', trigger_config: {}, schedule_from: null, updated_at: new Date() });
}

/** Gives the workflow a new trigger secret: the old inbound URL stops working at once. */
export async function rotateTriggerSecret(rt: Engine, w: WorkflowRecord): Promise<WorkflowRecord> {
  const next = { ...w, trigger_secret: newTriggerSecret(rt), updated_at: new Date() };
  await rt.store.repo('workflows').update(w.id, { trigger_secret: next.trigger_secret, updated_at: next.updated_at });
  return next;
}

/** A workflow by id without an owner check (the inbound webhook, whose URL secret is the credential); null for a malformed id. */
export async function workflowById(rt: Engine, id: string): Promise<WorkflowRecord | null> {
  return /^[0-9a-f-]{36}$/i.test(id) ? rt.store.repo('workflows').get(id) : null;
}

export async function deleteIntegration(rt: Engine, row: IntegrationRecord): Promise<void> {
  await rt.store.repo('integrations').delete(row.id);
}
