import { errors, isAsideBlock, renderTable, unionBBox } from '@quire/core';
import { round } from '@quire/text';
import type { BBox, Block, Chunk, ChunkOptions, ParsedDocument, Table, TableCell } from '@quire/core';
import { FORM_FIELDS_HEADING, formTables } from './forms.js';
import { furniturePieces } from './furniture.js';
import { sentenceStarts, splitRange, splitWords } from './sentences.js';

export const DEFAULT_CHUNK_OPTIONS: Readonly<ChunkOptions> = Object.freeze({
  strategy: 'semantic',
  max_chunk_size: 1000,
  overlap: 100,
  table_output_format: 'markdown',
});

export const MIN_CHUNK_SIZE = 100;
export const MAX_CHUNK_SIZE = 100_000;
const STRATEGIES = ['semantic', 'fixed', 'page'] as const;
const TABLE_FORMATS = ['markdown', 'html', 'json'] as const;

/**
 * Fills defaults and checks the options; throws VALIDATION_ERROR naming the option
 * (details: {option, value}). An omitted overlap defaults to min(100, max_chunk_size / 2).
 */
export function validateChunkOptions(input: Partial<ChunkOptions> | null | undefined): ChunkOptions {
  const o = (input ?? {}) as Record<string, unknown>;
  const fail = (option: string, rule: string) =>
    errors.validation(`chunking.${option} ${rule}`, { option, value: o[option] === undefined ? null : o[option] });
  const strategy = o.strategy ?? DEFAULT_CHUNK_OPTIONS.strategy;
  if (!STRATEGIES.includes(strategy as never)) throw fail('strategy', `must be one of ${STRATEGIES.join(', ')}`);
  const max = o.max_chunk_size ?? DEFAULT_CHUNK_OPTIONS.max_chunk_size;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < MIN_CHUNK_SIZE || max > MAX_CHUNK_SIZE) {
    throw fail('max_chunk_size', `must be an integer from ${MIN_CHUNK_SIZE} to ${MAX_CHUNK_SIZE} (characters)`);
  }
  const maxOverlap = Math.floor(max / 2);
  const overlap = o.overlap ?? Math.min(DEFAULT_CHUNK_OPTIONS.overlap, maxOverlap);
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > maxOverlap) {
    throw fail('overlap', `must be an integer from 0 to half of max_chunk_size (${maxOverlap})`);
  }
  const fmt = o.table_output_format ?? DEFAULT_CHUNK_OPTIONS.table_output_format;
  if (!TABLE_FORMATS.includes(fmt as never)) throw fail('table_output_format', `must be one of ${TABLE_FORMATS.join(', ')}`);
  return { strategy: strategy as ChunkOptions['strategy'], max_chunk_size: max, overlap, table_output_format: fmt as ChunkOptions['table_output_format'] };
}

/** A chunk before ids and derived facts: a text span, or a rendered table (piece). */
interface Draft {
  start: number;
  end: number;
  heading: string;
  table?: { content: string; page: number; bbox: BBox | null; confidence: number; caption?: string };
  /** the document's furniture (furniture.ts): its content (the lines kept, less page labels) and its blocks */
  furniture?: { content: string; blocks: Block[] };
}

const HEADING_SEP = ' > ';
/**
 * page furniture (running heads, footers) and the text inside figures: out of the reading flow, left out of the
 * body's chunks (the furniture that carries facts comes once after them: furniture.ts)
 */
const isChrome = (b: Block) => isAsideBlock(b);

/** Splits a parsed document into chunks. Pure and deterministic; options are validated first. */
export function chunkDocument(doc: ParsedDocument, options?: Partial<ChunkOptions>): Chunk[] {
  const opts = validateChunkOptions(options);
  const text = doc.text ?? '';
  if (!text.trim()) return [];
  const blocks = usableBlocks(doc);
  const ctx = new DocIndex(doc, blocks);
  let drafts: Draft[];
  if (opts.strategy === 'fixed') drafts = fixedDrafts(text, blocks, opts, ctx);
  else if (opts.strategy === 'page') drafts = pageDrafts(blocks, ctx);
  else drafts = [...semanticDrafts(doc, blocks, opts, ctx), ...formDrafts(doc, blocks, opts)];
  // the furniture that carries facts, once, after the body's chunks: the body's reading order is unchanged
  drafts.push(...furnitureDrafts(text, blocks, opts));
  return drafts.map((d, index) => ctx.finish(d, index));
}

