import path from 'node:path';
import { definePlugin, z } from '@quire/core';
import { DEFAULTS, EmbeddedVectorStore } from './store.js';

export { EmbeddedVectorStore, DEFAULTS, fuse } from './store.js';
export { analyze, queryTerms, words } from './text.js';
export { KeywordIndex } from './keyword.js';
export type { EmbeddedStoreOptions, Fusion } from './store.js';
export { VectorMatrix } from './kernel.js';
export type { Layout, Precision } from './kernel.js';
export type { AnnQuantization } from './ann.js';

/**
 * The embedded vector store: SQLite (WAL) under `<dataDir>/vectors/`, with an in-memory matrix (cosine)
 * and inverted index (BM25) per space, hybrid fusion; safe for several processes sharing the data dir.
 */
export default definePlugin({
  kind: 'vector-store',
  name: 'embedded',
  core: '^1',
  description: 'Embedded vector index persisted under the data dir, with BM25 hybrid search.',
  options: z.strictObject({
    /** how keyword and vector rankings are combined */
    fusion: z.enum(['rrf', 'relative', 'weighted']).default(DEFAULTS.fusion),
    /** default weight of the vector side when a query gives none (0 keyword only … 1 vector only) */
    alpha: z.number().min(0).max(1).default(DEFAULTS.alpha),
    /** in-memory precision of the vector cache: int8 (4x smaller, best candidates rescored exactly) or f32 */
    precision: z.enum(['int8', 'f32']).default(DEFAULTS.precision),
    /** how int8 rows are laid out: columns (dimension-major blocks: a query reads only its nonzero dimensions) or rows; same results */
    layout: z.enum(['columns', 'rows']).default(DEFAULTS.layout),
    /** columns: the scan reads the query's heaviest dimensions holding this share of its squared norm, then completes its best pruneCandidates rows' scores (1: every nonzero dimension, the exact scan) */
    pruneMass: z.number().gt(0).max(1).default(DEFAULTS.pruneMass),
    /** rows the pruned scan keeps and completes */
    pruneCandidates: z.number().int().min(1).max(100_000).default(DEFAULTS.pruneCandidates),
    /** a search over fewer rows than this (after its filter's lists) reads every dimension: the exact scan */
    pruneMinRows: z.number().int().min(0).default(DEFAULTS.pruneMinRows),
    /** the k of reciprocal rank fusion */
    rrfK: z.number().positive().default(DEFAULTS.rrfK),
    /** how long a writer waits for another process's write lock, ms */
    busyTimeoutMs: z.number().int().min(0).default(DEFAULTS.busyTimeoutMs),
    /** false: scan without the WebAssembly SIMD kernel (QUIRE_VECTOR_NO_SIMD=1) */
    simd: z.boolean().default(DEFAULTS.simd),
    /** false: the keyword side reads every posting of the query's terms (the reference for the pruned search: same answers) */
    keywordPruning: z.boolean().default(true),
    /** false: no approximate (HNSW) index, every vector search scans exactly */
    ann: z.boolean().default(DEFAULTS.ann),
    /** a space gets an HNSW index from this many rows; a filter allowing fewer rows is answered by the exact scan */
    annThreshold: z.number().int().min(1).default(DEFAULTS.annThreshold),
    /** how the HNSW graph stores vectors (f16: half of f32's memory, candidates rescored exactly) */
    annQuantization: z.enum(['f32', 'f16', 'i8']).default(DEFAULTS.annQuantization),
    /** the HNSW graph's degree (M) */
    annConnectivity: z.number().int().min(4).max(64).default(DEFAULTS.annConnectivity),
    /** the HNSW search's candidate list (ef) */
    annExpansion: z.number().int().min(10).max(4096).default(DEFAULTS.annExpansion),
    /** false: no snapshots of the in-memory cache (every first search of a space reads its rows from SQLite) */
    snapshot: z.boolean().default(DEFAULTS.snapshot),
    /** a space's in-memory cache is snapshotted (beside the database) from this many rows */
    snapshotMinRows: z.number().int().min(1).default(DEFAULTS.snapshotMinRows),
    /** a snapshot file of this many bytes or more is checked (CRC-32) by a worker thread while it is read */
    snapshotCheckThreadMinBytes: z.number().int().min(0).default(DEFAULTS.snapshotCheckThreadMinBytes),
    /** where the index lives (default: <data dir>/vectors) */
    dir: z.string().min(1).optional(),
  }),
  create(ctx) {
    const { dir, ...opts } = ctx.options;
    return new EmbeddedVectorStore(dir ?? path.join(ctx.dataDir, 'vectors'), { ...opts, logger: ctx.logger });
  },
});
