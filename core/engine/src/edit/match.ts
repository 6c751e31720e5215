/**
 * Matching what a user calls a field ("DOB", "born", "surname") to the labels of a form's elements: folded
 * word overlap, with the organization's vocabulary (a canonical term and its aliases count as the same
 * words) and a few built-in equivalences of form labels.
 */
import type { EditElement } from '@quire/core';
import { LEXICON } from '@quire/fields';

const STOP = new Set([
  'the', 'a', 'an', 'of', 'my', 'your', 'for', 'box', 'field', 'is', 'are', 'am', 'i', 'to', 'please', 'enter', 'and',
  // the same little words in French, German, Spanish, Dutch ("nom de famille", "mein Vorname ist", "mi nombre es")
  'le', 'la', 'les', 'l', 'de', 'du', 'des', 'd', 'mon', 'ma', 'mes', 'votre', 'est', 'et', 'der', 'die', 'das', 'des', 'mein', 'meine', 'ihr', 'ist', 'und',
  'el', 'los', 'las', 'del', 'mi', 'mis', 'su', 'es', 'y', 'het', 'een', 'van', 'mijn', 'uw', 'en',
]);

export const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
export const words = (s: string) => fold(s).match(/[\p{L}\p{N}]+/gu)?.filter((w) => !STOP.has(w)) ?? [];

/** Built-in equivalent phrasings, used like vocabulary entries. */
const BUILTIN: { canonical_term: string; aliases: string[] }[] = [
  { canonical_term: 'date of birth', aliases: ['dob', 'birth date', 'birthdate', 'born', 'birthday', 'born on'] },
  { canonical_term: 'last name', aliases: ['surname', 'family name'] },
  { canonical_term: 'first name', aliases: ['given name', 'forename'] },
  { canonical_term: 'email', aliases: ['e mail', 'email address', 'mail'] },
  { canonical_term: 'phone', aliases: ['telephone', 'phone number', 'tel', 'mobile'] },
  { canonical_term: 'zip', aliases: ['postal code', 'postcode', 'zip code'] },
  { canonical_term: 'us citizen', aliases: ['united states citizen', 'american citizen', 'citizen of the united states'] },
  { canonical_term: 'social security number', aliases: ['ssn', 'social security no', 'social security', 'social insurance number', 'sin'] },
  { canonical_term: 'middle name', aliases: ['middle initial'] },
];

export type Vocabulary = { canonical_term: string; aliases: string[] }[];

/** The lexicon's labels (core/text/lexicon/business-labels.json) as words, longest first, each with its English terms. */
const LABELS: { words: string[]; terms: string[] }[] = LEXICON.flatMap((e) => Object.values(e.labels).flat().map((l) => ({ words: words(l), terms: words(e.terms) })))
  .filter((l) => l.words.length && l.terms.length)
  .sort((a, b) => b.words.length - a.words.length);
const englishCache = new Map<string, string>();

/**
 * A phrase in English words: each label of the lexicon in it (in any language: "prénom", "Geburtsdatum",
 * "código postal", "achternaam") replaced by its concept's English terms ("first name", "date of birth").
 */
export function english(phrase: string): string {
  const cached = englishCache.get(phrase);
  if (cached !== undefined) return cached;
  const ws = words(phrase);
  const out: string[] = [];
  for (let i = 0; i < ws.length; ) {
    const l = LABELS.find((x) => x.words.every((w, j) => ws[i + j] === w));
    if (l) {
      out.push(...l.terms);
      i += l.words.length;
    } else out.push(ws[i++]!);
  }
  const res = out.join(' ');
  if (englishCache.size > 5000) englishCache.clear();
  englishCache.set(phrase, res);
  return res;
}

