/**
 * The content of a generated document, as the structured model the format writers take:
 * - a handlebars template (a template_prompt with {{…}}) rendered with the sources as context, read as
 *   markdown (headings, lists and tables become structure);
 * - a plain instruction without an LLM: a structured document built from the sources only (title, the
 *   extracted fields as a table, each document's outline, key-values, tables and key passages, cited);
 *   nothing is invented;
 * - a plain instruction with an LLM (QUIRE_LLM_*): the model writes markdown from numbered passages and
 *   must cite them; markers that point at no passage are dropped;
 * - reports: a narrative of the extractions (what, who, when, how much; corrections applied, cited), then
 *   one section per requested name, filled from the passages that best match it (search), then the fields;
 * - summaries: the most central sentences, those stating figures and names first, in their original
 *   order, cited (offline), grouped into the paragraphs the length asks for (short shorter than long).
 */
import { GENERATED_LIMITS, errors, isQuireError, runIsolated, siblingModule } from '@quire/core';
import type { GeneratedBlock, GeneratedDocumentModel, GeneratedText, LlmMessage } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import type { AuthInfo } from '../infra/access.js';
import { searchChunks } from '../search/service.js';
import { terms } from '@quire/text';
import { markdownToBlocks } from './markdown.js';
import { Citations, bestPassages, passagesOfChunk, sentencesOf, shorten } from './passages.js';
import type { Passage } from './passages.js';
import type { SourceDocument, SourceExtraction, Sources } from './sources.js';
import { hb, valueText } from './handlebars.js';
import { checkTemplateNesting } from '../validation.js';

// ---------------------------------------------------------------- handlebars templates

/** Whether a template_prompt is a handlebars template (it has a {{…}} expression) rather than a plain instruction. */
export const isTemplate = (prompt: string) => /\{\{[^}]+\}\}/.test(prompt);

/** Handlebars that parse (a bad template is a 400 at submission, not a failed job), its blocks nested within bounds. */
export function checkTemplate(prompt: string, field = 'template_prompt'): void {
  if (!isTemplate(prompt)) return;
  checkTemplateNesting(prompt, field);
  try {
    hb().precompile(prompt, { noEscape: true, strict: false });
  } catch (e) {
    throw errors.validation(`${field} is not a valid handlebars template: ${(e as Error).message.split('\n')[0]}`, [{ field, message: 'invalid handlebars' }]);
  }
}

/**
 * The context of a template: the first extraction's fields at the top level ({{invoice_number}}), every
 * extraction (`extraction`, `extractions`: data, fields with confidence), every document (`document`,
 * `documents`: name, title, text, headings, key_values, tables {title, header, rows}).
 */
export function templateContext(sources: Sources, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const extraction = (x: SourceExtraction) => ({
    id: x.id,
    document_id: x.document_id,
    document_name: x.document_name,
    data: x.data,
    confidence: x.confidence,
    fields: x.field_results.map((f) => ({ field: f.field, value: f.value, confidence: f.confidence, page: f.evidence?.page ?? null })),
  });
  const document = (d: SourceDocument) => ({ id: d.id, name: d.name, title: d.title, file_type: d.file_type, pages: d.pages, text: d.text, headings: d.headings, key_values: d.key_values, tables: d.tables });
  const extractions = sources.extractions.map(extraction);
  const documents = sources.documents.map(document);
  return { ...(extractions[0]?.data ?? {}), ...extra, extraction: extractions[0] ?? null, extractions, document: documents[0] ?? null, documents };
}

/**
 * A handlebars template rendered with the sources, as a model (its first # heading is the title). Rendering
 * runs in an isolate with a heap and a time limit (template-worker.ts): a template that loops over large
 * sources too long or builds too much fails the job with UNPROCESSABLE, and the API's event loop stays free.
 */
export async function templateModel(prompt: string, sources: Sources, fallbackTitle: string, limits: { timeoutMs: number; heapMb: number; signal?: AbortSignal }): Promise<GeneratedDocumentModel> {
  const markdown = await runIsolated<string>(siblingModule(import.meta.url, 'template-worker'), { prompt, context: templateContext(sources) }, { ...limits, label: 'The template' });
  const { title, blocks } = markdownToBlocks(markdown);
  return { title: title ?? fallbackTitle, blocks, citations: [] };
}