/** Blocks sorted by span; a document without blocks is treated as one paragraph on page 1. */
function usableBlocks(doc: ParsedDocument): Block[] {
  const text = doc.text;
  const valid = (doc.blocks ?? []).filter((b) => b.span && b.span.end > b.span.start && b.span.start >= 0 && b.span.end <= text.length);
  if (!valid.length) {
    let s = 0, e = text.length;
    while (s < e && /\s/.test(text[s]!)) s++;
    while (e > s && /\s/.test(text[e - 1]!)) e--;
    const page = doc.pages?.[0];
    return [{ type: 'paragraph', text: text.slice(s, e), page: page?.number ?? 1, bbox: null, span: { start: s, end: e }, confidence: page?.confidence ?? 1 }];
  }
  return [...valid].sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
}

// ---------------------------------------------------------------- semantic

function semanticDrafts(doc: ParsedDocument, blocks: Block[], opts: ChunkOptions, ctx: DocIndex): Draft[] {
  const text = doc.text;
  const max = opts.max_chunk_size;
  const drafts: Draft[] = [];
  const stack: { level: number; text: string }[] = [];
  const path = () => stack.map((h) => h.text).join(HEADING_SEP);
  const onlyChrome = blocks.every(isChrome);
  /** the open chunk; `body`: it holds more than headings */
  const st: { cur: (Draft & { body: boolean }) | null } = { cur: null };
  /**
   * the last block added whole to the open chunk, and where that chunk ended before it (null: the block opened the chunk, with
   * nothing new before it): a table's caption printed above it moves into the table's chunks
   */
  let last: { block: Block; before: number | null } | null = null;

  const flush = () => {
    if (st.cur) drafts.push({ start: st.cur.start, end: st.cur.end, heading: st.cur.heading });
    st.cur = null;
  };
  /** Opens a new chunk after a size cut: it starts with the previous chunk's last sentences (overlap). */
  const cut = (s: number, e: number, body: boolean) => {
    const prev = st.cur;
    flush();
    st.cur = { start: prev ? overlapStart(text, ctx, prev, s, e, opts) : s, end: e, heading: path(), body };
  };
  /** Adds a unit (a block or a piece of one) to the open chunk, or cuts when it does not fit. */
  const add = (s: number, e: number, body: boolean) => {
    const cur = st.cur;
    if (!cur) st.cur = { start: s, end: e, heading: path(), body };
    else if (e - cur.start <= max) {
      cur.end = e;
      if (!cur.body) cur.heading = path();
      cur.body ||= body;
    } else cut(s, e, body);
  };

  for (const block of blocks) {
    const { start, end } = block.span;
    const previous = last;
    last = null;
    if (isChrome(block) && !onlyChrome) {
      flush(); // running headers/footers are left out; a chunk never spans one
      continue;
    }
    if (block.type === 'heading') {
      if (st.cur?.body) flush(); // a section starts a chunk
      const level = block.level ?? 1;
      while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text: oneLine(block.text) });
      if (end - start <= max) add(start, end, false);
      else for (const [a, b] of splitRange(text, start, end, max)) add(a, b, false);
      continue;
    }
    const table = block.type === 'table' && block.tableIndex !== undefined ? doc.tables?.[block.tableIndex] : undefined;
    if (table) {
      // the caption printed just above the table ("Table 3 - European ABCP issuance") leaves the text's chunk for the table's
      const page = table.page ?? block.page;
      const caption = previous && st.cur && st.cur.end === previous.block.span.end && previous.block.page === page && isTableCaption(previous.block) ? previous : null;
      if (caption && st.cur) {
        if (caption.before === null) st.cur = null;
        else st.cur.end = caption.before;
      }
      flush();
      const title = caption ? oneLine(caption.block.text) : null;
      splitTable(table, opts.table_output_format, max, title ?? undefined).forEach((piece, i) => {
        const bbox = piece.bbox ?? table.bbox ?? block.bbox;
        drafts.push({
          start: caption ? caption.block.span.start : start, end, heading: path(),
          table: {
            content: piece.content, page,
            // (the first piece's box takes the caption in: a citation of it shows the caption with the rows)
            bbox: caption && i === 0 ? (unionBBox([bbox, caption.block.bbox]) ?? bbox) : bbox,
            confidence: table.confidence ?? block.confidence,
            ...(title ? { caption: title } : {}),
          },
        });
      });
      continue;
    }
    const cur = st.cur;
    if (end - start <= max && (!cur || cur.body || end - cur.start <= max)) {
      // a whole paragraph: joins the open chunk if it fits, else starts the next one
      const before = st.cur ? st.cur.end : null;
      const count = drafts.length;
      add(start, end, true);
      // (remembered when it ends the open chunk whole: it joined that chunk, or opened one of its own, after the previous
      // chunk's last sentences repeated, which that chunk keeps)
      if (st.cur?.start === start || drafts.length > count) last = { block, before: null };
      else if (before !== null) last = { block, before };
      continue;
    }
    // an over-long paragraph (or one that does not fit after its heading): sentences, packed
    const pieces = splitRange(text, start, end, max);
    if (cur?.body && pieces.length) {
      const [a, b] = pieces.shift()!;
      cut(a, b, true); // starts its own chunk rather than filling the tail of the open one
    }
    for (const [a, b] of pieces) add(a, b, true);
  }
  flush();
  return drafts;
}

