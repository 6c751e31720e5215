import type { VectorFilter } from '@quire/core';
import { VectorMatrix } from './kernel.js';
import type { Layout, Precision } from './kernel.js';
import { KeywordIndex } from './keyword.js';
import type { KeywordState } from './keyword.js';
import { TopK } from './topk.js';
import type { AnnIndex } from './ann.js';

/** Strings (document, user, organization ids) as small integers. */
export class Interner {
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) this.ids.set(s, (i = this.ids.size));
    return i;
  }
  get(s: string): number | undefined {
    return this.ids.get(s);
  }
  /** the strings in id order */
  list(): string[] {
    return [...this.ids.keys()];
  }
}

/** A row as loaded from the database. */
export interface CacheRow {
  rowid: number;
  documentId: string;
  userId: string;
  organizationId: string | null;
  vector: ArrayLike<number>;
  /** the stored text analysis [length, hash, tf, …] */
  terms: Uint32Array | null;
}

/**
 * Everything a cache holds, as flat arrays (positions 0..n-1, all live): what a snapshot stores. Vector rows
 * are the matrix's own bytes (int8 or f32 rows of `rowBytes`, or int8 blocks in the `columns` layout) and
 * their int8 scales.
 */
export interface CacheState {
  n: number;
  maxRowid: number;
  tombSeq: number;
  layout: Layout;
  rowBytes: number;
  rows: Uint8Array<ArrayBuffer>;
  scales: Float32Array<ArrayBuffer>;
  rowids: Float64Array<ArrayBuffer>;
  doc: Int32Array<ArrayBuffer>;
  user: Int32Array<ArrayBuffer>;
  org: Int32Array<ArrayBuffer>;
  /** interned strings, by id */
  strings: string[];
  keywords: KeywordState;
}

/** A filter compiled against the cache: which positions to scan and which to accept. */
interface Compiled {
  allow: (pos: number) => boolean;
  /** position lists covering every allowed row, or null for all rows */
  lists: number[][] | null;
}

/**
 * The in-memory index of one space, kept in step with the database: vectors (for cosine) and an inverted
 * index (for BM25). Rows are appended in rowid order; deleted rows are marked dead and compacted away later.
 * Positions of each document, user and organization are indexed so filtered searches scan only their rows.
 */
export class SpaceCache {
  readonly matrix: VectorMatrix;
  readonly keywords = new KeywordIndex();
  private readonly strings = new Interner();
  n = 0;
  dead = 0;
  /** highest rowid and tombstone sequence applied */
  maxRowid = 0;
  tombSeq = 0;
  /** by position; ascending (rows are appended in rowid order and compaction keeps it): a rowid's position is found by binary search */
  private rowids = new Float64Array(0);
  private doc = new Int32Array(0);
  private user = new Int32Array(0);
  private org = new Int32Array(0);
  private alive = new Uint8Array(0);
  private docRows = new Map<number, number[]>();
  private userRows = new Map<number, number[]>();
  private orgRows = new Map<number, number[]>();
  /** the approximate index of the live rows (keyed by rowid), once attached; kept in step by addRows and remove */
  ann: AnnIndex | null = null;
  /** the state (`maxRowid-tombSeq`) of the snapshot this cache was loaded from or last wrote */
  snapshotState: string | null = null;

  constructor(readonly space: string, readonly dimension: number, precision: Precision, simd = true, layout: Layout = 'columns') {
    this.matrix = new VectorMatrix(dimension, precision, undefined, simd, layout);
  }

  get live(): number {
    return this.n - this.dead;
  }

  /** Approximate bytes held by this cache (vectors, keyword index, row facts; ~24 a row for the owner and document position lists). */
  get bytes(): number {
    return this.matrix.bytes + this.keywords.bytes + this.rowids.byteLength + this.doc.byteLength * 3 + this.alive.byteLength + this.n * 24;
  }

  private grow(rows: number) {
    if (rows <= this.rowids.length) return;
    const cap = Math.max(rows, Math.ceil(this.rowids.length * 1.5), 1024);
    const g = <T extends Float64Array | Int32Array | Uint8Array>(a: T, C: new (n: number) => T): T => {
      const b = new C(cap);
      b.set(a);
      return b;
    };
    this.rowids = g(this.rowids, Float64Array);
    this.doc = g(this.doc, Int32Array);
    this.user = g(this.user, Int32Array);
    this.org = g(this.org, Int32Array);
    this.alive = g(this.alive, Uint8Array);
    this.matrix.reserve(cap);
  }

