/**
 * LLM extraction: the document text in windows that fit the prompt, a JSON schema built from the fields
 * asking for each value and the exact source quote, then every quote located in doc.text to give evidence
 * (page, bbox, span, chunk). Confidence comes from that match (and agreement with the offline engine),
 * never from the model's own say-so.
 */
import type { Chunk, ExtractionEvent, FieldDefinition, LlmPlugin, Span } from '@quire/core';
import { errors } from '@quire/core';
import type { OfflineEngine, Outcome } from './engine.js';
import { coerceValue, normaliseValue, scanTyped, type ParseContext } from '@quire/fields';
import { parseJsonObject, round, unsupportedNumbers } from '@quire/text';
import { fieldLabels } from './labels.js';
import { throwIfAborted } from './abort.js';

export interface LlmSettings {
  /** characters of document text per request (default 24 000, about 6 000 tokens) */
  maxPromptChars?: number;
  temperature?: number;
  maxTokens?: number;
}

/** JSON schema of one value (nullable, strict-mode compatible). */
export function valueSchema(f: FieldDefinition): Record<string, unknown> {
  const desc = f.description ? { description: f.description } : {};
  switch (f.type) {
    case 'number':
      return { type: ['number', 'null'], ...desc };
    case 'boolean':
      return { type: ['boolean', 'null'], ...desc };
    case 'date':
      return { type: ['string', 'null'], description: `${f.description ? `${f.description}. ` : ''}ISO date YYYY-MM-DD` };
    case 'object': {
      const props = Object.entries(f.properties ?? {});
      return {
        type: ['object', 'null'],
        ...desc,
        properties: Object.fromEntries(props.map(([k, d]) => [k, valueSchema({ ...d, name: d.name ?? k })])),
        required: props.map(([k]) => k),
        additionalProperties: false,
      };
    }
    case 'array':
      return { type: ['array', 'null'], ...desc, items: valueSchema(f.items ?? { name: 'item', type: 'string' }) };
    default:
      return { type: ['string', 'null'], ...desc };
  }
}

/** The response schema: per field {value, quote}. */
export function responseSchema(fields: FieldDefinition[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(
      fields.map((f) => [
        f.name,
        {
          type: 'object',
          properties: { value: valueSchema(f), quote: { type: ['string', 'null'], description: 'the exact text copied from the document where the value is printed' } },
          required: ['value', 'quote'],
          additionalProperties: false,
        },
      ]),
    ),
    required: fields.map((f) => f.name),
    additionalProperties: false,
  };
}

/** Windows of doc.text that fit the prompt: consecutive chunks grouped, else paragraph-aligned slices. */
export function windows(text: string, chunks: Chunk[], maxChars: number): Span[] {
  if (text.length <= maxChars) return [{ start: 0, end: text.length }];
  const out: Span[] = [];
  const sorted = [...chunks].sort((a, b) => a.span.start - b.span.start);
  if (sorted.length) {
    let cur: Span | null = null;
    for (const c of sorted) {
      if (cur && c.span.end - cur.start <= maxChars) cur.end = Math.max(cur.end, c.span.end);
      else {
        if (cur) out.push(cur);
        cur = { start: c.span.start, end: Math.min(c.span.end, c.span.start + maxChars) };
      }
    }
    if (cur) out.push(cur);
    return out;
  }
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + maxChars);
    if (end < text.length) {
      const cut = text.lastIndexOf('\n\n', end);
      if (cut > start + maxChars / 2) end = cut;
    }
    out.push({ start, end });
    start = end;
  }
  return out;
}

/** Finds a quote in doc.text: exactly (window first), else ignoring case and whitespace. */
export function locateQuote(text: string, quote: string, within?: Span): { span: Span; exact: boolean } | null {
  const q = quote.trim();
  if (!q) return null;
  if (within) {
    const at = text.slice(within.start, within.end).indexOf(q);
    if (at >= 0) return { span: { start: within.start + at, end: within.start + at + q.length }, exact: true };
  }
  const at = text.indexOf(q);
  if (at >= 0) return { span: { start: at, end: at + q.length }, exact: true };
  // loose: collapse whitespace and case, keep a map back to offsets
  const map: number[] = [];
  let norm = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (norm.endsWith(' ') || !norm) continue;
      norm += ' ';
    } else norm += ch.toLowerCase();
    map.push(i);
  }
  const nq = q.replace(/\s+/g, ' ').toLowerCase();
  const k = norm.indexOf(nq);
  if (k < 0) return null;
  return { span: { start: map[k]!, end: map[k + nq.length - 1]! + 1 }, exact: false };
}