/** The canonical terms a phrase stands for (it equals or contains the term or one of its aliases). */
function canonicals(phrase: string, vocab: Vocabulary): string[] {
  const p = ` ${words(phrase).join(' ')} `;
  const out: string[] = [];
  for (const v of [...vocab, ...BUILTIN]) {
    const all = [v.canonical_term, ...v.aliases].map((a) => ` ${words(a).join(' ')} `).filter((a) => a.trim());
    if (all.some((a) => p.includes(a))) out.push(fold(v.canonical_term));
  }
  return out;
}

/**
 * 0..1: how well a user's phrase names an element's label, in their own words or in English words (a label of
 * the lexicon in one language names the same thing as in another: "Nachname" and "last name").
 */
export function similarity(phrase: string, label: string, vocab: Vocabulary = []): number {
  const base = wordSimilarity(phrase, label, vocab);
  if (base >= 1) return base;
  const p = english(phrase), l = english(label);
  const plain = words(phrase).join(' '), plainLabel = words(label).join(' ');
  if (p === plain && l === plainLabel) return base;
  return Math.max(base, wordSimilarity(p, label, vocab), wordSimilarity(phrase, l, vocab), wordSimilarity(p, l, vocab));
}

function wordSimilarity(phrase: string, label: string, vocab: Vocabulary): number {
  const a = words(phrase), b = words(label);
  if (!a.length || !b.length) return 0;
  if (a.join(' ') === b.join(' ') || (a.length === b.length && a.every((w) => b.includes(w)) && b.every((w) => a.includes(w)))) return 1;
  const ca = canonicals(phrase, vocab), cb = canonicals(label, vocab);
  if (ca.some((c) => cb.includes(c))) return 0.9;
  const sa = new Set(a), sb = new Set(b);
  let common = 0;
  for (const w of sa) if (sb.has(w) || [...sb].some((x) => x.length > 3 && w.length > 3 && (x.startsWith(w) || w.startsWith(x)))) common++;
  // a long label that holds every word of the phrase ("Business number" in "1. Business information. Business
  // number. First 9 digits.") names it, less surely than an equal label
  const covered = common === sa.size && sa.size > 0 ? 0.7 : 0;
  return Math.max((2 * common) / (sa.size + sb.size), covered);
}

/** An AcroForm field's name as words: "Name_First" → "Name First", "form1[0].Page1[0].LegalName[0]" → "Legal Name". */
export function fieldNameWords(name: string | undefined): string {
  const last = (name ?? '').split('.').filter(Boolean).pop() ?? '';
  return last.replace(/\[\d+\]/g, '').replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-]+/g, ' ').trim();
}

/** 0..1: how well a phrase names an element, by its label, else (a little less) by its field's name. */
export function elementScore(phrase: string, e: EditElement, vocab: Vocabulary = []): number {
  const byName = e.field_name ? similarity(phrase, fieldNameWords(e.field_name), vocab) : 0;
  // the label first; of two equal labels ("nom" twice), the field whose name agrees
  return Math.max(similarity(phrase, e.label, vocab) + byName * 0.01, byName * 0.95, e.id === phrase ? 1 : 0);
}

/** The elements a phrase names (at least `min` similar), best first, of the allowed types. */
export function rankElements(phrase: string, elements: EditElement[], vocab: Vocabulary, opts: { types?: EditElement['type'][]; min?: number; taken?: Set<string> } = {}): { element: EditElement; score: number }[] {
  return elements
    .filter((e) => (!opts.types || opts.types.includes(e.type)) && !opts.taken?.has(e.id))
    .map((element) => ({ element, score: elementScore(phrase, element, vocab) }))
    .filter((x) => x.score >= (opts.min ?? 0.5))
    .sort((a, b) => b.score - a.score);
}

/** The element a phrase names best (at least `min` similar), of the allowed types. */
export function bestElement(phrase: string, elements: EditElement[], vocab: Vocabulary, opts: { types?: EditElement['type'][]; min?: number; taken?: Set<string> } = {}): { element: EditElement; score: number } | null {
  return rankElements(phrase, elements, vocab, opts)[0] ?? null;
}
