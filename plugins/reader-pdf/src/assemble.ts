/**
 * Document-level decisions made once every page is laid out: the body font size, headings and their
 * levels (font size / weight relative to the body), the page furniture set aside (furniture.ts) as header
 * and footer blocks, then the blocks in reading order into the DocumentBuilder; the
 * form fields of the pages into the document's metadata, and an issue for an XFA form that was not read.
 */
import type { BlockInput, DocumentBuilder, Word } from '@quire/core';
import type { OcrElement } from '@quire/layout';
import type { FormField, PageResult, TextElement } from './types.js';

export interface OcrPage {
  /** blocks and tables in reading order */
  elements: OcrElement[];
  words: Word[];
  confidence: number;
  /** clockwise degrees the page image was turned to be read (0 when upright) */
  rotated?: number;
}

export type AssembledPage = PageResult & { ocr?: OcrPage };

const sizeKey = (s: number) => Math.round(s * 2) / 2;

/** Char-weighted most common font size of paragraph text. */
export function bodyFontSize(pages: PageResult[]): number {
  const weights = new Map<number, number>();
  for (const p of pages) {
    for (const e of p.elements) {
      if (e.kind !== 'text' || e.type === 'caption' || e.type === 'figure') continue;
      const k = sizeKey(e.size);
      weights.set(k, (weights.get(k) ?? 0) + e.text.length);
    }
  }
  let best = 10;
  let bestW = -1;
  for (const [k, w] of weights) if (w > bestW) [best, bestW] = [k, w];
  return best;
}

function bodyIsBold(pages: PageResult[], body: number): boolean {
  let bold = 0, all = 0;
  for (const p of pages) for (const e of p.elements) if (e.kind === 'text' && sizeKey(e.size) === body) {
    all += e.text.length;
    if (e.bold) bold += e.text.length;
  }
  return all > 0 && bold / all > 0.5;
}

function bodyIsItalic(pages: PageResult[], body: number): boolean {
  let italic = 0, all = 0;
  for (const p of pages) for (const e of p.elements) if (e.kind === 'text' && sizeKey(e.size) === body) {
    all += e.text.length;
    if (e.italic) italic += e.text.length;
  }
  return all > 0 && italic / all > 0.5;
}

function headingCandidate(e: TextElement, body: number, boldBody: boolean, italicBody = false): 'size' | 'bold' | 'italic' | null {
  if (e.type !== 'paragraph') return null;
  if (e.bbox.height > e.bbox.width * 1.5) return null; // vertical (rotated) text
  const words = e.text.split(/\s+/).length;
  if (e.lines > 3 || e.text.length > 200 || words > 24) return null;
  if (!/\p{L}/u.test(e.text)) return null;
  if (e.size >= body * 1.18 && e.size - body >= 1.2) return 'size';
  const digits = (e.text.match(/\d/g) ?? []).length;
  if (e.bold && !boldBody && e.size >= body * 0.95 && words <= 14 && e.lines <= 2 && !/[.,;:]$/.test(e.text) && (e.text.match(/,/g) ?? []).length < 2 && digits <= e.text.length * 0.3) return 'bold';
  // a short italic line in title case standing alone ("Boots Self-Locking Nut")
  if (e.italic && !italicBody && e.size >= body * 0.95 && e.lines === 1 && words <= 8 && !/[.,;:!?)]$/.test(e.text)) {
    const ws = e.text.split(/\s+/).filter((w) => /^\p{L}/u.test(w));
    if (ws.length && ws.filter((w) => /^\p{Lu}/u.test(w)).length >= ws.length * 0.6) return 'italic';
  }
  return null;
}

