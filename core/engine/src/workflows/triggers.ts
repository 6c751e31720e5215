/**
 * Automatic triggers. Event triggers listen on the event bus (over RabbitMQ every process receives every
 * event): each matching workflow gets one execution whose id is derived from the event's id and the
 * workflow's, so that when several processes handle the same event only the first insert succeeds.
 * Scheduled triggers: every API process looks for due ticks (QUIRE_SCHEDULER_INTERVAL_S) and claims each in
 * `workflow_ticks` (unique workflow_id + tick_time) in the transaction that records the execution: one tick
 * runs once whichever processes run. Ticks are counted from the last claimed one, so a tick missed while no
 * process ran (a restart) runs once when one is back; older missed ticks are not replayed one by one.
 */
import { Cron } from 'croner';
import { isQuireError } from '@quire/core';
import type { QuireEvent } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { MAX_CHAIN, derivedId, startExecution } from './executions.js';
import { TRIGGER_EVENTS } from './definition.js';
import { currentMembers, eventScope } from './scope.js';
import { everyInterval } from '../services/periodic.js';

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
  let candidates = (await rt.store.repo('workflows').find({ trigger_type: 'event', enabled: true, ...scope })).filter((w) => (w.trigger_config as { event?: string }).event === e.type);
  if (e.organization_id && candidates.length) {
    const members = await currentMembers(rt.store, e.organization_id, candidates.map((w) => w.user_id));
    candidates = candidates.filter((w) => members.has(w.user_id));
  }
  let started = 0;
  for (const w of candidates) {
    // a workflow is not triggered by its own executions' events
    if (e.type.startsWith('workflow.') && e.data.workflow_id === w.id) continue;
    if (!(await passes(rt, e, (w.trigger_config as { filters?: Record<string, unknown> }).filters))) continue;
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
  for (const w of await rt.store.repo('workflows').find({ trigger_type: 'scheduled', enabled: true })) {
    const t = w.trigger_config as { cron_expression?: string; timezone?: string };
    if (!t.cron_expression) continue;
    let cron: Cron;
    try {
      cron = new Cron(t.cron_expression, { paused: true, timezone: t.timezone || 'UTC' });
    } catch {
      continue;
    }
    const [last] = await rt.store.repo('workflow_ticks').find({ workflow_id: w.id }, { order: { tick_time: 'DESC' }, limit: 1 });
    const since = w.schedule_from ?? w.created_at;
    const from = last && last.tick_time.getTime() > since.getTime() ? last.tick_time : since;
    const tick = dueTick(cron, from, now);
    if (!tick) continue;
    const data = { scheduled_time: tick.toISOString(), cron_expression: t.cron_expression, timezone: t.timezone || 'UTC' };
    try {
      if (await startExecution(rt, w, 'scheduled', data, { id: derivedId('tick', w.id, tick.toISOString()), tick })) started++;
    } catch (e) {
      // a tick held back by a limit is not claimed: it runs at a later pass
      rt.logger.warn({ workflow: w.id, err: (e as Error).message }, 'scheduled execution not started');
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
