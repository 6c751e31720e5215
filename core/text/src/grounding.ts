/**
 * Checks that what a model says is backed by the text it cites: a quote must be found in the text after
 * normalisation (case, spacing, typographic quotes and dashes, compatibility forms), exactly or within a
 * small edit distance relative to its length; every number of an answer must be printed in the texts.
 */
import { distance } from 'fastest-levenshtein';

/** Longest quote compared character by character (a longer one is checked on its first part only). */
const MAX_QUOTE = 600;

/** Lower case, NFKC, typographic quotes and dashes made plain, spacing collapsed. */
export function normaliseForMatch(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b\u2032\u0060\u00b4]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"')
    .replace(/[\u2010-\u2015\u2212\u2043\ufe58\ufe63\uff0d]/g, '-')
    .replace(/[\u2026]/g, '...')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether `quote` is in `text`: verbatim after normalisation, else some stretch of `text` starting at a
 * word boundary is within `tolerance` × quote length edits (at least one edit) of it. Quotes shorter than
 * 8 characters must match exactly.
 */
export function quoteInText(text: string, quote: string, tolerance = 0.08): boolean {
  const q = normaliseForMatch(quote).slice(0, MAX_QUOTE);
  if (!q) return false;
  const t = normaliseForMatch(text);
  if (t.includes(q)) return true;
  if (q.length < 8) return false;
  // a few slips (a transposed pair, a dropped comma), never a changed word: at most 3 edits
  const allowed = Math.max(1, Math.min(3, Math.floor(q.length * tolerance)));
  if (t.length < q.length - allowed) return false;
  for (let i = 0; i <= t.length; i = t.indexOf(' ', i) + 1 || t.length + 1) {
    if (i + q.length - allowed > t.length) break;
    for (const len of [q.length, q.length - allowed, q.length + allowed]) {
      if (len <= 0 || i + len > t.length + allowed) continue;
      if (distance(q, t.slice(i, i + len)) <= allowed) return true;
    }
    if (i >= t.length) break;
  }
  return false;
}

/**
 * The numbers written with digits in `s`, each as its digits alone without leading zeros, so that
 * "1,250.00", "1 250.00" and "1250.00" read alike, and "06:40" gives "6" and "40".
 */
export function numbersOf(s: string): string[] {
  const out: string[] = [];
  for (const m of s.normalize('NFKC').matchAll(/\d+(?:[.,\u00a0\u202f' ]\d+)*/g)) {
    const digits = m[0].replace(/\D/g, '').replace(/^0+(?=\d)/, '');
    out.push(digits);
  }
  return out;
}

/** The numbers of `answer` that none of `texts` prints (see numbersOf). */
export function unsupportedNumbers(answer: string, texts: string[]): string[] {
  const known = new Set<string>();
  for (const t of texts) {
    for (const n of numbersOf(t)) known.add(n);
    // a number may be written with its parts apart in the source ("06:40" as 06 and 40) or together
    for (const m of t.normalize('NFKC').matchAll(/\d+/g)) known.add(m[0].replace(/^0+(?=\d)/, ''));
  }
  return [...new Set(numbersOf(answer))].filter((n) => !known.has(n));
}
