/**
 * What the boundary detector knows of each page: its text, top lines, running header and footer, printed
 * page number, type of document, layout (paper size, margins, body font size) and its words. All of it comes
 * from the parsed document alone, so the detector works offline and on any format with pages.
 */
import { isFurnitureBlock, unpackWords } from '@quire/core';
import type { Block, ParsedDocument, Word } from '@quire/core';
import { STOP_WORDS, stem } from '@quire/text';

export interface PageNumber {
  /** the number printed on the page */
  n: number;
  /** the total when printed ("Page 2 of 5", "2/5") */
  of: number | null;
}

export interface PageFeatures {
  page: number;
  width: number;
  height: number;
  ocr: boolean;
  /** the page's text, blocks in reading order */
  text: string;
  /** text of the blocks in the top fifth of the page (or the first blocks when there are no boxes) */
  top: string;
  /** the first lines of the page's body (not its running header) */
  firstLine: string;
  /** the last body text of the page */
  lastText: string;
  /** running header and footer texts, digits masked, lower case */
  marginals: string[];
  pageNumber: PageNumber | null;
  /** how the page number is printed: its form ("page 2 of 5", "2/5", a bare number) and where (top, bottom, body) */
  pageNumberLook: string | null;
  /** a title at the top of the page: its text, or null */
  heading: string | null;
  /** how title-like the heading is (0..1: level, size against the body text, position) */
  headingStrength: number;
  /** detected document type of the page, or null */
  type: string | null;
  /** a letterhead in the top part: a name line with an address, phone, e-mail, registration or web address */
  letterhead: boolean;
  /** closing words at the end of the page (a total, thanks, a signature line) */
  closing: boolean;
  /** the page is the back matter that ends a document: a back cover, a colophon, about the author */
  backMatter: boolean;
  blank: boolean;
  /** body font size (median over the text's characters), null without font facts */
  bodySize: number | null;
  /** left and right edges of the text, as fractions of the page width */
  left: number | null;
  right: number | null;
  /** stemmed content words with counts */
  terms: Map<string, number>;
  /** the writing system of most of the page's letters (latin, cyrillic, greek, arabic, hebrew, hangul, cjk, ...), null with few letters */
  script: string | null;
  /** the text styles used on the page: font size (half points) and weight, e.g. "10:b" */
  styles: Set<string>;
  /**
   * the body font's shape: median width of a lower-case word's letter against the word's height, from the
   * text layer's word boxes (one font at any size gives about the same; Times is narrower than Arial); null on
   * scanned pages and pages with few such words
   */
  fontAspect: number | null;
  /** the first number of each numbered section heading on the page ("3.2 Results" gives 3) */
  sectionNumbers: number[];
  /** numbers that identify one document, upper case ("INV-7731" of "Invoice no. INV-7731") */
  documentNumbers: string[];
  /** running heads: header blocks and short lines at the top edge, digits masked, lower case */
  heads: string[];
  /** how strongly the page reads as each document type (see typeScores) */
  typeScores: Map<string, number>;
}

const NUMBERED_HEADING = /^\s*(\d{1,2})(?:\.\d{1,2})*\.?\s+\p{L}/u;

