/**
 * What a generation is made from: an extraction (its data and field results) and documents (their parsed
 * text, tables, key-values, headings and stored chunks). Ownership is checked when the job is submitted
 * (checkSources) and the sources are loaded again by the stage, which fails at once when one was deleted
 * meanwhile.
 */
import { NonRetryableError, bodyText, errors, findTitle, headerRowCount, plausibleTitle, tableGrid } from '@quire/core';
import type { Chunk, DocumentRecord, ExtractionRecord, FieldDefinition, FieldResult, ParsedDocument } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import type { AuthInfo } from '../infra/access.js';
import { loadOwned } from '../infra/access.js';
import { contentKey, loadChunks, loadParsed } from '../io/steps.js';
import { applyCorrections } from '../extraction/shapes.js';
import { schemaNameOf } from '../extraction/fields.js';

/** Sources one generation may take (spec §8.2 names none; bounded so a job's context stays small). */
export const MAX_SOURCE_DOCUMENTS = 20;
export const MAX_SOURCE_EXTRACTIONS = 20;
/** characters of a document's text in a template's context, and of all documents' texts together */
const TEXT_CHARS = 1_000_000;
const TOTAL_TEXT_CHARS = 4_000_000;

export interface SourceTable {
  page: number;
  title: string | null;
  header: string[];
  rows: string[][];
}

export interface SourceDocument {
  id: string;
  name: string;
  /** the document's title (its metadata title when a real one, else the title on its first page), null when it has none */
  title: string | null;
  file_type: string;
  pages: number | null;
  text: string;
  headings: { level: number; text: string; page: number }[];
  key_values: { key: string; value: string; page: number }[];
  tables: SourceTable[];
  /** stored chunks (citations point at them) */
  chunks: Chunk[];
}

/**
 * An extraction as a generation reads it: its data and field results with the user's corrections applied
 * (a corrected field is marked `corrected` and has the correction's confidence), its field definitions and
 * the name of its schema (e.g. "Invoice").
 */
export interface SourceExtraction {
  id: string;
  document_id: string | null;
  document_name: string | null;
  /** the document's title, when the extraction's document has one */
  document_title?: string | null;
  schema_name: string | null;
  fields: FieldDefinition[];
  data: Record<string, unknown>;
  field_results: (FieldResult & { corrected?: boolean; evidence: (FieldResult['evidence'] & { chunk_id?: string }) | null })[];
  confidence: number;
}

export interface Sources {
  extractions: SourceExtraction[];
  documents: SourceDocument[];
}

/**
 * Checks at submission that the caller may read every source (someone else's is a 404) and that each
 * document is processed (409 otherwise: its content is not there yet). Returns the documents in order.
 */
