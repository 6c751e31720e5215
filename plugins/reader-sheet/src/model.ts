/**
 * What every spreadsheet source (the OOXML reader, SheetJS, csv-parse) is turned into — plain sparse cells and merges —
 * and how a sheet becomes Quire content: a heading per sheet, a title row kept as a heading, tables split
 * at blank rows when a new header follows, header rows marked, merged cells as spans, and large tables split
 * into tables of at most `maxTableRows` rows that repeat the header row.
 */
import type { DocumentBuilder, TableCell } from '@quire/core';
import type { ChartInfo } from '@quire/office';

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

/** One number per cell position (rows up to 2^30, columns up to 2^22): Map keys without strings. */
const COLS = 4194304;
const key = (r: number, c: number) => r * COLS + c;

/** Separate blocks of cells above which a sheet is read as one table (the joining of blocks is quadratic). */
const MAX_GROUPS = 1000;
/** A table part whose grid has more than this many positions per cell (+ SPARSE_GRACE) is emitted as rows of text. */
const SPARSE_FACTOR = 20;
const SPARSE_GRACE = 10_000;

/** Lays out one sheet into the builder (on options.page). Returns the number of tables emitted. */
/** Index of the first cell at column `c` or after it, in cells sorted by column (binary search). */
function firstAtOrAfter(cells: SheetCell[], c: number): number {
  let lo = 0;
  let hi = cells.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cells[mid]!.c < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

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
  const mergeAt = new Map<number, Merge>();
  for (const m of sheet.merges) mergeAt.set(key(m.r0, m.c0), m);
  const allText = (row: Row) => row.cells.every((c) => c.kind === 'text' && !looksNumeric(c.text));
  const wide = (row: Row) => {
    const first = row.cells[0]!;
    const m = mergeAt.get(key(first.r, first.c));
    return m ? m.c1 - m.c0 + 1 : 1;
  };

  let count = 0;
  for (const comp of components(rows, sheet.merges)) {
    let seg = comp;
    // a lone text cell, or a first row that is one cell merged across the table, is a title
    let skip = 0;
    while (skip < seg.length && seg[skip]!.cells.length === 1 && seg[skip]!.cells[0]!.kind === 'text' && (skip === seg.length - 1 || wide(seg[skip]!) > 1 || seg[skip + 1]!.cells.length > 1)) {
      const text = seg[skip]!.cells[0]!.text;
      builder.addBlock({ type: text.length <= 200 ? 'heading' : 'paragraph', text, level: 2, ...base });
      skip++;
    }
    if (skip) seg = seg.slice(skip);
    if (!seg.length) continue;
    count += emitTable(builder, seg, mergeAt, allText(seg[0]!), o, sheet.name);
  }
  for (const chart of sheet.charts ?? []) count += emitChart(builder, chart, o.page);
  return count;
}

/**
 * Tables of a sheet: groups of cells connected to each other (8-neighbourhood, merged areas count as filled),
 * in reading order. A group right below another one with the same columns, whose first row is not a
 * header-like row, continues it (a blank row inside a table). A sheet of more than MAX_GROUPS groups (cells
 * scattered all over) is one table.
 */
