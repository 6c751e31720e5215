/**
 * A positional index over a ParsedDocument: text lines and table cells as "units" with spans into
 * doc.text and boxes, OCR words aligned to text offsets, and span → (page, bbox, chunk) look-ups.
 */
import type { BBox, Block, BlockType, Chunk, ParsedDocument, Span, Table, Word } from '@quire/core';
import { unionBBox, unpackWords } from '@quire/core';
import { cellSpansOf, headerRowCount } from './cells.js';

export { headerRowCount, cellSpansOf } from './cells.js';
import { tokenize, type Token } from '@quire/fields';

export interface CellRef {
  table: number;
  row: number;
  col: number;
  header: boolean;
}

export interface Unit {
  id: number;
  kind: 'line' | 'cell';
  /** doc.text.slice(start, end) */
  text: string;
  start: number;
  end: number;
  page: number;
  /** box used for layout reasoning; may be an estimate (see bboxSource) */
  bbox: BBox | null;
  bboxSource: 'words' | 'block' | 'cell' | 'estimate' | null;
  block: number;
  blockType: BlockType;
  /** line number inside its block */
  line: number;
  confidence: number;
  cell?: CellRef;
}

/** Where to look: a set of units (a region) or the whole document. */
export interface Scope {
  units: Unit[];
  has(u: Unit): boolean;
}

export interface Segment {
  start: number;
  end: number;
  text: string;
  /** horizontal extent: page points when the unit has a box, else character columns */
  x0: number;
  x1: number;
  unit: Unit;
}

interface AlignedWord {
  start: number;
  end: number;
  bbox: BBox;
  confidence: number;
}

/** Runs of 2+ spaces, tabs or a spaced pipe separate columns inside a printed line. */
const GAP = /\s{2,}|\t+|\s\|\s/g;

export class LayoutIndex {
  readonly units: Unit[] = [];
  /** per page, OCR words aligned to doc.text offsets, sorted by start */
  private readonly words = new Map<number, AlignedWord[]>();
  /** pages read by OCR (their words make the lines); a text layer's words give evidence boxes only */
  private readonly ocrPages = new Set<number>();
  /** table index → cell spans (row, col → span) */
  readonly cellSpans = new Map<number, Map<string, Span>>();
  readonly tableBlocks = new Map<number, Block>();
  private byPage = new Map<number, Unit[]>();
  private byTable = new Map<number, Unit[]>();
  /** units sorted by start, for span look-ups */
  private sorted: Unit[] = [];

  constructor(
    readonly doc: ParsedDocument,
    readonly chunks: Chunk[] = [],
  ) {
    this.alignWords();
    doc.blocks.forEach((b, bi) => {
      if (b.type === 'table' && b.tableIndex !== undefined && doc.tables[b.tableIndex]) {
        this.tableBlocks.set(b.tableIndex, b);
        this.addCells(b, bi, doc.tables[b.tableIndex]!);
      } else this.addLines(b, bi);
    });
    for (const u of this.units) {
      (this.byPage.get(u.page) ?? this.byPage.set(u.page, []).get(u.page)!).push(u);
      if (u.cell) (this.byTable.get(u.cell.table) ?? this.byTable.set(u.cell.table, []).get(u.cell.table)!).push(u);
    }
    this.sorted = [...this.units].sort((a, b) => a.start - b.start || b.end - a.end);
  }

  private tokenCache = new Map<number, Token[]>();
  private segmentCache = new Map<number, Segment[]>();

  /** Label tokens of a unit's text (cached). */
  tokensOf(u: Unit): Token[] {
    let t = this.tokenCache.get(u.id);
    if (!t) this.tokenCache.set(u.id, (t = tokenize(u.text)));
    return t;
  }

  /** Every unit as a scope (the whole document). */
  get all(): Scope {
    return { units: this.units, has: () => true };
  }

  unitsOnPage(page: number): Unit[] {
    return this.byPage.get(page) ?? [];
  }

  cellsOf(table: number): Unit[] {
    return this.byTable.get(table) ?? [];
  }

