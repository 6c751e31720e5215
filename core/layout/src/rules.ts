/**
 * Ruling lines in the pixels of a page image (table borders of scans and screenshots): long runs of dark
 * pixels along rows and columns, joined across the few pixels of a line's thickness.
 */
import type { Rule } from './grid.js';

export interface PixelImage {
  /** RGBA, 4 bytes per pixel, row by row */
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
}

interface Run {
  /** the fixed coordinate (row for horizontal runs) and the extent along the run */
  k: number;
  a: number;
  b: number;
}

const DARK = 150;

/** Ruling lines in pixel coordinates. `minLength`: shortest line kept (default: 4% of the image side, at least 30 px). */
export function detectRules(img: PixelImage, minLength?: number): Rule[] {
  const { data, width: w, height: h } = img;
  if (!w || !h || data.length < w * h * 4) return [];
  // a dark-pixel map (1 byte per pixel)
  const dark = new Uint8Array(w * h);
  for (let i = 0, p = 0; i < w * h; i++, p += 4) {
    const lum = (data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000;
    const alpha = data[p + 3]!;
    if (alpha > 128 && lum < DARK) dark[i] = 1;
  }
  const minH = minLength ?? Math.max(30, Math.round(w * 0.04));
  const minV = minLength ?? Math.max(30, Math.round(h * 0.02));
  const GAP = 2;
  const hRuns: Run[] = [];
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let start = -1;
    let last = -1;
    for (let x = 0; x <= w; x++) {
      const on = x < w && dark[row + x] === 1;
      if (on) {
        if (start < 0) start = x;
        last = x;
      } else if (start >= 0 && x - last > GAP) {
        if (last - start + 1 >= minH) hRuns.push({ k: y, a: start, b: last + 1 });
        start = -1;
      }
    }
  }
  const vRuns: Run[] = [];
  for (let x = 0; x < w; x++) {
    let start = -1;
    let last = -1;
    for (let y = 0; y <= h; y++) {
      const on = y < h && dark[y * w + x] === 1;
      if (on) {
        if (start < 0) start = y;
        last = y;
      } else if (start >= 0 && y - last > GAP) {
        if (last - start + 1 >= minV) vRuns.push({ k: x, a: start, b: last + 1 });
        start = -1;
      }
    }
  }
  const rules: Rule[] = [];
  // an upscaled scan draws a thin rule several pixels thick
  const maxThickness = Math.max(10, Math.round(Math.min(w, h) / 150));
  for (const l of joinThick(hRuns, maxThickness)) rules.push({ x0: l.a, x1: l.b, y0: l.k, y1: l.k });
  for (const l of joinThick(vRuns, maxThickness)) rules.push({ x0: l.k, x1: l.k, y0: l.a, y1: l.b });
  return rules;
}

/**
 * Runs on neighbouring rows (columns) that overlap are one line of some thickness; a thick dark area
 * (a filled box, a photo) is not a line.
 */
function joinThick(runs: Run[], maxThickness: number): Run[] {
  runs.sort((p, q) => p.k - q.k || p.a - q.a);
  const groups: { runs: Run[]; lastK: number; a: number; b: number }[] = [];
  const open: typeof groups = [];
  for (const r of runs) {
    let g = open.find((o) => r.k - o.lastK <= 1 && Math.min(o.b, r.b) - Math.max(o.a, r.a) > (r.b - r.a) * 0.5);
    if (!g) {
      g = { runs: [], lastK: r.k, a: r.a, b: r.b };
      groups.push(g);
      open.push(g);
    }
    g.runs.push(r);
    g.lastK = r.k;
    g.a = Math.min(g.a, r.a);
    g.b = Math.max(g.b, r.b);
    for (let i = open.length - 1; i >= 0; i--) if (r.k - open[i]!.lastK > 1) open.splice(i, 1);
  }
  const out: Run[] = [];
  for (const g of groups) {
    const thickness = g.runs[g.runs.length - 1]!.k - g.runs[0]!.k + 1;
    if (thickness > maxThickness) continue;
    out.push({ k: (g.runs[0]!.k + g.runs[g.runs.length - 1]!.k) / 2, a: g.a, b: g.b });
  }
  return out;
}

/** Rules scaled from pixels to points. */
export function scaleRules(rules: Rule[], k: number): Rule[] {
  return rules.map((r) => ({ x0: r.x0 * k, x1: r.x1 * k, y0: r.y0 * k, y1: r.y1 * k }));
}
