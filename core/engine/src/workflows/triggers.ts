/**
 * Automatic triggers. Event triggers listen on the event bus (over RabbitMQ every process receives every
 * event): each matching workflow gets one execution whose id is derived from the event's id and the
 * workflow's, so that when several processes handle the same event only the first insert succeeds.
 * Scheduled triggers: every API process looks for due ticks (QUIRE_SCHEDULER_INTERVAL_S) and claims each in
 * `workflow_ticks` (unique workflow_id + tick_time) in the transaction that records the execution: one tick
 * runs once whichever processes run. Ticks are counted from the last claimed one, so a tick missed while no
 * process ran (a restart) runs once when one is back; older missed ticks are not replayed one by one.
 * Both read a workflow's set of triggers (workflow_triggers): a schedule and an event trigger of the same
 * workflow each fire. A schedule with an input runs each document of a collection (runInput).
 */
import { Cron } from 'croner';
import { isQuireError } from '@quire/core';
import type { QuireEvent } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { MAX_CHAIN, derivedId, startExecution } from './executions.js';
import { TRIGGER_EVENTS } from './definition.js';
import { currentMembers, eventScope, inScope, scopeOf, scopeWhere } from './scope.js';
import type { ScheduleInput } from './definition.js';
import type { WorkflowRecord } from '@quire/core';
import { everyInterval } from '../infra/periodic.js';

const EVENTS = new Set<string>(TRIGGER_EVENTS);

/** The document an event is about (document.* events carry it as id, others as document_id). */
function eventDocumentId(e: QuireEvent): string | null {
  const d = e.data;
  if (typeof d.document_id === 'string') return d.document_id;
  if (e.type.startsWith('document.') && typeof d.id === 'string') return d.id;
  return null;
}

const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase().replace(/^\./, '') : v);

/** Whether an event passes a workflow's filters (each: equal to, or one of, the event's or its document's field). */
async function passes(rt: Engine, e: QuireEvent, filters: Record<string, unknown> | undefined): Promise<boolean> {
  if (!filters) return true;
  const docId = eventDocumentId(e);
  let doc: Record<string, unknown> | null | undefined;
  for (const [key, want] of Object.entries(filters)) {
    let actual: unknown = e.data[key];
    if (actual === undefined && docId) {
      doc ??= (await rt.store.repo('documents').get(docId)) as unknown as Record<string, unknown> | null;
      actual = doc?.[key];
    }
    const wanted = (Array.isArray(want) ? want : [want]).map(norm);
    if (wanted.includes(norm(actual))) continue;
    // a document of a knowledge base it was added to after upload
    if (key === 'knowledge_base_id' && docId) {
      const links = await rt.store.repo('collection_documents').find({ document_id: docId });
      if (links.some((l) => wanted.includes(norm(l.collection_id)))) continue;
    }
    return false;
  }
  return true;
}

/** Logs an execution a limit held back (429 WORKFLOW_LIMIT) and rethrows anything else. */
function heldBack(rt: Engine, workflowId: string, e: unknown): void {
  if (!isQuireError(e) || e.code !== 'WORKFLOW_LIMIT') throw e;
  rt.logger.warn({ workflow: workflowId, limit: e.details, err: e.message }, 'workflow execution not started: over a limit');
}

/**
 * Starts the executions an event triggers (once per event and workflow, whichever process gets here first):
 * workflows of the event's scope only, an organization's only while their creator is still a member. The
 * executions count against the budget of the event's origin (an execution's workflow.* events carry theirs).
 */
export async function onEvent(rt: Engine, e: QuireEvent): Promise<number> {
  if (!EVENTS.has(e.type)) return 0;
  const depth = e.type.startsWith('workflow.') ? Number(e.data.chain_depth ?? 0) + 1 : 0;
  if (depth > MAX_CHAIN) return 0;
  const originId = e.type.startsWith('workflow.') && typeof e.data.origin_id === 'string' ? e.data.origin_id : e.id;
  const scope = eventScope(e);
  if (!scope) return 0;
  const listening = await rt.store.repo('workflow_triggers').find({ type: 'event', event: e.type });
  if (!listening.length) return 0;
  const filtersOf = new Map(listening.map((t) => [t.workflow_id, (t.config as { filters?: Record<string, unknown> }).filters]));
  let candidates = await rt.store.repo('workflows').find({ id: [...filtersOf.keys()], enabled: true, ...scope });
  if (e.organization_id && candidates.length) {
    const members = await currentMembers(rt.store, e.organization_id, candidates.map((w) => w.user_id));
    candidates = candidates.filter((w) => members.has(w.user_id));
  }
  let started = 0;
  for (const w of candidates) {
    // a workflow is not triggered by its own executions' events
    if (e.type.startsWith('workflow.') && e.data.workflow_id === w.id) continue;
    if (!(await passes(rt, e, filtersOf.get(w.id)))) continue;
    const documentId = eventDocumentId(e);
    const data = { event: e.type, event_id: e.id, timestamp: e.timestamp, ...e.data, ...(documentId ? { document_id: documentId } : {}) };
    try {
      if (await startExecution(rt, w, 'event', data, { id: derivedId('event', e.id, w.id), chainDepth: depth, originId })) started++;
    } catch (err) {
      heldBack(rt, w.id, err);
    }
  }
  return started;
}

/** The latest tick of a schedule that is due (after `from`, not after `now`), or null. */
export function dueTick(cron: Cron, from: Date, now: Date): Date | null {
  let due: Date | null = null;
  let next = cron.nextRun(from);
  for (let n = 0; next && next.getTime() <= now.getTime() && n < 100_000; n++) {
    due = next;
    next = cron.nextRun(next);
  }
  return due;
}

