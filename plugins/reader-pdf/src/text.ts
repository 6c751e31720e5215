/**
 * Text items of a page from PDFium's text page: characters grouped into runs (same line, same font and
 * size, contiguous; a run ends at a wide gap), in the page's view (top-left origin, /Rotate applied).
 * Right-to-left runs come out in logical order; compatibility characters are normalised after ordering.
 */
import type { TextItem } from '@quire/layout';
import type { Engine, Matrix } from './pdfium.js';
import { utf8 } from './pdfium.js';

/** Compatibility characters to normalise: spaces, ligatures, Hebrew and Arabic presentation forms. */
export const COMPAT = /[\u00a0\u2000-\u200a\u202f\ufb00-\ufdff\ufe70-\ufefe]+/g;

/** Bold and italic font names: the usual words, abbreviations (Arial-BoldMT, HelveticaNeue-Bd, NimbusRomNo9L-Medi) and TeX's faces (CMBX, SFBX, CMTI). */
export const ITALIC_NAME = /italic|oblique|[-,]it\b|[-,]ital|cmti|sfti|ecti|cmsl/i;
export const BOLD_NAME = /bold|black|heavy|semibold|demibold|[-,]demi|extrabold|ultrabold|[-,]bd\b|[-,]medi$|cmbx|sfbx|ecbx|cmssbx|\+?bx\d/i;

// font descriptor flags (PDF 32000, 9.8.2)
const FLAG_ITALIC = 1 << 6;
const FLAG_FORCEBOLD = 1 << 18;

/** strong right-to-left letters: Hebrew, Arabic, Syriac, Thaana, NKo, and their presentation forms */
const RTL_CHAR = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe]/;
/** strong left-to-right characters and digits (kept left to right inside a right-to-left run) */
const LTR_CHAR = /[\p{L}\p{N}]/u;

interface Style {
  key: string;
  size: number;
  /** the text's direction in the view: angle of its baseline (radians) */
  angle: number;
  bold: boolean;
  italic: boolean;
  asc: number;
  desc: number;
}

interface FontStyle {
  bold: boolean;
  italic: boolean;
  asc: number;
  desc: number;
}

interface Glyph {
  s: string;
  x0: number;
  x1: number;
  rtl: boolean;
}

interface Run {
  style: Style;
  glyphs: Glyph[];
  x0: number;
  x1: number;
  baseline: number;
  /** last glyph's extent (the gap to the next one) */
  lx0: number;
  lx1: number;
  space: boolean;
}

/** Rotated text: glyph boxes in view coordinates, united. */
interface RotRun {
  style: Style;
  str: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  space: boolean;
}

/** The string of a run's glyphs in logical order: right-to-left runs read from the right, numbers and Latin words in them left to right. */
function runText(glyphs: Glyph[]): { str: string; rtl: boolean } {
  // most runs have no right-to-left letter: no ordering to do
  let plain = '';
  let anyRtl = false;
  for (const g of glyphs) {
    if (g.rtl) {
      anyRtl = true;
      break;
    }
    plain += g.s;
  }
  if (!anyRtl) return { str: plain, rtl: false };
  let r = 0, l = 0;
  for (const g of glyphs) {
    if (g.rtl) r++;
    else if (LTR_CHAR.test(g.s)) l++;
  }
  if (r === 0 || r <= l) return { str: glyphs.map((g) => g.s).join(''), rtl: false };
  // right to left: by position from the right (stable: the glyphs of one ligature keep together)
  const order = glyphs.map((g, i) => ({ g, i })).sort((a, b) => b.g.x0 + b.g.x1 - (a.g.x0 + a.g.x1) || a.i - b.i);
  const parts: string[] = [];
  for (let i = 0; i < order.length; ) {
    // one glyph split into several characters (a lam-alef ligature): PDFium gives them in visual order
    let j = i + 1;
    const g = order[i]!.g;
    while (j < order.length && Math.abs(order[j]!.g.x0 - g.x0) < 0.01 && Math.abs(order[j]!.g.x1 - g.x1) < 0.01) j++;
    const cluster = order.slice(i, j).map((o) => o.g.s);
    if (j - i > 1 && g.rtl) cluster.reverse();
    parts.push(cluster.join(''));
    i = j;
  }
  // numbers and left-to-right words inside the run: turned back to read left to right
  const out: string[] = [];
  for (let i = 0; i < parts.length; ) {
    if (!LTR_CHAR.test(parts[i]!) || RTL_CHAR.test(parts[i]!)) {
      out.push(parts[i]!);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < parts.length && !RTL_CHAR.test(parts[j]!) && (LTR_CHAR.test(parts[j]!) || (/^[.,:/%-]$/.test(parts[j]!) && j + 1 < parts.length && LTR_CHAR.test(parts[j + 1]!) && !RTL_CHAR.test(parts[j + 1]!)))) j++;
    out.push(...parts.slice(i, j).reverse());
    i = j;
  }
  return { str: out.join(''), rtl: true };
}

