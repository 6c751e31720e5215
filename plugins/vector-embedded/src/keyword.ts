import { TopK } from './topk.js';

const K1 = 1.2;
const B = 0.75;
const TF_MAX = 31; // term frequency kept in the low 5 bits of a posting (BM25 saturates long before)

/** An index as flat arrays (frozen, no recent postings): term hashes by slot, df, CSR offsets and postings, row lengths. */
export interface KeywordState {
  hashes: Uint32Array<ArrayBuffer>;
  df: Int32Array<ArrayBuffer>;
  off: Int32Array<ArrayBuffer>;
  post: Int32Array<ArrayBuffer>;
  lens: Uint16Array<ArrayBuffer>;
  rows: number;
  totalLen: number;
}

/**
 * An in-memory inverted index over row positions with Okapi BM25 scoring (k1 1.2, b 0.75).
 * Postings (position << 5 | tf) live in one frozen CSR array plus small per-term lists of rows added since
 * (merged in when they grow). Statistics count deleted rows until compaction renumbers the positions.
 * Positions must stay below 2^26 (67M rows per space).
 */
export class KeywordIndex {
  private readonly slots = new Map<number, number>();
  private df = new Int32Array(1024);
  private off = new Int32Array(1);
  private post = new Int32Array(0);
  private frozenSlots = 0;
  private delta: number[][] = [];
  private deltaCount = 0;
  private lens = new Uint16Array(1024);
  private acc = new Float32Array(0);
  private touched = new Int32Array(0);
  rows = 0;
  private totalLen = 0;

  get bytes(): number {
    return this.post.byteLength + this.off.byteLength + this.df.byteLength + this.lens.byteLength + this.acc.byteLength + this.touched.byteLength + this.slots.size * 40 + this.deltaCount * 8;
  }

  private slot(h: number): number {
    let s = this.slots.get(h);
    if (s === undefined) {
      s = this.slots.size;
      this.slots.set(h, s);
      if (s >= this.df.length) this.df = grow(this.df, s + 1);
    }
    return s;
  }

  private setLen(pos: number, len: number) {
    if (pos >= this.lens.length) this.lens = grow(this.lens, pos + 1);
    this.lens[pos] = Math.min(65535, len);
    this.totalLen += len;
  }

  /** Builds the index of rows 0..blobs.length-1 at once (on an empty index). Blob: [length, hash, tf, …]. */
  build(blobs: (Uint32Array | null)[]): void {
    for (const b of blobs) if (b) for (let i = 1; i < b.length; i += 2) this.df[this.slot(b[i]!)]!++;
    const n = this.slots.size;
    const off = new Int32Array(n + 1);
    for (let s = 0; s < n; s++) off[s + 1] = off[s]! + this.df[s]!;
    const post = new Int32Array(off[n]!);
    const fill = off.slice(0, n);
    blobs.forEach((b, pos) => {
      this.setLen(pos, b ? b[0]! : 0);
      if (b) for (let i = 1; i < b.length; i += 2) post[fill[this.slots.get(b[i]!)!]!++] = pos * 32 + Math.min(TF_MAX, b[i + 1]!);
    });
    this.off = off;
    this.post = post;
    this.frozenSlots = n;
    this.rows = blobs.length;
  }

  /** The index as flat arrays (views; the recent postings are merged in first). */
  state(): KeywordState {
    if (this.deltaCount) this.rebuild(null);
    const n = this.slots.size;
    return { hashes: Uint32Array.from(this.slots.keys()), df: this.df.subarray(0, n), off: this.off, post: this.post, lens: this.lens.subarray(0, this.rows), rows: this.rows, totalLen: this.totalLen };
  }

  /** Takes `s` as this (empty) index's content; its arrays are kept, not copied. */
  restore(s: KeywordState): void {
    const h = s.hashes;
    for (let i = 0; i < h.length; i++) this.slots.set(h[i]!, i);
    this.df = s.df.length >= 1024 ? s.df : grow(s.df, 1024);
    this.off = s.off;
    this.post = s.post;
    this.frozenSlots = h.length;
    this.lens = s.lens.length >= 1024 ? s.lens : grow(s.lens, 1024);
    this.rows = s.rows;
    this.totalLen = s.totalLen;
  }

  /** Adds row `pos` (after every earlier position). */
  add(pos: number, b: Uint32Array | null): void {
    this.setLen(pos, b ? b[0]! : 0);
    this.rows = Math.max(this.rows, pos + 1);
    if (!b) return;
    for (let i = 1; i < b.length; i += 2) {
      const s = this.slot(b[i]!);
      this.df[s]!++;
      (this.delta[s] ??= []).push(pos * 32 + Math.min(TF_MAX, b[i + 1]!));
      this.deltaCount++;
    }
    if (this.deltaCount > Math.max(50_000, this.post.length / 4)) this.rebuild(null);
  }