/** Where the value itself is printed inside a region (number/date read back, strings by text). */
function valueIn(text: string, region: Span, f: FieldDefinition, value: unknown, ctx: ParseContext): Span | null {
  const slice = text.slice(region.start, region.end);
  if (f.type === 'number' || f.type === 'date' || f.type === 'boolean') {
    const want = JSON.stringify(normaliseValue(value, f.type, ctx));
    const m = scanTyped(slice, f.type, ctx).find((x) => JSON.stringify(normaliseValue(x.value, f.type, ctx)) === want);
    return m ? { start: region.start + m.start, end: region.start + m.end } : null;
  }
  if (f.type === 'string') {
    const v = String(value).trim();
    const at = slice.toLowerCase().indexOf(v.toLowerCase());
    if (at >= 0) return { start: region.start + at, end: region.start + at + v.length };
    const loose = locateQuote(slice, v);
    return loose ? { start: region.start + loose.span.start, end: region.start + loose.span.end } : null;
  }
  return null;
}

interface Ctx {
  llm: LlmPlugin;
  engine: OfflineEngine;
  chunks: Chunk[];
  fields: FieldDefinition[];
  instructions?: string;
  settings: LlmSettings;
  emit: (e: ExtractionEvent) => void | Promise<void>;
  signal?: AbortSignal;
}

const SYSTEM = [
  'You extract structured fields from one document.',
  'For every field return "value" typed as the schema says (dates as YYYY-MM-DD, numbers without currency symbols or thousands separators) and "quote": the exact text copied verbatim from the document where the value is printed (the shortest passage that contains it).',
  'If the document does not state a field, return null for both. Never guess or compute values that are not printed.',
].join(' ');

function parseJson(content: string): Record<string, any> {
  const j = parseJsonObject(content);
  if (!j) throw errors.upstream(`LLM answer is not a JSON object: ${content.slice(0, 200)}`);
  return j;
}

export async function runLlm({ llm, engine, chunks, fields, instructions, settings, emit, signal }: Ctx): Promise<Outcome[]> {
  const doc = engine.doc;
  const wins = windows(doc.text, chunks, settings.maxPromptChars ?? 24_000);
  const best = new Map<FieldDefinition, Outcome>();
  const layout = new Map<FieldDefinition, Outcome>();
  const schema = { name: 'extraction', schema: responseSchema(fields) };
  const fieldList = fields
    .map((f) => `- ${f.name} (${f.type}${f.type === 'array' && f.items ? ` of ${f.items.type}` : ''})${f.description ? `: ${f.description}` : ''}${f.required ? ' [required]' : ''}`)
    .join('\n');
  for (const [i, w] of wins.entries()) {
    throwIfAborted(signal);
    const user = `Fields:\n${fieldList}\n\n${instructions ? `Instructions: ${instructions}\n\n` : ''}Document "${doc.name}"${wins.length > 1 ? ` (part ${i + 1} of ${wins.length})` : ''}:\n<<<\n${doc.text.slice(w.start, w.end)}\n>>>`;
    const res = await llm.complete({
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }],
      jsonSchema: schema,
      temperature: settings.temperature ?? 0,
      maxTokens: settings.maxTokens,
      signal,
    });
    const answer = parseJson(res.content);
    const partial: Record<string, unknown> = {};
    for (const f of fields) {
      const raw = answer[f.name];
      const item = raw && typeof raw === 'object' && !Array.isArray(raw) && 'value' in raw ? raw : { value: raw, quote: null };
      const o = judge(engine, f, item.value, typeof item.quote === 'string' ? item.quote : null, w, layout);
      partial[f.name] = o.value;
      const prev = best.get(f);
      if (!prev || o.confidence > prev.confidence) best.set(f, o);
    }
    await emit({ type: 'chunk_done', chunk_index: i, partial_data: partial });
    await emit({ type: 'progress', progress: Math.round(5 + (80 * (i + 1)) / wins.length), progress_message: `LLM read part ${i + 1} of ${wins.length}` });
  }
  return fields.map((f) => best.get(f) ?? { field: f, value: null, confidence: 0, evidence: null, candidates: [], note: 'not found', checks: [] });
}

