/**
 * What every spreadsheet source (exceljs, SheetJS, csv-parse) is turned into — plain sparse cells and merges —
 * and how a sheet becomes Quire content: a heading per sheet, a title row kept as a heading, tables split
 * at blank rows when a new header follows, header rows marked, merged cells as spans, and large tables split
 * into tables of at most `maxTableRows` rows that repeat the header row.
 */
import type { DocumentBuilder, TableCell } from '@quire/core';
import type { ChartInfo } from './chart.js';

export type CellKind = 'text' | 'number' | 'date' | 'bool' | 'error';

export interface SheetCell {
  /** 0-based row and column */
  r: number;
  c: number;
  text: string;
  kind: CellKind;
}

export interface Merge {
  r0: number;
  c0: number;
  r1: number;
  c1: number;
}

export interface SheetData {
  name: string;
  cells: SheetCell[];
  merges: Merge[];
  /** charts drawn on the sheet */
  charts?: ChartInfo[];
}

export interface EmitOptions {
  page: number;
  /** emit the sheet name as a level-1 heading (workbooks; not csv) */
  sheetHeading: boolean;
  maxTableRows: number;
}

/** Canonical number text, independent of the display format: at most 15 significant digits, no float noise. */
export function canonicalNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(Number(n.toPrecision(15)));
}

/** ISO 8601 from calendar parts; date only when there is no time part. */
export function isoFromParts(y: number, m: number, d: number, hh = 0, mm = 0, ss = 0): string {
  const p = (v: number, w = 2) => String(v).padStart(w, '0');
  const date = `${p(y, 4)}-${p(m)}-${p(d)}`;
  return hh || mm || ss ? `${date}T${p(hh)}:${p(mm)}:${p(ss)}` : date;
}

