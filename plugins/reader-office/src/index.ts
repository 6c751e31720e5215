/**
 * Office reader: docx (mammoth), legacy doc (word-extractor), rtf (LibreOffice → docx), txt and html.
 */
import fs from 'node:fs/promises';
import { SHARED_DEFAULTS, builtinFormats, checkOptions, definePlugin, errors, z } from '@quire/core';
import type { ParsedDocument, ReadOptions, ReaderInput, ReaderPlugin, SharedSettings } from '@quire/core';
import { SofficeError, convertWithSoffice, sofficeAvailable } from '@quire/office';
import { readDocx } from './docx.js';
import { readDoc } from './doc.js';
import { readTxt } from './txt.js';
import { readHtml } from './html.js';
import { abortReason, checkAbort, guard } from './util.js';

export const OFFICE_FORMATS = ['docx', 'doc', 'rtf', 'txt', 'html'];

/** Options of the office reader (plugin options `reader:office`), with their defaults. */
export const OFFICE_READER_OPTIONS = z.strictObject({
  /** LibreOffice binary, for rtf (QUIRE_SOFFICE_PATH) */
  soffice: z.string().min(1).default('soffice'),
  /** time limit of one LibreOffice conversion, ms (default: the shared limits.parseTimeoutMs, at most 120 s) */
  sofficeTimeoutMs: z.number().int().positive().optional(),
});
export type OfficeReaderOptions = z.input<typeof OFFICE_READER_OPTIONS>;

/** The office reader, from its options (checked here) and the shared parse time limit; the plugin makes it so. */
export function createOfficeReader(ctx: { options?: OfficeReaderOptions; shared?: Partial<Pick<SharedSettings, 'limits.parseTimeoutMs'>> } = {}): Omit<ReaderPlugin, 'formats'> {
  const { soffice, sofficeTimeoutMs } = checkOptions(OFFICE_READER_OPTIONS, ctx.options, 'reader:office');
  const timeoutMs = sofficeTimeoutMs ?? Math.min(120_000, ctx.shared?.['limits.parseTimeoutMs'] ?? SHARED_DEFAULTS['limits.parseTimeoutMs']);

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
  formats: builtinFormats(...OFFICE_FORMATS),
  options: OFFICE_READER_OPTIONS,
  shared: ['limits.parseTimeoutMs'],
  create: (ctx) => createOfficeReader(ctx),
});
