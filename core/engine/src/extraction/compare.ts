/**
 * Comparison of a batch's extractions: one row per field with each document's value and confidence,
 * whether the documents disagree (discrepancy, on normalised values) and, for numbers, their variance;
 * as JSON, CSV or an XLSX workbook.
 */
import type { ExtractBatchRecord, ExtractionRecord, FieldDefinition } from '@quire/core';
import { normaliseValue } from '@quire/fields';
import type { EngineContext as Engine } from '../context.js';
import { applyCorrections } from './shapes.js';
import { prebuiltSchema } from './fields.js';
import type { BatchResult } from './batch.js';

export interface ComparisonDocument {
  id: string;
  name: string;
  success: boolean;
  extraction_id: string | null;
  error?: string;
}

export interface ComparisonRow {
  field: string;
  type: FieldDefinition['type'];
  values: Record<string, unknown>;
  confidences: Record<string, number | null>;
  /** the documents' (normalised) values are not all the same */
  discrepancy: boolean;
  /** distinct normalised values among the documents */
  distinct_values: number;
  /** population variance of the numeric values (numbers only; null otherwise) */
  variance: number | null;
  min_confidence: number | null;
  mean_confidence: number | null;
}

export interface Comparison {
  batch_id: string;
  schema_id: string;
  documents: ComparisonDocument[];
  fields: string[];
  rows: ComparisonRow[];
  summary: { documents: number; extracted: number; fields: number; discrepancies: number };
}

export interface ComparisonFilters {
  only_discrepancies?: boolean;
  min_variance?: number;
  max_confidence?: number;
  fields?: string[];
}

const r4 = (n: number) => Math.round(n * 1e4) / 1e4;

export async function batchComparison(rt: Engine, batch: ExtractBatchRecord): Promise<Comparison> {
  const results = batch.results as Record<string, BatchResult>;
  const ids = batch.document_ids;
  const [docs, extractions] = await Promise.all([
    rt.store.repo('documents').find({ id: ids }),
    (async () => {
      const xids = Object.values(results).flatMap((r) => (r.success ? [r.extraction_id] : []));
      return xids.length ? rt.store.repo('extractions').find({ id: xids }) : ([] as ExtractionRecord[]);
    })(),
  ]);
  const byX = new Map(extractions.map((x) => [x.id, x]));
  const documents: ComparisonDocument[] = ids.map((id) => {
    const r = results[id];
    const name = docs.find((d) => d.id === id)?.name ?? id;
    if (!r) return { id, name, success: false, extraction_id: null, error: 'not processed yet' };
    return r.success ? { id, name, success: true, extraction_id: r.extraction_id } : { id, name, success: false, extraction_id: null, error: r.error };
  });
  const first = extractions[0];
  const fields: FieldDefinition[] = (first?.fields as FieldDefinition[] | undefined) ?? (await schemaFields(rt, batch.schema_id));
  const corrected = new Map(documents.filter((d) => d.extraction_id && byX.has(d.extraction_id)).map((d) => [d.id, applyCorrections(byX.get(d.extraction_id!)!)]));
  const rows: ComparisonRow[] = fields.map((f) => {
    const values: Record<string, unknown> = {};
    const confidences: Record<string, number | null> = {};
    const keys = new Set<string>();
    const nums: number[] = [];
    const confs: number[] = [];
    for (const d of documents) {
      const c = corrected.get(d.id);
      if (!c) {
        values[d.id] = null;
        confidences[d.id] = null;
        continue;
      }
      const v = c.data[f.name] ?? null;
      const fr = c.fieldResults.find((r) => r.field === f.name);
      values[d.id] = v;
      confidences[d.id] = fr ? r4(fr.confidence) : 0;
      confs.push(fr?.confidence ?? 0);
      keys.add(JSON.stringify(normaliseValue(v, f)));
      if (f.type === 'number' && typeof v === 'number' && Number.isFinite(v)) nums.push(v);
    }
    const mean = nums.length ? nums.reduce((a, b) => a + b, 0) / nums.length : 0;
    return {
      field: f.name,
      type: f.type,
      values,
      confidences,
      discrepancy: keys.size > 1,
      distinct_values: keys.size,
      variance: f.type === 'number' && nums.length ? r4(nums.reduce((a, b) => a + (b - mean) ** 2, 0) / nums.length) : null,
      min_confidence: confs.length ? r4(Math.min(...confs)) : null,
      mean_confidence: confs.length ? r4(confs.reduce((a, b) => a + b, 0) / confs.length) : null,
    };
  });
  return {
    batch_id: batch.id,
    schema_id: batch.schema_id,
    documents,
    fields: fields.map((f) => f.name),
    rows,
    summary: { documents: documents.length, extracted: corrected.size, fields: rows.length, discrepancies: rows.filter((r) => r.discrepancy).length },
  };
}