// ---------------------------------------------------------------- the structured document (offline, plain instruction)

/** Values longer than this leave a table's cell: the cell shows their start, the whole value follows the table. */
const CELL_CHARS = 100;
/** A value the extractor was less sure of than this (and nobody corrected) is left out of a narrative. */
const NARRATIVE_CONFIDENCE = 0.5;

interface FieldRow {
  field: string;
  value: unknown;
  text: string;
  confidence: number | null;
  corrected: boolean;
  type: string | null;
  /** cites the value's evidence (null without evidence); only a value the document shows is cited */
  cite: () => number | null;
}

/** The scalar fields of an extraction (corrections applied), each citing its evidence; lists of objects apart. */
function fieldRows(x: SourceExtraction, cites: Citations): { rows: FieldRow[]; nested: GeneratedBlock[] } {
  const results = new Map(x.field_results.map((f) => [f.field, f]));
  const types = new Map(x.fields.map((f) => [f.name, f.type]));
  const rows: FieldRow[] = [];
  const nested: GeneratedBlock[] = [];
  for (const [field, value] of Object.entries(x.data)) {
    if (Array.isArray(value) && value.some((v) => v && typeof v === 'object')) {
      const objects = value.filter((v) => v && typeof v === 'object') as Record<string, unknown>[];
      const header = [...new Set(objects.flatMap((o) => Object.keys(o)))];
      nested.push({ type: 'table', caption: field, header, rows: objects.map((o) => header.map((k) => shorten(valueText(o[k]), CELL_CHARS))) });
      continue;
    }
    const r = results.get(field);
    const ev = r?.evidence ?? null;
    const cite = () => (ev && value !== null && value !== undefined ? cites.cite({ document_id: x.document_id, document_name: x.document_name ?? 'extraction', chunk_id: ev.chunk_id ?? null, page: ev.page ?? null, quote: ev.text }) : null);
    rows.push({ field, value, text: valueText(value), confidence: r ? r.confidence : null, corrected: !!r?.corrected, type: types.get(field) ?? null, cite });
  }
  return { rows, nested };
}

/**
 * Field rows as a table whose cells stay short: a long value shows its start in the cell and follows the
 * table whole, as a paragraph of its own (wrapped like any text).
 */
function fieldTable(rows: FieldRow[], header: string[], cells: (r: FieldRow, value: string) => string[], caption?: string): GeneratedBlock[] {
  if (!rows.length) return [];
  const long = rows.filter((r) => r.text.length > CELL_CHARS);
  const out: GeneratedBlock[] = [{ type: 'table', ...(caption ? { caption } : {}), header, rows: rows.map((r) => cells(r, r.text.length > CELL_CHARS ? `${shorten(r.text, 60)} (in full below)` : r.text)) }];
  for (const r of long) {
    const n = r.cite();
    out.push({ type: 'paragraph', text: `${r.field}: ${r.text}`, inlines: [{ text: `${r.field}:`, bold: true }, { text: ` ${r.text}` }], ...(n ? { citations: [n] } : {}) });
  }
  return out;
}

const confidenceCell = (r: FieldRow) => (r.confidence === null ? '' : `${r.confidence.toFixed(2)}${r.corrected ? ' (corrected)' : ''}`);

/** The extracted fields of an extraction as tables: scalar fields in one, each list of objects in its own. */
function extractionBlocks(x: SourceExtraction, cites: Citations, level: 2 | 3, heading: string): GeneratedBlock[] {
  const { rows, nested } = fieldRows(x, cites);
  return [{ type: 'heading', level, text: heading }, ...fieldTable(rows, ['Field', 'Value', 'Confidence', 'Source'], (r, v) => {
    const n = r.cite();
    return [r.field, v, confidenceCell(r), n ? `[${n}]` : ''];
  }), ...nested];
}

