/**
 * Grid geometry shared by the readers: text lines from positioned text, and tables drawn with ruling
 * lines (a PDF's vector rules, or rules found in the pixels of a scanned page) with their text items.
 * Coordinates are page points, origin top-left, y down.
 */
import type { BBox, Table, TableCell } from '@quire/core';
import { round } from '@quire/text';
import { cleanText, joinLines } from './text.js';

/** A run of text at a position: a PDF text item, or an OCR word. */
export interface TextItem {
  str: string;
  x: number;
  /** top and bottom of the glyph box, baseline in between */
  top: number;
  bottom: number;
  baseline: number;
  width: number;
  /** font size in points */
  size: number;
  bold: boolean;
  italic?: boolean;
  rtl: boolean;
}

/** A ruling line: horizontal when y0 === y1, vertical when x0 === x1. */
export interface Rule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface TableElement {
  kind: 'table';
  table: Omit<Table, 'page'>;
  bbox: BBox;
}

// ---------- geometry helpers ----------

export interface Box {
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

export const width = (b: Box) => b.x1 - b.x0;
export const height = (b: Box) => b.bottom - b.top;
export const toBBox = (b: Box): BBox => ({ x: round(b.x0), y: round(b.top), width: round(b.x1 - b.x0), height: round(b.bottom - b.top) });
export const vOverlap = (a: Box, b: Box) => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
export const hOverlap = (a: Box, b: Box) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

export function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function unionBox(boxes: Box[]): Box {
  let x0 = Infinity, x1 = -Infinity, top = Infinity, bottom = -Infinity;
  for (const b of boxes) {
    if (b.x0 < x0) x0 = b.x0;
    if (b.x1 > x1) x1 = b.x1;
    if (b.top < top) top = b.top;
    if (b.bottom > bottom) bottom = b.bottom;
  }
  return { x0, x1, top, bottom };
}


// ---------- lines ----------

export interface Line extends Box {
  items: TextItem[];
  size: number;
}


export const itemBox = (it: TextItem): Box => ({ x0: it.x, x1: it.x + it.width, top: it.top, bottom: it.bottom });

/** Groups items into lines by vertical overlap; items of a line sorted left to right (right to left for RTL lines). */
export function buildLines(items: TextItem[]): Line[] {
  const sorted = items
    .filter((it) => it.str.length > 0 && it.bottom > it.top)
    .sort((a, b) => (a.top + a.bottom) / 2 - (b.top + b.bottom) / 2 || a.x - b.x);
  const lines: Line[] = [];
  let open: Line[] = [];
  for (const it of sorted) {
    const b = itemBox(it);
    const h = height(b);
    // lines far above can take no more items (items come in order of their vertical centre)
    if (open.length > 24) open = open.filter((l) => l.bottom > b.top - h * 4);
    let best: Line | null = null;
    let bestOv = 0;
    for (const l of open) {
      const ov = vOverlap(l, b);
      const need = 0.5 * Math.min(h, height(l));
      if (ov >= need && ov > bestOv) {
        // a big item (drop cap, heading) does not swallow several small lines: baselines must be close
        if (Math.abs(l.items[l.items.length - 1]!.baseline - it.baseline) > Math.max(l.size, it.size) * 0.6) continue;
        best = l;
        bestOv = ov;
      }
    }
    if (best) {
      best.items.push(it);
      best.x0 = Math.min(best.x0, b.x0);
      best.x1 = Math.max(best.x1, b.x1);
      best.top = Math.min(best.top, b.top);
      best.bottom = Math.max(best.bottom, b.bottom);
      best.size = Math.max(best.size, it.size);
    } else {
      // fields written out: an object spread costs more than the rest of this loop
      const l: Line = { x0: b.x0, x1: b.x1, top: b.top, bottom: b.bottom, items: [it], size: it.size };
      lines.push(l);
      open.push(l);
    }
  }
  for (const l of lines) {
    l.items.sort((a, b) => a.x - b.x);
    // drop duplicates drawn on top of each other (fake bold, shadows)
    l.items = l.items.filter((it, i, arr) => {
      const prev = arr[i - 1];
      return !(prev && prev.str === it.str && Math.abs(prev.x - it.x) < 1 && Math.abs(prev.baseline - it.baseline) < 1);
    });
  }
  lines.sort((a, b) => a.top - b.top || a.x0 - b.x0);
  return lines;
}

const WHITESPACE = /\s/;

/** Text of items on one line with spaces inserted by gap. */
export function itemsText(items: TextItem[]): string {
  let out = '';
  let prev: TextItem | null = null;
  for (const it of items) {
    const s = cleanText(it.str);
    if (prev) {
      const gap = it.x - (prev.x + prev.width);
      const size = Math.min(prev.size, it.size) || 1;
      // the last character of what is written so far (a regex anchored at the end would scan all of it)
      const hasSpace = (out.length > 0 && WHITESPACE.test(out[out.length - 1]!)) || /^\s/.test(s);
      if (!hasSpace && gap > size * 0.12) out += ' ';
    }
    out += s;
    prev = it;
  }
  return out.replace(/[ \t\u00a0]+/g, ' ').trim();
}

export const wordsOf = (s: string) => s.split(/\s+/).filter(Boolean).length;

// ---------- ruled tables ----------

interface HLine {
  y: number;
  x0: number;
  x1: number;
}
interface VLine {
  x: number;
  y0: number;
  y1: number;
}

export function mergeIntervals<T extends { a: number; b: number; k: number }>(list: T[], tolK: number, tolGap: number): { k: number; a: number; b: number }[] {
  const sorted = [...list].sort((p, q) => p.k - q.k || p.a - q.a);
  const groups: { k: number; items: T[] }[] = [];
  for (const it of sorted) {
    const g = groups[groups.length - 1];
    if (g && Math.abs(it.k - g.k) <= tolK) g.items.push(it);
    else groups.push({ k: it.k, items: [it] });
  }
  const out: { k: number; a: number; b: number }[] = [];
  for (const g of groups) {
    const k = g.items.reduce((s, i) => s + i.k, 0) / g.items.length;
    const items = [...g.items].sort((p, q) => p.a - q.a);
    let cur = { k, a: items[0]!.a, b: items[0]!.b };
    for (const it of items.slice(1)) {
      if (it.a <= cur.b + tolGap) cur.b = Math.max(cur.b, it.b);
      else {
        out.push(cur);
        cur = { k, a: it.a, b: it.b };
      }
    }
    out.push(cur);
  }
  return out;
}

export function clusterValues(values: number[], tol: number): number[] {
  const s = [...values].sort((a, b) => a - b);
  const out: number[][] = [];
  for (const v of s) {
    const g = out[out.length - 1];
    if (g && v - g[g.length - 1]! <= tol) g.push(v);
    else out.push([v]);
  }
  return out.map((g) => g.reduce((a, b) => a + b, 0) / g.length);
}

export interface GridTable {
  element: TableElement;
  used: Set<TextItem>;
  box: Box;
}

/**
 * Tables drawn with ruling lines: connected horizontal and vertical rules forming at least a 2x2 grid.
 * `charts`, when given, receives the boxes of grids that are charts (grid lines with a few labels among
 * many empty cells): their text is a figure's, no table's.
 */
export function findRuledTables(rules: Rule[], items: TextItem[], charts?: Box[]): GridTable[] {
  const TOL = 2.5;
  const hs = mergeIntervals(
    rules.filter((r) => Math.abs(r.y1 - r.y0) < 0.01 && r.x1 - r.x0 > 4).map((r) => ({ k: r.y0, a: Math.min(r.x0, r.x1), b: Math.max(r.x0, r.x1) })),
    1.5,
    TOL,
  ).map((m) => ({ y: m.k, x0: m.a, x1: m.b }) as HLine);
  const vs = mergeIntervals(
    rules.filter((r) => Math.abs(r.x1 - r.x0) < 0.01 && r.y1 - r.y0 > 4).map((r) => ({ k: r.x0, a: Math.min(r.y0, r.y1), b: Math.max(r.y0, r.y1) })),
    1.5,
    TOL,
  ).map((m) => ({ x: m.k, y0: m.a, y1: m.b }) as VLine);
  if (hs.length < 2 || vs.length < 2 || hs.length * vs.length > 250_000) return [];
  // connected components of intersecting rules
  const n = hs.length + vs.length;
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const cross = (h: HLine, v: VLine) => v.x >= h.x0 - TOL && v.x <= h.x1 + TOL && h.y >= v.y0 - TOL && h.y <= v.y1 + TOL;
  for (let i = 0; i < hs.length; i++) for (let j = 0; j < vs.length; j++) if (cross(hs[i]!, vs[j]!)) parent[find(i)] = find(hs.length + j);
  const comps = new Map<number, { h: HLine[]; v: VLine[] }>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const c = comps.get(r) ?? { h: [], v: [] };
    if (i < hs.length) c.h.push(hs[i]!);
    else c.v.push(vs[i - hs.length]!);
    comps.set(r, c);
  }
  const tables: GridTable[] = [];
  for (const { h, v } of comps.values()) {
    if (h.length < 2 || v.length < 2) continue;
    const hull: Box = { x0: Math.min(...v.map((l) => l.x)), x1: Math.max(...v.map((l) => l.x)), top: Math.min(...h.map((l) => l.y)), bottom: Math.max(...h.map((l) => l.y)) };
    const inHull = items.filter((it) => {
      const cx = it.x + it.width / 2;
      const cy = (it.top + it.bottom) / 2;
      return cx >= hull.x0 && cx <= hull.x1 && cy >= hull.top && cy <= hull.bottom;
    });
    const textH = median(inHull.map((it) => it.bottom - it.top)) || 8;
    const ys = dropSlivers(clusterValues(h.map((l) => l.y), TOL), h.map((l) => ({ at: l.y, len: l.x1 - l.x0 })), inHull.map((it) => (it.top + it.bottom) / 2), textH);
    const xs = dropSlivers(clusterValues(v.map((l) => l.x), TOL), v.map((l) => ({ at: l.x, len: l.y1 - l.y0 })), inHull.map((it) => it.x + it.width / 2), textH);
    // at least two rows and two columns: a framed box or a one-row strip is not a table
    if (ys.length < 3 || xs.length < 3) continue;
    const box: Box = { x0: xs[0]!, x1: xs[xs.length - 1]!, top: ys[0]!, bottom: ys[ys.length - 1]! };
    if (width(box) < 20 || height(box) < 8) continue;
    const t = gridTable(ys, xs, h, v, items, box);
    if (t === 'chart') charts?.push(box);
    else if (t) tables.push(t);
  }
  return tables;
}

