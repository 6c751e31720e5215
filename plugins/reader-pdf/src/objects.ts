/**
 * A page's objects through PDFium: ruling lines (table borders) from its path objects, and what a page
 * without text paints (images, paths, glyphs without Unicode) to tell a blank page from one to OCR.
 * Form XObjects are walked into, their matrices applied.
 */
import type { Rule } from '@quire/layout';
import type { Engine, Matrix } from './pdfium.js';
import { apply, multiply, utf16 } from './pdfium.js';
import type { GraphicBox } from './figures.js';

// fpdf_edit.h
const OBJ_TEXT = 1;
const OBJ_PATH = 2;
const OBJ_IMAGE = 3;
const OBJ_SHADING = 4;
const OBJ_FORM = 5;
const SEG_LINETO = 0;
const SEG_BEZIERTO = 1;
const SEG_MOVETO = 2;
const TEXT_INVISIBLE = 3;

const MAX_RULES = 20000;
/** objects looked at on one page at most (nested forms included): a hostile page could hold millions */
const MAX_OBJECTS = 200_000;
const MAX_DEPTH = 12;

/** Calls `visit` on every object of the page, form XObjects walked into; `ctm`: the form matrices above the object. */
function walk(e: Engine, page: number, visit: (obj: number, type: number, ctm: Matrix) => boolean | void): void {
  const { fast: m, scratch: s } = e;
  let seen = 0;
  const inner = (count: number, get: (i: number) => number, ctm: Matrix, depth: number): boolean => {
    for (let i = 0; i < count; i++) {
      if (++seen > MAX_OBJECTS) return false;
      const obj = get(i);
      if (!obj) continue;
      const type = m.FPDFPageObj_GetType(obj);
      if (type === OBJ_FORM) {
        if (depth >= MAX_DEPTH) continue;
        let fm: Matrix = [1, 0, 0, 1, 0, 0];
        if (m.FPDFPageObj_GetMatrix(obj, s)) {
          const f = e.f32();
          const o = s >> 2;
          fm = [f[o]!, f[o + 1]!, f[o + 2]!, f[o + 3]!, f[o + 4]!, f[o + 5]!];
        }
        const n = m.FPDFFormObj_CountObjects(obj);
        if (!inner(Math.max(0, n), (j) => m.FPDFFormObj_GetObject(obj, j), multiply(fm, ctm), depth + 1)) return false;
        continue;
      }
      if (visit(obj, type, ctm) === false) return false;
    }
    return true;
  };
  inner(Math.max(0, m.FPDFPage_CountObjects(page)), (i) => m.FPDFPage_GetObject(page, i), [1, 0, 0, 1, 0, 0], 0);
}

/** an object's fill or stroke colour as 0xRRGGBB, or -1 (none, fully transparent, or unknown) */
function colour(e: Engine, obj: number, stroke: boolean): number {
  const { fast: m, scratch: s } = e;
  const ok = stroke ? m.FPDFPageObj_GetStrokeColor(obj, s, s + 4, s + 8, s + 12) : m.FPDFPageObj_GetFillColor(obj, s, s + 4, s + 8, s + 12);
  if (!ok) return -1;
  const u = e.u32();
  const o = s >> 2;
  if (u[o + 3] === 0) return -1;
  return ((u[o]! & 255) << 16) | ((u[o + 1]! & 255) << 8) | (u[o + 2]! & 255);
}
/** a colour close to white: paper, a page background */
const light = (c: number) => c >= 0 && ((c >> 16) & 255) >= 0xf0 && ((c >> 8) & 255) >= 0xf0 && (c & 255) >= 0xf0;

interface Sub {
  pts: [number, number][];
  closed: boolean;
  curved: boolean;
}

