import { DocumentBuilder, errors } from '@quire/core';
import type { BlockSink, WalkBlock, WalkTable } from './html-walker.js';

export interface PageSize {
  width: number;
  height: number;
}

/**
 * A BlockSink over a DocumentBuilder for formats without geometry: bbox null, confidence 1, one page per
 * explicit page break. Stops taking content once `maxPages` pages are full (anonymous conversions); throws
 * UNPROCESSABLE "<label> exceeds N pages" when a page past `pageLimit` begins (ReadLimits.pages).
 */
export class PagedSink implements BlockSink {
  page = 1;
  stopped = false;

  constructor(
    readonly builder: DocumentBuilder,
    private readonly size: PageSize,
    private readonly maxPages?: number,
    private readonly pageLimit?: { pages: number; label: string },
  ) {
    builder.addPage({ number: 1, width: size.width, height: size.height, ocr: false, confidence: 1 });
  }

  block(block: WalkBlock, separator?: string): void {
    if (this.stopped) return;
    this.builder.addBlock({ ...block, page: this.page, bbox: null, confidence: 1 }, separator);
  }

  table(table: WalkTable): void {
    if (this.stopped) return;
    this.builder.addTable({ ...table, page: this.page, bbox: null, confidence: 1 });
  }

  pageBreak(): void {
    if (this.stopped) return;
    if (this.maxPages && this.page >= this.maxPages) {
      this.stopped = true;
      return;
    }
    if (this.pageLimit && this.page >= this.pageLimit.pages) {
      throw errors.unprocessable(`${this.pageLimit.label} exceeds ${this.pageLimit.pages.toLocaleString('en')} pages`, { limit_pages: this.pageLimit.pages });
    }
    this.page++;
    this.builder.addPage({ number: this.page, width: this.size.width, height: this.size.height, ocr: false, confidence: 1 });
  }
}
