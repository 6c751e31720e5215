import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { AGENTIC_KEY, builtinFormats, definePlugin, DocumentBuilder, errors, isQuireError, OCR_PENDING_KEY, readLimits, z } from '@quire/core';
import type { AgenticOcrReport, BBox, DocIssue, OcrPlugin, ParsedDocument, PluginContext, ReaderInput, ReaderPlugin, ReadLimits, ReadOptions } from '@quire/core';
import { layoutOcrPage, pickBetterLines, scaleBox, scaleRules } from '@quire/layout';
import type { Rule } from '@quire/layout';
import { WorkerPool, memoryError, workerUrl } from './pool.js';
import { assemble } from './assemble.js';
import { resolveHyphenBreaks } from './hyphens.js';
import { setAsideFurniture } from './furniture.js';
import { blankPagesNote } from './blank.js';
import type { AssembledPage } from './assemble.js';
import type { OpenResult, PageResult } from './types.js';

export { uniformPixels, blankPagesNote } from './blank.js';
export { eachWord, joinBlockLines, keepHyphen, resolveHyphenBreaks } from './hyphens.js';
export type { PageResult } from './types.js';

/** Options of the PDF reader (plugin options `reader:pdf`), with their defaults. */
export const PDF_READER_OPTIONS = z.strictObject({
  /** parse worker processes (QUIRE_PDF_WORKERS; default: the number of cores) */
  workers: z.number().int().min(1).max(64).default(Math.max(1, os.availableParallelism?.() ?? os.cpus().length)),
  /** time limit of one read, ms (default: the shared limits.parseTimeoutMs) */
  timeoutMs: z.number().int().positive().optional(),
  /** OCR processes at once for scanned pages (default: the shared ocr.concurrency) */
  ocrConcurrency: z.number().int().min(1).max(64).optional(),
  /** render resolution of scanned pages for OCR */
  ocrDpi: z.number().int().min(50).max(1200).default(300),
  /** start the parse workers when the plugin is created (false: at the first document) */
  prestart: z.boolean().default(true),
  /** memory limit of each parse worker, MB (default: the shared limits.readerHeapMb) */
  heapMb: z.number().int().min(64).optional(),
  /** per-phase timings of the parse workers on stderr (QUIRE_PDF_DEBUG) */
  debug: z.boolean().default(false),
});
export type PdfReaderOptions = z.input<typeof PDF_READER_OPTIONS>;

/** What a PdfReader runs with: its options, the shared settings filled in. */
export interface PdfReaderSettings {
  workers: number;
  timeoutMs: number;
  ocrConcurrency: number;
  ocrDpi: number;
  /** OCR language(s) of a read that names none (the shared ocr.language, QUIRE_OCR_LANGUAGE) */
  ocrLanguage: string;
  heapMb: number;
  debug: boolean;
}

/** A counting semaphore (OCR pages in flight: render → recognise → delete); a waiter whose signal aborts leaves the queue. */
class Gate {
  private active = 0;
  private waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const start = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.waiting.indexOf(start);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(start);
      });
    } else this.active++;
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

export const ENCRYPTED = 'PDF could not be read: the file is encrypted (password-protected)';
export const DAMAGED = 'PDF could not be read: the file is truncated or damaged';

/**
 * What users are told when the document cannot be read: never the engine's own words ("PDFium could not
 * open the file (error 3)", "memory access out of bounds"), which say nothing to them.
 */
function openError(e: unknown, size?: number, heapMb?: number): Error {
  if (isQuireError(e)) return e;
  const err = e as { name?: string; message?: string };
  if (err?.name === 'MemoryLimitError') return memoryError(heapMb);
  if (err?.name === 'PasswordError' || /password/i.test(err?.message ?? '')) return errors.processing(ENCRYPTED);
  if (size === 0) return errors.processing('PDF could not be read: the file is empty');
  if (/^parse worker exited/.test(err?.message ?? '')) return errors.processing('PDF could not be read: the reader stopped unexpectedly');
  return errors.processing(DAMAGED, { cause: err?.name ?? 'Error' });
}

/** Why OCR of a page failed, in a few words: the OCR plugin's own message when it is one of Quire's, never a tool's output. */
function ocrFailure(e: unknown, drawing: boolean): string {
  if (drawing) return 'the page could not be drawn';
  if (isQuireError(e)) return e.message.replace(/\s+/g, ' ').slice(0, 200);
  return 'the OCR engine failed';
}