/** A path object's subpaths in view coordinates (`to`: the path's space to the view). */
function subpaths(e: Engine, obj: number, to: Matrix): Sub[] {
  const { fast: m, scratch: s } = e;
  const subs: Sub[] = [];
  let sub: Sub = { pts: [], closed: false, curved: false };
  const flush = () => {
    if (sub.pts.length > 1) subs.push(sub);
    sub = { pts: [], closed: false, curved: false };
  };
  const n = Math.min(100_000, Math.max(0, m.FPDFPath_CountSegments(obj)));
  let bezier = 0;
  for (let i = 0; i < n; i++) {
    const seg = m.FPDFPath_GetPathSegment(obj, i);
    if (!seg || !m.FPDFPathSegment_GetPoint(seg, s, s + 4)) continue;
    const f = e.f32();
    const x = f[s >> 2]!, y = f[(s >> 2) + 1]!;
    const type = m.FPDFPathSegment_GetType(seg);
    const p = apply(to, x, y);
    if (type === SEG_MOVETO) {
      flush();
      sub.pts.push(p);
      bezier = 0;
    } else if (type === SEG_LINETO) {
      sub.pts.push(p);
    } else if (type === SEG_BEZIERTO) {
      // three points per curve: the end point is the third
      sub.curved = true;
      if (++bezier % 3 === 0) sub.pts.push(p);
    }
    if (m.FPDFPathSegment_GetClose(seg)) {
      sub.closed = true;
      const first = sub.pts[0];
      flush();
      // a path goes on from where a closed subpath began
      if (first) sub.pts.push(first);
    }
  }
  flush();
  return subs;
}

/** The ruling lines of the page (view coordinates): stroked straight segments and thin filled rectangles, edges of larger filled boxes. */
export function pageRules(e: Engine, page: number, view: Matrix, pageW: number, pageH: number): Rule[] {
  const { fast: m, scratch: s } = e;
  const rules: Rule[] = [];
  const addH = (x0: number, x1: number, y: number) => {
    if (Math.abs(x1 - x0) > 3 && rules.length < MAX_RULES) rules.push({ x0: Math.min(x0, x1), x1: Math.max(x0, x1), y0: y, y1: y });
  };
  const addV = (y0: number, y1: number, x: number) => {
    if (Math.abs(y1 - y0) > 3 && rules.length < MAX_RULES) rules.push({ x0: x, x1: x, y0: Math.min(y0, y1), y1: Math.max(y0, y1) });
  };
  walk(e, page, (obj, type, ctm) => {
    if (rules.length >= MAX_RULES) return false;
    if (type !== OBJ_PATH) return;
    if (!m.FPDFPath_GetDrawMode(obj, s, s + 4)) return;
    const i = e.i32();
    const fillMode = i[s >> 2]!, strokeOn = i[(s >> 2) + 1]! !== 0;
    const stroke = strokeOn && colour(e, obj, true) !== 0xffffff;
    const fill = fillMode !== 0 && colour(e, obj, false) !== 0xffffff;
    if (!stroke && !fill) return;
    let pm: Matrix = [1, 0, 0, 1, 0, 0];
    if (m.FPDFPageObj_GetMatrix(obj, s)) {
      const f = e.f32();
      const o = s >> 2;
      pm = [f[o]!, f[o + 1]!, f[o + 2]!, f[o + 3]!, f[o + 4]!, f[o + 5]!];
    }
    for (const sp of subpaths(e, obj, multiply(multiply(pm, ctm), view))) {
      if (sp.curved) continue;
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (const [x, y] of sp.pts) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      const axisAligned = sp.pts.every((p, idx) => {
        const q = sp.pts[(idx + 1) % sp.pts.length]!;
        return Math.abs(p[0] - q[0]) < 0.5 || Math.abs(p[1] - q[1]) < 0.5;
      });
      if (fill && axisAligned && (sp.pts.length >= 4 || sp.closed)) {
        // filled rectangles: thin ones are rules, larger ones (cell shading, boxes) contribute their edges
        const w = x1 - x0, h = y1 - y0;
        if (h <= 3 && w > 3) addH(x0, x1, (y0 + y1) / 2);
        else if (w <= 3 && h > 3) addV(y0, y1, (x0 + x1) / 2);
        else if (w > 3 && h > 3 && (w < pageW * 0.95 || h < pageH * 0.95)) {
          addH(x0, x1, y0);
          addH(x0, x1, y1);
          addV(y0, y1, x0);
          addV(y0, y1, x1);
        }
        continue;
      }
      if (!stroke) continue;
      const pts = sp.closed ? [...sp.pts, sp.pts[0]!] : sp.pts;
      for (let k = 0; k + 1 < pts.length; k++) {
        const [ax, ay] = pts[k]!;
        const [bx, by] = pts[k + 1]!;
        // A closed path (a stroked rectangle: the frame of a box or of an exhibit) runs back along two of
        // its sides, which count in either direction. Open segments keep their direction test: the grid
        // reader splits tables without outer side rules (LaTeX tables) once all their upward-drawn inner
        // rules are added, and reads them better from their horizontal rules alone.
        if (Math.abs(ay - by) < 1) {
          if (sp.closed) addH(Math.min(ax, bx), Math.max(ax, bx), (ay + by) / 2);
          else if (bx - ax > 3 && rules.length < MAX_RULES) rules.push({ x0: ax, x1: bx, y0: (ay + by) / 2, y1: (ay + by) / 2 });
        } else if (Math.abs(ax - bx) < 1) {
          if (sp.closed) addV(Math.min(ay, by), Math.max(ay, by), (ax + bx) / 2);
          else if (by - ay > 3 && rules.length < MAX_RULES) rules.push({ x0: (ax + bx) / 2, x1: (ax + bx) / 2, y0: ay, y1: by });
        }
      }
    }
  });
  return rules;
}

