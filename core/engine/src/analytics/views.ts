/** The answers of the six analytics endpoints (spec §4.10), over loadEvents() and the metrics. */
import { errors } from '@quire/core';
import { canRead } from '../infra/access.js';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { computeMetric, inWindow, sourcesOf } from './metrics.js';
import { PERIODS, loadEvents, windows } from './source.js';
import type { AnalyticsEvent, Period, Source, Window } from './source.js';

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** change from `previous` to `current` in percent; null when there was nothing before (no base to compare with) */
function trend(current: number, previous: number) {
  return { current, previous, change_percent: previous === 0 ? (current === 0 ? 0 : null) : round(((current - previous) / previous) * 100) };
}

export async function analyticsSummary(rt: Engine, auth: AuthInfo, period: Period, knowledgeBaseId?: string | null, now = new Date()) {
  const w = windows(period, now);
  const events = await loadEvents(rt, auth, w.previous.start, { knowledgeBaseId, sources: ['usage', 'extractions', 'chat'] });
  const cur = events.filter((e) => inWindow(e, w.current));
  const prev = events.filter((e) => inWindow(e, w.previous) && !inWindow(e, w.current));
  const m = (name: string, es: AnalyticsEvent[]) => computeMetric(name, es) as number;
  return {
    summary: {
      documents_processed: m('documents_processed', cur),
      extractions_run: m('extractions_run', cur),
      chat_queries: m('chat_queries', cur),
      total_pages: m('pages_processed', cur),
      total_credits_used: m('credits_used', cur),
    },
    trends: {
      documents: trend(m('documents_processed', cur), m('documents_processed', prev)),
      extractions: trend(m('extractions_run', cur), m('extractions_run', prev)),
    },
    period: { start: w.current.start.toISOString(), end: w.current.end.toISOString() },
  };
}

/** Which dimension each drilldown metric has, from which source. */
const DRILL: Record<string, { source: Source; dimensions: string[] }> = {
  documents: { source: 'documents', dimensions: ['status', 'file_type'] },
  extractions: { source: 'extractions', dimensions: ['status', 'file_type', 'schema'] },
  chat: { source: 'chat', dimensions: ['status'] },
};

export async function analyticsDrilldown(rt: Engine, auth: AuthInfo, metric: string, dimension: string, period: Period, now = new Date()) {
  const def = DRILL[metric];
  if (!def || !def.dimensions.includes(dimension)) {
    const supported = Object.entries(DRILL).map(([k, v]) => `${k}: ${v.dimensions.join('|')}`).join('; ');
    throw errors.validation(`Drilldown of ${metric} by ${dimension} is not available (${supported})`, [{ field: 'dimension', message: 'not available for this metric' }]);
  }
  const w = windows(period, now).current;
  const events = (await loadEvents(rt, auth, w.start, { sources: [def.source] })).filter((e) => e.source === def.source && inWindow(e, w));
  const counts = new Map<string, number>();
  for (const e of events) {
    const v = e.dims[dimension] ?? 'unknown';
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const total = events.length;
  const data = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([value, count]) => ({ value, count, percentage: total ? round((count / total) * 100) : 0 }));
  return { metric, dimension, data };
}

export type Aggregation = 'daily' | 'weekly' | 'monthly';

/** The bucket of a time: its day, the Monday of its ISO week, or the first of its month (UTC dates). */
export function bucketOf(at: Date, aggregation: Aggregation): string {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (aggregation === 'weekly') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (aggregation === 'monthly') d.setUTCDate(1);
  return d.toISOString().slice(0, 10);
}

/** Every bucket of a window, oldest first (empty buckets included, so that a chart has no gaps). */
function bucketsOf(w: Window, aggregation: Aggregation): string[] {
  const out: string[] = [];
  const last = bucketOf(w.end, aggregation);
  for (let d = new Date(`${bucketOf(w.start, aggregation)}T00:00:00Z`); ; ) {
    const b = d.toISOString().slice(0, 10);
    out.push(b);
    if (b >= last) break;
    if (aggregation === 'daily') d.setUTCDate(d.getUTCDate() + 1);
    else if (aggregation === 'weekly') d.setUTCDate(d.getUTCDate() + 7);
    else d.setUTCMonth(d.getUTCMonth() + 1);
  }
  return out;
}

export const DIMENSIONS = ['operation', 'organization_id', 'status', 'file_type', 'schema', 'knowledge_base_id'];

export interface QueryInput {
  metrics: string[];
  dimensions: string[];
  filters: Record<string, string | null>;
  period: Period;
  aggregation: Aggregation;
}