  private alignWords(): void {
    // the blocks of each page, in document order (a text layer gives every page words: no scan of all blocks a page)
    const blocksOf = new Map<number, Block[]>();
    for (const b of this.doc.blocks) {
      const list = blocksOf.get(b.page);
      if (list) list.push(b);
      else blocksOf.set(b.page, [b]);
    }
    for (const page of this.doc.pages) {
      if (page.ocr) this.ocrPages.add(page.number);
      const pageWords = page.words?.length ? page.words : unpackWords(page.wordBoxes);
      if (!pageWords.length) continue;
      const aligned: AlignedWord[] = [];
      const used = new Set<number>();
      for (const b of blocksOf.get(page.number) ?? []) {
        // words inside the block's box, in their reading order; all words when the block has no box
        const inside: { w: Word; i: number }[] = [];
        pageWords.forEach((w, i) => {
          if (used.has(i)) return;
          if (b.bbox) {
            const cx = w.bbox.x + w.bbox.width / 2, cy = w.bbox.y + w.bbox.height / 2;
            if (!(cx >= b.bbox.x - 1 && cx <= b.bbox.x + b.bbox.width + 1 && cy >= b.bbox.y - 1 && cy <= b.bbox.y + b.bbox.height + 1)) return;
          }
          inside.push({ w, i });
        });
        let cursor = b.span.start;
        // a text layer's words come in the order they were drawn (a table column by column): put them in
        // reading order, line by line, as the block's text is; OCR words already are
        for (const { w, i } of page.ocr ? inside : inReadingOrder(inside)) {
          const t = w.text.trim();
          if (!t) continue;
          const at = this.doc.text.indexOf(t, cursor);
          if (at < 0 || at + t.length > b.span.end || at - cursor > 40 + t.length) continue;
          aligned.push({ start: at, end: at + t.length, bbox: w.bbox, confidence: w.confidence });
          used.add(i);
          cursor = at + t.length;
        }
      }
      aligned.sort((a, b) => a.start - b.start);
      this.words.set(page.number, aligned);
    }
  }

