/**
 * Analytics export (GET /api/analytics/export) and the report list (GET /api/analytics/reports).
 *
 * An export is the query of the period's metrics, day by day (week by week for 90 days, month by month for
 * a year), with the totals: CSV (csv-stringify; an object metric such as credits_by_operation becomes one
 * column per key), JSON, or an XLSX workbook (exceljs) with a "Data" and a "Totals" sheet.
 *
 * Reports: there is no scheduler that mails reports. The built-in report definitions are exports of a fixed
 * period and set of metrics, generated on demand; `schedule` is how often a new complete period is there to
 * report on, `next_run` when the next one is, and `last_generated` when the caller last downloaded it (from
 * the audit log, where every export is recorded), null when never.
 */
import { stringify } from 'csv-stringify/sync';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { recordAudit } from '../accounts/audit.js';
import { METRICS, METRIC_NAMES } from './metrics.js';
import { analyticsQuery } from './views.js';
import type { Aggregation } from './views.js';
import type { Period } from './source.js';

export type ExportFormat = 'csv' | 'json' | 'xlsx';

const AGGREGATION_OF: Record<Period, Aggregation> = { '7d': 'daily', '30d': 'daily', '90d': 'weekly', '1y': 'monthly' };

export interface ReportDef {
  id: string;
  name: string;
  type: 'usage' | 'quality' | 'performance' | 'cost' | 'overview';
  schedule: 'weekly' | 'monthly' | 'quarterly' | 'yearly';
  period: Period;
  metrics: string[];
}

const byGroup = (...groups: string[]) => METRIC_NAMES.filter((m) => groups.includes(METRICS[m]!.group));

export const REPORTS: ReportDef[] = [
  { id: 'weekly-usage', name: 'Weekly usage', type: 'usage', schedule: 'weekly', period: '7d', metrics: byGroup('usage') },
  { id: 'monthly-cost', name: 'Monthly credits and cost', type: 'cost', schedule: 'monthly', period: '30d', metrics: [...byGroup('usage'), ...byGroup('cost')] },
  { id: 'quarterly-quality', name: 'Quarterly quality and performance', type: 'quality', schedule: 'quarterly', period: '90d', metrics: [...byGroup('quality'), ...byGroup('performance')] },
  { id: 'yearly-overview', name: 'Yearly overview', type: 'overview', schedule: 'yearly', period: '1y', metrics: METRIC_NAMES },
];

/** When the next complete period of a schedule starts (UTC): next Monday, the 1st of next month/quarter/year. */
function nextRun(schedule: ReportDef['schedule'], now: Date): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  if (schedule === 'weekly') {
    const d = new Date(Date.UTC(y, m, now.getUTCDate()));
    d.setUTCDate(d.getUTCDate() + (8 - (d.getUTCDay() || 7)));
    return d;
  }
  if (schedule === 'monthly') return new Date(Date.UTC(y, m + 1, 1));
  if (schedule === 'quarterly') return new Date(Date.UTC(y, Math.floor(m / 3) * 3 + 3, 1));
  return new Date(Date.UTC(y + 1, 0, 1));
}

export async function analyticsReports(rt: Engine, auth: AuthInfo, now = new Date()) {
  const exports = await rt.store.repo('audit_log').find({ user_id: auth.user.id, action: 'analytics.exported' }, { order: { created_at: 'DESC' }, limit: 500 });
  return {
    reports: REPORTS.map((r) => {
      const last = exports.find((e) => (e.details as { report?: string } | null)?.report === r.id);
      return {
        id: r.id,
        name: r.name,
        type: r.type,
        schedule: r.schedule,
        last_generated: last ? last.created_at.toISOString() : null,
        next_run: nextRun(r.schedule, now).toISOString(),
        period: r.period,
        metrics: r.metrics,
        download_url: `${rt.config.publicUrl}/api/analytics/export?report=${r.id}&format=csv`,
      };
    }),
  };
}

/** Flattens object metrics (credits_by_operation) into one column per key, for CSV and XLSX. */
function flatten(row: Record<string, unknown>): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v && typeof v === 'object') for (const [kk, vv] of Object.entries(v as Record<string, unknown>)) out[`${k}.${kk}`] = vv as number;
    else out[k] = v as string | number | null;
  }
  return out;
}

export async function analyticsExport(rt: Engine, auth: AuthInfo, opts: { format: ExportFormat; period: Period; metrics: string[]; report?: string | null }, now = new Date()) {
  const result = await analyticsQuery(rt, auth, { metrics: opts.metrics, dimensions: [], filters: {}, period: opts.period, aggregation: AGGREGATION_OF[opts.period] }, now);
  await recordAudit(rt.store, { actor: auth.user.id, action: 'analytics.exported', target_type: 'analytics', details: { format: opts.format, period: opts.period, metrics: opts.metrics.length, ...(opts.report ? { report: opts.report } : {}) } });
  const stamp = now.toISOString().slice(0, 10);
  const base = `${opts.report ?? 'analytics'}-${opts.period}-${stamp}`;
  if (opts.format === 'json') {
    return { fileName: `${base}.json`, contentType: 'application/json', body: Buffer.from(JSON.stringify({ period: result.period, aggregation: result.aggregation, metrics: opts.metrics, data: result.data, totals: result.totals }, null, 2)) };
  }
  const rows = result.data.map(flatten);
  const totals = flatten(result.totals);
  const columns = ['date', ...Object.keys(totals)];
  if (opts.format === 'csv') {
    const body = stringify([...rows, { date: 'total', ...totals }], { header: true, columns, cast: { number: (n) => String(n) } });
    return { fileName: `${base}.csv`, contentType: 'text/csv; charset=utf-8', body: Buffer.from(body) };
  }
  // loaded at the first export, not with the engine (a large module)
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Quire';
  const data = wb.addWorksheet('Data');
  data.columns = columns.map((c) => ({ header: c, key: c, width: Math.max(12, c.length + 2) }));
  for (const r of rows) data.addRow(r);
  const sheet = wb.addWorksheet('Totals');
  sheet.columns = [
    { header: 'metric', key: 'metric', width: 32 },
    { header: 'value', key: 'value', width: 16 },
  ];
  for (const [k, v] of Object.entries(totals)) sheet.addRow({ metric: k, value: v });
  sheet.addRow({ metric: 'period_start', value: result.period.start });
  sheet.addRow({ metric: 'period_end', value: result.period.end });
  return { fileName: `${base}.xlsx`, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', body: Buffer.from(await wb.xlsx.writeBuffer()) };
}
