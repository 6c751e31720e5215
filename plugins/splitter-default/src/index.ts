/**
 * The offline splitter (kind `splitter`, name `default`): finds where the documents of a combined file begin
 * (detect.ts), from the parsed content alone.
 */
import { definePlugin, z } from '@quire/core';
import type { SplitterPlugin } from '@quire/core';
import { detectSections } from './detect.js';

export { detectSections, scoreBoundaries, readInstructions, THRESHOLD, WEIGHTS } from './detect.js';
export { pageFeatures, pageNumberIn, pageType } from './features.js';

export const SPLITTER_OPTIONS = z.strictObject({
  /** the shortest section when the request gives no minSectionPages */
  minSectionPages: z.number().int().min(1).max(1000).default(1),
});

export function createSplitter(options: { minSectionPages?: number } = {}): SplitterPlugin {
  return {
    async detect(doc, opts) {
      opts.signal?.throwIfAborted();
      return detectSections(doc, { ...opts, minSectionPages: opts.minSectionPages ?? options.minSectionPages ?? 1 });
    },
  };
}

export default definePlugin({
  kind: 'splitter',
  name: 'default',
  core: '^1',
  description: 'Offline document boundary detection (headings, page numbering, running headers and footers, letterheads, document types, topic shifts, blank separator pages).',
  options: SPLITTER_OPTIONS,
  create: (ctx) => createSplitter(ctx.options),
});
