/**
 * Blanks of flat pages from what is drawn rather than written: empty boxes (rectangles of four ruling
 * lines, split into cells by the inner vertical rules of a table row; an empty cell is named by its
 * column's header and its row's label; a row of equal narrow cells is one comb blank of that many characters), small squares (checkboxes, ticked
 * when ink is inside) and underlines (a horizontal rule with nothing written on it). The ruling lines are
 * found in the page's pixels (`detectRules` of @quire/layout, the readers' own detector), so a flattened
 * PDF (drawn by the host's PDF reader) and a photo or scan of a form are read the same way. Labels come
 * from the words of the layout (text layer or OCR): left on the same line, else above (or below, for a
 * signature line). Everything is in page points, top-left origin.
 */
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { detectRules } from '@quire/layout';
import type { Rule } from '@quire/layout';
import type { BBox, EditElement, Word } from '@quire/core';
import { cleanLabel, refineTextType } from './labels.js';

/** largest page image read for geometry (pixels); a larger one is skipped (words only) */
const MAX_PIXELS = 40_000_000;
/** ruling lines looked at per page at most */
const MAX_RULES = 4000;
const BASE_TOL = 3;

export interface PageGeometry {
  /** ruling lines in page points */
  rules: Rule[];
  /** fraction of dark pixels inside a box (page points) */
  ink(box: BBox): number;
  /** layout units per point (an image's layout is in pixels) */
  unit?: number;
  /** small rings (radio buttons) in page points; `disc`: a filled one (a chosen button, or a button drawn with a background) */
  circles?: (BBox & { disc?: boolean })[];
  /** how far the colour of a disc's rim is from that of its middle (0 to 441: RGB distance) */
  rim?(box: BBox): number;
  /** ruling lines of the page read at a higher resolution (page points): small squares the first reading lost */
  fineRules?: Rule[];
  /** whether the ink inside a box (page points) is one down-pointing arrow: a filled triangle or a chevron, centred */
  arrow?(box: BBox): boolean;
}

/** pixels looked at by the ring search at most (a larger page is searched for rules only) */
const MAX_RING_PIXELS = 12_000_000;

/**
 * Small rings drawn on a page image (radio buttons): 8-connected runs of non-white pixels whose box is
 * about square, 5 to 24 points wide, whose pixels lie on the ellipse the box holds (few at its corners or
 * centre) and go all round it. Letters (an "O") are told apart later by the words over them.
 */
function rings(data: Uint8ClampedArray, w: number, h: number, sx: number, sy: number, unit: number): (BBox & { disc?: boolean })[] {
  if (w * h > MAX_RING_PIXELS) return [];
  const minPx = Math.max(6, Math.round((5 * unit) / sx)), maxPx = Math.round((24 * unit) / sx);
  const dark = new Uint8Array(w * h);
  for (let i = 0, p = 0; i < w * h; i++, p += 4) dark[i] = (data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000 < 200 ? 1 : 0;
  const seen = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  const out: (BBox & { disc?: boolean })[] = [];
  const pixels: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (!dark[start] || seen[start]) continue;
    let top = 0, x0 = w, x1 = 0, y0 = h, y1 = 0, big = false;
    stack[top++] = start;
    seen[start] = 1;
    pixels.length = 0;
    while (top) {
      const i = stack[--top]!;
      const x = i % w, y = (i - x) / w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (!big) {
        pixels.push(i);
        if (x1 - x0 > maxPx * 1.5 || y1 - y0 > maxPx * 1.5) big = true;
      }
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const j = yy * w + xx;
          if (dark[j] && !seen[j]) {
            seen[j] = 1;
            stack[top++] = j;
          }
        }
      }
    }
    if (big) continue;
    const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    if (bw < minPx || bh < minPx || bw > maxPx || bh > maxPx || Math.abs(bw - bh) > Math.max(2, 0.2 * Math.max(bw, bh))) continue;
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, rx = bw / 2, ry = bh / 2;
    let onRing = 0, outside = 0;
    const bins = new Set<number>();
    for (const i of pixels) {
      const x = i % w, y = (i - x) / w;
      const r = Math.hypot((x - cx) / rx, (y - cy) / ry);
      if (r > 1.15) outside++;
      if (r >= 0.6 && r <= 1.2) {
        onRing++;
        bins.add(Math.floor(((Math.atan2(y - cy, x - cx) + Math.PI) / (2 * Math.PI)) * 16) % 16);
      }
    }
    // a ring, not a disc or a square: its pixels on the ellipse, all round it, and its middle empty
    const ringArea = Math.PI * rx * ry * (1.2 * 1.2 - 0.6 * 0.6);
    const ring = (onRing >= 0.9 * pixels.length && bins.size >= 15 && pixels.length <= 0.8 * ringArea) || framedRing(pixels, w, x0, y0, bw, bh);
    // a disc: the ellipse filled, nothing outside it
    const disc = !ring && pixels.length >= 0.8 * Math.PI * rx * ry && outside <= 0.03 * pixels.length && bins.size >= 15;
    if (!ring && !disc) continue;
    out.push({ x: x0 * sx, y: y0 * sy, width: bw * sx, height: bh * sy, ...(disc ? { disc: true } : {}) });
    if (out.length > 2000) break;
  }
  return out;
}

