/**
 * Spreadsheet reader: exceljs for OOXML (xlsx, xlsm, xltx, xltm), SheetJS 0.18.5 for legacy xls / qpw only,
 * csv-parse for csv. One page per sheet (page.name = sheet name), every sheet's data as tables.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocumentBuilder, definePlugin, errors } from '@quire/core';
import type { ParsedDocument, PluginContext, ReadOptions, ReaderInput, ReaderPlugin } from '@quire/core';
import { emitSheet } from './model.js';
import type { SheetData } from './model.js';
import { readOoxml, readOoxmlStreaming, sheetCharts, sheetXmlBytes } from './ooxml.js';
import type { CellBudget } from './ooxml.js';
import { readLegacy } from './legacy.js';
import { readCsv } from './csv.js';
import { NOMINAL_PAGE, checkAbort, guard, isCfb, raceSignal } from './util.js';

export { canonicalNumber, isoFromDate, isoFromParts, dateFromSerial, emitSheet } from './model.js';
export type { SheetCell, SheetData, Merge, CellKind, EmitOptions } from './model.js';
export { isDateFormat } from './ooxml.js';
export { sniffDelimiter } from './csv.js';
export { parseChart, parseRels, relsOf } from './chart.js';
export type { ChartInfo } from './chart.js';

export const SHEET_FORMATS = ['csv', 'xlsx', 'xls', 'xlsm', 'xltx', 'xltm', 'qpw'];
const OOXML = new Set(['xlsx', 'xlsm', 'xltx', 'xltm']);

export interface SheetReaderOptions {
  /** cells read per workbook before truncating (default 2,000,000) */
  maxCells?: number;
  /** rows per Table object; longer tables are split, repeating the header row (default 200) */
  maxTableRows?: number;
  /** time limit of one xls/qpw read, which runs in a worker thread (default: min(120 s, config.limits.parseTimeoutMs)) */
  legacyTimeoutMs?: number;
  /** OOXML workbooks whose worksheet XML exceeds this many bytes are read with exceljs' streaming reader (default 64 MB) */
  streamAboveBytes?: number;
}

export function createSheetReader(ctx: Pick<PluginContext, 'options'> & { config?: PluginContext['config'] }): ReaderPlugin {
  const o = (ctx.options ?? {}) as SheetReaderOptions;
  const maxCells = o.maxCells ?? 2_000_000;
  const maxTableRows = o.maxTableRows ?? 200;
  const legacyTimeoutMs = o.legacyTimeoutMs ?? Math.min(120_000, ctx.config?.limits?.parseTimeoutMs ?? 120_000);
  const streamAboveBytes = o.streamAboveBytes ?? 64 * 1024 * 1024;

  return {
    formats: SHEET_FORMATS,
    async read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
      const format = input.format.toLowerCase();
      if (!SHEET_FORMATS.includes(format)) throw errors.unsupported(`the sheet reader does not read ${input.format}`);
      checkAbort(options.signal);
      return guard(format, options.signal, async () => {
        const budget: CellBudget = { remaining: maxCells, truncated: false };
        const builder = new DocumentBuilder(input.documentId, input.name, format);
        let sheets: SheetData[];
        if (format === 'csv') {
          const stat = await fs.stat(input.path);
          if (stat.size === 0) throw errors.processing('csv could not be read: the file is empty');
          const csv = await readCsv(input.path, path.parse(input.name).name || 'Sheet1', budget, options.signal);
          sheets = [csv.sheet];
          builder.metadata = { encoding: csv.encoding, delimiter: csv.delimiter };
        } else {
          const bytes = new Uint8Array(await fs.readFile(input.path));
          if (bytes.byteLength === 0) throw errors.processing(`${format} could not be read: the file is empty`);
          if (OOXML.has(format)) {
            // an encrypted OOXML workbook is a CFB container holding the encrypted package
            if (isCfb(bytes)) throw errors.processing(`${format} could not be read: the file is password-protected (encrypted)`);
            const xmlBytes = sheetXmlBytes(bytes);
            if (xmlBytes > streamAboveBytes) {
              sheets = await raceSignal(readOoxmlStreaming(input.path, budget, options.signal, options.maxPages), options.signal);
              builder.issue({ code: 'streamed', stage: 'parse', message: `Large workbook (${Math.round(xmlBytes / 1048576)} MB of sheet XML) read in streaming mode: merged cells are not reported as spans.` });
            } else sheets = await raceSignal(readOoxml(bytes, budget, options.signal, options.maxPages), options.signal);
            try {
              const charts = sheetCharts(bytes);
              for (const s of sheets) s.charts = charts.get(s.name);
            } catch (e) {
              builder.issue({ code: 'charts_unreadable', stage: 'parse', message: `Charts could not be read: ${e instanceof Error ? e.message : String(e)}` });
            }
          } else {
            sheets = await readLegacy(bytes, budget, { signal: options.signal, maxSheets: options.maxPages, timeoutMs: legacyTimeoutMs });
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
  description: 'Spreadsheet reader: exceljs for OOXML, xlsx for legacy formats, csv-parse for csv.',
  create: (ctx) => createSheetReader(ctx),
});
