import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { definePlugin, DocumentBuilder, errors, isQuireError } from '@quire/core';
import type { BBox, OcrPlugin, ParsedDocument, PluginContext, ReaderInput, ReaderPlugin, ReadOptions } from '@quire/core';
import { layoutOcrPage, scaleBox, scaleRules } from '@quire/plugin-reader-image';
import type { Rule } from '@quire/plugin-reader-image';
import { WorkerPool, workerUrl } from './pool.js';
import { assemble } from './assemble.js';
import { resolveHyphenBreaks } from './hyphens.js';
import type { AssembledPage } from './assemble.js';
import type { OpenResult, PageResult } from './types.js';

export { WorkerPool, workerUrl } from './pool.js';
export { layoutPage, buildLines, buildSegments, findRuledTables, findAlignedTables, itemsText } from './layout.js';
export { assemble, bodyFontSize, findHeadersFooters } from './assemble.js';
export { joinBlockLines, keepHyphen, resolveHyphenBreaks } from './hyphens.js';
export type { TextItem, Rule, PageElement, TextElement, TableElement, PageResult, OpenResult } from './types.js';

export interface PdfReaderOptions {
  /** parse threads (default config.pdf.workers) */
  workers?: number;
  /** parse time limit in ms (default config.limits.parseTimeoutMs) */
  timeoutMs?: number;
  /** OCR processes at once for scanned pages (default config.ocr.concurrency) */
  ocrConcurrency?: number;
  /** render resolution of scanned pages for OCR */
  ocrDpi?: number;
  /** start the parse threads when the plugin is created (default true; false: at the first document) */
  prestart?: boolean;
}

/** A counting semaphore (OCR pages in flight: render → recognise → delete). */
class Gate {
  private active = 0;
  private waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** An OCR plugin that can tell how far a page is turned (the tesseract plugin can). */
type OrientationAware = OcrPlugin & { detectOrientation?: (imagePath: string, options: { signal?: AbortSignal }) => Promise<{ rotate: number; confidence: number } | null> };

/**
 * A box read on the page image turned `rotate` degrees clockwise, back in the page's own frame
 * (width x height in points).
 */
export function unrotate(b: BBox, rotate: number, width: number, height: number): BBox {
  switch (((rotate % 360) + 360) % 360) {
    case 90:
      return { x: b.y, y: height - b.x - b.width, width: b.height, height: b.width };
    case 180:
      return { x: width - b.x - b.width, y: height - b.y - b.height, width: b.width, height: b.height };
    case 270:
      return { x: width - b.y - b.height, y: b.x, width: b.height, height: b.width };
    default:
      return b;
  }
}

function openError(e: unknown): Error {
  if (isQuireError(e)) return e;
  const err = e as { name?: string; message?: string };
  if (err?.name === 'PasswordException' || /password/i.test(err?.message ?? '')) return errors.processing('PDF is password-protected');
  const reason = (err?.message ?? String(e)).replace(/\s+/g, ' ').trim() || 'unknown error';
  return errors.processing(`PDF could not be read: ${reason}`);
}

/** pages parsed by the worker that opens the document (a short document needs no second round trip) */
const FIRST_CHUNK = 2;
/** page ranges handed to the workers: small enough to spread evenly, large enough to cost little in messages */
const MIN_CHUNK = 2;
const MAX_CHUNK = 16;

/** A page rendered for OCR: resolution, pixel size and the ruling lines found in its pixels. */
interface Rendered {
  dpi: number;
  width: number;
  height: number;
  rules: Rule[];
}

export class PdfReader implements ReaderPlugin {
  readonly formats = ['pdf'];
  private pool: WorkerPool | null = null;
  private readonly workers: number;
  private readonly timeoutMs: number;
  private readonly ocrConcurrency: number;
  private readonly ocrDpi: number;
  /**
   * Pages rendered for OCR at once, over all documents: a page holding a 600 dpi scan takes about 400 MB
   * while it is drawn (the decoded image, pdf.js's canvas of it, the page canvas), so one at a time; the
   * recognition of rendered pages (OCR processes) still runs in parallel.
   */
  private readonly renderGate = new Gate(1);