  private pending: (Uint32Array | null)[] | null = null;

  /**
   * Appends rows (in rowid order). With `bulk` (the first load), the keyword index is built once at
   * finishLoad() instead of row by row.
   */
  addRows(rows: CacheRow[], bulk = false): void {
    if (bulk && this.n === 0 && !this.pending) this.pending = [];
    this.grow(this.n + rows.length);
    const ann = this.ann;
    const annKeys: number[] = [];
    const annVecs = ann ? new Float32Array(rows.length * this.dimension) : null;
    for (const row of rows) {
      // (rows come in rowid order, after every row held: a rowid at or below the highest, live or deleted, would break the
      // ascending order that position() searches)
      if (row.rowid <= this.maxRowid) continue;
      if (annVecs) {
        annVecs.set(row.vector, annKeys.length * this.dimension);
        annKeys.push(row.rowid);
      }
      const pos = this.n++;
      this.matrix.set(pos, row.vector);
      this.rowids[pos] = row.rowid;
      const d = this.strings.id(row.documentId), u = this.strings.id(row.userId);
      const o = row.organizationId === null ? -1 : this.strings.id(row.organizationId);
      this.doc[pos] = d;
      this.user[pos] = u;
      this.org[pos] = o;
      this.alive[pos] = 1;
      push(this.docRows, d, pos);
      push(this.userRows, u, pos);
      if (o >= 0) push(this.orgRows, o, pos);
      this.maxRowid = row.rowid;
      if (this.pending) this.pending.push(row.terms ? Uint32Array.from(row.terms) : null);
      else this.keywords.add(pos, row.terms);
    }
    if (ann && annKeys.length) ann.add(annKeys, annVecs!.subarray(0, annKeys.length * this.dimension));
  }

  /** Whether a row is live in the cache. */
  has(rowid: number): boolean {
    return this.position(rowid) >= 0;
  }