async function schemaFields(rt: Engine, schemaId: string): Promise<FieldDefinition[]> {
  const pre = prebuiltSchema(schemaId);
  if (pre) return pre.fields;
  const s = await rt.store.repo('schemas').get(schemaId);
  return (s?.fields as FieldDefinition[] | undefined) ?? [];
}

/** Rows kept by the filters: listed fields, discrepancies only, variance at least min_variance, lowest confidence at most max_confidence. */
export function filterComparison(c: Comparison, f: ComparisonFilters): Comparison {
  const rows = c.rows.filter(
    (r) =>
      (!f.fields?.length || f.fields.includes(r.field)) &&
      (!f.only_discrepancies || r.discrepancy) &&
      (f.min_variance === undefined || (r.variance !== null && r.variance >= f.min_variance)) &&
      (f.max_confidence === undefined || (r.min_confidence !== null && r.min_confidence <= f.max_confidence)),
  );
  return { ...c, fields: rows.map((r) => r.field), rows, summary: { ...c.summary, fields: rows.length, discrepancies: rows.filter((r) => r.discrepancy).length } };
}

// ---------- tabular exports ----------

/** Column labels per document: its name, with its id's first characters when two documents share a name. */
function documentLabels(docs: ComparisonDocument[]): string[] {
  const count = new Map<string, number>();
  for (const d of docs) count.set(d.name, (count.get(d.name) ?? 0) + 1);
  return docs.map((d) => (count.get(d.name)! > 1 ? `${d.name} (${d.id.slice(0, 8)})` : d.name));
}

export function comparisonHeader(c: Comparison): string[] {
  return ['field', 'type', 'discrepancy', 'variance', 'min_confidence', ...documentLabels(c.documents).flatMap((l) => [`${l} value`, `${l} confidence`])];
}

function cell(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  return JSON.stringify(v);
}

export function comparisonTable(c: Comparison): (string | number | boolean | null)[][] {
  return c.rows.map((r) => [r.field, r.type, r.discrepancy, r.variance, r.min_confidence, ...c.documents.flatMap((d) => [cell(r.values[d.id]), r.confidences[d.id] ?? null])]);
}

/** A text cell that a spreadsheet would run as a formula is prefixed with an apostrophe. */
function csvCell(v: string | number | boolean | null): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function comparisonCsv(c: Comparison): string {
  return [comparisonHeader(c), ...comparisonTable(c)].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

export async function comparisonXlsx(c: Comparison): Promise<Buffer> {
  // loaded at the first export, not with the engine (a large module)
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Quire';
  const sheet = wb.addWorksheet('Comparison', { views: [{ state: 'frozen', xSplit: 1, ySplit: 1 }] });
  sheet.addRow(comparisonHeader(c)).font = { bold: true };
  for (const [i, row] of comparisonTable(c).entries()) {
    const added = sheet.addRow(row);
    if (c.rows[i]!.discrepancy) added.eachCell((x) => (x.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFDE2E1' } }));
  }
  sheet.columns.forEach((col) => (col.width = 18));
  const docs = wb.addWorksheet('Documents');
  docs.addRow(['document_id', 'name', 'success', 'extraction_id', 'error']).font = { bold: true };
  for (const d of c.documents) docs.addRow([d.id, d.name, d.success, d.extraction_id, d.error ?? null]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}