/**
 * A ring drawn inside a square frame that it touches (some generators draw a radio button's border as a square
 * around its circle): the frame's four sides drawn nearly whole, and the pixels off the frame on the
 * inscribed ellipse, all round it (the four diagonal arcs where ring and frame part), the middle and the
 * corners between them empty. A ticked or crossed square has ink in its middle; an empty one has no ring.
 */
function framedRing(pixels: number[], w: number, x0: number, y0: number, bw: number, bh: number): boolean {
  if (bw < 12 || bh < 12) return false;
  const edge = Math.max(1, Math.round(0.08 * Math.max(bw, bh)));
  const x1 = x0 + bw - 1, y1 = y0 + bh - 1;
  const sides = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()];
  const cx = x0 + (bw - 1) / 2, cy = y0 + (bh - 1) / 2, rx = bw / 2, ry = bh / 2;
  let off = 0, onRing = 0;
  const diagonals = new Set<number>();
  for (const i of pixels) {
    const x = i % w, y = (i - x) / w;
    if (y - y0 < edge) sides[0]!.add(x);
    if (y1 - y < edge) sides[1]!.add(x);
    if (x - x0 < edge) sides[2]!.add(y);
    if (x1 - x < edge) sides[3]!.add(y);
    if (x - x0 < edge || x1 - x < edge || y - y0 < edge || y1 - y < edge) continue;
    off++;
    const r = Math.hypot((x - cx) / rx, (y - cy) / ry);
    if (r < 0.7 || r > 1.1) continue;
    onRing++;
    // the arcs at 45°, 135°, 225° and 315°, away from where the ring touches the frame
    const a = ((Math.atan2(y - cy, x - cx) * 180) / Math.PI + 360) % 360;
    for (const d of [45, 135, 225, 315]) if (Math.abs(a - d) < 20) diagonals.add(d);
  }
  const whole = sides.every((side, k) => side.size >= 0.85 * (k < 2 ? bw : bh));
  return whole && off >= 8 && onRing >= 0.9 * off && diagonals.size === 4;
}

/** The RGBA pixels of an image drawn over white; null when it cannot be decoded, is empty or has more than `maxPixels`. */
async function decodeOnWhite(image: Buffer, maxPixels: number): Promise<{ data: Uint8ClampedArray; w: number; h: number } | null> {
  let img;
  try {
    img = await loadImage(image);
  } catch {
    return null;
  }
  const w = img.width, h = img.height;
  if (!w || !h || w * h > maxPixels) return null;
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  ctx.drawImage(img, 0, 0);
  return { data: ctx.getImageData(0, 0, w, h).data, w, h };
}