  constructor(
    private readonly ctx: Pick<PluginContext, 'tryGet' | 'config' | 'logger'>,
    opts: PdfReaderOptions = {},
  ) {
    const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
    this.workers = Math.max(1, Math.floor(opts.workers ?? ctx.config.pdf?.workers ?? cores));
    this.timeoutMs = opts.timeoutMs ?? ctx.config.limits?.parseTimeoutMs ?? 600_000;
    this.ocrConcurrency = Math.max(1, opts.ocrConcurrency ?? ctx.config.ocr?.concurrency ?? cores);
    this.ocrDpi = opts.ocrDpi ?? 300;
  }

  private getPool(): WorkerPool {
    if (!this.pool) this.pool = new WorkerPool(this.workers, workerUrl());
    return this.pool;
  }

  /** Starts the parse threads now rather than at the first document. */
  warm(): void {
    this.getPool().warm();
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    return { ok: true, message: `pdf.js in ${this.workers} worker thread(s)` };
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = null;
  }

  async read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
    const pool = this.getPool();
    const jobId = randomUUID();
    const ac = new AbortController();
    setMaxListeners(0, ac.signal); // one listener per queued chunk / OCR page
    const timeoutError = errors.processing(`PDF parse timed out after ${Math.round(this.timeoutMs / 1000)} s`);
    const timer = setTimeout(() => ac.abort(timeoutError), this.timeoutMs);
    const onOuterAbort = () => ac.abort(options.signal!.reason ?? new Error('aborted'));
    if (options.signal?.aborted) onOuterAbort();
    else options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const signal = ac.signal;
    let tmpDir: string | null = null;
    try {
      // the worker that opens the document parses its first pages; the rest go out in chunks to all
      // workers (each opens the document once and keeps it for the chunks it takes)
      const limit = options.maxPages && options.maxPages > 0 ? options.maxPages : Infinity;
      const firstTo = Math.min(limit, FIRST_CHUNK);
      let opened: OpenResult;
      const opening = pool.run<OpenResult>({ type: 'open', jobId, path: input.path, firstTo }, signal);
      // while one worker opens the document, the others open it too, ready for the page ranges
      for (let i = 1; i < this.workers && firstTo >= FIRST_CHUNK; i++) pool.run({ type: 'load', jobId, path: input.path }, signal).catch(() => {});
      try {
        opened = await opening;
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        throw openError(e);
      }
      const total = opened.numPages;
      const count = Math.min(total, limit);
      const builder = new DocumentBuilder(input.documentId, input.name, input.format);
      builder.metadata = { ...opened.metadata, numPages: total, pagesExtracted: count, truncated: count < total };

      const rest = count - opened.pages.length;
      // about four ranges per worker: a free worker takes the next one, so the work evens out
      const chunk = Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, Math.ceil(rest / (this.workers * 4))));
      const ranges: [number, number][] = [];
      for (let from = opened.pages.length + 1; from <= count; from += chunk) ranges.push([from, Math.min(count, from + chunk - 1)]);
      const pages: AssembledPage[] = new Array(count);
      const ocrEnabled = options.ocr?.enabled !== false;
      const ocr = ocrEnabled ? (this.ctx.tryGet('ocr') as OcrPlugin | undefined) : undefined;
      let ocrBroken: string | null = ocr ? null : 'No OCR engine is available';
      const gate = new Gate(this.ocrConcurrency);
      const ocrJobs: Promise<void>[] = [];
      let done = 0;
      const issues: { code: string; stage: string; page?: number; message: string }[] = [];

