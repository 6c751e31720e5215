/**
 * Blanks of flat pages (printed or flattened forms, scans) from the words of the parsed layout or of OCR:
 * underlines after a label ("Name: ______"), a label with a colon followed by empty space on its line, and
 * checkbox squares (☐, or ☒ when ticked) with their caption on the right. Each blank gets a label, a type
 * and a box in page points (top-left origin). With the page's drawn geometry (geometry.ts), empty boxes,
 * checkbox squares and plain underlines are blanks too; a blank guessed from "Label:" and the space after
 * it gives way to a drawn box it overlaps (the box is where the form wants the value).
 */
import type { BBox, EditElement, EditLayout, Word } from '@quire/core';
import { cleanLabel, refineTextType } from './labels.js';
import { geometryBlanks } from './geometry.js';
import type { PageGeometry } from './geometry.js';

const UNCHECKED = /^[☐□◻❏]$/u;
const CHECKED = /^[☒☑■▣⊠]$/u;
const UNDERLINE = /_{3,}/;

/** Words of a page in lines (top to bottom), each line left to right. */
function lines(words: Word[]): Word[][] {
  const sorted = [...words].sort((a, b) => a.bbox.y + a.bbox.height / 2 - (b.bbox.y + b.bbox.height / 2));
  const out: Word[][] = [];
  for (const w of sorted) {
    const cy = w.bbox.y + w.bbox.height / 2;
    const line = out.find((l) => Math.abs(l[0]!.bbox.y + l[0]!.bbox.height / 2 - cy) < Math.max(3, l[0]!.bbox.height * 0.5));
    if (line) line.push(w);
    else out.push([w]);
  }
  return out.map((l) => l.sort((a, b) => a.bbox.x - b.bbox.x));
}

/** The words just before index i on a line that form its label (back to a gap or an earlier colon). */
function labelBefore(line: Word[], i: number): string {
  const out: Word[] = [];
  for (let k = i - 1; k >= 0; k--) {
    const w = line[k]!;
    const next = out[0] ?? line[i];
    if (next && next.bbox.x - (w.bbox.x + w.bbox.width) > Math.max(10, w.bbox.height * 1.5)) break;
    if (out.length && /:$/.test(w.text)) break;
    if (UNDERLINE.test(w.text) || UNCHECKED.test(w.text) || CHECKED.test(w.text)) break;
    out.unshift(w);
  }
  return cleanLabel(out.map((w) => w.text).join(' '));
}

function labelAfter(line: Word[], i: number): string {
  const out: Word[] = [];
  for (let k = i + 1; k < line.length; k++) {
    const w = line[k]!;
    const prev = out[out.length - 1] ?? line[i]!;
    if (w.bbox.x - (prev.bbox.x + prev.bbox.width) > Math.max(10, w.bbox.height * 1.5)) break;
    if (UNDERLINE.test(w.text) || UNCHECKED.test(w.text) || CHECKED.test(w.text)) break;
    out.push(w);
    if (/:$/.test(w.text)) break;
  }
  return cleanLabel(out.map((w) => w.text).join(' '));
}

const r = (v: number) => Math.round(v * 10) / 10;

