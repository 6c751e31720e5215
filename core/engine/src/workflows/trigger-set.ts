/**
 * The triggers of a workflow. A workflow keeps every automatic trigger it is given — a schedule, an
 * inbound webhook, an event — one of each type, in `workflow_triggers`, until that trigger is removed:
 * adding a schedule leaves an upload trigger in place, removing it leaves the upload trigger working. The
 * workflow's trigger_type and trigger_config (spec §4.9) repeat its primary trigger: the one last set
 * through them, else the oldest left; `manual` when it has none (a manual run is always possible).
 */
import type { Store, WorkflowRecord, WorkflowTriggerRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { derivedId } from './executions.js';
import type { AutoTriggerType, Trigger } from './definition.js';
import { AUTO_TRIGGER_TYPES } from './definition.js';
import { listOwned } from '../infra/listing.js';
import type { AuthInfo } from '../infra/access.js';

const isAuto = (t: string): t is AutoTriggerType => (AUTO_TRIGGER_TYPES as readonly string[]).includes(t);

/** The triggers of these workflows, oldest first, by workflow id. */
export async function workflowTriggers(rt: Pick<Engine, 'store'>, workflowIds: string[]): Promise<Map<string, WorkflowTriggerRecord[]>> {
  const out = new Map<string, WorkflowTriggerRecord[]>(workflowIds.map((id) => [id, []]));
  if (!workflowIds.length) return out;
  for (const t of await rt.store.repo('workflow_triggers').find({ workflow_id: workflowIds }, { order: { created_at: 'ASC' } })) out.get(t.workflow_id)?.push(t);
  return out;
}

/**
 * The caller's workflows, newest first, paginated with the total. With `triggerType`, those having a trigger
 * of that type in their set (not only as the primary one): `manual` is those with no automatic trigger.
 */
export async function listWorkflows(
  rt: Pick<Engine, 'store'>,
  auth: AuthInfo,
  opts: { triggerType?: string; limit: number; offset: number },
): Promise<{ rows: WorkflowRecord[]; total: number }> {
  const page = { limit: opts.limit, offset: opts.offset, orderBy: 'created_at' as const };
  if (!opts.triggerType) return listOwned(rt.store, 'workflows', auth, {}, page);
  if (!isAuto(opts.triggerType)) return listOwned(rt.store, 'workflows', auth, { trigger_type: opts.triggerType }, page);
  const ids = [...new Set((await rt.store.repo('workflow_triggers').find({ type: opts.triggerType })).map((t) => t.workflow_id))];
  return listOwned(rt.store, 'workflows', auth, { id: ids }, page);
}

/** The triggers of one workflow, oldest first. */
export async function triggersOf(rt: Pick<Engine, 'store'>, w: Pick<WorkflowRecord, 'id'>): Promise<WorkflowTriggerRecord[]> {
  return (await workflowTriggers(rt, [w.id])).get(w.id) ?? [];
}

/** The set as a workflow had it before it had one (its one trigger_type), for rows not written through here. */
export function triggersFromRecord(w: WorkflowRecord): Trigger[] {
  return isAuto(w.trigger_type) ? [{ type: w.trigger_type, config: w.trigger_config }] : [];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Makes `set` the workflow's triggers on `store` (a transaction's, to write the workflow with them): rows of
 * types left out go; a schedule whose config changed, or with `restartSchedule`, counts its ticks from now.
 * `primary` becomes trigger_type when it is in the set; else the current one stays if still there, else the
 * oldest. Returns the workflow as stored and its triggers.
 */
export async function saveTriggers(
  store: Store,
  w: WorkflowRecord,
  set: Trigger[],
  opts: { primary?: string; restartSchedule?: boolean; now?: Date } = {},
): Promise<{ workflow: WorkflowRecord; triggers: WorkflowTriggerRecord[] }> {
  const now = opts.now ?? new Date();
  const repo = store.repo('workflow_triggers');
  const existing = await repo.find({ workflow_id: w.id });
  const kept: WorkflowTriggerRecord[] = [];
  for (const t of set) {
    const old = existing.find((e) => e.type === t.type);
    const event = t.type === 'event' && typeof t.config.event === 'string' ? t.config.event : null;
    if (old) {
      const restart = t.type === 'scheduled' && (opts.restartSchedule || !same(old.config, t.config));
      const next = { ...old, config: t.config, event, schedule_from: t.type === 'scheduled' ? (restart ? now : (old.schedule_from ?? old.created_at)) : null, updated_at: now };
      await repo.update(old.id, { config: next.config, event, schedule_from: next.schedule_from, updated_at: now });
      kept.push(next);
    } else {
      const row: WorkflowTriggerRecord = { id: derivedId('trigger', w.id, t.type), workflow_id: w.id, type: t.type, event, config: t.config, schedule_from: t.type === 'scheduled' ? now : null, created_at: now, updated_at: now };
      await repo.insert(row);
      kept.push(row);
    }
  }
  const gone = existing.filter((e) => !set.some((t) => t.type === e.type));
  if (gone.length) await repo.delete({ id: gone.map((g) => g.id) });
  kept.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  const primary = kept.find((t) => t.type === opts.primary) ?? kept.find((t) => t.type === w.trigger_type) ?? kept[0];
  const schedule = kept.find((t) => t.type === 'scheduled');
  const patch = { trigger_type: primary?.type ?? 'manual', trigger_config: primary?.config ?? {}, schedule_from: schedule?.schedule_from ?? null };
  if (patch.trigger_type !== w.trigger_type || !same(patch.trigger_config, w.trigger_config) || patch.schedule_from?.getTime() !== w.schedule_from?.getTime()) {
    await store.repo('workflows').update(w.id, { ...patch, updated_at: now });
    return { workflow: { ...w, ...patch, updated_at: now }, triggers: kept };
  }
  return { workflow: w, triggers: kept };
}

/** The set with `t` added, or put in place of the trigger of its type. */
export function withTrigger(current: Pick<WorkflowTriggerRecord, 'type' | 'config'>[], t: Trigger): Trigger[] {
  const list = current.filter(isAutoRow).map((c) => ({ type: c.type, config: c.config }));
  const i = list.findIndex((c) => c.type === t.type);
  if (i >= 0) list[i] = t;
  else list.push(t);
  return list;
}

/** The set without the trigger of `type`. */
export function withoutTrigger(current: Pick<WorkflowTriggerRecord, 'type' | 'config'>[], type: string): Trigger[] {
  return current.filter(isAutoRow).filter((c) => c.type !== type).map((c) => ({ type: c.type, config: c.config }));
}

function isAutoRow(t: Pick<WorkflowTriggerRecord, 'type'>): t is { type: AutoTriggerType; config: Record<string, unknown> } {
  return isAuto(t.type);
}
