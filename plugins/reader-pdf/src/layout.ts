/**
 * Page layout from text items and ruling lines (pure functions, run inside the parse workers):
 * items → lines → segments (split at wide gaps) → tables (ruled grids, aligned columns) and paragraph
 * blocks → reading order by recursive XY-cut that reads column by column (gutters that run through a
 * region) and keeps rows of aligned short pieces (forms, key-values) row by row.
 */
import type { BBox, TableCell } from '@quire/core';
import { buildLines, cleanText, findLineNumberGutter, findRuledTables, furnitureZone, hOverlap, height, isBulletOnly, isListItem, itemBox, itemsText, joinLines, median, mergeIntervals, parseKeyValue, toBBox, unionBox, vOverlap, width, wordsOf } from '@quire/layout';
import type { Box, GridTable, Line, Rule, TableElement, TextItem } from '@quire/layout';
import type { PageElement, PartStats, TextElement } from './types.js';
import { joinBlockLines } from './hyphens.js';

// ---------- lines and segments ----------

interface Segment extends Box {
  items: TextItem[];
  text: string;
  size: number;
  bold: boolean;
  italic: boolean;
  rtl: boolean;
  /** index of the line (for rows) */
  line: number;
}



function makeSegment(items: TextItem[], line: number): Segment {
  // the union of the items' boxes (unionBox of itemBox), and the counts, in one pass
  let x0 = Infinity, x1 = -Infinity, top = Infinity, bottom = -Infinity;
  let chars = 0, bold = 0, italic = 0, sizeW = 0, rtlChars = 0;
  for (const it of items) {
    if (it.x < x0) x0 = it.x;
    if (it.x + it.width > x1) x1 = it.x + it.width;
    if (it.top < top) top = it.top;
    if (it.bottom > bottom) bottom = it.bottom;
    const n = it.str.trim().length;
    chars += n;
    if (it.bold) bold += n;
    if (it.italic) italic += n;
    sizeW += it.size * n;
    if (it.rtl) rtlChars += it.str.length;
  }
  const rtl = rtlChars > chars / 2;
  const ordered = rtl ? [...items].reverse() : items;
  return {
    x0,
    x1,
    top,
    bottom,
    items,
    text: rtl ? ordered.map((i) => cleanText(i.str).trim()).filter(Boolean).join(' ') : itemsText(items),
    size: chars ? sizeW / chars : items[0]!.size,
    bold: chars > 0 && bold / chars >= 0.8,
    italic: chars > 0 && italic / chars >= 0.8,
    rtl,
    line,
  };
}

const LEAD_LABEL = /^(?:\(?\d{1,3}(?:\.\d{1,3})*[.)]?|[A-Z]\.|(?:fig(?:ure)?|table|tab|chapter|section|appendix|exhibit)\.?\s*[\dIVX]+[a-z]?[.:]?)$/i;

/**
 * Column gutters narrower than the gap that splits a line by itself (about an em): justified columns set
 * close together (LaTeX's 10 pt between columns of 10 pt type, notices in 8 pt type), where the left
 * column's lines run up to the gutter. A gutter is a strip, at least half an em wide, that no item crosses,
 * with running text on its left (a piece at least six ems long) and the next column's lines starting at
 * one x (the column's left edge) on at least three lines of a run that no line crosses. A listing in a
 * fixed-pitch font is not split at its aligned spaces. Returns the items that start a column on such
 * lines (each begins a segment) and the narrowest such gutter.
 */
export function findNarrowGutters(lines: Line[]): { starts: Set<TextItem>; width: number } {
  interface Gap { a: number; b: number; line: number; next: TextItem; right: number; narrow: boolean }
  const gaps: Gap[] = [];
  lines.forEach((l, li) => {
    const its = l.items;
    // pieces: items apart by less than an em (the gap that splits a line by itself)
    const wide = (i: number) => its[i]!.x - (its[i - 1]!.x + its[i - 1]!.width) > Math.max(Math.min(its[i - 1]!.size, its[i]!.size), 4);
    let from = its[0]?.x ?? 0;
    for (let i = 1; i < its.length; i++) {
      const prev = its[i - 1]!;
      const it = its[i]!;
      const a = prev.x + prev.width;
      const size = Math.max(Math.min(prev.size, it.size), 1);
      if (it.x - a >= size * 0.5 && a - from >= size * 6) {
        let j = i + 1;
        while (j < its.length && !wide(j) && its[j]!.x - (its[j - 1]!.x + its[j - 1]!.width) < size * 0.5) j++;
        const right = its[j - 1]!.x + its[j - 1]!.width - it.x;
        gaps.push({ a, b: it.x, line: li, next: it, right, narrow: !wide(i) });
      }
      if (wide(i)) from = it.x;
    }
  });
  const starts = new Set<TextItem>();
  let width = Infinity;
  if (gaps.length < 3) return { starts, width };
  // gaps grouped by where the text after them starts (a column's left edge)
  gaps.sort((p, q) => p.b - q.b);
  const clusters: Gap[][] = [];
  for (const g of gaps) {
    const c = clusters[clusters.length - 1];
    if (c && g.b - c[0]!.b <= 1.5) c.push(g);
    else clusters.push([g]);
  }
  const fixedPitch = (run: Gap[]) => {
    const pitches = run.flatMap((g) => lines[g.line]!.items.filter((it) => it.str.trim().length >= 3).map((it) => it.width / it.str.length));
    if (pitches.length < 3) return false;
    const m = median(pitches);
    return pitches.every((p) => Math.abs(p - m) <= m * 0.03);
  };
  for (const c of clusters) {
    if (c.length < 3) continue;
    const onLine = new Map(c.map((g) => [g.line, g]));
    const b = Math.min(...c.map((g) => g.b));
    // runs of lines (top to bottom) that no item crosses between the gaps' left ends and the column edge
    let run: Gap[] = [];
    let runA = -Infinity;
    const close = () => {
      // running text on the right too (not page numbers after dot leaders, not form boxes after labels)
      const size = median(run.map((g) => g.next.size));
      if (run.length >= 3 && run.some((g) => g.narrow) && b - runA >= size * 0.5 && median(run.map((g) => g.right)) >= size * 6 && !fixedPitch(run)) {
        for (const g of run) if (g.narrow) starts.add(g.next);
        width = Math.min(width, b - runA);
      }
      run = [];
      runA = -Infinity;
    };
    const first = Math.min(...c.map((g) => g.line));
    const last = Math.max(...c.map((g) => g.line));
    for (let li = first; li <= last; li++) {
      const g = onLine.get(li);
      if (g) {
        if (b - Math.max(runA, g.a) < 0.5 * g.next.size) close();
        run.push(g);
        runA = Math.max(runA, g.a);
        continue;
      }
      // a line without the gap: it breaks the run when an item crosses the strip
      const crosses = lines[li]!.items.some((it) => it.x < b - 0.5 && it.x + it.width > Math.max(runA, b - it.size * 0.5));
      if (crosses) close();
    }
    close();
  }
  return { starts, width };
}

/** The numbers written from `from` to the end of the line. */
function numbersAfter(items: TextItem[], from: TextItem): number {
  const rest = items.slice(items.indexOf(from)).map((i) => i.str).join(' ');
  return rest.split(/\s+/).filter((w) => /^[-+(]?[$€£¥]?\d[\d.,]*%?\)?$/.test(w)).length;
}