const WORD = /[\p{L}][\p{L}\p{M}'’-]*[\p{L}\p{M}]|[\p{L}]/gu;

/** Stemmed content words of a text (stop words, one-letter words and numbers left out). */
export function termsOf(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (w.length < 2 || STOP_WORDS.has(w)) continue;
    const s = /^[a-z'’-]+$/.test(w) ? stem(w) : w;
    out.set(s, (out.get(s) ?? 0) + 1);
  }
  return out;
}

/**
 * Document types recognised from their words. Each has phrases that name it (weighted more at the top of a
 * page) and words that are frequent in it.
 */
const TYPES: { type: string; title: RegExp; words: RegExp }[] = [
  { type: 'invoice', title: /\b(tax\s+)?invoice\b|\bfactura\b|\bfactuur\b|\brechnung\b|\bfacture\b|\bbill\s+to\b/i, words: /\b(invoice|amount due|due date|bill to|subtotal|vat|tax|qty|unit price|payment terms)\b/gi },
  { type: 'receipt', title: /\breceipt\b|\bcash\s*sale\b|\bcashier\b|\bsimplified tax invoice\b/i, words: /\b(receipt|cash|change|cashier|total|qty|gst|rounding|thank you|tendered)\b/gi },
  { type: 'statement', title: /\b(account|bank|card|monthly)\s+statement\b|\bstatement\s+of\s+account\b|\bstatement period\b/i, words: /\b(statement|opening balance|closing balance|balance|deposits?|withdrawals?|transactions?)\b/gi },
  { type: 'letter', title: /^\s*(dear|to whom it may concern)\b/im, words: /\b(dear|sincerely|regards|yours|faithfully|enclosed)\b/gi },
  { type: 'form', title: /\bform\b|\bapplication\b|\bquestionnaire\b|\bregistration\b/i, words: /\b(signature|date of birth|name|address|please (print|complete|tick)|check (one|all)|yes|no)\b/gi },
  { type: 'contract', title: /\bagreement\b|\bcontract\b|\bterms and conditions\b/i, words: /\b(party|parties|hereby|agreement|shall|term|terminate|governing law)\b/gi },
  { type: 'resume', title: /\b(curriculum vitae|resume|résumé)\b/i, words: /\b(experience|education|skills|employment|references)\b/gi },
  { type: 'report', title: /\b(report|abstract|table of contents|contents|introduction|chapter)\b/i, words: /\b(figure|table|section|chapter|results|method|conclusion|abstract)\b/gi },
];

/**
 * How strongly a page reads as each document type: 3 for a phrase naming the type at the top, up to 3 more
 * for the type's frequent words (hits per 60 words).
 */
export function typeScores(top: string, text: string): Map<string, number> {
  const out = new Map<string, number>();
  const words = Math.max(20, text.split(/\s+/).length);
  for (const t of TYPES) {
    let score = 0;
    if (t.title.test(top)) score += 3;
    const hits = text.match(t.words)?.length ?? 0;
    score += Math.min(3, (hits * 60) / words);
    out.set(t.type, (out.get(t.type) ?? 0) + score);
  }
  return out;
}

/** The document type of a page, from words naming it at the top and words frequent in it; null when unclear. */
export function pageType(top: string, text: string): string | null {
  return typeOfScores(typeScores(top, text));
}

/** The strongest type of a score map, when it reaches 2 (a naming phrase, or frequent words). */
export function typeOfScores(scores: Map<string, number>): string | null {
  let best: string | null = null;
  let bestScore = 0;
  for (const [t, v] of scores) if (v > bestScore) [best, bestScore] = [t, v];
  return bestScore >= 2 ? best : null;
}

/**
 * Numbers that identify one document: the value after "Invoice no.", "Receipt #", "Order number", "Document
 * ID", "Statement no.", "Contract no.", "Ref." and the like, when it has a digit (a date or a word is no
 * number). Upper case, so that "inv-7731" and "INV-7731" are one.
 */
const DOC_NUMBER = /\b(?:invoice|inv|receipt|order|purchase\s+order|quotation|quote|estimate|credit\s+note|delivery\s+note|document|doc|statement|contract|agreement|reference|ref|bill|case|ticket|claim)\.?\s*(?:no\.?|number|nr\.?|num\.?|#|id)?\s*[:#.]?\s*([A-Z0-9][A-Z0-9\-/.]{2,24})/gi;
export function documentNumbersIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(DOC_NUMBER)) {
    const v = m[1]!.replace(/[.\-/]+$/, '').toUpperCase();
    // a number: digits inside, and not a date or a bare year
    if (!/\d/.test(v) || v.length < 3 || /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/.test(v) || /^(19|20)\d{2}$/.test(v)) continue;
    out.add(v);
  }
  return [...out];
}

const PAGE_OF = /\b(?:page|pg\.?|p\.|seite|página|pagina|sayfa)\s*(\d{1,4})\s*(?:(?:of|von|de|di|\/|sur)\s*(\d{1,4}))?\b/i;
const SLASH = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/;
const BARE = /^\s*[-–—(]?\s*(\d{1,4})\s*[-–—)]?\s*$/;

/** The form of a printed page number: a word ("Page 2", "Seite 2 von 5"), a fraction ("2/5") or a bare number. */
const numberFormat = (line: string) => (PAGE_OF.test(line) ? 'word' : SLASH.test(line) ? 'fraction' : 'bare');

/** The page number printed in a short line ("Page 2 of 5", "2/5", "- 3 -", "3"); null when none. */
export function pageNumberIn(line: string, bareAllowed: boolean): PageNumber | null {
  const t = line.trim();
  if (t.length > 60) return null;
  let m = PAGE_OF.exec(t);
  if (m) return { n: Number(m[1]), of: m[2] ? Number(m[2]) : null };
  m = SLASH.exec(t);
  if (m && Number(m[1]) <= Number(m[2])) return { n: Number(m[1]), of: Number(m[2]) };
  if (bareAllowed) {
    m = BARE.exec(t);
    if (m && Number(m[1]) > 0) return { n: Number(m[1]), of: null };
  }
  return null;
}

/** Titles of the pages that end a book or report. */
const BACK_MATTER = /^\s*(back\s+cover|colophon|about\s+the\s+authors?|r(ü|ue)ckseite|quatri(è|e)me\s+de\s+couverture|contraportada)\b/i;

