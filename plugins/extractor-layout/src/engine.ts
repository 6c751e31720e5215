/**
 * The offline engine: candidates per field, choice and confidence from the evidence, typed values for
 * strings, numbers, dates, booleans, objects (per property) and arrays (table rows, lists).
 */
import type { Chunk, Evidence, FieldDefinition, ParsedDocument, Span } from '@quire/core';
import { LayoutIndex, type Scope } from './layout.js';
import { CandidateFinder, type Candidate } from './candidates.js';
import { fieldLabels, type FieldLabels } from './labels.js';
import { documentDateOrder, normaliseValue, type DateOrder, type ParseContext } from '@quire/fields';
import { round } from '@quire/text';
import { rowsFromTables, listValues, itemConcept } from './arrays.js';
import { fallbackCandidates } from './fallbacks.js';
import { rowsFromLayout } from './layout-rows.js';
import { issuerCandidates, legalEntityCandidates } from './issuer.js';
import { amountKind, totalCandidates, totalWeight } from './totals.js';

/** Scores top out near 1 for a printed exact label with a clean value; confidence keeps a margin below that. */
export const CALIBRATION = 0.93;

export interface EngineSettings {
  dateOrder?: DateOrder;
  decimal?: '.' | ',';
}

export interface Outcome {
  field: FieldDefinition;
  value: unknown;
  confidence: number;
  evidence: Evidence | null;
  /** primitive fields: all scored candidates, best first */
  candidates: Candidate[];
  note: string;
  /** findings of validation steps (agentic mode) */
  checks: string[];
  /** with an LLM: whose value this is (the LLM's, checked against the document, or the layout reading's) */
  answeredBy?: 'llm' | 'offline';
  /** why the layout reading stands in for the LLM: its value was not in the document, or the LLM failed */
  fallbackReason?: 'ungrounded' | 'llm_unavailable';
}

/** The decimal separator a document uses, from how its amounts are printed. */
export function documentDecimal(text: string): '.' | ',' | undefined {
  const comma = (text.match(/\d\.\d{3},\d{2}(?!\d)|(?<![\d.,])\d{1,3},\d{2}(?![\d,.])/g) ?? []).length;
  const dot = (text.match(/\d,\d{3}\.\d{2}(?!\d)|(?<![\d.,])\d{1,3}\.\d{2}(?![\d,.])/g) ?? []).length;
  if (comma === dot) return undefined;
  return comma > dot ? ',' : '.';
}

/** Mostly letters, at least three of them: a name rather than a number or a code. */
const isNameLike = (v: string) => {
  const letters = v.replace(/[^\p{L}]/gu, '').length;
  return letters >= 3 && letters / Math.max(1, v.replace(/\s/g, '').length) >= 0.6;
};

