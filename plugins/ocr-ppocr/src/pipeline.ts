/**
 * The PP-OCR pipeline around the two models, in plain JavaScript on typed arrays: the input tensors
 * (resizing and normalisation), the DB detector's post-processing (threshold, connected components,
 * box score, unclip), CTC greedy decoding of the recogniser's output, and lines and words from the
 * recognised boxes. Nothing here touches onnxruntime, so each step is tested on its own.
 */
import { Encodings, Font, FontNames } from '@pdf-lib/standard-fonts';
import type { BBox, Word } from '@quire/core';

/** An RGBA image (4 bytes a pixel, rows top to bottom), as a canvas gives it. */
export interface Rgba {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
}

/**
 * A text box: a rectangle `width` × `height` centred on (cx, cy) and turned by `angle` radians (clockwise in
 * image coordinates, y down; 0 for level text), in pixels of some image, with the detector's score.
 */
export interface Box {
  cx: number;
  cy: number;
  width: number;
  height: number;
  angle: number;
  score: number;
}

/** Text lines turned by more than this are read as level boxes (rotated text is not handled). */
export const MAX_SKEW = (15 * Math.PI) / 180;

/** The level rectangle around a box, clipped to an image `w` × `h` when given. */
export function boxBounds(b: Box, w = Infinity, h = Infinity): BBox {
  const c = Math.abs(Math.cos(b.angle));
  const s = Math.abs(Math.sin(b.angle));
  const hw = (b.width * c + b.height * s) / 2;
  const hh = (b.width * s + b.height * c) / 2;
  const x0 = Math.max(0, b.cx - hw);
  const y0 = Math.max(0, b.cy - hh);
  return { x: x0, y: y0, width: Math.min(w, b.cx + hw) - x0, height: Math.min(h, b.cy + hh) - y0 };
}

/** Settings of the DB post-processing (PaddleOCR's defaults). */
export interface DbOptions {
  /** probability a pixel needs to count as text */
  threshold: number;
  /** mean probability a region needs to be kept */
  boxThreshold: number;
  /** how far a region is grown (area × ratio / perimeter): DB maps shrink text regions in training */
  unclipRatio: number;
  /** regions with a side shorter than this (map pixels) are noise */
  minSize: number;
}

export const DB_DEFAULTS: DbOptions = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5, minSize: 3 };

/** The detector's input size for an image: the long side at most `maxSide`, both sides multiples of 32. */
export function detectionSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const k = Math.min(1, maxSide / Math.max(width, height));
  const round = (v: number) => Math.max(32, Math.round((v * k) / 32) * 32);
  return { width: round(width), height: round(height) };
}

/**
 * Samples a box of an RGBA image (turned by its angle) into a CHW float tensor of `outW` × `outH`, written at
 * column offset 0 of rows `rowStride` wide (so a batch can pad on the right), BGR channel order as the
 * PaddleOCR models were trained (OpenCV), each value `(v / 255 - mean[c]) / std[c]`. Each output pixel is
 * the mean of up to 4 × 4 bilinear samples over its footprint (one when enlarging), so shrinking does not
 * alias. Points outside the image take its edge pixels.
 */
