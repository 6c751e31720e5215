/**
 * The content model. Everything a reader produces and every API shape is derived from these types.
 * Bounding boxes are page coordinates in points (1/72 inch), origin at the top-left corner of the page,
 * y growing downwards. The API boundary converts to the spec's {x,y,width,height} / {left,top,width,height}.
 */
export interface BBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type BlockType =
  | 'heading'
  | 'paragraph'
  | 'list_item'
  | 'key_value'
  | 'table'
  | 'figure'
  | 'caption'
  | 'header'
  | 'footer';

/** Character offsets into ParsedDocument.text: [start, end). */
export interface Span {
  start: number;
  end: number;
}

export interface Block {
  type: BlockType;
  text: string;
  /** 1-based page number. */
  page: number;
  bbox: BBox | null;
  span: Span;
  /** 0..1: 1 for a text layer, the OCR confidence for recognised text. */
  confidence: number;
  /** heading level (1 = top) for headings. */
  level?: number;
  /** for key_value blocks. */
  key?: string;
  value?: string;
  /** index into ParsedDocument.tables for table blocks. */
  tableIndex?: number;
  /** font facts used by later stages (size in points, bold). */
  font?: { size?: number; bold?: boolean; name?: string };
}

export interface TableCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  text: string;
  bbox?: BBox | null;
  header?: boolean;
}

export interface Table {
  page: number;
  bbox: BBox | null;
  rows: number;
  cols: number;
  cells: TableCell[];
  /** optional caption or sheet title */
  title?: string;
  confidence: number;
}

export interface Word {
  text: string;
  bbox: BBox;
  confidence: number;
}

export interface Page {
  /** 1-based. */
  number: number;
  width: number;
  height: number;
  /** whether the page text came from OCR. */
  ocr: boolean;
  /** mean confidence of the page's text (1 for a text layer). */
  confidence: number;
  /** optional name (sheet name, slide title). */
  name?: string;
  /** optional OCR words with their boxes, for citations and extraction evidence. */
  words?: Word[];
  /**
   * optional words of a text layer with their boxes, packed (packWords): one string a page instead of an
   * object a word keeps long documents small in memory, in storage and between processes.
   */
  wordBoxes?: string;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** Words with their boxes as one string: a line `x y width height text` a word (spaces, tabs and line breaks in a word's text are dropped). */
export function packWords(words: { text: string; bbox: BBox }[]): string {
  let out = '';
  for (const w of words) {
    const text = WHITESPACE.test(w.text) ? w.text.replace(/\s+/g, '') : w.text;
    if (!text) continue;
    out += `${out ? '\n' : ''}${t1(w.bbox.x)} ${t1(w.bbox.y)} ${t1(w.bbox.width)} ${t1(w.bbox.height)} ${text}`;
  }
  return out;
}

const WHITESPACE = /\s/;

/**
 * `String(r1(v))` without printing a double: the rounded tenths are an integer, written as its whole part and
 * its tenth (the same text for every |v| below 10^13; beyond, and for NaN or infinities, the double is printed).
 * A page's words are packed by the tens of thousands, and printing doubles was most of the work.
 */
function t1(v: number): string {
  const n = Math.round(v * 10);
  if (!(n > -1e14 && n < 1e14)) return String(r1(v));
  const a = n < 0 ? -n : n;
  const whole = Math.floor(a / 10);
  const tenth = a - whole * 10;
  const s = tenth ? `${whole}.${tenth}` : `${whole}`;
  return n < 0 ? `-${s}` : s;
}

/** The words of packWords() again (confidence 1: a text layer's words are what the file says). */
export function unpackWords(packed: string | undefined): Word[] {
  if (!packed) return [];
  const out: Word[] = [];
  for (const line of packed.split('\n')) {
    const m = /^(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (.+)$/.exec(line);
    if (m) out.push({ text: m[5]!, bbox: { x: Number(m[1]), y: Number(m[2]), width: Number(m[3]), height: Number(m[4]) }, confidence: 1 });
  }
  return out;
}

/** A problem with a part of a document that did not stop the whole document. */
export interface DocIssue {
  code: string;
  stage: string;
  page?: number;
  message: string;
}

export type DocStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface ParsedDocument {
  id: string;
  name: string;
  format: string;
  pages: Page[];
  blocks: Block[];
  tables: Table[];
  /** Full text in reading order; every block's span points into it. */
  text: string;
  metadata: { title?: string; author?: string; creationDate?: string; [k: string]: unknown };
  issues: DocIssue[];
}

/** Page furniture: a running head or footer block (page numbers included). */
export const isFurnitureBlock = (b: Pick<Block, 'type'>): boolean => b.type === 'header' || b.type === 'footer';

/**
 * Blocks out of the reading flow: page furniture (running heads, footers, page numbers) and the text inside
 * figures (labels of a diagram). The document keeps them; chunks, chat and generation read without them.
 */
export const isAsideBlock = (b: Pick<Block, 'type'>): boolean => isFurnitureBlock(b) || b.type === 'figure';

/**
 * The document's running text: its text less the spans of furniture and figure blocks (isAsideBlock), the
 * blank lines they leave behind closed up. The whole text when every block is such a block (nothing else to read).
 */
export function bodyText(doc: Pick<ParsedDocument, 'text' | 'blocks'>): string {
  const text = doc.text ?? '';
  const aside = (doc.blocks ?? []).filter((b) => isAsideBlock(b) && b.span && b.span.end > b.span.start).sort((a, b) => a.span.start - b.span.start);
  if (!aside.length || aside.length === doc.blocks.length) return text;
  let out = '';
  let at = 0;
  for (const b of aside) {
    if (b.span.start > at) out += text.slice(at, b.span.start);
    at = Math.max(at, b.span.end);
  }
  out += text.slice(at);
  return out.replace(/\n{3,}/g, '\n\n').trim();
}

export interface Chunk {
  id: string;
  index: number;
  page: number;
  content: string;
  bbox: BBox | null;
  span: Span;
  metadata: {
    type: 'text' | 'table';
    confidence: number;
    pages?: number[];
    heading?: string;
    /** a table chunk: the table's caption printed above it ("Table 3 - European ABCP issuance"), also the first line of its content */
    caption?: string;
    /** a chunk that spans pages: its box on each page, in page order (`page`/`bbox` are the first page's) */
    boxes?: { page: number; bbox: BBox }[];
    /**
     * `furniture`: the document's running heads and footers that carry facts (an address, a VAT ID, bank
     * details), each distinct one once, in chunks after the body's; absent on the body's chunks
     */
    role?: 'furniture';
  };
}
