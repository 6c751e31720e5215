import { RankedTopK } from './topk.js';

const K1 = 1.2;
const B = 0.75;
const TF_MAX = 31; // term frequency kept in the low 5 bits of a posting (BM25 saturates long before)
/**
 * Slack on the pruning bounds: a term's bound is raised by 1e-6 (double rounding of the formula) and a
 * document's bound by 1e-5 (its score is a float32 sum, each addition rounded by at most 2^-24 of it).
 */
const TERM_SLACK = 1 + 1e-6;
const DOC_SLACK = 1 + 1e-5;
/** postings per block of a term's frozen list (each block has its own bound: block-max) */
const BLOCK = 64;
const BLOCK_BITS = 6;

/** a term's BM25 contribution to a row of length `len` at average length `avg` (as it has always been computed) */
const weight = (idf: number, tf: number, len: number, avg: number) => (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg));

/** a query term: its idf, its slot, its frozen postings post[from..to) and its recent ones (all after them) */
interface QueryTerm {
  idf: number;
  s: number;
  from: number;
  to: number;
  d: number[] | undefined;
}

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
  /**
   * Per term slot, the largest weight (without idf) of its postings at average length `boundAvg` (NaN: not
   * known, computed at the first search of the term; all forgotten at a rebuild, a restore, or when the
   * average length has grown 2% past `boundAvg`).
   */
  private bound = new Float64Array(0);
  private boundAvg = 0;
  /**
   * Block-max bounds: per block of BLOCK frozen postings of a term (its postings off[s] + BLOCK·b onwards),
   * the largest weight (without idf, raised by TERM_SLACK, float32 rounded up) at `boundAvg`, at
   * blockMax[blockOff[s] + b]; computed with the term's bound (valid while that one is known).
   */
  private blockOff = new Int32Array(1);
  private blockMax = new Float32Array(0);
  /** false: the pruned search uses the terms' bounds only (the reference for the block bounds' figures) */
  blocks = true;
  /** true: every search walks every posting of its terms (the reference the pruned search must match) */
  exhaustive = false;

  get bytes(): number {
    return this.post.byteLength + this.bound.byteLength + this.blockOff.byteLength + this.blockMax.byteLength + this.off.byteLength + this.df.byteLength + this.lens.byteLength + this.acc.byteLength + this.touched.byteLength + this.slots.size * 40 + this.deltaCount * 8;
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
    this.forgetBounds();
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
    this.forgetBounds();
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
      // a known bound takes the new posting in (NaN stays NaN: computed when needed)
      if (s < this.bound.length) this.bound[s] = Math.max(this.bound[s]!, weight(1, Math.min(TF_MAX, b[i + 1]!), this.lens[pos]!, this.boundAvg));
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
    this.forgetBounds();
  }

  /** Forgets every term's bound (recomputed at the next search that needs it, at that search's average length). */
  private forgetBounds(): void {
    this.bound.fill(NaN);
    this.boundAvg = 0;
    const n = this.frozenSlots;
    if (this.blockOff.length !== n + 1) this.blockOff = new Int32Array(n + 1);
    for (let s = 0; s < n; s++) this.blockOff[s + 1] = this.blockOff[s]! + ((this.off[s + 1]! - this.off[s]! + BLOCK - 1) >> BLOCK_BITS);
    if (this.blockMax.length !== this.blockOff[n]) this.blockMax = new Float32Array(this.blockOff[n]!);
  }

  /** Term slot `s`'s bound at average length `boundAvg`, computed from its postings when not known. */
  private termBound(s: number): number {
    // NaN: not known yet
    if (s >= this.bound.length) this.bound = grow(this.bound, Math.max(1024, s + 1), NaN);
    let m = this.bound[s]!;
    if (m === m) return m;
    const post = this.post, lens = this.lens, avg = this.boundAvg;
    m = 0;
    if (s < this.frozenSlots) {
      const from = this.off[s]!, to = this.off[s + 1]!, bo = this.blockOff[s]!;
      for (let a = from; a < to; a += BLOCK) {
        let bm = 0;
        for (let p = a; p < to && p < a + BLOCK; p++) {
          const v = post[p]!;
          const w = weight(1, v & 31, lens[v >>> 5]!, avg);
          if (w > bm) bm = w;
        }
        // float32 rounding moves a value by at most 2^-24 of it: the slack keeps it above bm
        this.blockMax[bo + ((a - from) >> BLOCK_BITS)] = Math.fround(bm * TERM_SLACK);
        if (bm > m) m = bm;
      }
    }
    const d = this.delta[s];
    if (d) for (const v of d) m = Math.max(m, weight(1, v & 31, lens[v >>> 5]!, avg));
    return (this.bound[s] = m);
  }

  /**
   * The k best rows by BM25 for the query term hashes among those `allow` accepts: [{key: position, score}],
   * best first; among equal scores the lower positions, whichever way the postings are read.
   * `runs` (optional: [first, last, first, last, …] positions, ascending), when the filter allows only those
   * rows: a term whose postings are many more than the runs reads only the postings inside them (found by
   * binary search), with the same scores, in the same order, as the full walk.
   * Without `runs`, the search prunes (MaxScore, below) unless `exhaustive` is set; the answer is the same.
   */
  search(terms: number[], k: number, allow: (pos: number) => boolean, runs: Int32Array | null = null): { key: number; score: number }[] {
    const N = this.rows;
    if (!N || !terms.length) return [];
    const lens = this.lens;
    const avg = this.totalLen / N || 1;
    // the query's terms in the order their weights are added (a score is a float32 sum: the order matters)
    const qs: QueryTerm[] = [];
    for (const h of new Set(terms)) {
      const s = this.slots.get(h);
      if (s === undefined) continue;
      const df = this.df[s]!;
      if (!df) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      const frozen = s < this.frozenSlots;
      qs.push({ idf, s, from: frozen ? this.off[s]! : 0, to: frozen ? this.off[s + 1]! : 0, d: this.delta[s] });
    }
    if (!qs.length) return [];
    if (!runs && !this.exhaustive) return this.pruned(qs, k, allow, avg);
    if (this.acc.length < N) {
      this.acc = new Float32Array(Math.ceil(N * 1.25));
      this.touched = new Int32Array(Math.ceil(N * 1.25));
    }
    const acc = this.acc, touched = this.touched;
    let nt = 0;
    const scan = (arr: ArrayLike<number>, from: number, to: number, idf: number) => {
      for (let p = from; p < to; p++) {
        const v = arr[p]!;
        const pos = v >>> 5, tf = v & 31;
        if (acc[pos] === 0) touched[nt++] = pos;
        acc[pos]! += weight(idf, tf, lens[pos]!, avg);
      }
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
    for (const q of qs) {
      walk(this.post, q.from, q.to, q.idf);
      if (q.d) walk(q.d, 0, q.d.length, q.idf);
    }
    const top = new RankedTopK(k);
    for (let i = 0; i < nt; i++) {
      const pos = touched[i]!;
      const sc = acc[pos]!;
      acc[pos] = 0;
      if (top.admits(sc, pos) && allow(pos)) top.push(sc, pos);
    }
    return top.sorted();
  }

  /**
   * MaxScore (Turtle & Flood): the rows in ascending position, each term with an upper bound of its weight.
   * Once k rows are kept, the terms whose bounds add up to at most the k-th score (the smallest first) are
   * "non-essential": a row none of the others contains cannot enter, so only the essential terms' postings
   * are walked, and a non-essential term's postings are looked up (galloping search) for the rows met, while
   * the row's score so far plus the remaining bounds could still beat the k-th. Every row that could enter
   * is scored in full, its weights added in the query's term order as float32, as the exhaustive walk does;
   * rows come in ascending position, so one entering on a tie would have to beat a lower position: none does.
   * With `blocks`, the block bounds narrow both steps: the essential terms' cursors jump over rows their
   * current blocks cannot lift above the k-th, and a non-essential term's block at a row can rule the row
   * out before the term is looked up.
   */
  private pruned(qs: QueryTerm[], k: number, allow: (pos: number) => boolean, avg: number): { key: number; score: number }[] {
    if (!this.boundAvg || avg > this.boundAvg * 1.02) {
      this.forgetBounds();
      this.boundAvg = avg;
    }
    // the bound is the largest weight at boundAvg; at a larger average every weight grows by at most avg / boundAvg
    const stretch = Math.max(1, avg / this.boundAvg);
    const m = qs.length;
    const ub = qs.map((q) => q.idf * this.termBound(q.s) * stretch * TERM_SLACK);
    // t: terms by ascending bound; cum[j]: the bounds of the j smallest added up
    const t = [...qs.keys()].sort((a, b) => ub[a]! - ub[b]!);
    const cum = new Float64Array(m + 1);
    for (let j = 0; j < m; j++) cum[j + 1] = cum[j]! + ub[t[j]!]!;
    const rank = new Int32Array(m); // a term's place in t
    t.forEach((i, j) => (rank[i] = j));
    const idf = t.map((i) => qs[i]!.idf);
    // each term's postings read in place, one ascending list in two parts: the frozen ones, L[j] = post from
    // cur[j] to len[j], then the recent ones (all after them: rest[j], null once read or when none), whose
    // array becomes L[j] when the frozen part is passed
    const L: ArrayLike<number>[] = t.map(() => this.post);
    const cur = Int32Array.from(t, (i) => qs[i]!.from);
    const len = Int32Array.from(t, (i) => qs[i]!.to);
    const rest = t.map((i) => qs[i]!.d ?? null);
    for (let j = 0; j < m; j++) if (cur[j] === len[j] && rest[j]) recent(L, cur, len, rest, j);
    // block bounds (while a term's cursor is in its frozen postings): block b of term j starts at
    // from[j] + BLOCK·b, its bound is blockMax[bo[j] + b] · scale[j]; bo[j] -1: no frozen postings
    const post = this.post, blockMax = this.blockMax, blocks = this.blocks;
    const from = Int32Array.from(t, (i) => qs[i]!.from);
    const bo = Int32Array.from(t, (i) => (qs[i]!.s < this.frozenSlots && blocks ? this.blockOff[qs[i]!.s]! : -1));
    const scale = t.map((i) => qs[i]!.idf * stretch * TERM_SLACK);
    const tub = Float64Array.from(t, (i) => ub[i]!); // the terms' bounds by t
    const w = new Float64Array(m); // this row's weight per term (by t), 0 when absent
    const lens = this.lens;
    const top = new RankedTopK(k);
    let theta = -Infinity; // the k-th score once k rows are kept
    let ne = 0; // the non-essential terms: t[0..ne)
    let eb = 0, ee = -1, ene = -1; // the essential terms' block bound eb, for rows up to ee, at ne = ene
    for (;;) {
      let d = 0x7fffffff;
      for (let j = ne; j < m; j++) if (cur[j]! < len[j]!) d = Math.min(d, L[j]![cur[j]!]! >>> 5);
      if (d === 0x7fffffff) break;
      if (blocks && theta > -Infinity) {
        if (d > ee || ne !== ene) {
          // the essential terms' current blocks: no row up to the first of their ends (ee) can score more
          // than their bounds plus the non-essential terms' bounds (valid while no row past ee is met: a
          // cursor leaving its block is past ee)
          (eb = cum[ne]!), (ee = 0x7fffffff), (ene = ne);
          for (let j = ne; j < m; j++) {
            const c = cur[j]!;
            if (c >= len[j]!) continue;
            if (L[j] === post && bo[j]! >= 0) {
              const b = (c - from[j]!) >> BLOCK_BITS;
              eb += blockMax[bo[j]! + b]! * scale[j]!;
              ee = Math.min(ee, blockLast(post, from[j]!, b, len[j]!) >>> 5);
            } else eb += tub[j]!;
          }
        }
        if (eb * DOC_SLACK <= theta) {
          // no row up to ee can enter: every cursor passes it
          if (ee === 0x7fffffff) break; // only recent postings left, none can enter
          const target = (ee + 1) * 32;
          for (let j = ne; j < m; j++) {
            const c = cur[j]!;
            if (c >= len[j]! || L[j] !== post || bo[j]! < 0) continue;
            cur[j] = gallop(post, c, Math.min(from[j]! + (((c - from[j]!) >> BLOCK_BITS) + 1) * BLOCK, len[j]!), target);
            if (cur[j] === len[j] && rest[j]) recent(L, cur, len, rest, j);
          }
          continue;
        }
      }
      let sum = 0;
      for (let j = ne; j < m; j++) {
        w[j] = 0;
        const c = cur[j]!;
        if (c < len[j]! && L[j]![c]! >>> 5 === d) {
          const v = L[j]![c]!;
          sum += w[j] = weight(idf[j]!, v & 31, lens[d]!, avg);
          cur[j] = c + 1;
          if (c + 1 === len[j] && rest[j]) recent(L, cur, len, rest, j);
        }
      }
      let j = ne - 1;
      for (; j >= 0; j--) {
        w[j] = 0;
        if ((sum + cum[j + 1]!) * DOC_SLACK <= theta) break;
        const target = d * 32;
        let l = L[j]!, c = cur[j]!;
        if (c < len[j]! && l === post && bo[j]! >= 0) {
          // the block that would hold row d (the cursor moves to its start): the row is not in it, or its
          // bound instead of the term's may show that the row cannot enter
          const b = blockAt(post, from[j]!, c, len[j]!, target);
          const a = from[j]! + b * BLOCK;
          if (a < len[j]!) {
            if (a > c) c = cur[j] = a;
            if (post[a]! >>> 5 > d) continue;
            if ((sum + cum[j]! + blockMax[bo[j]! + b]! * scale[j]!) * DOC_SLACK <= theta) break;
          }
        }
        if (c < len[j]! && l[c]! < target) {
          // the frozen part ends before row d: on to the recent postings
          if (rest[j] && l[len[j]! - 1]! < target) {
            recent(L, cur, len, rest, j);
            (l = L[j]!), (c = 0);
          }
          c = cur[j] = gallop(l, c, len[j]!, target);
        }
        if (c < len[j]! && l[c]! >>> 5 === d) {
          const v = l[c]!;
          sum += w[j] = weight(idf[j]!, v & 31, lens[d]!, avg);
          cur[j] = c + 1;
          if (c + 1 === len[j] && rest[j]) recent(L, cur, len, rest, j);
        }
      }
      if (j >= 0) continue; // cannot beat the k-th
      // the score as the exhaustive walk adds it: in the query's term order, float32 after each addition
      let score = 0;
      for (let i = 0; i < m; i++) {
        const x = w[rank[i]!]!;
        if (x) score = Math.fround(score + x);
      }
      if (score > theta && allow(d)) {
        top.push(score, d);
        if (top.full) {
          theta = top.floor;
          while (ne < m && cum[ne + 1]! * DOC_SLACK <= theta) ne++;
        }
      }
    }
    return top.sorted();
  }
}