  private wordsIn(page: number, span: Span): AlignedWord[] {
    const list = this.words.get(page);
    if (!list?.length) return [];
    // first word ending after span.start (words are sorted by start and do not overlap)
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.end <= span.start) lo = mid + 1;
      else hi = mid;
    }
    const out: AlignedWord[] = [];
    for (let i = lo; i < list.length && list[i]!.start < span.end; i++) out.push(list[i]!);
    return out;
  }

  private addLines(b: Block, bi: number): void {
    const lines = b.text.split('\n');
    let off = b.span.start;
    const nonEmpty = lines.filter((l) => l.trim()).length;
    let visual = 0;
    lines.forEach((raw, li) => {
      const start = off;
      off += raw.length + 1;
      const lead = raw.length - raw.trimStart().length;
      const text = raw.trim();
      if (!text) return;
      const s = start + lead;
      const span = { start: s, end: s + text.length };
      // lines rebuilt from OCR words; a text layer's lines are its block's lines already
      const ws = this.ocrPages.has(b.page) ? this.wordsIn(b.page, span) : [];
      if (ws.length) {
        // OCR readers join the visual lines of a paragraph with spaces: rebuild them from the word boxes
        for (const vl of visualLines(ws)) {
          const first = vl[0]!, last = vl[vl.length - 1]!;
          const conf = vl.reduce((a, w) => a + w.confidence, 0) / vl.length;
          this.units.push({
            id: this.units.length, kind: 'line', text: this.doc.text.slice(first.start, last.end), start: first.start, end: last.end, page: b.page,
            bbox: unionBBox(vl.map((w) => w.bbox)), bboxSource: 'words', block: bi, blockType: b.type, line: visual++, confidence: normConf(conf),
          });
        }
        return;
      }
      let bbox: BBox | null = null;
      let bboxSource: Unit['bboxSource'] = null;
      if (b.bbox && nonEmpty === 1) {
        bbox = b.bbox;
        bboxSource = 'block';
      } else if (b.bbox) {
        // evenly spaced line bands inside the block: good enough to relate neighbours, never used as evidence
        const h = b.bbox.height / lines.length;
        bbox = { x: b.bbox.x, y: b.bbox.y + h * li, width: b.bbox.width, height: h };
        bboxSource = 'estimate';
      }
      this.units.push({ id: this.units.length, kind: 'line', text, start: span.start, end: span.end, page: b.page, bbox, bboxSource, block: bi, blockType: b.type, line: li, confidence: normConf(b.confidence) });
    });
  }

  private addCells(b: Block, bi: number, table: Table): void {
    const spans = cellSpansOf(this.doc.text, b, table);
    this.cellSpans.set(b.tableIndex!, spans);
    const headerRows = headerRowCount(table);
    for (const c of table.cells) {
      const span = spans.get(`${c.row},${c.col}`);
      if (!span || span.end <= span.start) continue;
      this.units.push({
        id: this.units.length,
        kind: 'cell',
        text: this.doc.text.slice(span.start, span.end),
        start: span.start,
        end: span.end,
        page: table.page,
        bbox: c.bbox ?? null,
        bboxSource: c.bbox ? 'cell' : null,
        block: bi,
        blockType: 'table',
        line: c.row,
        confidence: normConf(b.confidence),
        cell: { table: b.tableIndex!, row: c.row, col: c.col, header: !!c.header || c.row < headerRows },
      });
    }
  }

  /** Column segments of a unit (split at runs of spaces, or at wide gaps between OCR words), with horizontal extents. */
  segments(u: Unit): Segment[] {
    let cached = this.segmentCache.get(u.id);
    if (!cached) this.segmentCache.set(u.id, (cached = this.computeSegments(u)));
    return cached;
  }

  private computeSegments(u: Unit): Segment[] {
    const out: Segment[] = [];
    const ws = u.bboxSource === 'words' ? this.wordsIn(u.page, u) : [];
    if (ws.length >= 2) {
      const h = median(ws.map((w) => w.bbox.height));
      let group: AlignedWord[] = [ws[0]!];
      const flush = () => {
        const a = group[0]!, z = group[group.length - 1]!;
        out.push({ start: a.start, end: z.end, text: this.doc.text.slice(a.start, z.end), x0: a.bbox.x, x1: z.bbox.x + z.bbox.width, unit: u });
      };
      for (let i = 1; i < ws.length; i++) {
        const prev = ws[i - 1]!, w = ws[i]!;
        const gap = w.bbox.x - (prev.bbox.x + prev.bbox.width);
        // a column gap is much wider than a word space (about a third of the text height)
        if (gap > Math.max(1.5 * h, 8) || /\s{2,}/.test(this.doc.text.slice(prev.end, w.start))) {
          flush();
          group = [w];
        } else group.push(w);
      }
      flush();
      return out;
    }
    let last = 0;
    const push = (a: number, b: number) => {
      const raw = u.text.slice(a, b);
      const lead = raw.length - raw.trimStart().length;
      const t = raw.trim();
      if (!t) return;
      const s = u.start + a + lead;
      out.push({ start: s, end: s + t.length, text: t, ...this.xRange(u, s, s + t.length), unit: u });
    };
    for (const m of u.text.matchAll(GAP)) {
      push(last, m.index!);
      last = m.index! + m[0].length;
    }
    push(last, u.text.length);
    return out;
  }

  /** Horizontal extent of [start, end) inside unit u: from words, else proportional to the unit box, else columns. */
  xRange(u: Unit, start: number, end: number): { x0: number; x1: number } {
    const ws = this.wordsIn(u.page, { start, end });
    if (ws.length) {
      const bb = unionBBox(ws.map((w) => w.bbox))!;
      return { x0: bb.x, x1: bb.x + bb.width };
    }
    if (u.bbox) {
      const len = Math.max(1, u.end - u.start);
      return { x0: u.bbox.x + (u.bbox.width * (start - u.start)) / len, x1: u.bbox.x + (u.bbox.width * (end - u.start)) / len };
    }
    const lineStart = this.doc.text.lastIndexOf('\n', start - 1) + 1;
    return { x0: start - lineStart, x1: end - lineStart };
  }

  /**
   * Evidence box of a span: the union of the OCR words it covers; else the table cell or single-line
   * block holding it; else its block's box. Never an estimate.
   */
  boxForSpan(span: Span): { page: number; bbox: BBox | null } {
    const u = this.unitAt(span);
    const block = u ? this.doc.blocks[u.block] : this.doc.blocks.find((b) => b.span.start <= span.start && span.end <= b.span.end);
    const page = u?.page ?? block?.page ?? 1;
    const ws = this.wordsIn(page, span);
    if (ws.length) return { page, bbox: unionBBox(ws.map((w) => w.bbox)) };
    if (u?.kind === 'cell' && u.bbox) return { page, bbox: u.bbox };
    if (u && u.bboxSource === 'block') return { page, bbox: u.bbox };
    if (u && u.bboxSource === 'words') return { page, bbox: u.bbox };
    return { page, bbox: block?.bbox ?? null };
  }

  /** The smallest unit containing the span (or overlapping its start). */
  unitAt(span: Span): Unit | undefined {
    // last unit starting at or before the span; units barely overlap, so a short walk back suffices
    const list = this.sorted;
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.start <= span.start) lo = mid + 1;
      else hi = mid;
    }
    let best: Unit | undefined, touching: Unit | undefined;
    for (let i = lo - 1; i >= 0 && i >= lo - 8; i--) {
      const u = list[i]!;
      if (u.start <= span.start && span.end <= u.end && (!best || u.end - u.start < best.end - best.start)) best = u;
      if (!touching && u.start <= span.start && span.start < u.end) touching = u;
    }
    return best ?? touching;
  }

  /** Id of the chunk whose span contains the span (else the one overlapping it most). */
  chunkFor(span: Span): string | undefined {
    let best: { id: string; overlap: number } | undefined;
    for (const c of this.chunks) {
      if (c.span.start <= span.start && span.end <= c.span.end) return c.id;
      const overlap = Math.min(c.span.end, span.end) - Math.max(c.span.start, span.start);
      if (overlap > 0 && (!best || overlap > best.overlap)) best = { id: c.id, overlap };
    }
    return best?.id;
  }

  /** Units in reading order after u (same page first), for label-then-value-on-the-next-line layouts. */
  nextUnits(u: Unit, n = 3): Unit[] {
    const out: Unit[] = [];
    for (let i = u.id + 1; i < this.units.length && out.length < n; i++) {
      const v = this.units[i]!;
      if (v.kind !== u.kind || v.page !== u.page) break;
      out.push(v);
    }
    return out;
  }

  /** Mean OCR confidence of the words under a span (1 for text layers). */
  confidenceOf(span: Span, fallback: number): number {
    const u = this.unitAt(span);
    const ws = this.wordsIn(u?.page ?? 1, span);
    return ws.length ? normConf(ws.reduce((a, w) => a + w.confidence, 0) / ws.length) : fallback;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Groups words (in text order) into visual lines: a new line starts when a word leaves the current baseline band. */
function visualLines(ws: AlignedWord[]): AlignedWord[][] {
  const out: AlignedWord[][] = [];
  let cur: AlignedWord[] = [];
  let top = 0, bottom = 0;
  for (const w of ws) {
    const cy = w.bbox.y + w.bbox.height / 2;
    const prev = cur[cur.length - 1];
    const sameBand = prev && cy >= top - 0.2 * (bottom - top) && cy <= bottom + 0.2 * (bottom - top) && w.bbox.x >= prev.bbox.x - 2;
    if (prev && !sameBand) {
      out.push(cur);
      cur = [];
    }
    if (!cur.length) {
      top = w.bbox.y;
      bottom = w.bbox.y + w.bbox.height;
    }
    cur.push(w);
  }
  if (cur.length) out.push(cur);
  return out;
}

/** OCR engines report 0..100 or 0..1; the model says 0..1. */
const normConf = (c: number) => (c > 1 ? c / 100 : c < 0 ? 0 : c);

/** Words line by line from the top (a word joins the line whose middle it overlaps), left to right in a line. */
function inReadingOrder<T extends { w: { bbox: BBox } }>(words: T[]): T[] {
  const sorted = [...words].sort((a, b) => a.w.bbox.y + a.w.bbox.height / 2 - (b.w.bbox.y + b.w.bbox.height / 2));
  const lines: { mid: number; half: number; items: T[] }[] = [];
  for (const x of sorted) {
    const mid = x.w.bbox.y + x.w.bbox.height / 2;
    const line = lines[lines.length - 1];
    if (line && Math.abs(mid - line.mid) <= Math.min(line.half, x.w.bbox.height / 2)) line.items.push(x);
    else lines.push({ mid, half: x.w.bbox.height / 2, items: [x] });
  }
  return lines.flatMap((l) => l.items.sort((a, b) => a.w.bbox.x - b.w.bbox.x));
}
