import path from 'node:path';
import { definePlugin, errors } from '@quire/core';
import { EmbeddedVectorStore } from './store.js';
import type { EmbeddedStoreOptions, Fusion } from './store.js';

export { EmbeddedVectorStore, DEFAULTS, fuse } from './store.js';
export { analyze, queryTerms, stem, words } from './text.js';
export { KeywordIndex } from './keyword.js';
export type { EmbeddedStoreOptions, Fusion } from './store.js';
export { VectorMatrix } from './kernel.js';
export type { Precision } from './kernel.js';

/** Plugin options (config `plugins.options['vector-store:embedded']`): fusion, alpha, precision, rrfK, busyTimeoutMs, dir. */
function options(raw: Record<string, unknown>): EmbeddedStoreOptions & { dir?: string } {
  const num = (k: string) => {
    if (raw[k] === undefined) return undefined;
    const n = Number(raw[k]);
    if (!Number.isFinite(n)) throw errors.validation(`vector store embedded: ${k} must be a number`, { option: k });
    return n;
  };
  return {
    fusion: raw.fusion as Fusion | undefined,
    alpha: num('alpha'),
    precision: raw.precision as EmbeddedStoreOptions['precision'],
    rrfK: num('rrfK'),
    busyTimeoutMs: num('busyTimeoutMs'),
    dir: typeof raw.dir === 'string' ? raw.dir : undefined,
  };
}

/**
 * The embedded vector store: SQLite (WAL) under `<dataDir>/vectors/`, with an in-memory matrix (cosine)
 * and inverted index (BM25) per space, hybrid fusion; safe for several processes sharing the data dir.
 */
export default definePlugin({
  kind: 'vector-store',
  name: 'embedded',
  core: '^1',
  description: 'Embedded vector index persisted under the data dir, with BM25 hybrid search.',
  create(ctx) {
    const { dir, ...opts } = options(ctx.options ?? {});
    return new EmbeddedVectorStore(dir ?? path.join(ctx.dataDir, 'vectors'), { ...opts, logger: ctx.logger });
  },
});
