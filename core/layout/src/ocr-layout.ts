/**
 * OCR lines (image pixels) → content blocks (page points): paragraphs from lines grouped by vertical gaps
 * and horizontal overlap, `Label: value` lines as key_value blocks, bullets as list items, much taller
 * lines as headings. Used by the image reader and by the PDF reader for scanned pages.
 */
import type { BBox, BlockInput, Table, Word } from '@quire/core';
import { isListItem, joinLines, parseKeyValue } from './text.js';
import { findRuledTables, itemBox, median, unionBox } from './grid.js';
import type { Line, Rule, TextItem } from './grid.js';
import { findFurniture, findLineNumberGutter, furnitureSide } from './furniture.js';
import type { FurnitureCandidate } from './furniture.js';

export interface OcrLineInput {
  text: string;
  bbox: BBox;
  confidence: number;
  words?: Word[];
  /** tesseract block / paragraph numbers when known */
  block?: number;
  paragraph?: number;
}

export interface OcrLayoutOptions {
  /** 1-based page number */
  page: number;
  /** points per pixel (72 / dpi) */
  scale: number;
  /** pitch of numbered lines (a line-number gutter, pixels): such lines join into paragraphs however wide apart */
  pitch?: number;
}

export const scaleBox = (b: BBox, k: number): BBox => ({ x: b.x * k, y: b.y * k, width: b.width * k, height: b.height * k });

/** A line that is an amount alone ("8.70", "-0.01", "1,234.50"): the right-hand column of a receipt or an invoice. */
const AMOUNT_ONLY = /^[^\p{L}\p{N}]{0,2}\d{1,3}([.,\s]?\d{3})*[.,]\d{2}[^\p{L}\p{N}]{0,2}$/u;

/**
 * Drops lines that are OCR noise (no letters or digits, or very low confidence and short). An amount alone
 * on its line is kept however unsure the engine was: specks do not read as a number with two decimals, and a
 * dropped total is worse than a doubtful one.
 */
function isNoise(l: OcrLineInput): boolean {
  const t = l.text.trim();
  if (!t) return true;
  if (!/[\p{L}\p{N}]/u.test(t)) return true;
  if (AMOUNT_ONLY.test(t)) return false;
  return l.confidence < 0.25 && t.replace(/[^\p{L}\p{N}]/gu, '').length < 4;
}

function lineConfidence(lines: OcrLineInput[]): number {
  const words = lines.flatMap((l) => l.words ?? []);
  if (words.length) return words.reduce((a, w) => a + w.confidence, 0) / words.length;
  return lines.length ? lines.reduce((a, l) => a + l.confidence, 0) / lines.length : 0;
}

