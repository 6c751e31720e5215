/**
 * Office reader: docx (mammoth), legacy doc (word-extractor), rtf (LibreOffice → docx), txt and html.
 */
import fs from 'node:fs/promises';
import { definePlugin, errors } from '@quire/core';
import type { ParsedDocument, PluginContext, ReadOptions, ReaderInput, ReaderPlugin } from '@quire/core';
import { readDocx } from './docx.js';
import { readDoc } from './doc.js';
import { readTxt } from './txt.js';
import { readHtml } from './html.js';
import { SofficeError, convertWithSoffice, sofficeAvailable } from './soffice.js';
import { abortReason, checkAbort, guard } from './util.js';

export { HtmlWalker } from './html-walker.js';
export type { BlockSink, WalkBlock, WalkTable, WalkOptions } from './html-walker.js';
export { decodeText } from './decode.js';
export { openPackage, partText, partBytes, assertNoDtd, mainPartPath, childElements, findElement, XmlScanError } from './ooxml.js';
export type { PackageOptions, ElementRange } from './ooxml.js';
export { wordStats, estimatedPages, CHARS_PER_PAGE } from './docx.js';
export { convertWithSoffice, sofficeAvailable, SofficeError } from './soffice.js';
export type { ConvertOptions, Converted } from './soffice.js';

export const OFFICE_FORMATS = ['docx', 'doc', 'rtf', 'txt', 'html'];

export interface OfficeReaderOptions {
  /** LibreOffice binary (default config.tools.soffice) */
  soffice?: string;
  /** time limit of one LibreOffice conversion (default: min(120 s, config.limits.parseTimeoutMs)) */
  sofficeTimeoutMs?: number;
}

export function createOfficeReader(ctx: Pick<PluginContext, 'config' | 'options'>): ReaderPlugin {
  const opts = (ctx.options ?? {}) as OfficeReaderOptions;
  const soffice = opts.soffice ?? ctx.config?.tools?.soffice ?? 'soffice';
  const timeoutMs = opts.sofficeTimeoutMs ?? Math.min(120_000, ctx.config?.limits?.parseTimeoutMs ?? 120_000);

  async function readRtf(input: ReaderInput, bytes: Uint8Array, options: ReadOptions): Promise<ParsedDocument> {
    if (!/^\s*\{\\rtf/.test(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(64, bytes.byteLength)).toString('latin1'))) {
      throw errors.processing('rtf could not be read: the file does not start with an RTF header ({\\rtf)');
    }
    let converted;
    try {
      converted = await convertWithSoffice({ soffice, input: input.path, inputExt: 'rtf', to: 'docx', timeoutMs, signal: options.signal });
    } catch (e) {
      if (options.signal?.aborted) throw abortReason(options.signal);
      if (e instanceof SofficeError && e.kind === 'missing') throw errors.processing('rtf needs LibreOffice (soffice) — install it with scripts/install-system-deps.sh');
      throw errors.processing(`rtf could not be read: ${e instanceof Error ? e.message : String(e)}`);
    }
    try {
      const docx = new Uint8Array(await fs.readFile(converted.output));
      const doc = await readDocx({ bytes: docx, id: input.documentId, name: input.name, format: 'rtf', signal: options.signal, maxPages: options.maxPages, limits: options.limits });
      doc.metadata.convertedWith = 'libreoffice';
      return doc;
    } finally {
      await converted.cleanup();
    }
  }

  return {
    formats: OFFICE_FORMATS,
    async read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
      const format = input.format.toLowerCase();
      if (!OFFICE_FORMATS.includes(format)) throw errors.unsupported(`the office reader does not read ${input.format}`);
      checkAbort(options.signal);
      return guard(format, options.signal, async () => {
        const bytes = new Uint8Array(await fs.readFile(input.path));
        if (bytes.byteLength === 0) throw errors.processing(`${format} could not be read: the file is empty`);
        const common = { bytes, id: input.documentId, name: input.name, format, signal: options.signal, maxPages: options.maxPages, limits: options.limits, onProgress: options.onProgress };
        let doc: ParsedDocument;
        switch (format) {
          case 'docx':
            doc = await readDocx(common);
            break;
          case 'doc':
            doc = await readDoc(common);
            break;
          case 'rtf':
            doc = await readRtf(input, bytes, options);
            break;
          case 'txt':
            doc = await readTxt(common);
            break;
          default:
            doc = await readHtml(common);
        }
        options.onProgress?.(1);
        return doc;
      });
    },
    async health() {
      const s = await sofficeAvailable(soffice);
      return s.ok ? { ok: true, message: `docx, doc, txt, html; rtf through ${s.version ?? 'LibreOffice'}` } : { ok: true, message: `docx, doc, txt, html; rtf needs LibreOffice (${soffice} not found)` };
    },
  };
}

export default definePlugin({
  kind: 'reader',
  name: 'office',
  core: '^1',
  description: 'Word (docx via mammoth, legacy doc), rtf, txt and html reader.',
  create: (ctx) => createOfficeReader(ctx),
});
