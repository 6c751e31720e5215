/**
 * An opt-in PDF reader on poppler-utils: `pdftotext -bbox-layout` gives the text of born-digital pages with
 * page sizes and the boxes of blocks, lines and words; pages without text are drawn with `pdftoppm` and
 * read by the `ocr` plugin. The tools are separate programs (GPL) started without a shell on the file Quire
 * stored; nothing of poppler is linked into Quire. Not loaded by default: QUIRE_PLUGINS=@quire/plugin-reader-pdf-poppler
 * registers it after the built-in PDFium reader, and the later reader of a format is the one used.
 *
 * Blocks are poppler's blocks in poppler's reading order, as paragraphs (list items when they start with a
 * bullet or a number, key-values when a one-line block reads `Label: value`). There are no headings (poppler's output has no font sizes or weights) and no tables
 * on text pages.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { builtinFormats, definePlugin, DocumentBuilder, errors, isQuireError, OCR_PENDING_KEY, readLimits, z } from '@quire/core';
import type { BlockInput, OcrPlugin, ParsedDocument, PluginContext, ReaderInput, ReaderPlugin, ReadOptions, Table, Word } from '@quire/core';
import { cleanText, isListItem, joinLines, layoutOcrPage, ocrWordsToPoints, parseKeyValue } from '@quire/layout';
import { lineText, parseBboxLayout } from './bbox.js';

export { parseBboxLayout, decodeXml, lineText } from './bbox.js';
export type { PopplerDoc, PopplerPage, PopplerBlock, PopplerLine, PopplerWord } from './bbox.js';

/** Options of the poppler reader (plugin options `reader:pdf-poppler`), with their defaults. */
export const POPPLER_READER_OPTIONS = z.strictObject({
  /** program names or paths (from PATH by default) */
  pdftotext: z.string().min(1).default('pdftotext'),
  pdfinfo: z.string().min(1).default('pdfinfo'),
  pdftoppm: z.string().min(1).default('pdftoppm'),
  /** pdftotext processes at once for one document, each on its own page range (QUIRE_PDF_WORKERS; default: the number of cores) */
  processes: z.number().int().min(1).max(64).default(Math.max(1, os.availableParallelism?.() ?? os.cpus().length)),
  /** time limit of one read, ms (default: the shared limits.parseTimeoutMs) */
  timeoutMs: z.number().int().positive().optional(),
  /** resolution of pages drawn for OCR */
  ocrDpi: z.number().int().min(50).max(1200).default(300),
  /** pages OCRed at once (default: the shared ocr.concurrency) */
  ocrConcurrency: z.number().int().min(1).max(64).optional(),
});
export type PopplerReaderOptions = z.input<typeof POPPLER_READER_OPTIONS>;

/** What a PopplerPdfReader runs with: its options, the shared settings filled in. */
export type PopplerReaderSettings = Required<z.output<typeof POPPLER_READER_OPTIONS>> & {
  /** OCR language(s) of a read that names none (the shared ocr.language, QUIRE_OCR_LANGUAGE) */
  ocrLanguage: string;
};

/** pages per pdftotext run at most: the output of one run (XHTML, about 100 bytes a word) stays small */
const MAX_RANGE = 100;
/** documents shorter than this are read by one process */
const SPLIT_FROM = 16;
/** largest page image drawn for OCR (pixels) */
const MAX_PIXELS = 20_000_000;

interface RunError extends Error {
  code?: string | number;
  killed?: boolean;
  signal?: string;
  stderr?: string;
}

/** Runs a program (no shell) and gives its output; the child is killed when `signal` aborts. */
function run(cmd: string, args: string[], signal: AbortSignal, maxBuffer = 512 * 1024 * 1024): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', maxBuffer, signal, killSignal: 'SIGKILL', windowsHide: true }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