function union(boxes: BBox[]): BBox {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Lays out OCR lines (in the engine's reading order) as blocks in points. */
export function ocrLinesToBlocks(input: OcrLineInput[], opts: OcrLayoutOptions): BlockInput[] {
  const lines = input.filter((l) => !isNoise(l));
  if (!lines.length) return [];
  const h = median(lines.map((l) => l.bbox.height)) || 1;
  const groups: OcrLineInput[][] = [];
  let cur: OcrLineInput[] = [];
  let curIsSingle = false;
  for (const l of lines) {
    const prev = cur[cur.length - 1];
    const kv = !!parseKeyValue(l.text);
    const single = kv || l.bbox.height > h * 1.45;
    let split = !prev || curIsSingle || single || isListItem(l.text);
    if (!split && prev) {
      const gap = l.bbox.y - (prev.bbox.y + prev.bbox.height);
      const overlap = Math.min(prev.bbox.x + prev.bbox.width, l.bbox.x + l.bbox.width) - Math.max(prev.bbox.x, l.bbox.x);
      const sizeRatio = Math.max(l.bbox.height, prev.bbox.height) / Math.max(1, Math.min(l.bbox.height, prev.bbox.height));
      const otherBlock = l.block !== undefined && prev.block !== undefined && l.block !== prev.block;
      // numbered lines: the next numbered line continues the paragraph unless it is indented (a new turn)
      const numbered = !!opts.pitch && l.bbox.y - prev.bbox.y <= opts.pitch * 1.3;
      if (numbered) split = l.bbox.x > cur[0]!.bbox.x + h * 1.5 && l.bbox.x > prev.bbox.x + h * 1.5;
      else split = gap > h * 0.85 || gap < -h * 0.5 || overlap <= 0 || sizeRatio > 1.4 || (otherBlock && gap > h * 0.4);
    }
    if (split && cur.length) {
      groups.push(cur);
      cur = [];
    }
    cur.push(l);
    // a numbered "SPEAKER: words" line starts a turn that the next lines continue
    curIsSingle = single && !(kv && opts.pitch);
  }
  if (cur.length) groups.push(cur);

  const k = opts.scale;
  const blocks: BlockInput[] = [];
  for (const g of groups) {
    const text = joinLines(g.map((l) => l.text));
    const bbox = scaleBox(union(g.map((l) => l.bbox)), k);
    const confidence = lineConfidence(g);
    const base = { page: opts.page, bbox, confidence, font: { size: Math.round((median(g.map((l) => l.bbox.height)) * k) * 10) / 10 } };
    const kv = g.length === 1 ? parseKeyValue(text) : null;
    const height = median(g.map((l) => l.bbox.height));
    const words = text.split(/\s+/).length;
    if (kv) blocks.push({ ...base, type: 'key_value', text, key: kv.key, value: kv.value });
    else if (g.length <= 2 && height > h * 1.45 && words <= 14 && confidence >= 0.6) blocks.push({ ...base, type: 'heading', text, level: height > h * 2 ? 1 : 2 });
    else if (isListItem(text)) blocks.push({ ...base, type: 'list_item', text });
    else blocks.push({ ...base, type: 'paragraph', text });
  }
  return blocks;
}

/** OCR words in points. */
export function ocrWordsToPoints(words: Word[], scale: number): Word[] {
  return words.map((w) => ({ text: w.text, confidence: w.confidence, bbox: scaleBox(w.bbox, scale) }));
}

const inside = (b: BBox, k: number, box: BBox) => {
  const cx = (b.x + b.width / 2) * k;
  const cy = (b.y + b.height / 2) * k;
  return cx >= box.x && cx <= box.x + box.width && cy >= box.y && cy <= box.y + box.height;
};

/** An OCR word (pixels) as a text item in points. */
const wordItem = (w: Word, k: number): TextItem => ({ str: w.text, x: w.bbox.x * k, top: w.bbox.y * k, bottom: (w.bbox.y + w.bbox.height) * k, baseline: (w.bbox.y + w.bbox.height) * k, width: w.bbox.width * k, size: w.bbox.height * k, bold: false, rtl: false });

/**
 * OCR lines without the numbers of a line-number gutter (findLineNumberGutter on the lines' words, in points),
 * and the gutter's pitch in pixels; the lines as they are when there is none.
 */
function withoutLineNumbers(lines: OcrLineInput[], k: number): { lines: OcrLineInput[]; pitch?: number } {
  if (lines.length < 5 || !lines.every((l) => l.words?.length)) return { lines };
  const word = new Map<TextItem, Word>();
  const asLines: Line[] = lines.map((l) => {
    const items = l.words!.map((w) => {
      const it = wordItem(w, k);
      word.set(it, w);
      return it;
    });
    return { ...unionBox(items.map(itemBox)), items, size: Math.max(...items.map((i) => i.size)) };
  });
  const gutter = findLineNumberGutter(asLines);
  if (!gutter) return { lines };
  const numbers = new Set([...gutter.numbers].map((it) => word.get(it)!));
  const out: OcrLineInput[] = [];
  for (const l of lines) {
    const rest = l.words!.filter((w) => !numbers.has(w));
    if (rest.length === l.words!.length) out.push(l);
    else if (rest.length) out.push({ ...l, words: rest, text: rest.map((w) => w.text).join(' '), bbox: union(rest.map((w) => w.bbox)), confidence: rest.reduce((a, w) => a + w.confidence, 0) / rest.length });
  }
  return { lines: out, pitch: gutter.pitch / k };
}

/** A block or a table of an OCRed page, in reading order. */
export type OcrElement = { kind: 'block'; block: BlockInput } | { kind: 'table'; table: Omit<Table, 'page'> };

/**
 * Lays out an OCRed page: words inside ruled grids (rules in points, e.g. from detectRules) become
 * tables; the other lines become blocks (ocrLinesToBlocks); tables go before the first block below them.
 */
export function layoutOcrPage(input: OcrLineInput[], opts: OcrLayoutOptions & { rules?: Rule[] }): OcrElement[] {
  const k = opts.scale;
  const rules = opts.rules ?? [];
  let lines = input;
  const tables: Omit<Table, 'page'>[] = [];
  if (rules.length >= 4 && input.some((l) => l.words?.length)) {
    const owner = new Map<TextItem, { line: number; word: Word }>();
    const items: TextItem[] = [];
    input.forEach((l, li) =>
      (l.words ?? []).forEach((w) => {
        if (/^[|¦]+$/.test(w.text)) return; // a table border read as a character
        const it = wordItem(w, k);
        owner.set(it, { line: li, word: w });
        items.push(it);
      }),
    );
    const found = findRuledTables(rules, items);
    if (found.length) {
      const usedWords = new Set<Word>();
      // border characters inside a table go too
      for (const l of input) for (const w of l.words ?? []) if (/^[|¦]+$/.test(w.text) && found.some((t) => inside(w.bbox, k, t.element.bbox))) usedWords.add(w);
      for (const t of found) {
        const ws = [...t.used].map((it) => owner.get(it)!.word);
        for (const w of ws) usedWords.add(w);
        const confidence = ws.length ? ws.reduce((a, w) => a + w.confidence, 0) / ws.length : 0;
        tables.push({ ...t.element.table, confidence: Math.round(confidence * 1000) / 1000 });
      }
      lines = [];
      for (const l of input) {
        const rest = (l.words ?? []).filter((w) => !usedWords.has(w));
        if (!l.words?.length) lines.push(l);
        else if (rest.length === l.words.length) lines.push(l);
        else if (rest.length) {
          lines.push({ ...l, words: rest, text: rest.map((w) => w.text).join(' '), bbox: union(rest.map((w) => w.bbox)), confidence: rest.reduce((a, w) => a + w.confidence, 0) / rest.length });
        }
      }
    }
  }
  const gutter = withoutLineNumbers(lines, k);
  const out: OcrElement[] = ocrLinesToBlocks(gutter.lines, { ...opts, pitch: gutter.pitch }).map((block) => ({ kind: 'block' as const, block }));
  for (const table of tables.sort((a, b) => (a.bbox?.y ?? 0) - (b.bbox?.y ?? 0))) {
    const y = table.bbox?.y ?? 0;
    const at = out.findIndex((e) => e.kind === 'block' && (e.block.bbox?.y ?? 0) > y);
    out.splice(at < 0 ? out.length : at, 0, { kind: 'table', table });
  }
  return out;
}

/** The blocks of an OCRed page that may be furniture: short ones (a line or two) with a box. */
export function ocrFurnitureCandidates(page: number, pageHeight: number, elements: OcrElement[]): (FurnitureCandidate & { block: BlockInput })[] {
  const out: (FurnitureCandidate & { block: BlockInput })[] = [];
  for (const e of elements) if (e.kind === 'block' && e.block.bbox && e.block.text.length <= 160) out.push({ page, text: e.block.text, bbox: e.block.bbox, pageHeight, block: e.block });
  return out;
}

/** Types the furniture blocks of OCRed pages (a multi-page scan) `header` or `footer`, in place. */
export function markOcrFurniture(pages: { number: number; height: number; elements: OcrElement[] }[]): void {
  const candidates = pages.flatMap((p) => ocrFurnitureCandidates(p.number, p.height, p.elements));
  for (const c of findFurniture(candidates, pages.filter((p) => p.elements.length).length)) c.block.type = furnitureSide(c);
}
