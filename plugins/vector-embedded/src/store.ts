import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { errors, makePrivateSync, mkdirPrivateSync, siblingModule, touchPrivateSync } from '@quire/core';
import { ANN_DEFAULTS, AnnIndex, annFiles, annLoadError, annModule, removeStateFile } from './ann.js';
import type { AnnParams, AnnQuantization } from './ann.js';
import type { Logger, VectorFilter, VectorHit, VectorItem, VectorStorePlugin } from '@quire/core';
import { SpaceCache } from './cache.js';
import { CHECK_THREAD_MIN_BYTES, readSnapshot, removeSnapshot, removeSnapshots, snapshotFiles, writeSnapshot } from './snapshot.js';
import { blobTerms, queryTerms, termsBlob } from './text.js';
import type { Layout, Precision } from './kernel.js';
import type { CacheRow } from './cache.js';

export type Fusion = 'rrf' | 'relative' | 'weighted';

export interface EmbeddedStoreOptions {
  /** how keyword and vector rankings are combined (default 'relative', measured best on the relevance set) */
  fusion?: Fusion;
  /** default weight of the vector side when a query gives none (0 keyword only … 1 vector only) */
  alpha?: number;
  /** in-memory precision of the vector cache: int8 (default, 4x smaller, best candidates rescored exactly) or f32 */
  precision?: Precision;
  /**
   * how int8 rows are laid out in memory: `columns` (default: dimension-major blocks, a query reads only its
   * nonzero dimensions) or `rows` (row-major, every query reads every value); same scores, same results
   */
  layout?: Layout;
  /**
   * int8 `columns`: the scan reads only the query's heaviest dimensions holding this share of its squared
   * norm, keeps the best `pruneCandidates` rows by those partial sums and completes their int8 scores before
   * the exact rescoring; 1 reads every nonzero dimension (the exact scan). Filters stay exact.
   */
  pruneMass?: number;
  /** how many rows the pruned scan keeps for completion (`pruneMass` < 1) */
  pruneCandidates?: number;
  /**
   * a search whose rows to scan (all rows, or those of its filter's owner and document lists) are fewer than
   * this stays exact: the scan of a small collection costs little, and its answers do not depend on the pruning
   */
  pruneMinRows?: number;
  /** the k of reciprocal rank fusion */
  rrfK?: number;
  /** how long a writer waits for another process's write lock */
  busyTimeoutMs?: number;
  /** false: scan without the WebAssembly SIMD kernel (QUIRE_VECTOR_NO_SIMD=1) */
  simd?: boolean;
  /** false: no approximate index, every vector search is the exact scan */
  ann?: boolean;
  /** a space gets an ANN index from this many rows, and a filter allowing fewer rows is answered by the exact scan */
  annThreshold?: number;
  /** how the ANN graph stores vectors (f16 default: half the memory of f32; candidates are rescored exactly) */
  annQuantization?: AnnQuantization;
  /** the ANN graph's degree (M) */
  annConnectivity?: number;
  /** the ANN search's candidate list (ef) */
  annExpansion?: number;
  /**
   * false: the keyword side walks every posting of the query's terms (the reference); default true, an
   * unfiltered search skips the rows that cannot enter the top (MaxScore) with the same answer
   */
  keywordPruning?: boolean;
  /** false: no snapshots of the in-memory cache (every first search of a space reads its rows from SQLite) */
  snapshot?: boolean;
  /** a space's cache is snapshotted from this many rows (smaller ones load from SQLite quickly) */
  snapshotMinRows?: number;
  /** a snapshot file of this many bytes or more is checked (CRC-32) by a second thread while it is read */
  snapshotCheckThreadMinBytes?: number;
  logger?: Logger;
}