function components(rows: Row[], merges: Merge[]): Row[][] {
  // positions: every cell, and the area of merges that start at a cell (within a budget proportional to the
  // cells: merges can be huge), row by row with sorted columns; a group is found by walking neighbours
  const rowAt = new Map<number, number>();
  rows.forEach((row, i) => rowAt.set(row.r, i));
  const extra = new Map<number, number[]>();
  let budget = 4 * rows.reduce((n, r) => n + r.cells.length, 0) + 65_536;
  const filledAt = (r: number, c: number) => {
    const i = rowAt.get(r);
    if (i === undefined) return false;
    const cells = rows[i]!.cells;
    const at = firstAtOrAfter(cells, c);
    return at < cells.length && cells[at]!.c === c;
  };
  for (const m of merges) {
    if (!filledAt(m.r0, m.c0)) continue;
    for (let r = m.r0; r <= m.r1 && r - m.r0 < 1000 && budget > 0; r++) {
      const list = extra.get(r) ?? extra.set(r, []).get(r)!;
      for (let c = m.c0; c <= m.c1 && c - m.c0 < 1000 && budget > 0; c++, budget--) list.push(c);
    }
  }
  // one line per row number: its cells sorted by column, with merged areas as placeholder cells (no text)
  let lines: Row[] = rows;
  if (extra.size) {
    const byRow = new Map<number, SheetCell[]>();
    for (const row of rows) byRow.set(row.r, row.cells.slice());
    for (const [r, cols] of extra) {
      const list = byRow.get(r) ?? byRow.set(r, []).get(r)!;
      for (const c of cols) list.push({ r, c, text: '', kind: 'text' });
    }
    lines = [...byRow.entries()]
      .sort((x, y) => x[0] - y[0])
      .map(([r, cells]) => {
        cells.sort((x, y) => x.c - y.c || (x.text ? -1 : 1));
        return { r, cells: cells.filter((c, i) => i === 0 || c.c !== cells[i - 1]!.c) };
      });
  }
  const lineAt = new Map<number, number>();
  const base = new Float64Array(lines.length + 1);
  lines.forEach((l, i) => {
    lineAt.set(l.r, i);
    base[i + 1] = base[i]! + l.cells.length;
  });
  const seen = new Uint8Array(base[lines.length]!);
  const groups: { cells: SheetCell[]; r0: number; r1: number; c0: number; c1: number }[] = [];
  const stack: number[] = [];
  for (let li = 0; li < lines.length; li++) {
    const line0 = lines[li]!;
    for (let k = 0; k < line0.cells.length; k++) {
      if (seen[base[li]! + k] || !line0.cells[k]!.text) continue;
      const g = { cells: [] as SheetCell[], r0: line0.r, r1: line0.r, c0: line0.cells[k]!.c, c1: line0.cells[k]!.c };
      seen[base[li]! + k] = 1;
      stack.push(li, k);
      while (stack.length) {
        const pos = stack.pop()!;
        const lj = stack.pop()!;
        const cell = lines[lj]!.cells[pos]!;
        const r = cell.r;
        const c = cell.c;
        if (cell.text) g.cells.push(cell);
        if (r < g.r0) g.r0 = r;
        if (r > g.r1) g.r1 = r;
        if (c < g.c0) g.c0 = c;
        if (c > g.c1) g.c1 = c;
        for (let dr = -1; dr <= 1; dr++) {
          const ln = dr === 0 ? lj : lineAt.get(r + dr);
          if (ln === undefined) continue;
          const cells = lines[ln]!.cells;
          for (let x = firstAtOrAfter(cells, c - 1); x < cells.length && cells[x]!.c <= c + 1; x++) {
            if (seen[base[ln]! + x]) continue;
            seen[base[ln]! + x] = 1;
            stack.push(ln, x);
          }
        }
      }
      groups.push(g);
    }
  }
  // the usual sheet: one block of cells, already in reading order
  if (groups.length === 1 && groups[0]!.cells.length === rows.reduce((n, r) => n + r.cells.length, 0)) return [rows];
  if (groups.length > MAX_GROUPS) return [rows];
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
    for (const c of b.cells) a.cells.push(c);
    a.r0 = Math.min(a.r0, b.r0);
    a.r1 = Math.max(a.r1, b.r1);
    a.c0 = Math.min(a.c0, b.c0);
    a.c1 = Math.max(a.c1, b.c1);
  };
  // side by side pieces of one table (split by an empty spacer column): same rows, near each other
  // below a table, same columns, separated by blank rows, not starting with a header-like row: a continuation
  // (passes over all pairs until nothing joins; a group keeps absorbing within a pass)
  let merged = true;
  while (merged) {
    merged = false;
    for (let i = 0; i < groups.length; i++) {
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
          if (j < i) i--;
          j = -1; // a changed: look at every group again
        }
      }
    }
  }
  groups.sort((a, b) => a.r0 - b.r0 || a.c0 - b.c0);
  return groups.map((g) => toRows(g.cells));
}

/** Index of the first element of sorted `a` that is ≥ v. */
function lowerBound(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function emitTable(builder: DocumentBuilder, seg: Row[], mergeAt: Map<number, Merge>, headerRow: boolean, o: EmitOptions, title: string): number {
  const head = headerRow && seg.length > 1 ? seg[0]! : null;
  const body = head ? seg.slice(1) : seg;
  const segRows = seg.map((r) => r.r);
  const per = Math.max(1, o.maxTableRows - (head ? 1 : 0));
  let n = 0;
  for (let start = 0; start < body.length || (start === 0 && !body.length); start += per) {
    const part = body.slice(start, start + per);
    const rowsOfPart = head ? [head, ...part] : part;
    // columns in use in this part (cells and the merges they start); empty spacer columns are dropped
    const spans: [number, number][] = [];
    let cellCount = 0;
    for (const row of rowsOfPart) {
      for (const cell of row.cells) {
        const m = mergeAt.get(key(cell.r, cell.c));
        spans.push([cell.c, m ? Math.min(m.c1, cell.c + 1000) : cell.c]);
        cellCount++;
      }
    }
    spans.sort((a, b) => a[0] - b[0]);
    const order: number[] = [];
    let upTo = -1;
    for (const [c0, c1] of spans) {
      for (let c = Math.max(c0, upTo + 1); c <= c1; c++) order.push(c);
      if (c1 > upTo) upTo = c1;
    }
    const cols = order.length;
    const total = rowsOfPart.length;
    if (total * cols > SPARSE_FACTOR * cellCount + SPARSE_GRACE) {
      // cells scattered over a huge grid: their text row by row, not a table of mostly empty cells
      for (const row of rowsOfPart) builder.addBlock({ type: 'paragraph', text: row.cells.map((c) => c.text).join(' | '), page: o.page, bbox: null, confidence: 1 }, '\n');
      if (!body.length) break;
      continue;
    }
    const colIndex = new Map(order.map((c, i) => [c, i]));
    const spanCols = (m: Merge) => lowerBound(order, m.c1 + 1) - lowerBound(order, m.c0);
    const spanRows = (m: Merge) => Math.max(1, lowerBound(segRows, m.r1 + 1) - lowerBound(segRows, m.r0));
    const toCells = (row: Row, at: number, header: boolean, limit: number): TableCell[] =>
      row.cells.map((cell) => {
        const m = mergeAt.get(key(cell.r, cell.c));
        return {
          row: at,
          col: colIndex.get(cell.c)!,
          rowSpan: m ? Math.min(spanRows(m), limit - at) : 1,
          colSpan: m ? Math.max(1, spanCols(m)) : 1,
          text: cell.text,
          header,
        };
      });
    const cells: TableCell[] = [];
    if (head) cells.push(...toCells(head, 0, true, 1));
    part.forEach((row, i) => {
      for (const c of toCells(row, i + (head ? 1 : 0), false, total)) cells.push(c);
    });
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
