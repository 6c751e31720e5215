/**
 * An offline, deterministic text embedder: feature hashing of word unigrams, word bigrams and character
 * 3/4-grams into a fixed number of signed buckets, with sublinear term frequency, L2-normalised.
 *
 * Normalisation: Unicode NFKD with combining marks removed (diacritics folded), a few ligatures expanded,
 * lower case; words are runs of letters/digits; English stop words are left out of the word features;
 * words are reduced by a light suffix-stripping stemmer for the word features, while the character n-grams
 * are taken from the unstemmed word (they carry spelling variants, inflections, compounds and typos).
 *
 * Nothing depends on a corpus, so the same text always gives the same vector in every process.
 */

export const DEFAULT_DIMENSION = 384;
export const FEATURE_VERSION = 'v1';

export interface HashEmbedderOptions {
  dimension?: number;
  /** weights of the feature families (defaults measured on the relevance set, see the bench) */
  weights?: Partial<FeatureWeights>;
}

export interface FeatureWeights {
  unigram: number;
  bigram: number;
  char3: number;
  char4: number;
}

export const DEFAULT_WEIGHTS: Readonly<FeatureWeights> = Object.freeze({ unigram: 1, bigram: 0.6, char3: 0.22, char4: 0.3 });

// prettier-ignore
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'am', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'because',
  'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'down',
  'during', 'each', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself',
  'him', 'himself', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'me', 'more', 'most', 'my',
  'myself', 'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our', 'ours', 'ourselves', 'out',
  'over', 'own', 'same', 'she', 'should', 'so', 'some', 'such', 'than', 'that', 'the', 'their', 'theirs', 'them',
  'themselves', 'then', 'there', 'these', 'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up', 'very',
  'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will', 'with', 'would', 'you',
  'your', 'yours', 'yourself', 'yourselves', 'also', 'may', 'might', 'must', 'shall', 'let', 'us', 'via', 'per', 'within',
  'without', 'upon', 'whether', 'yet', 'many', 'much', 'get', 'got', 'i\'m', 'im', 'ive', 'dont', 'cant', 'etc',
]);

const LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ł: 'l', þ: 'th', ı: 'i', 'ﬁ': 'fi', 'ﬂ': 'fl' };
const LIGATURE_RE = /[ßæœøđłþıﬁﬂ]/g;
const WORD_RE = /[\p{L}\p{N}]+/gu;

/** Lower-cased, diacritics folded. */
export function normalizeText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(LIGATURE_RE, (c) => LIGATURES[c] ?? c);
}

/** Words of normalised text (letters/digits runs; one-letter words dropped, digits kept). */
export function words(normalized: string): string[] {
  const out: string[] = [];
  for (const m of normalized.matchAll(WORD_RE)) {
    const w = m[0];
    if (w.length > 1 || (w >= '0' && w <= '9')) out.push(w);
  }
  return out;
}

const VOWEL = /[aeiouy]/;

/** A light English suffix stripper (plural, -ing, -ed, -ly, -ation, -ment, -ness, -ies). */
export function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = s.slice(0, -3) + 'y';
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (s.endsWith('s') && !s.endsWith('ss') && !s.endsWith('us') && !s.endsWith('is')) s = s.slice(0, -1);
  if (s.endsWith('ational') && s.length > 8) s = s.slice(0, -5) + 'e';
  else if (s.endsWith('ation') && s.length > 7) s = s.slice(0, -5) + 'e';
  else if (s.endsWith('ness') && s.length > 6) s = s.slice(0, -4);
  else if (s.endsWith('ment') && s.length > 6) s = s.slice(0, -4);
  else if (s.endsWith('ingly') && s.length > 7) s = s.slice(0, -5);
  else if (s.endsWith('ing') && s.length > 5 && VOWEL.test(s.slice(0, -3))) s = undouble(s.slice(0, -3));
  else if (s.endsWith('edly') && s.length > 6) s = s.slice(0, -4);
  else if (s.endsWith('ed') && s.length > 4 && VOWEL.test(s.slice(0, -2))) s = undouble(s.slice(0, -2));
  else if (s.endsWith('ly') && s.length > 5) s = s.slice(0, -2);
  if (s.endsWith('e') && s.length > 3) s = s.slice(0, -1); // rate/rated/rating → rat, make/making → mak
  return s;
}

function undouble(s: string): string {
  const n = s.length;
  if (n > 3 && s[n - 1] === s[n - 2] && !'lsz'.includes(s[n - 1]!)) return s.slice(0, -1);
  return s;
}

// ---- hashing: 32-bit FNV-1a over UTF-16 code units, finished with a murmur3 mix; family seeds keep n-gram kinds apart

const FNV_PRIME = 0x01000193;
const SEED_UNI = 0x811c9dc5;
const SEED_BI = 0x050c5d1f;
const SEED_CHAR = 0x1b873593;

function fnvString(seed: number, s: string): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class HashEmbedder {
  readonly dimension: number;
  private readonly w: FeatureWeights;

  constructor(options: HashEmbedderOptions = {}) {
    const dim = options.dimension ?? DEFAULT_DIMENSION;
    if (!Number.isInteger(dim) || dim < 16 || dim > 8192) throw new RangeError(`dimension must be an integer from 16 to 8192, got ${dim}`);
    this.dimension = dim;
    this.w = { ...DEFAULT_WEIGHTS, ...(options.weights ?? {}) };
  }

  /** The counted features of a text: mixed 32-bit feature hash → [count, weight]. */
  private features(text: string): Map<number, [number, number]> {
    const feats = new Map<number, [number, number]>();
    const add = (h: number, weight: number) => {
      const k = mix(h);
      const f = feats.get(k);
      if (f) f[0]++;
      else feats.set(k, [1, weight]);
    };
    const { unigram, bigram, char3, char4 } = this.w;
    let prev: string | null = null;
    for (const word of words(normalizeText(text))) {
      if (STOP_WORDS.has(word)) {
        prev = null; // bigrams do not bridge stop words ("terms of payment" → "term", "payment")
        continue;
      }
      const s = stem(word);
      add(fnvString(SEED_UNI, s), unigram);
      if (prev !== null && bigram > 0) add(fnvString(fnvString(SEED_BI, prev) ^ 0x20, s), bigram);
      prev = s;
      if (/^\d+$/.test(word)) continue; // numbers: exact only
      // character 3- and 4-grams of "#word#", incrementally hashed
      const n = word.length + 2;
      for (let i = 0; i + 3 <= n; i++) {
        let h = SEED_CHAR;
        for (let j = i; j < i + 3; j++) h = Math.imul(h ^ charAt(word, j), FNV_PRIME);
        if (char3 > 0) add(h, char3);
        if (i + 4 <= n && char4 > 0) add(Math.imul(h ^ charAt(word, i + 3), FNV_PRIME) ^ 0x5bd1e995, char4);
      }
    }
    return feats;
  }

  /** The unit-length vector of one text (all zeros for a text without words). */
  embed(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    const dim = this.dimension;
    for (const [k, [tf, weight]] of this.features(text)) {
      const value = weight * (1 + Math.log(tf));
      const bucket = k % dim;
      v[bucket]! += (k & 0x80000000) !== 0 ? -value : value;
    }
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += v[i]! * v[i]!;
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < dim; i++) v[i]! *= inv;
    }
    return v;
  }
}

/** code of "#word#" at i (the word padded with a boundary mark on each side) */
function charAt(word: string, i: number): number {
  return i === 0 || i === word.length + 1 ? 35 : word.charCodeAt(i - 1);
}

/** Cosine of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