/**
 * Grid lines closer than a line of text with no text between them are one boundary drawn twice (double
 * rules, a shaded box inset in its cell): the strip between them is no row or column. Of the two, the
 * boundary drawn longer stays.
 */
function dropSlivers(edges: number[], lines: { at: number; len: number }[], centres: number[], textH: number): number[] {
  const drawn = (e: number) => lines.reduce((a, l) => (Math.abs(l.at - e) <= 2.5 ? a + l.len : a), 0);
  const out = [...edges];
  for (let i = 0; i + 1 < out.length; ) {
    const a = out[i]!, b = out[i + 1]!;
    if (b - a < textH && !centres.some((c) => c > a && c < b)) {
      const keepFirst = i === 0 ? true : i + 2 === out.length ? false : drawn(a) >= drawn(b);
      out.splice(keepFirst ? i + 1 : i, 1);
    } else i++;
  }
  return out;
}

const NUMERIC = /^[-+(]?[$€£¥]?\s?\d[\d.,\s%)]*$/;

/**
 * Rows of a grid that hold several rows of the table: only some rules are drawn (a frame, a header rule)
 * and the data rows under them are lines of text that run across two or more columns, with numbers. Each
 * such line starts a row (a rule is assumed above it); a line in one column only (a wrapped label) stays
 * with the row above.
 */