/** Splits each line at gaps wider than about an em (column gutters, table cells), and before the items of `starts` (narrow gutters). */
export function buildSegments(lines: Line[], starts?: Set<TextItem>): Segment[] {
  const segs: Segment[] = [];
  lines.forEach((line, li) => {
    let cur: TextItem[] = [];
    for (const it of line.items) {
      const prev = cur[cur.length - 1];
      if (prev && starts?.has(it)) {
        segs.push(makeSegment(cur, li));
        cur = [];
      } else if (prev) {
        const gap = it.x - (prev.x + prev.width);
        const size = Math.max(Math.min(prev.size, it.size), 1);
        const curText = cur.map((c) => c.str).join('').trim();
        const wide = gap > Math.max(size * 1.0, 4);
        // a bullet, a section number or a caption label stays with the text after it
        // (a number followed by a number is a table's two cells, not a section number and its heading)
        const label = isBulletOnly(curText) || (gap < size * 4 && LEAD_LABEL.test(curText) && !(/^\d/.test(curText) && /^[-+(]?[$€£¥]?\d/.test(it.str.trim())));
        // a dot leader ends its label when values in columns follow it (two numbers or more, not the one
        // page number of a contents line): they are pieces of their own
        const leader = gap > 0 && /[.·…]{4,}$/.test(curText) && numbersAfter(line.items, it) >= 2;
        if ((wide || leader) && !label) {
          segs.push(makeSegment(cur, li));
          cur = [];
        }
      }
      cur.push(it);
    }
    if (cur.length) segs.push(makeSegment(cur, li));
  });
  // "Label:" followed on the same line by a short value: one key-value segment
  const merged: Segment[] = [];
  for (const s of segs) {
    const prev = merged[merged.length - 1];
    if (
      prev &&
      prev.line === s.line &&
      /:\s*$/.test(prev.text) &&
      prev.text.split(/\s+/).length <= 5 &&
      s.text.split(/\s+/).length <= 8 &&
      s.x0 - prev.x1 < Math.max(prev.size, 6) * 12
    ) {
      merged[merged.length - 1] = makeSegment([...prev.items, ...s.items], s.line);
      continue;
    }
    merged.push(s);
  }
  return merged.filter((s) => s.text.length > 0);
}

// ---------- tables from aligned columns ----------

interface Row {
  segs: Segment[];
  box: Box;
}

/** A rule typed out: a line of dashes, underscores or equal signs only. */
const isTextRule = (r: Row) => r.segs.every((s) => /^[-_=‐‑–—─━]{3,}$/.test(s.text.replace(/\s+/g, '')));

/** The start of a note under a table: a footnote mark in brackets or a note label. */
const NOTE_ROW = /^(\([^\s()]{1,3}\)|[*†‡]+|notes?\b|sources?\b|nb\b)/i;

/** Years heading columns are labels, not data. */
const YEARS = /^((19|20)\d\d\s*)+$/;

const numericCell = (s: string) => /^[-+(]?[$€£¥]?\s?[\d.,]+\s?%?\)?$/.test(s.trim()) || /^[\d.,]+\s?[$€£¥%]$/.test(s.trim());

/**
 * Runs of at least three consecutive lines split into two or more short pieces whose x-ranges line up
 * in columns (gutters no piece crosses). Paragraph columns (long pieces) and label/value forms are not tables.
 */
export function findAlignedTables(segs: Segment[], bodySize: number): { element: TableElement; used: Set<Segment> }[] {
  const byLine = new Map<number, Segment[]>();
  for (const s of segs) {
    const l = byLine.get(s.line) ?? [];
    l.push(s);
    byLine.set(s.line, l);
  }
  const rows: Row[] = [...byLine.values()]
    .map((ss) => ({ segs: ss.sort((a, b) => a.x0 - b.x0), box: unionBox(ss) }))
    .sort((a, b) => a.box.top - b.box.top);
  const out: { element: TableElement; used: Set<Segment> }[] = [];
  let i = 0;
  let prevEnd = 0;
  while (i < rows.length) {
    if (rows[i]!.segs.length < 2) {
      i++;
      continue;
    }
    // grow a run of rows: multi-piece rows, allowing single-piece continuation rows inside
    let j = i + 1;
    let lastMulti = i;
    while (j < rows.length) {
      const prev = rows[j - 1]!;
      const r = rows[j]!;
      const gap = r.box.top - prev.box.bottom;
      if (gap > Math.max(bodySize, height(prev.box)) * 1.6) break;
      if (hOverlap(r.box, rows[i]!.box) < width(r.box) * 0.5) break;
      if (r.segs.length >= 2) lastMulti = j;
      else if (j - lastMulti > 1) break;
      j++;
    }
    // notes under the table (a footnote mark or a "Note:" label, then text) are not rows of it
    while (lastMulti > i && NOTE_ROW.test(rows[lastMulti]!.segs[0]!.text)) lastMulti--;
    while (lastMulti > i && rows[lastMulti]!.segs.length < 2) lastMulti--;
    let run = rows.slice(i, lastMulti + 1);
    let t = run.length >= 3 ? alignedTable(run, bodySize) : null;
    // two tables one under the other with a blank line between them, their columns apart: the rows down
    // to the first gap well over the run's usual gap between rows, when the run read as one table does not
    // keep the columns of the rows above the gap
    if (run.length >= 4) {
      const gaps = run.slice(1).map((r, k) => r.box.top - run[k]!.box.bottom);
      const usual = median(gaps);
      const cut = gaps.findIndex((g, n) => n >= 2 && g > Math.max(usual * 3, usual + bodySize * 0.5));
      let k = cut;
      while (k > 0 && run[k]!.segs.length < 2) k--;
      const head = k >= 2 ? alignedTable(run.slice(0, k + 1), bodySize) : null;
      if (head && (!t || t.element.table.cols < head.element.table.cols)) {
        t = head;
        run = run.slice(0, k + 1);
        lastMulti = i + k;
      }
    }
    if (t) {
      out.push(withHeadRows(t, rows, i, prevEnd, run, bodySize));
      i = lastMulti + 1;
      prevEnd = i;
    } else i++;
  }
  return out;
}

/**
 * Header lines right above an aligned table whose labels span several columns (a group label over its
 * columns, a two-line header): rows of the table, read as its header, when the table keeps its columns.
 * A caption, a paragraph line or a line wider than the table stops them.
 */
function withHeadRows(t: { element: TableElement; used: Set<Segment> }, rows: Row[], start: number, prevEnd: number, run: Row[], bodySize: number): { element: TableElement; used: Set<Segment> } {
  const box = boxOf(t.element.bbox);
  // the right edge of the first column (the row labels): a lone label right of it heads data columns
  const labelsRight = Math.max(...t.element.table.cells.filter((c) => c.col === 0 && c.colSpan === 1 && c.bbox).map((c) => c.bbox!.x + c.bbox!.width));
  const head: Row[] = [];
  let top = run[0]!.box;
  for (let k = start - 1; k >= prevEnd && head.length < 4; k--) {
    const r = rows[k]!;
    const gap = top.top - r.box.bottom;
    if (gap > Math.max(bodySize, height(r.box)) * 1.2 || gap < -1) break;
    if (r.box.x0 < box.x0 - bodySize || r.box.x1 > box.x1 + bodySize) break;
    if (r.segs.some((s) => CAPTION.test(s.text) || wordsOf(s.text) > 6)) break;
    // one label over some of the data columns (a group label: "Design effect" over its columns)
    const groupLabel = r.segs.length === 1 && wordsOf(r.segs[0]!.text) <= 4 && r.box.x0 > labelsRight && !numericCell(r.segs[0]!.text);
    if (r.segs.length < 2 && !groupLabel) break;
    head.unshift(r);
    top = r.box;
  }
  if (!head.length) return t;
  const all = [...head, ...run.filter((r) => !isTextRule(r))];
  const pieceRows: PieceRow[] = all.map((r) => ({ pieces: wordPieces(r.segs.flatMap((s) => s.items)), box: r.box }));
  const element = piecesTable(pieceRows, { minGap: Math.max(bodySize * 0.6, 3), gutterRows: pieceRows.slice(head.length), headerRows: head.length, confidence: 0.7, requireNumbersIn2Cols: true });
  if (!element || element.table.cols !== t.element.table.cols) return t;
  return { element, used: new Set([...t.used, ...head.flatMap((r) => r.segs)]) };
}

/** A word with its estimated extent (items are split at spaces, widths shared out by characters). */
interface Piece {
  text: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  bold: boolean;
}

function wordPieces(items: TextItem[]): Piece[] {
  const out: Piece[] = [];
  for (const it of items) {
    const s = cleanText(it.str);
    const k = s.length ? it.width / s.length : 0;
    for (const m of s.matchAll(/\S+/g)) {
      const x0 = it.x + m.index! * k;
      out.push({ text: m[0], x0, x1: x0 + m[0].length * k, top: it.top, bottom: it.bottom, bold: it.bold });
    }
  }
  return out.sort((a, b) => a.x0 - b.x0);
}

/** The number of words of each run of words apart by less than `minGap` (the pieces of a line, left to right). */
function wordRuns(pieces: Piece[], minGap: number): number[] {
  const out: number[] = [];
  pieces.forEach((p, k) => {
    if (k === 0 || p.x0 - pieces[k - 1]!.x1 >= minGap) out.push(1);
    else out[out.length - 1]!++;
  });
  return out;
}

/**
 * Columns of numbers set flush right, closer to the numbers on their left than a gap that parts columns by
 * itself (wide figures in narrow columns): numbers of three or more rows ending at one x make a column,
 * which starts left of its widest number, halfway from the text ending before it, when on every row the
 * words on either side of that line are numbers (two words of a label stay together).
 */
function numberColumnStarts(rows: PieceRow[]): number[] {
  const figure = (p: Piece) => numericCell(p.text) || /^[—–-]+$/.test(p.text);
  const nums = rows.flatMap((r, ri) => r.pieces.filter((p) => numericCell(p.text)).map((p) => ({ p, ri })));
  nums.sort((a, b) => a.p.x1 - b.p.x1);
  const out: number[] = [];
  for (let i = 0; i < nums.length; ) {
    let j = i + 1;
    while (j < nums.length && nums[j]!.p.x1 - nums[j - 1]!.p.x1 <= 1) j++;
    const col = nums.slice(i, j);
    i = j;
    if (new Set(col.map((n) => n.ri)).size < 3) continue;
    const left = Math.min(...col.map((n) => n.p.x0));
    let before = -Infinity;
    for (const r of rows) for (const p of r.pieces) if (p.x1 <= left && p.x1 > before) before = p.x1;
    if (!Number.isFinite(before)) continue;
    const x = (before + left) / 2;
    const near = (left - before) * 2 + 1;
    const apart = rows.every((r) => {
      const l = r.pieces.filter((p) => p.x1 <= x && p.x1 > x - near);
      const rr = r.pieces.filter((p) => p.x0 >= x && p.x0 < x + near);
      return !l.length || !rr.length || (l.every(figure) && rr.every(figure));
    });
    if (apart) out.push(x);
  }
  return out;
}

/** A dot leader (a run of dots from a label to its value): no text of the cell, unless it is all of it. */
const LEADER = /^[.·…]{4,}$/;
function dropLeaders(words: string[]): string[] {
  const out = words.filter((w) => !LEADER.test(w)).map((w) => w.replace(/(\S)[.·…]{4,}$/, '$1'));
  return out.length ? out : words;
}

interface PieceRow {
  pieces: Piece[];
  box: Box;
}

/**
 * Cells from rows of words: column gutters are x-ranges no word of the gutter rows crosses (at least
 * `minGap` wide); words go to the column of their centre; a word run crossing a gutter in a header row
 * makes a cell spanning those columns; a row with an empty first column and no numbers continues the
 * row above (wrapped cell text).
 */
function piecesTable(rows: PieceRow[], opts: { minGap: number; gutterRows: PieceRow[]; headerRows: number; confidence: number; requireNumbersIn2Cols: boolean; cuts?: number[]; rowBreaks?: number[] }): TableElement | null {
  const spans = opts.gutterRows.flatMap((r) => r.pieces.map((p) => [p.x0, p.x1] as const)).sort((a, b) => a[0] - b[0]);
  if (!spans.length) return null;
  const gutters: [number, number][] = [];
  let end = spans[0]![1];
  for (const [a, b] of spans.slice(1)) {
    // (positions are sums of glyph widths: a gap of exactly minGap may come out a hair under it)
    if (a - end >= opts.minGap - 0.01) gutters.push([end, a]);
    end = Math.max(end, b);
  }
  // column rules (of a ruled part) that no word crosses are gutters too, however narrow the gap, and so
  // are the left ends of columns of right-aligned numbers
  for (const x of [...(opts.cuts ?? []), ...numberColumnStarts(opts.gutterRows)]) {
    if (x <= spans[0]![0] || x >= end || gutters.some(([a, b]) => x >= a && x <= b) || spans.some(([a, b]) => a < x && b > x)) continue;
    gutters.push([x, x]);
  }
  gutters.sort((p, q) => p[0] - q[0]);
  const cols = gutters.length + 1;
  if (cols < 2 || cols > 30) return null;
  const bounds = [-Infinity, ...gutters.map(([a, b]) => (a + b) / 2), Infinity];
  const colAt = (x: number) => {
    for (let c = 0; c < cols; c++) if (x >= bounds[c]! && x < bounds[c + 1]!) return c;
    return cols - 1;
  };
  interface Cell { text: string; c0: number; c1: number }
  const grid: Cell[][] = [];
  const rowBoxes: Box[] = [];
  const headerFlags: boolean[] = [];
  rows.forEach((r, ri) => {
    const header = ri < opts.headerRows;
    // runs of words: split at gutters (data) or kept across them when a header word run spans columns
    const cells: Cell[] = [];
    let cur: Piece[] = [];
    const flush = () => {
      if (!cur.length) return;
      const c0 = colAt((cur[0]!.x0 + cur[0]!.x1) / 2);
      const c1 = header ? colAt((cur[cur.length - 1]!.x0 + cur[cur.length - 1]!.x1) / 2) : c0;
      cells.push({ text: dropLeaders(cur.map((p) => p.text)).join(' '), c0, c1 });
      cur = [];
    };
    for (const p of r.pieces) {
      const prev = cur[cur.length - 1];
      if (prev) {
        const gap = p.x0 - prev.x1;
        const crossing = colAt((p.x0 + p.x1) / 2) !== colAt((prev.x0 + prev.x1) / 2);
        if (crossing && (!header || gap > opts.minGap * 1.5)) flush();
      }
      cur.push(p);
    }
    flush();
    // merge cells that landed in the same column
    const merged: Cell[] = [];
    for (const c of cells) {
      const last = merged[merged.length - 1];
      if (last && last.c1 >= c.c0) {
        last.text += ` ${c.text}`;
        last.c1 = Math.max(last.c1, c.c1);
      } else merged.push({ ...c });
    }
    const prevRow = grid[grid.length - 1];
    const above = rowBoxes[rowBoxes.length - 1];
    // rules between the rows (a table ruled row by row): a line continues the row above unless a rule parts them
    const continues = opts.rowBreaks
      ? prevRow && !header && ri > opts.headerRows && !opts.rowBreaks.some((y) => y > (above!.top + above!.bottom) / 2 && y < (r.box.top + r.box.bottom) / 2)
      : prevRow && !header && ri > opts.headerRows && merged.length && merged[0]!.c0 > 0 && merged.length < cols && merged.every((c) => !numericCell(c.text)) && r.box.top - above!.bottom < (r.box.bottom - r.box.top) * 0.8;
    if (continues) {
      for (const c of merged) {
        const target = prevRow.find((x) => x.c0 <= c.c0 && x.c1 >= c.c0);
        if (target) target.text = joinLines([target.text, c.text]);
        else prevRow.push(c);
      }
      rowBoxes[rowBoxes.length - 1] = unionBox([rowBoxes[rowBoxes.length - 1]!, r.box]);
      return;
    }
    grid.push(merged);
    rowBoxes.push(r.box);
    headerFlags.push(header);
  });
  // header lines stacked above each other (a two-line header, a label centred on several lines) are one row
  const headCount = headerFlags.filter(Boolean).length;
  if (headCount >= 2) {
    const head: Cell[] = [];
    for (let c = 0; c < cols; c++) {
      const parts = grid.slice(0, headCount).flatMap((row) => row.filter((x) => x.c0 === c).map((x) => x.text));
      if (parts.length) head.push({ text: parts.join(' '), c0: c, c1: c });
    }
    grid.splice(0, headCount, head);
    rowBoxes.splice(0, headCount, unionBox(rowBoxes.slice(0, headCount)));
    headerFlags.splice(0, headCount, true);
  }
  if (grid.length < 2) return null;
  if (opts.requireNumbersIn2Cols && cols === 2) {
    const right = grid.flatMap((row) => row.filter((c) => c.c0 === 1));
    if (right.filter((c) => numericCell(c.text)).length < right.length * 0.5) return null;
  }
  const filled = grid.reduce((a, row) => a + row.reduce((b, c) => b + (c.c1 - c.c0 + 1), 0), 0);
  if (filled < grid.length * cols * 0.5) return null;
  const box = unionBox(rows.map((r) => r.box));
  const cells: TableCell[] = [];
  grid.forEach((row, r) => {
    const taken = new Set<number>();
    for (const c of row.sort((a, b) => a.c0 - b.c0)) {
      for (let k = c.c0; k <= c.c1; k++) taken.add(k);
      cells.push({
        row: r,
        col: c.c0,
        rowSpan: 1,
        colSpan: c.c1 - c.c0 + 1,
        text: c.text,
        bbox: toBBox({ x0: c.c0 === 0 ? box.x0 : bounds[c.c0]!, x1: c.c1 === cols - 1 ? box.x1 : bounds[c.c1 + 1]!, top: rowBoxes[r]!.top, bottom: rowBoxes[r]!.bottom }),
        ...(headerFlags[r] ? { header: true } : {}),
      });
    }
    for (let k = 0; k < cols; k++) {
      if (!taken.has(k)) cells.push({ row: r, col: k, rowSpan: 1, colSpan: 1, text: '', bbox: toBBox({ x0: k === 0 ? box.x0 : bounds[k]!, x1: k === cols - 1 ? box.x1 : bounds[k + 1]!, top: rowBoxes[r]!.top, bottom: rowBoxes[r]!.bottom }), ...(headerFlags[r] ? { header: true } : {}) });
    }
  });
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  // without a known header: the first row when it is bold over plain rows, or text over numbers
  if (!opts.headerRows) {
    const first = rows[0]!.pieces;
    const restBold = rows.slice(1).every((r) => r.pieces.every((p) => p.bold));
    const firstTexts = cells.filter((c) => c.row === 0 && c.text);
    if ((first.every((p) => p.bold) && !restBold) || (firstTexts.every((c) => !numericCell(c.text)) && cells.some((c) => c.row > 0 && numericCell(c.text)))) {
      for (const c of cells) if (c.row === 0) c.header = true;
    }
  }
  return { kind: 'table', table: { bbox: toBBox(box), rows: grid.length, cols, cells, confidence: opts.confidence }, bbox: toBBox(box) };
}

function alignedTable(run: Row[], bodySize: number): { element: TableElement; used: Set<Segment> } | null {
  const segs = run.flatMap((r) => r.segs);
  const multi = run.filter((r) => r.segs.length >= 2);
  if (multi.length < 3 || multi.length < run.length * 0.6) return null;
  const words = segs.map((s) => wordsOf(s.text));
  if (median(words) > 5) return null; // paragraph columns
  // label/value forms: nearly every row is "Label:" + value
  const labelRows = multi.filter((r) => r.segs.length === 2 && /:\s*$/.test(r.segs[0]!.text)).length;
  if (labelRows >= multi.length * 0.6) return null;
  // a rule typed out (a line of dashes under a typewritten header) parts rows, it is none
  const rows: PieceRow[] = run.filter((r) => !isTextRule(r)).map((r) => ({ pieces: wordPieces(r.segs.flatMap((s) => s.items)), box: r.box }));
  const element = piecesTable(rows, { minGap: Math.max(bodySize * 0.6, 3), gutterRows: rows, headerRows: 0, confidence: 0.7, requireNumbersIn2Cols: true });
  if (!element || element.table.rows < 3) return null;
  // without rules, a table shows itself by a column of numbers or a header row; side-by-side address or
  // text blocks do not
  const { cells, cols } = element.table;
  const numericCol = Array.from({ length: cols }, (_, c) => cells.filter((x) => x.col === c && x.row > 0 && x.text)).some((col) => col.length >= 2 && col.filter((x) => numericCell(x.text)).length >= col.length * 0.5);
  if (!numericCol && !cells.some((c) => c.header)) return null;
  return { element, used: new Set(segs) };
}

/**
 * Tables drawn with horizontal rules only (top, header and bottom rules, as in most papers): the text
 * between the first and last of two or more rules of the same width, read as rows of words. Rows above
 * the second rule of three or more are header rows.
 */
export function findRuleBoundedTables(rules: Rule[], items: TextItem[], bodySize: number): { element: TableElement; used: Set<TextItem> }[] {
  // (a rule drawn in pieces, one per column, is one rule: the pieces are joined before the short ones go)
  const hs = mergeIntervals(
    rules.filter((r) => Math.abs(r.y1 - r.y0) < 0.01 && Math.abs(r.x1 - r.x0) > 4).map((r) => ({ k: r.y0, a: Math.min(r.x0, r.x1), b: Math.max(r.x0, r.x1) })),
    1.5,
    2.5,
  )
    .filter((m) => m.b - m.a > 60)
    .map((m) => ({ y: m.k, x0: m.a, x1: m.b }));
  // paragraphs between two rules (a table's last rule and a page's foot rule, however far apart) part
  // them: two or more lines of running text from the rules' left end across most of their width
  const runningText = (a: { y: number; x0: number; x1: number }, b: { y: number }) => {
    const band = items.filter((it) => (it.top + it.bottom) / 2 > a.y && (it.top + it.bottom) / 2 < b.y && it.x + it.width > a.x0 && it.x < a.x1);
    if (band.length < 2) return false;
    const minGap = Math.max(bodySize * 0.5, 3);
    let paragraphs = 0;
    for (const l of buildLines(band)) {
      const pieces = wordPieces(l.items);
      if (wordRuns(pieces, minGap).length === 1 && pieces.length >= 8 && l.x0 < a.x0 + bodySize * 2 && width(l) > (a.x1 - a.x0) * 0.6 && ++paragraphs >= 2) return true;
    }
    return false;
  };
  const groups: { y: number; x0: number; x1: number }[][] = [];
  for (const h of hs.sort((a, b) => a.y - b.y)) {
    const g = groups.find((grp) => {
      const last = grp[grp.length - 1]!;
      return Math.abs(last.x0 - h.x0) < 8 && Math.abs(last.x1 - h.x1) < 8 && h.y - last.y > 4 && !runningText(last, h);
    });
    if (g) g.push(h);
    else groups.push([h]);
  }
  // a caption between two rules (a rule under a heading, then "Table 1. ...", then the table) starts a table
  const split: typeof groups = [];
  for (const g of groups) {
    let cur = [g[0]!];
    for (let k = 1; k < g.length; k++) {
      const a = g[k - 1]!.y, b = g[k]!.y;
      // (a band of a row or two has no room for a caption besides its own text)
      const between = b - a < bodySize * 3 ? [] : items.filter((it) => (it.top + it.bottom) / 2 > a && (it.top + it.bottom) / 2 < b && it.x + it.width > g[k]!.x0 && it.x < g[k]!.x1);
      if (between.length && buildLines(between).some((l) => CAPTION.test(itemsText(l.items)))) {
        split.push(cur);
        cur = [];
      }
      cur.push(g[k]!);
    }
    split.push(cur);
  }
  const out: { element: TableElement; used: Set<TextItem> }[] = [];
  for (const g of split) {
    if (g.length < 2) continue;
    const top = g[0]!.y;
    const bottom = g[g.length - 1]!.y;
    const x0 = Math.min(...g.map((h) => h.x0)) - 2;
    const x1 = Math.max(...g.map((h) => h.x1)) + 2;
    const inside = items.filter((it) => {
      const cy = (it.top + it.bottom) / 2;
      const cx = it.x + it.width / 2;
      return cy > top && cy < bottom && cx > x0 && cx < x1;
    });
    if (inside.length < 4) continue;
    const lines = buildLines(inside);
    if (lines.length < 2) continue;
    const rows: PieceRow[] = lines.map((l) => ({ pieces: wordPieces(l.items), box: { x0: l.x0, x1: l.x1, top: l.top, bottom: l.bottom } }));
    const mid = g.length >= 3 ? g[1]!.y : null;
    const headerRows = mid === null ? 0 : rows.filter((r) => (r.box.top + r.box.bottom) / 2 < mid).length;
    const dataRows = rows.slice(headerRows);
    if (dataRows.length < 1) continue;
    // two bands of text blocks between the rules (address blocks, label: value runs of an invoice header)
    // with few numbers: boxes of a page layout, not a header over the rows of a table
    const bands = g.slice(1).map((h, k) => rows.filter((r) => (r.box.top + r.box.bottom) / 2 > g[k]!.y && (r.box.top + r.box.bottom) / 2 < h.y).length);
    const words = dataRows.flatMap((r) => r.pieces);
    const numbers = words.filter((p) => numericCell(p.text) && !YEARS.test(p.text)).length;
    if (bands.length <= 2 && bands.every((n) => n >= 3) && numbers < words.length * 0.3) continue;
    // rules between the data rows part them (from the second on: the first is the header rule)
    // (a band of many more lines than the others holds several rows: each of its lines is one)
    const inner = g.slice(mid === null ? 1 : 2, -1).map((h) => h.y);
    let rowBreaks: number[] | undefined;
    if (inner.length >= 2) {
      const first = mid === null ? 0 : 1;
      const usual = median(bands.slice(first));
      rowBreaks = [...inner];
      for (let k = first; k < bands.length; k++) {
        if (bands[k]! <= usual * 2 + 1) continue;
        const inBand = rows.filter((r) => (r.box.top + r.box.bottom) / 2 > g[k]!.y && (r.box.top + r.box.bottom) / 2 < g[k + 1]!.y);
        for (let l = 1; l < inBand.length; l++) rowBreaks.push((inBand[l - 1]!.box.bottom + inBand[l]!.box.top) / 2);
      }
    }
    const element = piecesTable(rows, { minGap: Math.max(bodySize * 0.5, 3), gutterRows: dataRows, headerRows, confidence: 0.8, requireNumbersIn2Cols: false, rowBreaks });
    if (!element) continue;
    // the rules bound the table
    element.bbox = toBBox({ x0: x0 + 2, x1: x1 - 2, top, bottom });
    element.table.bbox = element.bbox;
    out.push({ element, used: new Set(inside) });
  }
  return out;
}

/**
 * The rows of a ruled grid that belong to its frame, not to the table: a frame drawn around an exhibit
 * (caption, table and notes in one box) makes the caption above the table and the notes below it rows of
 * the grid, each one cell spanning every column. Such rows at the top and bottom are taken off the table;
 * their text goes back to the page as paragraphs. A grid left with fewer than two rows is no table at all
 * (null: all its text is free).
 */
export function peelFrameRows(t: GridTable): GridTable | null {
  const { table } = t.element;
  const { rows, cols } = table;
  if (cols < 2) return t;
  const rowCells = (r: number) => table.cells.filter((c) => c.row === r);
  // a row that is one cell across the whole width (text or empty)
  const frameRow = (r: number) => {
    const cells = rowCells(r);
    return cells.length === 1 && cells[0]!.colSpan === cols && cells[0]!.rowSpan === 1;
  };
  let top = 0;
  while (top < rows && frameRow(top)) top++;
  let bottom = rows;
  while (bottom > top && frameRow(bottom - 1)) bottom--;
  if (top === 0 && bottom === rows) return t;
  if (bottom - top < 2) return null;
  const inner = table.cells.filter((c) => c.row >= top && c.row < bottom);
  // spanning cells that reach into a peeled row keep to the table's rows
  const cells = inner.map((c) => ({ ...c, row: c.row - top, rowSpan: Math.min(c.rowSpan, bottom - c.row) }));
  const y0 = Math.min(...inner.filter((c) => c.row === top).map((c) => c.bbox?.y ?? Infinity));
  const y1 = Math.max(...inner.filter((c) => c.row + c.rowSpan >= bottom).map((c) => (c.bbox ? c.bbox.y + c.bbox.height : -Infinity)));
  if (!Number.isFinite(y0) || !Number.isFinite(y1)) return t;
  const box: Box = { x0: t.box.x0, x1: t.box.x1, top: y0, bottom: y1 };
  // a header that came from the caption row moves to the first row of the table when that row looks like one
  if (top > 0 && !cells.some((c) => c.header)) {
    const first = cells.filter((c) => c.row === 0);
    const numeric = (x: string) => /^[-+(]?[$€£¥]?\s?\d[\d.,\s%)]*$/.test(x.trim());
    const firstItems = [...t.used].filter((i) => (i.top + i.bottom) / 2 >= y0 && (i.top + i.bottom) / 2 < (first[0]?.bbox ? first[0].bbox.y + first[0].bbox.height : y0));
    const bold = firstItems.length > 0 && firstItems.every((i) => i.bold);
    const spans = first.some((c) => c.colSpan > 1);
    const overNumbers = first.filter((c) => c.text).every((c) => !numeric(c.text)) && cells.some((c) => c.row > 0 && numeric(c.text));
    if (bold || spans || overNumbers) for (const c of first) c.header = true;
  }
  const used = new Set([...t.used].filter((i) => {
    const cy = (i.top + i.bottom) / 2;
    return cy >= box.top && cy <= box.bottom;
  }));
  const bbox = toBBox(box);
  return { element: { kind: 'table', table: { ...table, rows: bottom - top, cells, bbox }, bbox }, used, box };
}

// ---------- paragraph blocks ----------

interface Block extends Box {
  segs: Segment[];
  size: number;
}

/** (numbered as in an appendix too: "Table A-2.", "Figure B.1:") */
const CAPTION = /^(fig(ure)?|table|tab\.|chart|exhibit|listing)(?:\s*|\s+[A-Z][-.]?)[\dIVX]+[a-z]?\s*[.:\-–—]/i;
/** A note under a table or figure: a label, then a sentence (not a short value) */
const NOTE = /^(notes?|sources?|nb)\s*:\s*\S+(\s+\S+){3,}/i;

/**
 * Segments into paragraph blocks. `pitch`: the line pitch of a numbered-line page (a line-number gutter):
 * its lines, however widely spaced, join into paragraphs; an indented line starts a new one.
 */
export function buildBlocks(segs: Segment[], pitch = 0): Block[] {
  const sorted = [...segs].sort((a, b) => a.top - b.top || a.x0 - b.x0);
  const blocks: Block[] = [];
  const closed = new Set<Block>();
  for (const s of sorted) {
    const kv = !!parseKeyValue(s.text);
    const list = isListItem(s.text);
    let target: Block | null = null;
    if (!kv && !list) {
      for (let bi = blocks.length - 1; bi >= 0 && bi >= blocks.length - 40; bi--) {
        const b = blocks[bi]!;
        if (closed.has(b)) continue;
        const last = b.segs[b.segs.length - 1]!;
        if (last.line === s.line) continue;
        const gap = s.top - last.bottom;
        const lh = Math.max(height(last), height(s));
        const nextNumbered = pitch > 0 && s.top - last.top <= pitch * 1.3;
        if ((gap > lh * 0.75 && !nextNumbered) || gap < -lh * 0.5) continue;
        if (nextNumbered && s.x0 > last.x0 + Math.max(s.size, 4) * 1.5 && s.x0 > b.x0 + Math.max(s.size, 4) * 1.5) continue; // an indented start
        const ratio = Math.max(s.size, last.size) / Math.max(0.1, Math.min(s.size, last.size));
        if (ratio > 1.15) continue;
        if (last.bold !== s.bold && (b.segs.length === 1 || s.bold)) continue; // heading then body
        if (b.segs.length === 1 && last.italic && !s.italic && wordsOf(last.text) <= 8 && !/[.,;:]$/.test(last.text)) continue; // an italic title line
        const ov = hOverlap(last, s);
        const leftAligned = Math.abs(last.x0 - s.x0) < Math.max(s.size, 4) * 1.5;
        if (ov < Math.min(width(last), width(s)) * 0.5 && !leftAligned) continue;
        // a short line ending a paragraph followed by an indented start: a new paragraph
        if (CAPTION.test(s.text)) continue;
        target = b;
        break;
      }
    }
    if (target) {
      target.segs.push(s);
      target.x0 = Math.min(target.x0, s.x0);
      target.x1 = Math.max(target.x1, s.x1);
      target.bottom = Math.max(target.bottom, s.bottom);
    } else {
      const b: Block = { x0: s.x0, x1: s.x1, top: s.top, bottom: s.bottom, segs: [s], size: s.size };
      blocks.push(b);
      // a numbered line "SPEAKER: words" starts a turn that the next lines continue
      if (kv && !pitch) closed.add(b);
    }
  }
  return blocks;
}

function segStats(segs: Segment[]): PartStats {
  const st: PartStats = { chars: 0, bold: 0, italic: 0, sizes: [] };
  const sizes = new Map<number, number>();
  for (const s of segs) {
    const n = s.text.length;
    st.chars += n;
    if (s.bold) st.bold += n;
    if (s.italic) st.italic += n;
    const k = Math.round(s.size * 2) / 2;
    sizes.set(k, (sizes.get(k) ?? 0) + n);
  }
  st.sizes = [...sizes];
  return st;
}

/** A text element from the lines of a block (or of several parts of one, joined back): its type, size and style. */
export function textElement(lineTexts: string[], box: Box, lines: number, st: PartStats, markHyphenBreaks: boolean, fallbackSize: number): TextElement {
  const text = joinBlockLines(lineTexts, markHyphenBreaks);
  const { chars, bold, italic } = st;
  const size = [...st.sizes].sort((a, c) => c[1] - a[1])[0]?.[0] ?? fallbackSize;
  const el: TextElement = { kind: 'text', type: 'paragraph', text, bbox: toBBox(box), lines, size, bold: chars > 0 && bold / chars >= 0.8, ...(chars > 0 && italic / chars >= 0.8 ? { italic: true } : {}) };
  // "Table 3: ..." is a caption and "Note: ..." / "Source: ..." under a table a note, not label-value pairs
  const kv = lines === 1 && !CAPTION.test(text) && !NOTE.test(text) ? parseKeyValue(text) : null;
  if (kv) Object.assign(el, { type: 'key_value', key: kv.key, value: kv.value });
  else if (isListItem(text)) el.type = 'list_item';
  else if (CAPTION.test(text)) el.type = 'caption';
  return el;
}

function blockElement(b: Block, markHyphenBreaks = false): TextElement {
  return textElement(b.segs.map((s) => s.text), b, b.segs.length, segStats(b.segs), markHyphenBreaks, b.size);
}

/**
 * A block with lines near the top or bottom edge of the page (where running heads and footers are) and
 * more than one line: its parts, each edge line alone and the runs of other lines together, so that the
 * document can set aside the lines that repeat from page to page and join the others back (assemble.ts).
 * Null when the block has no edge line or only one line.
 */
function edgeParts(b: Block, pageHeight: number, group: number, markHyphenBreaks: boolean): TextElement[] | null {
  if (b.segs.length < 2 || !pageHeight) return null;
  const zones = b.segs.map((s) => furnitureZone(s, pageHeight));
  if (zones.every((z) => !z)) return null;
  const runs: { segs: Segment[]; zone: 'header' | 'footer' | null }[] = [];
  b.segs.forEach((s, i) => {
    const last = runs[runs.length - 1];
    if (!zones[i] && last && !last.zone) last.segs.push(s);
    else runs.push({ segs: [s], zone: zones[i]! });
  });
  return runs.map((r, index) => {
    const stats = segStats(r.segs);
    const el = textElement(r.segs.map((s) => s.text), unionBox(r.segs), r.segs.length, stats, markHyphenBreaks, b.size);
    el.part = { group, index, lines: r.segs.map((s) => s.text), stats, mark: markHyphenBreaks };
    return el;
  });
}

// ---------- reading order ----------

interface Node extends Box {
  el: PageElement;
  lines: number;
}

/** A vertical gutter through all nodes: returns groups left to right, or null. */
function columnSplit(nodes: Node[], minGap: number): Node[][] | null {
  const sorted = [...nodes].sort((a, b) => a.x0 - b.x0);
  const groups: Node[][] = [];
  let cur: Node[] = [];
  let end = -Infinity;
  for (const n of sorted) {
    if (cur.length && n.x0 - end >= minGap) {
      groups.push(cur);
      cur = [];
    }
    cur.push(n);
    end = Math.max(end, n.x1);
  }
  groups.push(cur);
  if (groups.length < 2) return null;
  // pieces lined up in rows (forms, label/value pairs, table-like) are read row by row, not as columns
  for (let g = 0; g + 1 < groups.length; g++) {
    const left = groups[g]!;
    const right = groups[g + 1]!;
    const singles = left.filter((n) => n.lines <= 2);
    const paired = singles.filter((n) => right.some((m) => m.lines <= 2 && vOverlap(n, m) > 0.5 * Math.min(height(n), height(m)))).length;
    if (paired >= 2 && paired >= left.length * 0.5) return null;
  }
  return groups;
}

function rowSplit(nodes: Node[]): Node[][] {
  const sorted = [...nodes].sort((a, b) => a.top - b.top);
  const bands: Node[][] = [];
  let cur: Node[] = [];
  let bottom = -Infinity;
  for (const n of sorted) {
    if (cur.length && n.top >= bottom - 0.5) {
      bands.push(cur);
      cur = [];
    }
    cur.push(n);
    bottom = Math.max(bottom, n.bottom);
  }
  if (cur.length) bands.push(cur);
  return bands;
}

function order(nodes: Node[], minGap: number, rtl: boolean, depth = 0): Node[] {
  if (nodes.length <= 1 || depth > 60) return nodes;
  const cols = columnSplit(nodes, minGap);
  if (cols) {
    const seq = rtl ? [...cols].reverse() : cols;
    return seq.flatMap((g) => order(g, minGap, rtl, depth + 1));
  }
  const bands = rowSplit(nodes);
  if (bands.length === 1) {
    // no gutter, no horizontal gap: top to bottom, then left to right
    return [...nodes].sort((a, b) => (vOverlap(a, b) > 0.5 * Math.min(height(a), height(b)) ? (rtl ? b.x0 - a.x0 : a.x0 - b.x0) : a.top - b.top));
  }
  // bands that together still have their column gutters belong to the same columns (a line across some
  // of the columns, as a short footnote under them, closes them)
  const groups: Node[][] = [];
  const colsOf = (ns: Node[]) => columnSplit(ns, minGap)?.length ?? (ns.length === 1 ? 1 : 0);
  let prevCols = 0;
  for (const band of bands) {
    const prev = groups[groups.length - 1];
    const bandCols = colsOf(band);
    const merged = prev && prevCols && bandCols ? (columnSplit([...prev, ...band], minGap)?.length ?? 0) : 0;
    // (a lone block crossing a gutter of the columns beside it stays apart)
    if (prev && merged >= 2 && !(band.length === 1 && merged < prevCols) && !(prev.length === 1 && merged < bandCols)) {
      prev.push(...band);
      prevCols = merged;
    } else {
      groups.push([...band]);
      prevCols = bandCols;
    }
  }
  if (groups.length === 1 && groups[0]!.length === nodes.length) {
    return bands.flatMap((b) => order(b, minGap, rtl, depth + 1));
  }
  return groups.flatMap((g) => order(g, minGap, rtl, depth + 1));
}

/** A list marker drawn apart from its text: a bullet, `1.`, `(a)`, `iv)`. */
const MARKER = /^(\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxlcIVXLC]{1,5}[.)])$/;
const isMarker = (s: string) => isBulletOnly(s) || MARKER.test(s.trim());