/**
 * Whether a page without text paints anything OCR could read: an image or a shading, a path stroked or
 * filled in a colour other than white, or visible glyphs (text without usable Unicode). White fills (a
 * background), invisible text and clipping paths do not count. `imagePixels`: the largest image's pixels;
 * `imageDpi`: the resolution at which that image is placed on the page (pixels per inch of its box).
 */
export function pageInk(e: Engine, page: number, tp: number): { painted: boolean; imagePixels: number; imageDpi: number } {
  const { fast: m, scratch: s } = e;
  let painted = false;
  let imagePixels = 0;
  let imageDpi = 0;
  let glyphs = 0;
  walk(e, page, (obj, type) => {
    if (type === OBJ_IMAGE) {
      painted = true;
      if (m.FPDFImageObj_GetImagePixelSize(obj, s, s + 4)) {
        const u = e.u32();
        const w = u[s >> 2]!, h = u[(s >> 2) + 1]!;
        const px = w * h;
        if (px > imagePixels) {
          imagePixels = px;
          // the box the image fills on the page, in points (its matrix maps the unit square there)
          if (m.FPDFPageObj_GetBounds(obj, s, s + 4, s + 8, s + 12)) {
            const f = e.f32();
            const bw = f[(s >> 2) + 2]! - f[s >> 2]!, bh = f[(s >> 2) + 3]! - f[(s >> 2) + 1]!;
            // independent of a quarter turn: pixels per point over the area
            imageDpi = bw > 1 && bh > 1 ? Math.sqrt(px / (bw * bh)) * 72 : 0;
          }
        }
      }
    } else if (type === OBJ_SHADING) painted = true;
    else if (type === OBJ_PATH) {
      if (!painted && m.FPDFPath_GetDrawMode(obj, s, s + 4)) {
        const i = e.i32();
        const fillMode = i[s >> 2]!, stroke = i[(s >> 2) + 1]! !== 0;
        if (stroke) {
          const c = colour(e, obj, true);
          if (c >= 0 && !light(c)) painted = true;
        }
        if (!painted && fillMode !== 0) {
          const c = colour(e, obj, false);
          if (c >= 0 && !light(c)) painted = true;
        }
      }
    } else if (type === OBJ_TEXT && !painted) {
      if (m.FPDFTextObj_GetTextRenderMode(obj) !== TEXT_INVISIBLE) {
        // the object's characters with Unicode (a page number counts as what it is); without Unicode
        // (glyphs that do not reach the text page), a few
        const n = tp ? m.FPDFTextObj_GetText(obj, tp, 0, 0) : 0;
        let visible = 3;
        if (n > 2 && n < 4096) visible = utf16(e.m, (b, l) => m.FPDFTextObj_GetText(obj, tp, b, l)).replace(/\s+/g, '').length;
        glyphs += visible;
        if (glyphs >= 3) painted = true;
      }
    }
  });
  // annotations drawn on the page (a stamp, ink, a filled-in form), links and pop-ups aside
  if (!painted) {
    const n = Math.min(1000, Math.max(0, m.FPDFPage_GetAnnotCount(page)));
    for (let i = 0; i < n && !painted; i++) {
      const a = m.FPDFPage_GetAnnot(page, i);
      if (!a) continue;
      const sub = m.FPDFAnnot_GetSubtype(a);
      if (sub !== 2 && sub !== 16) painted = true;
      m.FPDFPage_CloseAnnot(a);
    }
  }
  return { painted, imagePixels, imageDpi };
}

