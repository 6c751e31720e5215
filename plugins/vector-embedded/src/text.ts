/**
 * Text analysis for keyword (BM25) scoring: lower case, diacritics folded, words = letter/digit runs,
 * English stop words dropped, a light suffix-stripping stemmer (both from @quire/text, shared with the local
 * embedder so that keyword and vector sides agree), each term as a 32-bit hash.
 * A chunk's analysis is stored with it (see `termsBlob`) so that loading the index never re-reads text.
 */
import { STOP_WORDS, foldMarks, letterDigitRuns, stem } from '@quire/text';

const LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ł: 'l', þ: 'th', ı: 'i' };
const NON_ASCII = /[^\x00-\x7f]/;

/** The words of a text, normalised (lower case, diacritics folded). */
export function words(text: string): string[] {
  let s = text.toLowerCase();
  if (NON_ASCII.test(s)) s = foldMarks(s).replace(/[ßæœøđłþı]/g, (c) => LIGATURES[c] ?? c);
  return letterDigitRuns(s);
}

/** 32-bit hash of a term (FNV-1a with a final mix). */
export function termHash(t: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** word → its term hash, or -1 for a word that is not a term (most words of a text come again and again) */
const termOfWord = new Map<string, number>();
const TERM_CACHE_SIZE = 50_000;

function termOf(w: string): number {
  let h = termOfWord.get(w);
  if (h === undefined) {
    h = STOP_WORDS.has(w) || (w.length === 1 && !(w >= '0' && w <= '9')) ? -1 : termHash(stem(w));
    if (termOfWord.size >= TERM_CACHE_SIZE) termOfWord.clear();
    termOfWord.set(w, h);
  }
  return h;
}

/** The terms of a text: hash → frequency, and the text's length in terms. */
export function analyze(text: string): { terms: Map<number, number>; length: number } {
  const terms = new Map<number, number>();
  let length = 0;
  for (const w of words(text)) {
    const h = termOf(w);
    if (h < 0) continue;
    terms.set(h, (terms.get(h) ?? 0) + 1);
    length++;
  }
  return { terms, length };
}

/** The distinct term hashes of a query (empty when it has no content words). */
export function queryTerms(text: string): number[] {
  return [...analyze(text).terms.keys()];
}

/** A text's analysis as stored: [length, hash, tf, hash, tf, …] (little-endian u32). */
export function termsBlob(text: string): Buffer {
  const { terms, length } = analyze(text);
  const a = new Uint32Array(1 + terms.size * 2);
  a[0] = length;
  let i = 1;
  for (const [h, tf] of terms) {
    a[i++] = h;
    a[i++] = tf;
  }
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

export function blobTerms(b: Buffer): Uint32Array {
  if (b.byteOffset % 4 === 0) return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  return new Uint32Array(new Uint8Array(b).buffer);
}
