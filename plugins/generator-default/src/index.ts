/**
 * The built-in writers of generated documents: html (one self-contained page with print CSS, rendered by
 * @quire/core's renderGeneratedHtml, which the pdf writer prints too), markdown (CommonMark + GFM tables)
 * and docx. The engine hands every writer the same structured model (GeneratedDocumentModel).
 */
import { definePlugin, errors, renderGeneratedHtml } from '@quire/core';
import type { GeneratedDocumentModel, GeneratorPlugin } from '@quire/core';
import { renderDocx } from './docx.js';
import { renderMarkdown } from './markdown.js';

export { renderDocx, renderMarkdown };

export const DEFAULT_GENERATOR_FORMATS = ['html', 'markdown', 'docx'] as const;

export function createDefaultGenerator(): GeneratorPlugin {
  return {
    formats: [...DEFAULT_GENERATOR_FORMATS],
    async generate({ format, document, signal }: { format: string; document: GeneratedDocumentModel; signal?: AbortSignal }) {
      signal?.throwIfAborted();
      switch (format) {
        case 'html':
          return { bytes: Buffer.from(renderGeneratedHtml(document), 'utf8'), mime: 'text/html; charset=utf-8', extension: 'html' };
        case 'markdown':
          return { bytes: Buffer.from(renderMarkdown(document), 'utf8'), mime: 'text/markdown; charset=utf-8', extension: 'md' };
        case 'docx':
          return { bytes: await renderDocx(document), mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' };
        default:
          throw errors.validation(`generator default does not write ${format}; it writes ${DEFAULT_GENERATOR_FORMATS.join(', ')}`);
      }
    },
  };
}

export default definePlugin({
  kind: 'generator',
  name: 'default',
  core: '^1',
  description: 'Writes generated documents as html (self-contained, print CSS), markdown (CommonMark, GFM tables) and docx.',
  create: () => createDefaultGenerator(),
});
