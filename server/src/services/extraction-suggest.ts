/**
 * Schema suggestions for a document: the fields its layout prints (the extractor's suggestFields), merged
 * with a client's current fields, and the prebuilt or saved schema that fits the document best.
 */
import { QuireError, errors } from '@quire/core';
import type { DocumentRecord, FieldDefinition, ParsedDocument, SchemaRecord } from '@quire/core';
import { PREBUILT_SCHEMAS, conceptOf, snakeCase } from '@quire/plugin-extractor-layout';
import type { AuthInfo } from '../http/context.js';
import type { QuireRuntime } from '../runtime.js';
import { loadOwned } from '../auth/access.js';
import { contentKey, loadParsed } from '../pipelines/steps.js';
import { readableSchemas } from './extraction-fields.js';

export type Suggested = FieldDefinition & { suggestionReason: string };

/** A readable, completed document and its parsed content (404 / 409 otherwise). */
export async function parsedDocument(rt: QuireRuntime, auth: AuthInfo, documentId: string): Promise<{ doc: DocumentRecord; parsed: ParsedDocument }> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(documentId)) throw errors.validation('document_id must be a UUID', [{ field: 'document_id', message: 'must be a UUID' }]);
  const doc = await loadOwned(rt.store, 'documents', documentId, auth, 'read');
  if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document ${doc.id} is ${doc.status}; it must be completed first`, { status: doc.status });
  return { doc, parsed: await loadParsed(rt, contentKey(doc.id)) };
}

export async function suggestFor(rt: QuireRuntime, parsed: ParsedDocument): Promise<Suggested[]> {
  const extractor = rt.registry.get('extractor');
  if (!extractor.suggestFields) throw new QuireError('UNPROCESSABLE', 'The active extractor plugin cannot suggest fields');
  return extractor.suggestFields(parsed);
}

/** Identity of a field for matching: its concept (invoice_number, total, ...) when it has one, else its snake_case name. */
export function fieldKey(f: FieldDefinition): string {
  return conceptOf(f)?.id ?? snakeCase(f.name);
}

/** Suggestions appended to the current fields, leaving out those the current fields already cover. */
export function mergeFields(current: FieldDefinition[], suggested: Suggested[]): { fields: FieldDefinition[]; added: number } {
  const have = new Set(current.flatMap((f) => [f.name, fieldKey(f)]));
  const names = new Set(current.map((f) => f.name));
  const added = suggested.filter((s) => !have.has(s.name) && !have.has(fieldKey(s)) && !names.has(s.name));
  return { fields: [...current, ...added], added: added.length };
}

export interface SchemaMatch {
  id: string;
  name: string;
  formType: string;
  category: string;
  fieldCount: number;
  score: number;
  matchedFields: string[];
}

/** Minimum F1 between a schema's fields and the document's labelled values, and minimum fields in common. */
export const SUGGEST_MIN_SCORE = 0.3;
export const SUGGEST_MIN_MATCHED = 3;

export interface Detected {
  /** concept ids or snake_case names of the labelled values */
  keys: Set<string>;
  /** how many labelled values (fields suggested) the document has */
  count: number;
}

export function detectedOf(suggested: FieldDefinition[]): Detected {
  return { keys: new Set(suggested.flatMap((s) => [s.name, fieldKey(s)])), count: suggested.length };
}

/**
 * Scores a schema against the labelled values a document prints: F1 of the schema fields found among the
 * document's labels (precision over the document's labels, recall over the schema's fields), lowered by
 * 15 % for each required field of the schema that is not among them.
 */
export function scoreSchema(fields: FieldDefinition[], detected: Detected): { score: number; matched: string[] } {
  if (!fields.length || !detected.count) return { score: 0, matched: [] };
  const matched = fields.filter((f) => detected.keys.has(fieldKey(f)) || detected.keys.has(snakeCase(f.name))).map((f) => f.name);
  if (!matched.length) return { score: 0, matched };
  const p = Math.min(1, matched.length / detected.count);
  const r = matched.length / fields.length;
  const missingRequired = fields.filter((f) => f.required && !matched.includes(f.name)).length;
  const f1 = ((2 * p * r) / (p + r)) * 0.85 ** missingRequired;
  return { score: Math.round(f1 * 1000) / 1000, matched };
}

/** The prebuilt or saved schema that fits the document best, when it clears the thresholds; null otherwise. */
export async function suggestSchema(rt: QuireRuntime, auth: AuthInfo, parsed: ParsedDocument): Promise<SchemaMatch | null> {
  const detected = detectedOf(await suggestFor(rt, parsed));
  const candidates: { id: string; name: string; formType: string; category: string; fields: FieldDefinition[] }[] = [
    ...PREBUILT_SCHEMAS.map((p) => ({ id: p.id, name: p.name, formType: p.id, category: p.category, fields: p.fields })),
    ...(await readableSchemas(rt, auth)).map((s: SchemaRecord) => ({ id: s.id, name: s.name, formType: String(s.settings?.formType ?? 'custom'), category: String(s.settings?.category ?? 'custom'), fields: s.fields as FieldDefinition[] })),
  ];
  let best: SchemaMatch | null = null;
  for (const c of candidates) {
    const { score, matched } = scoreSchema(c.fields, detected);
    if (matched.length < SUGGEST_MIN_MATCHED || score < SUGGEST_MIN_SCORE) continue;
    if (!best || score > best.score || (score === best.score && matched.length > best.matchedFields.length)) {
      best = { id: c.id, name: c.name, formType: c.formType, category: c.category, fieldCount: c.fields.length, score, matchedFields: matched };
    }
  }
  return best;
}