/**
 * Whether the text could hold a table: at least three lines split by gaps of about an em into pieces (one
 * of them short) whose edges line up with another such line. Only then are the page's ruling lines worth
 * reading (a second pass over the page content). Gaps that are not a table's are left out: the one after a
 * list marker, and a column gutter (a gap that lines of running text, long on both sides, also have).
 */
export function mayHaveTable(items: TextItem[]): boolean {
  // rows by baseline (cheap; the layout proper builds real lines later)
  const groups: TextItem[][] = [];
  for (const it of [...items].sort((a, b) => a.baseline - b.baseline)) {
    const g = groups[groups.length - 1];
    if (g && it.baseline - g[0]!.baseline <= Math.max(2, g[0]!.size * 0.35)) g.push(it);
    else groups.push([it]);
  }
  interface Piece {
    x0: number;
    x1: number;
    words: number;
    text: string;
  }
  const lines: Piece[][] = [];
  for (const list of groups) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.x - b.x);
    const pieces: Piece[] = [];
    let cur: Piece | null = null;
    let prev: TextItem | null = null;
    for (const it of list) {
      if (!cur || !prev || it.x - (prev.x + prev.width) > Math.max(Math.min(prev.size, it.size) * 0.9, 4)) {
        cur = { x0: it.x, x1: it.x + it.width, words: 0, text: '' };
        pieces.push(cur);
      }
      cur.x1 = Math.max(cur.x1, it.x + it.width);
      cur.words += wordsOf(it.str);
      if (cur.text.length < 8) cur.text += it.str;
      prev = it;
    }
    // a list marker and its text are one piece
    if (pieces.length > 1 && isMarker(pieces[0]!.text)) {
      pieces[1]!.x0 = pieces[0]!.x0;
      pieces[1]!.words += pieces[0]!.words;
      pieces.shift();
    }
    if (pieces.length > 1) lines.push(pieces);
  }
  // gutters: gaps between two long pieces (running text in columns)
  const gutters: [number, number][] = [];
  for (const ps of lines) for (let i = 1; i < ps.length; i++) if (ps[i - 1]!.words >= 5 && ps[i]!.words >= 5) gutters.push([ps[i - 1]!.x1, ps[i]!.x0]);
  const isGutter = (a: number, b: number) => {
    let n = 0;
    for (const [g0, g1] of gutters) if (Math.min(b, g1) - Math.max(a, g0) > 0 && ++n >= 3) return true;
    return false;
  };
  const rows: number[][] = [];
  for (const ps of lines) {
    const edges: number[] = [];
    let short = false;
    let words = 0;
    for (let i = 0; i < ps.length; i++) {
      words += ps[i]!.words;
      if (i + 1 < ps.length && !isGutter(ps[i]!.x1, ps[i + 1]!.x0)) {
        edges.push(ps[i]!.x1, ps[i + 1]!.x0);
        if (words <= 4) short = true;
        words = 0;
      }
    }
    if (edges.length && (short || words <= 4)) rows.push(edges);
  }
  if (rows.length < 3) return false;
  // a table's pieces line up: some piece edge recurs on another such row
  let aligned = 0;
  for (let i = 0; i < rows.length; i++) {
    const hit = rows.some((r, j) => j !== i && r.some((e) => rows[i]!.some((f) => Math.abs(e - f) < 2)));
    if (hit && ++aligned >= 3) return true;
  }
  return false;
}