export function assemble(builder: DocumentBuilder, pages: AssembledPage[]): void {
  const textPages = pages.filter((p) => !p.ocr);
  const body = bodyFontSize(textPages);
  const boldBody = bodyIsBold(textPages, body);
  const italicBody = bodyIsItalic(textPages, body);
  // heading levels: distinct larger sizes, largest first; bold body-size headings below them
  const sized = new Set<number>();
  for (const p of textPages) for (const e of p.elements) if (e.kind === 'text' && headingCandidate(e, body, boldBody) === 'size') sized.add(sizeKey(e.size));
  const levels = [...sized].sort((a, b) => b - a);
  const levelOf = (e: TextElement, kind: 'size' | 'bold' | 'italic') =>
    kind === 'size' ? Math.min(6, levels.indexOf(sizeKey(e.size)) + 1) : Math.min(6, levels.length + (kind === 'bold' ? 1 : 2));

  for (const p of pages) {
    const ocr = p.ocr;
    builder.addPage({
      number: p.number,
      width: p.width,
      height: p.height,
      ocr: !!ocr,
      confidence: ocr ? ocr.confidence : p.needsOcr ? 0 : 1,
      // word boxes: OCR's, or the text layer's packed (extraction evidence covers the value's words, not its line)
      ...(ocr ? { words: ocr.words } : p.words ? { wordBoxes: p.words } : {}),
    });
    if (p.error) builder.issue({ code: 'PAGE_ERROR', stage: 'parse', page: p.number, message: `Page ${p.number} could not be read: ${p.error}` });
    if (ocr) {
      let prev: string | null = null;
      for (const e of ocr.elements) {
        if (e.kind === 'table') {
          builder.addTable({ ...e.table, page: p.number });
          prev = 'table';
          continue;
        }
        builder.addBlock(e.block, prev === 'list_item' && e.block.type === 'list_item' ? '\n' : '\n\n');
        prev = e.block.type;
      }
      continue;
    }
    let prevType: string | null = null;
    // the text inside the page's figures comes after its running text (and its footer): out of the reading
    // flow, where chunks, which leave it out, are not cut by it
    const flow = p.elements.some((e) => e.kind === 'text' && e.type === 'figure') ? [...p.elements.filter((e) => e.kind !== 'text' || e.type !== 'figure'), ...p.elements.filter((e) => e.kind === 'text' && e.type === 'figure')] : p.elements;
    for (const e of flow) {
      if (e.kind === 'table') {
        builder.addTable({ ...e.table, page: p.number });
        prevType = 'table';
        continue;
      }
      const base = { text: e.text, page: p.number, bbox: e.bbox, confidence: 1, font: { size: Math.round(e.size * 10) / 10, bold: e.bold } };
      let input: BlockInput;
      if (e.furniture) input = { ...base, type: e.furniture };
      else {
        const h = headingCandidate(e, body, boldBody, italicBody);
        if (h) input = { ...base, type: 'heading', level: levelOf(e, h) };
        else if (e.type === 'key_value') input = { ...base, type: 'key_value', key: e.key, value: e.value };
        else input = { ...base, type: e.type };
      }
      builder.addBlock(input, prevType === 'list_item' && input.type === 'list_item' ? '\n' : '\n\n');
      prevType = input.type;
    }
  }
  assembleForm(builder, pages);
}

/** A form field as the document's metadata lists it (metadata.form_fields): the field without its font size. */
export type FormFieldMeta = Omit<FormField, 'fontSize'>;

/** The fields of the pages, each once: a field shown on several pages (the same value) is listed on its first page. */
export function formFields(pages: PageResult[]): FormFieldMeta[] {
  const seen = new Set<string>();
  const out: FormFieldMeta[] = [];
  for (const p of pages) {
    for (const f of p.fields ?? []) {
      if (seen.has(f.name)) continue;
      seen.add(f.name);
      out.push({
        name: f.name,
        type: f.type,
        value: f.value,
        ...(f.options ? { options: f.options } : {}),
        page: f.page,
        bbox: f.bbox,
        ...(f.readOnly ? { readOnly: true } : {}),
        ...(f.required ? { required: true } : {}),
        ...(f.hidden ? { hidden: true } : {}),
      });
    }
  }
  return out;
}

/** What a viewer without XFA shows in place of an XFA form's content ("Please wait... If this message is not eventually replaced..."). */
const XFA_PLACEHOLDER = /please wait|not eventually replaced|viewer may not be able to display/i;

/** The text the pages gave (their elements, OCR blocks and tables). */
function pagesText(pages: AssembledPage[]): string {
  const parts: string[] = [];
  for (const p of pages) {
    for (const e of p.ocr ? p.ocr.elements : p.elements) {
      if (e.kind === 'table') parts.push(e.table.cells.map((c) => c.text).join(' '));
      else parts.push('block' in e ? e.block.text : e.text);
    }
  }
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * Document-level form results, after assemble(): metadata.form_fields (the fields of the pages, when any)
 * and, for an XFA form (metadata.form 'xfa', set by the worker) whose pages give (almost) no text or only
 * the placeholder viewers without XFA show, an XFA_FORM issue: the form's content is XFA, which is not rendered.
 */
export function assembleForm(builder: DocumentBuilder, pages: AssembledPage[]): void {
  const fields = formFields(pages);
  if (fields.length) builder.metadata.form_fields = fields;
  if (builder.metadata.form !== 'xfa' || !pages.length) return;
  const text = pagesText(pages);
  if (text.length >= 40 * pages.length && !(text.length < 1500 && XFA_PLACEHOLDER.test(text))) return;
  const read = text ? `only the text of its PDF pages was read (${text.length} characters: "${text.length > 160 ? `${text.slice(0, 157)}...` : text}")` : 'its PDF pages have no text';
  builder.issue({ code: 'XFA_FORM', stage: 'parse', message: `This PDF is an XFA form: its content is XFA (XML Forms Architecture), which is not rendered; ${read}` });
}
