/**
 * Label matching: scoring of how well a printed label names a field (exact / synonym / token overlap /
 * edit distance), over the field concepts and label tokens of @quire/fields.
 */
import type { FieldDefinition } from '@quire/core';
import { distance as levenshtein } from 'fastest-levenshtein';
import { conceptOf, conceptsOfWords, isStop, tokenize, words, type Concept, type Token } from '@quire/fields';

const CURRENCY_TOKENS = new Set(['usd', 'eur', 'gbp', 'inr', 'chf', 'jpy', 'cad', 'aud', 'myr', 'rm', 'rs', 'sgd', 'hkd', 'cny', 'sek', 'nok', 'dkk', 'pln', 'czk', 'zar', 'brl', 'mxn']);

export interface LabelVariant {
  tokens: string[];
  /** 1 for the field's own name, lower for synonyms */
  weight: number;
  source: 'name' | 'description' | 'synonym';
}

export interface FieldLabels {
  field: FieldDefinition;
  concept?: Concept;
  variants: LabelVariant[];
  /** concept ids of this field (to tell its labels from other concepts' labels) */
  own: Set<string>;
}

const labelCache = new Map<string, FieldLabels>();

/** Label variants of a field: its name, a short description, and its concept's synonyms (memoised). */
export function fieldLabels(field: FieldDefinition, conceptOverride?: Concept): FieldLabels {
  const key = `${field.name}\u0000${field.type}\u0000${field.description ?? ''}\u0000${conceptOverride?.id ?? ''}`;
  const hit = labelCache.get(key);
  if (hit) return { ...hit, field };
  const made = makeFieldLabels(field, conceptOverride);
  if (labelCache.size > 5000) labelCache.clear();
  labelCache.set(key, made);
  return made;
}

function makeFieldLabels(field: FieldDefinition, conceptOverride?: Concept): FieldLabels {
  const c = conceptOverride ?? conceptOf(field);
  const variants: LabelVariant[] = [];
  const add = (phrase: string, weight: number, source: LabelVariant['source']) => {
    const tokens = words(phrase);
    if (!tokens.length) return;
    const key = tokens.join(' ');
    const existing = variants.find((v) => v.tokens.join(' ') === key);
    if (existing) existing.weight = Math.max(existing.weight, weight);
    else variants.push({ tokens, weight, source });
  };
  add(field.name, 1, 'name');
  if (field.description && words(field.description).length <= 4) add(field.description, 1, 'description');
  if (c) c.labels.forEach((l, i) => add(l.replace(/^~/, ''), l.startsWith('~') ? 0.7 : i === 0 ? 0.92 : 0.88, 'synonym'));
  return { field, concept: c, variants, own: new Set(c ? [c.id] : []) };
}

/** Levenshtein distance (fastest-levenshtein), capped: max+1 when it exceeds max (length difference first, which bounds it from below). */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d = levenshtein(a, b);
  return d > max ? max + 1 : d;
}

const simCache = new Map<string, number>();

/** 1 for equal tokens, 0.8 for OCR-style near misses of longer words, else 0. */
export function tokenSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const len = Math.min(a.length, b.length);
  if (len < 4 || Math.abs(a.length - b.length) > 2) return 0;
  const key = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
  let v = simCache.get(key);
  if (v === undefined) {
    if (/\d/.test(a) || /\d/.test(b)) v = 0;
    else {
      const d = editDistance(a, b, 2);
      v = d === 1 ? 0.8 : d === 2 && len >= 8 ? 0.7 : 0;
    }
    if (simCache.size > 200_000) simCache.clear();
    simCache.set(key, v);
  }
  return v;
}

export interface LabelHit {
  /** index of the first and one past the last matched token */
  from: number;
  to: number;
  score: number;
  variant: LabelVariant;
}

/**
 * Where a field's label occurs in a token list: contiguous matches of any variant (fuzzy per token),
 * scored by variant weight × token similarity. All non-overlapping best hits, in order.
 */
export function findLabels(tokens: Token[], labels: FieldLabels): LabelHit[] {
  const hits: LabelHit[] = [];
  for (const v of labels.variants) {
    const n = v.tokens.length;
    for (let i = 0; i + n <= tokens.length; i++) {
      let sim = 1;
      for (let j = 0; j < n && sim > 0; j++) sim *= tokenSimilarity(tokens[i + j]!.t, v.tokens[j]!);
      if (sim > 0) hits.push({ from: i, to: i + n, score: v.weight * sim, variant: v });
    }
  }
  // longest / best first, then drop overlaps
  hits.sort((a, b) => b.to - b.from - (a.to - a.from) || b.score - a.score);
  const kept: LabelHit[] = [];
  for (const h of hits) if (!kept.some((k) => k.from < h.to && h.from < k.to)) kept.push(h);
  return kept.sort((a, b) => a.from - b.from);
}

/**
 * Score of a label hit given the whole label region it sits in (the tokens that form the printed label,
 * e.g. everything before the colon). Extra words lower it; a region that is another concept's label
 * ("Due Date" for a plain date field) lowers it a lot.
 */
export function regionScore(hit: LabelHit, region: Token[], labels: FieldLabels): number {
  // numbers and currency codes in a label ("VAT 20%", "Amount (USD)") qualify it without changing what it names
  const content = region.filter((t) => !isStop(t.t) && !/^\d+$/.test(t.t) && !CURRENCY_TOKENS.has(t.t));
  const matched = hit.to - hit.from;
  const cover = content.length ? Math.min(1, matched / content.length) : 1;
  let score = hit.score * (0.55 + 0.45 * cover);
  if (cover < 1) {
    const others = conceptsOfWords(region.map((t) => t.t)).filter((id) => !labels.own.has(id));
    if (others.length) score *= 0.45;
  }
  return score;
}

/** Best score of a whole printed label (a key-value key, a table header) naming the field; 0 if none. */
export function scoreLabelText(text: string, labels: FieldLabels): number {
  const toks = tokenize(text);
  if (!toks.length) return 0;
  let best = 0;
  for (const h of findLabels(toks, labels)) best = Math.max(best, regionScore(h, toks, labels));
  if (best > 0) return best;
  // loose token overlap (order-free) for long descriptive labels
  const content = toks.filter((t) => !isStop(t.t)).map((t) => t.t);
  for (const v of labels.variants) {
    const vt = v.tokens.filter((t) => !isStop(t));
    if (vt.length < 2) continue;
    const common = vt.filter((t) => content.some((c) => tokenSimilarity(c, t) > 0)).length;
    const jacc = common / (vt.length + content.length - common);
    if (common >= 2 && jacc >= 0.5) best = Math.max(best, v.weight * 0.75 * jacc);
  }
  return best;
}