interface Found {
  element: TableElement;
  items: TextItem[];
  /** the page's segments the table took (aligned tables, lines between merged parts) */
  segs: Segment[];
  /** its columns are drawn */
  ruled?: boolean;
}

const boxOf = (b: BBox): Box => ({ x0: b.x, x1: b.x + b.width, top: b.y, bottom: b.y + b.height });
/** Whether the centre of `inner` lies in `outer`. */
const contains = (outer: BBox, inner: BBox) => {
  const cx = inner.x + inner.width / 2, cy = inner.y + inner.height / 2;
  return cx > outer.x && cx < outer.x + outer.width && cy > outer.y && cy < outer.y + outer.height;
};

/**
 * One table found as several: parts that overlap (a ruled grid of numbers and its row labels outside the
 * rules, rules of two widths around one table), and parts stacked one under the other over the same
 * columns with nothing between them but short lines (a header grid over its body, a table that goes on
 * after a gap or a subheading row). A caption or a paragraph between two tables keeps them apart. The
 * parts are read again as one table from their words.
 */
function mergeTables(tables: Found[], freeSegs: Segment[], bodySize: number): Found[] {
  if (tables.length < 2) return tables;
  let list = [...tables];
  // overlapping parts
  for (let changed = true; changed; ) {
    changed = false;
    outer: for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        if (list[i]!.ruled && list[j]!.ruled) continue; // grids drawn each with its own rules
        const a = boxOf(list[i]!.element.bbox), b = boxOf(list[j]!.element.bbox);
        const ov = Math.max(0, hOverlap(a, b)) * Math.max(0, vOverlap(a, b));
        if (ov <= 0.3 * Math.min(width(a) * height(a), width(b) * height(b))) continue;
        const m = rebuildTable([list[i]!, list[j]!], [], bodySize, null);
        if (!m) continue;
        list = [...list.filter((_, k) => k !== i && k !== j), m];
        changed = true;
        break outer;
      }
  }
  // stacked parts over the same columns
  list.sort((p, q) => p.element.bbox.y - q.element.bbox.y);
  const out: Found[] = [];
  for (const t of list) {
    const prev = out[out.length - 1];
    const m = prev ? stackMerge(prev, t, freeSegs, bodySize) : null;
    if (m) out[out.length - 1] = m;
    else out.push(t);
  }
  return out;
}

