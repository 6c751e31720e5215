/**
 * The title of a document (or of a page, for a section of a file that holds several documents): the most
 * prominent heading-like line near the top of the page — larger than the page's body text, bold, high on
 * the page, centred, short — never a table, a running header or footer, a `Label: value` pair, an address,
 * a date, an amount, a page number or OCR noise. Pure functions of the parsed document: readers (through
 * DocumentBuilder.build), the splitter and generation all use the same rule. Nothing is invented: when no
 * line is convincing the answer is null and callers fall back to what they did before.
 */
import { isFurnitureBlock } from './content.js';
import type { BBox, Block, ParsedDocument } from './content.js';

export interface FoundTitle {
  text: string;
  /** 1-based page the title is on */
  page: number;
  bbox: BBox | null;
  /** 0..1 */
  confidence: number;
  /** indexes into doc.blocks of the block(s) the title is made of */
  blocks: number[];
}

/** the part of the page a title is looked for in (share of the page height from the top) */
const TOP_SHARE = 0.4;
/** on a cover (a page of a few blocks, none of running text) the title may stand lower, about the middle of the page */
const COVER_SHARE = 0.75;
/** a block of at least this many words is body text: the title comes before it */
const LONG_PARAGRAPH_WORDS = 40;
/** a paragraph of at least this many words set at the body size is body text too */
const BODY_WORDS = 20;
const MAX_TITLE_WORDS = 20;
/** the least score a title must reach */
const CONVINCING = 0.5;

