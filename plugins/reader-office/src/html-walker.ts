/**
 * Walks an HTML DOM (htmlparser2/domhandler) into Quire blocks: headings with levels, paragraphs, list items,
 * key/value pairs (definition lists and `Label: value` paragraphs), captions and tables with merged cells.
 * Used for HTML files and for the HTML that mammoth makes from docx.
 */
import { parseDocument } from 'htmlparser2';
import type { AnyNode, Element } from 'domhandler';
import type { BlockType, TableCell } from '@quire/core';
import { isCaption, keyValue } from './util.js';

export interface WalkBlock {
  type: BlockType;
  text: string;
  level?: number;
  key?: string;
  value?: string;
}

export interface WalkTable {
  rows: number;
  cols: number;
  cells: TableCell[];
  title?: string;
}

/** Receives the walk's output in reading order. */
export interface BlockSink {
  block(block: WalkBlock, separator?: string): void;
  table(table: WalkTable): void;
  pageBreak(): void;
}

export interface WalkOptions {
  /** class of <hr> elements that stand for page breaks (mammoth's style map emits them) */
  pageBreakClass?: string;
  /** class of <p> elements that are captions */
  captionClass?: string;
  /** called for <title> */
  onTitle?: (title: string) => void;
  /** check for cancellation every so often */
  checkAbort?: () => void;
}

const SKIP = new Set(['script', 'style', 'noscript', 'nav', 'template', 'svg', 'head', 'iframe', 'object', 'embed', 'canvas', 'button', 'select', 'option', 'datalist', 'map', 'audio', 'video', 'math', 'textarea']);
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'html', 'li', 'main', 'menu', 'ol', 'p', 'pre', 'section', 'summary', 'table',
  'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'caption', 'legend', 'listing', 'xmp', 'plaintext', 'frameset', 'noframes',
]);
const HEADING = /^h([1-6])$/;
const LABEL_CLASS = /(^|[\s_-])(label|key|field-?name|term)(\s|[_-]|$)/i;
const VALUE_CLASS = /(^|[\s_-])(value|field-?value|data)(\s|[_-]|$)/i;
const CHECKED = '☒';
const UNCHECKED = '☐';

const isElement = (n: AnyNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style';
const attr = (el: Element, name: string) => el.attribs?.[name];
const hasClass = (el: Element, cls: string | undefined) => !!cls && (attr(el, 'class') ?? '').split(/\s+/).includes(cls);

function hidden(el: Element): boolean {
  if (attr(el, 'hidden') !== undefined) return true;
  if (attr(el, 'aria-hidden') === 'true') return true;
  const style = attr(el, 'style');
  return !!style && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style);
}

function skipped(el: Element): boolean {
  return SKIP.has(el.name.toLowerCase()) || hidden(el);
}

