/**
 * Legacy Word (.doc, Word 97–2003) through word-extractor: body text, headers/footers, footnotes, endnotes
 * and text boxes. The binary format's styles are not available, so structure is inferred conservatively:
 * tab-terminated rows are table rows, bullet-led lines are list items, and only obvious headings
 * (ALL CAPS, Title Case or numbered section titles followed by a longer paragraph) become headings.
 */
import WordExtractor from 'word-extractor';
import { DocumentBuilder, errors, readLimits } from '@quire/core';
import type { ParsedDocument, TableCell, ReadLimits } from '@quire/core';
import { PagedSink } from './sink.js';
import { NOMINAL_PAGE, checkAbort, describeFailure, isCaption, keyValue, raceSignal } from './util.js';

export interface DocRead {
  bytes: Uint8Array;
  id: string;
  name: string;
  format: string;
  signal?: AbortSignal;
  limits?: Partial<ReadLimits>;
  maxPages?: number;
}

const BULLET = /^\s*([•●○◦▪▫■□‣⁃∙·*-]|\d{1,3}[.)]|[a-z][.)])\s+(.*)$/u;
const SMALL_WORDS = new Set(['a', 'an', 'the', 'and', 'or', 'of', 'in', 'on', 'at', 'to', 'for', 'by', 'with', 'from', 'de', 'la', 'le', 'und', 'der', 'die', 'das']);

/** Level of an obvious heading line, or 0. */
export function obviousHeading(line: string, next: string | undefined): number {
  const t = line.trim();
  if (t.length < 2 || t.length > 80 || /[.,;:!?…]$/.test(t)) return 0;
  if (!next || next.trim().length < Math.max(60, t.length * 1.5)) return 0;
  const words = t.split(/\s+/);
  if (words.length > 10) return 0;
  const numbered = /^(\d+(?:\.\d+){0,4})\.?\s+\p{Lu}/u.exec(t);
  if (numbered) return Math.min(6, numbered[1]!.split('.').length);
  const letters = t.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 3 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return 1;
  const content = words.filter((w) => /\p{L}/u.test(w) && !SMALL_WORDS.has(w.toLowerCase()));
  if (content.length >= 2 && content.every((w) => /^[\p{Lu}\d"'“‘(]/u.test(w))) return 2;
  return 0;
}

function clean(text: string): string {
  // word-extractor keeps a few control characters (field marks, non-breaking hyphens)
  return text.replace(/[\u0001-\u0008\u000b\u000e-\u001f]/g, '').replace(/\u00a0/g, ' ');
}

export async function readDoc(input: DocRead): Promise<ParsedDocument> {
  const { bytes, signal } = input;
  let doc: Awaited<ReturnType<WordExtractor['extract']>>;
  try {
    doc = await raceSignal(new WordExtractor().extract(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)), signal);
  } catch (e) {
    if (signal?.aborted) throw e;
    throw errors.processing(`${input.format} could not be read: ${describeFailure(e, bytes, false, input.format)}`);
  }
  checkAbort(signal);
  const builder = new DocumentBuilder(input.id, input.name, input.format);
  const sink = new PagedSink(builder, NOMINAL_PAGE, input.maxPages, { pages: readLimits({ limits: input.limits }).pages, label: input.format });
  const meaningful = (t: string) => t.trim() && !/^(page\s*)?\d+$/i.test(t.trim());

  const headers = clean(doc.getHeaders({ includeFooters: false, filterUnicode: false }) ?? '').trim();
  if (meaningful(headers)) sink.block({ type: 'header', text: headers });

  const lines = clean(doc.getBody({ filterUnicode: false }) ?? '').split('\n');
  let lastType: string | null = null;
  let i = 0;
  while (i < lines.length) {
    if (i % 500 === 0) checkAbort(signal);
    let line = lines[i]!;
    // page breaks would arrive as form feeds (word-extractor currently folds them into newlines)
    while (line.includes('\f')) {
      const at = line.indexOf('\f');
      const before = line.slice(0, at);
      if (before.trim()) {
        emitLine(before, undefined);
      }
      sink.pageBreak();
      line = line.slice(at + 1);
    }
    // table rows: cells end with a tab (word-extractor turns cell marks into tabs)
    if (line.includes('\t') && line.endsWith('\t')) {
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.includes('\t') && lines[i]!.endsWith('\t') && !lines[i]!.includes('\f')) {
        rows.push(lines[i]!.slice(0, -1).split('\t').map((c) => c.trim()));
        i++;
      }
      emitTable(rows);
      continue;
    }
    emitLine(line, nextText(i + 1));
    i++;
  }

  function nextText(from: number): string | undefined {
    for (let j = from; j < lines.length && j < from + 3; j++) if (lines[j]!.trim()) return lines[j];
    return undefined;
  }

  function emitLine(raw: string, next: string | undefined): void {
    const text = raw.trim();
    if (!text) return;
    const bullet = BULLET.exec(text);
    if (bullet) {
      sink.block({ type: 'list_item', text: `${/^\d|^[a-z][.)]/.test(bullet[1]!) ? bullet[1] : '-'} ${bullet[2]!.trim()}` }, lastType === 'list_item' ? '\n' : undefined);
      lastType = 'list_item';
      return;
    }
    if (isCaption(text)) {
      sink.block({ type: 'caption', text });
      lastType = 'caption';
      return;
    }
    const level = obviousHeading(text, next);
    if (level) {
      sink.block({ type: 'heading', text, level });
      lastType = 'heading';
      return;
    }
    const kv = keyValue(text);
    if (kv) {
      sink.block({ type: 'key_value', text, ...kv }, lastType === 'key_value' ? '\n' : undefined);
      lastType = 'key_value';
      return;
    }
    sink.block({ type: 'paragraph', text });
    lastType = 'paragraph';
  }

  function emitTable(rows: string[][]): void {
    const cols = Math.max(...rows.map((r) => r.length));
    if (rows.length === 1 && cols <= 1) {
      emitLine(rows[0]!.join(' '), undefined);
      return;
    }
    const cells: TableCell[] = [];
    rows.forEach((r, ri) => r.forEach((text, ci) => cells.push({ row: ri, col: ci, rowSpan: 1, colSpan: 1, text })));
    const first = cells.filter((c) => c.row === 0);
    if (rows.length > 1 && first.some((c) => c.text) && first.every((c) => !c.text || !/^[-+]?[\d.,%]+$/.test(c.text))) for (const c of first) c.header = true;
    sink.table({ rows: rows.length, cols, cells });
    lastType = 'table';
  }

  const extras = [doc.getFootnotes({ filterUnicode: false }), doc.getEndnotes({ filterUnicode: false }), doc.getTextboxes({ includeHeadersAndFooters: false, includeBody: true, filterUnicode: false })];
  sink.stopped = false;
  for (const extra of extras) {
    for (const para of clean(extra ?? '').split('\n')) if (para.trim()) sink.block({ type: 'paragraph', text: para });
  }
  const footers = clean(doc.getFooters({ filterUnicode: false }) ?? '').trim();
  if (meaningful(footers)) sink.block({ type: 'footer', text: footers.split('\n').filter(meaningful).join('\n') });
  return builder.build();
}