/** Closing words: totals, thanks, sign-offs and signature lines (English, German, French, Spanish, Italian, Dutch). */
const CLOSING = /\b(thank\s*you|thanks|total|gst\s+summary|tax\s+summary|sincerely|regards|yours\s+(truly|faithfully)|signature|signed|grand\s+total|total\s+(due|amount|payable)|amount\s+due|balance\s+due|change\s+due|please\s+come\s+again|goods\s+sold\s+are\s+not|unterschrift|mit\s+freundlichen\s+gr|hochachtungsvoll|gesamtbetrag|cordialement|veuillez\s+agr|montant\s+total|atentamente|importe\s+total|distinti\s+saluti|met\s+vriendelijke\s+groet|handtekening)\b/i;
const LETTERHEAD = /(\b(tel|phone|fax|e-?mail|www\.|https?:|gst|vat|reg(istration)?\.?\s*no|company\s*no|co\.?\s*reg|sdn\.?\s*bhd|ltd|inc|llc|gmbh|b\.v\.|s\.a\.)\b|@[\w-]+\.\w|\b\d{5}\b|\+?\d[\d\s().-]{7,}\d)/i;

const SCRIPTS: [string, RegExp][] = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['han', /\p{Script=Han}/u],
  ['thai', /\p{Script=Thai}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
];

/** The writing system of most letters of a text (null under 40 letters). */
export function scriptOf(text: string): string | null {
  const counts = new Map<string, number>();
  let letters = 0;
  for (const ch of text.slice(0, 20_000)) {
    if (!/\p{L}/u.test(ch)) continue;
    letters++;
    for (const [name, re] of SCRIPTS) {
      if (re.test(ch)) {
        counts.set(name, (counts.get(name) ?? 0) + 1);
        break;
      }
    }
  }
  if (letters < 40) return null;
  let best: string | null = null;
  for (const [k, v] of counts) if (!best || v > counts.get(best)!) best = k;
  return best && counts.get(best)! >= letters * 0.5 ? best : null;
}

const median = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** The median letter width of lower-case words against their height (null under 8 such words). */
function fontAspectOf(words: Word[]): number | null {
  const ratios: number[] = [];
  for (const w of words) if (w.bbox.height > 0 && /^\p{Ll}{4,}$/u.test(w.text)) ratios.push(w.bbox.width / ([...w.text].length * w.bbox.height));
  return ratios.length >= 8 ? median(ratios) : null;
}

const mask = (s: string) => s.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();