/** graphics kept per page at most (a map drawn in thousands of paths is one figure however many are kept; figures.ts clusters them pairwise) */
const MAX_GRAPHICS = 2000;

/**
 * What a page draws besides its text, as boxes (view coordinates): its raster images, and its painted paths
 * (stroked or filled in a colour other than white; clipping paths and white backgrounds are not drawn).
 * Page-sized objects (a background, a page frame) are left out. The figures of the page are found from these
 * (figures.ts). `withPaths`: false to look at the images only (a page without a figure caption).
 */
export function pageGraphics(e: Engine, page: number, view: Matrix, pageW: number, pageH: number, withPaths = true): { images: GraphicBox[]; paths: GraphicBox[] } {
  const { fast: m, scratch: s } = e;
  const images: GraphicBox[] = [];
  const paths: GraphicBox[] = [];
  walk(e, page, (obj, type, ctm) => {
    if (images.length + paths.length >= MAX_GRAPHICS) return false;
    if (type !== OBJ_IMAGE && (type !== OBJ_PATH || !withPaths)) return;
    if (type === OBJ_PATH) {
      if (!m.FPDFPath_GetDrawMode(obj, s, s + 4)) return;
      const i = e.i32();
      const fillMode = i[s >> 2]!, strokeOn = i[(s >> 2) + 1]! !== 0;
      const sc = strokeOn ? colour(e, obj, true) : -1;
      const fc = fillMode !== 0 ? colour(e, obj, false) : -1;
      if ((sc === -1 || sc === 0xffffff) && (fc === -1 || fc === 0xffffff)) return;
    }
    if (!m.FPDFPageObj_GetBounds(obj, s, s + 4, s + 8, s + 12)) return;
    const f = e.f32();
    const o = s >> 2;
    const l = f[o]!, b = f[o + 1]!, r = f[o + 2]!, t = f[o + 3]!;
    // the object's bounds are in the space of the form it is in: through the forms' matrices, then to the view
    const to = multiply(ctm, view);
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const [x, y] of [[l, b], [l, t], [r, b], [r, t]] as const) {
      const [vx, vy] = apply(to, x, y);
      if (vx < x0) x0 = vx;
      if (vx > x1) x1 = vx;
      if (vy < y0) y0 = vy;
      if (vy > y1) y1 = vy;
    }
    if (!(Number.isFinite(x0) && Number.isFinite(y0) && Number.isFinite(x1) && Number.isFinite(y1))) return;
    x0 = Math.max(0, x0);
    y0 = Math.max(0, y0);
    x1 = Math.min(pageW, x1);
    y1 = Math.min(pageH, y1);
    if (x1 - x0 < 0.5 && y1 - y0 < 0.5) return;
    if ((x1 - x0) * (y1 - y0) > 0.8 * pageW * pageH) return;
    (type === OBJ_IMAGE ? images : paths).push({ x0, y0, x1, y1 });
  });
  return { images, paths };
}