/**
 * The filled-in form fields of each page as a `Field | Value` table (forms.ts), after the document's own
 * chunks; its span is that of the page's blocks (the values are drawn on the page, among them).
 */
function formDrafts(doc: ParsedDocument, blocks: Block[], opts: ChunkOptions): Draft[] {
  const tables = formTables(doc);
  if (!tables.length) return [];
  const spans = pageSpans(blocks);
  const whole = { start: blocks[0]!.span.start, end: blocks.reduce((e, b) => Math.max(e, b.span.end), 0) };
  const drafts: Draft[] = [];
  for (const table of tables) {
    const span = spans.get(table.page) ?? whole;
    for (const piece of splitTable(table, opts.table_output_format, opts.max_chunk_size)) {
      drafts.push({ ...span, heading: FORM_FIELDS_HEADING, table: { content: piece.content, page: table.page, bbox: piece.bbox, confidence: table.confidence } });
    }
  }
  return drafts;
}

/**
 * Where a chunk that continues a size-cut section starts: the earliest sentence start inside the last
 * `overlap` characters of the previous chunk, so the new chunk repeats whole sentences, still fits max.
 */
function overlapStart(text: string, ctx: DocIndex, prev: Draft, s: number, e: number, opts: ChunkOptions): number {
  if (opts.overlap <= 0 || prev.table) return s;
  const from = Math.max(prev.start + 1, prev.end - opts.overlap);
  const candidates: number[] = [];
  for (const b of ctx.blocksIn(from - 1, prev.end)) {
    const bs = b.span.start;
    if (bs >= from && bs < prev.end) candidates.push(bs);
    for (const off of sentenceStarts(text.slice(bs, b.span.end))) {
      const p = bs + off;
      if (p >= from && p < prev.end) candidates.push(p);
    }
  }
  candidates.sort((a, b) => a - b);
  for (const p of candidates) if (e - p <= opts.max_chunk_size && !/\s/.test(text[p]!)) return p;
  return s;
}

// ---------------------------------------------------------------- tables

interface TablePiece {
  content: string;
  bbox: BBox | null;
}

