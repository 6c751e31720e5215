/**
 * Page furniture and line-number gutters (pure functions, shared by the readers that lay out pages).
 *
 * Furniture — running heads, footers, page numbers — is found by repetition across pages: a line near the
 * top or bottom edge whose text, digits masked ("Page 3 of 12" → "page # of #"), comes back at a similar
 * height on enough other pages. A line seen once is never furniture; a two-page document needs the exact
 * same text on both pages, or a page number on both.
 *
 * A line-number gutter (transcripts, pleadings, code listings) is a column of small integers at the left
 * margin, one per text line, each one more than the one above.
 */
import type { BBox } from '@quire/core';
import type { Line, TextItem } from './grid.js';

/** Share of the page height, from the top / bottom edge, in which furniture is looked for. */
export const FURNITURE_TOP = 0.12;
export const FURNITURE_BOTTOM = 0.1;

export type FurnitureZone = 'header' | 'footer';

/** The zone of a box on a page of this height, or null in the body. */
export function furnitureZone(box: { top: number; bottom: number }, pageHeight: number): FurnitureZone | null {
  if (!(pageHeight > 0)) return null;
  if (box.bottom <= pageHeight * FURNITURE_TOP) return 'header';
  if (box.top >= pageHeight * (1 - FURNITURE_BOTTOM)) return 'footer';
  return null;
}

/** A line (or a short block) near a page edge that may be furniture. */
export interface FurnitureCandidate {
  page: number;
  text: string;
  bbox: BBox;
  /** height of the candidate's page */
  pageHeight: number;
}

/** Text with digits masked, case and spacing folded: what repeats from page to page. */
export const furnitureKey = (t: string) => t.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();