/** term j of a pruned search passes from its frozen postings to its recent ones */
function recent(L: ArrayLike<number>[], cur: Int32Array, len: Int32Array, rest: (number[] | null)[], j: number): void {
  L[j] = rest[j]!;
  cur[j] = 0;
  len[j] = rest[j]!.length;
  rest[j] = null;
}

/** the first index in [from, to) of an ascending array whose value is at least v (galloping, then binary search) */
function gallop(arr: ArrayLike<number>, from: number, to: number, v: number): number {
  if (from >= to || arr[from]! >= v) return from;
  let step = 1, hi = from + 1;
  while (hi < to && arr[hi]! < v) (from = hi + 1), (hi += step), (step *= 2);
  return lower(arr, from, Math.min(hi, to), v);
}

/**
 * The first block (of BLOCK postings from `from`, counting from the one holding index c) of the ascending
 * postings post[from..len) whose last posting is at least v (galloping over the blocks' last postings);
 * the number of blocks when none is.
 */
function blockAt(post: Int32Array, from: number, c: number, len: number, v: number): number {
  const nb = (len - from + BLOCK - 1) >> BLOCK_BITS;
  let lo = (c - from) >> BLOCK_BITS;
  if (blockLast(post, from, lo, len) >= v) return lo;
  let step = 1, hi = lo + 1;
  while (hi < nb && blockLast(post, from, hi, len) < v) (lo = hi), (hi += step), (step *= 2);
  hi = Math.min(hi, nb);
  // block lo ends below v; block hi does not, or hi = nb
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (blockLast(post, from, mid, len) < v) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** the last posting of block b of the postings post[from..len) */
function blockLast(post: Int32Array, from: number, b: number, len: number): number {
  return post[Math.min(from + (b + 1) * BLOCK, len) - 1]!;
}

/** the first index in [from, to) of an ascending array whose value is at least v */
function lower(arr: ArrayLike<number>, from: number, to: number, v: number): number {
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (arr[mid]! < v) from = mid + 1;
    else to = mid;
  }
  return from;
}

/** `a` in a larger array of its type (at least `min` long), the new places set to `fill` when given. */
function grow<T extends Int32Array | Uint16Array | Float64Array>(a: T, min: number, fill?: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(min, Math.ceil(a.length * 1.5)));
  if (fill !== undefined) b.fill(fill, a.length);
  b.set(a);
  return b;
}