const WHO = /vendor|supplier|seller|issuer|merchant|customer|buyer|client|bill_?to|ship_?to|recipient|payee|payer|part(?:y|ies)|employer|employee|candidate|landlord|tenant|lender|borrower|insured|insurer|patient|company|organi[sz]ation|author|(?:^|_)name$/i;
const NOT_WHO = /address|vat|tax_?id|iban|bic|swift|e?mail|phone|fax|url|website|(?:^|_)(?:number|no|id|code)$/i;
const WHEN = /date|(?:^|_)at$|period|deadline|(?:^|_)due|expir|effective|(?:^|_)year$/i;
const MUCH = /total|amount|sum|subtotal|(?:^|_)tax$|vat_amount|price|value|cost|balance|fee|salary|revenue|income|payment|due$/i;
const WHAT = /(?:^|_)(?:number|no|reference|ref|title|id)$/i;
const human = (field: string) => field.replace(/_/g, ' ').trim();

/**
 * A short narrative of an extraction, built from its fields (corrections applied): what it is (the schema's
 * name, its number or title, the document), who (parties), when (dates) and how much (amounts, with the
 * currency), one paragraph each, every value citing the evidence it was read from. Values the extractor
 * was unsure of, long values and lists stay out (the table has them).
 */
function extractionNarrative(x: SourceExtraction, cites: Citations): GeneratedBlock[] {
  const { rows } = fieldRows(x, cites);
  const usable = rows.filter((r) => r.text && r.text.length <= 120 && (typeof r.value !== 'object' || r.value === null) && (r.corrected || (r.confidence ?? 0) >= NARRATIVE_CONFIDENCE));
  const currency = usable.find((r) => /^currency$/i.test(r.field))?.text ?? null;
  const taken = new Set<string>();
  const pick = (test: (r: FieldRow) => boolean) => usable.filter((r) => !taken.has(r.field) && test(r)).map((r) => (taken.add(r.field), r));
  const what = pick((r) => WHAT.test(r.field) && !NOT_WHO.test(r.field.replace(/(?:^|_)(?:number|no|id)$/i, '')) && !/vat|tax|iban/i.test(r.field)).slice(0, 2);
  const when = pick((r) => r.type === 'date' || (WHEN.test(r.field) && r.type !== 'number'));
  const much = pick((r) => (r.type === 'number' || typeof r.value === 'number') && MUCH.test(r.field));
  const who = pick((r) => (r.type === 'string' || r.type === null || r.type === 'array') && WHO.test(r.field) && !NOT_WHO.test(r.field));
  const mark = (r: FieldRow) => (r.corrected ? ' (corrected)' : '');
  const out: GeneratedBlock[] = [];
  const para = (label: string, parts: FieldRow[], plain: string) => {
    const text = `${label} ${plain}`;
    const nums = [...new Set(parts.map((p) => p.cite()).filter((n): n is number => n !== null))];
    out.push({ type: 'paragraph', text, inlines: [{ text: label, bold: true }, { text: ` ${plain}` }], ...(nums.length ? { citations: nums } : {}) });
  };
  const kind = x.schema_name ?? 'Extraction';
  const ids = what.map((r) => `${r.text}${mark(r)}`).join(', ');
  const whence = x.document_name ? ` from ${x.document_name}` : '';
  para('What:', what, `${kind}${ids ? ` ${ids}` : ''}${whence}.`);
  const list = (rs: FieldRow[], money = false) => rs.map((r) => `${human(r.field)} ${r.text}${money && currency && !/^\D/.test(r.text) ? ` ${currency}` : ''}${mark(r)}`).join('; ');
  if (who.length) para('Who:', who, `${list(who)}.`);
  if (when.length) para('When:', when, `${list(when)}.`);
  if (much.length) para('How much:', much, `${list(much, true)}.`);
  return out;
}

function documentBlocks(d: SourceDocument, instruction: string, cites: Citations): GeneratedBlock[] {
  const out: GeneratedBlock[] = [{ type: 'heading', level: 2, text: d.name }];
  const headings = d.headings.filter((h) => h.text.length > 1).slice(0, 40);
  if (headings.length) out.push({ type: 'heading', level: 3, text: 'Outline' }, { type: 'list', ordered: false, items: headings.map((h) => ({ text: `${h.text} (page ${h.page})` })) });
  if (d.key_values.length) out.push({ type: 'heading', level: 3, text: 'Key values' }, { type: 'table', header: ['Key', 'Value', 'Page'], rows: d.key_values.slice(0, 60).map((kv) => [kv.key, kv.value, String(kv.page)]) });
  for (const t of d.tables.slice(0, 5)) if (t.rows.length) out.push({ type: 'table', caption: t.title ?? `Table, page ${t.page}`, header: t.header, rows: t.rows.slice(0, 200) });
  const passages = bestPassages(sentencesOf([d]), 6, instruction);
  if (passages.length) out.push({ type: 'heading', level: 3, text: 'Key passages' }, { type: 'list', ordered: false, items: passages.map((p) => ({ text: p.text, citations: [cites.cite({ ...p, quote: p.text })] })) });
  return out;
}

