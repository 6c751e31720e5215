/**
 * Generated multi-column pages (reading order): columns of distinct sentences set in small type with narrow
 * gutters, a full-width title and abstract, a full-width ruled table or framed box across the columns
 * mid-page (the columns go on below it), columns of unequal length and a footnote across the foot of the
 * page. Each column holds whole sentences, so a reader that keeps each column together gives every
 * sentence contiguous, in order.
 */
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';

const WORDS = (
  'river stone harbor lantern meadow copper violet orchard signal timber canyon marble falcon willow ' +
  'ember glacier thistle saddle beacon quarry juniper pebble tundra anchor bramble cobalt dune fjord ' +
  'granite hollow ivory jasper kestrel lagoon mosaic nectar opal prairie quartz reef sierra tassel ' +
  'umber valley walnut yarrow zephyr almond birch cedar delta estuary fern grove heron inlet'
).split(' ');

/** Distinct sentences: a marker word (`tag`) then words drawn by a fixed generator, 9 to 16 words. */
export function sentences(tag: string, n: number, seed: number): string[] {
  let x = seed * 7919 + 17;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor(x / 65536);
  };
  return Array.from({ length: n }, (_, i) => {
    const len = 9 + (next() % 8);
    const words = Array.from({ length: len }, () => WORDS[next() % WORDS.length]!);
    return `${tag}${i + 1} ${words.join(' ')}.`;
  });
}

/** Lines of at most `width` points: the words of `text` filled greedily. */
function wrap(text: string, font: PDFFont, size: number, width: number, indent = 0): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const w of text.split(' ')) {
    const next = cur ? `${cur} ${w}` : w;
    if (cur && font.widthOfTextAtSize(next, size) > width - (lines.length ? 0 : indent)) {
      lines.push(cur);
      cur = w;
    } else cur = next;
  }
  if (cur) lines.push(cur);
  return lines;
}

/** Draws a line word by word (each word its own text object, as typesetters of notices and papers often do). */
function drawLine(page: PDFPage, text: string, x: number, y: number, font: PDFFont, size: number, byWord: boolean, justifyTo = 0) {
  const words = text.split(' ');
  let space = font.widthOfTextAtSize(' ', size);
  // justified: the spaces stretched so that the last word ends at the column's right edge
  // (a line that would need spaces over twice their width stays ragged, as a typesetter would rather hyphenate)
  if (justifyTo > 0 && words.length > 1) space = Math.min(space * 2, (justifyTo - font.widthOfTextAtSize(words.join(''), size)) / (words.length - 1));
  if (!byWord && !(justifyTo > 0)) {
    page.drawText(text, { x, y, size, font });
    return;
  }
  for (const w of words) {
    page.drawText(w, { x, y, size, font });
    x += font.widthOfTextAtSize(w, size) + space;
  }
}

export interface ColumnPageSpec {
  /** columns' sentences above the mid-page element (or all of them without one), column by column */
  top: string[][];
  /** columns' sentences below the mid-page element */
  bottom?: string[][];
  /** full-width lines at the top: a bold title, then an abstract paragraph */
  title?: string;
  abstract?: string;
  /** the element across the columns between `top` and `bottom`: a ruled table (rows of cells) or a framed box of text */
  table?: string[][];
  box?: string;
  /** a footnote across the foot of the page */
  footnote?: string;
  gutter?: number;
  size?: number;
  leading?: number;
  byWord?: boolean;
  /** column lines set flush left and right (but a paragraph's last line) */
  justify?: boolean;
}

/** One page (612 x 792) laid out from `spec`; returns the page's PDF. */
export async function columnPage(spec: ColumnPageSpec): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  const page = doc.addPage([612, 792]);
  const size = spec.size ?? 8;
  const leading = spec.leading ?? size * 1.15;
  const gutter = spec.gutter ?? 12;
  const byWord = spec.byWord ?? true;
  const left = 45, right = 567;
  const full = right - left;
  let y = 750;
  if (spec.title) {
    for (const l of wrap(spec.title, bold, 14, full)) {
      page.drawText(l, { x: left, y, size: 14, font: bold });
      y -= 17;
    }
    y -= 6;
  }
  if (spec.abstract) {
    for (const l of wrap(spec.abstract, font, size + 1, full)) {
      drawLine(page, l, left, y, font, size + 1, byWord);
      y -= (size + 1) * 1.15;
    }
    y -= size * 1.5;
  }
  const band = (cols: string[][]) => {
    const n = cols.length;
    const w = (full - gutter * (n - 1)) / n;
    let lowest = y;
    cols.forEach((ss, c) => {
      const x = left + c * (w + gutter);
      let cy = y;
      // two sentences a paragraph, the first line of a paragraph indented
      for (let p = 0; p < ss.length; p += 2) {
        const lines = wrap(ss.slice(p, p + 2).join(' '), font, size, w, size);
        lines.forEach((l, k) => {
          const indent = k === 0 ? size : 0;
          drawLine(page, l, x + indent, cy, font, size, byWord, spec.justify && k < lines.length - 1 ? w - indent : 0);
          cy -= leading;
        });
      }
      lowest = Math.min(lowest, cy);
    });
    y = lowest - size;
  };
  band(spec.top);
  if (spec.table) {
    const rows = spec.table;
    const cols = rows[0]!.length;
    const rowH = size * 2.2;
    const colW = full / cols;
    const top = y + size;
    for (let r = 0; r <= rows.length; r++) page.drawLine({ start: { x: left, y: top - r * rowH }, end: { x: right, y: top - r * rowH }, thickness: 0.6, color: rgb(0, 0, 0) });
    for (let c = 0; c <= cols; c++) page.drawLine({ start: { x: left + c * colW, y: top }, end: { x: left + c * colW, y: top - rows.length * rowH }, thickness: 0.6, color: rgb(0, 0, 0) });
    rows.forEach((row, r) => row.forEach((t, c) => page.drawText(t, { x: left + c * colW + 4, y: top - (r + 1) * rowH + size * 0.7, size, font: r === 0 ? bold : font })));
    y = top - rows.length * rowH - size * 2;
  }
  if (spec.box) {
    const lines = wrap(spec.box, font, size + 1, full - 20);
    const h = lines.length * (size + 1) * 1.2 + 14;
    const top = y + size;
    page.drawRectangle({ x: left, y: top - h, width: full, height: h, borderColor: rgb(0, 0, 0), borderWidth: 0.8 });
    lines.forEach((l, k) => drawLine(page, l, left + 10, top - 7 - (size + 1) * (k + 1), font, size + 1, byWord));
    y = top - h - size * 2;
  }
  if (spec.bottom) band(spec.bottom);
  if (spec.footnote) {
    page.drawLine({ start: { x: left, y: 70 }, end: { x: left + 120, y: 70 }, thickness: 0.5, color: rgb(0, 0, 0) });
    wrap(spec.footnote, font, size - 1, full).forEach((l, k) => drawLine(page, l, left, 60 - k * (size - 1) * 1.15, font, size - 1, byWord));
  }
  return doc.save();
}
