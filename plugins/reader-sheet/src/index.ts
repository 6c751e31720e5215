/**
 * Spreadsheet reader: OOXML (xlsx, xlsm, xltx, xltm) read straight from the package while it inflates,
 * SheetJS 0.18.5 for legacy xls / qpw only, csv-parse for csv. One page per sheet (page.name = sheet name),
 * every sheet's data as tables. Bounded by ReadOptions.limits: cells (counted while reading; more fails the
 * read), sheets (pages) and the decompressed size of OOXML packages.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocumentBuilder, SHARED_DEFAULTS, builtinFormats, checkOptions, definePlugin, errors, isQuireError, readLimits, z } from '@quire/core';
import type { ParsedDocument, ReadOptions, ReaderInput, ReaderPlugin, SharedSettings } from '@quire/core';
import { emitSheet } from './model.js';
import type { SheetData } from './model.js';
import { readOoxml } from './ooxml.js';
import type { CellBudget } from './ooxml.js';
import { readLegacy } from './legacy.js';
import { readCsv } from './csv.js';
import { encodingMetadata } from '@quire/text';
import { NOMINAL_PAGE, checkAbort, guard, isCfb } from './util.js';

export { canonicalNumber } from './model.js';
export { isDateFormat } from './ooxml.js';
export { sniffDelimiter } from './csv.js';

export const SHEET_FORMATS = ['csv', 'xlsx', 'xls', 'xlsm', 'xltx', 'xltm', 'qpw'];
const OOXML = new Set(['xlsx', 'xlsm', 'xltx', 'xltm']);

/** Options of the sheet reader (plugin options `reader:sheet`), with their defaults. */
export const SHEET_READER_OPTIONS = z.strictObject({
  /** cells read per workbook before truncating, with an issue (default: no truncation; ReadLimits.cells fails the read) */
  maxCells: z.number().int().positive().optional(),
  /** rows per Table object; longer tables are split, repeating the header row */
  maxTableRows: z.number().int().min(1).default(200),
  /** time limit of one xls/qpw read, which runs in a worker thread, ms (default: the shared limits.parseTimeoutMs, at most 120 s) */
  legacyTimeoutMs: z.number().int().positive().optional(),
});
export type SheetReaderOptions = z.input<typeof SHEET_READER_OPTIONS>;

/** The sheet reader, from its options (checked here) and the shared parse time limit; the plugin makes it so. */
export function createSheetReader(ctx: { options?: SheetReaderOptions; shared?: Partial<Pick<SharedSettings, 'limits.parseTimeoutMs'>> } = {}): Omit<ReaderPlugin, 'formats'> {
  const o = checkOptions(SHEET_READER_OPTIONS, ctx.options, 'reader:sheet');
  const maxCells = o.maxCells ?? Infinity;
  const maxTableRows = o.maxTableRows;
  const legacyTimeoutMs = o.legacyTimeoutMs ?? Math.min(120_000, ctx.shared?.['limits.parseTimeoutMs'] ?? SHARED_DEFAULTS['limits.parseTimeoutMs']);

  return {
    async read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
      const format = input.format.toLowerCase();
      if (!SHEET_FORMATS.includes(format)) throw errors.unsupported(`the sheet reader does not read ${input.format}`);
      checkAbort(options.signal);
      return guard(format, options.signal, async () => {
        const limits = readLimits(options);
        const budget: CellBudget = { remaining: maxCells, truncated: false, limit: limits.cells, label: format };
        const builder = new DocumentBuilder(input.documentId, input.name, format);
        let sheets: SheetData[];
        if (format === 'csv') {
          const stat = await fs.stat(input.path);
          if (stat.size === 0) throw errors.processing('csv could not be read: the file is empty');
          const csv = await readCsv(input.path, path.parse(input.name).name || 'Sheet1', budget, options.signal);
          sheets = [csv.sheet];
          builder.metadata = { ...encodingMetadata(csv), delimiter: csv.delimiter };
        } else {
          const bytes = new Uint8Array(await fs.readFile(input.path));
          if (bytes.byteLength === 0) throw errors.processing(`${format} could not be read: the file is empty`);
          if (OOXML.has(format)) {
            // an encrypted OOXML workbook is a CFB container holding the encrypted package
            if (isCfb(bytes)) throw errors.processing(`${format} could not be read: the file is password-protected (encrypted)`);
            const book = await readOoxml({ bytes, label: format, limits, budget, signal: options.signal, maxSheets: options.maxPages });
            sheets = book.sheets;
            try {
              const charts = await book.charts();
              for (const s of sheets) s.charts = charts.get(s.name);
            } catch (e) {
              if (options.signal?.aborted || (isQuireError(e) && e.code === 'UNPROCESSABLE')) throw e;
              builder.issue({ code: 'charts_unreadable', stage: 'parse', message: `Charts could not be read: ${isQuireError(e) ? e.message : 'a chart part is damaged'}` });
            }
          } else {
            sheets = await readLegacy(bytes, budget, { signal: options.signal, maxSheets: options.maxPages, timeoutMs: legacyTimeoutMs, maxPages: limits.pages, label: format });
          }
        }
        if (budget.truncated) {
          builder.issue({ code: 'cell_limit', stage: 'parse', page: sheets.length, message: `The workbook has more than ${maxCells.toLocaleString('en')} cells; it was truncated there.` });
        }
        sheets.forEach((sheet, i) => {
          checkAbort(options.signal);
          const page = i + 1;
          builder.addPage({ number: page, width: NOMINAL_PAGE.width, height: NOMINAL_PAGE.height, ocr: false, confidence: 1, name: sheet.name });
          emitSheet(builder, sheet, { page, sheetHeading: format !== 'csv', maxTableRows });
          options.onProgress?.((i + 1) / sheets.length);
        });
        if (!sheets.length) builder.addPage({ number: 1, width: NOMINAL_PAGE.width, height: NOMINAL_PAGE.height, ocr: false, confidence: 1 });
        builder.metadata.sheets = sheets.map((s) => s.name);
        return builder.build();
      });
    },
  };
}

export default definePlugin({
  kind: 'reader',
  name: 'sheet',
  core: '^1',
  description: 'Spreadsheet reader: OOXML read from the package while it inflates, xlsx (SheetJS) for legacy formats, csv-parse for csv.',
  formats: builtinFormats(...SHEET_FORMATS),
  options: SHEET_READER_OPTIONS,
  shared: ['limits.parseTimeoutMs'],
  create: (ctx) => createSheetReader(ctx),
});
