import type { BBox, Block, DocIssue, Page, ParsedDocument, Table } from './content.js';
import { tableToMarkdown } from './tables.js';
import { applyTitle } from './title.js';

export type BlockInput = Omit<Block, 'span'>;

/**
 * Builds a ParsedDocument in reading order: every block appended gets its span in the full text.
 * Readers call addPage, then addBlock/addTable in reading order, then build().
 */
export class DocumentBuilder {
  private parts: string[] = [];
  private length = 0;
  private readonly pages: Page[] = [];
  private readonly blocks: Block[] = [];
  private readonly tables: Table[] = [];
  private readonly issues: DocIssue[] = [];
  metadata: ParsedDocument['metadata'] = {};

  constructor(
    private readonly id: string,
    private readonly name: string,
    private readonly format: string,
  ) {}

  addPage(page: Page): void {
    this.pages.push(page);
  }

  /** Appends a block. `separator` goes before it (default a blank line; '\n' keeps list items together). */
  addBlock(input: BlockInput, separator = '\n\n'): Block | null {
    const text = input.text.replace(/\u0000/g, '').trim();
    if (!text) return null;
    if (this.length > 0) {
      this.parts.push(separator);
      this.length += separator.length;
    }
    const start = this.length;
    this.parts.push(text);
    this.length += text.length;
    const block: Block = { ...input, text, span: { start, end: this.length } };
    this.blocks.push(block);
    return block;
  }

  /** Appends a table and the table block that stands for it in the text (markdown). */
  addTable(table: Table): Block | null {
    const index = this.tables.length;
    this.tables.push(table);
    return this.addBlock({ type: 'table', text: tableToMarkdown(table), page: table.page, bbox: table.bbox, confidence: table.confidence, tableIndex: index });
  }

  issue(issue: DocIssue): void {
    this.issues.push(issue);
  }

  get pageCount(): number {
    return this.pages.length;
  }

  /**
   * The document; its metadata.title is a real title (the file's own, else the one found on its first page:
   * applyTitle). `title: false`: no title is looked for (a part of a document, such as the pages a reader
   * OCRs for the `ocr` stage, whose first page is not the document's).
   */
  build(opts: { title?: boolean } = {}): ParsedDocument {
    const doc: ParsedDocument = {
      id: this.id,
      name: this.name,
      format: this.format,
      pages: this.pages,
      blocks: this.blocks,
      tables: this.tables,
      text: this.parts.join(''),
      metadata: this.metadata,
      issues: this.issues,
    };
    if (opts.title !== false) applyTitle(doc);
    return doc;
  }
}

/** Union of boxes (null when none). */
export function unionBBox(boxes: (BBox | null | undefined)[]): BBox | null {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const b of boxes) {
    if (!b) continue;
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return Number.isFinite(x0) ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}
