/**
 * Names and types of form elements from what is printed around them: the nearest text left of a widget
 * (right of a checkbox or radio button, whose caption follows it), else the line just above it. Words
 * inside any widget are the field's own value, never its label. Types of text fields are refined from the
 * label ("Date of birth" is a date) and from the field's format script.
 */
import type { BBox, EditElement, Word } from '@quire/core';

const cx = (b: BBox) => b.x + b.width / 2;
const cy = (b: BBox) => b.y + b.height / 2;
const inside = (w: Word, b: BBox) => cx(w.bbox) >= b.x - 1 && cx(w.bbox) <= b.x + b.width + 1 && cy(w.bbox) >= b.y - 1 && cy(w.bbox) <= b.y + b.height + 1;
const vOverlap = (a: BBox, b: BBox) => Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));

/** Label text without the punctuation of a printed form: trailing colons, asterisks, underscores, dots. */
export function cleanLabel(s: string): string {
  return s.replace(/_{2,}.*$/, '').replace(/[\s:*_.…]+$/u, '').replace(/^[\s:*_]+/u, '').trim();
}

/** A field name as words: "Name_First" → "Name First", "form1[0].Page1[0].LegalName[0]" → "Legal Name". */
export function humanName(name: string): string {
  const last = name.split('.').filter(Boolean).pop() ?? name;
  return last
    .replace(/\[\d+\]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Words of a page that can be labels: outside every widget box. */
export function labelWords(words: Word[], boxes: BBox[]): Word[] {
  return words.filter((w) => w.text.trim() && !boxes.some((b) => inside(w, b)));
}

/** Joins a run of words on one line, stopping at a gap wider than about two characters. */
function run(sorted: Word[], fromEnd: boolean): string {
  const ws = fromEnd ? [...sorted].reverse() : sorted;
  const out: Word[] = [];
  for (const w of ws) {
    const prev = out[out.length - 1];
    if (prev) {
      const gap = fromEnd ? prev.bbox.x - (w.bbox.x + w.bbox.width) : w.bbox.x - (prev.bbox.x + prev.bbox.width);
      if (gap > Math.max(8, prev.bbox.height * 1.2)) break;
    }
    out.push(w);
    if (/:$/.test(w.text) && !fromEnd && out.length > 0) break;
    if (fromEnd && out.length > 1 && /:$/.test(w.text)) {
      out.pop(); // the colon of an earlier label on the same line
      break;
    }
  }
  return (fromEnd ? out.reverse() : out).map((w) => w.text).join(' ');
}

/**
 * Letters that are not a label: single characters apart ("N I", "C", "Y" — the letters of a word printed
 * vertically beside the fields, or of a comb's guide). A label has a word of two letters or more.
 */
export function scattered(label: string): boolean {
  return !/[\p{L}\p{N}]{2}/u.test(label);
}

export interface LabelOptions {
  /** where the caption is looked for first */
  prefer: 'left' | 'right';
  /** other widgets of the page: a label never reaches across one */
  others: BBox[];
}

/** The printed label of a box from the page's words (top-left coordinates), or '' when nothing is near. */
export function nearestLabel(box: BBox, words: Word[], opts: LabelOptions): string {
  const row = words.filter((w) => vOverlap(w.bbox, box) >= Math.min(w.bbox.height, box.height) * 0.5);
  const blocked = (x0: number, x1: number) => opts.others.some((o) => o !== box && vOverlap(o, box) > 0 && o.x >= x0 && o.x + o.width <= x1);
  const left = () => {
    const ws = row.filter((w) => w.bbox.x + w.bbox.width <= box.x + 2 && box.x - (w.bbox.x + w.bbox.width) <= 220).sort((a, b) => a.bbox.x - b.bbox.x);
    const last = ws[ws.length - 1];
    if (!last || blocked(last.bbox.x + last.bbox.width, box.x)) return '';
    return cleanLabel(run(ws, true));
  };
  const right = () => {
    const edge = box.x + box.width;
    const ws = row.filter((w) => w.bbox.x >= edge - 2 && w.bbox.x - edge <= 40).sort((a, b) => a.bbox.x - b.bbox.x);
    const first = ws[0];
    if (!first || blocked(edge, first.bbox.x)) return '';
    const all = row.filter((w) => w.bbox.x >= first.bbox.x).sort((a, b) => a.bbox.x - b.bbox.x);
    return cleanLabel(run(all, false));
  };
  const above = () => {
    const ws = words.filter((w) => {
      const bottom = w.bbox.y + w.bbox.height;
      return bottom <= box.y + 2 && box.y - bottom <= Math.max(14, box.height) && w.bbox.x < box.x + box.width && w.bbox.x + w.bbox.width > box.x - 4;
    });
    if (!ws.length) return '';
    const nearest = Math.max(...ws.map((w) => w.bbox.y + w.bbox.height));
    const line = ws.filter((w) => Math.abs(w.bbox.y + w.bbox.height - nearest) < 3).sort((a, b) => a.bbox.x - b.bbox.x);
    return cleanLabel(run(line, false));
  };
  const order = opts.prefer === 'right' ? [right, left, above] : [left, above];
  for (const f of order) {
    const t = f();
    if (t && /[\p{L}\p{N}]/u.test(t) && !scattered(t)) return t;
  }
  return '';
}

const DATE_WORDS = /\b(date|dob|d\.o\.b|birth|born|birthday|datum|fecha|geburtsdatum|expiry|expires|valid until)\b/i;
const NUMBER_WORDS = /\b(amount|total|quantity|qty|age|price|sum|count|number of|no\. of|percent(age)?|income|salary)\b/i;
const DATE_PATTERN = /\b(mm|dd)[\/.\-](dd|mm)[\/.\-](yyyy|yy)\b|\byyyy[\/.\-]mm[\/.\-]dd\b/i;

/** The date pattern printed in a label ("Date (MM/DD/YYYY)"), upper-cased, or null. */
export function labelDatePattern(label: string): string | null {
  const m = DATE_PATTERN.exec(label);
  return m ? m[0].toUpperCase() : null;
}

/** The type of a text field from its label, name and the format script of the field (AFDate_/AFNumber_). */
export function refineTextType(label: string, name: string, script: string | null): { type: EditElement['type']; format?: string } {
  const afDate = script ? /AFDate_(?:Format|Keystroke)(?:Ex)?\s*\(\s*["']([^"']+)["']/.exec(script) : null;
  if (afDate) return { type: 'date_field', format: afDate[1]!.toUpperCase() };
  if (script && /AFDate_(?:Format|Keystroke)\s*\(\s*(\d+)/.test(script)) return { type: 'date_field', format: 'MM/DD/YYYY' };
  if (script && /AFNumber_(?:Format|Keystroke)/.test(script)) return { type: 'number_field' };
  const words = `${label} ${humanName(name)}`;
  const pattern = labelDatePattern(words);
  if (pattern || DATE_WORDS.test(words)) return { type: 'date_field', format: pattern ?? 'YYYY-MM-DD' };
  if (NUMBER_WORDS.test(words) && !/\b(phone|tel|telephone|fax|account|id|zip|postal)\b/i.test(words)) return { type: 'number_field' };
  return { type: 'text_field' };
}
