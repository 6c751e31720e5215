/**
 * What the workflow routes do with the store: workflows made, changed and deleted (with their executions,
 * triggers, ticks and links), a schedule set or removed beside the other triggers, the trigger secret rotated, executions listed, integrations
 * deleted. The routes validate, check who may act and present.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { IntegrationRecord, Owned, WorkflowExecutionRecord, WorkflowRecord, WorkflowTriggerRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { newTriggerSecret } from './executions.js';
import type { ScheduleInput, Trigger, TriggerConfig } from './definition.js';
import { saveTriggers, triggersFromRecord, triggersOf, withTrigger, withoutTrigger } from './trigger-set.js';

/** The fields of a new workflow the caller chooses. */
export type NewWorkflow = Pick<WorkflowRecord, 'name' | 'description' | 'definition' | 'trigger_type' | 'trigger_config' | 'enabled' | 'schedule_from'>;

/**
 * Stores a new workflow with a fresh trigger secret and its triggers: `triggers` (default: its
 * trigger_type's), the primary one being trigger_type when that is automatic.
 */
export async function createWorkflow(rt: Engine, owner: Owned, fields: NewWorkflow, triggers?: Trigger[]): Promise<{ workflow: WorkflowRecord; triggers: WorkflowTriggerRecord[] }> {
  const now = new Date();
  const row: WorkflowRecord = { id: randomUUID(), ...owner, ...fields, trigger_secret: newTriggerSecret(rt), created_at: now, updated_at: now };
  return rt.store.transaction(async (tx) => {
    await tx.repo('workflows').insert(row);
    return saveTriggers(tx, row, triggers ?? triggersFromRecord(row), { primary: row.trigger_type, now });
  });
}

/**
 * Writes a workflow's changed fields (never its id, owner, creation time or trigger secret) and, with
 * `triggers`, its set of triggers (the primary one: `primary`).
 */
export async function saveWorkflow(rt: Engine, next: WorkflowRecord, triggers?: { set: Trigger[]; primary?: string; restartSchedule?: boolean }): Promise<{ workflow: WorkflowRecord; triggers: WorkflowTriggerRecord[] }> {
  const { id, user_id: _u, organization_id: _o, created_at: _c, trigger_secret: _t, ...patch } = next;
  return rt.store.transaction(async (tx) => {
    await tx.repo('workflows').update(id, patch);
    if (!triggers) return { workflow: next, triggers: await tx.repo('workflow_triggers').find({ workflow_id: id }, { order: { created_at: 'ASC' } }) };
    return saveTriggers(tx, next, triggers.set, { primary: triggers.primary, restartSchedule: triggers.restartSchedule, now: next.updated_at });
  });
}

/** Deletes a workflow: its running executions are cancelled, its executions and schedule ticks go, its integrations stay unlinked. */
export async function deleteWorkflow(rt: Engine, w: WorkflowRecord): Promise<void> {
  for (const x of await rt.store.repo('workflow_executions').find({ workflow_id: w.id, status: 'running' })) await rt.pipelines.cancel(x.id).catch(() => {});
  await rt.store.transaction(async (tx) => {
    await tx.repo('workflows').delete(w.id);
    await tx.repo('workflow_executions').delete({ workflow_id: w.id });
    await tx.repo('workflow_ticks').delete({ workflow_id: w.id });
    await tx.repo('workflow_triggers').delete({ workflow_id: w.id });
    await tx.repo('workflow_inputs').delete({ workflow_id: w.id });
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

/**
 * Sets the workflow's schedule (a cron expression checked by the caller), beside its other triggers; the
 * schedule counts from now. An input left out keeps the one the schedule had. The schedule becomes the
 * primary trigger only of a workflow that had none.
 */
export async function scheduleWorkflow(rt: Engine, w: WorkflowRecord, cron: string, timezone: string, enabled: boolean, input?: ScheduleInput | null): Promise<{ workflow: WorkflowRecord; triggers: WorkflowTriggerRecord[] }> {
  const current = await triggersOf(rt, w);
  const old = current.find((t) => t.type === 'scheduled')?.config as TriggerConfig | undefined;
  const keptInput = input === undefined ? old?.input : (input ?? undefined);
  const config: TriggerConfig = { cron_expression: cron.trim(), timezone, ...(keptInput ? { input: keptInput } : {}) };
  const now = new Date();
  return rt.store.transaction(async (tx) => {
    const next = { ...w, enabled, updated_at: now };
    await tx.repo('workflows').update(w.id, { enabled, updated_at: now });
    return saveTriggers(tx, next, withTrigger(current, { type: 'scheduled', config }), { restartSchedule: true, now });
  });
}

/** Removes a workflow's schedule; its other triggers stay (with none left it is manual). */
export async function unscheduleWorkflow(rt: Engine, w: WorkflowRecord): Promise<void> {
  const current = await triggersOf(rt, w);
  await rt.store.transaction((tx) => saveTriggers(tx, w, withoutTrigger(current, 'scheduled')));
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
