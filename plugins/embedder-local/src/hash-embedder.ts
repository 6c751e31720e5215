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

import { STOP_WORDS, foldMarks, letterDigitRuns, stem } from '@quire/text';

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

const NON_ASCII = /[^\x00-\x7f]/;

/** Lower-cased, diacritics folded. */
export function normalizeText(text: string): string {
  // ASCII has nothing to decompose, fold or expand
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return foldMarks(text).toLowerCase().replace(LIGATURE_RE, (c) => LIGATURES[c] ?? c);
}

/** Words of normalised text (letters/digits runs; one-letter words dropped, digits kept). */
export function words(normalized: string): string[] {
  return letterDigitRuns(normalized).filter((w) => w.length > 1 || (w >= '0' && w <= '9'));
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
   * The features of one word, by word (most words of a document come again and again): its stem (for
   * bigrams), and the mixed hashes of its features packed as hash, family, hash, family, … (unigram first,
   * then character 3/4-grams in order). Bounded: cleared when full.
   */
  private readonly wordCache = new Map<string, WordFeatures>();

  private wordFeatures(word: string): WordFeatures {
    let wf = this.wordCache.get(word);
    if (wf) return wf;
    const { char3, char4 } = this.w;
    const s = stem(word);
    const out: number[] = [mix(fnvString(SEED_UNI, s)), 0];
    if (!isDigits(word)) {
      // numbers: exact only; words: character 3- and 4-grams of "#word#", incrementally hashed
      const n = word.length + 2;
      for (let i = 0; i + 3 <= n; i++) {
        let h = SEED_CHAR;
        for (let j = i; j < i + 3; j++) h = Math.imul(h ^ charAt(word, j), FNV_PRIME);
        if (char3 > 0) out.push(mix(h), 2);
        if (i + 4 <= n && char4 > 0) out.push(mix(Math.imul(h ^ charAt(word, i + 3), FNV_PRIME) ^ 0x5bd1e995), 3);
      }
    }
    wf = { stem: s, bigramSeed: fnvString(SEED_BI, s) ^ 0x20, feats: Uint32Array.from(out) };
    if (this.wordCache.size >= WORD_CACHE_SIZE) this.wordCache.clear();
    this.wordCache.set(word, wf);
    return wf;
  }

  /**
   * Counts a text's features into `this.table` (open addressing over mixed feature hashes) and lists them in
   * `this.order` in first-seen order, so that the vector is summed in the same order every time. A
   * feature's family is the one it was first seen with.
   */
  private count(text: string): number {
    const t = this.table;
    let n = 0;
    const add = (k: number, family: number) => {
      let i = (k ^ (k >>> 15)) & t.mask;
      for (;;) {
        const at = t.slot[i]!;
        if (at === 0) {
          if (n === t.order.length) this.grow();
          t.slot[i] = n + 1;
          t.keys[n] = k;
          t.packed[n] = 4 + family;
          t.order[n] = i;
          n++;
          if (n * 2 > t.mask) this.rehash(n);
          return;
        }
        if (t.keys[at - 1] === k) {
          t.packed[at - 1]! += 4;
          return;
        }
        i = (i + 1) & t.mask;
      }
    };
    const { bigram } = this.w;
    let prev: WordFeatures | null = null;
    for (const word of words(normalizeText(text))) {
      if (STOP_WORDS.has(word)) {
        prev = null; // bigrams do not bridge stop words ("terms of payment" → "term", "payment")
        continue;
      }
      const wf = this.wordFeatures(word);
      const f = wf.feats;
      add(f[0]!, 0);
      if (prev !== null && bigram > 0) add(mix(fnvString(prev.bigramSeed, wf.stem)), 1);
      prev = wf;
      for (let i = 2; i < f.length; i += 2) add(f[i]!, f[i + 1]!);
    }
    return n;
  }

  private table = newTable(1024);

  private grow(): void {
    const t = this.table;
    const size = t.keys.length * 2;
    const keys = new Uint32Array(size);
    keys.set(t.keys);
    const packed = new Uint32Array(size);
    packed.set(t.packed);
    const order = new Uint32Array(size);
    order.set(t.order);
    Object.assign(t, { keys, packed, order });
  }

  /** a bigger slot array, the features put back in their first-seen order */
  private rehash(n: number): void {
    const t = this.table;
    const mask = t.slot.length * 4 - 1;
    const slot = new Uint32Array(mask + 1);
    for (let j = 0; j < n; j++) {
      const k = t.keys[j]!;
      let i = (k ^ (k >>> 15)) & mask;
      while (slot[i] !== 0) i = (i + 1) & mask;
      slot[i] = j + 1;
      t.order[j] = i;
    }
    Object.assign(t, { slot, mask });
  }

  /** The unit-length vector of one text (all zeros for a text without words). */
  embed(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    const dim = this.dimension;
    const weights = this.familyWeights;
    const n = this.count(text);
    const t = this.table;
    for (let j = 0; j < n; j++) {
      const k = t.keys[j]!;
      const packed = t.packed[j]!;
      const tf = packed >>> 2;
      const value = weights[packed & 3]! * (tf === 1 ? 1 : 1 + Math.log(tf));
      const bucket = k % dim;
      v[bucket]! += (k & 0x80000000) !== 0 ? -value : value;
      t.slot[t.order[j]!] = 0; // the table is empty again for the next text
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

interface WordFeatures {
  stem: string;
  /** the bigram hash state after this word as the first of a pair */
  bigramSeed: number;
  feats: Uint32Array;
}

const WORD_CACHE_SIZE = 50_000;

interface CountTable {
  /** slot → feature number + 1 (0 = empty) */
  slot: Uint32Array;
  mask: number;
  /** by feature number, in first-seen order: mixed hash, count × 4 + family, slot */
  keys: Uint32Array;
  packed: Uint32Array;
  order: Uint32Array;
}

function newTable(features: number): CountTable {
  return { slot: new Uint32Array(features * 4), mask: features * 4 - 1, keys: new Uint32Array(features), packed: new Uint32Array(features), order: new Uint32Array(features) };
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