/** Compatibility characters normalised (NFKC); text without any (every COMPAT character is U+00A0 or above) as it is. */
function normalise(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0xa0) return s.replace(COMPAT, (x) => x.normalize('NFKC'));
  return s;
}

/** A word of the text layer and its box in the view (points, top-left origin): evidence boxes of extracted values cover words, not lines. */
export interface PageWord {
  text: string;
  bbox: { x: number; y: number; width: number; height: number };
}

/** The words of a left-to-right run (glyphs split at spaces), each with the box of its glyphs between the run's top and bottom. */
function runWords(glyphs: Glyph[], top: number, bottom: number, out: PageWord[]): void {
  let start = -1;
  const end = (i: number) => {
    if (start < 0) return;
    let raw = '';
    for (let k = start; k < i; k++) raw += glyphs[k]!.s;
    const text = normalise(raw).trim();
    if (text) {
      let x0 = Infinity, x1 = -Infinity;
      for (let k = start; k < i; k++) {
        x0 = Math.min(x0, glyphs[k]!.x0);
        x1 = Math.max(x1, glyphs[k]!.x1);
      }
      out.push({ text, bbox: { x: x0, y: top, width: x1 - x0, height: bottom - top } });
    }
    start = -1;
  };
  glyphs.forEach((g, i) => {
    if (g.s === ' ') end(i);
    else if (start < 0) start = i;
  });
  end(glyphs.length);
}

/**
 * The text items of a loaded text page (`tp`), horizontal ones and rotated ones apart; `view`: PDF user
 * space to the page's view. `chars`: visible characters (spaces left out), to tell a page without text.
 */