/**
 * Rows keyed by date (the bucket) and, with dimensions, by each dimension's value, carrying every asked
 * metric; totals over the whole period. A filter keeps the events whose dimension has that value; an event
 * without the dimension (e.g. file_type of a chat query) is left out by a filter on it.
 */
export async function analyticsQuery(rt: Engine, auth: AuthInfo, q: QueryInput, now = new Date()) {
  for (const d of [...q.dimensions, ...Object.keys(q.filters)]) {
    if (!DIMENSIONS.includes(d)) throw errors.validation(`Unknown dimension ${d}; known: ${DIMENSIONS.join(', ')}`, [{ field: 'dimensions', message: 'unknown dimension' }]);
  }
  const w = windows(q.period, now).current;
  const events = (await loadEvents(rt, auth, w.start, { sources: sourcesOf(q.metrics) })).filter(
    (e) => inWindow(e, w) && Object.entries(q.filters).every(([k, v]) => (e.dims[k] ?? null) === v),
  );
  const groups = new Map<string, { date: string; dims: Record<string, string | null>; events: AnalyticsEvent[] }>();
  if (!q.dimensions.length) for (const b of bucketsOf(w, q.aggregation)) groups.set(b, { date: b, dims: {}, events: [] });
  for (const e of events) {
    const date = bucketOf(e.at, q.aggregation);
    const dims = Object.fromEntries(q.dimensions.map((d) => [d, e.dims[d] ?? null]));
    const key = JSON.stringify([date, ...q.dimensions.map((d) => dims[d])]);
    let g = groups.get(q.dimensions.length ? key : date);
    if (!g) groups.set(q.dimensions.length ? key : date, (g = { date, dims, events: [] }));
    g.events.push(e);
  }
  const data = [...groups.values()]
    .sort((a, b) => a.date.localeCompare(b.date) || JSON.stringify(a.dims).localeCompare(JSON.stringify(b.dims)))
    .map((g) => ({ date: g.date, ...g.dims, ...Object.fromEntries(q.metrics.map((m) => [m, computeMetric(m, g.events)])) }));
  const totals = Object.fromEntries(q.metrics.map((m) => [m, computeMetric(m, events)]));
  return { data, totals, period: { start: w.start.toISOString(), end: w.end.toISOString() }, aggregation: q.aggregation };
}

const REALTIME_WINDOW_MIN = 15;

/**
 * What is happening now in the caller's scope: jobs running (active_jobs) and waiting (queue_depth), the
 * documents and pages charged per minute over the last 15 minutes, and the 20 latest events.
 */
export async function analyticsRealtime(rt: Engine, auth: AuthInfo, now = new Date()) {
  const since = new Date(now.getTime() - REALTIME_WINDOW_MIN * 60_000);
  // running or waiting jobs may be old: read them by status, not by date
  const orgIds = auth.memberships.map((m) => m.organization_id);
  const live = [
    ...(await rt.store.repo('jobs').find({ user_id: auth.user.id, status: ['pending', 'processing'] })),
    ...(orgIds.length ? await rt.store.repo('jobs').find({ organization_id: orgIds, status: ['pending', 'processing'] }) : []),
  ];
  const unique = new Map(live.map((j) => [j.id, j]));
  const jobs = [...unique.values()].filter((j) => canRead(auth, j));
  const recent = await loadEvents(rt, auth, new Date(now.getTime() - 24 * 3600_000), { sources: ['usage', 'documents', 'extractions', 'chat'] });
  const lastWindow = recent.filter((e) => e.source === 'usage' && e.dims.operation === 'parse' && e.at.getTime() >= since.getTime());
  const activity: { type: string; document_id: string | null; timestamp: string }[] = [];
  for (const e of recent) {
    if (e.source === 'documents') activity.push({ type: e.dims.status === 'completed' ? 'document.completed' : e.dims.status === 'failed' ? 'document.failed' : 'document.uploaded', document_id: e.document_id, timestamp: e.at.toISOString() });
    else if (e.source === 'extractions') activity.push({ type: 'extraction.completed', document_id: e.document_id, timestamp: e.at.toISOString() });
    else if (e.source === 'chat') activity.push({ type: 'chat.message', document_id: null, timestamp: e.at.toISOString() });
  }
  activity.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
  return {
    active_jobs: jobs.filter((j) => j.status === 'processing').length,
    queue_depth: jobs.filter((j) => j.status === 'pending').length,
    processing_rate: {
      documents_per_minute: round(lastWindow.length / REALTIME_WINDOW_MIN, 3),
      pages_per_minute: round(lastWindow.reduce((s, e) => s + (e.values.units ?? 0), 0) / REALTIME_WINDOW_MIN, 3),
      window_minutes: REALTIME_WINDOW_MIN,
    },
    recent_activity: activity.slice(0, 20),
  };
}

export { PERIODS };
