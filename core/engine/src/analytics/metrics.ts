/**
 * The metrics of spec §4.10, each defined over the events of source.ts:
 *
 * usage   documents_processed   documents and parse jobs charged (usage rows of operation parse)
 *         pages_processed       pages charged by those rows
 *         extractions_run       extractions made
 *         chat_queries          chat questions answered
 *         credits_used          credits charged
 * quality avg_extraction_confidence, avg_chat_confidence   means of the stored confidences
 *         extraction_accuracy   share of extracted fields nobody corrected (1 - corrections / fields)
 * perf.   avg_processing_time_ms  upload to completion of completed documents
 *         avg_extraction_time_ms, avg_chat_response_time_ms   as measured when they ran
 *         success_rate          completed jobs / (completed + failed jobs)
 * cost    total_credits         credits charged (same as credits_used)
 *         credits_by_operation  credits per operation {parse, extract, chat, generate, ...}
 *         estimated_cost        null: a self-hosted installation has no price per credit to apply
 *
 * An average over nothing is null, never 0.
 */
import { errors } from '@quire/core';
import type { AnalyticsEvent, Source } from './source.js';

type Value = number | null | Record<string, number>;

interface MetricDef {
  group: 'usage' | 'quality' | 'performance' | 'cost';
  source: Source;
  /** keeps only the events this metric counts */
  where?: (e: AnalyticsEvent) => boolean;
  compute: (events: AnalyticsEvent[]) => Value;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const count = (es: AnalyticsEvent[]) => es.length;
const sum = (key: string) => (es: AnalyticsEvent[]) => round(es.reduce((s, e) => s + (e.values[key] ?? 0), 0));
const mean = (key: string, digits = 4) => (es: AnalyticsEvent[]) => {
  const xs = es.map((e) => e.values[key]).filter((v): v is number => v !== null && v !== undefined);
  return xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, digits) : null;
};
const isParse = (e: AnalyticsEvent) => e.dims.operation === 'parse';

export const METRICS: Record<string, MetricDef> = {
  documents_processed: { group: 'usage', source: 'usage', where: isParse, compute: count },
  pages_processed: { group: 'usage', source: 'usage', where: isParse, compute: sum('units') },
  extractions_run: { group: 'usage', source: 'extractions', compute: count },
  chat_queries: { group: 'usage', source: 'chat', compute: count },
  credits_used: { group: 'usage', source: 'usage', compute: sum('credits') },
  avg_extraction_confidence: { group: 'quality', source: 'extractions', compute: mean('confidence') },
  avg_chat_confidence: { group: 'quality', source: 'chat', compute: mean('confidence') },
  extraction_accuracy: {
    group: 'quality',
    source: 'extractions',
    compute: (es) => {
      const fields = es.reduce((s, e) => s + (e.values.fields ?? 0), 0);
      const corrected = es.reduce((s, e) => s + (e.values.corrected ?? 0), 0);
      return fields ? round(1 - corrected / fields, 4) : null;
    },
  },
  avg_processing_time_ms: { group: 'performance', source: 'documents', where: (e) => e.dims.status === 'completed', compute: mean('processing_ms', 0) },
  avg_extraction_time_ms: { group: 'performance', source: 'extractions', compute: mean('duration_ms', 0) },
  avg_chat_response_time_ms: { group: 'performance', source: 'chat', compute: mean('response_time_ms', 0) },
  success_rate: {
    group: 'performance',
    source: 'jobs',
    where: (e) => e.dims.status === 'completed' || e.dims.status === 'failed',
    compute: (es) => (es.length ? round(es.filter((e) => e.dims.status === 'completed').length / es.length, 4) : null),
  },
  total_credits: { group: 'cost', source: 'usage', compute: sum('credits') },
  credits_by_operation: {
    group: 'cost',
    source: 'usage',
    compute: (es) => {
      const out: Record<string, number> = { parse: 0, extract: 0, chat: 0, generate: 0 };
      for (const e of es) out[e.dims.operation ?? 'other'] = round((out[e.dims.operation ?? 'other'] ?? 0) + (e.values.credits ?? 0));
      return out;
    },
  },
  estimated_cost: { group: 'cost', source: 'usage', compute: () => null },
};

export const METRIC_NAMES = Object.keys(METRICS);

export function parseMetrics(raw: unknown): string[] {
  if (raw === undefined || raw === '' || raw === 'all') return METRIC_NAMES;
  const names = String(raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(n in METRICS));
  if (unknown.length || !names.length) throw errors.validation(`Unknown metric(s): ${unknown.join(', ') || '(none)'}; known: ${METRIC_NAMES.join(', ')}`, [{ field: 'metrics', message: 'unknown metric' }]);
  return [...new Set(names)];
}

export function sourcesOf(metrics: string[]): Source[] {
  return [...new Set(metrics.map((m) => METRICS[m]!.source))];
}

/** One metric over events (already restricted to a time window and filters). */
export function computeMetric(name: string, events: AnalyticsEvent[]): Value {
  const def = METRICS[name]!;
  return def.compute(events.filter((e) => e.source === def.source && (!def.where || def.where(e))));
}

export const inWindow = (e: AnalyticsEvent, w: { start: Date; end: Date }) => e.at.getTime() >= w.start.getTime() && e.at.getTime() <= w.end.getTime();