/**
 * Scans are drawn for OCR at the resolution of their image, never above the reader's ocrDpi: drawing a
 * 200 dpi scan at 300 dpi makes 2.25 times the pixels and no detail. Not below MIN_SCAN_DPI: a low
 * resolution image (a 96 dpi fax, a thumbnail) drawn larger gives the OCR engine letters of a height it
 * reads (Tesseract wants capitals of 20 pixels or more; 10 pt text at 150 dpi has about 21).
 */
const MIN_SCAN_DPI = 150;
export function ocrDpi(max: number, imageDpi?: number): number {
  if (!imageDpi || !(imageDpi > 0)) return max;
  return Math.min(max, Math.max(MIN_SCAN_DPI, Math.round(imageDpi)));
}

/** pages parsed by the worker that opens the document (a short document needs no second round trip) */
const FIRST_CHUNK = 2;
/** page ranges handed to the workers: small enough to spread evenly, large enough to cost little in messages */
const MIN_CHUNK = 2;
const MAX_CHUNK = 16;

/** A page rendered for OCR: resolution, pixel size and the ruling lines found in its pixels; `blank`: nothing on it. */
interface Rendered {
  dpi: number;
  width: number;
  height: number;
  rules: Rule[];
  blank?: boolean;
}

/** The OCR of one read's pages: what its pages share (the gate, the engines that read them, issues, the temporary folder). */
interface OcrRun {
  input: ReaderInput;
  pool: WorkerPool;
  jobId: string;
  signal: AbortSignal;
  limits: ReadLimits;
  options: ReadOptions;
  ocr: OcrPlugin | undefined;
  /** why OCR cannot run (the pages after it are not tried) */
  broken: string | null;
  gate: Gate;
  /** the OCR engines that read pages (a router says which: document metadata ocrEngine) */
  engines: Set<string>;
  issues: DocIssue[];
  /** pages found blank when drawn */
  blank: number[];
  /** one folder for the page images of the read, made by the first page OCRed */
  tmpDir: Promise<string> | null;
  /** ocr.agentic: the pages read twice, those where the second reading changed lines, and how many */
  agentic: { read: number[]; changed: number[]; lines: number } | null;
}

const removeTmp = async (run: OcrRun | null) => {
  if (run?.tmpDir) await run.tmpDir.then((d) => fs.rm(d, { recursive: true, force: true })).catch(() => {});
};

/**
 * The resolution of agentic OCR's second reading: half as many dots again (the glyphs of small print
 * and of a coarse scan get the pixels the recogniser wants), up to 600 dpi; a page first drawn at 600 dpi
 * or more is read again at two thirds of it.
 */
export function agenticDpi(dpi: number): number {
  const up = Math.min(600, Math.round(dpi * 1.5));
  return up > dpi ? up : Math.round(dpi / 1.5);
}

const agenticReport = (a: NonNullable<OcrRun['agentic']>): AgenticOcrReport => ({
  pages_read: [...a.read].sort((x, y) => x - y),
  pages_changed: [...a.changed].sort((x, y) => x - y),
  lines_changed: a.lines,
});

export class PdfReader implements Omit<ReaderPlugin, 'formats'> {
  /** parsing runs in this plugin's own worker threads, each with a heap limit and stopped on abort */
  readonly isolated = true;
  private pool: WorkerPool | null = null;
  private readonly workers: number;
  /** heap limit of each parse thread, MB */
  readonly heapMb: number;
  private readonly timeoutMs: number;
  private readonly ocrConcurrency: number;
  private readonly ocrDpi: number;
  private readonly ocrLanguage: string;
  private readonly debug: boolean;
  /**
   * Pages rendered for OCR at once, over all documents: a page holding a 600 dpi scan takes a few hundred
   * MB while it is drawn (the decoded image, the page bitmap, its grey copy), so one at a time; the
   * recognition of rendered pages (OCR processes) still runs in parallel.
   */
  private readonly renderGate = new Gate(1);

  constructor(
    private readonly ctx: Pick<PluginContext, 'ocr' | 'logger'>,
    opts: PdfReaderSettings,
  ) {
    this.workers = opts.workers;
    this.timeoutMs = opts.timeoutMs;
    this.ocrConcurrency = opts.ocrConcurrency;
    this.ocrDpi = opts.ocrDpi;
    this.ocrLanguage = opts.ocrLanguage;
    this.heapMb = opts.heapMb;
    this.debug = opts.debug;
  }