/** Leading rows whose cells are all header cells; at least 1 (markdown and JSON read the first row as the header). */
function headerRows(table: Table): number {
  let n = 0;
  for (let r = 0; r < table.rows; r++) {
    const cells = table.cells.filter((c) => c.row === r);
    if (cells.length && cells.every((c) => c.header)) n++;
    else break;
  }
  return Math.max(1, Math.min(n, table.rows));
}

/** Cells grouped by row, and the cells spanning several rows (few), for slicing big tables quickly. */
interface RowIndex {
  byRow: TableCell[][];
  tall: TableCell[];
}
function rowIndex(table: Table): RowIndex {
  const byRow: TableCell[][] = Array.from({ length: table.rows }, () => []);
  const tall: TableCell[] = [];
  for (const c of table.cells) {
    byRow[c.row]?.push(c);
    if (c.rowSpan > 1) tall.push(c);
  }
  return { byRow, tall };
}

/** The header rows plus body rows [a, b), re-indexed; merged cells reaching into the slice are repeated in it. */
function subTable(table: Table, idx: RowIndex, heads: number, a: number, b: number): Table {
  const cells: TableCell[] = [];
  for (let r = 0; r < heads; r++) cells.push(...idx.byRow[r]!);
  for (let r = a; r < b; r++) for (const c of idx.byRow[r]!) cells.push({ ...c, row: heads + (c.row - a), rowSpan: Math.min(c.rowSpan, b - c.row) });
  for (const c of idx.tall) if (c.row >= heads && c.row < a && c.row + c.rowSpan > a) cells.push({ ...c, row: heads, rowSpan: Math.min(c.row + c.rowSpan, b) - a });
  return { ...table, rows: heads + (b - a), cells };
}

/** A table as one piece when it fits, else pieces of whole rows, each repeating the header rows (and the caption, if any: within `max` with it). */
export function splitTable(table: Table, format: ChunkOptions['table_output_format'], max: number, caption?: string): TablePiece[] {
  const render = (t: Table) => renderTable(t, format, caption);
  const whole = render(table);
  const heads = headerRows(table);
  if (whole.length <= max || table.rows <= heads + 1) return [{ content: whole, bbox: table.bbox ?? null }];
  const idx = rowIndex(table);
  const headOnly = render(subTable(table, idx, heads, heads, heads)).length;
  const rowLen: number[] = [];
  for (let r = heads; r < table.rows; r++) rowLen.push(render(subTable(table, idx, heads, r, r + 1)).length - headOnly);
  const pieces: TablePiece[] = [];
  let a = heads;
  while (a < table.rows) {
    let b = a + 1;
    let size = headOnly + rowLen[a - heads]!;
    while (b < table.rows && size + rowLen[b - heads]! <= max) size += rowLen[b++ - heads]!;
    let content = render(subTable(table, idx, heads, a, b));
    while (content.length > max && b > a + 1) content = render(subTable(table, idx, heads, a, --b));
    const rowBoxes: (BBox | null | undefined)[] = [];
    for (let r = a; r < b; r++) for (const c of idx.byRow[r]!) rowBoxes.push(c.bbox);
    pieces.push({ content, bbox: unionBBox(rowBoxes) ?? table.bbox ?? null });
    a = b;
  }
  return pieces;
}

// ---------------------------------------------------------------- fixed / page

/**
 * The stretches of the text between running headers and footers (the whole text when there are none, or
 * nothing else): fixed windows never take page furniture in.
 */
function bodyRanges(text: string, blocks: Block[]): [number, number][] {
  const chrome = blocks.filter(isChrome);
  if (!chrome.length || chrome.length === blocks.length) return [[0, text.length]];
  const out: [number, number][] = [];
  let at = 0;
  for (const c of chrome) {
    if (c.span.start > at) out.push([at, c.span.start]);
    at = Math.max(at, c.span.end);
  }
  if (at < text.length) out.push([at, text.length]);
  return out;
}

function fixedDrafts(text: string, blocks: Block[], opts: ChunkOptions, ctx: DocIndex): Draft[] {
  return bodyRanges(text, blocks).flatMap(([from, to]) => fixedWindows(text, from, to, opts, ctx));
}