/** The blanks of a layout's pages. */
export function detectBlanks(layout: EditLayout, opts: { include_checkboxes?: boolean; include_signatures?: boolean } = {}, geometry: Map<number, PageGeometry> = new Map()): EditElement[] {
  const out: EditElement[] = [];
  for (const page of layout.pages) {
    const found: (Omit<EditElement, 'id'> & { guessed?: boolean })[] = [];
    const push = (e: Omit<EditElement, 'id' | 'page' | 'source'>, guessed = false) => {
      found.push({ page: page.number, source: 'blank', ...e, bbox: { x: r(e.bbox.x), y: r(e.bbox.y), width: r(e.bbox.width), height: r(e.bbox.height) }, ...(guessed ? { guessed } : {}) });
    };
    const margin = Math.max(18, page.width * 0.05);
    for (const line of lines(page.words)) {
      const lineH = Math.max(...line.map((w) => w.bbox.height));
      line.forEach((w, i) => {
        const t = w.text;
        if (UNCHECKED.test(t) || CHECKED.test(t)) {
          if (opts.include_checkboxes === false) return;
          const label = labelAfter(line, i) || labelBefore(line, i);
          push({ type: 'checkbox', label, bbox: w.bbox, checked: CHECKED.test(t), current_value: CHECKED.test(t) ? 'true' : 'false' });
          return;
        }
        const u = UNDERLINE.exec(t);
        if (u) {
          // "Name:____" in one word: the label is the part before the underline
          const per = w.bbox.width / Math.max(1, t.length);
          const x = w.bbox.x + per * u.index;
          const width = per * (t.length - u.index);
          const glued = cleanLabel(t.slice(0, u.index));
          const label = glued || labelBefore(line, i);
          const box: BBox = { x, y: w.bbox.y + w.bbox.height - lineH * 1.3, width, height: lineH * 1.3 };
          push({ ...refineTextType(label, '', null), label, bbox: box, current_value: '' });
          return;
        }
        if (/[\p{L}\p{N})]:$/u.test(t)) {
          const next = line[i + 1];
          const start = w.bbox.x + w.bbox.width + 4;
          const end = next ? next.bbox.x - 4 : page.width - margin;
          if (next && UNDERLINE.test(next.text)) return;
          if (end - start < Math.max(40, lineH * 4)) return;
          const label = labelBefore(line, i + 1);
          if (!label) return;
          const box: BBox = { x: start, y: w.bbox.y - lineH * 0.25, width: Math.min(end - start, 320), height: lineH * 1.5 };
          push({ ...refineTextType(label, '', null), label, bbox: box, current_value: '' }, true);
        }
      });
    }
    const geo = geometry.get(page.number);
    const drawn = geo ? geometryBlanks(geo, page, opts, geo.unit ?? 1) : [];
    // written marks (underscores, box glyphs) are exact; a drawn shape they overlap is the same blank
    const kept = found.filter((f) => !f.guessed || !drawn.some((d) => overlaps(d.bbox, f.bbox, 0)));
    for (const d of drawn) if (!kept.some((f) => !f.guessed && overlaps(d.bbox, f.bbox))) kept.push(d);
    kept.sort((a, b) => a.bbox.y - b.bbox.y || a.bbox.x - b.bbox.x);
    numberRows(kept);
    kept.forEach(({ guessed: _g, ...e }, k) => out.push({ id: `p${page.number}-b${k + 1}`, ...e }));
  }
  return out;
}

/**
 * Blanks of one kind and label stacked in a column (the empty rows of a table under its header "Name", each
 * row without a label of its own) are told apart by their row, top to bottom: "Name (row 1)", "Name (row 2)".
 * `els` is in reading order (top to bottom).
 */
function numberRows(els: Pick<EditElement, 'type' | 'label' | 'bbox'>[]): void {
  const groups = new Map<string, Pick<EditElement, 'type' | 'label' | 'bbox'>[]>();
  for (const e of els) {
    if (!e.label) continue;
    const key = `${e.type}\u0000${e.label}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    // columns: left edges within a few points of each other
    const columns: (typeof group)[] = [];
    for (const e of group) {
      const col = columns.find((c) => Math.abs(c[0]!.bbox.x - e.bbox.x) <= Math.max(4, e.bbox.height / 2));
      if (col) col.push(e);
      else columns.push([e]);
    }
    for (const col of columns) {
      // rows: one above the other, none sharing a line
      const rows = col.length > 1 && col.every((e, k) => k === 0 || e.bbox.y >= col[k - 1]!.bbox.y + col[k - 1]!.bbox.height * 0.5);
      if (rows) col.forEach((e, k) => (e.label = `${e.label} (row ${k + 1})`));
    }
  }
}

/** Whether two boxes share more than `share` of the smaller one's area (0: any area). */
function overlaps(a: BBox, b: BBox, share = 1 / 3): boolean {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 && w * h > Math.min(a.width * a.height, b.width * b.height) * share;
}
