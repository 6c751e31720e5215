import { definePlugin, errors, z } from '@quire/core';
import type { EmbedderPlugin } from '@quire/core';
import { DEFAULT_DIMENSION, FEATURE_VERSION, HashEmbedder } from './hash-embedder.js';

export { HashEmbedder, DEFAULT_DIMENSION, DEFAULT_WEIGHTS, normalizeText, words, cosine } from './hash-embedder.js';
export type { HashEmbedderOptions, FeatureWeights } from './hash-embedder.js';

/** The vector space id of the local embedder at a dimension. */
export const localSpace = (dimension: number) => `local-hash-${FEATURE_VERSION}-${dimension}`;

/** Creates the embedder directly (without the registry). */
export function createLocalEmbedder(options: { dimension?: number } = {}): EmbedderPlugin & { embedSync(text: string): Float32Array } {
  let embedder: HashEmbedder;
  try {
    embedder = new HashEmbedder({ dimension: options.dimension ?? DEFAULT_DIMENSION });
  } catch (e) {
    throw errors.validation(`embedder local: ${(e as Error).message}`, { option: 'dimension' });
  }
  return {
    space: localSpace(embedder.dimension),
    dimension: embedder.dimension,
    embedSync: (text) => embedder.embed(text),
    async embed(texts) {
      return texts.map((t) => embedder.embed(t));
    },
    async health() {
      return { ok: true, message: `offline hashed n-gram embedder, ${embedder.dimension} dimensions` };
    },
  };
}

/**
 * Offline deterministic embedder (no model, no network): hashed word unigrams and bigrams plus character
 * 3/4-grams.
 */
export default definePlugin({
  kind: 'embedder',
  name: 'local',
  core: '^1',
  description: 'Offline deterministic embedder: hashed word and character n-grams.',
  options: z.strictObject({
    /** vector length (another length is another vector space: documents are embedded again) */
    dimension: z.number().int().min(16).max(8192).default(DEFAULT_DIMENSION),
  }),
  create(ctx) {
    return createLocalEmbedder({ dimension: ctx.options.dimension });
  },
});
