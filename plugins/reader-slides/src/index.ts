/**
 * Slides reader: pptx from the slide XML (ZipArchive + fast-xml-parser, within ReadOptions.limits); legacy
 * ppt rendered to PDF by LibreOffice and read by the PDF reader plugin (which OCRs pages without a text layer).
 */
import fs from 'node:fs/promises';
import { SHARED_DEFAULTS, abortReason, builtinFormats, checkAbort, checkOptions, definePlugin, errors, isQuireError, z } from '@quire/core';
import type { ParsedDocument, PluginContext, ReadOptions, ReaderInput, ReaderPlugin, SharedSettings } from '@quire/core';
import { readPptx } from './pptx.js';
import { SofficeError, convertWithSoffice, sofficeAvailable } from '@quire/office';

export const SLIDE_FORMATS = ['pptx', 'ppt'];

/** Options of the slides reader (plugin options `reader:slides`), with their defaults. */
export const SLIDES_READER_OPTIONS = z.strictObject({
  /** LibreOffice binary, for legacy ppt (QUIRE_SOFFICE_PATH) */
  soffice: z.string().min(1).default('soffice'),
  /** time limit of one LibreOffice conversion, ms (default: the shared limits.parseTimeoutMs, at most 180 s) */
  sofficeTimeoutMs: z.number().int().positive().optional(),
});
export type SlidesReaderOptions = z.input<typeof SLIDES_READER_OPTIONS>;

const SOFFICE_MISSING = 'legacy .ppt needs LibreOffice (soffice) — install it with scripts/install-system-deps.sh';

const isCfb = (b: Uint8Array) => b.length >= 8 && b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0;

/** The slides reader, from its options (checked here) and the shared parse time limit; the plugin makes it so. */
export function createSlidesReader(ctx: Partial<Pick<PluginContext, 'readerFor'>> & { options?: SlidesReaderOptions; shared?: Partial<Pick<SharedSettings, 'limits.parseTimeoutMs'>> } = {}): Omit<ReaderPlugin, 'formats'> {
  const { soffice, sofficeTimeoutMs } = checkOptions(SLIDES_READER_OPTIONS, ctx.options, 'reader:slides');
  const timeoutMs = sofficeTimeoutMs ?? Math.min(180_000, ctx.shared?.['limits.parseTimeoutMs'] ?? SHARED_DEFAULTS['limits.parseTimeoutMs']);

  async function readPpt(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
    // the host's reader of pdf (the one configured, e.g. pdf-poppler), not a reader found by name
    const pdfReader = ctx.readerFor?.('pdf');
    if (!pdfReader) throw errors.processing('legacy .ppt needs a pdf reader plugin, and none is loaded');
    let converted;
    try {
      converted = await convertWithSoffice({ soffice, input: input.path, inputExt: 'ppt', to: 'pdf', timeoutMs, signal: options.signal });
    } catch (e) {
      if (options.signal?.aborted) throw abortReason(options.signal);
      if (e instanceof SofficeError && e.kind === 'missing') throw errors.processing(SOFFICE_MISSING);
      throw errors.processing(`ppt could not be read: ${e instanceof Error ? e.message : String(e)}`);
    }
    try {
      const stat = await fs.stat(converted.output);
      const doc = await pdfReader.read({ ...input, path: converted.output, format: 'pdf', size: stat.size }, options);
      return { ...doc, id: input.documentId, name: input.name, format: 'ppt', metadata: { ...doc.metadata, convertedWith: 'libreoffice', slides: doc.pages.length } };
    } finally {
      await converted.cleanup();
    }
  }

  return {
    async read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
      const format = input.format.toLowerCase();
      if (!SLIDE_FORMATS.includes(format)) throw errors.unsupported(`the slides reader does not read ${input.format}`);
      checkAbort(options.signal);
      try {
        if (format === 'ppt') return await readPpt(input, options);
        const bytes = new Uint8Array(await fs.readFile(input.path));
        if (!bytes.byteLength) throw errors.processing('pptx could not be read: the file is empty');
        if (isCfb(bytes)) throw errors.processing('pptx could not be read: the file is password-protected (encrypted)');
        return await readPptx({
          bytes,
          id: input.documentId,
          name: input.name,
          format,
          maxPages: options.maxPages,
          limits: options.limits,
          signal: options.signal,
          checkAbort: () => checkAbort(options.signal),
          onProgress: options.onProgress,
        });
      } catch (e) {
        if (options.signal?.aborted) throw abortReason(options.signal);
        if (isQuireError(e)) throw e;
        // a library's internals ("Cannot read properties of undefined") are no reason to show
        throw errors.processing(`${format} could not be read: the file is damaged or not a PowerPoint presentation`);
      }
    },
    async health() {
      const s = await sofficeAvailable(soffice);
      return s.ok ? { ok: true, message: `pptx; legacy ppt through ${s.version ?? 'LibreOffice'}` } : { ok: false, message: `${soffice} not found: ${SOFFICE_MISSING}` };
    },
  };
}

export default definePlugin({
  kind: 'reader',
  name: 'slides',
  core: '^1',
  description: 'Slides reader: pptx from the slide XML, legacy ppt rendered by LibreOffice then read.',
  formats: builtinFormats(...SLIDE_FORMATS),
  /** legacy .ppt is converted to PDF and read by the host's pdf reader; .pptx needs nothing */
  uses: ['reader:pdf?'],
  options: SLIDES_READER_OPTIONS,
  shared: ['limits.parseTimeoutMs'],
  create: (ctx) => createSlidesReader(ctx),
});