export const DEFAULTS = {
  fusion: 'relative' as Fusion,
  alpha: 0.5,
  precision: 'int8' as Precision,
  layout: 'columns' as Layout,
  pruneMass: 0.85,
  pruneCandidates: 400,
  pruneMinRows: 100_000,
  rrfK: 60,
  busyTimeoutMs: 15_000,
  simd: true,
  // opt-in: the graph's recall@10 against the exact scan is 0.85–0.89 (docs/search-scale.md), so a default
  // search stays exact
  ann: false,
  annThreshold: 20_000,
  annQuantization: ANN_DEFAULTS.quantization,
  annConnectivity: ANN_DEFAULTS.connectivity,
  annExpansion: ANN_DEFAULTS.expansionSearch,
  snapshot: true,
  snapshotMinRows: 10_000,
  snapshotCheckThreadMinBytes: CHECK_THREAD_MIN_BYTES,
};
const SCHEMA_VERSION = '1';
/** tombstones kept for other processes to catch up with deletions; a cache further behind reloads */
const TOMBSTONE_KEEP = 200_000;
/** with the ANN index, how many of the keyword side's best rows join the vector candidates */
const ANN_KEYWORD_CANDIDATES = 200;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS spaces (space TEXT PRIMARY KEY, dimension INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (
  rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  space TEXT NOT NULL,
  id TEXT NOT NULL,
  document_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  organization_id TEXT,
  page INTEGER NOT NULL,
  text TEXT NOT NULL,
  metadata TEXT,
  vector BLOB NOT NULL,
  terms BLOB NOT NULL,
  UNIQUE (space, id)
);
CREATE INDEX IF NOT EXISTS vectors_space ON vectors (space);
CREATE INDEX IF NOT EXISTS vectors_document ON vectors (document_id);
CREATE TABLE IF NOT EXISTS tombstones (seq INTEGER PRIMARY KEY AUTOINCREMENT, space TEXT NOT NULL, row INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS vectors_ad AFTER DELETE ON vectors BEGIN
  INSERT INTO tombstones (space, row) VALUES (old.space, old.rowid);
END;
CREATE TRIGGER IF NOT EXISTS vectors_au BEFORE UPDATE ON vectors BEGIN
  SELECT RAISE(ABORT, 'vectors rows are immutable: delete and insert');
END;
`;

interface Scored {
  rowid: number;
  score: number;
}

/** Combines a vector ranking and a keyword ranking (best first, raw scores) into scores in 0..1. */
export function fuse(vec: Scored[], kw: Scored[], alpha: number, method: Fusion, rrfK = 60): Scored[] {
  const out = new Map<number, number>();
  const addAll = (list: Scored[], weight: number, norm: (s: Scored, rank: number) => number) => {
    if (weight <= 0) return;
    list.forEach((s, i) => out.set(s.rowid, (out.get(s.rowid) ?? 0) + weight * norm(s, i)));
  };
  if (method === 'rrf') {
    const top = 1 / (rrfK + 1);
    const rr = (_: Scored, rank: number) => 1 / (rrfK + rank + 1) / top;
    addAll(vec, alpha, rr);
    addAll(kw, 1 - alpha, rr);
  } else if (method === 'relative') {
    // min-max normalisation of each list (Weaviate's relativeScoreFusion)
    const mm = (list: Scored[]) => {
      const max = list[0]?.score ?? 0, min = list[list.length - 1]?.score ?? 0;
      return (s: Scored) => (max > min ? (s.score - min) / (max - min) : 1);
    };
    addAll(vec, alpha, mm(vec));
    addAll(kw, 1 - alpha, mm(kw));
  } else {
    // cosine as is, keyword relative to the best keyword score
    const kmax = kw[0]?.score ?? 0;
    addAll(vec, alpha, (s) => clamp01(s.score));
    addAll(kw, 1 - alpha, (s) => (kmax > 0 ? s.score / kmax : 0));
  }
  return [...out.entries()].map(([rowid, score]) => ({ rowid, score: clamp01(score) })).sort((a, b) => b.score - a.score || a.rowid - b.rowid);
}

const clamp01 = (x: number) => (x > 1 ? 1 : x > 0 ? x : 0);

function toVector(v: unknown, what: string): Float32Array {
  if (v instanceof Float32Array) return v;
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Float32Array.from(v as ArrayLike<number>);
  throw errors.validation(`${what} must be a Float32Array`);
}

function unitBlob(v: Float32Array): Buffer {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  const u = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) u[i] = v[i]! * inv;
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

function blobVector(b: Buffer): Float32Array {
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  return new Float32Array(new Uint8Array(b).buffer);
}

/**
 * The embedded vector store: one SQLite database (WAL) under the data dir holds the chunks, their vectors
 * and their analysed terms; every process that searches keeps, per space, an in-memory matrix (cosine) and
 * inverted index (BM25), and catches up with other processes' writes (new rows by rowid, deletions by
 * tombstones) before each search.
 */
export class EmbeddedVectorStore implements VectorStorePlugin {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly opts: Required<Omit<EmbeddedStoreOptions, 'logger'>>;
  private readonly logger?: Logger;
  private readonly caches = new Map<string, SpaceCache>();
  private dataVersion = -1;
  private dirty = false;
  private closed = false;
  private readonly stmt: Record<string, Database.Statement>;
  private readonly dynamic = new Map<string, Database.Statement>();
  readonly annDir: string;
  /** snapshots of the in-memory caches (snapshot.ts) */
  readonly snapDir: string;
  private readonly annParams: AnnParams;
  /** background builds of ANN indexes, by space */
  private readonly building = new Map<string, { worker: Worker; done: Promise<void> }>();

  constructor(dir: string, options: EmbeddedStoreOptions = {}) {
    this.opts = {
      fusion: options.fusion ?? DEFAULTS.fusion,
      alpha: options.alpha ?? DEFAULTS.alpha,
      precision: options.precision ?? DEFAULTS.precision,
      layout: options.layout ?? DEFAULTS.layout,
      pruneMass: options.pruneMass ?? DEFAULTS.pruneMass,
      pruneCandidates: options.pruneCandidates ?? DEFAULTS.pruneCandidates,
      pruneMinRows: options.pruneMinRows ?? DEFAULTS.pruneMinRows,
      rrfK: options.rrfK ?? DEFAULTS.rrfK,
      busyTimeoutMs: options.busyTimeoutMs ?? DEFAULTS.busyTimeoutMs,
      simd: options.simd ?? DEFAULTS.simd,
      ann: options.ann ?? DEFAULTS.ann,
      annThreshold: options.annThreshold ?? DEFAULTS.annThreshold,
      annQuantization: options.annQuantization ?? DEFAULTS.annQuantization,
      annConnectivity: options.annConnectivity ?? DEFAULTS.annConnectivity,
      annExpansion: options.annExpansion ?? DEFAULTS.annExpansion,
      snapshot: options.snapshot ?? DEFAULTS.snapshot,
      snapshotMinRows: options.snapshotMinRows ?? DEFAULTS.snapshotMinRows,
      snapshotCheckThreadMinBytes: options.snapshotCheckThreadMinBytes ?? DEFAULTS.snapshotCheckThreadMinBytes,
      keywordPruning: options.keywordPruning ?? true,
    };
    if (!['f32', 'f16', 'i8'].includes(this.opts.annQuantization)) throw errors.validation('vector store embedded: annQuantization must be f32, f16 or i8', { option: 'annQuantization' });
    if (!(Number.isInteger(this.opts.annThreshold) && this.opts.annThreshold >= 1)) throw errors.validation('vector store embedded: annThreshold must be a positive integer', { option: 'annThreshold' });
    this.annParams = { ...ANN_DEFAULTS, quantization: this.opts.annQuantization, connectivity: this.opts.annConnectivity, expansionSearch: this.opts.annExpansion };
    if (!['rrf', 'relative', 'weighted'].includes(this.opts.fusion)) throw errors.validation(`vector store embedded: fusion must be rrf, relative or weighted`, { option: 'fusion' });
    if (!(this.opts.alpha >= 0 && this.opts.alpha <= 1)) throw errors.validation('vector store embedded: alpha must be from 0 to 1', { option: 'alpha' });
    if (!['int8', 'f32'].includes(this.opts.precision)) throw errors.validation('vector store embedded: precision must be int8 or f32', { option: 'precision' });
    if (!['columns', 'rows'].includes(this.opts.layout)) throw errors.validation('vector store embedded: layout must be columns or rows', { option: 'layout' });
    if (!(this.opts.pruneMass > 0 && this.opts.pruneMass <= 1)) throw errors.validation('vector store embedded: pruneMass must be above 0 and at most 1', { option: 'pruneMass' });
    if (!(Number.isInteger(this.opts.pruneCandidates) && this.opts.pruneCandidates >= 1)) throw errors.validation('vector store embedded: pruneCandidates must be a positive integer', { option: 'pruneCandidates' });
    if (!(Number.isInteger(this.opts.pruneMinRows) && this.opts.pruneMinRows >= 0)) throw errors.validation('vector store embedded: pruneMinRows must be a whole number of rows', { option: 'pruneMinRows' });
    this.logger = options.logger;
    mkdirPrivateSync(dir);
    this.file = path.join(dir, 'vectors.db');
    this.annDir = path.join(dir, 'ann');
    this.snapDir = path.join(dir, 'cache');
    // 0600 before SQLite opens it; its -wal and -shm files take its mode
    touchPrivateSync(this.file);
    makePrivateSync(this.file, `${this.file}-wal`, `${this.file}-shm`);
    this.db = new Database(this.file, { timeout: this.opts.busyTimeoutMs });
    // rows are ~2.5 KB (vector, terms, text): 16 KB pages hold six, where 4 KB pages would hold one
    this.db.pragma('page_size = 16384');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // deleted rows (their text) are overwritten with zeros, not left in free pages
    this.db.pragma('secure_delete = ON');
    this.db.transaction(() => {
      this.db.exec(SCHEMA);
      const v = this.db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get() as string | undefined;
      if (v === undefined) this.db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?), ('tombstones_pruned', '0')`).run(SCHEMA_VERSION);
      else if (v !== SCHEMA_VERSION) throw errors.unavailable(`vector index ${this.file} has schema version ${v}; this Quire reads version ${SCHEMA_VERSION}`);
    }).immediate();
    const p = (sql: string) => this.db.prepare(sql);
    this.stmt = {
      spaceDim: p(`SELECT dimension FROM spaces WHERE space = ?`).pluck(),
      addSpace: p(`INSERT OR IGNORE INTO spaces (space, dimension) VALUES (?, ?)`),
      del: p(`DELETE FROM vectors WHERE space = ? AND id = ?`),
      ins: p(`INSERT INTO vectors (space, id, document_id, user_id, organization_id, page, text, metadata, vector, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      delDoc: p(`DELETE FROM vectors WHERE document_id = ?`),
      count: p(`SELECT count(*) FROM vectors WHERE space = ?`).pluck(),
      rowsAfter: p(`SELECT rowid, document_id, user_id, organization_id, vector, terms FROM vectors WHERE space = ? AND rowid > ? ORDER BY rowid`).raw(),
      tombsAfter: p(`SELECT row FROM tombstones WHERE seq > ? AND space = ?`).pluck(),
      maxTomb: p(`SELECT coalesce(max(seq), 0) FROM tombstones`).pluck(),
      maxRowid: p(`SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'vectors'`).pluck(),
      pruned: p(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'tombstones_pruned'`).pluck(),
      vectors: p(`SELECT rowid, vector FROM vectors WHERE rowid IN (SELECT value FROM json_each(?))`).raw(),
    };
  }

  // ------------------------------------------------------------------ writes

  async upsert(space: string, items: VectorItem[]): Promise<void> {
    this.open();
    if (typeof space !== 'string' || !space) throw errors.validation('vector space must be a non-empty string');
    if (!items.length) return;
    const rows = items.map((it, i) => {
      const v = toVector(it.vector, `items[${i}].vector`);
      if (typeof it.id !== 'string' || !it.id || typeof it.documentId !== 'string' || !it.documentId || typeof it.userId !== 'string' || !it.userId) {
        throw errors.validation(`items[${i}] needs id, documentId and userId strings`);
      }
      for (let j = 0; j < v.length; j++) if (!Number.isFinite(v[j]!)) throw errors.validation(`items[${i}].vector has a non-finite value`);
      const text = String(it.text ?? '');
      return [space, it.id, it.documentId, it.userId, it.organizationId ?? null, Math.trunc(it.page || 1), text, it.metadata ? JSON.stringify(it.metadata) : null, unitBlob(v), termsBlob(text)] as const;
    });
    const dim = items[0]!.vector.length;
    if (!dim || items.some((it) => it.vector.length !== dim)) throw errors.validation('all vectors of an upsert must have the same, non-zero dimension');
    this.db.transaction(() => {
      this.stmt.addSpace!.run(space, dim);
      const known = this.stmt.spaceDim!.get(space) as number;
      if (known !== dim) throw errors.validation(`vector space ${space} has dimension ${known}, got ${dim}`);
      for (const r of rows) {
        this.stmt.del!.run(space, r[1]);
        this.stmt.ins!.run(...r);
      }
    }).immediate();
    this.dirty = true;
  }

  async deleteDocument(documentId: string): Promise<void> {
    this.open();
    const removed = this.db.transaction(() => this.stmt.delDoc!.run(documentId).changes).immediate();
    if (removed) {
      this.dirty = true;
      // a snapshot holds the erased rows' vectors and ids: none outlives the deletion (close writes a new one)
      removeSnapshots(this.snapDir);
      this.pruneTombstones();
    }
  }

  /** Keeps the tombstone log bounded; a process whose cache is behind the pruned part reloads it. */
  private pruneTombstones(): void {
    const max = this.stmt.maxTomb!.get() as number;
    const pruned = this.stmt.pruned!.get() as number;
    if (max - pruned < TOMBSTONE_KEEP * 1.5) return;
    const upto = max - TOMBSTONE_KEEP;
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM tombstones WHERE seq <= ?`).run(upto);
      this.db.prepare(`UPDATE meta SET value = ? WHERE key = 'tombstones_pruned'`).run(String(upto));
    }).immediate();
  }

  async count(space: string): Promise<number> {
    this.open();
    return this.stmt.count!.get(space) as number;
  }

  // ------------------------------------------------------------------ reads

  /** Brings the loaded caches up to date with every process's committed writes. */
  private sync(): void {
    const dv = this.db.pragma('data_version', { simple: true }) as number;
    if (dv === this.dataVersion && !this.dirty) return;
    this.dataVersion = dv;
    this.dirty = false;
    for (const cache of [...this.caches.values()]) {
      this.db.transaction(() => {
        const pruned = this.stmt.pruned!.get() as number;
        if (cache.tombSeq < pruned) {
          this.caches.delete(cache.space); // too far behind: reload on use
          return;
        }
        const maxSeq = this.stmt.maxTomb!.get() as number;
        for (const row of this.stmt.tombsAfter!.iterate(cache.tombSeq, cache.space) as Iterable<number>) cache.remove(row);
        this.addRows(cache);
        cache.tombSeq = maxSeq;
        cache.maybeCompact();
      })();
      if (this.caches.get(cache.space) === cache) this.ensureAnn(cache);
    }
  }

  private addRows(cache: SpaceCache): void {
    const bulk = cache.n === 0;
    let batch: CacheRow[] = [];
    for (const r of this.stmt.rowsAfter!.iterate(cache.space, cache.maxRowid) as Iterable<[number, string, string, string | null, Buffer, Buffer]>) {
      const v = blobVector(r[4]);
      if (v.length !== cache.dimension) continue;
      batch.push({ rowid: r[0], documentId: r[1], userId: r[2], organizationId: r[3], vector: v, terms: blobTerms(r[5]) });
      if (batch.length >= 4096) {
        cache.addRows(batch, bulk);
        batch = [];
      }
    }
    if (batch.length) cache.addRows(batch, bulk);
    cache.finishLoad();
  }

  /** The cache of a space, loaded on first use (null when the space has no vectors yet). */
  private cache(space: string): SpaceCache | null {
    let c = this.caches.get(space);
    if (c) return c;
    const dim = this.stmt.spaceDim!.get(space) as number | undefined;
    if (!dim) return null;
    const t0 = Date.now();
    let read = 0, snapshot: string | null = null;
    c = this.db.transaction(() => {
      const maxSeq = this.stmt.maxTomb!.get() as number;
      const snap = this.loadSnapshot(space, dim, maxSeq);
      const cache = snap?.cache ?? new SpaceCache(space, dim, this.opts.precision, this.opts.simd, this.opts.layout);
      snapshot = snap?.file ?? null;
      // what happened after the snapshot's state, as the ANN repair applies it: its tombstones, then the newer rows
      if (snap) for (const row of this.stmt.tombsAfter!.iterate(cache.tombSeq, space) as Iterable<number>) cache.remove(row);
      const before = cache.n;
      cache.tombSeq = maxSeq;
      this.addRows(cache);
      read = cache.n - before;
      // no deleted row left counted in the keyword statistics: the same cache as a load from the database
      cache.maybeCompact(true);
      return cache;
    })();
    this.caches.set(space, c);
    this.logger?.debug({ space, rows: c.live, read, snapshot, ms: Date.now() - t0 }, 'vector cache loaded');
    if (read >= this.opts.snapshotMinRows) this.saveSnapshot(c);
    else if (snapshot) c.snapshotState = `${c.maxRowid}-${c.tombSeq}`;
    this.ensureAnn(c);
    return c;
  }

  // ------------------------------------------------------------------ cache snapshots

  /**
   * The newest usable snapshot of a space (inside the load's read transaction): one of this database's
   * states (not beyond its highest rowid or tombstone) and not older than the pruned tombstones; a damaged
   * or foreign one is removed and the next is tried.
   */
  private loadSnapshot(space: string, dim: number, maxSeq: number): { cache: SpaceCache; file: string } | null {
    if (!this.opts.snapshot) return null;
    const files = snapshotFiles(this.snapDir, space);
    if (!files.length) return null;
    const pruned = this.stmt.pruned!.get() as number;
    const maxRowid = this.stmt.maxRowid!.get() as number;
    for (const f of files) {
      if (f.tombSeq < pruned || f.tombSeq > maxSeq || f.maxRowid > maxRowid) continue;
      try {
        const cache = new SpaceCache(space, dim, this.opts.precision, this.opts.simd, this.opts.layout);
        // the vector rows are read straight into the matrix
        cache.restore(readSnapshot(f.file, space, dim, this.opts.precision, cache.matrix, this.opts.snapshotCheckThreadMinBytes));
        return { cache, file: f.file };
      } catch (e) {
        this.logger?.warn({ file: f.file, error: (e as Error).message }, 'unusable vector cache snapshot: ignored');
        removeSnapshot(f.file);
      }
    }
    return null;
  }

  private saveSnapshot(cache: SpaceCache): void {
    if (!this.opts.snapshot || cache.live < this.opts.snapshotMinRows) return;
    const state = `${cache.maxRowid}-${cache.tombSeq}`;
    if (cache.snapshotState === state) return;
    const t0 = Date.now();
    try {
      const file = writeSnapshot(this.snapDir, cache.space, cache.dimension, this.opts.precision, cache.state());
      cache.snapshotState = state;
      this.logger?.debug({ space: cache.space, file, ms: Date.now() - t0 }, 'vector cache snapshot written');
    } catch (e) {
      this.logger?.warn({ space: cache.space, error: (e as Error).message }, 'cannot write the vector cache snapshot');
    }
  }

  // ------------------------------------------------------------------ approximate index

  /**
   * Gives a cache of at least annThreshold rows its ANN index: the newest usable file, repaired with what
   * the database holds beyond its state, or else a build in a worker thread (searches scan exactly meanwhile).
   */
  private ensureAnn(cache: SpaceCache): void {
    if (this.closed || !this.opts.ann || cache.ann || cache.live < this.opts.annThreshold || this.building.has(cache.space)) return;
    if (!annModule()) {
      this.logger?.warn({ error: annLoadError() }, 'usearch did not load: vector search stays exact');
      this.opts.ann = false;
      return;
    }
    const pruned = this.stmt.pruned!.get() as number;
    for (const f of annFiles(this.annDir, cache.space, this.annParams)) {
      if (f.tombSeq < pruned || f.maxRowid > cache.maxRowid || f.tombSeq > cache.tombSeq) continue;
      if (this.attachAnn(cache, f.file, f.maxRowid, f.tombSeq)) return;
    }
    this.buildAnn(cache);
  }

  /** Loads an index file of state (maxRowid, tombSeq) and brings it to the cache's state; false when it cannot be read. */
  private attachAnn(cache: SpaceCache, file: string, maxRowid: number, tombSeq: number): boolean {
    const t0 = Date.now();
    let ann: AnnIndex;
    try {
      ann = AnnIndex.load(file, cache.dimension, this.annParams);
    } catch (e) {
      this.logger?.warn({ file, error: (e as Error).message }, 'unreadable ANN index file: rebuilding it');
      removeStateFile(file);
      return false;
    }
    let added = 0, removed = 0;
    this.db.transaction(() => {
      for (const row of this.prepared(`SELECT row FROM tombstones WHERE seq > ? AND seq <= ? AND space = ?`).pluck().iterate(tombSeq, cache.tombSeq, cache.space) as Iterable<number>) {
        ann.remove(row);
        removed++;
      }
      const keys: number[] = [];
      const vecs: Float32Array[] = [];
      for (const [rowid, blob] of this.prepared(`SELECT rowid, vector FROM vectors WHERE space = ? AND rowid > ? AND rowid <= ? ORDER BY rowid`).raw().iterate(cache.space, maxRowid, cache.maxRowid) as Iterable<[number, Buffer]>) {
        const v = blobVector(blob);
        if (v.length !== cache.dimension || !cache.has(rowid)) continue;
        keys.push(rowid);
        vecs.push(v);
      }
      const flat = new Float32Array(keys.length * cache.dimension);
      vecs.forEach((v, i) => flat.set(v, i * cache.dimension));
      ann.add(keys, flat);
      added = keys.length;
    })();
    cache.ann = ann;
    this.logger?.debug({ space: cache.space, rows: ann.size, added, removed, ms: Date.now() - t0 }, 'ANN index loaded');
    // a file far behind is saved again at its new state, so the next start repairs less
    if (ann.changes > Math.max(10_000, ann.size / 4)) this.saveAnn(cache);
    return true;
  }

  private buildAnn(cache: SpaceCache): void {
    const space = cache.space;
    let worker: Worker;
    try {
      const workerData = { dbFile: this.file, dir: this.annDir, space, dimension: cache.dimension, params: this.annParams };
      const url = siblingModule(import.meta.url, 'ann-build');
      // from the TypeScript sources (tests, benches under tsx) the thread registers tsx's loader first
      worker = url.pathname.endsWith('.ts')
        ? new Worker(`import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true, workerData })
        : new Worker(url, { workerData });
    } catch (e) {
      this.logger?.warn({ error: (e as Error).message }, 'cannot start the ANN build: vector search stays exact');
      return;
    }
    worker.unref();
    const t0 = Date.now();
    const done = new Promise<void>((resolve) => {
      const finish = () => {
        this.building.delete(space);
        resolve();
      };
      worker.once('message', (m: { file?: string; maxRowid?: number; tombSeq?: number; rows?: number; error?: string }) => {
        if (m.error || !m.file) this.logger?.warn({ space, error: m.error }, 'ANN build failed: vector search stays exact');
        else if (!this.closed && this.caches.get(space) === cache) {
          this.logger?.info({ space, rows: m.rows, ms: Date.now() - t0 }, 'ANN index built');
          this.sync();
          if (this.caches.get(space) === cache && !cache.ann) this.attachAnn(cache, m.file, m.maxRowid!, m.tombSeq!);
        }
        finish();
        // the space's cache was reloaded meanwhile (it fell behind the pruned tombstones): it takes the new file
        const now = this.closed ? undefined : this.caches.get(space);
        if (now && now !== cache && !now.ann && m.file) this.ensureAnn(now);
      });
      worker.once('error', (e) => {
        this.logger?.warn({ space, error: e.message }, 'ANN build failed: vector search stays exact');
        finish();
      });
      worker.once('exit', finish);
    });
    this.building.set(space, { worker, done });
  }

  private saveAnn(cache: SpaceCache): void {
    if (!cache.ann) return;
    try {
      cache.ann.save(this.annDir, cache.space, cache.maxRowid, cache.tombSeq);
    } catch (e) {
      this.logger?.warn({ space: cache.space, error: (e as Error).message }, 'cannot save the ANN index');
    }
  }

  /**
   * Resolves once the space's ANN index is attached (loaded, or built in the background), or once it is
   * known there will be none (too few rows, ANN off); for tests, benchmarks and warm-up at start.
   */
  async annReady(space: string): Promise<boolean> {
    this.open();
    this.sync();
    const c = this.cache(space);
    await this.building.get(space)?.done;
    return !!(this.caches.get(space) ?? c)?.ann;
  }

  async search(space: string, query: { text: string; vector: Float32Array; topK: number; filter: VectorFilter; alpha?: number }): Promise<VectorHit[]> {
    this.open();
    const topK = Math.min(1000, Math.max(1, Math.trunc(Number(query.topK) || 10)));
    const alpha = query.alpha ?? this.opts.alpha;
    if (!(alpha >= 0 && alpha <= 1)) throw errors.validation('alpha must be from 0 to 1', { option: 'alpha' });
    const filter = query.filter ?? {};
    if (filter.documentIds && filter.documentIds.length === 0) return [];
    this.sync();
    const cache = this.cache(space);
    if (!cache) return [];
    const vector = query.vector ? toVector(query.vector, 'query vector') : null;
    if (vector && vector.length && vector.length !== cache.dimension) {
      throw errors.validation(`query vector has dimension ${vector.length}; space ${space} has ${cache.dimension}`);
    }
    const pool = Math.max(50, topK * 3);
    const useVec = alpha > 0 && !!vector && vector.length > 0 && vector.some((x) => x !== 0);
    const useAnn = useVec && !!cache.ann;
    const terms = (alpha < 1 || useAnn) && query.text ? queryTerms(query.text) : [];
    // with the ANN index, the keyword side's best rows are vector candidates too (below)
    cache.keywords.exhaustive = this.opts.keywordPruning === false;
    const kwAll = terms.length ? cache.keywordSearch(terms, useAnn ? Math.max(pool, ANN_KEYWORD_CANDIDATES) : pool, filter) : [];
    const kw = alpha < 1 ? kwAll.slice(0, pool) : [];
    const match = alpha < 1 && terms.length > 0;
    const vec = useVec ? this.vectorSearch(cache, vector!, pool, filter, kwAll) : [];
    // one side absent (a text without words, a zero vector): the other decides alone
    const a = !match ? 1 : !useVec ? 0 : alpha;
    const fused = fuse(vec, kw, a, this.opts.fusion, this.opts.rrfK).slice(0, topK);
    return this.hits(fused, filter);
  }

  /** Exact cosine top-k: the in-memory scan, with int8 candidates rescored from the stored float vectors. */
  private vectorSearch(cache: SpaceCache, q: Float32Array, k: number, filter: VectorFilter, keywordRows: Scored[] = []): Scored[] {
    let n = 0;
    for (let i = 0; i < q.length; i++) n += q[i]! * q[i]!;
    const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
    let candidates: Scored[] | null = null;
    if (cache.ann) {
      const unit = new Float32Array(q.length);
      for (let i = 0; i < q.length; i++) unit[i] = q[i]! * inv;
      candidates = cache.annSearch(unit, Math.max(k, this.opts.annExpansion), filter, this.opts.annThreshold);
      // A short query is far from every chunk (it shares a few words with each of its neighbours) and the
      // graph's greedy walk can miss them; the rows that share its words the most (BM25, same filter) join
      // the candidates, all rescored exactly below.
      if (candidates) {
        const seen = new Set(candidates.map((c) => c.rowid));
        for (const r of keywordRows) if (!seen.has(r.rowid)) candidates.push(r);
      }
    }
    const exact: Scored[] = [];
    const rescore = (rows: Scored[]) => {
      for (const [rowid, blob] of this.stmt.vectors!.iterate(JSON.stringify(rows.map((c) => c.rowid))) as Iterable<[number, Buffer]>) {
        const v = blobVector(blob);
        let s = 0;
        for (let i = 0; i < v.length; i++) s += v[i]! * q[i]!;
        exact.push({ rowid, score: s * inv });
      }
    };
    if (!candidates) {
      if (this.opts.precision === 'f32') return cache.search(q, k, filter);
      const prune = this.opts.pruneMass < 1 ? { mass: this.opts.pruneMass, candidates: this.opts.pruneCandidates, minRows: this.opts.pruneMinRows } : undefined;
      const int8 = cache.search(q, Math.max(k * 4, 200), filter, prune);
      // The k best by int8 first: the k-th of their exact scores, T, is a floor of the answer's; a further
      // candidate whose exact score is below T whatever the int8 rounding (score + err < T) cannot be in
      // it and is not read (about half of the 200 for the bench's queries). The answer is that of
      // rescoring all of them.
      rescore(int8.slice(0, k));
      if (int8.length > k) {
        const floor = exact.length >= k ? Math.min(...exact.map((e) => e.score)) : -Infinity;
        const more = int8.slice(k).filter((c) => c.score + c.err >= floor);
        if (more.length) rescore(more);
      }
    } else if (candidates.length) rescore(candidates);
    return exact.sort((a, b) => b.score - a.score || a.rowid - b.rowid).slice(0, k);
  }

  private hits(fused: Scored[], filter: VectorFilter): VectorHit[] {
    if (!fused.length) return [];
    const { where, params } = filterSql(filter);
    const sql = `SELECT v.rowid, v.id, v.document_id, v.page, v.text, v.metadata FROM vectors v WHERE v.rowid IN (SELECT value FROM json_each(@ids))${where}`;
    const rows = new Map<number, VectorHit>();
    for (const r of this.prepared(sql).raw().iterate({ ...params, ids: JSON.stringify(fused.map((f) => f.rowid)) }) as Iterable<[number, string, string, number, string, string | null]>) {
      rows.set(r[0], { id: r[1], documentId: r[2], page: r[3], text: r[4], score: 0, ...(r[5] ? { metadata: JSON.parse(r[5]) as Record<string, unknown> } : {}) });
    }
    const out: VectorHit[] = [];
    for (const f of fused) {
      const h = rows.get(f.rowid);
      if (h) out.push({ ...h, score: Math.round(f.score * 1e6) / 1e6 });
    }
    return out;
  }

  private prepared(sql: string): Database.Statement {
    let s = this.dynamic.get(sql);
    if (!s) this.dynamic.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Facts for health checks and benchmarks; `layout` is the loaded cache's int8 layout and `queryDimensions`
   * how many dimensions of each row its last vector scan read (the query's nonzero ones in the columns layout).
   */
  stats(): { file: string; spaces: { space: string; rows: number; cachedRows: number; cacheBytes: number; simd: boolean; layout: Layout | null; queryDimensions: number | null; annRows: number | null; annBuilding: boolean }[] } {
    const spaces = (this.db.prepare(`SELECT space, (SELECT count(*) FROM vectors v WHERE v.space = s.space) AS n FROM spaces s`).all() as { space: string; n: number }[]).map((s) => {
      const c = this.caches.get(s.space);
      return { space: s.space, rows: s.n, cachedRows: c?.live ?? 0, cacheBytes: c?.bytes ?? 0, simd: c?.matrix.simd ?? false, layout: c?.matrix.layout ?? null, queryDimensions: c?.matrix.queryDimensions ?? null, annRows: c?.ann ? c.ann.size : null, annBuilding: this.building.has(s.space) };
    });
    return { file: this.file, spaces };
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    try {
      this.open();
      this.db.prepare('SELECT 1').get();
      return { ok: true, message: `sqlite ${this.file}` };
    } catch (e) {
      return { ok: false, message: `vector index ${this.file}: ${(e as Error).message}` };
    }
  }

  /** Rows are immutable (other processes follow inserts and tombstones): each is deleted and inserted again with the new owner. */
  async setOwner(documentId: string, owner: { userId: string; organizationId: string | null }): Promise<void> {
    this.open();
    const moved = this.db
      .transaction(() => {
        const rows = this.db.prepare(`SELECT space, id, document_id, page, text, metadata, vector, terms FROM vectors WHERE document_id = ?`).raw().all(documentId) as unknown[][];
        for (const [space, id, doc, page, text, metadata, vector, terms] of rows) {
          this.stmt.del!.run(space, id);
          this.stmt.ins!.run(space, id, doc, owner.userId, owner.organizationId, page, text, metadata, vector, terms);
        }
        return rows.length;
      })
      .immediate();
    if (moved) this.dirty = true;
  }

  async checkpoint(): Promise<void> {
    this.open();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const b of this.building.values()) await b.worker.terminate();
    this.building.clear();
    // the index as updated since it was loaded, so the next start has less to repair
    for (const c of this.caches.values()) if (c.ann?.changes) this.saveAnn(c);
    // and the caches (brought up to date first: no row deleted meanwhile is written), so the next start
    // reads one file per space instead of every row
    if (this.opts.snapshot && [...this.caches.values()].some((c) => c.live >= this.opts.snapshotMinRows)) {
      this.sync();
      for (const c of this.caches.values()) this.saveSnapshot(c);
    }
    this.caches.clear();
    this.db.close();
  }

  private open() {
    if (this.closed) throw errors.unavailable('the embedded vector store is closed');
  }
}

/** SQL conditions (on alias v) for a filter: document ids, and owner scope (the user's rows or the organizations'). */
function filterSql(filter: VectorFilter): { where: string; params: Record<string, string> } {
  let where = '';
  const params: Record<string, string> = {};
  if (filter.documentIds) {
    where += ` AND v.document_id IN (SELECT value FROM json_each(@docs))`;
    params.docs = JSON.stringify(filter.documentIds);
  }
  const orgs = filter.organizationIds?.length ? filter.organizationIds : null;
  if (filter.userId !== undefined && orgs) {
    where += ` AND (v.user_id = @user OR v.organization_id IN (SELECT value FROM json_each(@orgs)))`;
    params.user = filter.userId;
    params.orgs = JSON.stringify(orgs);
  } else if (filter.userId !== undefined) {
    where += ` AND v.user_id = @user`;
    params.user = filter.userId;
  } else if (orgs) {
    where += ` AND v.organization_id IN (SELECT value FROM json_each(@orgs))`;
    params.orgs = JSON.stringify(orgs);
  }
  return { where, params };
}