/** A spreadsheet Date (wall-clock time stored as UTC) as ISO 8601, rounded to the second. */
export function isoFromDate(date: Date): string {
  const t = Math.round(date.getTime() / 1000) * 1000;
  if (!Number.isFinite(t)) return '';
  const d = new Date(t);
  return isoFromParts(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
}

/** Excel serial date (1900 or 1904 system) → Date in UTC wall-clock. */
export function dateFromSerial(serial: number, date1904 = false): Date {
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  return new Date(epoch + Math.round(serial * 86400) * 1000);
}

const NUMERIC = /^[-+]?(\d{1,3}([ ,.']\d{3})*|\d+)([.,]\d+)?%?$/;
export const looksNumeric = (s: string) => NUMERIC.test(s.trim());

interface Row {
  r: number;
  cells: SheetCell[];
}

/** Lays out one sheet into the builder (on options.page). Returns the number of tables emitted. */
export function emitSheet(builder: DocumentBuilder, sheet: SheetData, o: EmitOptions): number {
  const base = { page: o.page, bbox: null, confidence: 1 } as const;
  if (o.sheetHeading) builder.addBlock({ type: 'heading', text: sheet.name, level: 1, ...base });
  const byRow = new Map<number, SheetCell[]>();
  for (const cell of sheet.cells) {
    if (!cell.text) continue;
    const list = byRow.get(cell.r);
    if (list) list.push(cell);
    else byRow.set(cell.r, [cell]);
  }
  const rows: Row[] = [...byRow.entries()].sort((a, b) => a[0] - b[0]).map(([r, cells]) => ({ r, cells: cells.sort((a, b) => a.c - b.c) }));
  if (!rows.length) return 0;
  const mergeAt = new Map<string, Merge>();
  for (const m of sheet.merges) mergeAt.set(`${m.r0}:${m.c0}`, m);
  const allText = (row: Row) => row.cells.every((c) => c.kind === 'text' && !looksNumeric(c.text));
  const wide = (row: Row) => {
    const first = row.cells[0]!;
    const m = mergeAt.get(`${first.r}:${first.c}`);
    return m ? m.c1 - m.c0 + 1 : 1;
  };

  let count = 0;
  for (const comp of components(rows, sheet.merges)) {
    let seg = comp;
    // a lone text cell, or a first row that is one cell merged across the table, is a title
    while (seg.length && seg[0]!.cells.length === 1 && seg[0]!.cells[0]!.kind === 'text' && (seg.length === 1 || wide(seg[0]!) > 1 || seg[1]!.cells.length > 1)) {
      const text = seg[0]!.cells[0]!.text;
      builder.addBlock({ type: text.length <= 200 ? 'heading' : 'paragraph', text, level: 2, ...base });
      seg = seg.slice(1);
    }
    if (!seg.length) continue;
    count += emitTable(builder, seg, mergeAt, allText(seg[0]!), o, sheet.name);
  }
  for (const chart of sheet.charts ?? []) count += emitChart(builder, chart, o.page);
  return count;
}

/**
 * Tables of a sheet: groups of cells connected to each other (8-neighbourhood, merged areas count as filled),
 * in reading order. A group right below another one with the same columns, whose first row is not a
 * header-like row, continues it (a blank row inside a table).
 */
function components(rows: Row[], merges: Merge[]): Row[][] {
  const key = (r: number, c: number) => `${r}:${c}`;
  const filled = new Map<string, SheetCell>();
  for (const row of rows) for (const cell of row.cells) filled.set(key(cell.r, cell.c), cell);
  const occupied = new Set<string>(filled.keys());
  for (const m of merges) {
    if (!filled.has(key(m.r0, m.c0))) continue;
    for (let r = m.r0; r <= m.r1 && r - m.r0 < 1000; r++) for (let c = m.c0; c <= m.c1 && c - m.c0 < 1000; c++) occupied.add(key(r, c));
  }
  const seen = new Set<string>();
  const groups: { cells: SheetCell[]; r0: number; r1: number; c0: number; c1: number }[] = [];
  for (const row of rows) {
    for (const start of row.cells) {
      const k0 = key(start.r, start.c);
      if (seen.has(k0)) continue;
      const g = { cells: [] as SheetCell[], r0: start.r, r1: start.r, c0: start.c, c1: start.c };
      const stack: [number, number][] = [[start.r, start.c]];
      seen.add(k0);
      while (stack.length) {
        const [r, c] = stack.pop()!;
        const cell = filled.get(key(r, c));
        if (cell) g.cells.push(cell);
        g.r0 = Math.min(g.r0, r);
        g.r1 = Math.max(g.r1, r);
        g.c0 = Math.min(g.c0, c);
        g.c1 = Math.max(g.c1, c);
        for (let dr = -1; dr <= 1; dr++) {
          for (let dc = -1; dc <= 1; dc++) {
            const k = key(r + dr, c + dc);
            if ((dr || dc) && occupied.has(k) && !seen.has(k)) {
              seen.add(k);
              stack.push([r + dr, c + dc]);
            }
          }
        }
      }
      groups.push(g);
    }
  }
  groups.sort((a, b) => a.r0 - b.r0 || a.c0 - b.c0);
  const toRows = (cells: SheetCell[]): Row[] => {
    const m = new Map<number, SheetCell[]>();
    for (const c of cells) (m.get(c.r) ?? m.set(c.r, []).get(c.r)!).push(c);
    return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([r, cs]) => ({ r, cells: cs.sort((a, b) => a.c - b.c) }));
  };
  type Group = (typeof groups)[number];
  const firstRowAllText = (g: Group) => {
    const top = g.cells.filter((c) => c.r === g.r0);
    return top.every((c) => c.kind === 'text' && !looksNumeric(c.text));
  };
  const absorb = (a: Group, b: Group) => {
    a.cells.push(...b.cells);
    a.r0 = Math.min(a.r0, b.r0);
    a.r1 = Math.max(a.r1, b.r1);
    a.c0 = Math.min(a.c0, b.c0);
    a.c1 = Math.max(a.c1, b.c1);
  };
  // side by side pieces of one table (split by an empty spacer column): same rows, near each other
  // below a table, same columns, separated by blank rows, not starting with a header-like row: a continuation
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let i = 0; i < groups.length; i++) {
      for (let j = 0; j < groups.length; j++) {
        if (i === j) continue;
        const a = groups[i]!;
        const b = groups[j]!;
        const sideBySide = b.c0 > a.c1 && b.c0 - a.c1 <= 3 && Math.abs(a.r0 - b.r0) <= 2 && Math.abs(a.r1 - b.r1) <= 1 && a.r1 - a.r0 >= 2;
        const below = b.r0 > a.r1 && b.r0 - a.r1 <= 3 && a.c0 === b.c0 && a.c1 === b.c1 && !firstRowAllText(b);
        if (sideBySide || below) {
          absorb(a, b);
          groups.splice(j, 1);
          merged = true;
          break outer;
        }
      }
    }
  }
  groups.sort((a, b) => a.r0 - b.r0 || a.c0 - b.c0);
  const out = groups.map((g) => ({ rows: toRows(g.cells), g }));
  return out.map((o) => o.rows);
}

function emitTable(builder: DocumentBuilder, seg: Row[], mergeAt: Map<string, Merge>, headerRow: boolean, o: EmitOptions, title: string): number {
  // columns in use (cells and the merges they start); empty spacer columns are dropped
  const used = new Set<number>();
  for (const row of seg) {
    for (const cell of row.cells) {
      const m = mergeAt.get(`${cell.r}:${cell.c}`);
      for (let c = cell.c; c <= (m ? Math.min(m.c1, cell.c + 1000) : cell.c); c++) used.add(c);
    }
  }
  const order = [...used].sort((a, b) => a - b);
  const colIndex = new Map(order.map((c, i) => [c, i]));
  const cols = order.length;
  const spanCols = (m: Merge) => order.filter((c) => c >= m.c0 && c <= m.c1).length;
  const rowIndex = new Map<number, number>();
  seg.forEach((row, i) => rowIndex.set(row.r, i));
  const spanRows = (m: Merge) => {
    let n = 0;
    for (let r = m.r0; r <= m.r1; r++) if (rowIndex.has(r)) n++;
    return Math.max(1, n);
  };
  const toCells = (row: Row, at: number, header: boolean, limit: number): TableCell[] =>
    row.cells.map((cell) => {
      const m = mergeAt.get(`${cell.r}:${cell.c}`);
      return {
        row: at,
        col: colIndex.get(cell.c)!,
        rowSpan: m ? Math.min(spanRows(m), limit - at) : 1,
        colSpan: m ? Math.max(1, spanCols(m)) : 1,
        text: cell.text,
        header,
      };
    });

  const head = headerRow && seg.length > 1 ? seg[0]! : null;
  const body = head ? seg.slice(1) : seg;
  const per = Math.max(1, o.maxTableRows - (head ? 1 : 0));
  let n = 0;
  for (let start = 0; start < body.length || (start === 0 && !body.length); start += per) {
    const part = body.slice(start, start + per);
    const total = part.length + (head ? 1 : 0);
    const cells: TableCell[] = [];
    if (head) cells.push(...toCells(head, 0, true, 1));
    part.forEach((row, i) => cells.push(...toCells(row, i + (head ? 1 : 0), false, total)));
    builder.addTable({ page: o.page, bbox: null, rows: total, cols, cells, title, confidence: 1 });
    n++;
    if (!body.length) break;
  }
  return n;
}

/** A chart as a caption ("Chart: title") and, when it has cached data, a table of it. */
export function emitChart(builder: DocumentBuilder, chart: ChartInfo, page: number): number {
  const label = `${chart.type[0]!.toUpperCase()}${chart.type.slice(1)} chart`;
  builder.addBlock({ type: 'caption', text: chart.title ? `${label}: ${chart.title}` : label, page, bbox: null, confidence: 1 });
  if (!chart.rows.length) return 0;
  const cells: TableCell[] = [];
  chart.header.forEach((text, col) => cells.push({ row: 0, col, rowSpan: 1, colSpan: 1, text, header: true }));
  chart.rows.forEach((r, i) => r.forEach((text, col) => cells.push({ row: i + 1, col, rowSpan: 1, colSpan: 1, text })));
  builder.addTable({ page, bbox: null, rows: chart.rows.length + 1, cols: chart.header.length, cells, title: chart.title ?? label, confidence: 1 });
  return 1;
}
