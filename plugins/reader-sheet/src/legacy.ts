/**
 * Legacy workbooks (xls, qpw) through SheetJS `xlsx` 0.18.5. That version has known advisories (prototype
 * pollution, ReDoS), so it is used for these binary formats only — never OOXML — in dense mode without
 * formulas, HTML or styles, and nothing it returns leaves this module: cells are copied into plain
 * SheetCell values right here.
 */
import XLSX from 'xlsx';
import type { Merge, SheetCell, SheetData } from './model.js';
import { canonicalNumber, isoFromParts } from './model.js';
import type { CellBudget } from './ooxml.js';
import { checkAbort } from './util.js';

interface DenseCell {
  v?: unknown;
  t?: string;
  z?: string | number;
  w?: string;
}

export function readLegacy(bytes: Uint8Array, budget: CellBudget, signal: AbortSignal | undefined, maxSheets?: number): SheetData[] {
  let wb: XLSX.WorkBook;
  try {
    wb = XLSX.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      type: 'buffer',
      dense: true,
      cellNF: true,
      cellDates: false,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      cellText: false,
      sheetStubs: false,
      bookVBA: false,
    });
  } catch (e) {
    // re-create the error so no library object escapes
    throw new Error(e instanceof Error ? e.message : String(e));
  }
  checkAbort(signal);
  const date1904 = !!wb.Workbook?.WBProps?.date1904;
  const out: SheetData[] = [];
  const names = (wb.SheetNames ?? []).map(String);
  for (const name of names) {
    if (maxSheets && out.length >= maxSheets) break;
    const ws = wb.Sheets[name] as unknown as (DenseCell[] | undefined)[] & { '!merges'?: XLSX.Range[] };
    const cells: SheetCell[] = [];
    if (Array.isArray(ws)) {
      for (let r = 0; r < ws.length && !budget.truncated; r++) {
        const row = ws[r];
        if (!row) continue; // blank rows are skipped
        if (r % 1000 === 0) checkAbort(signal);
        for (let c = 0; c < row.length; c++) {
          const cell = row[c];
          if (!cell) continue;
          const v = convert(cell, date1904);
          if (!v || !v.text) continue;
          if (budget.remaining <= 0) {
            budget.truncated = true;
            break;
          }
          budget.remaining--;
          cells.push({ r, c, text: v.text, kind: v.kind });
        }
      }
    }
    const merges: Merge[] = (Array.isArray(ws?.['!merges']) ? ws['!merges'] : []).map((m) => ({ r0: Number(m.s.r), c0: Number(m.s.c), r1: Number(m.e.r), c1: Number(m.e.c) }));
    out.push({ name, cells, merges });
    if (budget.truncated) break;
  }
  return out;
}

function convert(cell: DenseCell, date1904: boolean): { text: string; kind: SheetCell['kind'] } | null {
  switch (cell.t) {
    case 'n': {
      const n = Number(cell.v);
      const fmt = typeof cell.z === 'string' ? cell.z : typeof cell.z === 'number' ? (XLSX.SSF.get_table()[cell.z] as string | undefined) : undefined;
      if (fmt && XLSX.SSF.is_date(fmt)) {
        const p = XLSX.SSF.parse_date_code(n, { date1904 });
        if (p) return { text: isoFromParts(p.y, p.m, p.d, p.H, p.M, Math.round(p.S)), kind: 'date' };
      }
      return { text: canonicalNumber(n), kind: 'number' };
    }
    case 's':
    case 'str':
      return { text: String(cell.v ?? '').trim(), kind: 'text' };
    case 'b':
      return { text: cell.v ? 'TRUE' : 'FALSE', kind: 'bool' };
    case 'e':
      return { text: String(cell.w ?? '#ERROR'), kind: 'error' };
    case 'd':
      return cell.v instanceof Date ? { text: cell.v.toISOString().slice(0, 10), kind: 'date' } : null;
    default:
      return null;
  }
}