function stackMerge(a: Found, b: Found, freeSegs: Segment[], bodySize: number): Found | null {
  // two grids drawn apart are two tables (form sections, each with its own rules)
  if (a.ruled && b.ruled) return null;
  const A = boxOf(a.element.bbox), B = boxOf(b.element.bbox);
  if (hOverlap(A, B) < 0.8 * Math.min(width(A), width(B))) return null;
  const gap = B.top - A.bottom;
  if (gap < -2 || gap > bodySize * 5) return null;
  const ta = a.element.table, tb = b.element.table;
  // the upper part heads the lower one: a few rows of labels (or one row of values under them)
  const textOnly = ta.cells.every((c) => !numericCell(c.text) || YEARS.test(c.text));
  const header = tb.rows > ta.rows && (ta.rows <= 2 || (ta.rows <= 3 && textOnly));
  if (!header && ta.cols !== tb.cols) return null;
  // what lies between: short lines within the tables' width, no caption
  const x0 = Math.min(A.x0, B.x0), x1 = Math.max(A.x1, B.x1);
  const between = freeSegs.filter((s) => (s.top + s.bottom) / 2 > A.bottom && (s.top + s.bottom) / 2 < B.top && s.x1 > x0 && s.x0 < x1);
  if (between.some((s) => CAPTION.test(s.text) || wordsOf(s.text) > 8 || s.x0 < x0 - bodySize || s.x1 > x1 + bodySize)) return null;
  // the upper part's header rows head the whole
  // the upper part's header rows head the whole: all of it when it holds no numbers
  const headCells = ta.cells.filter((c) => c.header && c.bbox);
  const headerBottom = !header ? null : textOnly ? A.bottom + 1 : headCells.length ? Math.max(...headCells.map((c) => c.bbox!.y + c.bbox!.height)) : null;
  const m = rebuildTable([a, b], between, bodySize, headerBottom);
  // parts whose columns do not line up (read as one, they lose columns or gain some) are two tables
  if (m && !header && (m.element.table.cols < Math.min(ta.cols, tb.cols) || m.element.table.cols > Math.max(ta.cols, tb.cols))) return null;
  return m;
}

