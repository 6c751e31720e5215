/**
 * The XHTML of `pdftotext -bbox-layout`: pages (size in points), flows, blocks, lines and words, every
 * one with its box (xMin/yMin/xMax/yMax, points, origin at the top-left corner of the page).
 *
 *   <page width=".." height=".."><flow><block xMin=..><line xMin=..><word xMin=..>text</word>...
 */
import type { BBox } from '@quire/core';
import { round } from '@quire/text';

export interface PopplerWord {
  text: string;
  bbox: BBox;
}

export interface PopplerLine {
  bbox: BBox;
  words: PopplerWord[];
}

export interface PopplerBlock {
  bbox: BBox;
  lines: PopplerLine[];
}

export interface PopplerPage {
  /** 1-based page number in the document */
  number: number;
  width: number;
  height: number;
  /** blocks in poppler's reading order (flow by flow) */
  blocks: PopplerBlock[];
}

export interface PopplerDoc {
  /** the `<meta name content>` of the head (Author, Producer, CreationDate, ...) and the title */
  meta: Record<string, string>;
  pages: PopplerPage[];
}

const ENTITY = /&(?:#(\d+)|#x([0-9a-f]+)|(amp|lt|gt|quot|apos));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character references and the five named entities. */
export function decodeXml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name) return NAMED[name.toLowerCase()] ?? m;
    const cp = dec ? Number(dec) : parseInt(hex!, 16);
    return Number.isInteger(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
  });
}

const box = (x0: number, y0: number, x1: number, y1: number): BBox => ({ x: round(x0), y: round(y0), width: round(Math.max(0, x1 - x0)), height: round(Math.max(0, y1 - y0)) });
const ATTR = /(\w+)="([^"]*)"/g;

function attrs(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(ATTR)) out[m[1]!] = m[2]!;
  return out;
}

const boxOf = (a: Record<string, string>): BBox => box(Number(a.xMin) || 0, Number(a.yMin) || 0, Number(a.xMax) || 0, Number(a.yMax) || 0);

// one pass over the tags: words (with their text), the opening and closing tags of pages, blocks and
// lines, the head's title and meta elements
const TOKEN = /<word xMin="([^"]*)" yMin="([^"]*)" xMax="([^"]*)" yMax="([^"]*)">([^<]*)<\/word>|<(page|block|line)\b([^>]*)>|<\/(page|block|line)>|<meta name="([^"]*)" content="([^"]*)"\s*\/>|<title>([^<]*)<\/title>/g;

/**
 * Parses the output of `pdftotext -bbox-layout -f <firstPage>`: pages are numbered from `firstPage`.
 * Words without text are dropped; blocks and lines left without words are dropped.
 */
export function parseBboxLayout(xhtml: string, firstPage = 1): PopplerDoc {
  const meta: Record<string, string> = {};
  const pages: PopplerPage[] = [];
  let page: PopplerPage | null = null;
  let block: PopplerBlock | null = null;
  let line: PopplerLine | null = null;
  for (const m of xhtml.matchAll(TOKEN)) {
    if (m[5] !== undefined) {
      const text = decodeXml(m[5]).trim();
      if (text && line) line.words.push({ text, bbox: box(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])) });
    } else if (m[6]) {
      const a = attrs(m[7] ?? '');
      if (m[6] === 'page') {
        page = { number: firstPage + pages.length, width: round(Number(a.width) || 0), height: round(Number(a.height) || 0), blocks: [] };
        pages.push(page);
      } else if (m[6] === 'block') {
        block = { bbox: boxOf(a), lines: [] };
      } else {
        line = { bbox: boxOf(a), words: [] };
      }
    } else if (m[8]) {
      if (m[8] === 'line') {
        if (line?.words.length && block) block.lines.push(line);
        line = null;
      } else if (m[8] === 'block') {
        if (block?.lines.length && page) page.blocks.push(block);
        block = null;
      } else page = null;
    } else if (m[9] !== undefined) {
      const v = decodeXml(m[10] ?? '').trim();
      if (v) meta[decodeXml(m[9])] = v;
    } else if (m[11] !== undefined) {
      const v = decodeXml(m[11]).trim();
      if (v) meta.Title = v;
    }
  }
  return { meta, pages };
}

const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;
const LTR = /[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]/;

/**
 * The text of a line: its words joined by spaces, in logical order. -bbox-layout gives words left to right
 * with right-to-left words spelled in visual order: those are turned round, and a line mostly of them is
 * read from the right (runs of left-to-right words keep their order). A lam-alef ligature stays as poppler
 * spells it (alef before lam once the word is turned), as in pdftotext's own text output.
 */
export function lineText(l: PopplerLine): string {
  const rtl = l.words.map((w) => RTL.test(w.text) && !LTR.test(w.text));
  const n = rtl.filter(Boolean).length;
  if (!n) return l.words.map((w) => w.text).join(' ');
  const words = l.words.map((w, i) => (rtl[i] ? [...w.text].reverse().join('') : w.text));
  if (n * 2 < words.length) return words.join(' ');
  // runs of left-to-right words stay in order; the runs and the other words are read from the right
  const runs: string[][] = [];
  for (let i = 0; i < words.length; i++) {
    const ltr = !rtl[i] && LTR.test(words[i]!);
    const last = runs[runs.length - 1];
    if (ltr && last && (last as string[] & { ltr?: boolean }).ltr) last.push(words[i]!);
    else runs.push(Object.assign([words[i]!], { ltr }));
  }
  return runs.reverse().map((r) => r.join(' ')).join(' ');
}