      const ocrPage = async (p: AssembledPage) => {
        await gate.run(async () => {
          if (ocrBroken) {
            issues.push({ code: 'OCR_UNAVAILABLE', stage: 'ocr', page: p.number, message: `Page ${p.number} has no text layer and was not OCRed: ${ocrBroken}` });
            return;
          }
          signal.throwIfAborted();
          if (!tmpDir) tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-pdf-'));
          const out = path.join(tmpDir, `page-${p.number}.png`);
          try {
            const language = options.ocr?.language || 'eng';
            const render = (rotate?: number) => this.renderGate.run(() => pool.run<Rendered>({ type: 'render', jobId, path: input.path, page: p.number, dpi: this.ocrDpi, out, rotate }, signal, { first: true }));
            let r = await render();
            let res = await ocr!.recognize(out, { language, signal, dpi: r.dpi });
            let rotate = 0;
            let k = r.width ? p.width / r.width : 72 / r.dpi;
            // poor text may be a page scanned sideways or upside down: ask the engine and read it turned
            const orient = (ocr as OrientationAware).detectOrientation;
            if (res.confidence < 0.75 && typeof orient === 'function') {
              const o = await orient.call(ocr, out, { signal }).catch(() => null);
              if (o && o.rotate % 360 !== 0) {
                const r2 = await render(o.rotate);
                const res2 = await ocr!.recognize(out, { language, signal, dpi: r2.dpi });
                if (res2.confidence > res.confidence && res2.text.length >= res.text.length * 0.5) {
                  res = res2;
                  r = r2;
                  rotate = o.rotate;
                  k = 72 / r2.dpi;
                }
              }
            }
            const toPage = (b: BBox) => unrotate(scaleBox(b, k), rotate, p.width, p.height);
            const words = res.words.map((w) => ({ ...w, bbox: toPage(w.bbox) }));
            // laid out in the frame of the image that was read, then turned back to the page
            const back = (b: BBox | null | undefined) => (b && rotate ? unrotate(b, rotate, p.width, p.height) : b ?? null);
            const elements = layoutOcrPage(res.lines, { page: p.number, scale: k, rules: scaleRules(r.rules ?? [], k) }).map((e) =>
              e.kind === 'block'
                ? { kind: 'block' as const, block: { ...e.block, bbox: back(e.block.bbox) } }
                : { kind: 'table' as const, table: { ...e.table, bbox: back(e.table.bbox), cells: e.table.cells.map((c) => ({ ...c, bbox: back(c.bbox) })) } },
            );
            p.ocr = { elements, words, confidence: res.confidence, rotated: rotate };
          } catch (e) {
            if (signal.aborted) throw signal.reason;
            if (isQuireError(e) && e.code === 'SERVICE_UNAVAILABLE') {
              ocrBroken = e.message;
              issues.push({ code: 'OCR_UNAVAILABLE', stage: 'ocr', page: p.number, message: `Page ${p.number} has no text layer and was not OCRed: ${e.message}` });
            } else if (isQuireError(e) && e.code === 'VALIDATION_ERROR') {
              throw e;
            } else {
              issues.push({ code: 'OCR_FAILED', stage: 'ocr', page: p.number, message: `OCR of page ${p.number} failed: ${e instanceof Error ? e.message : String(e)}` });
            }
          } finally {
            await fs.rm(out, { force: true });
          }
        });
      };
      const accept = (results: PageResult[]) => {
        for (const r of results) {
          if (r.number > count) continue;
          pages[r.number - 1] = r;
          if (r.needsOcr) {
            if (!ocrEnabled) issues.push({ code: 'OCR_DISABLED', stage: 'ocr', page: r.number, message: `Page ${r.number} has no text layer and OCR is disabled` });
            else {
              const job = ocrPage(r);
              job.catch(() => {});
              ocrJobs.push(job);
            }
          }
          done++;
        }
        options.onProgress?.(Math.min(0.99, done / Math.max(1, count)));
      };
      accept(opened.pages);
      await Promise.all(ranges.map(([from, to]) => pool.run<PageResult[]>({ type: 'pages', jobId, path: input.path, from, to }, signal).then(accept))).catch((e) => {
        if (signal.aborted) throw signal.reason;
        throw openError(e);
      });
      await Promise.all(ocrJobs);
      // hyphens at line ends: compound words keep theirs, hyphenated words are joined (from the whole text)
      resolveHyphenBreaks(pages);
      assemble(builder, pages);
      for (const i of issues.sort((a, b) => (a.page ?? 0) - (b.page ?? 0))) builder.issue(i);
      options.onProgress?.(1);
      return builder.build();
    } catch (e) {
      if (signal.aborted && !options.signal?.aborted) throw timeoutError;
      throw e;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onOuterAbort);
      pool.broadcast({ type: 'release', jobId });
      if (tmpDir) await fs.rm(tmpDir, { recursive: true, force: true }).catch(() => {});
    }
  }
}

export default definePlugin({
  kind: 'reader',
  name: 'pdf',
  core: '^1',
  description: 'PDF on pdf.js in worker threads: reading order, headings, lists, key-values, tables, OCR of scanned pages.',
  create(ctx) {
    const o = ctx.options as PdfReaderOptions;
    const reader = new PdfReader(ctx, { workers: o.workers, timeoutMs: o.timeoutMs, ocrConcurrency: o.ocrConcurrency, ocrDpi: o.ocrDpi });
    // a service reads PDFs soon after it starts: the threads and pdf.js load now, not under the first document
    if (o.prestart !== false) reader.warm();
    return reader;
  },
});