/** The first meaningful line of a tool's error output. */
function reasonOf(e: RunError): string {
  const lines = (e.stderr ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.find((l) => /error/i.test(l)) ?? lines[0] ?? e.message;
  return line.replace(/\s+/g, ' ').slice(0, 300);
}

/** pdfinfo's `Key: value` lines. */
function parseInfo(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([A-Za-z][\w ]*?):\s*(.*)$/.exec(line);
    if (m && !(m[1]! in out)) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

/** pdfinfo -isodates gives `2020-04-02T10:30:00+09` (hour-only offsets); ISO 8601 for the metadata. */
function isoDate(s: string | undefined): string | undefined {
  if (!s) return undefined;
  const d = new Date(/[+-]\d\d$/.test(s) ? `${s}:00` : s);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** A small counting gate for jobs in parallel. */
async function eachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown = null;
  const lane = async () => {
    while (next < items.length && !failed) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failed) throw failed;
}

interface PageOut {
  number: number;
  width: number;
  height: number;
  blocks: BlockInput[];
  tables: Omit<Table, 'page'>[];
  ocr: boolean;
  confidence: number;
  words?: Word[];
  /** the order of blocks and tables on an OCRed page */
  order?: ('block' | 'table')[];
}

export class PopplerPdfReader implements Omit<ReaderPlugin, 'formats'> {
  /** the work is done by separate processes (pdftotext, pdftoppm), killed on abort and at the time limit */
  readonly isolated = true;
  private readonly bin: { pdftotext: string; pdfinfo: string; pdftoppm: string };
  private readonly processes: number;
  private readonly timeoutMs: number;
  private readonly ocrDpi: number;
  private readonly ocrConcurrency: number;
  private readonly ocrLanguage: string;

  constructor(
    private readonly ctx: Pick<PluginContext, 'ocr'>,
    opts: PopplerReaderSettings,
  ) {
    this.bin = { pdftotext: opts.pdftotext, pdfinfo: opts.pdfinfo, pdftoppm: opts.pdftoppm };
    this.processes = opts.processes;
    this.timeoutMs = opts.timeoutMs;
    this.ocrDpi = opts.ocrDpi;
    this.ocrConcurrency = opts.ocrConcurrency;
    this.ocrLanguage = opts.ocrLanguage;
  }

  /**
   * A page drawn in colour for people to look at (the studio), by pdftoppm in a process of its own (killed
   * on abort); fewer dots per inch when the image would pass `maxPixels`.
   */
  async renderPage(input: ReaderInput, page: number, options: { dpi: number; maxPixels: number; signal?: AbortSignal }): Promise<{ png: Buffer; width: number; height: number }> {
    const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
    const info = (await run(this.bin.pdfinfo, ['-f', String(page), '-l', String(page), input.path], signal, 1024 * 1024).catch(() => ({ stdout: '' }))).stdout;
    const pages = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
    if (page < 1 || page > pages) throw new Error(`page ${page} is not in the document`);
    const size = /^Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+)/m.exec(info);
    const area = size ? Number(size[1]) * Number(size[2]) : 0;
    let dpi = options.dpi;
    const cap = Math.min(MAX_PIXELS, options.maxPixels);
    if (area > 0 && area * (dpi / 72) ** 2 > cap) dpi = Math.max(1, Math.floor(72 * Math.sqrt(cap / area)));
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-poppler-page-'));
    try {
      const prefix = path.join(dir, 'page');
      await run(this.bin.pdftoppm, ['-r', String(dpi), '-png', '-f', String(page), '-l', String(page), '-singlefile', input.path, prefix], signal, 1024 * 1024);
      const png = await fs.readFile(`${prefix}.png`);
      return { png, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
    } finally {
      await fs.rm(dir, { recursive: true, force: true }).catch(() => {});
    }
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    try {
      const { stdout, stderr } = await run(this.bin.pdftotext, ['-v'], AbortSignal.timeout(10_000));
      const version = /pdftotext version (\S+)/.exec(stdout + stderr)?.[1];
      return { ok: true, message: `poppler pdftotext ${version ?? ''}`.trim() };
    } catch (e) {
      return { ok: false, message: `pdftotext (poppler-utils) cannot run: ${(e as Error).message}` };
    }
  }

  /** Maps a tool's failure to a Quire error. */
  private toolError(tool: string, e: unknown, signal: AbortSignal, outer?: AbortSignal): Error {
    if (outer?.aborted) return (outer.reason as Error) ?? new Error('aborted');
    if (signal.aborted) return errors.processing(`PDF parse timed out after ${Math.round(this.timeoutMs / 1000)} s`);
    if (isQuireError(e)) return e;
    const err = e as RunError;
    if (err.code === 'ENOENT') return errors.unavailable(`${tool} is not installed (poppler-utils is needed by the pdf-poppler reader)`);
    // the tools' own words (stderr) are not passed on: they name internals, not what is wrong with the file
    const reason = reasonOf(err);
    if (/password|encrypt/i.test(reason)) return errors.processing('PDF could not be read: the file is encrypted (password-protected)');
    return errors.processing('PDF could not be read: the file is truncated or damaged', { tool });
  }

  async read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
    const outer = options.signal;
    outer?.throwIfAborted();
    const signal = outer ? AbortSignal.any([outer, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
    // an absolute path: never taken for an option
    const file = path.resolve(input.path);

    let info: Record<string, string>;
    try {
      info = parseInfo((await run(this.bin.pdfinfo, ['-isodates', '-enc', 'UTF-8', file], signal, 16 * 1024 * 1024)).stdout);
    } catch (e) {
      throw this.toolError('pdfinfo', e, signal, outer);
    }
    const numPages = Number(info.Pages);
    if (!(numPages > 0)) throw errors.processing('PDF could not be read: no pages');
    const count = options.maxPages && options.maxPages > 0 ? Math.min(numPages, options.maxPages) : numPages;
    const limits = readLimits(options);
    if (count > limits.pages) throw errors.unprocessable(`PDF could not be read: the document has ${numPages} pages; the limit is ${limits.pages}`, { pages: numPages, limit: limits.pages });

    // page ranges, one pdftotext process each, `processes` at a time
    const lanes = count < SPLIT_FROM ? 1 : this.processes;
    const size = Math.min(MAX_RANGE, Math.ceil(count / lanes));
    const ranges: [number, number][] = [];
    for (let from = 1; from <= count; from += size) ranges.push([from, Math.min(count, from + size - 1)]);
    const pages: PageOut[] = new Array(count);
    let done = 0;
    try {
      await eachLimit(ranges, lanes, async ([from, to]) => {
        for (const p of await this.textPages(file, from, to, signal)) pages[p.number - 1] = p;
        done += to - from + 1;
        options.onProgress?.(Math.min(0.99, done / count), { done, total: count });
      });
    } catch (e) {
      throw this.toolError('pdftotext', e, signal, outer);
    }

    const builder = new DocumentBuilder(input.documentId, input.name, input.format);
    const metadata: ParsedDocument['metadata'] = { numPages, pagesExtracted: count, truncated: count < numPages };
    const keys: [string, string][] = [['Title', 'title'], ['Author', 'author'], ['Subject', 'subject'], ['Creator', 'creator'], ['Producer', 'producer']];
    for (const [k, m] of keys) if (info[k]) metadata[m] = info[k];
    const created = isoDate(info.CreationDate);
    const modified = isoDate(info.ModDate);
    if (created) metadata.creationDate = created;
    if (modified) metadata.modificationDate = modified;
    builder.metadata = metadata;

    // pages without text: drawn and OCRed
    const empty: PageOut[] = [];
    for (let i = 0; i < count; i++) {
      pages[i] ??= { number: i + 1, width: 0, height: 0, blocks: [], tables: [], ocr: false, confidence: 1 };
      if (!pages[i]!.blocks.length) empty.push(pages[i]!);
    }
    // left to the pipeline's ocr stage (ocr.defer), which OCRs these pages alone (ocrPages)
    if (empty.length && options.ocr?.defer && options.ocr.enabled !== false && this.ctx.ocr) builder.metadata[OCR_PENDING_KEY] = empty.map((p) => p.number);
    else if (empty.length) await this.ocrEmptyPages(file, empty, builder, options, signal, outer);

    addPages(builder, pages);
    options.onProgress?.(1);
    return builder.build();
  }

  /**
   * The OCR of the pages a deferred read left (ReaderPlugin.ocrPages): each page is read by pdftotext for its
   * size (and any text it has after all), and a page without text is drawn by pdftoppm and read by the OCR
   * plugin, as read() does without `defer`. The document answered holds these pages only, for the `ocr`
   * stage to merge into the stored one (mergeOcrPages); the other pages are not read again.
   */
  async ocrPages(input: ReaderInput, numbers: number[], options: ReadOptions): Promise<ParsedDocument> {
    const outer = options.signal;
    outer?.throwIfAborted();
    const signal = outer ? AbortSignal.any([outer, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
    const file = path.resolve(input.path);
    const limits = readLimits(options);
    const wanted = [...new Set(numbers)].filter((n) => Number.isInteger(n) && n >= 1).sort((a, b) => a - b);
    if (wanted.length > limits.pages) throw errors.unprocessable(`PDF could not be read: ${wanted.length} pages to OCR; the limit is ${limits.pages}`, { pages: wanted.length, limit: limits.pages });
    const pages: PageOut[] = [];
    try {
      await eachLimit(wanted, this.processes, async (n) => {
        const p = (await this.textPages(file, n, n, signal)).find((x) => x.number === n);
        if (p) pages.push(p);
      });
    } catch (e) {
      throw this.toolError('pdftotext', e, signal, outer);
    }
    pages.sort((a, b) => a.number - b.number);
    const builder = new DocumentBuilder(input.documentId, input.name, input.format);
    const empty = pages.filter((p) => !p.blocks.length);
    if (empty.length) await this.ocrEmptyPages(file, empty, builder, { ...options, ocr: { ...options.ocr, defer: false } }, signal, outer);
    addPages(builder, pages);
    options.onProgress?.(1);
    return builder.build({ title: false });
  }

  /** The pages from..to as pdftotext reads them: poppler's blocks, as paragraphs, list items and key-values. */
  private async textPages(file: string, from: number, to: number, signal: AbortSignal): Promise<PageOut[]> {
    const { stdout } = await run(this.bin.pdftotext, ['-bbox-layout', '-enc', 'UTF-8', '-f', String(from), '-l', String(to), file, '-'], signal);
    const out: PageOut[] = [];
    for (const p of parseBboxLayout(stdout, from).pages) {
      if (p.number > to) break;
      const blocks: BlockInput[] = [];
      for (const b of p.blocks) {
        const text = cleanText(joinLines(b.lines.map(lineText)));
        if (!text.trim()) continue;
        const kv = b.lines.length === 1 ? parseKeyValue(text) : null;
        if (kv) blocks.push({ type: 'key_value', text, page: p.number, bbox: b.bbox, confidence: 1, key: kv.key, value: kv.value });
        else blocks.push({ type: isListItem(text) ? 'list_item' : 'paragraph', text, page: p.number, bbox: b.bbox, confidence: 1 });
      }
      out.push({ number: p.number, width: p.width, height: p.height, blocks, tables: [], ocr: false, confidence: 1 });
    }
    return out;
  }

  private async ocrEmptyPages(file: string, empty: PageOut[], builder: DocumentBuilder, options: ReadOptions, signal: AbortSignal, outer?: AbortSignal): Promise<void> {
    const issue = (p: PageOut, code: string, why: string) => builder.issue({ code, stage: 'ocr', page: p.number, message: `Page ${p.number} has no text layer${why}` });
    if (options.ocr?.enabled === false) {
      for (const p of empty) issue(p, 'OCR_DISABLED', ' and OCR is disabled');
      return;
    }
    const ocr = this.ctx.ocr;
    let broken: string | null = ocr ? null : 'No OCR engine is available';
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-poppler-'));
    try {
      await eachLimit(empty, this.ocrConcurrency, async (p) => {
        if (broken) return issue(p, 'OCR_UNAVAILABLE', ` and was not OCRed: ${broken}`);
        signal.throwIfAborted();
        let dpi = this.ocrDpi;
        const area = p.width * p.height;
        const cap = Math.min(MAX_PIXELS, readLimits(options).imagePixels);
        if (area > 0 && area * (dpi / 72) ** 2 > cap) dpi = Math.floor(72 * Math.sqrt(cap / area));
        const prefix = path.join(dir, `page-${p.number}`);
        try {
          await run(this.bin.pdftoppm, ['-r', String(dpi), '-gray', '-png', '-f', String(p.number), '-l', String(p.number), '-singlefile', file, prefix], signal, 1024 * 1024);
        } catch (e) {
          if (signal.aborted) throw e;
          return issue(p, 'OCR_FAILED', ' and could not be drawn for OCR');
        }
        try {
          const res = await ocr!.recognize(`${prefix}.png`, { language: options.ocr?.language || this.ocrLanguage, signal, dpi });
          const k = res.width && p.width ? p.width / res.width : 72 / dpi;
          p.ocr = true;
          if (res.engine) builder.metadata.ocrEngine = [...new Set([...String(builder.metadata.ocrEngine ?? '').split(',').filter(Boolean), res.engine])].sort().join(',');
          p.confidence = res.confidence;
          p.words = ocrWordsToPoints(res.words, k);
          p.order = [];
          for (const e of layoutOcrPage(res.lines, { page: p.number, scale: k })) {
            if (e.kind === 'table') p.tables.push(e.table);
            else p.blocks.push(e.block);
            p.order.push(e.kind);
          }
        } catch (e) {
          if (signal.aborted) throw e;
          if (isQuireError(e) && e.code === 'SERVICE_UNAVAILABLE') {
            broken = e.message;
            return issue(p, 'OCR_UNAVAILABLE', ` and was not OCRed: ${e.message}`);
          }
          return issue(p, 'OCR_FAILED', `; OCR failed: ${isQuireError(e) ? e.message : 'the OCR engine failed'}`);
        } finally {
          await fs.rm(`${prefix}.png`, { force: true });
        }
      });
    } catch (e) {
      throw this.toolError('pdftoppm', e, signal, outer);
    } finally {
      await fs.rm(dir, { recursive: true, force: true }).catch(() => {});
    }
  }
}

/** Adds pages to a document: each page, then its blocks and tables in their order. */
function addPages(builder: DocumentBuilder, pages: PageOut[]): void {
  for (const p of pages) {
    builder.addPage({ number: p.number, width: p.width, height: p.height, ocr: p.ocr, confidence: p.confidence, ...(p.words ? { words: p.words } : {}) });
    let prev: string | null = null;
    let bi = 0;
    let ti = 0;
    for (const kind of p.order ?? p.blocks.map(() => 'block' as const)) {
      if (kind === 'table') {
        builder.addTable({ ...p.tables[ti++]!, page: p.number });
        prev = 'table';
      } else {
        const b = p.blocks[bi++]!;
        builder.addBlock(b, prev === 'list_item' && b.type === 'list_item' ? '\n' : '\n\n');
        prev = b.type;
      }
    }
  }
}

export default definePlugin({
  kind: 'reader',
  name: 'pdf-poppler',
  core: '^1',
  description: 'PDF on poppler-utils (pdftotext -bbox-layout; pdftoppm and the ocr plugin for pages without text): fast text with boxes, simple blocks. Opt-in.',
  formats: builtinFormats('pdf'),
  uses: ['ocr?'],
  options: POPPLER_READER_OPTIONS,
  shared: ['limits.parseTimeoutMs', 'ocr.concurrency', 'ocr.language'],
  create(ctx) {
    const o = ctx.options;
    return new PopplerPdfReader(ctx, { ...o, timeoutMs: o.timeoutMs ?? ctx.shared['limits.parseTimeoutMs'], ocrConcurrency: o.ocrConcurrency ?? ctx.shared['ocr.concurrency'], ocrLanguage: ctx.shared['ocr.language'] });
  },
});