/** A page number once masked: "#", "page # of #", "- # -", "p. #", roman numerals. */
const PAGE_NUMBER = /^(?:(?:page|p\.|seite|página|pagina)\s*)?(?:#|[ivxlc]+)(?:\s*(?:of|\/|von|de)\s*#)?$|^[-–—]\s*#\s*[-–—]$/i;

/**
 * The candidates that are furniture. `pages`: the pages with text (the share of pages a running line must
 * appear on is counted over them). A candidate is furniture when a candidate in the same zone with the same
 * masked text (on a two-page document: the same text) lies at a similar height on at least max(2, 40% of
 * the pages) pages, itself included; a page number, when page numbers are at a similar height on two pages
 * or more.
 */
export function findFurniture<C extends FurnitureCandidate>(candidates: C[], pages: number): Set<C> {
  const out = new Set<C>();
  if (pages < 2) return out;
  const atLeast = Math.max(2, Math.ceil(pages * 0.4));
  const groups = new Map<string, { c: C; zone: FurnitureZone; key: string }[]>();
  for (const c of candidates) {
    const zone = furnitureZone({ top: c.bbox.y, bottom: c.bbox.y + c.bbox.height }, c.pageHeight);
    if (!zone) continue;
    const masked = furnitureKey(c.text);
    if (!masked) continue;
    // page numbers in any of their forms are one group ("iii", "1", "Page 2 of 9"), which needs two pages;
    // on two pages other lines must repeat exactly (a masked match on two pages is too weak a sign)
    const number = PAGE_NUMBER.test(masked);
    const key = `${zone}:${number ? '#page' : pages === 2 ? c.text.replace(/\s+/g, ' ').trim().toLowerCase() : masked}`;
    const g = groups.get(key) ?? [];
    g.push({ c, zone, key });
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    const need = g[0]!.key.endsWith(':#page') ? 2 : atLeast;
    if (new Set(g.map((x) => x.c.page)).size < need) continue;
    for (const x of g) {
      // the same line at a similar height (from its own edge) on enough pages
      const edge = (c: C) => (x.zone === 'header' ? c.bbox.y : c.pageHeight - c.bbox.y - c.bbox.height);
      const tol = Math.max(8, x.c.pageHeight * 0.03);
      const near = new Set(g.filter((y) => Math.abs(edge(y.c) - edge(x.c)) <= tol).map((y) => y.c.page));
      if (near.size >= need) out.add(x.c);
    }
  }
  for (const c of numberedRunningLines(candidates, pages)) out.add(c);
  // the words set on the row of a page number found as furniture ("Chapter 3. Results  47", "© 2014 …  iii"):
  // the rest of the running line, whatever its text on each page
  const numbers = [...out].filter((c) => PAGE_NUMBER.test(furnitureKey(c.text)));
  for (const c of candidates) {
    if (out.has(c) || !furnitureZone({ top: c.bbox.y, bottom: c.bbox.y + c.bbox.height }, c.pageHeight)) continue;
    const row = numbers.some((n) => {
      if (n.page !== c.page) return false;
      const overlap = Math.min(n.bbox.y + n.bbox.height, c.bbox.y + c.bbox.height) - Math.max(n.bbox.y, c.bbox.y);
      return overlap >= Math.min(n.bbox.height, c.bbox.height) * 0.5 && (c.bbox.x >= n.bbox.x + n.bbox.width || c.bbox.x + c.bbox.width <= n.bbox.x);
    });
    if (row) out.add(c);
  }
  return out;
}

const ROMAN = /^(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/i;
const romanValue = (s: string) => {
  const v: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100 };
  const d = [...s.toLowerCase()].map((ch) => v[ch]!);
  return d.reduce((a, x, i) => a + (x < (d[i + 1] ?? 0) ? -x : x), 0);
};

/** The page number a line starts or ends with, beside words: "12 Annual report", "Chapter 3. Results 47", "Preface iii". */
export function edgePageNumber(text: string): { at: 'start' | 'end'; n: number } | null {
  const words = text.trim().split(/\s+/);
  if (words.length < 2 || !/\p{L}{2}/u.test(text.replace(/\d+/g, ''))) return null;
  // arabic numbers count after roman ones (front matter iii, xi, then 1, 2, ...)
  const value = (w: string) => (/^\d{1,4}$/.test(w) ? 1000 + Number(w) : ROMAN.test(w) ? romanValue(w) : null);
  const first = value(words[0]!);
  const last = value(words[words.length - 1]!);
  // arabic before roman when both ends could be numbers ("20 Support in DB2 for i")
  if (last !== null && (first === null || last >= 1000)) return first !== null && first >= 1000 && last >= 1000 ? null : { at: 'end', n: last };
  return first !== null ? { at: 'start', n: first } : null;
}

/**
 * Running lines that carry the page number beside text that varies (chapter titles) or alternates (the
 * mirrored footers of left and right pages): in one zone, the line nearest the edge on each page that
 * starts (or, apart, ends) with a page number, at a similar height from the edge; furniture when the
 * numbers rise from page to page on at least max(3, 20% of the pages) pages. Footnotes and numbered lists
 * at the foot of a page restart or repeat their numbers; the longest rising run is what is kept.
 */
function numberedRunningLines<C extends FurnitureCandidate>(candidates: C[], pages: number): C[] {
  const need = Math.max(3, Math.ceil(pages * 0.2));
  const groups = new Map<string, Map<number, { c: C; n: number; edge: number }>>();
  for (const c of candidates) {
    const zone = furnitureZone({ top: c.bbox.y, bottom: c.bbox.y + c.bbox.height }, c.pageHeight);
    if (!zone) continue;
    const num = edgePageNumber(c.text);
    if (!num) continue;
    const edge = zone === 'header' ? c.bbox.y : c.pageHeight - c.bbox.y - c.bbox.height;
    const key = `${zone}:${num.at}`;
    const g = groups.get(key) ?? new Map();
    const had = g.get(c.page);
    if (!had || edge < had.edge) g.set(c.page, { c, n: num.n, edge });
    groups.set(key, g);
  }
  const out: C[] = [];
  for (const g of groups.values()) {
    if (g.size < need) continue;
    const all = [...g.values()].sort((a, b) => a.c.page - b.c.page);
    const edges = all.map((x) => x.edge).sort((a, b) => a - b);
    const mid = edges[Math.floor(edges.length / 2)]!;
    const xs = all.filter((x) => Math.abs(x.edge - mid) <= Math.max(8, x.c.pageHeight * 0.03));
    // the longest run of numbers rising with the page
    const len = xs.map(() => 1);
    const prev = xs.map(() => -1);
    for (let i = 0; i < xs.length; i++)
      for (let j = 0; j < i; j++)
        if (xs[j]!.n < xs[i]!.n && len[j]! + 1 > len[i]!) {
          len[i] = len[j]! + 1;
          prev[i] = j;
        }
    let best = len.indexOf(Math.max(0, ...len));
    if (best < 0 || len[best]! < need) continue;
    for (; best >= 0; best = prev[best]!) out.push(xs[best]!.c);
  }
  return out;
}

/** Whether furniture is a header or a footer: the half of the page it is on. */
export const furnitureSide = (c: FurnitureCandidate): FurnitureZone => (c.bbox.y + c.bbox.height / 2 <= c.pageHeight / 2 ? 'header' : 'footer');

/** A line-number gutter found on a page: the number items, and the pitch of the numbered lines (points). */
export interface LineGutter {
  numbers: Set<TextItem>;
  pitch: number;
}

const SMALL_INT = /^\d{1,4}$/;

/**
 * A column of consecutive small integers at the left of the text lines: the first item of at least five
 * lines (60% of the page's lines or more), each a number one more than that of the numbered line above,
 * their left edges within a few points, at a regular vertical pitch, with running text (or nothing) to
 * their right after a gap: not the row numbers of a table (short cells, split by wide gaps). Returns null
 * when the page has no such column.
 */
export function findLineNumberGutter(lines: Line[]): LineGutter | null {
  const numbered: { line: Line; item: TextItem; n: number }[] = [];
  for (const line of [...lines].sort((a, b) => a.top - b.top)) {
    const first = line.items[0];
    if (!first) continue;
    const m = first.str.trim().match(/^(\d{1,4})(?:\s|$)/);
    if (!m || !SMALL_INT.test(m[1]!)) continue;
    // the number alone in its item, apart from the text after it
    if (first.str.trim() !== m[1]) continue;
    const next = line.items[1];
    if (next && next.x - (first.x + first.width) < Math.max(first.size * 0.8, 4)) continue;
    numbered.push({ line, item: first, n: Number(m[1]) });
  }
  if (numbered.length < 5) return null;
  // the longest run of numbers each one more than the last, left edges aligned (right-aligned numbers: right edges)
  let best: typeof numbered = [];
  let run: typeof numbered = [];
  for (const x of numbered) {
    const prev = run[run.length - 1];
    const aligned = prev && (Math.abs(prev.item.x - x.item.x) < 4 || Math.abs(prev.item.x + prev.item.width - x.item.x - x.item.width) < 4);
    if (prev && x.n === prev.n + 1 && aligned) run.push(x);
    else run = [x];
    if (run.length > best.length) best = run;
  }
  if (best.length < 5) return null;
  const textLines = lines.filter((l) => l.items.some((i) => i.str.trim())).length;
  if (best.length < textLines * 0.6) return null;
  // a regular pitch (numbers printed for every line, blank lines included)
  const steps = best.slice(1).map((x, i) => x.item.top - best[i]!.item.top);
  const sorted = [...steps].sort((a, b) => a - b);
  const pitch = sorted[Math.floor(sorted.length / 2)]!;
  if (!(pitch > 0) || steps.some((s) => Math.abs(s - pitch) > pitch * 0.25)) return null;
  // every number column item is left of the text of its line
  const right = Math.max(...best.map((x) => x.item.x + x.item.width));
  const textStart = Math.min(...best.flatMap((x) => x.line.items.slice(1).map((i) => i.x)), Infinity);
  if (textStart !== Infinity && textStart <= right) return null;
  // what the numbers stand beside is running text, not the cells of a table with a row-number column:
  // lines of several words, seldom split by wide gaps
  const rest = best.map((x) => x.line.items.slice(1)).filter((items) => items.length);
  if (rest.length) {
    const words = rest.map((items) => items.reduce((a, i) => a + (i.str.match(/\S+/g)?.length ?? 0), 0)).sort((a, b) => a - b);
    const split = rest.filter((items) => items.some((it, i) => i > 0 && it.x - (items[i - 1]!.x + items[i - 1]!.width) > Math.max(it.size, 4) * 2)).length;
    if (words[Math.floor(words.length / 2)]! < 3 || split > rest.length * 0.3) return null;
  }
  return { numbers: new Set(best.map((x) => x.item)), pitch };
}