/** Windows of up to max characters over text[from, to), ending at word boundaries, overlapping by about `overlap`. */
function fixedWindows(text: string, from: number, to: number, opts: ChunkOptions, ctx: DocIndex): Draft[] {
  const max = opts.max_chunk_size;
  const isWs = (i: number) => /\s/.test(text[i] ?? '');
  const skipWs = (i: number) => {
    while (i < to && isWs(i)) i++;
    return i;
  };
  /** the window starting at `pos`: up to max characters, ending at a word boundary, trimmed */
  const windowAt = (pos: number) => splitWords(text, pos, Math.min(to, pos + max + 1), max)[0]!;
  const drafts: Draft[] = [];
  let pos = skipWs(from);
  while (pos < to) {
    const [a, b] = windowAt(pos);
    drafts.push({ start: a, end: b, heading: ctx.headingAt(a) });
    const rest = skipWs(b);
    if (rest >= to) break;
    let next = rest;
    if (opts.overlap > 0) {
      let p = Math.max(b - opts.overlap, a + 1);
      while (p < b && !(isWs(p - 1) && !isWs(p))) p++; // the first word start inside the overlap
      if (p < b && windowAt(p)[1] > b) next = p; // only when the next window still moves forward
    }
    pos = next;
  }
  return drafts;
}

/** The distinct running heads and footers that carry facts (furniture.ts), as chunks marked `role: furniture`. */
function furnitureDrafts(text: string, blocks: Block[], opts: ChunkOptions): Draft[] {
  // no heading: the page's edge belongs to no section of the body
  return furniturePieces(text, blocks, opts.max_chunk_size).map((p) => ({ start: p.start, end: p.end, heading: '', furniture: { content: p.content, blocks: p.blocks } }));
}

/** The text span of each page's blocks, from the first block's start to the last one's end. */
function pageSpans(blocks: Block[]): Map<number, { start: number; end: number }> {
  const byPage = new Map<number, { start: number; end: number }>();
  for (const b of blocks) {
    const r = byPage.get(b.page);
    if (!r) byPage.set(b.page, { start: b.span.start, end: b.span.end });
    else {
      r.start = Math.min(r.start, b.span.start);
      r.end = Math.max(r.end, b.span.end);
    }
  }
  return byPage;
}

/** One chunk per page: the span of its blocks, running headers and footers left out (when it has others). */
function pageDrafts(blocks: Block[], ctx: DocIndex): Draft[] {
  const withBody = new Set(blocks.filter((b) => !isChrome(b)).map((b) => b.page));
  return [...pageSpans(blocks.filter((b) => !isChrome(b) || !withBody.has(b.page))).entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([, r]) => ({ start: r.start, end: r.end, heading: ctx.headingAt(r.start) }));
}

// ---------------------------------------------------------------- derived facts

/** Lookups over the blocks: which blocks a span covers, the heading path at an offset. */
class DocIndex {
  private readonly starts: number[];
  private readonly maxEndUpTo: number[];
  private readonly headings: { at: number; path: string }[] = [];