/**
 * The offline answer to a plain instruction: a document made of what the sources say, laid out for the
 * request (quoted at the top), never prose of its own.
 */
export function structuredModel(instruction: string, sources: Sources, title: string): GeneratedDocumentModel {
  const cites = new Citations();
  const blocks: GeneratedBlock[] = [{ type: 'quote', text: `Request: ${shorten(instruction, 2000)}` }];
  sources.extractions.forEach((x, i) => blocks.push(...extractionBlocks(x, cites, 2, sources.extractions.length > 1 ? `Extracted fields: ${x.document_name ?? `extraction ${i + 1}`}` : 'Extracted fields')));
  for (const d of sources.documents) blocks.push(...documentBlocks(d, instruction, cites));
  return { title, blocks, citations: cites.list };
}

// ---------------------------------------------------------------- with an LLM

const LLM_PASSAGES = 14;
const PASSAGE_CHARS = 1500;

function llmSystem(): string {
  return [
    'You write a document in Markdown using ONLY the numbered sources and the extracted data in the user message.',
    'Start with a level-1 heading that is the title. Use headings, lists and tables where they help.',
    'Cite every statement that comes from a source with its number in square brackets at the end of the sentence, e.g. [1] or [2][3]. Cite only sources you used.',
    'Never use outside knowledge and never invent names, numbers, dates or citations. If the sources do not cover something the instructions ask for, say so briefly.',
  ].join('\n');
}

/** The passages an LLM writes from: the search hits of the instruction over the source documents, else their most central sentences. */
async function llmPassages(rt: Engine, auth: AuthInfo, query: string, sources: Sources): Promise<Passage[]> {
  const ids = sources.documents.map((d) => d.id);
  if (!ids.length) return [];
  const hits = await searchChunks(rt, auth, { query: query.slice(0, 2000), documentIds: ids, limit: LLM_PASSAGES }).catch(() => []);
  if (hits.length) return hits.map((h, i) => ({ text: h.content.length > PASSAGE_CHARS ? `${h.content.slice(0, PASSAGE_CHARS)}…` : h.content, document_id: h.document_id, document_name: h.document_name, chunk_id: h.chunk_id, page: h.page, order: [0, i, 0] as [number, number, number] }));
  return bestPassages(sentencesOf(sources.documents), LLM_PASSAGES);
}

interface LlmOptions {
  settings?: Record<string, unknown>;
  signal?: AbortSignal;
}

/**
 * One call of the model over numbered passages: its markdown as blocks, its [n] markers turned into
 * citations of the passages they name through `cites` (numbered in order of use across the document; a
 * number that names no passage is dropped).
 */