/** Features of every page of a parsed document (pages without blocks are blank). */
export function pageFeatures(doc: ParsedDocument): PageFeatures[] {
  const byPage = new Map<number, Block[]>();
  for (const b of doc.blocks) {
    const list = byPage.get(b.page);
    if (list) list.push(b);
    else byPage.set(b.page, [b]);
  }
  // the document's usual body size: what a heading is compared with
  const sizes: number[] = [];
  for (const b of doc.blocks) if (b.font?.size && (b.type === 'paragraph' || b.type === 'list_item')) for (let i = 0; i < Math.min(50, b.text.length); i += 10) sizes.push(b.font.size);
  const docBody = median(sizes);
  return doc.pages.map((p) => {
    const blocks = byPage.get(p.number) ?? [];
    const height = p.height || 792;
    const width = p.width || 612;
    const text = blocks.map((b) => b.text).join('\n');
    const body = blocks.filter((b) => !isFurnitureBlock(b));
    const positioned = body.filter((b) => b.bbox);
    const topBlocks = positioned.length ? positioned.filter((b) => b.bbox!.y < height * 0.22) : body.slice(0, 3);
    const byY = [...(positioned.length ? positioned : body)].sort((a, b) => (a.bbox?.y ?? 0) - (b.bbox?.y ?? 0));
    const top = (topBlocks.length ? topBlocks : byY.slice(0, 2)).map((b) => b.text).join('\n').slice(0, 600);
    const marginalBlocks = blocks.filter(isFurnitureBlock);
    // short lines at the very top or bottom also carry running headers, footers and page numbers
    const edgeLines: string[] = [];
    const edgeAt: ('top' | 'bottom')[] = [];
    for (const b of blocks) {
      if (!b.bbox) continue;
      const atEdge = b.bbox.y < height * 0.08 || b.bbox.y + b.bbox.height > height * 0.92;
      if (atEdge || isFurnitureBlock(b))
        for (const line of b.text.split('\n'))
          if (line.trim().length <= 80) {
            edgeLines.push(line);
            edgeAt.push(b.bbox.y < height / 2 ? 'top' : 'bottom');
          }
    }
    let pageNumber: PageNumber | null = null;
    let pageNumberLook: string | null = null;
    for (let i = 0; i < edgeLines.length && !pageNumber; i++) {
      pageNumber = pageNumberIn(edgeLines[i]!, true);
      if (pageNumber) pageNumberLook = `${numberFormat(edgeLines[i]!)}:${edgeAt[i]}`;
    }
    if (!pageNumber) {
      // "Page 2 of 5" anywhere in a short line (OCR pages have no header or footer blocks)
      for (const b of blocks) {
        for (const line of b.text.split('\n')) {
          if (line.length > 40) continue;
          const n = pageNumberIn(line, false);
          if (n && PAGE_OF.test(line)) {
            pageNumber = n;
            pageNumberLook = `${numberFormat(line)}:body`;
            break;
          }
        }
        if (pageNumber) break;
      }
    }
    const marginals = [...new Set([...marginalBlocks.map((b) => mask(b.text)), ...edgeLines.map(mask)].filter((s) => s.replace(/[#\W]/g, '').length >= 3))];
    // a page number is no running head ("Page 2" is on the pages of every document)
    const headLines = [...blocks.filter((b) => b.type === 'header').map((b) => b.text), ...edgeLines.filter((_, i) => edgeAt[i] === 'top')].filter((l) => !pageNumberIn(l, true) && !PAGE_OF.test(l));
    const heads = [...new Set(headLines.map(mask).filter((s) => s.replace(/[#\W]/g, '').length >= 3))];
    // title: a heading (or a line clearly larger than the body text) in the top part of the page
    let heading: string | null = null;
    let headingStrength = 0;
    const bodySizes: number[] = [];
    for (const b of body) if (b.font?.size && b.type !== 'heading') for (let i = 0; i < Math.min(50, b.text.length); i += 10) bodySizes.push(b.font.size);
    const pageBody = median(bodySizes) ?? docBody;
    for (const b of byY.slice(0, 4)) {
      if (b.bbox && b.bbox.y > height * 0.35) break;
      const size = b.font?.size ?? null;
      const ratio = size && pageBody ? size / pageBody : 1;
      const short = b.text.length <= 120;
      let s = 0;
      if (b.type === 'heading') s = b.level && b.level <= 2 ? 0.9 : b.level && b.level <= 4 ? 0.7 : 0.5;
      if (short && ratio >= 1.25) s = Math.max(s, Math.min(1, 0.5 + (ratio - 1.25)));
      if (short && b.font?.bold && ratio >= 1.1) s = Math.max(s, 0.5);
      if (s > headingStrength) {
        headingStrength = s;
        heading = b.text.split('\n')[0]!.trim().slice(0, 120);
      }
      if (s >= 0.9) break;
    }
    const firstBody = byY.find((b) => !marginals.includes(mask(b.text)));
    const lastBody = [...body].reverse().find((b) => !marginals.includes(mask(b.text)));
    const letterheadHits = top.split('\n').filter((l) => LETTERHEAD.test(l)).length;
    const tail = body.slice(-4).map((b) => b.text).join('\n').slice(-400);
    const scores = typeScores(top, text);
    const lefts = positioned.map((b) => b.bbox!.x / width);
    const rights = positioned.map((b) => (b.bbox!.x + b.bbox!.width) / width);
    return {
      page: p.number,
      width,
      height,
      ocr: p.ocr,
      text,
      top,
      firstLine: (firstBody?.text ?? '').split('\n')[0]!.trim(),
      lastText: (lastBody?.text ?? '').trim(),
      marginals,
      pageNumber,
      pageNumberLook,
      heading,
      headingStrength,
      type: typeOfScores(scores),
      typeScores: scores,
      documentNumbers: documentNumbersIn(text),
      heads,
      letterhead: letterheadHits >= 1 && top.length >= 20,
      closing: CLOSING.test(tail),
      backMatter: heading !== null && headingStrength >= 0.5 && BACK_MATTER.test(heading),
      blank: text.replace(/[\s\p{P}]/gu, '').length < 12,
      bodySize: pageBody,
      left: lefts.length ? Math.min(...lefts) : null,
      right: rights.length ? Math.max(...rights) : null,
      terms: termsOf(body.map((b) => b.text).join('\n')),
      script: scriptOf(text),
      fontAspect: p.ocr ? null : fontAspectOf(p.words?.length ? p.words : unpackWords(p.wordBoxes)),
      sectionNumbers: body.filter((b) => (b.type === 'heading' || b.font?.bold) && b.text.length <= 120).map((b) => NUMBERED_HEADING.exec(b.text)).filter((m) => m !== null).map((m) => Number(m[1])),
      styles: new Set(blocks.filter((b) => b.font?.size).map((b) => `${Math.round(b.font!.size! * 2) / 2}:${b.font!.bold ? 'b' : 'r'}`)),
    };
  });
}