/**
 * An LLM value is kept only when its quote is in the document and the value is read inside the quote (for
 * strings: every number of the value printed in it); its confidence comes from that match and agreement
 * with the layout reading. Otherwise the layout reading stands in for it, or null: never an invented value.
 */
export function judge(engine: OfflineEngine, f: FieldDefinition, rawValue: unknown, quote: string | null, win: Span, layout = new Map<FieldDefinition, Outcome>()): Outcome {
  const doc = engine.doc;
  const ctx = engine.fieldCtx(f, fieldLabels(f));
  const { value, clean } = coerceValue(rawValue, f, ctx);
  const empty = value === null || (Array.isArray(value) && !value.length);
  if (empty) return { field: f, value: null, confidence: 0, evidence: null, candidates: [], note: 'LLM: not stated', checks: [], answeredBy: 'llm' };
  let conf: number;
  let span: Span | null = null;
  let note: string;
  const q = quote ? locateQuote(doc.text, quote, win) : null;
  // grounded: the quote is in the document and the value is read in it (a string's numbers printed in it)
  const inner = q ? valueIn(doc.text, q.span, f, value, ctx) : null;
  const structured = f.type === 'array' || f.type === 'object' || f.type === 'boolean';
  const stringNumbersOk = f.type === 'string' && q !== null && unsupportedNumbers(String(value), [doc.text.slice(q.span.start, q.span.end)]).length === 0;
  if (!q || !(inner || structured || stringNumbersOk)) {
    // not borne out by the document: never kept; the layout reading stands in (or nothing)
    const why = !quote ? 'the LLM gave no quote' : !q ? 'the LLM quote is not in the document' : 'the LLM value is not in its quote';
    const offline = layoutReading(engine, f, layout);
    if (offline && offline.value !== null) return { ...offline, note: `${why} (${JSON.stringify(value)} dropped); the layout reading: ${offline.note}`, answeredBy: 'offline', fallbackReason: 'ungrounded' };
    return { field: f, value: null, confidence: 0, evidence: null, candidates: [], note: `${why} (${JSON.stringify(value)} dropped)`, checks: [], answeredBy: 'offline', fallbackReason: 'ungrounded' };
  }
  span = inner ?? q.span;
  conf = q.exact ? 0.9 : 0.8;
  note = `LLM value with its quote found ${q.exact ? 'verbatim' : 'ignoring case and spacing'} in the document`;
  if (!clean) conf *= 0.9;
  // a second opinion from the layout: agreement raises, a confident different reading lowers
  const offline = layoutReading(engine, f, layout);
  if (offline) {
    if (offline.value !== null) {
      if (engine.valueKey(f, offline.value) === engine.valueKey(f, value)) {
        conf = Math.min(0.97, conf * 1.08);
        note += '; the layout reading agrees';
      } else if (offline.confidence >= 0.7) {
        conf *= 0.85;
        note += `; the layout reading differs (${JSON.stringify(offline.value)})`;
      }
    }
  }
  const confidence = round(conf, 3);
  return { field: f, value, confidence, evidence: engine.evidence(span, confidence), candidates: [], note, checks: [], answeredBy: 'llm' };
}

/** The offline engine's reading of a primitive field (kept per field across windows); none for arrays and objects. */
function layoutReading(engine: OfflineEngine, f: FieldDefinition, layout: Map<FieldDefinition, Outcome>): Outcome | null {
  if (f.type === 'array' || f.type === 'object') return null;
  let offline = layout.get(f);
  if (!offline) layout.set(f, (offline = engine.decide(f, engine.candidates(f))));
  return offline;
}