const PHONE = /(?:\+\d[\d ()./-]{7,}\d|\(\d{2,4}\)\s*\d[\d -]{5,}\d|\b\d{3}[ .-]\d{3}[ .-]\d{4}\b|\b(?:tel|phone|fax|mobile)\b\.?\s*:?\s*\+?\d)/i;
const EMAIL_URL = /[\w.+-]+@[\w-]+\.[\w.]+|\bhttps?:\/\/|\bwww\.[\w-]+\./i;
const POSTCODE_LINE = /\b\d{1,5}\s+[\p{L}][\p{L}'.-]*(?:\s+[\p{L}][\p{L}'.-]*){0,3}\s+(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl|suite|ste|strasse|straße|str|rue|via|calle|weg|laan|gasse)\b\.?|\b(?:p\.?\s*o\.?\s*box|postfach)\b|\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b(?!(?:19|20)\d\d\b)\d{4,5}\s+\p{Lu}\p{Ll}+(?:\s|$)|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b/u;
const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const DATE_ONLY = new RegExp(`^(?:(?:date|dated|as of|on)\\s*:?\\s*)?(?:\\d{1,4}[./-]\\d{1,2}[./-]\\d{1,4}|(?:\\d{1,2}(?:st|nd|rd|th)?\\s+)?(?:${MONTHS})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s*\\d{2,4}|(?:\\d{1,2}(?:st|nd|rd|th)?\\s+)?(?:${MONTHS})\\.?,?\\s+\\d{4}|\\d{4})$`, 'i');
const AMOUNT = /^(?:[\p{L} ]{0,20}:?\s*)?[$€£¥₹]\s?\d|\d[\d,. ]*\s?(?:[$€£¥₹]|\b(?:usd|eur|gbp|chf|inr)\b)\s*$/iu;
const PAGE_NUMBER = /^(?:page|p\.|seite|pagina|página)?\s*\d+\s*(?:(?:of|\/|von|de|di)\s*\d+)?$|^[-–—]\s*\d+\s*[-–—]$|^(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/i;
/** a sentence of body text: ends with a full stop after several words, or starts in lower case */
const SENTENCE_END = /[.;,]\s*$/;
const STARTS_LOWER = /^\p{Ll}/u;

const wordsOf = (s: string) => s.split(/\s+/).filter(Boolean);

/** share of letters among the non-space characters */
function letterRatio(s: string): number {
  const chars = s.replace(/\s+/g, '');
  if (!chars.length) return 0;
  const letters = chars.match(/\p{L}/gu)?.length ?? 0;
  return letters / chars.length;
}

/**
 * Whether a line reads as something other than a title: contact details, a date, an amount, a page number, a
 * table row, a `Label: value` pair, OCR noise. `prominent`: the line is set clearly larger than the body text
 * (a title such as "Name: a longer subtitle" is then no label).
 */
export function notATitle(text: string, prominent = false): boolean {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length < 3 || !/\p{L}/u.test(t)) return true;
  if (t.includes('|') || /\t/.test(text)) return true;
  if (EMAIL_URL.test(t) || PHONE.test(t) || POSTCODE_LINE.test(t)) return true;
  if (DATE_ONLY.test(t) || AMOUNT.test(t) || PAGE_NUMBER.test(t)) return true;
  // `Label: value` (a form or invoice line), and labels ending with a colon
  const label = /^([^:]{1,30}):\s*(\S.*)$/.exec(t);
  if (label && wordsOf(label[1]!).length <= 3 && !/\b(?:chapter|part|section|appendix|annex)\b/i.test(label[1]!)) {
    const value = label[2]!;
    if (!prominent || /\d/.test(value) || wordsOf(value).length < 2) return true;
  }
  if (/:\s*$/.test(t)) return true;
  // OCR noise and number tables: few letters, or one- and two-letter fragments
  if (letterRatio(t) < 0.5) return true;
  const ws = wordsOf(t);
  const lettered = ws.filter((w) => /\p{L}/u.test(w));
  if (lettered.length >= 3 && lettered.filter((w) => w.replace(/\P{L}/gu, '').length === 1).length / lettered.length > 0.5) return true;
  // stray marks of a scan or a rule line read as text (a lone underscore, tilde, bar)
  if (ws.some((w) => /^[_~^`¬¦=*#<>]+$/.test(w))) return true;
  // the same words again and again: cells of a row or columns read across (names, affiliations)
  if (ws.length >= 4 && new Set(ws.map((w) => w.toLowerCase())).size / ws.length <= 0.5) return true;
  return false;
}

/** A title given with the file (PDF info, Office core properties, html <title>) that is a real title, not a file name or a placeholder. */
export function plausibleTitle(title: unknown, fileName?: string): boolean {
  if (typeof title !== 'string') return false;
  const t = title.replace(/\s+/g, ' ').trim();
  if (t.length < 3 || t.length > 300 || !/\p{L}{2}/u.test(t)) return false;
  if (/^(?:microsoft\s+(?:word|powerpoint|excel)|word|powerpoint|excel)\s*-\s*/i.test(t)) return false;
  if (/\.(?:docx?|pdf|pptx?|xlsx?|rtf|odt|odp|ods|txt|html?|indd|qxd|qxp|tex|dvi|ps|eps|ai|pub|pages|key|numbers|jpe?g|png|tiff?|wpd|fm)$/i.test(t)) return false;
  if (/^(?:[a-z]:)?[\\/]|[\\/][^\s\\/]+[\\/]/i.test(t)) return false;
  if (/^(?:untitled|no title|title|document|doc|presentation|slide|book|layout|print|draft|new document|microsoft word document|pdf|default|none|unknown|template)(?:[\s_-]*\d+)?(?:\s+document)?$/i.test(t)) return false;
  if (/^[\d\s\p{P}\p{S}]*$/u.test(t)) return false;
  // identifiers rather than words: no space and digits or underscores inside (report_final_v2, DOC12345)
  if (!/\s/.test(t) && /[_\d]/.test(t)) return false;
  if (fileName) {
    const stem = (s: string) => s.toLowerCase().replace(/\.[a-z0-9]{1,5}$/i, '').replace(/[\s_.-]+/g, ' ').trim();
    if (stem(t) === stem(fileName)) return false;
  }
  return true;
}

interface Candidate {
  index: number;
  block: Block;
  text: string;
  size: number | null;
  score: number;
}

const median = (v: number[]): number | null => {
  if (!v.length) return null;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** a block's line height: its box height over its lines (OCR text has no font size) */
function lineHeight(b: Block): number | null {
  if (!b.bbox || b.bbox.height <= 0) return null;
  return b.bbox.height / Math.max(1, b.text.split('\n').length);
}

/** How many other blocks share a block's line (their vertical middles inside its height, side by side). */
function sameLine(block: Block, blocks: Block[]): number {
  const a = block.bbox!;
  let n = 0;
  for (const b of blocks) {
    if (b === block || !b.bbox || isFurnitureBlock(b)) continue;
    const mid = b.bbox.y + b.bbox.height / 2;
    const amid = a.y + a.height / 2;
    const sideBySide = b.bbox.x >= a.x + a.width || b.bbox.x + b.bbox.width <= a.x;
    if (sideBySide && mid >= a.y && mid <= a.y + a.height && amid >= b.bbox.y && amid <= b.bbox.y + b.bbox.height) n++;
  }
  return n;
}

/** The page a title is looked for on by default: the first with text. */
function firstTextPage(doc: ParsedDocument): number | null {
  let best: number | null = null;
  for (const b of doc.blocks) if (!isFurnitureBlock(b) && b.text.trim() && (best === null || b.page < best)) best = b.page;
  return best;
}

/**
 * The title on one page (the first with text by default): null when no line is a convincing title.
 * Candidates are heading and paragraph blocks of at most MAX_TITLE_WORDS words in the top part of the page
 * (TOP_SHARE of its height, COVER_SHARE on a page without running text, and before the first long paragraph); they are scored by their size against the
 * page's body text (font size, else line height for OCR text), bold, the heading level a reader gave,
 * position, centring and length. Consecutive lines of the same size and weight make one title.
 */
export function findTitle(doc: ParsedDocument, opts: { page?: number } = {}): FoundTitle | null {
  const pageNo = opts.page ?? firstTextPage(doc);
  if (pageNo === null) return null;
  const page = doc.pages.find((p) => p.number === pageNo);
  const indexed = doc.blocks.map((block, index) => ({ block, index })).filter((x) => x.block.page === pageNo);
  if (!indexed.length) return null;
  const height = page?.height || Math.max(...indexed.map((x) => (x.block.bbox ? x.block.bbox.y + x.block.bbox.height : 0)), 1);
  const width = page?.width || Math.max(...indexed.map((x) => (x.block.bbox ? x.block.bbox.x + x.block.bbox.width : 0)), 1);
  // the body text of the page: what a title is larger than (weighted by length); OCR text has line heights for sizes
  const sizeOf = (b: Block): number | null => b.font?.size || lineHeight(b);
  const bodySizes: number[] = [];
  const bodyBlocks = indexed.filter((x) => x.block.type === 'paragraph' || x.block.type === 'list_item' || x.block.type === 'key_value');
  for (const { block } of bodyBlocks) {
    const s = sizeOf(block);
    if (s) for (let i = 0; i < Math.min(20, Math.ceil(block.text.length / 40)); i++) bodySizes.push(s);
  }
  let body = median(bodySizes);
  if (!body) {
    const all: number[] = [];
    for (const b of doc.blocks) if (b.type === 'paragraph' || b.type === 'list_item') { const s = sizeOf(b); if (s) all.push(s); }
    body = median(all);
  }
  const positioned = indexed.some((x) => x.block.bbox);
  const cover = indexed.length <= 15 && !indexed.some((x) => (x.block.type === 'paragraph' || x.block.type === 'list_item') && wordsOf(x.block.text).length >= BODY_WORDS);
  const top = cover ? COVER_SHARE : TOP_SHARE;
  const hasFonts = indexed.some((x) => x.block.font?.size);
  const candidates: Candidate[] = [];
  let seen = 0;
  for (const { block, index } of indexed) {
    if (isFurnitureBlock(block)) continue;
    const words = wordsOf(block.text).length;
    const size = sizeOf(block);
    const ratio = size && body ? size / body : 1;
    // body text: the title comes before it (a section heading comes after)
    if (block.type === 'paragraph' && (words >= LONG_PARAGRAPH_WORDS || (ratio < 1.15 && (words >= BODY_WORDS || (words >= 8 && /[.!?]["'”’)]?\s*$/.test(block.text)))))) break;
    if (block.type === 'table' || block.type === 'figure') {
      seen++;
      continue;
    }
    seen++;
    if (!positioned && seen > 6) break;
    if (block.bbox && block.bbox.y > height * top) continue;
    const prominent = ratio >= 1.2;
    // a `Label: value` block is a title only when set larger than the body text (readers see "Name: subtitle" as a pair)
    if (block.type !== 'heading' && block.type !== 'paragraph' && !(block.type === 'key_value' && prominent)) continue;
    if (block.confidence < 0.6) continue;
    // a cell of a row: two or more other blocks on the same line (column heads of a table not drawn as one)
    if (block.bbox && sameLine(block, indexed.map((x) => x.block)) >= 2) continue;
    // text set vertically (a margin stamp)
    if (block.bbox && block.bbox.height > block.bbox.width * 1.5 && block.text.length > 3) continue;
    const lines = block.text.split('\n').map((l) => l.trim()).filter(Boolean);
    if (!lines.length || lines.length > 4) continue;
    const text = lines.join(' ').replace(/\s+/g, ' ');
    const n = wordsOf(text).length;
    if (n > MAX_TITLE_WORDS) continue;
    if (lines.some((l) => notATitle(l, prominent)) || notATitle(text, prominent)) continue;
    let score = 0;
    // a heading's level counts; in a flow document (no positions) a heading that opens it is its title whatever its level
    if (block.type === 'heading') score += block.level === undefined || block.level <= 1 || (!positioned && !candidates.length && seen === 1) ? 0.45 : block.level === 2 ? 0.35 : 0.2;
    score += Math.max(0, Math.min(1, (ratio - 1) / 0.6)) * 0.55;
    if (block.font?.bold) score += ratio >= 1.1 ? 0.15 : 0.1;
    if (ratio < 0.95) score -= 0.3;
    if (block.bbox) {
      score += 0.15 * Math.max(0, 1 - block.bbox.y / (height * top));
      const centre = block.bbox.x + block.bbox.width / 2;
      if (Math.abs(centre - width / 2) < width * 0.06 && block.bbox.width < width * 0.8) score += 0.1;
    } else score += 0.1 * Math.max(0, 1 - (seen - 1) / 6);
    if (n === 1) score -= 0.1;
    if (n > 12) score -= 0.15;
    if ((SENTENCE_END.test(text) && n >= 6) || STARTS_LOWER.test(text)) score -= 0.35;
    // all in lower case from its first word on (a scrawled name, a line running on): no title ("iPhone guide" is)
    const firstWord = wordsOf(text).find((w) => /\p{L}/u.test(w)) ?? '';
    if (STARTS_LOWER.test(firstWord.replace(/^\P{L}+/u, '')) && !/\p{Lu}/u.test(firstWord)) continue;
    // without sizes or positions nothing but a reader's heading says a line is a title
    if (!hasFonts && !positioned && block.type !== 'heading') continue;
    candidates.push({ index, block, text, size, score });
  }
  if (!candidates.length) return null;
  let best = candidates[0]!;
  for (const c of candidates) if (c.score > best.score + 1e-9) best = c;
  if (best.score < CONVINCING) return null;
  // a title set on two or more lines (blocks) of the same size and weight, one under the other
  const parts = [best];
  const same = (a: Candidate, b: Candidate) => !!a.size && !!b.size && Math.abs(a.size - b.size) / a.size < 0.06 && !!a.block.font?.bold === !!b.block.font?.bold;
  const adjacent = (upper: Candidate, lower: Candidate) => {
    const u = upper.block.bbox, l = lower.block.bbox;
    if (!u || !l) return false;
    const gap = l.y - (u.y + u.height);
    return gap > -2 && gap < (upper.size ?? 12) * 1.2 && Math.min(u.x + u.width, l.x + l.width) > Math.max(u.x, l.x);
  };
  const at = candidates.indexOf(best);
  for (let i = at - 1; i >= 0 && same(candidates[i]!, parts[0]!) && adjacent(candidates[i]!, parts[0]!); i--) parts.unshift(candidates[i]!);
  for (let i = at + 1; i < candidates.length && same(parts[parts.length - 1]!, candidates[i]!) && adjacent(parts[parts.length - 1]!, candidates[i]!); i++) parts.push(candidates[i]!);
  const text = parts.map((p) => p.text).join(' ');
  if (wordsOf(text).length > MAX_TITLE_WORDS * 1.5) return null;
  const boxes = parts.map((p) => p.block.bbox).filter((b): b is BBox => !!b);
  let bbox: BBox | null = null;
  if (boxes.length) {
    const x0 = Math.min(...boxes.map((b) => b.x)), y0 = Math.min(...boxes.map((b) => b.y));
    const x1 = Math.max(...boxes.map((b) => b.x + b.width)), y1 = Math.max(...boxes.map((b) => b.y + b.height));
    bbox = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  }
  const confidence = Math.round(Math.max(0, Math.min(1, best.score)) * 1000) / 1000;
  return { text, page: pageNo, bbox, confidence, blocks: parts.map((p) => p.index) };
}

/**
 * The document's title into its metadata: the title given with the file when it is a real one
 * (plausibleTitle), else the title found on the first page; the block(s) of a found title become a level-1
 * heading. Changes `doc` in place and returns the found title (null when none).
 */
export function applyTitle(doc: ParsedDocument): FoundTitle | null {
  const found = findTitle(doc);
  const given = doc.metadata.title;
  if (plausibleTitle(given, doc.name)) doc.metadata.title = (given as string).replace(/\s+/g, ' ').trim();
  else if (found) doc.metadata.title = found.text;
  else delete doc.metadata.title;
  if (found) for (const i of found.blocks) {
    const b = doc.blocks[i]!;
    if (b.type === 'paragraph' || (b.type === 'heading' && b.level === undefined)) {
      b.type = 'heading';
      b.level = 1;
    }
  }
  return found;
}
