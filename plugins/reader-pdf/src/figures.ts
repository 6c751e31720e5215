/**
 * Figures of a page (pure functions, run inside the parse workers): the text that lies inside a picture —
 * the labels of a diagram, the names printed over a cover photo, the boxes and arrows of a drawn syntax
 * chart — is the figure's, not the page's running text. It is typed `figure`: kept in the document (with its
 * box), left out of the reading flow that chunks, chat and generation read.
 *
 * A figure is
 * - a raster image (not a page background: under 80 % of the page, holding under half of the page's text; not
 *   the backdrop of a line of text: at least 2.5 times as tall as the lines on it), or
 * - a drawing (a cluster of painted paths and images touching each other, however much of the page's text it
 *   holds) next to a figure caption
 *   ("Figure 3-1 CREATE PERMISSION statement", "Fig. 2. Results": a figure label, then a title that does not
 *   go on as a sentence of the text, as "Figure 3 shows…" does), just above it or, when none is there, just below.
 *
 * Text is figure text when at least 70 % of its box lies inside a figure, unless it reads as prose (two or
 * more lines of 40+ characters on average: a paragraph set over a picture, or beside one within its box,
 * stays text) or lies where running heads and footers are (the furniture pass looks at those). A table inside a captioned drawing (a grid drawn
 * in the diagram) is the figure's too, unless it fills half of the drawing or more (a table captioned as a figure).
 */
import { furnitureZone } from '@quire/layout';
import type { PageElement, TextElement } from './types.js';

export interface GraphicBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A figure label opening a caption, then a title (its first word not in lower case) */
const FIGURE_CAPTION = /^(?:[Ff]ig(?:ure)?\.?|FIGURE|FIG\.?|[Cc]hart|CHART|[Dd]iagram|[Ii]llustration|[Pp]hoto|[Pp]late|[Ss]cheme|[Ee]xhibit|[Gg]raph)\s*[A-Z]?[-.]?\d+[a-z]?(?:[.\-–]\d+)*\s*[.:\-–—]?\s+(?!\p{Ll})\S/u;

/** how close (points) graphics must be to count as one drawing */
const TOUCH = 4;
/** how far (points) a caption may be from its drawing */
const CAPTION_GAP = 24;

const area = (b: GraphicBox) => Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
const boxOf = (e: PageElement): GraphicBox => ({ x0: e.bbox.x, y0: e.bbox.y, x1: e.bbox.x + e.bbox.width, y1: e.bbox.y + e.bbox.height });
const inter = (a: GraphicBox, b: GraphicBox) => area({ x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) });
const near = (a: GraphicBox, b: GraphicBox, d: number) => a.x0 <= b.x1 + d && b.x0 <= a.x1 + d && a.y0 <= b.y1 + d && b.y0 <= a.y1 + d;
const union = (a: GraphicBox, b: GraphicBox): GraphicBox => ({ x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) });

/** Boxes that touch (within `d`) merged into their unions, until none touch. */
export function clusters(boxes: GraphicBox[], d: number): GraphicBox[] {
  let out = boxes.map((b) => ({ ...b }));
  for (let changed = true; changed; ) {
    changed = false;
    const next: GraphicBox[] = [];
    for (const b of out.sort((p, q) => p.x0 - q.x0)) {
      let merged = false;
      for (let i = next.length - 1; i >= 0; i--) {
        if (near(next[i]!, b, d)) {
          next[i] = union(next[i]!, b);
          merged = changed = true;
          break;
        }
      }
      if (!merged) next.push(b);
    }
    out = next;
  }
  return out;
}

const textChars = (e: PageElement) => (e.kind === 'text' ? e.text.replace(/\s+/g, '').length : e.table.cells.reduce((s, c) => s + c.text.replace(/\s+/g, '').length, 0));

/** Prose set over (or inside the box of) a picture: two or more lines of 40+ characters on average. */
const isProse = (e: TextElement) => e.lines >= 2 && e.text.length / e.lines >= 40;

export const isFigureCaption = (text: string) => FIGURE_CAPTION.test(text.trim());