/** Tidies collected inline text: trims each line, drops empty lines. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/[ \t\f\v\u00a0\u200b]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

const isNumeric = (s: string) => /^[-+(]?[$€£¥]?\s?[\d.,]+%?\)?$/.test(s.trim());

export class HtmlWalker {
  private inline = '';
  private lastType: BlockType | null = null;
  private steps = 0;

  constructor(
    private readonly sink: BlockSink,
    private readonly opts: WalkOptions = {},
  ) {}

  walkHtml(html: string): void {
    const doc = parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
    if (this.opts.onTitle) {
      const title = findFirst(doc.children, (el) => el.name === 'title');
      if (title) {
        const t = tidy(plain(title));
        if (t) this.opts.onTitle(t);
      }
    }
    this.children(doc.children);
    this.flush();
  }

  private emit(block: WalkBlock): void {
    if (!block.text.trim()) return;
    const sep = block.type === 'list_item' && this.lastType === 'list_item' ? '\n' : block.type === 'key_value' && this.lastType === 'key_value' ? '\n' : undefined;
    this.sink.block(block, sep);
    this.lastType = block.type;
  }

  /** Emits paragraph text, turning `Label: value` lines into key/value blocks. */
  private paragraph(text: string, type: BlockType = 'paragraph'): void {
    const t = tidy(text);
    if (!t) return;
    if (type === 'paragraph' && isCaption(t)) type = 'caption';
    if (type === 'paragraph') {
      const lines = t.split('\n');
      const pairs = lines.map(keyValue);
      if (pairs.every((p) => p)) {
        lines.forEach((line, i) => this.emit({ type: 'key_value', text: line, key: pairs[i]!.key, value: pairs[i]!.value }));
        return;
      }
    }
    this.emit({ type, text: t });
  }

  private flush(): void {
    if (this.inline.trim()) this.paragraph(this.inline);
    this.inline = '';
  }

  private children(nodes: AnyNode[]): void {
    for (const n of nodes) this.visit(n);
  }

  private visit(n: AnyNode): void {
    if (++this.steps % 2000 === 0) this.opts.checkAbort?.();
    if (n.type === 'text') {
      this.inline += (n as unknown as { data: string }).data.replace(/\s+/g, ' ');
      return;
    }
    if (!isElement(n) || skipped(n)) return;
    const tag = n.name;
    if (tag === 'br') {
      this.inline += '\n';
      return;
    }
    if (tag === 'input') {
      if ((attr(n, 'type') ?? '').toLowerCase() === 'checkbox') this.inline += `${attr(n, 'checked') !== undefined ? CHECKED : UNCHECKED} `;
      return;
    }
    if (tag === 'hr') {
      this.flush();
      if (hasClass(n, this.opts.pageBreakClass)) this.sink.pageBreak();
      return;
    }
    if (!BLOCK.has(tag)) {
      this.children(n.children);
      return;
    }
    this.flush();
    const h = HEADING.exec(tag);
    if (h) {
      this.textBlock(n, (text) => this.emit({ type: 'heading', text: tidy(text).replace(/\n/g, ' '), level: Number(h[1]) }));
      return;
    }
    switch (tag) {
      case 'p':
        this.textBlock(n, (text) => this.paragraph(text, hasClass(n, this.opts.captionClass) ? 'caption' : 'paragraph'));
        return;
      case 'figcaption':
      case 'caption':
        this.textBlock(n, (text) => this.paragraph(text, 'caption'));
        return;
      case 'pre':
      case 'listing':
      case 'xmp':
      case 'plaintext':
        this.emit({ type: 'paragraph', text: plain(n).replace(/^\n+|\s+$/g, '') });
        return;
      case 'ul':
      case 'ol':
      case 'menu':
      case 'dir':
        this.list(n, 0);
        return;
      case 'dl':
        this.definitions(n);
        return;
      case 'table':
        this.table(n);
        return;
      default:
        this.container(n);
        this.flush();
    }
  }

  /** A generic block container; `<x class="…label…">K</x><y class="…value…">V</y>` siblings become key/value pairs. */
  private container(n: Element): void {
    const kids = n.children;
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i]!;
      if (isElement(k) && LABEL_CLASS.test(attr(k, 'class') ?? '')) {
        let j = i + 1;
        while (j < kids.length && kids[j]!.type === 'text' && !(kids[j] as unknown as { data: string }).data.trim()) j++;
        const v = kids[j];
        if (v && isElement(v) && VALUE_CLASS.test(attr(v, 'class') ?? '') && !skipped(v)) {
          const key = tidy(inlineText(k, this.opts.pageBreakClass)).replace(/\n/g, ' ').replace(/\s*:$/, '');
          const value = tidy(inlineText(v, this.opts.pageBreakClass)).replace(/\n/g, ' ');
          if (key) {
            this.flush();
            if (value) this.emit({ type: 'key_value', text: `${key}: ${value}`, key, value });
            else this.paragraph(key);
            i = j;
            continue;
          }
        }
      }
      this.visit(k);
    }
  }

  /** Collects an element's inline text; page breaks inside it go before or after the block. */
  private textBlock(el: Element, emit: (text: string) => void): void {
    const c = new Collector(this.opts.pageBreakClass);
    c.collect(el.children);
    if (c.breakBefore) this.sink.pageBreak();
    emit(c.text);
    for (let i = 0; i < c.breaksAfter; i++) this.sink.pageBreak();
  }

  private list(el: Element, depth: number): void {
    const ordered = el.name === 'ol';
    let counter = Number.parseInt(attr(el, 'start') ?? '1', 10);
    if (!Number.isFinite(counter)) counter = 1;
    for (const child of el.children) {
      if (!isElement(child) || skipped(child)) continue;
      if (child.name !== 'li') {
        if (child.name === 'ul' || child.name === 'ol') this.list(child, depth + 1);
        else this.visit(child);
        continue;
      }
      const value = Number.parseInt(attr(child, 'value') ?? '', 10);
      if (Number.isFinite(value)) counter = value;
      const inlineParts: AnyNode[] = [];
      const nested: Element[] = [];
      for (const c of child.children) {
        if (isElement(c) && ['ul', 'ol', 'table', 'dl', 'menu'].includes(c.name)) nested.push(c);
        else inlineParts.push(c);
      }
      const col = new Collector(this.opts.pageBreakClass);
      col.collect(inlineParts);
      if (col.breakBefore) this.sink.pageBreak();
      const text = tidy(col.text).replace(/\n/g, ' ');
      if (text) {
        const marker = ordered ? `${counter}.` : '-';
        this.emit({ type: 'list_item', text: `${marker} ${text}`, level: depth + 1 });
      }
      for (let i = 0; i < col.breaksAfter; i++) this.sink.pageBreak();
      counter++;
      for (const n of nested) {
        if (n.name === 'ul' || n.name === 'ol' || n.name === 'menu') this.list(n, depth + 1);
        else this.visit(n);
      }
    }
  }

  private definitions(el: Element): void {
    let key: string | null = null;
    const values: string[] = [];
    const done = () => {
      if (key !== null) {
        const value = values.join('; ');
        if (value) this.emit({ type: 'key_value', text: `${key}: ${value}`, key, value });
        else this.paragraph(key);
      } else if (values.length) this.paragraph(values.join('\n'));
      key = null;
      values.length = 0;
    };
    const visitItems = (nodes: AnyNode[]) => {
      for (const c of nodes) {
        if (!isElement(c) || skipped(c)) continue;
        if (c.name === 'dt') {
          done();
          key = tidy(inlineText(c, this.opts.pageBreakClass)).replace(/\n/g, ' ').replace(/:$/, '');
        } else if (c.name === 'dd') {
          const v = tidy(inlineText(c, this.opts.pageBreakClass)).replace(/\n/g, ' ');
          if (v) values.push(v);
        } else if (c.name === 'div') visitItems(c.children); // <div> groups of dt/dd are allowed
      }
    };
    visitItems(el.children);
    done();
  }

  private table(el: Element): void {
    const rows: { cells: Element[]; head: boolean }[] = [];
    let caption: string | undefined;
    const collectRows = (nodes: AnyNode[], head: boolean) => {
      for (const c of nodes) {
        if (!isElement(c) || skipped(c)) continue;
        if (c.name === 'tr') rows.push({ cells: c.children.filter((x): x is Element => isElement(x) && (x.name === 'td' || x.name === 'th') && !hidden(x)), head });
        else if (c.name === 'thead') collectRows(c.children, true);
        else if (c.name === 'tbody' || c.name === 'tfoot') collectRows(c.children, false);
        else if (c.name === 'caption') caption = tidy(inlineText(c, this.opts.pageBreakClass)).replace(/\n/g, ' ');
      }
    };
    collectRows(el.children, false);
    const cellCount = rows.reduce((n, r) => n + r.cells.length, 0);
    if (cellCount === 0) return;
    if (cellCount === 1) {
      // a one-cell table is layout: read what is inside it
      if (caption) this.paragraph(caption, 'caption');
      this.children(rows.find((r) => r.cells.length)!.cells[0]!.children);
      this.flush();
      return;
    }
    const cells: TableCell[] = [];
    const occupied: boolean[][] = [];
    const take = (r: number, c: number) => ((occupied[r] ??= [])[c] = true);
    const isTaken = (r: number, c: number) => !!occupied[r]?.[c];
    let cols = 0;
    rows.forEach((row, r) => {
      let col = 0;
      for (const td of row.cells) {
        while (isTaken(r, col)) col++;
        const colSpan = clampSpan(attr(td, 'colspan'), 1000);
        let rowSpan = clampSpan(attr(td, 'rowspan'), rows.length - r);
        if (attr(td, 'rowspan') === '0') rowSpan = rows.length - r;
        const text = tidy(inlineText(td, this.opts.pageBreakClass));
        cells.push({ row: r, col, rowSpan, colSpan, text, header: row.head || td.name === 'th' });
        for (let i = 0; i < rowSpan; i++) for (let j = 0; j < colSpan; j++) take(r + i, col + j);
        col += colSpan;
        cols = Math.max(cols, col);
      }
    });
    const nRows = Math.max(rows.length, occupied.length);
    if (cells.every((c) => !c.text)) return;
    // header row: explicit (thead / all th) rows, else the first row when it is all text
    const firstRow = cells.filter((c) => c.row === 0);
    const explicit = cells.some((c) => c.header);
    if (explicit) {
      // a row only counts as header when all its cells are header cells
      const headRows = new Set<number>();
      for (let r = 0; r < nRows; r++) {
        const rc = cells.filter((c) => c.row === r);
        if (rc.length && rc.every((c) => c.header)) headRows.add(r);
      }
      for (const c of cells) c.header = headRows.has(c.row);
    } else if (nRows > 1 && firstRow.some((c) => c.text) && firstRow.every((c) => !c.text || !isNumeric(c.text))) {
      for (const c of firstRow) c.header = true;
    }
    if (caption) this.paragraph(caption, 'caption');
    this.sink.table({ ...compactTable(cells, nRows, cols), title: caption });
    this.lastType = 'table';
  }
}