/** One look for due ticks; returns the executions this process started. */
export async function scheduleTick(rt: Engine, now = new Date()): Promise<number> {
  let started = 0;
  const schedules = await rt.store.repo('workflow_triggers').find({ type: 'scheduled' });
  if (!schedules.length) return 0;
  const workflows = new Map((await rt.store.repo('workflows').find({ id: schedules.map((t) => t.workflow_id), enabled: true })).map((w) => [w.id, w]));
  for (const trigger of schedules) {
    const w = workflows.get(trigger.workflow_id);
    if (!w) continue;
    const t = trigger.config as { cron_expression?: string; timezone?: string; input?: ScheduleInput };
    if (!t.cron_expression) continue;
    let cron: Cron;
    try {
      cron = new Cron(t.cron_expression, { paused: true, timezone: t.timezone || 'UTC' });
    } catch {
      continue;
    }
    const [last] = await rt.store.repo('workflow_ticks').find({ workflow_id: w.id }, { order: { tick_time: 'DESC' }, limit: 1 });
    const since = trigger.schedule_from ?? trigger.created_at;
    const from = last && last.tick_time.getTime() > since.getTime() ? last.tick_time : since;
    const tick = dueTick(cron, from, now);
    if (!tick) continue;
    const data = { scheduled_time: tick.toISOString(), cron_expression: t.cron_expression, timezone: t.timezone || 'UTC' };
    if (t.input) {
      started += await runInput(rt, w, tick, t.input, data);
      continue;
    }
    try {
      if (await startExecution(rt, w, 'scheduled', data, { id: derivedId('tick', w.id, tick.toISOString()), tick })) started++;
    } catch (e) {
      // a tick held back by a limit is not claimed: it runs at a later pass
      rt.logger.warn({ workflow: w.id, err: (e as Error).message }, 'scheduled execution not started');
    }
  }
  return started;
}

/**
 * A tick of a schedule with an input: the tick is claimed first (one process goes on), then each document
 * of the collection the workflow should run gets its own execution (trigger_data.document_id): with since
 * last_success, those it has not run yet or whose last run failed (each recorded in workflow_inputs with
 * its execution); with all, every one. A tick with nothing to run is claimed and starts nothing. The
 * collection must still be of the workflow's scope (an organization's workflow: its creator still a
 * member); only completed documents of that scope are run. Past a limit the rest waits for the next tick.
 */
async function runInput(rt: Engine, w: WorkflowRecord, tick: Date, input: ScheduleInput, data: Record<string, unknown>): Promise<number> {
  const collectionId = (input.collection_id ?? input.knowledge_base_id)!;
  const tickId = derivedId('tick', w.id, tick.toISOString());
  try {
    await rt.store.repo('workflow_ticks').insert({ id: tickId, workflow_id: w.id, tick_time: tick, execution_id: tickId, created_at: new Date() });
  } catch (e) {
    if ((e as Error)?.name === 'StoreConflictError') return 0;
    throw e;
  }
  const log = rt.logger.child({ part: 'workflows', workflow: w.id, collection: collectionId });
  const collection = await rt.store.repo('collections').get(collectionId);
  if (!collection || !inScope(scopeOf(w), collection)) {
    log.warn('scheduled input skipped: the collection is gone or not of the workflow\'s scope');
    return 0;
  }
  if (w.organization_id && !(await currentMembers(rt.store, w.organization_id, [w.user_id])).has(w.user_id)) {
    log.warn('scheduled input skipped: the workflow\'s creator is no longer a member of its organization');
    return 0;
  }
  const links = await rt.store.repo('collection_documents').find({ collection_id: collectionId }, { order: { created_at: 'ASC' } });
  if (!links.length) return 0;
  const docs = await rt.store.repo('documents').find({ id: links.map((l) => l.document_id), status: 'completed', ...scopeWhere(w) });
  const order = new Map(links.map((l, i) => [l.document_id, i]));
  docs.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  let todo = docs;
  if (input.since !== 'all' && docs.length) {
    const runs = await rt.store.repo('workflow_inputs').find({ workflow_id: w.id, document_id: docs.map((d) => d.id) });
    const executions = runs.length ? await rt.store.repo('workflow_executions').find({ id: runs.map((r) => r.execution_id) }) : [];
    const failed = new Set(executions.filter((x) => x.status === 'failed').map((x) => x.id));
    const known = new Set(executions.map((x) => x.id));
    const done = new Set(runs.filter((r) => known.has(r.execution_id) && !failed.has(r.execution_id)).map((r) => r.document_id));
    todo = docs.filter((d) => !done.has(d.id));
  }
  let started = 0;
  for (const d of todo) {
    try {
      const x = await startExecution(rt, w, 'scheduled', { ...data, document_id: d.id, input: { collection_id: collectionId, since: input.since } }, { id: derivedId('input', w.id, d.id, tick.toISOString()), inputDocumentId: input.since === 'all' ? undefined : d.id });
      if (x) started++;
    } catch (e) {
      log.warn({ err: (e as Error).message, left: todo.length - started }, 'scheduled input: the rest waits for the next tick');
      break;
    }
  }
  return started;
}

/** Event triggers and the scheduler of an API process; they stop when the engine closes. */
export function startTriggers(rt: Engine): void {
  rt.registry.service('workflow-triggers', () => {
    const log = rt.logger.child({ part: 'workflows' });
    const off = rt.events.on('*', (e) => onEvent(rt, e).then(() => undefined, (err) => log.warn({ event: e.type, err: (err as Error).message }, 'event trigger failed')));
    const passes = everyInterval(rt.config.workflows.schedulerIntervalMs, () => scheduleTick(rt), (err) => log.warn({ err: err.message }, 'scheduler pass failed'));
    return {
      value: true,
      close: async () => {
        off();
        await passes.stop();
      },
    };
  });
}
