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

import { STOP_WORDS, stem } from '@quire/text';

export const DEFAULT_DIMENSION = 384;
/** Version of the features (part of the vector space id): bump it when they change, @quire/text's STOP_WORDS and stem included. */
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
  /** the weights by family index (0 unigram, 1 bigram, 2 char 3-gram, 3 char 4-gram), as features() packs it */
  private readonly familyWeights: readonly number[];

  constructor(options: HashEmbedderOptions = {}) {
    const dim = options.dimension ?? DEFAULT_DIMENSION;
    if (!Number.isInteger(dim) || dim < 16 || dim > 8192) throw new RangeError(`dimension must be an integer from 16 to 8192, got ${dim}`);
    this.dimension = dim;
    this.w = { ...DEFAULT_WEIGHTS, ...(options.weights ?? {}) };
    this.familyWeights = [this.w.unigram, this.w.bigram, this.w.char3, this.w.char4];
  }

  /**
   * The counted features of a text: mixed 32-bit feature hash → count × 4 + family (0 unigram, 1 bigram,
   * 2 char 3-gram, 3 char 4-gram; a hash's first family wins). One number a feature: no object per feature.
   */
  private features(text: string): Map<number, number> {
    const feats = new Map<number, number>();
    const add = (h: number, family: number) => {
      const k = mix(h);
      const f = feats.get(k);
      feats.set(k, f === undefined ? 4 + family : f + 4);
    };
    const { bigram, char3, char4 } = this.w;
    let prev: string | null = null;
    for (const word of words(normalizeText(text))) {
      if (STOP_WORDS.has(word)) {
        prev = null; // bigrams do not bridge stop words ("terms of payment" → "term", "payment")
        continue;
      }
      const s = stem(word);
      add(fnvString(SEED_UNI, s), 0);
      if (prev !== null && bigram > 0) add(fnvString(fnvString(SEED_BI, prev) ^ 0x20, s), 1);
      prev = s;
      if (isDigits(word)) continue; // numbers: exact only
      // character 3- and 4-grams of "#word#", incrementally hashed
      const n = word.length + 2;
      for (let i = 0; i + 3 <= n; i++) {
        let h = SEED_CHAR;
        for (let j = i; j < i + 3; j++) h = Math.imul(h ^ charAt(word, j), FNV_PRIME);
        if (char3 > 0) add(h, 2);
        if (i + 4 <= n && char4 > 0) add(Math.imul(h ^ charAt(word, i + 3), FNV_PRIME) ^ 0x5bd1e995, 3);
      }
    }
    return feats;
  }

  /** The unit-length vector of one text (all zeros for a text without words). */
  embed(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    const dim = this.dimension;
    const weights = this.familyWeights;
    for (const [k, packed] of this.features(text)) {
      const tf = packed >>> 2;
      const value = weights[packed & 3]! * (1 + Math.log(tf));
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

/** only ASCII digits */
function isDigits(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return word.length > 0;
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