  /** the position of a live row, -1 when it is not in the cache (or deleted) */
  private position(rowid: number): number {
    const ids = this.rowids;
    let lo = 0, hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! < rowid) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.n && ids[lo] === rowid && this.alive[lo] ? lo : -1;
  }

  /** Builds the keyword index of a bulk load. */
  finishLoad(): void {
    if (!this.pending) return;
    this.keywords.build(this.pending);
    this.pending = null;
  }

  remove(rowid: number): void {
    const pos = this.position(rowid);
    if (pos < 0) return;
    this.alive[pos] = 0;
    this.dead++;
    this.ann?.remove(rowid);
  }

  /** Drops dead rows when they are many (a quarter and at least 1024), or any with `force`. */
  maybeCompact(force = false): void {
    if (!this.dead || (!force && (this.dead < 1024 || this.dead < this.n / 4))) return;
    const map = new Int32Array(this.n).fill(-1);
    let w = 0;
    const cols = this.matrix.layout === 'columns';
    this.docRows = new Map();
    this.userRows = new Map();
    this.orgRows = new Map();
    for (let r = 0; r < this.n; r++) {
      if (!this.alive[r]) continue;
      map[r] = w;
      if (w !== r) {
        if (!cols) this.matrix.move(r, w);
        this.rowids[w] = this.rowids[r]!;
        this.doc[w] = this.doc[r]!;
        this.user[w] = this.user[r]!;
        this.org[w] = this.org[r]!;
        this.alive[w] = 1;
      }
      push(this.docRows, this.doc[w]!, w);
      push(this.userRows, this.user[w]!, w);
      if (this.org[w]! >= 0) push(this.orgRows, this.org[w]!, w);
      w++;
    }
    this.alive.fill(0, w, this.n);
    // (the columns layout moves its rows dimension by dimension: one pass over each column)
    if (cols) this.matrix.compact(map, this.n);
    this.keywords.rebuild(map, w);
    this.n = w;
    this.dead = 0;
  }

  /**
   * The cache as flat arrays (views, valid until the next change), dead rows compacted away first: the
   * same rows, positions and keyword statistics a load of its state from the database would give.
   */
  state(): CacheState {
    this.maybeCompact(true);
    const n = this.n;
    const raw = this.matrix.raw(n);
    // only the ids of live rows (a deleted document's id is not written), numbered as a load would intern them
    const all = this.strings.list();
    const renum = new Int32Array(all.length).fill(-1);
    const strings: string[] = [];
    const id = (old: number) => (old < 0 ? -1 : renum[old]! >= 0 ? renum[old]! : (strings.push(all[old]!), (renum[old] = strings.length - 1)));
    const doc = new Int32Array(n), user = new Int32Array(n), org = new Int32Array(n);
    for (let pos = 0; pos < n; pos++) {
      doc[pos] = id(this.doc[pos]!);
      user[pos] = id(this.user[pos]!);
      org[pos] = id(this.org[pos]!);
    }
    return {
      n, maxRowid: this.maxRowid, tombSeq: this.tombSeq, layout: this.matrix.layout, rowBytes: this.matrix.rowBytes, rows: raw.rows, scales: raw.scales,
      rowids: this.rowids.subarray(0, n), doc, user, org, strings, keywords: this.keywords.state(),
    };
  }

  /**
   * Takes `s` (from a snapshot) as this empty cache's content, ready for the rows and tombstones after its
   * state; its rows may already be in the matrix (read into `matrix.rowsView`).
   */
  restore(s: CacheState): void {
    const c = this;
    const n = s.n;
    c.grow(n);
    c.matrix.setRaw(n, s.rows, s.scales);
    c.rowids.set(s.rowids);
    c.doc.set(s.doc);
    c.user.set(s.user);
    c.org.set(s.org);
    c.alive.fill(1, 0, n);
    for (const str of s.strings) c.strings.id(str);
    for (let pos = 0; pos < n; pos++) {
      push(c.docRows, s.doc[pos]!, pos);
      push(c.userRows, s.user[pos]!, pos);
      if (s.org[pos]! >= 0) push(c.orgRows, s.org[pos]!, pos);
    }
    c.keywords.restore(s.keywords);
    c.n = n;
    c.maxRowid = s.maxRowid;
    c.tombSeq = s.tombSeq;
  }

  /** The filter against this cache's rows; null when no row can match. */
  private compile(filter: VectorFilter): Compiled | null {
    const docs = filter.documentIds ? new Set(filter.documentIds.map((d) => this.strings.get(d)).filter((d): d is number => d !== undefined)) : null;
    if (docs && docs.size === 0) return null;
    const scoped = filter.userId !== undefined || (filter.organizationIds?.length ?? 0) > 0;
    const user = filter.userId === undefined ? -2 : (this.strings.get(filter.userId) ?? -2);
    const orgs = new Set((filter.organizationIds ?? []).map((o) => this.strings.get(o)).filter((o): o is number => o !== undefined));
    if (scoped && user === -2 && orgs.size === 0) return null;
    const alive = this.alive, doc = this.doc, usr = this.user, org = this.org;
    const allow = (pos: number) => alive[pos] === 1 && (!docs || docs.has(doc[pos]!)) && (!scoped || usr[pos] === user || orgs.has(org[pos]!));
    let lists: number[][] | null = null;
    if (docs) lists = [...docs].map((d) => this.docRows.get(d) ?? []);
    else if (scoped) lists = [this.userRows.get(user) ?? [], ...[...orgs].map((o) => this.orgRows.get(o) ?? [])];
    return { allow, lists };
  }

  /**
   * The `k` best rows for the query vector among the rows the filter allows: [{rowid, score, err}], best
   * first. Scores are cosines, approximate when the matrix is int8: the exact one is within `err`.
   *
   * `prune` (int8 `columns`): the scan reads only the query's heaviest dimensions holding `mass` of its
   * squared norm and keeps the best `candidates` rows by those partial sums; their int8 scores are then
   * completed over the other dimensions and the best `k` of them returned. The scores are those of the full
   * scan; a row is missed only when its partial sum left it out of the candidates. A search over fewer than
   * `minRows` rows (all of them, or those of the filter's lists) is not pruned.
   */
  search(query: ArrayLike<number>, k: number, filter: VectorFilter, prune?: { mass: number; candidates: number; minRows: number }): { rowid: number; score: number; err: number }[] {
    if (!this.live) return [];
    const c = this.compile(filter);
    if (!c) return [];
    const lists = c.lists;
    const total = lists ? lists.reduce((s, l) => s + l.length, 0) : this.n;
    if (!this.matrix.setQuery(query, prune && total >= prune.minRows ? prune.mass : 1)) return [];
    const pruned = this.matrix.pruned;
    const top = new TopK(pruned ? Math.max(k, prune!.candidates) : k);
    const allow = c.allow;
    if (!lists || total > this.n / 2) this.matrix.scanInto(0, this.n, top, allow);
    else {
      const positions = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort((a, b) => a - b);
      // contiguous runs (a document's rows are usually inserted together) go through the kernel at once
      for (let i = 0; i < positions.length; ) {
        let j = i + 1;
        while (j < positions.length && positions[j] === positions[j - 1]! + 1) j++;
        this.matrix.scanInto(positions[i]!, positions[j - 1]! + 1, top, allow);
        i = j;
      }
    }
    let best = top.sorted();
    if (pruned) {
      const full = new TopK(k);
      for (const { key } of best) full.push(this.matrix.exactScore(key), key);
      best = full.sorted();
    }
    return best.map(({ key, score }) => ({ rowid: this.rowids[key]!, score, err: this.matrix.errorBound(key) }));
  }

  /**
   * The `k` best rows for a unit query vector by the ANN index, the filter applied exactly to its
   * candidates (over-fetched by the share of rows the filter allows); null when the exact scan should
   * answer instead: no index attached, a filter allowing fewer than `exactBelow` rows (the scan of those
   * is cheap and exact), or too few allowed rows among the most candidates it fetches.
   */
  annSearch(q: Float32Array, k: number, filter: VectorFilter, exactBelow: number): { rowid: number; score: number }[] | null {
    const ann = this.ann;
    if (!ann || !this.live) return null;
    const c = this.compile(filter);
    if (!c) return [];
    const total = c.lists ? c.lists.reduce((s, l) => s + l.length, 0) : this.live;
    if (total < exactBelow) return null;
    const share = Math.min(1, total / this.live);
    const want = Math.min(k, total);
    for (let fetch = Math.ceil(k / share + (share < 1 ? 2 * k : 0)); ; fetch *= 4) {
      if (fetch > ANN_MAX_FETCH) return null;
      const r = ann.search(q, fetch);
      const out: { rowid: number; score: number }[] = [];
      for (let i = 0; i < r.rowids.length && out.length < k; i++) {
        const pos = this.position(r.rowids[i]!);
        if (pos >= 0 && c.allow(pos)) out.push({ rowid: r.rowids[i]!, score: r.scores[i]! });
      }
      if (out.length >= want) return out;
    }
  }

  /** The `k` best rows by BM25 for the query terms among the rows the filter allows. */
  keywordSearch(terms: number[], k: number, filter: VectorFilter): { rowid: number; score: number }[] {
    if (!this.live || !terms.length) return [];
    const c = this.compile(filter);
    if (!c) return [];
    // a filter allowing few rows: their runs of positions, so that BM25 reads only those rows' postings
    let runs: Int32Array | null = null;
    const total = c.lists ? c.lists.reduce((s, l) => s + l.length, 0) : this.n;
    if (c.lists && total <= this.n / 8) {
      const positions = c.lists.length === 1 ? c.lists[0]! : [...new Set(c.lists.flat())].sort((a, b) => a - b);
      const r: number[] = [];
      for (const p of positions) {
        if (r.length && r[r.length - 1] === p - 1) r[r.length - 1] = p;
        else r.push(p, p);
      }
      runs = Int32Array.from(r);
    }
    return this.keywords.search(terms, k, c.allow, runs).map(({ key, score }) => ({ rowid: this.rowids[key]!, score }));
  }
}

/** the most candidates one ANN search fetches before a filtered search falls back to the exact scan */
const ANN_MAX_FETCH = 8192;

function push(m: Map<number, number[]>, k: number, v: number) {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}
