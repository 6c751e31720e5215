import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { DIMENSIONS, METRIC_NAMES, PERIODS, REPORTS, analyticsDrilldown, analyticsExport, analyticsQuery, analyticsRealtime, analyticsReports, analyticsSummary, loadCollection, parseMetrics } from '@quire/engine';
import type { Period } from '@quire/engine';

const TAG = 'Analytics';
const period = z.enum(Object.keys(PERIODS) as [Period, ...Period[]]);
const SCOPE = "Scope: the caller's own resources and those of the organizations they belong to.";

function parseFilters(raw: string | undefined): Record<string, string | null> {
  if (!raw) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw errors.validation('filters must be a JSON object', [{ field: 'filters', message: 'not JSON' }]);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw errors.validation('filters must be a JSON object', [{ field: 'filters', message: 'not an object' }]);
  const out: Record<string, string | null> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x !== null && typeof x !== 'string') throw errors.validation(`filters.${k} must be a string or null`, [{ field: `filters.${k}`, message: 'not a string' }]);
    out[k] = x as string | null;
  }
  return out;
}

const list = (raw: string | undefined) => (raw ? raw.split(',').map((s) => s.trim()).filter(Boolean) : []);

/** Spec §4.10: usage, quality, performance and cost over the usage ledger and the job, extraction and chat tables. */
export function analyticsRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'get',
      path: '/api/analytics',
      summary: `Summary of the period (7d, 30d default, 90d, 1y; it ends now) and its trends against the period before (change_percent null when the previous period had none). documents_processed counts documents and parse jobs charged. With knowledge_base_id: only that knowledge base's documents, their extractions and charges, and its chat queries. ${SCOPE}`,
      tag: TAG,
      query: z.object({ period: period.default('30d'), knowledge_base_id: z.string().uuid().optional() }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      if (query.knowledge_base_id) await loadCollection(ctx.quire, auth, query.knowledge_base_id, 'read', 'knowledge base');
      return analyticsSummary(ctx.quire, auth, query.period, query.knowledge_base_id ?? null);
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/analytics/drilldown',
      summary: `Counts of the period's documents (by status or file_type), extractions (by status, file_type of their document, or schema name; inline definitions count as "inline") or chat queries (by status: answered with citations, or unanswered), with percentages. Other combinations are 400. ${SCOPE}`,
      tag: TAG,
      query: z.object({ metric: z.enum(['documents', 'extractions', 'chat']), dimension: z.enum(['status', 'file_type', 'schema']), period: period.default('30d') }),
    },
    async (ctx, { query }) => analyticsDrilldown(ctx.quire, requireAuth(ctx), query.metric, query.dimension, query.period),
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/analytics/query',
      summary: `Metrics by date: metrics (comma-separated; default all: ${METRIC_NAMES.join(', ')}), dimensions (comma-separated: ${DIMENSIONS.join(', ')}), filters (JSON object of dimension → value), period, aggregation (daily default, weekly from Monday, monthly; UTC dates). Answers {data: [{date, <dimension>..., <metric>...}], totals, period, aggregation}; without dimensions every bucket of the period is listed, empty ones too. Averages over nothing are null; estimated_cost is null (no price per credit on a self-hosted install). ${SCOPE}`,
      tag: TAG,
      query: z.object({ metrics: z.string().max(2000).optional(), dimensions: z.string().max(500).optional(), filters: z.string().max(5000).optional(), period: period.default('30d'), aggregation: z.enum(['daily', 'weekly', 'monthly']).default('daily') }),
    },
    async (ctx, { query }) =>
      analyticsQuery(ctx.quire, requireAuth(ctx), { metrics: parseMetrics(query.metrics), dimensions: list(query.dimensions), filters: parseFilters(query.filters), period: query.period, aggregation: query.aggregation }),
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/analytics/realtime',
      summary: `Now: active_jobs (running), queue_depth (waiting), processing_rate (documents and pages charged per minute over the last 15 minutes) and recent_activity (the 20 latest document, extraction and chat events of the last 24 hours). ${SCOPE}`,
      tag: TAG,
    },
    async (ctx) => analyticsRealtime(ctx.quire, requireAuth(ctx)),
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/analytics/export',
      summary: `Download the period's metrics by date with their totals: format csv (default; one column per metric, credits_by_operation as one column per operation, a last row "total"), json, or xlsx (sheets Data and Totals); period (default 30d: daily rows; 90d weekly; 1y monthly); metrics (default all); report (one of the built-in reports of GET /api/analytics/reports: its period and metrics). Every export is recorded in the audit log. ${SCOPE}`,
      tag: TAG,
      raw: 'text/csv, application/json or xlsx',
      query: z.object({ format: z.enum(['csv', 'json', 'xlsx']).default('csv'), period: period.optional(), metrics: z.string().max(2000).optional(), report: z.string().max(64).optional() }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const report = query.report ? REPORTS.find((r) => r.id === query.report) : null;
      if (query.report && !report) throw errors.notFound('report', query.report);
      const file = await analyticsExport(ctx.quire, auth, { format: query.format, period: query.period ?? report?.period ?? '30d', metrics: query.metrics ? parseMetrics(query.metrics) : (report?.metrics ?? parseMetrics(undefined)), report: report?.id ?? null });
      ctx.set('Content-Disposition', `attachment; filename="${file.fileName}"`);
      ctx.type = file.contentType;
      ctx.body = file.body;
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/analytics/reports',
      summary:
        'The built-in reports: {reports: [{id, name, type, schedule, last_generated, next_run, period, metrics, download_url}]}. Reports are generated on demand (GET /api/analytics/export?report=<id>): schedule is how often a new complete period is there, next_run when the next one starts, last_generated when the caller last downloaded it (null when never). Nothing is sent on a schedule.',
      tag: TAG,
    },
    async (ctx) => analyticsReports(ctx.quire, requireAuth(ctx)),
  );
}