export function sampleRegion(
  img: Rgba,
  box: Pick<Box, 'cx' | 'cy' | 'width' | 'height' | 'angle'>,
  outW: number,
  outH: number,
  out: Float32Array,
  offset: number,
  rowStride: number,
  mean: readonly [number, number, number],
  std: readonly [number, number, number],
): void {
  const { data, width: W, height: H } = img;
  const cos = Math.cos(box.angle);
  const sin = Math.sin(box.angle);
  const stepX = box.width / outW;
  const stepY = box.height / outH;
  const nx = Math.min(4, Math.max(1, Math.ceil(stepX - 1e-6)));
  const ny = Math.min(4, Math.max(1, Math.ceil(stepY - 1e-6)));
  const plane = outH * rowStride;
  const k = 1 / (nx * ny * 255);
  const [m0, m1, m2] = mean;
  const [s0, s1, s2] = std;
  for (let oy = 0; oy < outH; oy++) {
    for (let ox = 0; ox < outW; ox++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sy = 0; sy < ny; sy++) {
        // box-local coordinates of the sample, origin at the box's centre
        const ly = (oy + (sy + 0.5) / ny) * stepY - box.height / 2;
        for (let sx = 0; sx < nx; sx++) {
          const lx = (ox + (sx + 0.5) / nx) * stepX - box.width / 2;
          // image coordinates, pixel centres at +0.5
          const fx = Math.min(W - 1, Math.max(0, box.cx + lx * cos - ly * sin - 0.5));
          const fy = Math.min(H - 1, Math.max(0, box.cy + lx * sin + ly * cos - 0.5));
          const x0 = fx | 0;
          const y0 = fy | 0;
          const x1 = x0 + 1 < W ? x0 + 1 : x0;
          const y1 = y0 + 1 < H ? y0 + 1 : y0;
          const wx = fx - x0;
          const wy = fy - y0;
          const w00 = (1 - wx) * (1 - wy);
          const w01 = wx * (1 - wy);
          const w10 = (1 - wx) * wy;
          const w11 = wx * wy;
          const p00 = (y0 * W + x0) * 4;
          const p01 = (y0 * W + x1) * 4;
          const p10 = (y1 * W + x0) * 4;
          const p11 = (y1 * W + x1) * 4;
          r += data[p00]! * w00 + data[p01]! * w01 + data[p10]! * w10 + data[p11]! * w11;
          g += data[p00 + 1]! * w00 + data[p01 + 1]! * w01 + data[p10 + 1]! * w10 + data[p11 + 1]! * w11;
          b += data[p00 + 2]! * w00 + data[p01 + 2]! * w01 + data[p10 + 2]! * w10 + data[p11 + 2]! * w11;
        }
      }
      const i = offset + oy * rowStride + ox;
      out[i] = (b * k - m0) / s0;
      out[i + plane] = (g * k - m1) / s1;
      out[i + 2 * plane] = (r * k - m2) / s2;
    }
  }
}

/**
 * Text regions of a DB probability map (`width` × `height`, values 0..1): pixels above the threshold,
 * grouped into 8-connected components. A component's box follows its direction (from its second moments)
 * when it is elongated and turned by at most MAX_SKEW, else it is level; its score is the mean probability
 * inside that box (PaddleOCR's "fast" score on the minimum-area rectangle: a level box around a skewed line
 * would count empty corners); kept boxes are grown on every side by the unclip distance (area × ratio /
 * perimeter, as PaddleOCR's polygon offset does for a rectangle). Boxes are in map pixels.
 */
export function dbBoxes(prob: Float32Array, width: number, height: number, options: DbOptions = DB_DEFAULTS): Box[] {
  const n = width * height;
  const seen = new Uint8Array(n);
  const members = new Int32Array(n); // the current component's pixels, also its breadth-first queue
  const boxes: Box[] = [];
  for (let start = 0; start < n; start++) {
    if (seen[start] || prob[start]! <= options.threshold) continue;
    let head = 0;
    let tail = 0;
    members[tail++] = start;
    seen[start] = 1;
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    let sx = 0;
    let sy = 0;
    while (head < tail) {
      const p = members[head++]!;
      const x = p % width;
      const y = (p - x) / width;
      sx += x;
      sy += y;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width || (!dx && !dy)) continue;
          const q = yy * width + xx;
          if (!seen[q] && prob[q]! > options.threshold) {
            seen[q] = 1;
            members[tail++] = q;
          }
        }
      }
    }
    if (Math.min(x1 - x0 + 1, y1 - y0 + 1) < options.minSize) continue;
    // direction from the second moments of the pixels
    const mx = sx / tail;
    const my = sy / tail;
    let cxx = 0;
    let cyy = 0;
    let cxy = 0;
    for (let i = 0; i < tail; i++) {
      const p = members[i]!;
      const x = (p % width) - mx;
      const y = Math.floor(p / width) - my;
      cxx += x * x;
      cyy += y * y;
      cxy += x * y;
    }
    let angle = 0.5 * Math.atan2(2 * cxy, cxx - cyy);
    const spread = Math.sqrt((cxx - cyy) ** 2 + 4 * cxy * cxy);
    const l1 = (cxx + cyy + spread) / 2;
    const l2 = (cxx + cyy - spread) / 2;
    // a direction only for elongated regions (a line, not a blob or one character)
    if (Math.abs(angle) > MAX_SKEW || l2 <= 0 || l1 < 4 * l2) angle = 0;
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    let u0 = Infinity;
    let u1 = -Infinity;
    let v0 = Infinity;
    let v1 = -Infinity;
    for (let i = 0; i < tail; i++) {
      const p = members[i]!;
      const x = p % width;
      const y = (p - x) / width;
      const u = x * cos + y * sin;
      const v = -x * sin + y * cos;
      if (u < u0) u0 = u;
      if (u > u1) u1 = u;
      if (v < v0) v0 = v;
      if (v > v1) v1 = v;
    }
    const w = u1 - u0 + 1;
    const h = v1 - v0 + 1;
    if (Math.min(w, h) < options.minSize) continue;
    // the mean probability inside the box
    let sum = 0;
    let count = 0;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0, p = y * width + x0; x <= x1; x++, p++) {
        const u = x * cos + y * sin;
        const v = -x * sin + y * cos;
        if (u < u0 - 0.5 || u > u1 + 0.5 || v < v0 - 0.5 || v > v1 + 0.5) continue;
        sum += prob[p]!;
        count++;
      }
    }
    const score = count ? sum / count : 0;
    if (score < options.boxThreshold) continue;
    const d = (w * h * options.unclipRatio) / (2 * (w + h));
    if (Math.min(w, h) + 2 * d < options.minSize + 2) continue;
    // the centre back in map coordinates (pixel centres at +0.5)
    const cu = (u0 + u1) / 2;
    const cv = (v0 + v1) / 2;
    boxes.push({ cx: cu * cos - cv * sin + 0.5, cy: cu * sin + cv * cos + 0.5, width: w + 2 * d, height: h + 2 * d, angle, score });
  }
  return boxes;
}