export async function checkSources(rt: Engine, auth: AuthInfo, extractionIds: string[], documentIds: string[]): Promise<{ extractions: ExtractionRecord[]; documents: DocumentRecord[] }> {
  if (extractionIds.length > MAX_SOURCE_EXTRACTIONS) throw errors.validation(`At most ${MAX_SOURCE_EXTRACTIONS} source extractions`, [{ field: 'source_extraction_ids', message: 'too many' }]);
  if (documentIds.length > MAX_SOURCE_DOCUMENTS) throw errors.validation(`At most ${MAX_SOURCE_DOCUMENTS} source documents`, [{ field: 'source_document_ids', message: 'too many' }]);
  const extractions: ExtractionRecord[] = [];
  for (const id of extractionIds) extractions.push(await loadOwned(rt.store, 'extractions', id, auth, 'read', 'extraction'));
  const documents: DocumentRecord[] = [];
  for (const id of documentIds) {
    const doc = await loadOwned(rt.store, 'documents', id, auth, 'read', 'document');
    if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document ${doc.id} is ${doc.status}; generation needs processed documents (wait until its status is completed)`, { document_id: doc.id, status: doc.status });
    documents.push(doc);
  }
  return { extractions, documents };
}

function tableOf(t: ParsedDocument['tables'][number]): SourceTable {
  const grid = tableGrid(t);
  // the first row is the header row (as in the parsed document's markdown), marked so or not
  const head = grid.length > 1 || headerRowCount(t) ? 1 : 0;
  return { page: t.page, title: t.title ?? null, header: head ? grid[0]! : [], rows: grid.slice(head) };
}

/**
 * A parsed document's title: its metadata title when it is a real one (documents parsed before titles were
 * checked may hold a file name there), else the title found on its first page; null when neither.
 */
export function documentTitle(parsed: ParsedDocument): string | null {
  const given = parsed.metadata?.title;
  if (plausibleTitle(given, parsed.name)) return (given as string).replace(/\s+/g, ' ').trim();
  return findTitle(parsed)?.text ?? null;
}

/**
 * The title of a generated document when the request gives none: made from the titles of its source
 * documents (a report on them, a summary of them, or the title itself for a document written from an
 * instruction). When no source has a title: "Report" or "Summary", and for a document written from an
 * instruction `fallback` (the output's name, which the caller may have given).
 */
export function generatedTitle(kind: 'run' | 'report' | 'summary', sources: Sources, fallback: string): string {
  const titles = [...new Set(sources.documents.map((d) => d.title).filter((t): t is string => !!t))];
  // a report or summary of untitled sources is a "Report" or a "Summary", never named after a file
  if (!titles.length) return kind === 'report' ? 'Report' : kind === 'summary' ? 'Summary' : fallback;
  const what = titles.length === 1 ? titles[0]! : `${titles[0]} and ${titles.length - 1} more document${titles.length > 2 ? 's' : ''}`;
  return kind === 'report' ? `Report on ${what}` : kind === 'summary' ? `Summary of ${what}` : what;
}

async function loadDocument(rt: Engine, doc: DocumentRecord, textChars: number): Promise<SourceDocument> {
  const parsed = await loadParsed(rt, contentKey(doc.id)).catch(() => null);
  if (!parsed) throw new NonRetryableError(`The parsed content of document ${doc.id} is no longer available`);
  const body = bodyText(parsed);
  return {
    id: doc.id,
    name: doc.name,
    title: documentTitle(parsed),
    file_type: doc.file_type,
    pages: doc.pages,
    // the running text: page furniture and the text inside figures are no part of what a template reads
    text: body.length > textChars ? body.slice(0, textChars) : body,
    headings: parsed.blocks.filter((b) => b.type === 'heading').map((b) => ({ level: b.level ?? 2, text: b.text.replace(/\s+/g, ' ').trim(), page: b.page })),
    key_values: parsed.blocks.filter((b) => b.type === 'key_value' && b.key !== undefined).map((b) => ({ key: b.key!.trim(), value: (b.value ?? '').trim(), page: b.page })),
    tables: parsed.tables.map(tableOf),
    chunks: await loadChunks(rt, doc.id),
  };
}

/** Loads the sources of a job (by id, as the job stored them); a source deleted meanwhile fails the job. */
export async function loadSources(rt: Engine, extractionIds: string[], documentIds: string[]): Promise<Sources> {
  const extractions: SourceExtraction[] = [];
  for (const id of extractionIds) {
    const x = await rt.store.repo('extractions').get(id);
    if (!x) throw new NonRetryableError(`Extraction ${id} no longer exists`);
    const doc = x.document_id ? await rt.store.repo('documents').get(x.document_id) : null;
    // the user's corrections win over what was extracted
    const { data, fieldResults } = applyCorrections({ data: x.data ?? {}, field_results: x.field_results ?? [], corrections: x.corrections ?? [] });
    extractions.push({ id: x.id, document_id: x.document_id, document_name: doc?.name ?? null, schema_name: await schemaNameOf(rt, x.schema_id).catch(() => null), fields: (x.fields ?? []) as FieldDefinition[], data, field_results: fieldResults as SourceExtraction['field_results'], confidence: x.confidence });
  }
  const documents: SourceDocument[] = [];
  // a template may loop over the texts: what it can multiply stays bounded
  let budget = TOTAL_TEXT_CHARS;
  for (const id of documentIds) {
    const doc = await rt.store.repo('documents').get(id);
    if (!doc || doc.status !== 'completed') throw new NonRetryableError(`Document ${id} no longer exists or is no longer processed`);
    const loaded = await loadDocument(rt, doc, Math.min(TEXT_CHARS, budget));
    budget -= loaded.text.length;
    documents.push(loaded);
  }
  return { extractions, documents };
}

export { valueText } from './handlebars.js';
