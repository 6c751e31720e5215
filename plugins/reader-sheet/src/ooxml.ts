/** OOXML workbooks (xlsx, xlsm, xltx, xltm) through exceljs: cached formula values, dates, merges. */
import ExcelJS from 'exceljs';
import { unzipSync, strFromU8 } from 'fflate';
import { parseChart, parseRels, relsOf } from './chart.js';
import type { ChartInfo } from './chart.js';
import type { Merge, SheetCell, SheetData } from './model.js';
import { canonicalNumber, dateFromSerial, isoFromDate } from './model.js';
import { checkAbort } from './util.js';

export interface CellBudget {
  /** cells still allowed */
  remaining: number;
  truncated: boolean;
}

/** Whether an Excel number format shows a date or time. */
export function isDateFormat(fmt: string | undefined | null): boolean {
  if (!fmt || /^general$/i.test(fmt)) return false;
  const bare = fmt
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/\[(?!h\]|hh\]|m\]|mm\]|s\]|ss\])[^\]]*\]/gi, '');
  return /[dmyhs]/i.test(bare) && !/^[#0.,%E+\- ]*$/i.test(bare);
}

type Value = ExcelJS.CellValue | undefined;

function convert(value: Value, numFmt: string | undefined, date1904: boolean): { text: string; kind: SheetCell['kind'] } | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    return isDateFormat(numFmt) ? { text: isoFromDate(dateFromSerial(value, date1904)), kind: 'date' } : { text: canonicalNumber(value), kind: 'number' };
  }
  if (typeof value === 'string') return { text: value.trim(), kind: 'text' };
  if (typeof value === 'boolean') return { text: value ? 'TRUE' : 'FALSE', kind: 'bool' };
  if (value instanceof Date) return { text: isoFromDate(value), kind: 'date' };
  if (typeof value === 'object') {
    const v = value as unknown as Record<string, unknown>;
    if ('richText' in v && Array.isArray(v.richText)) return { text: (v.richText as { text?: string }[]).map((t) => t.text ?? '').join('').trim(), kind: 'text' };
    if ('error' in v) return { text: String(v.error), kind: 'error' };
    if ('formula' in v || 'sharedFormula' in v) return 'result' in v ? convert(v.result as Value, numFmt, date1904) : null;
    if ('hyperlink' in v || 'text' in v) return convert(v.text as Value, numFmt, date1904);
  }
  return null;
}

/** Uncompressed size of the worksheet parts, from the zip directory (nothing is inflated). */
export function sheetXmlBytes(bytes: Uint8Array): number {
  let total = 0;
  unzipSync(bytes, {
    filter: (f) => {
      if (/^xl\/worksheets\/[^/]+\.xml$/.test(f.name)) total += f.originalSize;
      return false;
    },
  });
  return total;
}

/**
 * Streaming read for very large workbooks (exceljs WorkbookReader): rows are visited as they are parsed and
 * only the cell texts are kept. That reader does not report merged cells; the caller records that.
 */