/** The recogniser's characters: index 0 is the CTC blank, then the dictionary, then a space. */
export function characters(dictionary: string): string[] {
  const keys = dictionary.split(/\r?\n/);
  if (keys.length && keys[keys.length - 1] === '') keys.pop();
  return ['', ...keys, ' '];
}

/** A character of a CTC decoding: its text, the first and last step of its run, its probability. */
export interface CtcChar {
  text: string;
  start: number;
  end: number;
  p: number;
  /** the highest probability of a space over the blank steps before this character (since the previous one) */
  space: number;
}

/**
 * CTC greedy decoding of one sequence of the recogniser's output (`steps` × `classes` probabilities at
 * `offset`): the most likely class per step, repeats merged, blanks dropped. The confidence is the mean
 * probability of the characters kept (0 for none); `chars` are those characters with the first and last
 * step of their run (a step is a fixed slice of the crop's width, so steps are positions along the box).
 */
export function ctcDecode(probs: Float32Array, offset: number, steps: number, classes: number, chars: readonly string[]): { text: string; confidence: number; chars: CtcChar[] } {
  let text = '';
  let sum = 0;
  let prev = -1;
  const out: CtcChar[] = [];
  const spaceClass = chars[classes - 1] === ' ' ? classes - 1 : -1;
  let space = 0;
  for (let t = 0; t < steps; t++) {
    const base = offset + t * classes;
    let best = 0;
    let bestP = probs[base]!;
    for (let c = 1; c < classes; c++) {
      const p = probs[base + c]!;
      if (p > bestP) {
        bestP = p;
        best = c;
      }
    }
    if (best !== 0 && best === prev) {
      out[out.length - 1]!.end = t;
    } else if (best !== 0) {
      const ch = chars[best] ?? '';
      text += ch;
      sum += bestP;
      out.push({ text: ch, start: t, end: t, p: bestP, space });
      space = 0;
    } else if (spaceClass > 0 && out.length) {
      space = Math.max(space, probs[base + spaceClass]!);
    }
    prev = best;
  }
  return { text, confidence: out.length ? sum / out.length : 0, chars: out.filter((c) => c.text) };
}

/**
 * A space is put between two characters the recogniser read without one when the distance between their
 * centres is more than this many times the line's typical distance (the lower median of the distances
 * between neighbouring characters of the box). Measured on the receipts of the corpus (bench/compare.ts):
 * the recogniser often leaves out the space between Latin words, while the gap it leaves in its step
 * positions is still there.
 */
export const SPACE_GAP = 1.6;
/**
 * A space is also put where the recogniser gave a space at least this probability on a blank step between
 * two characters (the blank won, the space came second), with the same conditions on the characters.
 * Measured as SPACE_GAP: over 0.05 to 0.2 the receipts' verbatim company and address vary by 2 and 5 points;
 * this signal finds far more of the lost spaces than the gap does.
 */
export const SPACE_PROB = 0.1;

const LATIN = /^[\p{Script=Latin}\p{Nd}]$/u;
/**
 * Signs that begin a word after a Latin letter or digit when the gap or the space class says so, as a letter
 * does: an opening bracket or an ampersand ("STORE (MALAYSIA)", "D.I.Y. (M)", "FLORIST & HANDICRAFT").
 */