  constructor(private readonly doc: ParsedDocument, private readonly blocks: Block[]) {
    this.starts = blocks.map((b) => b.span.start);
    let m = -1;
    this.maxEndUpTo = blocks.map((b) => (m = Math.max(m, b.span.end)));
    const stack: { level: number; text: string }[] = [];
    for (const b of blocks) {
      if (b.type !== 'heading') continue;
      const level = b.level ?? 1;
      while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text: oneLine(b.text) });
      this.headings.push({ at: b.span.start, path: stack.map((h) => h.text).join(HEADING_SEP) });
    }
  }

  /** Blocks whose span intersects [s, e), in order. */
  blocksIn(s: number, e: number): Block[] {
    // first block that may end after s: binary search on the running max of ends
    let lo = 0, hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.maxEndUpTo[mid]! <= s) lo = mid + 1;
      else hi = mid;
    }
    const out: Block[] = [];
    for (let i = lo; i < this.blocks.length && this.starts[i]! < e; i++) {
      const b = this.blocks[i]!;
      if (b.span.end > s) out.push(b);
    }
    return out;
  }

  headingAt(pos: number): string {
    let lo = 0, hi = this.headings.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.headings[mid]!.at <= pos) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? this.headings[lo - 1]!.path : '';
  }

  finish(d: Draft, index: number): Chunk {
    const id = `${this.doc.id}:${index}`;
    const heading = d.heading ? { heading: d.heading } : {};
    if (d.table) {
      return {
        id, index, page: d.table.page, content: d.table.content, bbox: d.table.bbox, span: { start: d.start, end: d.end },
        metadata: { type: 'table', confidence: confidence01(d.table.confidence), pages: [d.table.page], ...heading, ...(d.table.caption ? { caption: d.table.caption } : {}) },
      };
    }
    const covered = d.furniture?.blocks ?? this.blocksIn(d.start, d.end);
    const pages = [...new Set(covered.map((b) => b.page))].sort((a, b) => a - b);
    const page = covered[0]?.page ?? this.doc.pages?.[0]?.number ?? 1;
    let weight = 0, sum = 0;
    for (const b of covered) {
      const w = Math.max(1, Math.min(b.span.end, d.end) - Math.max(b.span.start, d.start));
      weight += w;
      sum += w * (Number.isFinite(b.confidence) ? b.confidence : 1);
    }
    const bbox = unionBBox(covered.filter((b) => b.page === page).map((b) => b.bbox));
    // a chunk across pages: a box on each page, so that a citation of it can show every part
    const boxes: { page: number; bbox: BBox }[] = [];
    if (pages.length > 1) {
      for (const p of pages) {
        const box = unionBBox(covered.filter((b) => b.page === p).map((b) => b.bbox));
        if (box) boxes.push({ page: p, bbox: box });
      }
    }
    return {
      id, index, page, content: d.furniture?.content ?? this.doc.text.slice(d.start, d.end), bbox,
      span: { start: d.start, end: d.end },
      metadata: {
        type: 'text', confidence: weight ? confidence01(sum / weight) : 1, pages: pages.length ? pages : [page], ...heading, ...(boxes.length ? { boxes } : {}),
        ...(d.furniture ? { role: 'furniture' as const } : {}),
      },
    };
  }
}

/** the words of a caption above a table: at most this many */
const CAPTION_WORDS = 40;
/**
 * A table's numbered caption, as reports and papers print it above the table: "Table 3 - European ABCP issuance", "Table 3.3:
 * Frequency of …", "TABLE 1. Selected characteristics …", "Exhibit 4 Schools …" (English, German, French, Spanish, Dutch,
 * Italian, Scandinavian). A sentence that names the table ("Table 8.13 illustrates …") goes on in lower case: no caption.
 */
const CAPTION_LABEL = /^(?:table|tabelle|tableau|tabla|tabel|tabella|tabell|tab\.|exhibit)\s*/i;
const FIGURE_LABEL = /^(?:fig(?:ure)?s?\b|abb(?:ildung)?\b|image|photo|chart|graph|diagram|plate)/i;
const CAPTION_NUMBER = /^(?:[A-Z]\s*)?(?:\d+|[IVXLC]+)(?:[.\-–]\d+)*[a-z]?(?:\s*[.:\-–—|](?!\d)|\s+[(A-Z\d])/u;

/** Whether a block is a table's caption: a caption block, or a short paragraph that opens with a table's number. */
function isTableCaption(b: Block): boolean {
  const text = oneLine(b.text);
  if (!text || text.split(' ').length > CAPTION_WORDS) return false;
  const label = text.match(CAPTION_LABEL);
  // (a caption block may be a figure's, printed above the table: it stays where it is)
  if (b.type === 'caption') return !FIGURE_LABEL.test(text);
  return ((b.type === 'paragraph' || b.type === 'key_value') && !!label && CAPTION_NUMBER.test(text.slice(label[0].length)));
}

/** A confidence kept in 0..1, to 4 decimals. */
const confidence01 = (x: number) => round(Math.min(1, Math.max(0, x)), 4);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