/** The figure regions of a page: raster images that are not backgrounds, drawings next to figure captions. */
export function figureRegions(elements: PageElement[], graphics: { images: GraphicBox[]; paths: GraphicBox[] }, page: { width: number; height: number }): { images: GraphicBox[]; drawings: GraphicBox[] } {
  const pageArea = page.width * page.height;
  const total = elements.reduce((s, e) => s + textChars(e), 0);
  const charsIn = (r: GraphicBox) => elements.reduce((s, e) => (inter(boxOf(e), r) >= 0.7 * area(boxOf(e)) ? s + textChars(e) : s), 0);
  // a backdrop is no figure: an image under a line or two of text (a heading's banner, a shaded box), not 2.5
  // times as tall as the text's lines in it
  const backdrop = (r: GraphicBox) => {
    const lineHeights = elements.filter((e) => e.kind === 'text' && inter(boxOf(e), r) > 0).map((e) => e.bbox.height / Math.max(1, (e as TextElement).lines));
    return lineHeights.length > 0 && r.y1 - r.y0 < 2.5 * Math.max(...lineHeights);
  };
  const images = clusters(graphics.images.filter((b) => b.x1 - b.x0 >= 16 && b.y1 - b.y0 >= 16), 2).filter((r) => area(r) < 0.8 * pageArea && charsIn(r) < 0.5 * total && !backdrop(r));
  const drawings: GraphicBox[] = [];
  const captions = elements.filter((e): e is TextElement => e.kind === 'text' && (e.type === 'caption' || e.type === 'paragraph') && e.lines <= 3 && isFigureCaption(e.text));
  if (captions.length) {
    const all = clusters([...graphics.paths, ...graphics.images], TOUCH).filter((r) => r.x1 - r.x0 >= 40 && r.y1 - r.y0 >= 20 && area(r) < 0.8 * pageArea);
    for (const c of captions) {
      const cb = boxOf(c);
      const across = (r: GraphicBox) => Math.min(r.x1, cb.x1) - Math.max(r.x0, cb.x0) > 0.3 * Math.min(r.x1 - r.x0, cb.x1 - cb.x0);
      // (a frame drawn around the picture may reach a little into the caption's line)
      const slack = Math.min(6, (cb.y1 - cb.y0) / 2);
      const above = all.filter((r) => across(r) && r.y1 <= cb.y0 + slack && r.y1 >= cb.y0 - CAPTION_GAP && r.y0 < cb.y0).sort((a, b) => b.y1 - a.y1)[0];
      const below = above ? undefined : all.filter((r) => across(r) && r.y0 >= cb.y1 - slack && r.y0 <= cb.y1 + CAPTION_GAP && r.y1 > cb.y1).sort((a, b) => a.y0 - b.y0)[0];
      const r = above ?? below;
      if (!r) continue;
      // a table captioned as a figure stays a table: a detected table filling half of the drawing or more
      if (elements.some((e) => e.kind === 'table' && inter(boxOf(e), r) >= 0.5 * area(r))) continue;
      drawings.push(r);
    }
  }
  return { images, drawings };
}

/**
 * The page's elements with the text inside its figures typed `figure` (and a table drawn inside a captioned
 * drawing turned into the figure's text). The order is kept; assemble() sets the figures' text apart.
 */
export function markFigures(elements: PageElement[], graphics: { images: GraphicBox[]; paths: GraphicBox[] }, page: { width: number; height: number }): PageElement[] {
  if (!graphics.images.length && !graphics.paths.length) return elements;
  const { images, drawings } = figureRegions(elements, graphics, page);
  const regions = [...images, ...drawings];
  if (!regions.length) return elements;
  const inside = (e: PageElement, rs: GraphicBox[]) => {
    const b = boxOf(e);
    const a = area(b);
    return a > 0 && rs.some((r) => inter(b, r) >= 0.7 * a);
  };
  return elements.map((e): PageElement => {
    if (e.kind === 'table') {
      if (!inside(e, drawings)) return e;
      const rows = new Map<number, string[]>();
      for (const c of [...e.table.cells].sort((p, q) => p.row - q.row || p.col - q.col)) if (c.text.trim()) rows.set(c.row, [...(rows.get(c.row) ?? []), c.text.trim()]);
      const lines = [...rows.values()].map((r) => r.join(' '));
      return { kind: 'text', type: 'figure', text: lines.join('\n'), bbox: e.bbox, lines: Math.max(1, lines.length), size: 0, bold: false };
    }
    if (e.type === 'caption' || e.furniture || e.part || isProse(e)) return e;
    if (furnitureZone({ top: e.bbox.y, bottom: e.bbox.y + e.bbox.height }, page.height)) return e;
    return inside(e, regions) ? { ...e, type: 'figure' } : e;
  });
}
