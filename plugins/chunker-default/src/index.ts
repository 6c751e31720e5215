import { definePlugin, z } from '@quire/core';
import type { ChunkerPlugin } from '@quire/core';
import { chunkDocument } from './chunker.js';

export { chunkDocument, validateChunkOptions, splitTable, DEFAULT_CHUNK_OPTIONS, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE } from './chunker.js';
export { sentenceStarts, splitRange, splitWords } from './sentences.js';

/**
 * The default chunker: `semantic` (headings, paragraphs, sentences, whole tables), `fixed` (character
 * windows with overlap at word boundaries) and `page` (one chunk per page).
 */
export default definePlugin({
  kind: 'chunker',
  name: 'default',
  core: '^1',
  description: 'Semantic, fixed and page chunking with spans, bboxes and table rendering.',
  /** none: the strategy and sizes come with each request (ChunkOptions) */
  options: z.strictObject({}),
  create(): ChunkerPlugin {
    return { chunk: (doc, options) => chunkDocument(doc, options) };
  },
});