/** The parts' words read as one table; `headerBottom`: rows above it are header rows (the upper part's). */
function rebuildTable(parts: Found[], extra: Segment[], bodySize: number, headerBottom: number | null): Found | null {
  const items = [...new Set([...parts.flatMap((p) => p.items), ...extra.flatMap((s) => s.items)])];
  const lines = buildLines(items);
  const rows: PieceRow[] = lines.map((l) => ({ pieces: wordPieces(l.items), box: { x0: l.x0, x1: l.x1, top: l.top, bottom: l.bottom } }));
  while (rows.length > 2 && NOTE_ROW.test(rows[rows.length - 1]!.pieces[0]?.text ?? '')) rows.pop();
  // header rows: the upper part's, else the first rows without a number over rows with numbers
  const numeric = (r: PieceRow) => r.pieces.some((p) => numericCell(p.text) && !YEARS.test(p.text));
  let lead = 0;
  while (lead < 3 && lead < rows.length && !numeric(rows[lead]!)) lead++;
  const inferred = lead < rows.length && rows.slice(lead).filter(numeric).length >= (rows.length - lead) * 0.6 ? lead : 0;
  const headerRows = headerBottom === null ? inferred : rows.filter((r) => (r.box.top + r.box.bottom) / 2 < headerBottom).length;
  if (headerRows >= rows.length) return null;
  const minGap = Math.max(bodySize * 0.5, 3);
  // the columns come from the rows of several pieces: a subheading or a wrapped label crosses them
  const split = (r: PieceRow) => r.pieces.some((p, k) => k > 0 && p.x0 - r.pieces[k - 1]!.x1 >= minGap);
  const gutterRows = rows.slice(headerRows).filter(split);
  if (!gutterRows.length) return null;
  // the column rules of ruled parts
  const cuts = parts.filter((p) => p.ruled).flatMap((p) => p.element.table.cells.filter((c) => c.col > 0 && c.bbox).map((c) => c.bbox!.x));
  const element = piecesTable(rows, { minGap, gutterRows, cuts, headerRows, confidence: Math.max(...parts.map((p) => p.element.table.confidence ?? 0.7)), requireNumbersIn2Cols: false });
  if (!element) return null;
  const bbox = toBBox(unionBox(items.map(itemBox)));
  element.bbox = bbox;
  element.table.bbox = bbox;
  return { element, items, segs: [...parts.flatMap((p) => p.segs), ...extra], ruled: parts.some((p) => p.ruled) };
}

