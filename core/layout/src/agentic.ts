/**
 * Agentic OCR (`ocr.agentic`): a page read twice (a second rendering at another resolution, or a second
 * engine) gives two readings of each line; each line is taken from the reading whose recogniser was the
 * more confident of it. Lines are paired by the overlap of their boxes.
 */
import type { BBox, OcrResult, Word } from '@quire/core';

type Line = OcrResult['lines'][number] & { words?: Word[]; block?: number; paragraph?: number };

/** A second reading's line must beat the first's confidence by this much to replace it (noise of the recogniser). */
const MARGIN = 0.03;
/** Lines are the same line when their boxes overlap this much (intersection over the smaller box). */
const SAME_LINE = 0.6;
/** A line only the second reading found is added when its recogniser was at least this confident of it. */
const NEW_LINE_CONFIDENCE = 0.85;

const scaled = (b: BBox, k: number): BBox => (k === 1 ? b : { x: b.x * k, y: b.y * k, width: b.width * k, height: b.height * k });

function overlap(a: BBox, b: BBox): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const smaller = Math.min(a.width * a.height, b.width * b.height);
  return smaller > 0 ? (w * h) / smaller : 0;
}

const centreIn = (w: BBox, l: BBox) => {
  const cx = w.x + w.width / 2;
  const cy = w.y + w.height / 2;
  return cx >= l.x && cx <= l.x + l.width && cy >= l.y && cy <= l.y + l.height;
};

const norm = (t: string) => t.replace(/\s+/g, ' ').trim();

export interface PickedReading {
  /** the first reading with the lines the second read better */
  result: OcrResult;
  /** lines taken from the second reading (replaced or added) */
  changed: number;
}

/**
 * The two readings of one page merged line by line. `scale` turns the second reading's pixels into the
 * first's (the first's dpi over the second's); the result is in the first's pixels, its lines in the first's
 * order (an added line where its top puts it), each line's words with it.
 */
export function pickBetterLines(first: OcrResult, second: OcrResult, scale: number): PickedReading {
  const others: Line[] = (second.lines as Line[]).map((l) => ({
    ...l,
    bbox: scaled(l.bbox, scale),
    words: (l.words ?? second.words.filter((w) => centreIn(w.bbox, l.bbox))).map((w) => ({ ...w, bbox: scaled(w.bbox, scale) })),
  }));
  const used = new Set<number>();
  let changed = 0;
  const lines: Line[] = [];
  const words: Word[] = [];
  const firstLines = first.lines as Line[];
  for (const l of firstLines) {
    const own = l.words ?? first.words.filter((w) => centreIn(w.bbox, l.bbox));
    let best = -1;
    let bestOverlap = SAME_LINE;
    others.forEach((o, i) => {
      if (used.has(i)) return;
      const v = overlap(l.bbox, o.bbox);
      if (v >= bestOverlap) [best, bestOverlap] = [i, v];
    });
    const o = best >= 0 ? others[best]! : null;
    if (o) used.add(best);
    if (o && o.confidence > l.confidence + MARGIN && norm(o.text) && norm(o.text) !== norm(l.text)) {
      // the second reading's text and words in the first's place (its block and paragraph numbers kept)
      lines.push({ ...l, text: o.text, confidence: o.confidence, bbox: o.bbox, words: o.words });
      words.push(...o.words!);
      changed++;
    } else {
      lines.push(l);
      words.push(...own);
    }
  }
  // lines the first reading missed: added where their top puts them
  others.forEach((o, i) => {
    if (used.has(i) || o.confidence < NEW_LINE_CONFIDENCE || !/[\p{L}\p{N}]{2}/u.test(o.text)) return;
    if (lines.some((l) => overlap(l.bbox, o.bbox) > 0.3)) return;
    const { block: _b, paragraph: _p, ...line } = o;
    const at = lines.findIndex((l) => l.bbox.y > o.bbox.y);
    lines.splice(at < 0 ? lines.length : at, 0, line);
    words.push(...o.words!);
    changed++;
  });
  if (!changed) return { result: first, changed: 0 };
  const confidence = words.length ? words.reduce((s, w) => s + w.confidence, 0) / words.length : first.confidence;
  return { result: { ...first, lines, words, text: lines.map((l) => l.text).join('\n'), confidence }, changed };
}