const OPENS_WORD = /^[([{&]$/;
/** Signs that join digits into one number, date or time (12.50, 1,200, 02/12/2017, 10:30, 2017-12-02). */
const NUMBER_JOIN = /^[.,/:\-]$/;

/** A word of a box: its text and its extent in the units of the characters' positions. */
export interface CtcWord {
  text: string;
  start: number;
  end: number;
}

/**
 * A gap is only wide enough for a space when, besides SPACE_GAP, the two characters' centre distance less the
 * half advances their glyphs take in proportional type is more than this many thousandths of an em (at the
 * box's measured scale; Helvetica's space is 278). Measured with plugins/ocr-ppocr/bench/space-gap.ts: on the
 * 100 receipts any value from 100 to 350 reads the key values as the k rule alone does (the recogniser's
 * space class finds their spaces); on 13 born-digital pages drawn at 300 dpi, word F1 against pdftotext
 * rises on every page for any value from 150 to 350 (mean 0.859 → 0.915 at 200). 200 and under keep a space
 * of monospaced type between two wide letters (N K) read at four steps a letter.
 */
export const SPACE_EXCESS = 200;

let helvetica: Map<string, number> | null = null;
/** A character's advance width in Helvetica (thousandths of an em), or undefined where the font has no glyph for it. */
export function glyphWidth(ch: string): number | undefined {
  if (!helvetica) {
    helvetica = new Map();
    const font = Font.load(FontNames.Helvetica);
    for (const cp of Encodings.WinAnsi.supportedCodePoints) {
      const w = font.getWidthOfGlyph(Encodings.WinAnsi.encodeUnicodeCodePoint(cp).name);
      if (typeof w === 'number' && w > 0) helvetica.set(String.fromCodePoint(cp), w);
    }
  }
  return helvetica.get(ch);
}

/** Which gaps ctcWords takes for spaces (the bench compares them; the service uses the default, `both`). */
export interface GapOptions {
  /** SPACE_EXCESS */
  excess?: number;
  /**
   * `mono`: wider than SPACE_GAP times the typical distance (equal advances expected: the rule before glyph
   * widths); `proportional`: wider than SPACE_EXCESS after the glyphs' widths; `both`: both at once.
   */
  metrics?: 'mono' | 'proportional' | 'both';
}

const lowerMedian = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};

/**
 * Words of a decoded box: its characters split at the spaces the recogniser read and at wide gaps.
 *
 * The distance between the centres of two neighbouring characters is their two half advances plus the gap
 * between them. On monospaced type (receipts' printers) every advance is the same; on proportional type an m
 * or a W is three or four times as wide as an i or an l, so the distances on either side of a wide letter are
 * wide too ("P DF docu m ent"). A gap is a space when both
 * - its centre distance is more than `k` times the box's typical distance (the lower median of the
 *   distances), as for monospaced type, and
 * - its centre distance, less the half advances the two glyphs take in Helvetica, is more than
 *   `opts.excess` thousandths of an em at the box's scale (the lower median of the ratios of each distance
 *   to the two glyphs' mean advance), as for proportional type.
 * Where the type is monospaced the second holds at nearly every real gap (a space is as wide as a letter there);
 * where it is proportional the first holds around every wide letter; each rules out the other's false gaps, so the
 * box's type need not be known (the recogniser's positions are whole steps of about a sixth of an em, too
 * coarse to tell the two apart on one box). At least 3 characters are needed (fewer give no typical distance).
 * A comma and a Latin letter after it are always split (a comma is followed by a space in Latin text, and the
 * printers of receipts often leave it out: "53200,KUALA LUMPUR").
 * A split also needs the right character to be a Latin letter or digit (or a sign that opens a word) and the
 * left one a Latin letter, digit or punctuation, and never falls inside a number: a run of digits and joining
 * signs with a sign between two digits (12.50, 02/12/2017). Positions are in any unit along the box (CTC steps).
 */
export function ctcWords(chars: readonly { text: string; start: number; end: number; space?: number }[], k = SPACE_GAP, spaceProb = SPACE_PROB, opts: GapOptions = {}): CtcWord[] {
  const excess = opts.excess ?? SPACE_EXCESS;
  const metrics = opts.metrics ?? 'both';
  const centre = (c: { start: number; end: number }) => (c.start + c.end) / 2;
  /** per pair (i - 1, i) of characters without a space between: centre distance and mean Helvetica advance */
  const dist = new Float64Array(chars.length).fill(NaN);
  const adv = new Float64Array(chars.length).fill(NaN);
  const AVG = 556;
  for (let i = 1; i < chars.length; i++) {
    if (/\s/.test(chars[i]!.text) || /\s/.test(chars[i - 1]!.text)) continue;
    dist[i] = centre(chars[i]!) - centre(chars[i - 1]!);
    adv[i] = ((glyphWidth(chars[i - 1]!.text) ?? AVG) + (glyphWidth(chars[i]!.text) ?? AVG)) / 2;
  }
  const pairs = [...dist.keys()].filter((i) => !Number.isNaN(dist[i]!));
  const enough = pairs.length >= 2;
  const typical = enough ? lowerMedian(pairs.map((i) => dist[i]!)) : Infinity;
  const scale = enough ? lowerMedian(pairs.map((i) => dist[i]! / adv[i]!)) : Infinity;
  const monoGap = (i: number) => dist[i]! > k * typical;
  const propGap = (i: number) => scale > 0 && Number.isFinite(scale) && dist[i]! / scale - adv[i]! > excess;
  const wideGap = (i: number) => !Number.isNaN(dist[i]!) && (metrics === 'mono' ? monoGap(i) : metrics === 'proportional' ? propGap(i) : monoGap(i) && propGap(i));
  // characters of a number with a joining sign between digits (12.50, 02/12/2017): never split
  const numeric = (t: string) => /^\p{Nd}$/u.test(t) || NUMBER_JOIN.test(t);
  const inNumber = new Uint8Array(chars.length);
  for (let i = 0; i < chars.length; ) {
    let j = i;
    while (j < chars.length && numeric(chars[j]!.text)) j++;
    let joined = false;
    for (let m = i + 1; m < j - 1; m++) if (NUMBER_JOIN.test(chars[m]!.text) && /^\p{Nd}$/u.test(chars[m - 1]!.text) && /^\p{Nd}$/u.test(chars[m + 1]!.text)) joined = true;
    if (joined) inNumber.fill(1, i, j);
    i = Math.max(j, i + 1);
  }
  const words: CtcWord[] = [];
  let cur: CtcWord | null = null;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (/\s/.test(c.text)) {
      cur = null;
      continue;
    }
    if (cur && i > 0) {
      const a = chars[i - 1]!;
      // a comma is followed by a space unless a digit follows it (1,200): "53200,KUALA" → "53200, KUALA"
      const wide = wideGap(i) || (c.space ?? 0) >= spaceProb || (a.text === ',' && LATIN_LETTER.test(c.text));
      const left = LATIN.test(a.text) || /^[\p{P}]$/u.test(a.text);
      const right = LATIN.test(c.text) || (OPENS_WORD.test(c.text) && !OPENS_WORD.test(a.text));
      if (wide && left && right && !(inNumber[i] && inNumber[i - 1])) cur = null;
    }
    if (!cur) {
      cur = { text: '', start: c.start, end: c.end };
      words.push(cur);
    }
    cur.text += c.text;
    cur.end = c.end;
  }
  return words;
}

/** A recognised box: its text, box in image pixels and confidence. */
export interface Recognised {
  text: string;
  bbox: BBox;
  confidence: number;
  /** the words of the box with their extent across it (0 = its left edge, 1 = its right edge), when known */
  spans?: { text: string; x0: number; x1: number }[];
}

export interface Line {
  text: string;
  bbox: BBox;
  confidence: number;
  words: Word[];
}

/**
 * Words of a recognised box: its spans placed across its box when the recogniser's step positions gave
 * them; else its text split on spaces, each word given the share of the box's width its characters take
 * (an approximation: glyphs differ in width).
 */
export function splitWords(r: Recognised): Word[] {
  if (r.spans?.length) {
    return r.spans.map((s) => {
      const x0 = r.bbox.x + r.bbox.width * Math.max(0, Math.min(1, s.x0));
      const x1 = r.bbox.x + r.bbox.width * Math.max(0, Math.min(1, s.x1));
      return { text: s.text, bbox: { x: Math.round(x0), y: r.bbox.y, width: Math.max(1, Math.round(x1 - x0)), height: r.bbox.height }, confidence: r.confidence };
    });
  }
  const parts = r.text.split(/(\s+)/);
  const total = r.text.length;
  if (!total) return [];
  const words: Word[] = [];
  let at = 0;
  for (const p of parts) {
    if (p && !/^\s+$/.test(p)) {
      const x = r.bbox.x + (r.bbox.width * at) / total;
      const width = (r.bbox.width * p.length) / total;
      words.push({ text: p, bbox: { x: Math.round(x), y: r.bbox.y, width: Math.max(1, Math.round(width)), height: r.bbox.height }, confidence: r.confidence });
    }
    at += p.length;
  }
  return words;
}

/** A box as the recogniser read it: its characters with their extent across it (0 = left edge, 1 = right edge). */
export interface DecodedBox {
  bbox: BBox;
  confidence: number;
  /** `p`: the recogniser's probability of the character, when known */
  chars: { text: string; start: number; end: number; space?: number; p?: number }[];
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const LATIN_LETTER = /^\p{Script=Latin}$/u;
const LOWER = /^\p{Ll}$/u;

/**
 * The recogniser's dictionary is a Chinese one, and among Latin letters it now and then writes what belongs to
 * Chinese text or mistakes a letter for a digit. In a box read as Latin text (no Chinese, Japanese or Korean
 * character in it):
 * - full-width forms (U+FF01..U+FF5E: `（`, `：`, `，`) are written as their ASCII characters ("(8199K)");
 * - a run of the digit 0 between two Latin letters is the letter O ("F00DICI0US" → "FOODICIOUS",
 *   "L0T" → "LOT"), lower case between two lower-case letters;
 * - the digit 1 between two lower-case letters is the letter l ("Ja1an" → "Jalan").
 * A digit next to another digit, or at a word's edge ("N0", "Leve1", "CS01", "T13"), is left as read: codes
 * and numbers mix letters and digits.
 */
export function latinFixes<T extends { text: string }>(chars: readonly T[]): T[] {
  if (chars.some((c) => CJK.test(c.text))) return [...chars];
  const out = chars.map((c) => {
    const code = c.text.length === 1 ? c.text.charCodeAt(0) : 0;
    return code >= 0xff01 && code <= 0xff5e ? { ...c, text: String.fromCharCode(code - 0xfee0) } : c;
  });
  for (let i = 1; i < out.length - 1; ) {
    if (out[i]!.text !== '0' || !LATIN_LETTER.test(out[i - 1]!.text)) {
      i++;
      continue;
    }
    let j = i;
    while (j < out.length && out[j]!.text === '0') j++;
    if (j < out.length && LATIN_LETTER.test(out[j]!.text)) {
      const o = LOWER.test(out[i - 1]!.text) && LOWER.test(out[j]!.text) ? 'o' : 'O';
      for (let m = i; m < j; m++) out[m] = { ...out[m]!, text: o };
    }
    i = j;
  }
  for (let i = 1; i < out.length - 1; i++) {
    if (out[i]!.text === '1' && LOWER.test(out[i - 1]!.text) && LOWER.test(out[i + 1]!.text)) out[i] = { ...out[i]!, text: 'l' };
  }
  return out;
}

/**
 * A punctuation mark read with a probability under this, and not between two digits, is a speck of the paper
 * or of the print, not a sign: "KHE ELECTRICAL, TRADING" had a comma at 0.38 where the receipt has none.
 */
export const SPECK_PROB = 0.5;
const SPECK = /^[.,;:'`"_~]$/;

/** The characters of a box without the doubtful punctuation marks (SPECK_PROB); signs between digits stay (12.50, 02/12). */
export function dropSpecks<T extends { text: string; p?: number }>(chars: readonly T[], below = SPECK_PROB): T[] {
  const digit = (c: T | undefined) => !!c && /^\p{Nd}$/u.test(c.text);
  return chars.filter((c, i) => !(SPECK.test(c.text) && c.p !== undefined && c.p < below && !(digit(chars[i - 1]) && digit(chars[i + 1]))));
}

/**
 * A decoded box as text and words: its characters corrected by latinFixes, then split into words by ctcWords
 * (with its gap factor `k` and space probability).
 */
export function spacedBox(d: DecodedBox, k = SPACE_GAP, spaceProb = SPACE_PROB, opts: GapOptions = {}): Recognised {
  const spans = ctcWords(latinFixes(dropSpecks(d.chars)), k, spaceProb, opts).map((w) => ({ text: w.text, x0: w.start, x1: w.end }));
  return { text: spans.map((s) => s.text).join(' '), bbox: d.bbox, confidence: d.confidence, spans };
}

const union = (boxes: BBox[]): BBox => {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width));
  const y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
};

/**
 * Lines in reading order, as lists of indices into `boxes`: boxes taken from the top (by their vertical centre)
 * join the line whose vertical extent overlaps theirs by at least half the lower of the two heights; a line's
 * boxes go left to right.
 */
export function lineRows(boxes: readonly BBox[]): number[][] {
  const sorted = boxes.map((b, i) => ({ b, i })).sort((a, b) => a.b.y + a.b.height / 2 - (b.b.y + b.b.height / 2));
  const rows: { y0: number; y1: number; h: number; items: { b: BBox; i: number }[] }[] = [];
  for (const r of sorted) {
    const y0 = r.b.y;
    const y1 = r.b.y + r.b.height;
    let best: (typeof rows)[number] | null = null;
    let bestOverlap = 0;
    // only the last few rows can overlap a box that starts below the ones before
    for (let i = rows.length - 1; i >= Math.max(0, rows.length - 4); i--) {
      const row = rows[i]!;
      const overlap = Math.min(y1, row.y1) - Math.max(y0, row.y0);
      if (overlap >= 0.5 * Math.min(r.b.height, row.h) && overlap > bestOverlap) {
        best = row;
        bestOverlap = overlap;
      }
    }
    if (best) {
      best.items.push(r);
      best.y0 = Math.min(best.y0, y0);
      best.y1 = Math.max(best.y1, y1);
      best.h = Math.min(best.h, r.b.height);
    } else {
      rows.push({ y0, y1, h: r.b.height, items: [r] });
    }
  }
  return rows.sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1)).map((row) => row.items.sort((a, b) => a.b.x - b.b.x).map((e) => e.i));
}