export async function readOoxmlStreaming(filePath: string, budget: CellBudget, signal: AbortSignal | undefined, maxSheets?: number): Promise<SheetData[]> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(filePath, { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore' });
  const sheets: SheetData[] = [];
  let steps = 0;
  for await (const ws of reader) {
    const cells: SheetCell[] = [];
    const name = String((ws as unknown as { name?: string }).name ?? `Sheet${sheets.length + 1}`);
    for await (const row of ws) {
      if (++steps % 1000 === 0) checkAbort(signal);
      if (budget.truncated) continue; // drain the sheet
      row.eachCell({ includeEmpty: false }, (cell, colNumber) => {
        if (budget.truncated) return;
        const v = convert(cell.value as Value, cell.numFmt, false);
        if (!v || !v.text) return;
        if (budget.remaining <= 0) {
          budget.truncated = true;
          return;
        }
        budget.remaining--;
        cells.push({ r: row.number - 1, c: colNumber - 1, text: v.text, kind: v.kind });
      });
    }
    sheets.push({ name, cells, merges: [] });
  }
  // sheets arrive in package order; put them in tab order
  const order: string[] = ((reader as unknown as { model?: { sheets?: { name: string }[] } }).model?.sheets ?? []).map((s) => s.name);
  sheets.sort((a, b) => (order.indexOf(a.name) + 1 || 1e9) - (order.indexOf(b.name) + 1 || 1e9));
  return maxSheets ? sheets.slice(0, maxSheets) : sheets;
}

export async function readOoxml(bytes: Uint8Array, budget: CellBudget, signal: AbortSignal | undefined, maxSheets?: number): Promise<SheetData[]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  checkAbort(signal);
  const date1904 = !!(wb.properties as { date1904?: boolean } | undefined)?.date1904;
  const sheets: SheetData[] = [];
  for (const ws of wb.worksheets) {
    if (maxSheets && sheets.length >= maxSheets) break;
    const cells: SheetCell[] = [];
    const mergeMap = new Map<string, Merge>();
    let steps = 0;
    ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
      if (budget.truncated) return;
      if (++steps % 1000 === 0) checkAbort(signal);
      row.eachCell({ includeEmpty: false }, (cell, colNumber) => {
        if (budget.truncated) return;
        const r = rowNumber - 1;
        const c = colNumber - 1;
        if (cell.isMerged) {
          const master = cell.master;
          const key = master.address;
          const mr = Number(master.row) - 1;
          const mc = Number(master.col) - 1;
          const m = mergeMap.get(key) ?? { r0: mr, c0: mc, r1: mr, c1: mc };
          m.r1 = Math.max(m.r1, r);
          m.c1 = Math.max(m.c1, c);
          mergeMap.set(key, m);
          if (master !== cell && master.address !== cell.address) return;
        }
        const v = convert(cell.value as Value, cell.numFmt, date1904);
        if (!v || !v.text) return;
        if (budget.remaining <= 0) {
          budget.truncated = true;
          return;
        }
        budget.remaining--;
        cells.push({ r, c, text: v.text, kind: v.kind });
      });
    });
    sheets.push({ name: ws.name, cells, merges: [...mergeMap.values()].filter((m) => m.r1 > m.r0 || m.c1 > m.c0) });
    if (budget.truncated) break;
  }
  return sheets;
}

/** Charts drawn on each sheet (by sheet name), read from the package parts; empty when there are none. */
export function sheetCharts(bytes: Uint8Array): Map<string, ChartInfo[]> {
  const out = new Map<string, ChartInfo[]>();
  const files = unzipSync(bytes, { filter: (f) => /^xl\/(workbook\.xml|_rels\/workbook\.xml\.rels|worksheets\/_rels\/.*\.rels|drawings\/_rels\/.*\.rels|charts\/chart[^/]*\.xml)$/.test(f.name) });
  if (!Object.keys(files).some((k) => k.startsWith('xl/charts/'))) return out;
  const text = (name: string) => (files[name] ? strFromU8(files[name]!) : '');
  const wbRels = parseRels(text('xl/_rels/workbook.xml.rels'), 'xl/_rels/workbook.xml.rels');
  for (const m of text('xl/workbook.xml').matchAll(/<sheet\b([^>]*)\/?>/g)) {
    const name = /\bname="([^"]*)"/.exec(m[1]!)?.[1];
    const rid = /\br:id="([^"]*)"/.exec(m[1]!)?.[1];
    const sheetPart = rid ? wbRels.get(rid)?.target : undefined;
    if (!name || !sheetPart) continue;
    const charts: ChartInfo[] = [];
    for (const d of parseRels(text(relsOf(sheetPart)), relsOf(sheetPart)).values()) {
      if (!d.type.endsWith('/drawing')) continue;
      for (const c of parseRels(text(relsOf(d.target)), relsOf(d.target)).values()) {
        if (!c.type.endsWith('/chart')) continue;
        const info = parseChart(text(c.target));
        if (info) charts.push(info);
      }
    }
    if (charts.length) out.set(decodeXmlAttr(name), charts);
  }
  return out;
}

function decodeXmlAttr(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