/** Drops rows and columns in which no cell with text starts or spans (spacer columns of layout tables). */
export function compactTable(cells: TableCell[], rows: number, cols: number): { rows: number; cols: number; cells: TableCell[] } {
  const usedCols = new Array<boolean>(cols).fill(false);
  const usedRows = new Array<boolean>(rows).fill(false);
  for (const c of cells) {
    if (!c.text) continue;
    for (let j = c.col; j < Math.min(cols, c.col + c.colSpan); j++) usedCols[j] = true;
    for (let i = c.row; i < Math.min(rows, c.row + c.rowSpan); i++) usedRows[i] = true;
  }
  if (usedCols.every(Boolean) && usedRows.every(Boolean)) return { rows, cols, cells };
  const colMap: number[] = [];
  const rowMap: number[] = [];
  let n = 0;
  for (let j = 0; j < cols; j++) colMap[j] = usedCols[j] ? n++ : -1;
  const newCols = n;
  n = 0;
  for (let i = 0; i < rows; i++) rowMap[i] = usedRows[i] ? n++ : -1;
  const newRows = n;
  const countUsed = (used: boolean[], from: number, span: number) => used.slice(from, from + span).filter(Boolean).length;
  const out: TableCell[] = [];
  for (const c of cells) {
    const colSpan = countUsed(usedCols, c.col, c.colSpan);
    const rowSpan = countUsed(usedRows, c.row, c.rowSpan);
    if (!colSpan || !rowSpan) continue;
    const col = usedCols.slice(c.col, c.col + c.colSpan).findIndex(Boolean) + c.col;
    const row = usedRows.slice(c.row, c.row + c.rowSpan).findIndex(Boolean) + c.row;
    out.push({ ...c, row: rowMap[row]!, col: colMap[col]!, rowSpan, colSpan });
  }
  return { rows: newRows, cols: newCols, cells: out };
}