/** Shrinks a table's box to the text it holds (never grows it). */
function fitToContent(el: TableElement, used: Set<TextItem>): void {
  if (!used.size) return;
  const c = unionBox([...used].map(itemBox));
  const b = el.bbox;
  const box = { x0: Math.max(b.x, c.x0), x1: Math.min(b.x + b.width, c.x1), top: Math.max(b.y, c.top), bottom: Math.min(b.y + b.height, c.bottom) };
  if (box.x1 <= box.x0 || box.bottom <= box.top) return;
  el.bbox = toBBox(box);
  el.table.bbox = el.bbox;
}

function charWeightedMedianSize(items: TextItem[]): number {
  const sizes = items.map((i) => [i.size, i.str.length] as const).sort((a, b) => a[0] - b[0]);
  const total = sizes.reduce((a, s) => a + s[1], 0);
  let acc = 0;
  for (const [size, n] of sizes) {
    acc += n;
    if (acc >= total / 2) return size;
  }
  return 10;
}

// ---------- page ----------

export interface LayoutOptions {
  width: number;
  height: number;
  /**
   * Lines of a block ending in a hyphen that may be hyphenation keep it, marked for the document-level
   * decision (hyphens.ts: resolveHyphenBreaks must then run on the page). Off: such hyphens are dropped.
   */
  markHyphenBreaks?: boolean;
}