function splitTextRows(ys: number[], xs: number[], h: HLine[], items: TextItem[]): { ys: number[]; h: HLine[] } {
  const outYs: number[] = [ys[0]!];
  const outH = [...h];
  for (let r = 0; r + 1 < ys.length; r++) {
    const y0 = ys[r]!, y1 = ys[r + 1]!;
    const inRow = items.filter((it) => {
      const cx = it.x + it.width / 2;
      const cy = (it.top + it.bottom) / 2;
      return cy > y0 && cy < y1 && cx >= xs[0]! && cx <= xs[xs.length - 1]!;
    });
    const lines = inRow.length >= 4 ? buildLines(inRow) : [];
    if (lines.length >= 2) {
      const starts: number[] = [];
      let numericLines = 0;
      lines.forEach((l, i) => {
        const byCol = new Map<number, TextItem[]>();
        for (const it of l.items) {
          const c = upperIndex(xs, it.x + it.width / 2);
          byCol.set(c, [...(byCol.get(c) ?? []), it]);
        }
        if (byCol.size < 2) return;
        if ([...byCol.values()].some((its) => NUMERIC.test(itemsText(its)))) numericLines++;
        if (i > 0 && lines[i - 1]!.bottom < l.top + 1) starts.push((lines[i - 1]!.bottom + l.top) / 2);
      });
      if (numericLines >= 2 && starts.length) {
        for (const y of starts) {
          outYs.push(y);
          outH.push({ y, x0: xs[0]!, x1: xs[xs.length - 1]! });
        }
      }
    }
    outYs.push(y1);
  }
  return { ys: outYs, h: outH };
}