function clampSpan(v: string | undefined, max: number): number {
  const n = Number.parseInt(v ?? '1', 10);
  if (!Number.isFinite(n) || n < 1) return 1;
  return Math.max(1, Math.min(n, max));
}

/** Inline text collector: br → newline, checkboxes → ☐/☒, block children on their own lines. */
class Collector {
  text = '';
  breakBefore = false;
  breaksAfter = 0;
  constructor(private readonly pageBreakClass?: string) {}

  collect(nodes: AnyNode[]): void {
    for (const n of nodes) {
      if (n.type === 'text') {
        this.text += (n as unknown as { data: string }).data.replace(/\s+/g, ' ');
        continue;
      }
      if (!isElement(n) || skipped(n)) continue;
      if (n.name === 'br') this.text += '\n';
      else if (n.name === 'input') {
        if ((attr(n, 'type') ?? '').toLowerCase() === 'checkbox') this.text += `${attr(n, 'checked') !== undefined ? CHECKED : UNCHECKED} `;
      } else if (n.name === 'hr') {
        if (hasClass(n, this.pageBreakClass)) {
          if (!this.text.trim()) this.breakBefore = true;
          else this.breaksAfter++;
        } else this.text += '\n';
      } else if (n.name === 'img') {
        continue;
      } else if (BLOCK.has(n.name)) {
        this.text += '\n';
        if (n.name === 'td' || n.name === 'th') this.text += ' ';
        this.collect(n.children);
        this.text += '\n';
      } else this.collect(n.children);
    }
  }
}

function inlineText(el: Element, pageBreakClass?: string): string {
  const c = new Collector(pageBreakClass);
  c.collect(el.children);
  return c.text;
}

/** Raw text of an element, whitespace preserved (for <pre> and <title>). */
function plain(el: Element): string {
  let out = '';
  for (const n of el.children) {
    if (n.type === 'text') out += (n as unknown as { data: string }).data;
    else if (isElement(n) && !skipped(n)) out += n.name === 'br' ? '\n' : plain(n);
  }
  return out;
}

function findFirst(nodes: AnyNode[], pred: (el: Element) => boolean): Element | null {
  for (const n of nodes) {
    if (!isElement(n)) continue;
    if (pred(n)) return n;
    const inner = findFirst(n.children, pred);
    if (inner) return inner;
  }
  return null;
}