/** The ruling lines and ink of a page image (`pageW` × `pageH` points); null when it cannot be decoded or is too large. */
export async function pageGeometry(image: Buffer, pageW: number, pageH: number, unit = 1, fine?: Buffer): Promise<PageGeometry | null> {
  const px = pageW && pageH ? await decodeOnWhite(image, MAX_PIXELS) : null;
  if (!px) return null;
  const { data, w, h } = px;
  const sx = pageW / w, sy = pageH / h;
  // shortest rule: 5 pt (a checkbox side is 8 pt or more), at least 6 px
  const minLen = Math.max(6, Math.round((5 * unit) / Math.max(sx, sy)));
  const rules = detectRules({ data, width: w, height: h }, minLen)
    .slice(0, MAX_RULES * 4)
    .map((r) => ({ x0: r.x0 * sx, x1: r.x1 * sx, y0: r.y0 * sy, y1: r.y1 * sy }));
  const ink = (b: BBox) => {
    const x0 = Math.max(0, Math.floor(b.x / sx)), x1 = Math.min(w, Math.ceil((b.x + b.width) / sx));
    const y0 = Math.max(0, Math.floor(b.y / sy)), y1 = Math.min(h, Math.ceil((b.y + b.height) / sy));
    let dark = 0, all = 0;
    for (let y = y0; y < y1; y++)
      for (let x = x0; x < x1; x++) {
        const p = (y * w + x) * 4;
        all++;
        if ((data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000 < 150) dark++;
      }
    return all ? dark / all : 0;
  };
  const rim = (b: BBox) => {
    const cx = (b.x + b.width / 2) / sx, cy = (b.y + b.height / 2) / sy, rx = b.width / 2 / sx, ry = b.height / 2 / sy;
    const sums = [[0, 0, 0, 0], [0, 0, 0, 0]];
    for (let y = Math.max(0, Math.floor(cy - ry)); y < Math.min(h, Math.ceil(cy + ry)); y++)
      for (let x = Math.max(0, Math.floor(cx - rx)); x < Math.min(w, Math.ceil(cx + rx)); x++) {
        const r = Math.hypot((x + 0.5 - cx) / rx, (y + 0.5 - cy) / ry);
        const k = r <= 0.45 ? 0 : r >= 0.8 && r <= 0.95 ? 1 : -1;
        if (k < 0) continue;
        const p = (y * w + x) * 4;
        sums[k]![0]! += data[p]!;
        sums[k]![1]! += data[p + 1]!;
        sums[k]![2]! += data[p + 2]!;
        sums[k]![3]!++;
      }
    const [a, c] = sums as [number[], number[]];
    if (!a[3] || !c[3]) return 0;
    return Math.hypot(a[0]! / a[3]! - c[0]! / c[3]!, a[1]! / a[3]! - c[1]! / c[3]!, a[2]! / a[3]! - c[2]! / c[3]!);
  };
  const arrow = (b: BBox) => downArrow(data, w, h, { x0: Math.max(0, Math.floor(b.x / sx)), x1: Math.min(w, Math.ceil((b.x + b.width) / sx)), y0: Math.max(0, Math.floor(b.y / sy)), y1: Math.min(h, Math.ceil((b.y + b.height) / sy)) });
  const finer = fine ? await fineShapes(fine, pageW, pageH, unit) : null;
  return { rules, ink, arrow, rim, circles: finer?.circles ?? rings(data, w, h, sx, sy, unit), ...(finer ? { fineRules: finer.rules } : {}) };
}

/**
 * Whether the dark pixels of a zone (pixel bounds, end exclusive) make one down-pointing arrow: a filled
 * triangle (▼) or a chevron (⌄), as a dropdown's button shows. Their extent is wider than tall (up to four
 * times), centred in the zone; each row's extent is no wider than the row above it, the top row nearly the
 * whole width and the bottom row at most half of it, every row centred on the same axis. A letter "V" passes
 * too: words over the zone tell it apart.
 */
function downArrow(data: Uint8ClampedArray, w: number, _h: number, z: { x0: number; x1: number; y0: number; y1: number }): boolean {
  const rows = new Map<number, { min: number; max: number }>();
  let x0 = Infinity, x1 = -1, y0 = Infinity, y1 = -1, n = 0;
  for (let y = z.y0; y < z.y1; y++)
    for (let x = z.x0; x < z.x1; x++) {
      const p = (y * w + x) * 4;
      if ((data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000 >= 160) continue;
      n++;
      const r = rows.get(y);
      if (r) {
        if (x < r.min) r.min = x;
        if (x > r.max) r.max = x;
      } else rows.set(y, { min: x, max: x });
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  if (n < 6) return false;
  const aw = x1 - x0 + 1, ah = y1 - y0 + 1;
  if (aw < 4 || ah < 2 || aw < ah * 0.9 || aw > ah * 4.5) return false;
  const zw = z.x1 - z.x0, zh = z.y1 - z.y0;
  if (aw > 0.85 * zw || ah > 0.85 * zh) return false;
  const mid = (x0 + x1) / 2;
  if (Math.abs(mid - (z.x0 + z.x1 - 1) / 2) > 0.25 * zw || Math.abs((y0 + y1) / 2 - (z.y0 + z.y1 - 1) / 2) > 0.3 * zh) return false;
  let prev = Infinity;
  for (let y = y0; y <= y1; y++) {
    const r = rows.get(y);
    // a gap inside the shape: two marks, not one arrow
    if (!r) return false;
    const ext = r.max - r.min + 1;
    // (a stroke's end is drawn a little wider than the row above it)
    if (ext > prev + Math.max(2, 0.12 * aw) || Math.abs((r.min + r.max) / 2 - mid) > 1 + 0.1 * aw) return false;
    prev = ext;
  }
  const top = rows.get(y0)!, bottom = rows.get(y1)!;
  return top.max - top.min + 1 >= 0.7 * aw && bottom.max - bottom.min + 1 <= 0.5 * aw;
}

/** Rules and rings of the page read at a higher resolution (same page size in points); null when it cannot be decoded or is too large. */
async function fineShapes(image: Buffer, pageW: number, pageH: number, unit: number): Promise<{ rules: Rule[]; circles: (BBox & { disc?: boolean })[] } | null> {
  const px = await decodeOnWhite(image, MAX_RING_PIXELS);
  if (!px) return null;
  const { data, w, h } = px;
  // light grey lines count as ink here (luminance under 200, as the ring search reads them)
  for (let p = 0; p < data.length; p += 4) if ((data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000 < 200) data[p] = data[p + 1] = data[p + 2] = 0;
  const sx = pageW / w, sy = pageH / h;
  const minLen = Math.max(6, Math.round((5 * unit) / Math.max(sx, sy)));
  const rules = detectRules({ data, width: w, height: h }, minLen)
    .slice(0, MAX_RULES * 4)
    .map((r) => ({ x0: r.x0 * sx, x1: r.x1 * sx, y0: r.y0 * sy, y1: r.y1 * sy }));
  return { rules, circles: rings(data, w, h, sx, sy, unit) };
}

const center = (w: Word) => ({ x: w.bbox.x + w.bbox.width / 2, y: w.bbox.y + w.bbox.height / 2 });
const inside = (w: Word, b: BBox) => {
  const c = center(w);
  return c.x >= b.x && c.x <= b.x + b.width && c.y >= b.y && c.y <= b.y + b.height;
};
/** words that are marks rather than writing: underscores, box glyphs, ticks, stray OCR specks, the "+", "=" or currency sign a table cell starts with */
const MARK = /^[_\-–—.·|[\]()☐□◻❏☒☑■▣⊠✓✔xX×oO0+=$€£%▼▾⌄∨˅⏷]{1,2}$|^_+$/u;

/** A run of words ending nearest to `x` on the band [top, bottom] (left of x), back to a wide gap. */
function wordsLeft(words: Word[], top: number, bottom: number, x: number, reach: number, u: number): Word[] {
  const band = words
    .filter((w) => {
      const c = center(w);
      return c.y >= top - 2 && c.y <= bottom + 2 && w.bbox.x + w.bbox.width <= x + 2 && !/^_+$/.test(w.text);
    })
    .sort((a, b) => b.bbox.x - a.bbox.x);
  const out: Word[] = [];
  for (const w of band) {
    const next = out[0];
    // the nearest word within reach of the shape, then the words before it back to a wide gap
    if (!next && x - (w.bbox.x + w.bbox.width) > reach) break;
    if (next && next.bbox.x - (w.bbox.x + w.bbox.width) > Math.max(10 * u, w.bbox.height * 1.5)) break;
    if (out.length && /:$/.test(w.text)) break;
    out.unshift(w);
  }
  return out;
}

function wordsRight(words: Word[], top: number, bottom: number, x: number, reach: number, u: number): Word[] {
  const band = words
    .filter((w) => {
      const c = center(w);
      return c.y >= top - 2 && c.y <= bottom + 2 && w.bbox.x >= x - 2 && w.bbox.x <= x + reach;
    })
    .sort((a, b) => a.bbox.x - b.bbox.x);
  const out: Word[] = [];
  for (const w of band) {
    const prev = out[out.length - 1];
    if (prev && w.bbox.x - (prev.bbox.x + prev.bbox.width) > Math.max(10 * u, w.bbox.height * 1.5)) break;
    if (!prev && w.bbox.x - x > 24 * u) break;
    out.push(w);
    if (/:$/.test(w.text)) break;
  }
  return out;
}

/** The nearest line of words above (dir -1) or below (dir 1) a box, overlapping it horizontally. */
function wordsNear(words: Word[], b: BBox, dir: -1 | 1, reach: number, u: number): Word[] {
  const cands = words.filter((w) => {
    if (MARK.test(w.text)) return false;
    const overlap = Math.min(w.bbox.x + w.bbox.width, b.x + b.width) - Math.max(w.bbox.x, b.x);
    if (overlap <= 0) return false;
    return dir < 0 ? w.bbox.y + w.bbox.height <= b.y + 2 * u && w.bbox.y + w.bbox.height >= b.y - reach : w.bbox.y >= b.y + b.height - 2 * u && w.bbox.y <= b.y + b.height + reach;
  });
  if (!cands.length) return [];
  const key = (w: Word) => (dir < 0 ? -(w.bbox.y + w.bbox.height) : w.bbox.y);
  const best = Math.min(...cands.map(key));
  return cands.filter((w) => Math.abs(key(w) - best) < Math.max(3 * u, w.bbox.height * 0.5)).sort((a, b) => a.bbox.x - b.bbox.x);
}

/** the area two boxes share */
const area = (a: BBox, b: BBox) => Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
const text = (ws: Word[]) => cleanLabel(ws.map((w) => w.text).join(' '));

interface Box extends BBox {
  kind: 'box' | 'square' | 'line';
  /** a cell of a table row (the row's box split by inner verticals) */
  cell?: boolean;
  /** a comb: a row of equal narrow cells, one character each */
  comb?: number;
}

/** Rectangles of four rules; a rectangle crossed by full-height inner verticals (a table row) is split into its cells. */
function rectangles(rules: Rule[], u: number): Box[] {
  const TOL = BASE_TOL * u;
  const H = rules.filter((r) => r.y0 === r.y1).sort((a, b) => a.y0 - b.y0).slice(0, MAX_RULES);
  const V = rules.filter((r) => r.x0 === r.x1).slice(0, MAX_RULES);
  const out: Box[] = [];
  const spans = (x: number, top: number, bottom: number) => V.some((v) => Math.abs(v.x0 - x) <= TOL && v.y0 <= top + TOL && v.y1 >= bottom - TOL);
  for (let i = 0; i < H.length; i++) {
    const a = H[i]!;
    for (let j = i + 1; j < H.length; j++) {
      const b = H[j]!;
      if (b.y0 - a.y0 > 200 * u) break;
      if (b.y0 - a.y0 < 5 * u) continue;
      // the common horizontal extent of the two rules, closed by verticals at both ends
      const x0 = Math.max(a.x0, b.x0), x1 = Math.min(a.x1, b.x1);
      if (x1 - x0 < 5 * u) continue;
      if (!spans(x0, a.y0, b.y0) || !spans(x1, a.y0, b.y0)) continue;
      // a horizontal rule in between (inside the span) makes this two boxes, found on their own
      // a small square is one shape whatever is drawn inside it (a tick, a filled mark)
      const small = x1 - x0 <= 28 * u && b.y0 - a.y0 <= 28 * u;
      if (!small && H.some((m) => m.y0 > a.y0 + TOL && m.y0 < b.y0 - TOL && m.x0 <= x0 + TOL && m.x1 >= x1 - TOL)) continue;
      const inner = small ? [] : V.filter((v) => v.x0 > x0 + TOL && v.x0 < x1 - TOL && v.y0 <= a.y0 + TOL && v.y1 >= b.y0 - TOL)
        .map((v) => v.x0)
        .sort((p, q) => p - q);
      const xs = [x0, ...inner.filter((x, k) => k === 0 || x - inner[k - 1]! > TOL), x1];
      const widths = xs.slice(1).map((x, k) => x - xs[k]!);
      const h0 = b.y0 - a.y0;
      if (widths.length >= 4 && widths.every((w) => w <= h0 * 1.6 && Math.abs(w - widths[0]!) <= Math.max(TOL, widths[0]! * 0.15))) {
        // a comb (one character a cell: account numbers, dates, codes): one blank of that many characters
        out.push({ x: x0, y: a.y0, width: x1 - x0, height: h0, kind: 'box', comb: widths.length });
        continue;
      }
      for (let k = 0; k + 1 < xs.length; k++) {
        const w = xs[k + 1]! - xs[k]!, h = b.y0 - a.y0;
        if (w < 5 * u) continue;
        const square = w <= 28 * u && h <= 28 * u && w >= 6 * u && Math.abs(w - h) <= Math.max(2.5 * u, 0.2 * Math.max(w, h));
        out.push({ x: xs[k]!, y: a.y0, width: w, height: h, kind: square ? 'square' : 'box', ...(xs.length > 2 ? { cell: true } : {}) });
      }
    }
  }
  // the same box found twice (a thick or double border's two edges) is kept once, the outer one
  const near = (o: Box, b: Box) => Math.abs(o.x - b.x) <= TOL && Math.abs(o.y - b.y) <= TOL && Math.abs(o.x + o.width - b.x - b.width) <= TOL && Math.abs(o.y + o.height - b.y - b.height) <= TOL;
  return out.filter((b, k) => !out.some((o, m) => m !== k && near(o, b) && (o.width * o.height > b.width * b.height || (o.width * o.height === b.width * b.height && m < k))));
}

/** Horizontal rules that are not an edge of a box: underlines to write on. */
function underlines(rules: Rule[], boxes: Box[], u: number): Box[] {
  const TOL = BASE_TOL * u;
  const out: Box[] = [];
  for (const r of rules) {
    if (r.y0 !== r.y1 || r.x1 - r.x0 < 25 * u) continue;
    const edge = boxes.some((b) => (Math.abs(b.y - r.y0) <= TOL || Math.abs(b.y + b.height - r.y0) <= TOL) && r.x0 <= b.x + b.width + TOL && r.x1 >= b.x - TOL);
    if (edge) continue;
    const ends = rules.some((v) => v.x0 === v.x1 && (Math.abs(v.x0 - r.x0) <= TOL || Math.abs(v.x0 - r.x1) <= TOL) && v.y0 <= r.y0 + TOL && v.y1 >= r.y0 - TOL);
    if (ends) continue; // part of a grid or a frame
    out.push({ x: r.x0, y: r.y0 - 14 * u, width: r.x1 - r.x0, height: 14 * u, kind: 'line' });
  }
  return out;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/**
 * Blanks of one page from its geometry and words (`u`: layout units per point, 1 for PDF pages, the
 * pixels per point of an image): empty boxes (text fields; tall ones multiline), squares
 * (checkboxes) and underlines with nothing written on them, each with its label.
 */
export function geometryBlanks(geo: PageGeometry, page: { number: number; width: number; height: number; words: Word[] }, opts: { include_checkboxes?: boolean; include_signatures?: boolean } = {}, u = 1): Omit<EditElement, 'id'>[] {
  const words = page.words.filter((w) => w.text.trim());
  const coarse = rectangles(geo.rules, u).filter((b) => b.width < page.width * 0.9 || b.height < page.height * 0.5);
  // small squares only the finer reading shows (thin or light grey lines), where no shape was found
  const fineShapes = geo.fineRules ? rectangles(geo.fineRules, u).filter((b) => !coarse.some((o) => area(o, b) > 0.3 * b.width * b.height)) : [];
  const fine = fineShapes.filter((b) => b.kind === 'square');
  const all = [...coarse, ...fine];
  const lines = underlines(geo.rules, all, u);
  const out: Omit<EditElement, 'id'>[] = radios(geo, page, words, all, u);
  // (a dropdown's thin grey frame may show at the finer reading only)
  const drops = dropdowns(geo, page, words, [...coarse, ...fineShapes], u);
  out.push(...drops.found);
  const boxes = all.filter((b) => !drops.used.has(b));
  for (const b of [...boxes, ...lines]) {
    // writing over the shape (not marks): a word's box sharing a fifth of its area or of the shape's (the
    // strokes of large letters make small boxes of their own, covered by their word)
    const writing = words.filter((w) => {
      if (MARK.test(w.text)) return false;
      const a = area(w.bbox, b);
      // OCR reading the frame itself: a short word with a bracket or bar as large as the shape
      if (/[[\]|]/.test(w.text) && w.text.length <= 4 && a > 0.6 * b.width * b.height) return false;
      return a > 0.2 * w.bbox.width * w.bbox.height || a > 0.2 * b.width * b.height;
    });
    if (b.kind === 'square') {
      if (opts.include_checkboxes === false) continue;
      if (writing.length) continue;
      // a square frame around a ring is that radio button's border
      if ((geo.circles ?? []).some((c) => area(c, b) > 0.6 * b.width * b.height)) continue;
      const label = text(wordsRight(words, b.y, b.y + b.height, b.x + b.width, 200 * u, u)) || text(wordsLeft(words, b.y, b.y + b.height, b.x, 200 * u, u));
      if (!label) continue;
      const inset = { x: b.x + b.width * 0.25, y: b.y + b.height * 0.25, width: b.width * 0.5, height: b.height * 0.5 };
      const checked = geo.ink(inset) > 0.12;
      out.push({ type: 'checkbox', label, page: page.number, bbox: { x: r1(b.x), y: r1(b.y), width: r1(b.width), height: r1(b.height) }, checked, current_value: checked ? 'true' : 'false', source: 'blank' });
      continue;
    }
    if (b.kind === 'line') {
      // text on the line: an underlined word or a filled-in value, not a blank
      if (words.some((w) => !/^_+$/.test(w.text) && inside(w, { ...b, y: b.y + 2 * u, height: b.height - u }))) continue;
    } else if (writing.length) continue;
    // a filled shape (a dark banner, a shaded bar; a line at its edge) is not a place to write
    // (a box's inside is empty: hatching or a cross closes a table cell)
    if (geo.ink({ x: b.x + b.width * 0.1, y: b.y + b.height * 0.2, width: b.width * 0.8, height: b.height * 0.6 }) > (b.kind === 'box' && !b.comb && !writing.length && !words.some((w) => MARK.test(w.text) && area(w.bbox, b) > 0) ? 0.05 : 0.3)) continue;
    // "Label ____": the label sits next to its line; a box may stand further from its label
    const left = text(wordsLeft(words, b.y, b.y + b.height, b.x, (b.kind === 'line' ? 40 : 250) * u, u));
    // a table cell: its column's header above, with the row's own label when it has one ("Quantity (Apples)")
    const header = b.cell ? text(wordsNear(words, b, -1, 200 * u, u)) : '';
    // else the nearer of the text above and (for a line: a signature's caption) the text below
    const above = wordsNear(words, b, -1, 30 * u, u);
    const below = b.kind === 'line' ? wordsNear(words, b, 1, 16 * u, u) : [];
    // distances from the line itself (a line's box is the writing space above it)
    const baseTop = b.kind === 'line' ? b.y + b.height : b.y;
    const gapAbove = above.length ? baseTop - Math.max(...above.map((w) => w.bbox.y + w.bbox.height)) : Infinity;
    const gapBelow = below.length ? Math.min(...below.map((w) => w.bbox.y)) - (b.y + b.height) : Infinity;
    const label = (header && left ? `${header} (${left})` : header) || left || text(gapBelow < gapAbove ? below : above);
    if (!label) continue;
    const typed = refineTextType(label, '', null);
    if (/\bsignature\b|\bsigned\b|\bassinatura\b|\bunterschrift\b|\bfirma\b/i.test(label)) {
      if (opts.include_signatures === false) continue;
      out.push({ type: 'signature', label, page: page.number, bbox: { x: r1(b.x), y: r1(b.y), width: r1(b.width), height: r1(b.height) }, current_value: '', source: 'blank' });
      continue;
    }
    out.push({ ...typed, label, page: page.number, bbox: { x: r1(b.x), y: r1(b.y), width: r1(b.width), height: r1(b.height) }, current_value: '', ...(b.height > 40 * u ? { multiline: true } : {}), ...(b.comb ? { comb: true, max_length: b.comb } : {}), source: 'blank' });
  }
  return out;
}

/**
 * Dropdowns of a flat page: a box whose right end holds a down arrow (a triangle or a chevron), or a box
 * with a separate arrow cell at its right end (the narrow last cell of a row of two, the arrow in it). The
 * dropdown's box is the part left of the arrow, where its value is written; what is written there is its
 * current value. Its options are not printed: any value is written as text. Labelled as a box is.
 */
function dropdowns(geo: PageGeometry, page: { number: number }, words: Word[], boxes: Box[], u: number): { found: Omit<EditElement, 'id'>[]; used: Set<Box> } {
  const used = new Set<Box>();
  const found: Omit<EditElement, 'id'>[] = [];
  if (!geo.arrow) return { found, used };
  const TOL = BASE_TOL * u;
  // the zone an arrow is looked for in: the inside of a cell, clear of its frame
  const zone = (x0: number, x1: number, b: BBox) => ({ x: x0 + 0.12 * (x1 - x0), y: b.y + 0.18 * b.height, width: 0.76 * (x1 - x0), height: 0.64 * b.height });
  const wordIn = (z: BBox) => words.some((w) => !MARK.test(w.text) && area(w.bbox, z) > 0.3 * w.bbox.width * w.bbox.height);
  for (const b of boxes) {
    if (used.has(b) || b.comb || b.height < 8 * u || b.height > 40 * u) continue;
    let field: BBox | null = null;
    let cellLeft: Box | undefined;
    // a separate arrow cell: this narrow cell, the wide cell of the same row left of it
    if (b.width <= 1.6 * b.height) {
      const left = boxes.find((o) => o !== b && !used.has(o) && Math.abs(o.y - b.y) <= TOL && Math.abs(o.height - b.height) <= TOL && Math.abs(o.x + o.width - b.x) <= TOL && o.width >= 2 * b.width);
      if (left && geo.arrow(zone(b.x, b.x + b.width, b)) && !wordIn(b)) {
        field = left;
        cellLeft = left;
      }
    }
    // the arrow inside the box's right end
    if (!field && b.kind === 'box' && b.width >= 3 * b.height) {
      const side = Math.min(b.height * 1.2, b.width / 3);
      const z = zone(b.x + b.width - side, b.x + b.width, b);
      if (geo.arrow(z) && !wordIn(z)) field = { x: b.x, y: b.y, width: b.width - side, height: b.height };
    }
    if (!field) continue;
    used.add(b);
    if (cellLeft) used.add(cellLeft);
    const label = text(wordsLeft(words, field.y, field.y + field.height, field.x, 250 * u, u)) || text(wordsNear(words, field, -1, 30 * u, u));
    if (!label) continue;
    const value = text(words.filter((w) => !MARK.test(w.text) && area(w.bbox, field!) > 0.5 * w.bbox.width * w.bbox.height).sort((p, q) => p.bbox.x - q.bbox.x));
    found.push({ type: 'dropdown', label, page: page.number, bbox: { x: r1(field.x), y: r1(field.y), width: r1(field.width), height: r1(field.height) }, current_value: value, source: 'blank' });
  }
  return { found, used };
}

/**
 * Radio buttons of a flat page: the rings no word covers (an "O" is a letter) and no box holds, each with its
 * caption (right of it, else left); rings on one line close together, or stacked in one column, are one
 * question whose options are their captions, named by the words left of (or above) the first ring.
 */
function radios(geo: PageGeometry, page: { number: number }, words: Word[], boxes: Box[], u: number): Omit<EditElement, 'id'>[] {
  const circles = geo.circles ?? [];
  // (a disc inside a ring is that ring's mark)
  const found: (BBox & { disc?: boolean })[] = circles.filter((c) => !(c.disc && circles.some((o) => !o.disc && area(o, c) > 0.8 * c.width * c.height)) && !words.some((w) => area(w.bbox, c) > 0.3 * c.width * c.height) && !boxes.some((b) => b.kind !== 'square' && area(b, c) > 0.8 * c.width * c.height && b.width > c.width * 3));
  if (!found.length) return [];
  const cy = (b: BBox) => b.y + b.height / 2, cx = (b: BBox) => b.x + b.width / 2;
  found.sort((a, b) => a.y - b.y || a.x - b.x);
  const groups: (BBox & { disc?: boolean })[][] = [];
  for (const c of found) {
    const g = groups.find((gr) => {
      const last = gr[gr.length - 1]!;
      const row = Math.abs(cy(last) - cy(c)) <= 3 * u && c.x > last.x && c.x - last.x < 220 * u && gr.every((o) => Math.abs(cy(o) - cy(c)) <= 3 * u);
      const col = Math.abs(cx(last) - cx(c)) <= 3 * u && c.y > last.y && c.y - last.y < Math.max(30 * u, 3 * c.height) && gr.every((o) => Math.abs(cx(o) - cx(c)) <= 3 * u);
      return row || col;
    });
    if (g) g.push(c);
    else groups.push([c]);
  }
  const out: Omit<EditElement, 'id'>[] = [];
  for (const g of groups) {
    const captions = g.map((c, k) => {
      const next = g[k + 1];
      const reach = next && Math.abs(cy(next) - cy(c)) <= 3 * u ? next.x - (c.x + c.width) : 200 * u;
      return text(wordsRight(words, c.y, c.y + c.height, c.x + c.width, reach, u)) || text(wordsLeft(words, c.y, c.y + c.height, c.x, 60 * u, u));
    });
    // one question, two options or more: a lone ring is a letter or a drawing (a lone radio button could never be cleared)
    if (g.length < 2 || captions.some((t) => !t)) continue;
    // discs are buttons beside a ring (● Yes ○ No: the chosen one), or each drawn 12 points wide at least with a
    // rim of another colour (a button with a background); discs alone are bullets, dots or bold letters
    const buttons = (c: BBox & { disc?: boolean }) => !c.disc || (c.width >= 12 * u && (geo.rim?.(c) ?? 0) > 60);
    if (!g.some((c) => !c.disc) && !g.every(buttons)) continue;
    const first = g[0]!;
    const row = g.length > 1 && Math.abs(cy(g[1]!) - cy(first)) <= 3 * u;
    const before = text(wordsLeft(words, first.y, first.y + first.height, first.x, 250 * u, u));
    const label = (before && before !== captions[0] ? before : '') || (!row || g.length === 1 ? text(wordsNear(words, { ...first, width: first.width * 6 }, -1, 30 * u, u)) : '') || captions.join(' / ');
    // (a disc with a rim of its own colour is a button's background, not a mark)
    const chosen = g.findIndex((c) => !(c.disc && (geo.rim?.(c) ?? 0) > 60) && geo.ink({ x: c.x + c.width * 0.3, y: c.y + c.height * 0.3, width: c.width * 0.4, height: c.height * 0.4 }) > 0.3);
    const x0 = Math.min(...g.map((c) => c.x)), y0 = Math.min(...g.map((c) => c.y));
    const x1 = Math.max(...g.map((c) => c.x + c.width)), y1 = Math.max(...g.map((c) => c.y + c.height));
    out.push({
      type: 'radio',
      label,
      page: page.number,
      bbox: { x: r1(x0), y: r1(y0), width: r1(x1 - x0), height: r1(y1 - y0) },
      options: captions,
      option_labels: captions,
      option_boxes: g.map((c) => ({ x: r1(c.x), y: r1(c.y), width: r1(c.width), height: r1(c.height) })),
      current_value: chosen >= 0 ? captions[chosen]! : '',
      source: 'blank',
    });
  }
  return out;
}