/** Lines in reading order (lineRows) of the recognised boxes that have text. */
export function groupLines(items: Recognised[]): Line[] {
  const kept = items.filter((r) => r.text.trim());
  return lineRows(kept.map((r) => r.bbox)).map((row) => {
    const its = row.map((i) => kept[i]!);
    const words = its.flatMap(splitWords);
    return {
      text: words.map((w) => w.text).join(' '),
      bbox: union(its.map((r) => r.bbox)),
      confidence: words.length ? words.reduce((a, w) => a + w.confidence, 0) / words.length : 0,
      words,
    };
  });
}

/** The longest box a vote aligns (characters): the alignment costs the product of the two lengths. */
export const MAX_VOTE_CHARS = 200;

/**
 * A least-edit alignment (Levenshtein: substitution, insertion and deletion each cost 1) of two sequences, as
 * pairs [i, j] in order: i of `a`, j of `b`, -1 on the side that has nothing there. Among alignments of equal
 * cost it prefers substitutions, then deletions from `a`, so that two readings of the same print that differ by
 * one letter pair their letters up.
 */
export function alignSequences<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean = (x, y) => x === y): [number, number][] {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const d = new Uint32Array((n + 1) * w);
  for (let i = 0; i <= n; i++) d[i * w] = i;
  for (let j = 0; j <= m; j++) d[j] = j;
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) d[i * w + j] = Math.min(d[(i - 1) * w + j - 1]! + (same(a[i - 1]!, b[j - 1]!) ? 0 : 1), d[(i - 1) * w + j]! + 1, d[i * w + j - 1]! + 1);
  const out: [number, number][] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const here = d[i * w + j]!;
    if (i > 0 && j > 0 && here === d[(i - 1) * w + j - 1]! + (same(a[i - 1]!, b[j - 1]!) ? 0 : 1)) out.push([--i, --j]);
    else if (i > 0 && here === d[(i - 1) * w + j]! + 1) out.push([--i, -1]);
    else out.push([-1, --j]);
  }
  return out.reverse();
}