async function llmWrite(rt: Engine, passages: Passage[], data: unknown[], instruction: string, cites: Citations, opts: LlmOptions & { system?: string }): Promise<{ title: string | null; blocks: GeneratedBlock[] }> {
  const llm = rt.registry.get('llm');
  const user = [
    passages.length ? `Sources:\n\n${passages.map((p, i) => `[${i + 1}] ${p.document_name}, page ${p.page}\n${p.text}`).join('\n\n')}` : 'Sources: (no document passages)',
    data.length ? `Extracted data (JSON):\n${JSON.stringify(data).slice(0, 20_000)}` : '',
    `Instructions: ${instruction}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const messages: LlmMessage[] = [{ role: 'system', content: opts.system ?? llmSystem() }, { role: 'user', content: user }];
  const temperature = typeof opts.settings?.temperature === 'number' ? (opts.settings.temperature as number) : 0.2;
  let content: string;
  try {
    content = (await llm.complete({ messages, temperature, signal: opts.signal })).content;
  } catch (e) {
    if ((e as Error).name === 'AbortError' || opts.signal?.aborted || isQuireError(e)) throw e;
    throw errors.upstream(`The LLM failed: ${(e as Error).message}`);
  }
  const { title, blocks } = markdownToBlocks(content, { cites: true });
  const renumber = (t: GeneratedText): GeneratedText => {
    const nums = (t.citations ?? []).filter((n) => n >= 1 && n <= passages.length).map((n) => cites.cite({ ...passages[n - 1]!, quote: passages[n - 1]!.text }));
    // the model's own numbers are replaced: a marker that names no passage is dropped
    return { text: t.text, ...(t.inlines ? { inlines: t.inlines } : {}), ...(nums.length ? { citations: [...new Set(nums)] } : {}) };
  };
  return {
    title,
    blocks: blocks.map((b): GeneratedBlock => {
      if (b.type === 'paragraph' || b.type === 'quote') return { type: b.type, ...renumber(b) };
      if (b.type === 'list') return { ...b, items: b.items.map(renumber) };
      return b;
    }),
  };
}

const extractedData = (sources: Sources) => sources.extractions.map((x) => ({ document: x.document_name, data: x.data }));

/** The model writes the document from the passages of the instruction (llmWrite); its first # heading is the title. */
export async function llmModel(rt: Engine, auth: AuthInfo, instruction: string, sources: Sources, title: string, opts: LlmOptions = {}): Promise<GeneratedDocumentModel> {
  const cites = new Citations();
  const passages = await llmPassages(rt, auth, instruction, sources);
  const written = await llmWrite(rt, passages, extractedData(sources), instruction, cites, opts);
  return { title: written.title ?? title, blocks: written.blocks, citations: cites.list };
}

const SECTION_SYSTEM = [
  'You write one section of a report in Markdown using ONLY the numbered sources and the extracted data in the user message.',
  'Do not write the section heading; use paragraphs, lists or tables, and level-3 headings at most.',
  'Cite every statement with the number of its source in square brackets at the end of the sentence, e.g. [1] or [2][3]. Cite only sources you used.',
  'Never use outside knowledge and never invent names, numbers, dates or citations. If the sources say nothing about the section, say so in one sentence.',
].join('\n');

// ---------------------------------------------------------------- reports

const PASSAGES_PER_SECTION = 4;

/**
 * A report: one section per requested name, in the order given. Each is filled with the sentences of the
 * chunks that search (the engine's hybrid retrieval over the source documents) ranks best for the name,
 * each sentence citing its chunk; with an LLM (`llm`), the model writes the section from those sentences
 * and cites them. Extracted fields whose names share a term with the section follow as a table. A section
 * the sources say nothing about says so.
 */
export async function reportModel(rt: Engine, auth: AuthInfo, sources: Sources, title: string, sections: string[], llm?: LlmOptions): Promise<{ model: GeneratedDocumentModel; sections: { name: string; citations: number[] }[] }> {
  const cites = new Citations();
  const blocks: GeneratedBlock[] = [];
  const summary: { name: string; citations: number[] }[] = [];
  const ids = sources.documents.map((d) => d.id);
  const byId = new Map(sources.documents.map((d) => [d.id, d]));
  // the report opens with what the extractions say (what, who, when, how much), cited
  if (sources.extractions.length) {
    blocks.push({ type: 'heading', level: 2, text: 'Overview' });
    for (const x of sources.extractions) blocks.push(...extractionNarrative(x, cites));
  }
  for (const name of sections) {
    blocks.push({ type: 'heading', level: 2, text: name });
    const used: number[] = [];
    const hits = ids.length ? await searchChunks(rt, auth, { query: `${title} ${name}`.trim(), documentIds: ids, limit: PASSAGES_PER_SECTION, reranking: true }) : [];
    const found: Passage[] = [];
    for (const h of hits) {
      const doc = byId.get(h.document_id);
      const chunk = doc?.chunks.find((c) => c.id === h.chunk_id);
      if (!doc || !chunk) continue;
      for (const p of passagesOfChunk(doc, chunk, name, 2)) if (!found.some((f) => f.text === p.text)) found.push(p);
    }
    const wrote = !!llm && (found.length > 0 || sources.extractions.length > 0);
    if (wrote) {
      // with an LLM the section is written from its passages, its markers citing them
      const written = await llmWrite(rt, found, extractedData(sources), `Write the section "${name}" of the report "${title}".`, cites, { ...llm!, system: SECTION_SYSTEM });
      blocks.push(...written.blocks.map((b): GeneratedBlock => (b.type === 'heading' ? { ...b, level: Math.max(3, b.level) as 3 | 4 | 5 | 6 } : b)));
      for (const b of written.blocks) for (const t of b.type === 'list' ? b.items : b.type === 'paragraph' || b.type === 'quote' ? [b] : []) used.push(...(t.citations ?? []));
    } else {
      for (const p of found) {
        const n = cites.cite({ ...p, quote: p.text });
        used.push(n);
        blocks.push({ type: 'paragraph', text: p.text, citations: [n] });
      }
    }
    const nameTerms = new Set(terms(name));
    for (const x of sources.extractions) {
      const rows = fieldRows(x, cites).rows.filter((r) => r.value !== null && r.value !== undefined && terms(r.field.replace(/_/g, ' ')).some((t) => nameTerms.has(t)));
      blocks.push(...fieldTable(rows, ['Field', 'Value'], (r, v) => [r.field, `${v}${r.corrected ? ' (corrected)' : ''}`], `Extracted from ${x.document_name ?? 'extraction'}`));
    }
    if (!found.length && !wrote) blocks.push({ type: 'paragraph', text: `The sources have no passage about ${name}.` });
    summary.push({ name, citations: [...new Set(used)] });
  }
  sources.extractions.forEach((x, i) => blocks.push(...extractionBlocks(x, cites, 2, sources.extractions.length > 1 ? `Extracted fields: ${x.document_name ?? `extraction ${i + 1}`}` : 'Extracted fields')));
  return { model: { title, blocks, citations: cites.list }, sections: summary };
}

// ---------------------------------------------------------------- summaries

export type SummaryLength = 'short' | 'medium' | 'long';

/**
 * Each length (spec §4.6: short 1–2 paragraphs, medium 3–5, long comprehensive): its paragraphs, sentences
 * per paragraph, the share of the source's sentences it takes at most (so a short summary of a short
 * source is still shorter than a long one), its character budget, and how many key values of a document
 * with few sentences it lists.
 */
const SHAPES: Record<SummaryLength, { paragraphs: number; per: number; share: number; chars: number; facts: number }> = {
  short: { paragraphs: 2, per: 2, share: 1 / 3, chars: 700, facts: 0 },
  medium: { paragraphs: 4, per: 3, share: 2 / 3, chars: 4000, facts: 8 },
  long: { paragraphs: 8, per: 3, share: 1, chars: Infinity, facts: 40 },
};

export interface SummarySentence {
  text: string;
  paragraph: number;
  citation: number;
  chunk_id: string;
  document_id: string;
  page: number;
}

/** The key values of the documents (label: value), each citing the chunk that holds it, for sources with few sentences. */
function keyFacts(docs: SourceDocument[], max: number, cites: Citations): GeneratedText[] {
  const out: GeneratedText[] = [];
  for (const d of docs) {
    for (const kv of d.key_values) {
      if (out.length >= max) return out;
      if (!kv.key || !kv.value || kv.value.length > 200) continue;
      const chunk = d.chunks.find((c) => c.content.includes(kv.value) && c.content.includes(kv.key)) ?? d.chunks.find((c) => c.content.includes(kv.value));
      const n = cites.cite({ document_id: d.id, document_name: d.name, chunk_id: chunk?.id ?? null, page: chunk?.page ?? kv.page, quote: `${kv.key}: ${kv.value}` });
      out.push({ text: `${kv.key}: ${kv.value}`, inlines: [{ text: `${kv.key}:`, bold: true }, { text: ` ${kv.value}` }], citations: [n] });
    }
  }
  return out;
}

/**
 * The offline summary: the best sentences of the sources (centrality, and the figures and names they
 * state), kept in their original order and grouped into paragraphs (as many as the length asks for, fewer
 * only when the sources have fewer sentences); each sentence cites its chunk. A length takes at most its
 * share of the source's sentences and stays within its character budget (the best sentences kept), so
 * short is shorter than long whenever the source has more than one sentence. A source with few sentences
 * (an invoice) adds its key values to medium and long summaries; extractions open with their narrative
 * (what, who, when, how much), and medium and long summaries add their fields' table. style "bullets" gives
 * each paragraph as a list.
 */
export function summaryModel(sources: Sources, length: SummaryLength, title: string, style?: string): { model: GeneratedDocumentModel; sentences: SummarySentence[] } {
  const shape = SHAPES[length];
  const all = sentencesOf(sources.documents);
  // long: comprehensive, growing with the sources (up to 20 paragraphs)
  const paragraphs = length === 'long' ? Math.min(20, Math.max(shape.paragraphs, Math.ceil(all.length / 25))) : shape.paragraphs;
  const want = Math.max(1, Math.min(paragraphs * shape.per, Math.floor(all.length * shape.share)));
  const ranked = bestPassages(all, want, undefined, { facts: true, ranked: true });
  let chars = ranked.reduce((a, p) => a + p.text.length + 1, 0);
  while (ranked.length > 1 && chars > shape.chars) chars -= ranked.pop()!.text.length + 1;
  const chosen = ranked.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2]);
  const count = Math.min(paragraphs, chosen.length);
  const cites = new Citations();
  const blocks: GeneratedBlock[] = [];
  const sentences: SummarySentence[] = [];
  for (const x of sources.extractions) blocks.push(...extractionNarrative(x, cites));
  for (let p = 0; p < count; p++) {
    const part = chosen.slice(Math.floor((p * chosen.length) / count), Math.floor(((p + 1) * chosen.length) / count));
    const items = part.map((s) => {
      const n = cites.cite({ ...s, quote: s.text });
      sentences.push({ text: s.text, paragraph: p + 1, citation: n, chunk_id: s.chunk_id, document_id: s.document_id, page: s.page });
      return { text: s.text, citations: [n] };
    });
    if (/bullet|list/i.test(style ?? '')) blocks.push({ type: 'list', ordered: false, items });
    else blocks.push({ type: 'paragraph', text: items.map((i) => i.text).join(' '), citations: [...new Set(items.flatMap((i) => i.citations))] });
  }
  // few sentences (an invoice, a form): its key values say what the sentences cannot
  const facts = chosen.length < paragraphs * shape.per ? keyFacts(sources.documents, shape.facts, cites) : [];
  if (facts.length) blocks.push({ type: 'heading', level: 2, text: 'Key facts' }, { type: 'list', ordered: false, items: facts });
  if (!count && !facts.length && !sources.extractions.length) blocks.push({ type: 'paragraph', text: 'The sources have no sentences to summarise.' });
  if (length !== 'short') for (const x of sources.extractions) blocks.push(...extractionBlocks(x, cites, 2, sources.extractions.length > 1 ? `Extracted fields: ${x.document_name ?? 'extraction'}` : 'Extracted fields'));
  return { model: { title, blocks, citations: cites.list }, sentences };
}

// ---------------------------------------------------------------- bounds

/** Refuses a model no writer should be asked to write (UNPROCESSABLE naming the bound). */
export function checkModel(m: GeneratedDocumentModel): void {
  if (m.blocks.length > GENERATED_LIMITS.blocks) throw errors.unprocessable(`The generated document has more than ${GENERATED_LIMITS.blocks} blocks`);
  let chars = m.title.length;
  for (const b of m.blocks) {
    if (b.type === 'table') {
      if (b.rows.length > GENERATED_LIMITS.tableRows) throw errors.unprocessable(`A table of the generated document has more than ${GENERATED_LIMITS.tableRows} rows`);
      if (Math.max(b.header.length, ...b.rows.map((r) => r.length)) > GENERATED_LIMITS.tableCols) throw errors.unprocessable(`A table of the generated document has more than ${GENERATED_LIMITS.tableCols} columns`);
      for (const r of b.rows) for (const c of r) chars += c.length;
    } else if (b.type === 'list') for (const it of b.items) chars += it.text.length;
    else if ('text' in b) chars += b.text.length;
  }
  if (chars > GENERATED_LIMITS.textChars) throw errors.unprocessable(`The generated document has more than ${GENERATED_LIMITS.textChars} characters`);
}