  /**
   * Merges the recent postings into the frozen array; with `map` (old position → new, -1 for dropped rows)
   * also renumbers positions and recounts the statistics.
   */
  rebuild(map: Int32Array | null, rows = this.rows): void {
    const n = this.slots.size;
    const remap = (v: number) => {
      if (!map) return v;
      const p = map[v >>> 5]!;
      return p < 0 ? -1 : p * 32 + (v & 31);
    };
    const counts = new Int32Array(n);
    const each = (fn: (s: number, v: number) => void) => {
      for (let s = 0; s < n; s++) {
        if (s < this.frozenSlots) for (let p = this.off[s]!; p < this.off[s + 1]!; p++) fn(s, this.post[p]!);
        const d = this.delta[s];
        if (d) for (const v of d) fn(s, v);
      }
    };
    each((s, v) => {
      if (remap(v) >= 0) counts[s]!++;
    });
    const off = new Int32Array(n + 1);
    for (let s = 0; s < n; s++) off[s + 1] = off[s]! + counts[s]!;
    const post = new Int32Array(off[n]!);
    const fill = off.slice(0, n);
    each((s, v) => {
      const r = remap(v);
      if (r >= 0) post[fill[s]!++] = r;
    });
    if (map) {
      const lens = new Uint16Array(Math.max(1024, rows));
      let total = 0;
      for (let old = 0; old < map.length && old < this.lens.length; old++) {
        const p = map[old]!;
        if (p >= 0) {
          lens[p] = this.lens[old]!;
          total += this.lens[old]!;
        }
      }
      this.lens = lens;
      this.totalLen = total;
      this.rows = rows;
      this.df = counts.length >= 1024 ? counts : grow(counts, 1024);
    }
    this.off = off;
    this.post = post;
    this.frozenSlots = n;
    this.delta = [];
    this.deltaCount = 0;
  }

  /**
   * The k best rows by BM25 for the query term hashes among those `allow` accepts: [{key: position, score}].
   * `runs` (optional: [first, last, first, last, …] positions, ascending), when the filter allows only those
   * rows: a term whose postings are many more than the runs reads only the postings inside them (found by
   * binary search), with the same scores, in the same order, as the full walk.
   */
  search(terms: number[], k: number, allow: (pos: number) => boolean, runs: Int32Array | null = null): { key: number; score: number }[] {
    const N = this.rows;
    if (!N || !terms.length) return [];
    if (this.acc.length < N) {
      this.acc = new Float32Array(Math.ceil(N * 1.25));
      this.touched = new Int32Array(Math.ceil(N * 1.25));
    }
    const acc = this.acc, touched = this.touched, lens = this.lens;
    const avg = this.totalLen / N || 1;
    let nt = 0;
    const scan = (arr: ArrayLike<number>, from: number, to: number, idf: number) => {
      for (let p = from; p < to; p++) {
        const v = arr[p]!;
        const pos = v >>> 5, tf = v & 31;
        if (acc[pos] === 0) touched[nt++] = pos;
        acc[pos]! += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lens[pos]!) / avg));
      }
    };
    // postings are ascending by position: the ones of positions [a, b] are a slice found by binary search
    const lower = (arr: ArrayLike<number>, from: number, to: number, v: number) => {
      while (from < to) {
        const mid = (from + to) >>> 1;
        if (arr[mid]! < v) from = mid + 1;
        else to = mid;
      }
      return from;
    };
    const walk = (arr: ArrayLike<number>, from: number, to: number, idf: number) => {
      if (!runs || (runs.length / 2) * Math.log2(to - from + 2) * 2 > to - from) return scan(arr, from, to, idf);
      for (let r = 0; r < runs.length && from < to; r += 2) {
        const a = lower(arr, from, to, runs[r]! * 32);
        const b = lower(arr, a, to, (runs[r + 1]! + 1) * 32);
        scan(arr, a, b, idf);
        from = b;
      }
    };
    for (const h of new Set(terms)) {
      const s = this.slots.get(h);
      if (s === undefined) continue;
      const df = this.df[s]!;
      if (!df) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      if (s < this.frozenSlots) walk(this.post, this.off[s]!, this.off[s + 1]!, idf);
      const d = this.delta[s];
      if (d) walk(d, 0, d.length, idf);
    }
    const top = new TopK(k);
    for (let i = 0; i < nt; i++) {
      const pos = touched[i]!;
      const sc = acc[pos]!;
      acc[pos] = 0;
      if (sc > top.floor && allow(pos)) top.push(sc, pos);
    }
    return top.sorted();
  }
}

function grow<T extends Int32Array | Uint16Array>(a: T, min: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(min, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}
