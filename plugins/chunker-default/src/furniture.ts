import { isFurnitureBlock } from '@quire/core';
import type { Block } from '@quire/core';
import { splitRange } from './sentences.js';

/**
 * The document's page furniture that carries facts, once. Running heads and footers (blocks `header` and
 * `footer`, found by repetition across pages) stay out of the body's chunks; but on business documents the
 * repeated footer or letterhead is where the company's address, register, VAT ID and bank details are
 * printed, and nowhere else. Each distinct furniture line (its text with digits masked, so "Seite 1 von 2"
 * and "Seite 2 von 2" are one) is taken at its first occurrence; the lines of one page's header, or of its
 * footer, make one piece (its span runs from the first line to the last, over any body block the reading
 * order set between them), left out when it carries no facts:
 * - a line that is only a page number or page label ("Page 3 of 12", "- 4 -", "iii") is dropped;
 * - a piece of fewer than MIN_WORDS words, or without a letter, is dropped (a lone "Confidential");
 * - a piece whose every line the body already holds is dropped (a running title repeating the title or a
 *   chapter heading).
 * Pieces are packed up to the chunk size, one line a line; a line longer than that is cut at sentences or words.
 */

/** fewer words than this in a piece: a label, no fact (a lone company name or "Confidential") */
const MIN_WORDS = 3;
/** bounds on what is read (furniture repeats, so a real document has few distinct lines) */
const MAX_LINES = 400;
const MAX_CHARS = 40_000;
/** words of page labels in common languages ("Page 3 of 12", "Seite 1 von 2", "p. 4", "Pagina 2 di 5", "Strona 1 z 3") */
const PAGE_WORDS = new Set(
  'page pages pg p pp seite seiten s blatt bl pagina página páginas pag pág folio fol sheet of von de del sur van di du af av z ze na strona str sivu sida side oldal стр страница no nr'.split(' '),
);
/** a roman page number, i to cccxcix (front matter is numbered so) */
const ROMAN = /^(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/;


/** A run of furniture lines taken out of the text: its span, its content and the blocks it holds. */
export interface FurniturePiece {
  start: number;
  end: number;
  content: string;
  blocks: Block[];
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
/** what repeats from page to page: whitespace collapsed, case folded, digits masked */
const repeatKey = (s: string) => oneLine(s).toLowerCase().replace(/\p{Nd}+/gu, '#');
const tokens = (s: string) => s.toLowerCase().normalize('NFKC').split(/[^\p{L}\p{N}]+/u).filter(Boolean);
/** text compared with the body: letters and digits only, single spaces, case folded */
const comparable = (s: string) => tokens(s).join(' ');

/** A line that is only a page number or a page label: numbers, roman numerals and page words. */
export function isPageLabel(text: string): boolean {
  return tokens(text).every((t) => /^\p{N}+$/u.test(t) || ROMAN.test(t) || PAGE_WORDS.has(t));
}

/** The line less a page number (or roman page label) at either end, as running titles carry one. */
function withoutPageNumber(s: string): string {
  const words = s.split(' ');
  const isNumber = (w: string | undefined) => w !== undefined && (/^\p{N}+$/u.test(w) || ROMAN.test(w));
  if (words.length > 1 && isNumber(words[0])) words.shift();
  if (words.length > 1 && isNumber(words.at(-1))) words.pop();
  return words.join(' ');
}

const LEAD_NUMBER = /^\s*(\p{Nd}+)\s+/u;
const TRAIL_NUMBER = /\s+(\p{Nd}+)\s*$/u;

/**
 * Which end of a repeated furniture line holds a page number: a number that, over the line's occurrences,
 * follows the page order (its value less the page's number is the same on every page it is printed on, as
 * "8 Field Manual of Survey Practice" on page 10 and "9 Field Manual …" on page 11). A number that stays the
 * same from page to page ("Kto-Nr. 48567") is a fact; a line seen once tells nothing and keeps its numbers.
 */
function pageNumberEnds(occurrences: Block[]): { lead: boolean; trail: boolean } {
  const follows = (re: RegExp) => {
    if (occurrences.length < 2) return false;
    const offsets = occurrences.map((b) => {
      const m = re.exec(b.text);
      return m ? Number(m[1]) - b.page : NaN;
    });
    return offsets.every((o) => o === offsets[0]) && !Number.isNaN(offsets[0]) && new Set(occurrences.map((b) => b.page)).size > 1;
  };
  return { lead: follows(LEAD_NUMBER), trail: follows(TRAIL_NUMBER) };
}

/** A furniture line's span less the page number at the ends that hold one. */
function spanWithout(text: string, b: Block, ends: { lead: boolean; trail: boolean }): { start: number; end: number } {
  let { start, end } = b.span;
  const own = text.slice(start, end);
  const lead = ends.lead ? LEAD_NUMBER.exec(own) : null;
  const trail = ends.trail ? TRAIL_NUMBER.exec(own) : null;
  if (lead && (!trail || lead[0].length < trail.index)) start += lead[0].length;
  if (trail && trail.index > (lead?.[0].length ?? 0)) end = b.span.start + trail.index;
  return { start, end };
}

/**
 * The furniture pieces of a document, in the order of their first occurrence. `blocks` are sorted by span;
 * nothing when the document has no body (every block is furniture: the chunks read it as the body).
 */
export function furniturePieces(text: string, blocks: Block[], max: number): FurniturePiece[] {
  if (!blocks.some(isFurnitureBlock) || blocks.every(isFurnitureBlock)) return [];
  // a page's header and its footer: the furniture blocks of each page and kind, in reading order (a body
  // block read between two footer lines, as a column of figures beside them, does not part them)
  const bands = new Map<string, Block[]>();
  for (const b of blocks) {
    if (!isFurnitureBlock(b)) continue;
    const k = `${b.page}:${b.type}`;
    const band = bands.get(k);
    if (band) band.push(b);
    else bands.set(k, [b]);
  }

  // every occurrence of each repeated line, to tell a page number printed in it from a fact
  const occurrences = new Map<string, Block[]>();
  for (const band of bands.values())
    for (const b of band) {
      const k = repeatKey(b.text);
      const list = occurrences.get(k);
      if (list) list.push(b);
      else occurrences.set(k, [b]);
    }
  const spanOf = (b: Block) => spanWithout(text, b, pageNumberEnds(occurrences.get(repeatKey(b.text)) ?? [b]));

  const seen = new Set<string>();
  let body: string | null = null;
  const inBody = (line: string) => {
    body ??= ` ${blocks.filter((b) => !isFurnitureBlock(b)).map((b) => comparable(b.text)).join(' ')} `;
    const c = withoutPageNumber(comparable(line));
    return !c || body.includes(` ${c} `);
  };
  const out: FurniturePiece[] = [];
  let lines = 0, chars = 0;
  for (const band of bands.values()) {
    // the band's lines not seen before and not a page label
    const kept: Block[] = [];
    for (const b of band) {
      const k = repeatKey(b.text);
      if (seen.has(k) || isPageLabel(b.text)) {
        seen.add(k);
        continue;
      }
      if (seen.size >= MAX_LINES) break;
      seen.add(k);
      kept.push(b);
    }
    if (!kept.length) continue;
    const spans = kept.map(spanOf);
    const all = spans.map((r) => text.slice(r.start, r.end)).join(' ');
    if (all.split(/\s+/).filter(Boolean).length < MIN_WORDS || !/\p{L}/u.test(all)) continue;
    if (kept.every((b) => inBody(b.text))) continue;
    for (const p of pack(text, kept, spans, max)) {
      if (lines >= MAX_LINES || chars + p.content.length > MAX_CHARS) return out;
      lines += p.blocks.length;
      chars += p.content.length;
      out.push(p);
    }
  }
  return out;
}

/** The kept lines of a header or footer (their spans less page numbers) packed into pieces of up to max characters, each line whole unless it alone is longer. */
function pack(text: string, kept: Block[], spans: { start: number; end: number }[], max: number): FurniturePiece[] {
  const out: FurniturePiece[] = [];
  let cur: FurniturePiece | null = null;
  for (const [i, block] of kept.entries()) {
    const { start, end } = spans[i]!;
    const own = text.slice(start, end).trim();
    if (!own) continue;
    if (own.length > max) {
      if (cur) out.push(cur);
      cur = null;
      for (const [a, b] of splitRange(text, start, end, max)) out.push({ start: a, end: b, content: text.slice(a, b).trim(), blocks: [block] });
      continue;
    }
    // one line a line, never a blank line between them: the small print of a footer is no run of paragraphs,
    // and a line wrapped in its column ("Vorstand: A (Vorsitz)," / "B") reads on into the next
    if (cur && cur.content.length + 1 + own.length <= max) {
      cur.content += `\n${own}`;
      cur.end = end;
      cur.blocks.push(block);
    } else {
      if (cur) out.push(cur);
      cur = { start, end, content: own, blocks: [block] };
    }
  }
  if (cur) out.push(cur);
  return out;
}