/** Labels of identifiers and contact numbers: a tax or company registration, an ID, a phone or fax number. */
const ID_LABEL = /(?<![\p{L}])(?:(?:gst|vat|sst|tax|tin|brn|ssm|abn|ein|business|company|co|reg(?:istration)?)\.?\s*(?:id|reg(?:istration)?|no|nr|number|#)|id|tel|telephone|phone|fax|hp|mobile|tin|brn|ssm|abn|ein|gstin)(?![\p{L}])/iu;

/**
 * Digits that are no amount: printed after an identifier's or a phone number's label on their line ("GST ID:
 * 000658952704", "Tel 0312345678"), or a long run of digits with a leading zero.
 */
export function idDigits(text: string, span: Span): boolean {
  const printed = text.slice(span.start, span.end);
  if (/^\D*0\d{5,}$/.test(printed.replace(/\s/g, ''))) return true;
  const lineStart = text.lastIndexOf('\n', span.start - 1) + 1;
  return ID_LABEL.test(text.slice(lineStart, span.start));
}

/** OCR digit confusions seen in printed years (1 read as 7, 0 read as 6, 8 or 9). */
const YEAR_DIGITS: Record<string, string> = { '7': '1', '6': '0', '9': '0', '8': '0' };

/**
 * A date whose year lies decades ahead ("22/03/2078" for 2018 on a receipt) is read again with one
 * confused digit of the year put right when that gives a year near the present; the reading counts less.
 */
export function repairYear(c: Candidate, now = new Date().getUTCFullYear()): Candidate {
  const v = typeof c.value === 'string' ? /^(\d{4})(-\d{2}-\d{2})$/.exec(c.value) : null;
  if (!v || Number(v[1]) <= now + 30) return c;
  const y = v[1]!;
  for (let i = 1; i < 4; i++) {
    const d = YEAR_DIGITS[y[i]!];
    if (!d) continue;
    const fixed = y.slice(0, i) + d + y.slice(i + 1);
    if (Number(fixed) >= 1990 && Number(fixed) <= now + 1) return { ...c, value: fixed + v[2], parseQuality: c.parseQuality * 0.7, score: c.score * 0.7, note: `${c.note}; year ${y} read as ${fixed}` };
  }
  return { ...c, score: c.score * 0.5 };
}

const clamp = (n: number) => Math.max(0, Math.min(0.99, n));

export class OfflineEngine {
  readonly index: LayoutIndex;
  readonly finder: CandidateFinder;
  readonly ctx: ParseContext;

  constructor(
    readonly doc: ParsedDocument,
    chunks: Chunk[] = [],
    settings: EngineSettings = {},
  ) {
    this.index = new LayoutIndex(doc, chunks);
    this.finder = new CandidateFinder(this.index);
    this.ctx = { dateOrder: settings.dateOrder ?? documentDateOrder(doc.text), decimal: settings.decimal ?? documentDecimal(doc.text) };
  }

  fieldCtx(field: FieldDefinition, labels: FieldLabels): ParseContext {
    const c = labels.concept;
    const text = `${field.name} ${field.description ?? ''}`;
    const money = field.type === 'number' && (c?.money || /amount|total|price|cost|fee|tax|vat|balance|paid|due|sum|betrag|montant|importe/i.test(text));
    return { ...this.ctx, format: field.type === 'string' ? c?.format : undefined, money: !!money };
  }

  /** Scored candidates of a primitive field, best first; unlabelled fallbacks only when no label matched. */
  candidates(field: FieldDefinition, scope?: Scope, labels = fieldLabels(field)): Candidate[] {
    const ctx = this.fieldCtx(field, labels);
    let list = this.finder.find(field, labels, { ctx, scope, multiline: !!labels.concept?.multiline });
    if (labels.concept?.id === 'total' && field.type === 'number') {
      // the labels' own words say which total an amount is (not a subtotal, tax, quantity or cash tendered)
      const text = this.doc.text;
      list = list
        .map((c) => ({ c, w: totalWeight(amountKind(c.label ? text.slice(c.label.start, c.label.end) : field.name)) }))
        .filter((x) => x.w > 0)
        .map(({ c, w }) => ({ ...c, score: c.score * w }));
      list = totalCandidates(field, this.index, this.finder, ctx, scope ?? this.index.all, list).filter((c) => !idDigits(text, c.span));
    }
    if (labels.concept?.id === 'vendor' && field.type === 'string') {
      // a labelled value must read as a name (not "(002231061-T)" after "Company Reg No."); the name line at the top competes
      list = list.filter((c) => isNameLike(String(c.value)));
      list.push(...issuerCandidates(this.index, scope ?? this.index.all));
    }
    if (labels.concept?.id === 'legal_entity' && field.type === 'string') {
      // the name printed under an owner label ("Owned by …"), as a name
      list = list.filter((c) => isNameLike(String(c.value)));
      list.push(...legalEntityCandidates(this.index, scope ?? this.index.all));
    }
    if (!list.length) list = fallbackCandidates(field, labels, this.index, this.finder, ctx, scope ?? this.index.all);
    if (field.type === 'date') list = list.map((c) => repairYear(c));
    // one candidate per value span (the same value reached by two routes keeps the better route)
    const bySpan = new Map<string, Candidate>();
    for (const c of list) {
      const k = `${c.span.start}:${c.span.end}`;
      const prev = bySpan.get(k);
      if (!prev || c.score > prev.score) bySpan.set(k, c);
    }
    return [...bySpan.values()].sort((a, b) => b.score - a.score || a.span.start - b.span.start);
  }

  valueKey(field: FieldDefinition, v: unknown): string {
    return JSON.stringify(normaliseValue(v, field, this.ctx));
  }

  /**
   * Chooses among candidates: the best score wins; other values scoring close to it lower the confidence
   * (conflict), the same value found at several places raises it a little (agreement).
   */
  decide(field: FieldDefinition, cands: Candidate[], preferred?: Candidate): Outcome {
    if (!cands.length) return { field, value: null, confidence: 0, evidence: null, candidates: [], note: 'not found', checks: [] };
    const best = preferred ?? cands[0]!;
    const key = this.valueKey(field, best.value);
    const rivals = cands.filter((c) => this.valueKey(field, c.value) !== key);
    const allies = cands.filter((c) => c !== best && this.valueKey(field, c.value) === key && c.unit.id !== best.unit.id);
    const s1 = best.score;
    const s2 = rivals.length ? Math.max(...rivals.map((c) => c.score)) : 0;
    const conflict = s2 >= 0.5 * s1 ? 1 - 0.45 * Math.min(1, s2 / s1) : 1;
    const agree = allies.length ? 1.05 : 1;
    const confidence = round(clamp(s1 * CALIBRATION * conflict * agree), 3);
    let note = `${best.note} (${best.method})`;
    if (conflict < 1) note += `; ${rivals.length} conflicting candidate(s)`;
    if (allies.length) note += `; also found at ${allies.length} other place(s)`;
    return { field, value: best.value, confidence, evidence: this.evidence(best.span, confidence), candidates: cands, note, checks: [] };
  }

  evidence(span: Span, confidence: number): Evidence {
    const { page, bbox } = this.index.boxForSpan(span);
    const ev: Evidence = { text: this.doc.text.slice(span.start, span.end), page, bbox, confidence, span: { start: span.start, end: span.end } };
    const chunk = this.index.chunkFor(span);
    if (chunk) ev.chunk_id = chunk;
    return ev;
  }

  /** Extracts one field (any type). `filter` restricts where labels are looked for. */
  extract(field: FieldDefinition, scope?: Scope): Outcome {
    if (field.type === 'object') return this.extractObject(field, scope);
    if (field.type === 'array') return this.extractArray(field, scope);
    return this.decide(field, this.candidates(field, scope));
  }

  private extractObject(field: FieldDefinition, scope?: Scope): Outcome {
    const entries = Object.entries(field.properties ?? {});
    if (!entries.length) return { field, value: null, confidence: 0, evidence: null, candidates: [], note: 'object field without properties', checks: [] };
    const value: Record<string, unknown> = {};
    const parts: Outcome[] = [];
    for (const [k, def] of entries) {
      // a property is looked up under its own name, and under "<object> <property>" ("customer" + "name")
      const prop = { ...def, name: def.name ?? k };
      const own = this.extract(prop, scope);
      const qualified = prop.type === 'object' || prop.type === 'array' ? own : this.extract({ ...prop, name: `${field.name} ${prop.name}` }, scope);
      const o = qualified.confidence > own.confidence ? qualified : own;
      value[k] = o.value;
      parts.push(o);
    }
    const found = parts.filter((p) => p.value !== null);
    if (!found.length) return { field, value: null, confidence: 0, evidence: null, candidates: [], note: 'no property found', checks: [] };
    const confidence = round(parts.reduce((a, p) => a + p.confidence, 0) / parts.length, 3);
    const top = found.reduce((a, b) => (b.confidence > a.confidence ? b : a));
    return { field, value, confidence, evidence: top.evidence ? { ...top.evidence, confidence } : null, candidates: [], note: `${found.length}/${parts.length} properties found`, checks: [] };
  }

  private extractArray(field: FieldDefinition, scope?: Scope): Outcome {
    const item = field.items;
    const ctx = { ...this.ctx };
    let got = item?.type === 'object' ? rowsFromTables(field, this.index, ctx, scope) : listValues(field, this.index, ctx, scope);
    if (item?.type === 'object') {
      const aligned = rowsFromLayout(field, this.index, ctx, scope ?? this.index.all, itemConcept);
      if (aligned && (!got || aligned.score > got.score)) got = aligned;
    }
    if (!got || !got.value.length) return { field, value: null, confidence: 0, evidence: null, candidates: [], note: 'not found', checks: [] };
    const confidence = round(clamp(got.score * CALIBRATION), 3);
    return { field, value: got.value, confidence, evidence: this.evidence(got.span, confidence), candidates: [], note: got.note, checks: [] };
  }

  /** Line-item property concept (for validation of row sums). */
  itemConceptId(prop: FieldDefinition): string | undefined {
    return itemConcept(prop)?.id;
  }
}
