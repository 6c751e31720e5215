/**
 * Matching what a user calls a field ("DOB", "born", "surname") to the labels of a form's elements: folded
 * word overlap, with the organization's vocabulary (a canonical term and its aliases count as the same
 * words) and a few built-in equivalences of form labels.
 */
import type { EditElement } from '@quire/core';

const STOP = new Set(['the', 'a', 'an', 'of', 'my', 'your', 'for', 'box', 'field', 'is', 'are', 'am', 'i', 'to', 'please', 'enter', 'and']);

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
];

export type Vocabulary = { canonical_term: string; aliases: string[] }[];

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

/** 0..1: how well a user's phrase names an element's label. */
export function similarity(phrase: string, label: string, vocab: Vocabulary = []): number {
  const a = words(phrase), b = words(label);
  if (!a.length || !b.length) return 0;
  if (a.join(' ') === b.join(' ')) return 1;
  const ca = canonicals(phrase, vocab), cb = canonicals(label, vocab);
  if (ca.some((c) => cb.includes(c))) return 0.9;
  const sa = new Set(a), sb = new Set(b);
  let common = 0;
  for (const w of sa) if (sb.has(w) || [...sb].some((x) => x.length > 3 && w.length > 3 && (x.startsWith(w) || w.startsWith(x)))) common++;
  return (2 * common) / (sa.size + sb.size);
}

/** The element a phrase names best (at least `min` similar), of the allowed types. */
export function bestElement(phrase: string, elements: EditElement[], vocab: Vocabulary, opts: { types?: EditElement['type'][]; min?: number; taken?: Set<string> } = {}): { element: EditElement; score: number } | null {
  let best: { element: EditElement; score: number } | null = null;
  for (const e of elements) {
    if (opts.types && !opts.types.includes(e.type)) continue;
    if (opts.taken?.has(e.id)) continue;
    const score = Math.max(similarity(phrase, e.label, vocab), e.id === phrase ? 1 : 0);
    if (score > (best?.score ?? 0)) best = { element: e, score };
  }
  return best && best.score >= (opts.min ?? 0.5) ? best : null;
}
