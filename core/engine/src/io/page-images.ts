import type { Readable } from 'node:stream';
import { errors } from '@quire/core';
import type { DocumentRecord, ParsedDocument } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { withLocalFile } from '../jobs.js';

/**
 * Page images for people to look at (the studio draws the parsed boxes over them). A PDF page is drawn by
 * the reader of its format (the PDF reader's own worker threads, bounded in memory) under a time limit and
 * with a few renders at once; an image a browser shows is its own page 1, sent as it was uploaded.
 */

/** Image formats a browser shows as they are, with their type. */
const AS_IS: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp' };

/** Resolution of a page image unless asked otherwise: an A4 page is about 900 pixels wide. */
export const PAGE_IMAGE_DPI = 110;
export const PAGE_IMAGE_MAX_DPI = 200;
/** A page image is at most this many pixels (a huge page is drawn at fewer dots per inch). */
const MAX_PIXELS = 8_000_000;
/** Renders at once per process, and how many may wait: more is refused (503) rather than piled up. */
const RENDERS_AT_ONCE = 2;
const MAX_WAITING = 32;
const RENDER_TIMEOUT_MS = 30_000;

let active = 0;
const waiting: (() => void)[] = [];

async function gated<T>(fn: () => Promise<T>): Promise<T> {
  if (active >= RENDERS_AT_ONCE) {
    if (waiting.length >= MAX_WAITING) throw errors.unavailable('Too many page images are being drawn: retry in a moment');
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else active++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else active--;
  }
}

export interface PageImage {
  type: string;
  body: Buffer | Readable;
  /** the stored file itself (an image document): its size */
  size?: number;
}

/** Whether page images of this format can be made at all (the studio draws a white page otherwise). */
export function pageImageSupport(rt: Pick<Engine, 'registry'>, format: string): 'as-is' | 'rendered' | null {
  if (AS_IS[format]) return 'as-is';
  try {
    return typeof rt.registry.readerFor(format).instance.renderPage === 'function' ? 'rendered' : null;
  } catch {
    return null;
  }
}

/**
 * Page `page` (1-based) of a document's original file. 404 when the page is not in the document or the
 * format has no page images (e.g. a spreadsheet; TIFF, which browsers do not show).
 */
export async function pageImage(rt: Pick<Engine, 'registry' | 'storage'>, doc: Pick<DocumentRecord, 'id' | 'name' | 'file_type' | 'file_size' | 'storage_key' | 'pages'>, page: number, opts: { dpi?: number; signal?: AbortSignal } = {}): Promise<PageImage> {
  if (!Number.isInteger(page) || page < 1 || (doc.pages !== null && page > doc.pages)) throw errors.notFound('page', String(page));
  const support = pageImageSupport(rt, doc.file_type);
  if (!support) throw errors.notFound(`page image (${doc.file_type} documents have none)`);
  if (support === 'as-is') {
    if (page !== 1) throw errors.notFound('page', String(page));
    return { type: AS_IS[doc.file_type]!, body: await rt.storage.stream(doc.storage_key), size: doc.file_size };
  }
  const reader = rt.registry.readerFor(doc.file_type).instance;
  const dpi = Math.max(36, Math.min(PAGE_IMAGE_MAX_DPI, Math.round(opts.dpi ?? PAGE_IMAGE_DPI)));
  return gated(async () => {
    // a client gone while this waited for its turn
    opts.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(RENDER_TIMEOUT_MS);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      const r = await withLocalFile(rt.storage, doc.storage_key, (path) =>
        reader.renderPage!({ path, name: doc.name, format: doc.file_type, size: doc.file_size, documentId: doc.id }, page, { dpi, maxPixels: MAX_PIXELS, signal }),
      );
      return { type: 'image/png', body: r.png };
    } catch (e) {
      if (timeout.aborted) throw errors.processing(`Page ${page} could not be drawn within ${RENDER_TIMEOUT_MS / 1000} s`);
      if (opts.signal?.aborted) throw e;
      if (/not in the document/.test((e as Error)?.message ?? '')) throw errors.notFound('page', String(page));
      throw errors.processing(`Page ${page} could not be drawn: the file is damaged or not a valid ${doc.file_type} file`);
    }
  });
}

/**
 * What the studio's document view draws: the pages (sizes), blocks, tables with their cells, without the
 * words of each page (large, and not drawn).
 */
export function pageLayout(doc: ParsedDocument) {
  return {
    pages: doc.pages.map((p) => ({ number: p.number, width: p.width, height: p.height, ocr: p.ocr, confidence: p.confidence, ...(p.name ? { name: p.name } : {}) })),
    blocks: doc.blocks.map((b, i) => ({ index: i, type: b.type, text: b.text, page: b.page, bbox: b.bbox, confidence: b.confidence, span: b.span, ...(b.level ? { level: b.level } : {}), ...(b.tableIndex !== undefined ? { table_index: b.tableIndex } : {}) })),
    tables: doc.tables.map((t, i) => ({ index: i, page: t.page, bbox: t.bbox, rows: t.rows, cols: t.cols, confidence: t.confidence, cells: t.cells.map((c) => ({ row: c.row, col: c.col, row_span: c.rowSpan, col_span: c.colSpan, text: c.text, header: !!c.header })) })),
    issues: doc.issues,
  };
}