/** Lays out one page: tables and text blocks in reading order. */
export function layoutPage(items: TextItem[], rules: Rule[], opts: LayoutOptions): PageElement[] {
  if (!items.length) return [];
  const bodySize = charWeightedMedianSize(items);
  const charts: Box[] = [];
  // the labels of a chart's grid (axis values, data labels) are no table either
  const inChart = (b: BBox) => charts.some((c) => b.x + b.width / 2 > c.x0 && b.x + b.width / 2 < c.x1 && b.y + b.height / 2 > c.top && b.y + b.height / 2 < c.bottom);
  const ruled: { element: TableElement; used: Set<TextItem> }[] = findRuledTables(rules, items, charts)
    .map(peelFrameRows)
    .filter((t): t is GridTable => !!t);
  const usedItems = new Set<TextItem>();
  for (const t of ruled) for (const it of t.used) usedItems.add(it);
  if (rules.length) {
    // a table ruled row by row whose shaded rows make small grids: the grids are parts of it
    if (ruled.length) {
      const whole = findRuleBoundedTables(rules, items, bodySize).filter((b) => {
        const inside = ruled.filter((t) => contains(b.element.bbox, t.element.bbox));
        // only when the grids hold less than half of its text (a full grid reads its cells better)
        const held = inside.reduce((a, t) => a + t.used.size, 0);
        // or when it is split in rows at each line of its cells (rows with one cell of text among several columns)
        const overSplit = (t: { element: TableElement }) => {
          const { rows, cols, cells } = t.element.table;
          let cont = 0;
          for (let r = 1; r < rows; r++) {
            // a row under a first-column cell that spans rows from above is a row of that cell's group, drawn so
            if (cells.some((c) => c.col === 0 && c.row < r && c.row + (c.rowSpan ?? 1) > r)) continue;
            const texts = cells.filter((c) => c.row === r && c.text);
            if (texts.length && !texts.some((c) => c.col === 0) && texts.every((c) => !numericCell(c.text))) cont++;
          }
          return cont >= 2 && cont > rows / 3;
        };
        // or when it is found as several grids over the same columns
        const stacked = inside.length > 1 && inside.every((t) => t.element.table.cols === inside[0]!.element.table.cols && t.element.table.cols <= b.element.table.cols);
        const partial = held < b.used.size * 0.5 || stacked || inside.some(overSplit);
        return inside.length > 0 && partial && inside.every((t) => [...t.used].every((it) => b.used.has(it)));
      });
      for (const b of whole) {
        for (let k = ruled.length - 1; k >= 0; k--) if (contains(b.element.bbox, ruled[k]!.element.bbox)) ruled.splice(k, 1);
      }
      if (whole.length) {
        usedItems.clear();
        for (const t of ruled) for (const it of t.used) usedItems.add(it);
      }
    }
    const bounded = findRuleBoundedTables(rules, usedItems.size ? items.filter((i) => !usedItems.has(i)) : items, bodySize);
    for (const t of bounded) {
      if (inChart(t.element.bbox)) continue;
      ruled.push(t);
      for (const it of t.used) usedItems.add(it);
    }
  }
  // a ruled table's region is its content: the text inside the rules, not the padding of the frame
  for (const t of ruled) fitToContent(t.element, t.used);
  const free = usedItems.size ? items.filter((i) => !usedItems.has(i)) : items;
  let lines = buildLines(free);
  // a line-number gutter: the numbers are left out, the numbered lines read as running text
  const gutter = findLineNumberGutter(lines);
  if (gutter) {
    lines = lines
      .map((l) => {
        const items = l.items.filter((i) => !gutter.numbers.has(i));
        return items.length === l.items.length ? l : { ...unionBox(items.map(itemBox)), items, size: l.size };
      })
      .filter((l) => l.items.length);
  }
  const narrow = findNarrowGutters(lines);
  const segs = buildSegments(lines, narrow.starts);
  const aligned = findAlignedTables(segs, bodySize).filter((t) => !inChart(t.element.bbox));
  const usedSegs = new Set<Segment>();
  for (const t of aligned) for (const s of t.used) usedSegs.add(s);
  const found = mergeTables(
    [...ruled.map((t) => ({ element: t.element, items: [...t.used], segs: [] as Segment[], ruled: t.element.table.confidence === 0.9 })), ...aligned.map((t) => ({ element: t.element, items: [...t.used].flatMap((s) => s.items), segs: [...t.used] }))],
    segs.filter((s) => !usedSegs.has(s)),
    bodySize,
  );
  for (const t of found) for (const s of t.segs) usedSegs.add(s);
  const blocks = buildBlocks(segs.filter((s) => !usedSegs.has(s)), gutter?.pitch);
  const parts = new Map<PageElement, TextElement[]>();
  const nodes: Node[] = [
    ...blocks.map((b, i) => {
      const el = blockElement(b, opts.markHyphenBreaks);
      const split = edgeParts(b, opts.height, i, !!opts.markHyphenBreaks);
      if (split) parts.set(el, split);
      return { x0: b.x0, x1: b.x1, top: b.top, bottom: b.bottom, el: el as PageElement, lines: b.segs.length };
    }),
    ...found.map((t) => t.element).map((el) => ({ x0: el.bbox.x, x1: el.bbox.x + el.bbox.width, top: el.bbox.y, bottom: el.bbox.y + el.bbox.height, el: el as PageElement, lines: 99 })),
  ];
  const rtlChars = segs.filter((s) => s.rtl).reduce((a, s) => a + s.text.length, 0);
  const allChars = segs.reduce((a, s) => a + s.text.length, 0);
  // columns as far apart as a narrow gutter found on the page are columns
  const minGap = Math.min(Math.max(bodySize * 0.9, 6), narrow.width - 0.5);
  // a block with edge lines is placed as a whole, then given as its parts
  return order(nodes, minGap, rtlChars > allChars / 2).flatMap((n) => parts.get(n.el) ?? [n.el]);
}