export function pageText(e: Engine, tp: number, view: Matrix): { items: TextItem[]; rotated: TextItem[]; words: PageWord[]; chars: number } {
  const { fast: m, scratch: s } = e;
  const items: TextItem[] = [];
  const words: PageWord[] = [];
  const rotated: TextItem[] = [];
  const n = Math.max(0, m.FPDFText_CountChars(tp));
  const styles = new Map<number, Style | null>();
  const fonts = new Map<number, FontStyle>();
  const fontStyle = (font: number): FontStyle => {
    let f = fonts.get(font);
    if (!f) {
      const name = utf8(e, (b, l) => m.FPDFFont_GetBaseFontName(font, b, l));
      const flags = m.FPDFFont_GetFlags(font);
      const weight = m.FPDFFont_GetWeight(font);
      let asc = 0.8, desc = 0.2;
      if (m.FPDFFont_GetAscent(font, 1, s)) asc = e.f32()[s >> 2]!;
      if (m.FPDFFont_GetDescent(font, 1, s)) desc = -e.f32()[s >> 2]!;
      if (!(asc >= 0.5 && asc <= 1.1)) asc = 0.8;
      if (!(desc >= 0 && desc <= 0.5)) desc = 0.2;
      f = {
        bold: BOLD_NAME.test(name) || weight >= 600 || (flags > 0 && (flags & FLAG_FORCEBOLD) !== 0),
        italic: ITALIC_NAME.test(name) || (flags > 0 && (flags & FLAG_ITALIC) !== 0),
        asc,
        desc,
      };
      fonts.set(font, f);
    }
    return f;
  };
  const styleOf = (obj: number): Style | null => {
    let st = styles.get(obj);
    if (st !== undefined) return st;
    st = null;
    if (obj && m.FPDFPageObj_GetMatrix(obj, s)) {
      const f = e.f32();
      const a = f[s >> 2]!, b = f[(s >> 2) + 1]!, c = f[(s >> 2) + 2]!, d = f[(s >> 2) + 3]!;
      const fs = m.FPDFTextObj_GetFontSize(obj, s) ? e.f32()[s >> 2]! : 1;
      // the text space's x and y axes in the view
      const vx = view[0] * a + view[2] * b, vy = view[1] * a + view[3] * b;
      const wx = view[0] * c + view[2] * d, wy = view[1] * c + view[3] * d;
      const size = Math.abs(fs) * Math.hypot(wx, wy);
      const font = m.FPDFTextObj_GetFont(obj);
      const fst = font ? fontStyle(font) : { bold: false, italic: false, asc: 0.8, desc: 0.2 };
      if (size > 0 && Number.isFinite(size)) {
        const angle = Math.atan2(vy, vx);
        st = { key: `${font}:${size.toFixed(2)}:${angle.toFixed(2)}`, size, angle, ...fst };
      }
    }
    styles.set(obj, st);
    return st;
  };

  let run: Run | null = null;
  let rot: RotRun | null = null;
  let chars = 0;
  const flush = () => {
    if (run) {
      const { str, rtl } = runText(run.glyphs);
      const text = normalise(str);
      if (text.trim()) {
        const st = run.style;
        const top = run.baseline - st.size * st.asc, bottom = run.baseline + st.size * st.desc;
        items.push({ str: text, x: run.x0, top, bottom, baseline: run.baseline, width: run.x1 - run.x0, size: st.size, bold: st.bold, italic: st.italic, rtl });
        if (!rtl) runWords(run.glyphs, top, bottom, words);
      }
      run = null;
    }
  };
  const flushRot = () => {
    if (rot) {
      const text = normalise(rot.str).trim();
      if (text) rotated.push({ str: text, x: rot.x0, top: rot.y0, bottom: rot.y1, baseline: rot.y1, width: rot.x1 - rot.x0, size: rot.style.size, bold: rot.style.bold, italic: rot.style.italic, rtl: false });
      rot = null;
    }
  };
  const [A, B, C, D, E, F] = view;
  for (let k = 0; k < n; k++) {
    const u = m.FPDFText_GetUnicode(tp, k);
    if (u === 13 || u === 10) {
      // a line end (PDFium's own, between lines)
      flush();
      flushRot();
      continue;
    }
    if (u === 32 || u === 9 || u === 0xa0 || u === 0x3000) {
      if (run) run.space = true;
      if (rot) rot.space = true;
      continue;
    }
    if (u === 0 || u === 0xfffe || u === 0xffff || u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff)) continue;
    const st = styleOf(m.FPDFText_GetTextObject(tp, k));
    if (!st || !(st.size > 0.5)) continue;
    if (!m.FPDFText_GetLooseCharBox(tp, k, s)) continue;
    const f = e.f32();
    const l = f[s >> 2]!, t = f[(s >> 2) + 1]!, r = f[(s >> 2) + 2]!, b = f[(s >> 2) + 3]!;
    // the box's corners in the view
    const cx0 = A * l + C * b + E, cy0 = B * l + D * b + F;
    const cx1 = A * r + C * t + E, cy1 = B * r + D * t + F;
    const cx2 = A * l + C * t + E, cy2 = B * l + D * t + F;
    const cx3 = A * r + C * b + E, cy3 = B * r + D * b + F;
    const x0 = Math.min(cx0, cx1, cx2, cx3), x1 = Math.max(cx0, cx1, cx2, cx3);
    const y0 = Math.min(cy0, cy1, cy2, cy3), y1 = Math.max(cy0, cy1, cy2, cy3);
    if (!(Number.isFinite(x0) && Number.isFinite(x1) && Number.isFinite(y0) && Number.isFinite(y1))) continue;
    // a soft hyphen (PDFium marks a hyphen at a line end with 2)
    const str = u === 2 || u === 0xad ? '-' : String.fromCodePoint(u);
    chars++;
    if (Math.abs(st.angle) >= 0.02) {
      // rotated text: kept as separate pieces at their bounding boxes
      flush();
      const size = st.size;
      const near = rot && rot.style.key === st.key && x0 <= rot.x1 + size && x1 >= rot.x0 - size && y0 <= rot.y1 + size && y1 >= rot.y0 - size;
      if (!near) {
        flushRot();
        rot = { style: st, str: '', x0, y0, x1, y1, space: false };
      }
      const cur = rot!;
      if (cur.space && cur.str) cur.str += ' ';
      cur.space = false;
      cur.str += str;
      cur.x0 = Math.min(cur.x0, x0);
      cur.x1 = Math.max(cur.x1, x1);
      cur.y0 = Math.min(cur.y0, y0);
      cur.y1 = Math.max(cur.y1, y1);
      continue;
    }
    flushRot();
    if (!m.FPDFText_GetCharOrigin(tp, k, s, s + 8)) continue;
    const d = e.f64();
    const ox = d[s >> 3]!, oy = d[(s >> 3) + 1]!;
    const baseline = B * ox + D * oy + F;
    const size = st.size;
    const rtl = u >= 0x590 && RTL_CHAR.test(str);
    if (run) {
      const same = run.style.key === st.key && Math.abs(baseline - run.baseline) <= size * 0.25;
      // contiguous: the next glyph to the right or (right to left) to the left, or on the same place (a ligature split)
      const gapR = x0 - run.lx1, gapL = run.lx0 - x1;
      const tol = -size * 0.3, max = size * 0.5;
      const onTop = x0 >= run.lx0 - 0.1 && x1 <= run.lx1 + 0.1;
      if (!same || !((gapR >= tol && gapR <= max) || (gapL >= tol && gapL <= max) || onTop)) flush();
    }
    if (!run) run = { style: st, glyphs: [], x0, x1, baseline, lx0: x0, lx1: x1, space: false };
    const cur: Run = run;
    if (cur.space && cur.glyphs.length) cur.glyphs.push({ s: ' ', x0: x0 < cur.lx0 ? x1 : cur.lx1, x1: x0 < cur.lx0 ? cur.lx0 : x0, rtl: false });
    cur.space = false;
    cur.glyphs.push({ s: str, x0, x1, rtl });
    cur.x0 = Math.min(cur.x0, x0);
    cur.x1 = Math.max(cur.x1, x1);
    cur.lx0 = x0;
    cur.lx1 = x1;
  }
  flush();
  flushRot();
  return { items, rotated, words, chars };
}