  private getPool(): WorkerPool {
    if (!this.pool) this.pool = new WorkerPool(this.workers, workerUrl(), { heapMb: this.heapMb, debug: this.debug });
    return this.pool;
  }

  /** The parse threads (tests, health). */
  get threads(): WorkerPool | null {
    return this.pool;
  }

  /** Starts the parse threads now rather than at the first document. */
  warm(): void {
    this.getPool().warm();
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    return { ok: true, message: `PDFium (WebAssembly) in ${this.workers} worker process(es) of at most ${this.heapMb} MB heap each` };
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = null;
  }

  private ocrRun(input: ReaderInput, pool: WorkerPool, jobId: string, signal: AbortSignal, limits: ReadLimits, options: ReadOptions): OcrRun {
    const ocr = options.ocr?.enabled !== false ? this.ctx.ocr : undefined;
    return {
      input,
      pool,
      jobId,
      signal,
      limits,
      options,
      ocr,
      broken: ocr ? null : 'No OCR engine is available',
      gate: new Gate(this.ocrConcurrency),
      engines: new Set(),
      issues: [],
      blank: [],
      tmpDir: null,
      agentic: options.ocr?.agentic && ocr ? { read: [], changed: [], lines: 0 } : null,
    };
  }

  /**
   * The OCR of the pages a deferred read left (ReaderPlugin.ocrPages): each page is parsed alone by the parse
   * threads (a page without a text layer is quick: its size and the resolution of its image), drawn, read
   * by the OCR plugin and laid out as read() lays out a scanned page; the document answered holds these
   * pages only, for the `ocr` stage to merge into the stored one. Running heads and footers are found
   * among these pages.
   */
  async ocrPages(input: ReaderInput, numbers: number[], options: ReadOptions): Promise<ParsedDocument> {
    return this.scoped(input, options, 'PDF OCR', async ({ pool, jobId, signal, limits, run }) => {
      const wanted = [...new Set(numbers)].filter((n) => Number.isInteger(n) && n >= 1).sort((a, b) => a - b);
      if (wanted.length > limits.pages) throw errors.unprocessable(`PDF could not be read: ${wanted.length} pages to OCR; the limit is ${limits.pages}`, { pages: wanted.length, limit: limits.pages });
      const pages: AssembledPage[] = [];
      let done = 0;
      const jobs = wanted.map(async (n) => {
        let parsed: PageResult[];
        try {
          parsed = await pool.run<PageResult[]>({ type: 'pages', jobId, path: input.path, from: n, to: n }, signal);
        } catch (e) {
          if (signal.aborted) throw signal.reason;
          throw openError(e, input.size, this.heapMb);
        }
        const p = parsed.find((r) => r.number === n);
        if (!p) return;
        pages.push(p);
        if (p.blank) run.blank.push(n);
        else if (p.needsOcr && !p.error) {
          if ((p.imagePixels ?? 0) > limits.imagePixels) {
            const mp = (v: number) => `${Math.round(v / 1e5) / 10} megapixels`;
            throw errors.unprocessable(`PDF could not be read: page ${n} holds an image of ${mp(p.imagePixels!)}; the limit is ${mp(limits.imagePixels)}`, { page: n, pixels: p.imagePixels, limit: limits.imagePixels });
          }
          await this.ocrPage(run, p);
        }
        done++;
        options.onProgress?.(Math.min(0.99, done / wanted.length), { done, total: wanted.length });
      });
      jobs.forEach((j) => j.catch(() => {}));
      await Promise.all(jobs);
      pages.sort((a, b) => a.number - b.number);
      const builder = new DocumentBuilder(input.documentId, input.name, input.format);
      if (run.engines.size) builder.metadata.ocrEngine = [...run.engines].sort().join(',');
      if (run.agentic) builder.metadata[AGENTIC_KEY] = agenticReport(run.agentic);
      setAsideFurniture(pages);
      assemble(builder, pages);
      if (run.blank.length) builder.issue({ code: 'BLANK_PAGES', stage: 'ocr', message: `${blankPagesNote(run.blank.sort((a, b) => a - b))}; not OCRed` });
      for (const i of run.issues.sort((a, b) => (a.page ?? 0) - (b.page ?? 0))) builder.issue(i);
      options.onProgress?.(1);
      return builder.build({ title: false });
    });
  }