function gridTable(ys0: number[], xs: number[], h0: HLine[], v: VLine[], items: TextItem[], box: Box): GridTable | 'chart' | null {
  const { ys, h } = splitTextRows(ys0, xs, h0, items);
  const rows = ys.length - 1;
  const cols = xs.length - 1;
  // is the boundary between two grid cells drawn? (a rule covers most of it)
  const vDrawn = (x: number, y0: number, y1: number) => v.some((l) => Math.abs(l.x - x) <= 2.5 && l.y0 <= y0 + (y1 - y0) * 0.25 && l.y1 >= y1 - (y1 - y0) * 0.25);
  const hDrawn = (y: number, x0: number, x1: number) => h.some((l) => Math.abs(l.y - y) <= 2.5 && l.x0 <= x0 + (x1 - x0) * 0.25 && l.x1 >= x1 - (x1 - x0) * 0.25);
  // base cells that hold text (by item centre)
  const inBox = items.filter((it) => {
    const cx = it.x + it.width / 2;
    const cy = (it.top + it.bottom) / 2;
    return cx >= box.x0 && cx <= box.x1 && cy >= box.top && cy <= box.bottom;
  });
  const textAt = new Set<number>();
  for (const it of inBox) {
    const c = upperIndex(xs, it.x + it.width / 2);
    const r = upperIndex(ys, (it.top + it.bottom) / 2);
    if (r >= 0 && c >= 0) textAt.add(r * cols + c);
  }
  const crossesV = (x: number, y0: number, y1: number) => inBox.some((it) => it.x < x - 1 && it.x + it.width > x + 1 && (it.top + it.bottom) / 2 > y0 && (it.top + it.bottom) / 2 < y1);
  const crossesH = (y: number, x0: number, x1: number) => inBox.some((it) => it.top < y - 1 && it.bottom > y + 1 && it.x + it.width / 2 > x0 && it.x + it.width / 2 < x1);
  // union-find over grid cells: joined where the boundary is not drawn and the join is visible — text
  // runs across it, or one side is empty (a label spanning columns); two filled cells stay apart
  const id = (r: number, c: number) => r * cols + c;
  const parent = Array.from({ length: rows * cols }, (_, i) => i);
  const texty = Array.from({ length: rows * cols }, (_, i) => textAt.has(i));
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const join = (a: number, b: number, crossing: boolean) => {
    const ra = find(a), rb = find(b);
    if (ra === rb) return;
    if (!crossing && texty[ra] && texty[rb]) return;
    parent[rb] = ra;
    texty[ra] = texty[ra]! || texty[rb]!;
  };
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c + 1 < cols; c++) {
      if (!vDrawn(xs[c + 1]!, ys[r]!, ys[r + 1]!)) join(id(r, c), id(r, c + 1), crossesV(xs[c + 1]!, ys[r]!, ys[r + 1]!));
    }
  }
  for (let r = 0; r + 1 < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (!hDrawn(ys[r + 1]!, xs[c]!, xs[c + 1]!)) join(id(r, c), id(r + 1, c), crossesH(ys[r + 1]!, xs[c]!, xs[c + 1]!));
    }
  }
  const regions = new Map<number, { r0: number; r1: number; c0: number; c1: number }>();
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const root = find(id(r, c));
      const g = regions.get(root);
      if (!g) regions.set(root, { r0: r, r1: r, c0: c, c1: c });
      else {
        g.r0 = Math.min(g.r0, r);
        g.r1 = Math.max(g.r1, r);
        g.c0 = Math.min(g.c0, c);
        g.c1 = Math.max(g.c1, c);
      }
    }
  }
  // a grid that is one merged region is a box, not a table
  if (regions.size < 2) return null;
  const regionOf = (r: number, c: number) => regions.get(find(id(r, c)))!;
  const cellItems = new Map<object, TextItem[]>();
  const used = new Set<TextItem>();
  for (const it of items) {
    const cx = it.x + it.width / 2;
    const cy = (it.top + it.bottom) / 2;
    if (cx < box.x0 || cx > box.x1 || cy < box.top || cy > box.bottom) continue;
    const c = upperIndex(xs, cx);
    const r = upperIndex(ys, cy);
    if (r < 0 || c < 0 || r >= rows || c >= cols) continue;
    const reg = regionOf(r, c);
    const list = cellItems.get(reg) ?? [];
    list.push(it);
    cellItems.set(reg, list);
    used.add(it);
  }
  if (used.size === 0) return null;
  const cells: TableCell[] = [];
  const lineCounts: number[] = [];
  for (const reg of new Set(regions.values())) {
    const its = cellItems.get(reg) ?? [];
    const cellLines = its.length ? buildLines(its) : [];
    if (its.length) lineCounts.push(cellLines.length);
    const text = its.length ? joinLines(cellLines.map((l) => itemsText(l.items))) : '';
    cells.push({
      row: reg.r0,
      col: reg.c0,
      rowSpan: reg.r1 - reg.r0 + 1,
      colSpan: reg.c1 - reg.c0 + 1,
      text,
      bbox: toBBox({ x0: xs[reg.c0]!, x1: xs[reg.c1 + 1]!, top: ys[reg.r0]!, bottom: ys[reg.r1 + 1]! }),
    });
  }
  const filledCells = cells.filter((c) => c.text);
  if (filledCells.length < 2) return null;
  // boxes of text blocks side by side (address blocks, label: value runs, as in an invoice header): a page
  // layout, not a table, whose cells are short and repeat over rows
  if (new Set(cells.map((c) => c.row)).size <= 2 && median(lineCounts) >= 3) return null;
  // a chart's grid lines and bars make many cells with a few labels among them: a table fills most of its cells
  if (filledCells.length < cells.length / 3) return 'chart';
  // bars drawn side by side with their values beside them: labels scattered one to a row and one to a
  // column, where a table's rows and columns each hold several
  const perRow = new Map<number, number>(), perCol = new Map<number, number>();
  for (const c of filledCells) {
    perRow.set(c.row, (perRow.get(c.row) ?? 0) + 1);
    perCol.set(c.col, (perCol.get(c.col) ?? 0) + 1);
  }
  if ([...perRow.values(), ...perCol.values()].every((n) => n < 2)) return 'chart';
  // frames around columns of running text (page layout boxes) are not tables
  const wordsPerCell = filledCells.reduce((a, c) => a + wordsOf(c.text), 0) / filledCells.length;
  if (wordsPerCell > 40 || (filledCells.length <= 4 && filledCells.some((c) => wordsOf(c.text) > 60))) return null;
  const effective = new Set(cells.map((c) => `${c.row}`)).size;
  const effectiveCols = new Set(cells.map((c) => `${c.col}`)).size;
  if (effective < 2 || effectiveCols < 2) return null;
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  markHeader(cells, items.filter((i) => used.has(i)), ys[1]!);
  return {
    element: { kind: 'table', table: { bbox: toBBox(box), rows, cols, cells, confidence: 0.9 }, bbox: toBBox(box) },
    used,
    box,
  };
}

function upperIndex(edges: number[], v: number): number {
  for (let i = 0; i < edges.length - 1; i++) if (v >= edges[i]! && v <= edges[i + 1]!) return i;
  return -1;
}

/** Marks the first row as header when it is bold, or when it is text over rows with numbers. */
function markHeader(cells: TableCell[], items: TextItem[], firstRowBottom: number): void {
  const first = cells.filter((c) => c.row === 0 && c.text);
  if (!first.length) return;
  const firstItems = items.filter((i) => (i.top + i.bottom) / 2 < firstRowBottom);
  const restItems = items.filter((i) => (i.top + i.bottom) / 2 >= firstRowBottom);
  const boldFirst = firstItems.length > 0 && firstItems.every((i) => i.bold) && !restItems.every((i) => i.bold);
  const numeric = (s: string) => /^[-+(]?[$€£¥]?\s?\d[\d.,\s%)]*$/.test(s.trim());
  const rest = cells.filter((c) => c.row > 0 && c.text);
  const textOverNumbers = first.every((c) => !numeric(c.text)) && rest.some((c) => numeric(c.text));
  if (boldFirst || textOverNumbers || cells.some((c) => c.row === 0 && c.colSpan > 1)) for (const c of cells) if (c.row === 0) c.header = true;
}