/** How voteChars decides. */
export interface VoteOptions {
  /**
   * Step 2, the tie-breaker: where the first reading's letter and one other letter have the same number of
   * readings, the other letter wins when the first reading gave its own letter a probability under this
   * (0: a tie keeps the first reading's letter).
   */
  tieBelow?: number;
}

/**
 * A per-character vote between several readings of the same text box: the first reading (`chars`, with their
 * positions and probabilities) is aligned by edit distance (alignSequences) with each other reading, white
 * space left out, and
 * - each of its characters is kept, replaced or dropped as the most readings say: one another letter (or
 *   nothing) replaces it when more readings give that than give the first reading's letter, counting the first
 *   reading itself (on a tie, see VoteOptions.tieBelow);
 * - characters the first reading does not have are inserted between two of its characters when more readings
 *   have the same characters there than have nothing.
 * Only letters and digits are voted on, each within its class (see `votable` below). A replaced character keeps its place across the box; inserted ones share the gap they go into; white space
 * of the first reading stays where it was (word spaces are placed from the positions afterwards). Boxes longer
 * than MAX_VOTE_CHARS, or with no other reading, are returned as read.
 */
export function voteChars<T extends { text: string; start: number; end: number; space?: number; p?: number }>(chars: readonly T[], others: readonly (readonly string[])[], opts: VoteOptions = {}): T[] {
  const tieBelow = opts.tieBelow ?? 0;
  const at = chars.map((c, i) => ({ c, i })).filter((e) => !/^\s*$/.test(e.c.text));
  const pivot = at.map((e) => e.c.text);
  const alts = others.map((o) => o.filter((t) => !/^\s*$/.test(t))).filter((o) => o.length <= MAX_VOTE_CHARS);
  if (!alts.length || !pivot.length || pivot.length > MAX_VOTE_CHARS) return [...chars];
  const n = pivot.length;
  // what each other reading has at each of the first reading's characters, and in each gap before one (n: at the end)
  const subs: string[][] = Array.from({ length: n }, () => []);
  const ins: string[][] = Array.from({ length: n + 1 }, () => []);
  for (const o of alts) {
    const gap = new Array<string>(n + 1).fill('');
    let k = 0;
    for (const [i, j] of alignSequences(pivot, o)) {
      if (i >= 0) {
        subs[i]!.push(j >= 0 ? o[j]! : '');
        k = i + 1;
      } else gap[k] += o[j]!;
    }
    gap.forEach((g, i) => ins[i]!.push(g));
  }
  /**
   * Letters and digits are voted on, each within its class: a letter for a letter, a digit for a digit, either
   * added or dropped. Punctuation stays as the first reading has it (dropSpecks judges it by its probability),
   * and a letter never becomes a digit or the reverse (latinFixes and the extraction read those confusions in
   * their context: the readings of one print share them, "1DEA" for "IDEA").
   */
  const kind = (t: string) => (/^\p{L}+$/u.test(t) ? 'letter' : /^\p{Nd}+$/u.test(t) ? 'digit' : t ? 'other' : 'none');
  const votable = (own: string, alt: string) => {
    const a = kind(own);
    const b = kind(alt);
    return a === 'none' ? b === 'letter' || b === 'digit' : b === 'none' ? a === 'letter' || a === 'digit' : a === b && a !== 'other';
  };
  const tally = (votes: string[], own: string) => {
    const count = new Map<string, number>([[own, 1]]);
    for (const v of votes) count.set(v, (count.get(v) ?? 0) + 1);
    return count;
  };
  /** the winner among the readings, or undefined to keep the first reading's */
  const decide = (votes: string[], own: string, p: number | undefined): string | undefined => {
    const count = tally(votes, own);
    const mine = count.get(own)!;
    const best = [...count].filter(([v]) => v !== own && votable(own, v)).sort((x, y) => y[1] - x[1]);
    const [top, second] = best;
    if (!top || top[1] < mine) return undefined;
    if (top[1] > mine) return second && second[1] === top[1] ? undefined : top[0];
    // a tie with the first reading: its own probability decides (an insertion has none and never wins a tie)
    return p !== undefined && p < tieBelow && !(second && second[1] === top[1]) ? top[0] : undefined;
  };
  const voted: string[] = pivot.map((t, i) => decide(subs[i]!, t, at[i]!.c.p) ?? t);
  const inserted: string[] = ins.map((g) => decide(g, '', undefined) ?? '');
  if (voted.every((t, i) => t === pivot[i]) && inserted.every((g) => !g)) return [...chars];
  const out: T[] = [];
  /** characters of an insertion spread evenly over the gap between the positions `from` and `to` */
  const insert = (text: string, from: number, to: number) => {
    const parts = [...text];
    const step = (to - from) / parts.length;
    parts.forEach((t, q) => out.push({ text: t, start: from + q * step, end: from + (q + 1) * step } as T));
  };
  let next = 0; // the first reading's characters (all of them) written so far
  for (let i = 0; i <= n; i++) {
    const e = at[i];
    const prev = i > 0 ? at[i - 1]!.c : undefined;
    if (inserted[i]) {
      const from = prev ? prev.end : Math.max(0, (e?.c.start ?? 0) - 0.02 * [...inserted[i]!].length);
      const to = e ? e.c.start : Math.min(1, from + 0.02 * [...inserted[i]!].length);
      // right after the character before (white space after it comes after the insertion)
      if (prev) while (next < chars.length && next <= at[i - 1]!.i) out.push(chars[next++]!);
      insert(inserted[i]!, from, Math.max(from, to));
    }
    if (!e) break;
    while (next < e.i) out.push(chars[next++]!);
    next = e.i + 1;
    if (voted[i]) out.push(voted[i] === e.c.text ? e.c : ({ ...e.c, text: voted[i], p: undefined } as T));
  }
  while (next < chars.length) out.push(chars[next++]!);
  return out;
}