  /**
   * Runs one piece of work on a document (a read, the OCR of pages) under one signal: the caller's abort, the
   * time limit (`what` timed out), or a failure that makes the rest of the work pointless (queued page ranges
   * and renders dropped, OCR processes killed). Afterwards the parse threads release the document and the
   * folder of its page images is removed.
   */
  private async scoped<T>(input: ReaderInput, options: ReadOptions, what: string, work: (scope: { pool: WorkerPool; jobId: string; signal: AbortSignal; limits: ReadLimits; run: OcrRun }) => Promise<T>): Promise<T> {
    options.signal?.throwIfAborted();
    const limits = readLimits(options);
    const pool = this.getPool();
    const jobId = randomUUID();
    const ac = new AbortController();
    setMaxListeners(0, ac.signal); // one listener per queued chunk / OCR page
    const timeoutError = errors.processing(`${what} timed out after ${Math.round(this.timeoutMs / 1000)} s`);
    const timer = setTimeout(() => ac.abort(timeoutError), this.timeoutMs);
    const onOuterAbort = () => ac.abort(options.signal!.reason ?? new Error('aborted'));
    if (options.signal?.aborted) onOuterAbort();
    else options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const signal = ac.signal;
    const run = this.ocrRun(input, pool, jobId, signal, limits, options);
    try {
      return await work({ pool, jobId, signal, limits, run });
    } catch (e) {
      if (options.signal?.aborted) throw options.signal.reason ?? e;
      if (signal.aborted && signal.reason === timeoutError) throw timeoutError;
      // a failure: what is still queued or running for this document stops
      if (!signal.aborted) ac.abort(e);
      throw e;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onOuterAbort);
      pool.broadcast({ type: 'release', jobId });
      // one folder for the page images of this document, made by the first page OCRed
      await removeTmp(run);
    }
  }

  /**
   * A page drawn in colour for people to look at (the studio), by the same parse threads (heap limit,
   * stopped by the signal). The document is opened for this one page and released after it.
   */
  async renderPage(input: ReaderInput, page: number, options: { dpi: number; maxPixels: number; signal?: AbortSignal }): Promise<{ png: Buffer; width: number; height: number }> {
    const jobId = `preview-${randomUUID()}`;
    const pool = this.getPool();
    try {
      const r = await pool.run<{ png: Uint8Array; width: number; height: number }>({ type: 'preview', jobId, path: input.path, page, dpi: options.dpi, maxPixels: options.maxPixels }, options.signal).catch((e: unknown) => {
        throw (e as Error)?.name === 'MemoryLimitError' ? memoryError(this.heapMb) : e;
      });
      return { png: Buffer.from(r.png.buffer, r.png.byteOffset, r.png.byteLength), width: r.width, height: r.height };
    } finally {
      pool.broadcast({ type: 'release', jobId });
    }
  }

  /** Renders page `p`, has it read by the OCR plugin (twice with ocr.agentic) and lays its text out (p.ocr). */
  private async ocrPage(run: OcrRun, p: AssembledPage): Promise<void> {
        const { pool, jobId, signal, limits, options, engines, issues, blank } = run;
        const input = run.input;
        const ocr = run.ocr;
        await run.gate.run(async () => {
          if (run.broken) {
            issues.push({ code: 'OCR_UNAVAILABLE', stage: 'ocr', page: p.number, message: `Page ${p.number} has no text layer and was not OCRed: ${run.broken}` });
            return;
          }
          signal.throwIfAborted();
          run.tmpDir ??= fs.mkdtemp(path.join(os.tmpdir(), 'quire-pdf-'));
          // a greyscale PNG (see greyPng in the worker)
          const out = path.join(await run.tmpDir, `page-${p.number}.png`);
          let drawing = true;
          try {
            const language = options.ocr?.language || this.ocrLanguage;
            const dpi = ocrDpi(this.ocrDpi, p.imageDpi);
            const render = (rotate?: number, at = dpi) =>
              this.renderGate.run(
                () => pool.run<Rendered>({ type: 'render', jobId, path: input.path, page: p.number, dpi: at, out, rotate, maxPixels: limits.imagePixels, imagePixels: limits.imagePixels }, signal, { first: true }).catch((e: unknown) => {
                  throw (e as Error)?.name === 'MemoryLimitError' ? memoryError(this.heapMb) : e;
                }),
                signal,
              );
            let r = await render();
            if (r.blank) {
              // nothing on the drawn page (a white scan): no OCR
              p.needsOcr = false;
              p.blank = true;
              blank.push(p.number);
              return;
            }
            drawing = false;
            let res = await ocr!.recognize(out, { language, signal, dpi: r.dpi });
            let rotate = 0;
            let k = r.width ? p.width / r.width : 72 / r.dpi;
            // poor text may be a page scanned sideways or upside down: ask the engine and read it turned
            const orient = (ocr as OrientationAware).detectOrientation;
            if (res.confidence < 0.75 && typeof orient === 'function') {
              const o = await orient.call(ocr, out, { signal }).catch(() => null);
              if (o && o.rotate % 360 !== 0) {
                drawing = true;
                const r2 = await render(o.rotate);
                drawing = false;
                const res2 = await ocr!.recognize(out, { language, signal, dpi: r2.dpi });
                if (res2.confidence > res.confidence && res2.text.length >= res.text.length * 0.5) {
                  res = res2;
                  r = r2;
                  rotate = o.rotate;
                  k = 72 / r2.dpi;
                }
              }
            }
            if (run.agentic) {
              // agentic OCR: the page read a second time, drawn at another resolution; each line is taken
              // from the reading whose recogniser was the more confident of it
              run.agentic.read.push(p.number);
              const again = agenticDpi(r.dpi);
              drawing = true;
              const r2 = await render(rotate || undefined, again);
              drawing = false;
              if (!r2.blank && r2.width) {
                const res2 = await ocr!.recognize(out, { language, signal, dpi: r2.dpi });
                const picked = pickBetterLines(res, res2, r.width ? r.width / r2.width : r.dpi / r2.dpi);
                if (picked.changed) {
                  res = picked.result;
                  run.agentic.changed.push(p.number);
                  run.agentic.lines += picked.changed;
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
            if (res.engine) engines.add(res.engine);
          } catch (e) {
            if (signal.aborted) throw signal.reason;
            if (isQuireError(e) && e.code === 'SERVICE_UNAVAILABLE') {
              run.broken = e.message;
              issues.push({ code: 'OCR_UNAVAILABLE', stage: 'ocr', page: p.number, message: `Page ${p.number} has no text layer and was not OCRed: ${e.message}` });
            } else if (isQuireError(e) && (e.code === 'VALIDATION_ERROR' || e.code === 'UNPROCESSABLE')) {
              throw e;
            } else {
              issues.push({ code: 'OCR_FAILED', stage: 'ocr', page: p.number, message: `OCR failed on page ${p.number}: ${ocrFailure(e, drawing)}` });
            }
          } finally {
            await fs.rm(out, { force: true });
          }
        }, signal);
  }

  async read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
    // one signal for everything of this read (scoped)
    return this.scoped(input, options, 'PDF parse', async ({ pool, jobId, signal, limits, run }) => {
      // the worker that opens the document parses its first pages; the rest go out in chunks to all
      // workers (each opens the document once and keeps it for the chunks it takes)
      const limit = options.maxPages && options.maxPages > 0 ? options.maxPages : Infinity;
      const firstTo = Math.min(limit, FIRST_CHUNK);
      let opened: OpenResult;
      // a document over the page limit is not parsed at all (unless only its first pages are read)
      const pageLimit = limit <= limits.pages ? undefined : limits.pages;
      const opening = pool.run<OpenResult>({ type: 'open', jobId, path: input.path, firstTo, pageLimit }, signal);
      // while one worker opens the document, the others open it too, ready for the page ranges
      for (let i = 1; i < this.workers && firstTo >= FIRST_CHUNK; i++) pool.run({ type: 'load', jobId, path: input.path }, signal).catch(() => {});
      try {
        opened = await opening;
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        throw openError(e, input.size, this.heapMb);
      }
      const total = opened.numPages;
      const count = Math.min(total, limit);
      if (count > limits.pages) throw errors.unprocessable(`PDF could not be read: the document has ${total} pages; the limit is ${limits.pages}`, { pages: total, limit: limits.pages });
      const builder = new DocumentBuilder(input.documentId, input.name, input.format);
      builder.metadata = { ...opened.metadata, numPages: total, pagesExtracted: count, truncated: count < total };

      // ranges that get smaller towards the end (a third of what is left per worker): a free worker takes
      // the next one, and the workers finish together instead of one waiting on the other's last long range
      const ranges: [number, number][] = [];
      for (let from = opened.pages.length + 1; from <= count; ) {
        const size = Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, Math.ceil((count - from + 1) / (this.workers * 3))));
        ranges.push([from, Math.min(count, from + size - 1)]);
        from += size;
      }
      const pages: AssembledPage[] = new Array(count);
      const ocrEnabled = options.ocr?.enabled !== false;
      const ocr = ocrEnabled ? this.ctx.ocr : undefined;
      const { engines, issues, blank } = run;
      const ocrJobs: Promise<void>[] = [];
      let done = 0;
      let damaged = 0;
      /** pages that need OCR, left to the ocr stage (options.ocr.defer) */
      const pending: number[] = [];

      const ocrPage = (p: AssembledPage) => this.ocrPage(run, p);
      const accept = (results: PageResult[]) => {
        for (const r of results) {
          if (r.number > count) continue;
          if (r.error) {
            // a file cut short: its pages fail one after the other; the document fails now
            if (!opened.complete) throw errors.processing(DAMAGED, { page: r.number });
            r.error = 'its content is damaged';
            damaged++;
          }
          pages[r.number - 1] = r;
          if (r.blank) blank.push(r.number);
          else if (r.needsOcr) {
            if (!ocrEnabled) issues.push({ code: 'OCR_DISABLED', stage: 'ocr', page: r.number, message: `Page ${r.number} has no text layer and OCR is disabled` });
            else {
              if ((r.imagePixels ?? 0) > limits.imagePixels) {
                const mp = (n: number) => `${Math.round(n / 1e5) / 10} megapixels`;
                throw errors.unprocessable(`PDF could not be read: page ${r.number} holds an image of ${mp(r.imagePixels!)}; the limit is ${mp(limits.imagePixels)}`, { page: r.number, pixels: r.imagePixels, limit: limits.imagePixels });
              }
              // the pipeline's ocr stage reads this page with OCR: this read leaves it without text
              if (options.ocr?.defer && ocr) pending.push(r.number);
              else {
                const job = ocrPage(r);
                job.catch(() => {});
                ocrJobs.push(job);
              }
            }
          }
          done++;
        }
        options.onProgress?.(Math.min(0.99, done / Math.max(1, count)), { done, total: count });
      };
      accept(opened.pages);
      await Promise.all(ranges.map(([from, to]) => pool.run<PageResult[]>({ type: 'pages', jobId, path: input.path, from, to }, signal).then(accept))).catch((e) => {
        if (signal.aborted) throw signal.reason;
        throw openError(e, input.size, this.heapMb);
      });
      if (count > 0 && damaged === count) throw errors.processing(DAMAGED);
      await Promise.all(ocrJobs);
      if (engines.size) builder.metadata.ocrEngine = [...engines].sort().join(',');
      if (run.agentic) builder.metadata[AGENTIC_KEY] = agenticReport(run.agentic);
      if (pending.length) builder.metadata[OCR_PENDING_KEY] = pending.sort((a, b) => a - b);
      // running heads, footers and page numbers: found by repetition across the pages, set apart
      setAsideFurniture(pages);
      // hyphens at line ends: compound words keep theirs, hyphenated words are joined (from the whole text)
      resolveHyphenBreaks(pages);
      assemble(builder, pages);
      if (blank.length) builder.issue({ code: 'BLANK_PAGES', stage: 'ocr', message: `${blankPagesNote(blank)}; not OCRed` });
      for (const i of issues.sort((a, b) => (a.page ?? 0) - (b.page ?? 0))) builder.issue(i);
      options.onProgress?.(1);
      return builder.build();
    });
  }
}

export default definePlugin({
  kind: 'reader',
  name: 'pdf',
  core: '^1',
  description: 'PDF on PDFium (WebAssembly) in worker processes: reading order, headings, lists, key-values, tables, form fields, OCR of scanned pages.',
  formats: builtinFormats('pdf'),
  uses: ['ocr?'],
  options: PDF_READER_OPTIONS,
  shared: ['limits.parseTimeoutMs', 'limits.readerHeapMb', 'ocr.concurrency', 'ocr.language'],
  create(ctx) {
    const { prestart, ...o } = ctx.options;
    const s = ctx.shared;
    const reader = new PdfReader(ctx, { ...o, timeoutMs: o.timeoutMs ?? s['limits.parseTimeoutMs'], ocrConcurrency: o.ocrConcurrency ?? s['ocr.concurrency'], heapMb: o.heapMb ?? s['limits.readerHeapMb'], ocrLanguage: s['ocr.language'] });
    // a service reads PDFs soon after it starts: the workers and PDFium load now, not under the first document
    if (prestart) reader.warm();
    return reader;
  },
});
