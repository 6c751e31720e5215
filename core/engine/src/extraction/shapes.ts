/**
 * API shapes of extraction results: field_results with evidence and legacy citations (spec §2.2), the
 * /v1 extraction object (§2.1), the application API's stored extraction and job (§4.4 results), and
 * corrections applied on read.
 */
import type { Evidence, ExtractionRecord, FieldDefinition, FieldResult, JobRecord } from '@quire/core';
import { epoch } from '../io/documents.js';
import { confidenceLabel, legacyBox } from '../parse/render.js';
import { round } from '@quire/text';

const r3 = (n: number) => round(n, 3);
const r2 = (n: number) => round(n, 2);

export interface ApiEvidence {
  text: string;
  page: number;
  bbox: { x: number; y: number; width: number; height: number } | null;
  confidence: number;
  chunk_id?: string;
  span?: { start: number; end: number };
}
export interface ApiCitation {
  text: string;
  bbox: { page: number; left: number; top: number; width: number; height: number };
  confidence: string;
}
export interface ApiFieldResult {
  field: string;
  value: unknown;
  confidence: number;
  evidence?: ApiEvidence | null;
  citations?: ApiCitation[];
  corrected?: boolean;
  answered_by?: 'llm' | 'offline';
  fallback_reason?: 'ungrounded' | 'llm_unavailable' | null;
}

export function apiEvidence(e: Evidence): ApiEvidence {
  const out: ApiEvidence = { text: e.text, page: e.page, bbox: e.bbox ? { x: r2(e.bbox.x), y: r2(e.bbox.y), width: r2(e.bbox.width), height: r2(e.bbox.height) } : null, confidence: r3(e.confidence) };
  if (e.chunk_id) out.chunk_id = e.chunk_id;
  if (e.span) out.span = { start: e.span.start, end: e.span.end };
  return out;
}

export function apiCitations(e: Evidence | null): ApiCitation[] {
  return e ? [{ text: e.text, bbox: legacyBox(e.page, e.bbox), confidence: confidenceLabel(e.confidence) }] : [];
}

/** field_results items; evidence and citations only when asked for (no keys at all otherwise). */
export function apiFieldResults(results: readonly (FieldResult & { corrected?: boolean })[], includeCitations: boolean): ApiFieldResult[] {
  return results.map((r) => {
    const out: ApiFieldResult = { field: r.field, value: r.value, confidence: r3(r.confidence) };
    if (includeCitations) {
      out.evidence = r.evidence ? apiEvidence(r.evidence) : null;
      out.citations = apiCitations(r.evidence);
    }
    if (r.corrected) out.corrected = true;
    if (r.answered_by) {
      out.answered_by = r.answered_by;
      out.fallback_reason = r.fallback_reason ?? null;
    }
    return out;
  });
}

/** Mean confidence over every field (a field not found counts 0), 3 decimals. */
export function overallConfidence(results: readonly { confidence: number }[]): number {
  return results.length ? r3(results.reduce((a, r) => a + r.confidence, 0) / results.length) : 0;
}

// ---------- corrections ----------

export interface Correction {
  field_id: string;
  /** the field name the correction applies to */
  field: string;
  corrected_value: unknown;
  original_value: unknown;
  confidence_override: number | null;
  corrected_by: string;
  corrected_at: string;
}

/** data and field_results with the corrections applied (a corrected field takes confidence_override, else 1). */
export function applyCorrections(x: Pick<ExtractionRecord, 'data' | 'field_results' | 'corrections'>): { data: Record<string, unknown>; fieldResults: (FieldResult & { corrected?: boolean })[] } {
  const data = { ...x.data };
  const fieldResults = (x.field_results as FieldResult[]).map((r) => ({ ...r })) as (FieldResult & { corrected?: boolean })[];
  for (const c of x.corrections as Correction[]) {
    data[c.field] = c.corrected_value;
    const fr = fieldResults.find((r) => r.field === c.field);
    const confidence = c.confidence_override ?? 1;
    if (fr) Object.assign(fr, { value: c.corrected_value, confidence, corrected: true });
    else fieldResults.push({ field: c.field, value: c.corrected_value, confidence, evidence: null, corrected: true });
  }
  return { data, fieldResults };
}

/** The field a correction's field_id names: a field's id, else its name. */
export function fieldFor(fields: readonly FieldDefinition[], fieldId: string): FieldDefinition | undefined {
  return fields.find((f) => f.id === fieldId) ?? fields.find((f) => f.name === fieldId);
}

// ---------- stored objects ----------


/** The versioned API's extraction object (spec §2.1) plus field_results. */
export function v1Extraction(x: ExtractionRecord, includeCitations = false) {
  const { data, fieldResults } = applyCorrections(x);
  return {
    id: x.id,
    object: 'extraction' as const,
    document_id: x.document_id,
    schema_id: x.schema_id,
    data,
    confidence: r3(x.confidence),
    duration_ms: x.duration_ms,
    created: epoch(x.created_at),
    field_results: apiFieldResults(fieldResults, includeCitations),
  };
}

/** GET /api/extract/results extraction (spec §4.4). */
export function apiStoredExtraction(x: ExtractionRecord, schemaName: string | null) {
  const { data, fieldResults } = applyCorrections(x);
  return {
    id: x.id,
    document_id: x.document_id,
    schema_id: x.schema_id,
    schema_name: schemaName,
    job_id: x.job_id,
    data,
    citations: fieldResults.filter((r) => r.evidence).map((r) => ({ field: r.field, ...apiCitations(r.evidence)[0]! })),
    field_results: apiFieldResults(fieldResults, true),
    corrections: x.corrections,
    confidence: r3(x.confidence),
    created_at: x.created_at.toISOString(),
    updated_at: x.updated_at.toISOString(),
  };
}

/** The job as extraction endpoints show it (results, the streaming `complete` event). */
export function apiExtractJob(j: JobRecord) {
  return { id: j.id, status: j.status, progress: j.progress, error: j.status === 'failed' ? (j.error ?? 'failed') : null, created_at: j.created_at.toISOString(), updated_at: j.updated_at.toISOString() };
}
