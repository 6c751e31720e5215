/**
 * A parse worker (a child process started by core's startIsolate) on PDFium (WebAssembly): opens a PDF
 * once per job and lays out the page ranges it is given; renders pages without text for OCR. One task at
 * a time; documents stay open until the job is released. One PDFium instance per worker.
 */
import fs from 'node:fs/promises';
import v8 from 'node:v8';
import path from 'node:path';
import { heapTrimmer, isolatePort, packWords } from '@quire/core/isolate';
import { round } from '@quire/text';
import { detectRules } from '@quire/layout';
import type { Rule } from '@quire/layout';
import type { PageResult, OpenResult, WorkerRequest, WorkerResponse, PageElement } from './types.js';
import { layoutPage, mayHaveTable } from './layout.js';
import { uniformPixels } from './blank.js';
import { apply, startEngine, utf16, viewMatrix } from './pdfium.js';
import { pageText } from './text.js';
import { pageGraphics, pageInk, pageRules } from './objects.js';
import { isFigureCaption, markFigures } from './figures.js';
import { exitForm, fieldItems, formInfo, initForm, readFormFields, withFormValues } from './forms.js';
import { formValues } from '@quire/layout/form-values';
import type { FormValue } from '@quire/layout/form-values';
import pngjs from 'pngjs';

const { PNG } = pngjs;

const { data: workerData, port } = isolatePort();
const settings = (workerData ?? {}) as { debug?: boolean; heapMb?: number };
/**
 * PDFium's memory (WebAssembly, outside the heap limit) is capped too: at the heap limit less 256 MB for
 * the process itself (the isolate is killed past the heap limit and 128 MB), 256 MB at least.
 */
const WASM_MAX_MB = Math.max(256, (settings.heapMb ?? 768) - 256);
const e = await startEngine({ maxMb: WASM_MAX_MB, debug: settings.debug });
const { m } = e;

// fpdfview.h
const FPDF_ERR_FILE = 2;
const FPDF_ERR_PASSWORD = 4;
const FPDF_ANNOT = 0x01;
const FPDF_REVERSE_BYTE_ORDER = 0x10;
const FPDF_NO_CATCH = 0x100;
const BITMAP_BGRX = 3;

interface OpenDoc {
  doc: number;
  /** the file's bytes in WASM memory: PDFium reads them until the document is closed */
  buf: number;
  /** the form fill environment (0: none) */
  form: number;
  numPages: number;
  kind: 'none' | 'acroform' | 'xfa';
  /** an AcroForm's text and choice values as read from its field dictionaries (what PDFium's form API misses) */
  values?: Map<string, FormValue>;
}

interface Entry {
  doc: Promise<OpenDoc>;
  lastUsed: number;
}
const docs = new Map<string, Entry>();
/** The largest AcroForm whose field values are read with pdf-lib as well (it parses the whole file). */
const FORM_VALUES_MAX_BYTES = 16 * 1024 * 1024;
const MAX_OPEN = 3;

/** An error the reader maps to its messages (index.ts openError): a password, or a file PDFium cannot read. */
const fail = (name: string, message: string) => Object.assign(new Error(message), { name });

async function load(file: string): Promise<OpenDoc> {
  const t0 = performance.now();
  try {
    const bytes = await fs.readFile(file);
    if (bytes.length === 0) throw fail('DamagedError', 'the file is empty');
    const buf = e.malloc(bytes.length);
    if (!buf) throw fail('DamagedError', 'the file does not fit in memory');
    e.u8().set(bytes, buf);
    const doc = m.FPDF_LoadMemDocument(buf, bytes.length, '');
    if (e.memoryLimitHit()) {
      if (doc) m.FPDF_CloseDocument(doc);
      e.free(buf);
      overMemory();
    }
    if (!doc) {
      const code = m.FPDF_GetLastError();
      e.free(buf);
      if (code === FPDF_ERR_PASSWORD) throw fail('PasswordError', 'the file needs a password');
      throw fail('DamagedError', code === FPDF_ERR_FILE ? 'the file could not be read' : `PDFium could not open the file (error ${code})`);
    }
    const form = initForm(m, doc);
    const kind = formInfo(m, doc).kind;
    // export values shown by their labels, values written as names or streams: read once with pdf-lib
    const values = form && kind === 'acroform' && bytes.length <= FORM_VALUES_MAX_BYTES ? await formValues(bytes) : undefined;
    return { doc, buf, form, numPages: Math.max(0, m.FPDF_GetPageCount(doc)), kind, ...(values?.size ? { values } : {}) };
  } finally {
    tick('load', t0);
  }
}

function close(d: OpenDoc): void {
  exitForm(m, d.form);
  m.FPDF_CloseDocument(d.doc);
  e.free(d.buf);
}

async function getDoc(jobId: string, file: string): Promise<OpenDoc> {
  let entry = docs.get(jobId);
  if (!entry) {
    entry = { doc: load(file), lastUsed: Date.now() };
    entry.doc.catch(() => {});
    docs.set(jobId, entry);
    if (docs.size > MAX_OPEN) {
      const oldest = [...docs].filter(([k]) => k !== jobId).sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest) await release(oldest[0]);
    }
  }
  entry.lastUsed = Date.now();
  return entry.doc;
}

/** Jobs released lately: a preload that arrives after its job ended opens nothing. */
const released = new Set<string>();

async function release(jobId: string): Promise<void> {
  released.add(jobId);
  if (released.size > 256) released.delete(released.values().next().value!);
  const entry = docs.get(jobId);
  if (!entry) return;
  docs.delete(jobId);
  try {
    const d = await entry.doc;
    if (d.numPages >= TRIM_PAGES) trimmer.due();
    close(d);
  } catch {
    // failed to open: nothing to close
  }
}

/** A PDF date (D:YYYYMMDDHHmmSSOHH'mm) as ISO 8601, or undefined. */
export function pdfDate(s: string): string | undefined {
  const r = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*([Zz+-])?(\d{2})?'?(\d{2})?'?/.exec(s.trim());
  if (!r) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', se = '00', sign, oh = '00', om = '00'] = r;
  const offset = !sign || sign === 'Z' || sign === 'z' ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se)) - offset * 60_000;
  const date = new Date(ms);
  if (Number.isNaN(ms) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(se) > 59) return undefined;
  return date.toISOString();
}

function metaText(doc: number, tag: string): string | undefined {
  const s = utf16(m, (b, l) => m.FPDF_GetMetaText(doc, tag, b, l)).replace(/\u0000/g, '').trim();
  return s || undefined;
}

/** Whether the file ends as a PDF does (%%EOF in its last 2 KB): a file cut short lacks it. */
async function endsComplete(file: string): Promise<boolean> {
  const fh = await fs.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const n = Math.min(size, 2048);
    const buf = Buffer.alloc(n);
    await fh.read(buf, 0, n, size - n);
    return buf.includes('%%EOF');
  } finally {
    await fh.close();
  }
}

async function open(jobId: string, file: string, firstTo: number, pageLimit = Infinity): Promise<OpenResult> {
  const d = await getDoc(jobId, file);
  const complete = await endsComplete(file).catch(() => false);
  // over the page limit: nothing more is read
  if (d.numPages > pageLimit) return { numPages: d.numPages, metadata: {}, pages: [], complete };
  const metadata: OpenResult['metadata'] = {};
  const keys: [string, string, boolean][] = [
    ['title', 'Title', false],
    ['author', 'Author', false],
    ['subject', 'Subject', false],
    ['creator', 'Creator', false],
    ['producer', 'Producer', false],
    ['creationDate', 'CreationDate', true],
    ['modificationDate', 'ModDate', true],
  ];
  for (const [key, tag, date] of keys) {
    try {
      const v = metaText(d.doc, tag);
      const value = v && date ? pdfDate(v) : v;
      if (value) metadata[key] = value;
    } catch {
      // metadata is optional
    }
  }
  metadata.form = d.kind;
  const first = Math.min(d.numPages, firstTo);
  return { numPages: d.numPages, metadata, pages: first >= 1 ? await pages(jobId, file, 1, first) : [], complete };
}

// ---------- pages ----------

/** The reader's option debug (QUIRE_PDF_DEBUG=1): time spent per phase and heap size, printed to stderr when a job is released. */
const TIMING = settings.debug ? new Map<string, number>() : null;
function tick(k: string, t0: number): number {
  if (TIMING) TIMING.set(k, (TIMING.get(k) ?? 0) + performance.now() - t0);
  return performance.now();
}
const printTiming = () =>
  TIMING && console.error(`[pdf worker ${process.pid}] ms ${JSON.stringify(Object.fromEntries([...TIMING].map(([k, v]) => [k, Math.round(v)])))}; heap ${(v8.getHeapStatistics().used_heap_size / 1048576).toFixed(0)} MiB; wasm ${(e.u8().length / 1048576).toFixed(0)} MiB`);

/**
 * A CPU profile of this worker per released job, written to QUIRE_PDF_PROFILE_DIR (benchmarks: the
 * service's own --cpu-prof does not reach these processes, which are ended with SIGKILL).
 */
const PROFILE_DIR = process.env.QUIRE_PDF_PROFILE_DIR;
// the inspector module is loaded only then
const profiler = PROFILE_DIR ? new (await import('node:inspector/promises')).Session() : null;
async function startProfile(): Promise<void> {
  if (!profiler) return;
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
async function writeProfile(jobId: string): Promise<void> {
  if (!profiler) return;
  const { profile } = await profiler.post('Profiler.stop');
  await fs.writeFile(path.join(PROFILE_DIR!, `pdf-worker-${process.pid}-${Date.now()}-${jobId.slice(0, 8)}.cpuprofile`), JSON.stringify(profile));
  await startProfile();
}
if (profiler) {
  profiler.connect();
  await startProfile();
}

/**
 * An allocation was refused at the memory cap: the document needs more than a reader may take. What was
 * read with a refused allocation is incomplete, so the document fails rather than lose text unnoticed.
 */
function overMemory(): void {
  if (e.memoryLimitHit(true)) throw fail('MemoryLimitError', `the document needs more memory than the reader limit (PDFium ${WASM_MAX_MB} MB)`);
}

/** A WebAssembly trap or abort (out of memory, an assertion): the instance is left unusable. */
const stopped = (err: unknown) => (err as { name?: string } | null)?.name === 'RuntimeError' || /^Aborted\(/.test((err as Error | null)?.message ?? '');

function parsePage(d: OpenDoc, n: number): PageResult {
  let t = performance.now();
  const page = m.FPDF_LoadPage(d.doc, n - 1);
  if (!page) throw new Error(`page ${n} could not be loaded`);
  let tp = 0;
  try {
    const width = m.FPDF_GetPageWidthF(page), height = m.FPDF_GetPageHeightF(page);
    if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) throw new Error(`page ${n} has no size`);
    const view = viewMatrix(e, page, width, height);
    const result: PageResult = { number: n, width: round(width), height: round(height), needsOcr: false, elements: [] };
    tp = m.FPDFText_LoadPage(page);
    const { items, rotated, words, chars } = tp ? pageText(e, tp, view) : { items: [], rotated: [], words: [], chars: 0 };
    t = tick('text', t);
    TIMING?.set('pages', (TIMING.get('pages') ?? 0) + 1);
    const fields = d.form ? withFormValues(readFormFields(m, d.doc, page, d.form, n, (x, y) => apply(view, x, y)), d.values) : [];
    if (fields.length) result.fields = fields;
    const values = fieldItems(fields);
    t = tick('fields', t);
    if (chars < 3) {
      // no text layer: a scan or drawn text to OCR, or a blank page (nothing painted, or only a white
      // background) that OCR would spend seconds on for nothing. Annotations count (filled-in forms).
      const ink = pageInk(e, page, tp);
      t = tick('ink', t);
      if (ink.imagePixels) result.imagePixels = ink.imagePixels;
      if (ink.imageDpi) result.imageDpi = round(ink.imageDpi);
      if (ink.painted) result.needsOcr = true;
      else result.blank = true;
      if (chars > 0 || values.length) {
        // a page number or a mark, the values of form fields: kept as text (OCR, when it runs, reads the page anew)
        result.elements = layoutPage([...items, ...values], [], { width, height });
      }
      return result;
    }
    items.push(...values);
    // ruling lines: read only when the text could be a table
    const rules: Rule[] = mayHaveTable(items) ? pageRules(e, page, view, width, height) : [];
    t = tick('rules', t);
    let elements: PageElement[] = layoutPage(items, rules, { width, height, markHyphenBreaks: true });
    t = tick('layout', t);
    // figures: the text inside pictures (images; drawings next to a figure caption, whose paths are read only then)
    const captioned = elements.some((el) => el.kind === 'text' && el.lines <= 3 && isFigureCaption(el.text));
    elements = markFigures(elements, pageGraphics(e, page, view, width, height, captioned), { width, height });
    t = tick('figures', t);
    for (const r of rotated) {
      elements.push({ kind: 'text', type: 'paragraph', text: r.str.trim(), bbox: { x: round(r.x), y: round(r.top), width: round(r.width), height: round(r.bottom - r.top) }, lines: 1, size: r.size, bold: r.bold });
    }
    result.elements = elements;
    if (words.length) result.words = packWords(words);
    return result;
  } finally {
    if (tp) m.FPDFText_ClosePage(tp);
    m.FPDF_ClosePage(page);
  }
}

async function pages(jobId: string, file: string, from: number, to: number): Promise<PageResult[]> {
  const d = await getDoc(jobId, file);
  const out: PageResult[] = [];
  for (let n = from; n <= to; n++) {
    try {
      out.push(parsePage(d, n));
      overMemory();
    } catch (err) {
      overMemory();
      if (stopped(err) || (err as Error)?.name === 'MemoryLimitError') throw err;
      out.push({ number: n, width: 0, height: 0, needsOcr: false, elements: [], error: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/** largest page image for OCR (80 MB of RGBA): an A4 page fits at 300 dpi, larger pages are drawn at less */
const MAX_PIXELS = 20_000_000;

/**
 * The page drawn for OCR (annotations and form fields included) at `dpi`, turned `rotate` degrees
 * clockwise on top of its own rotation, within the pixel caps; written to `out` as a greyscale
 * PNG (what the OCR engine reads fastest) unless the page is blank.
 */
function render(d: OpenDoc, n: number, dpi: number, out: string, rotate = 0, maxPixels = MAX_PIXELS, preview = false): { dpi: number; width: number; height: number; rules: Rule[]; blank?: boolean; image?: Buffer } {
  const page = m.FPDF_LoadPage(d.doc, n - 1);
  if (!page) throw new Error(`page ${n} could not be loaded`);
  let bitmap = 0;
  try {
    const quarter = ((Math.round(rotate / 90) % 4) + 4) % 4;
    // PDFium's page size and drawing have the page's /Rotate applied already
    let w = m.FPDF_GetPageWidthF(page), h = m.FPDF_GetPageHeightF(page);
    if (quarter % 2) [w, h] = [h, w];
    let scale = dpi / 72;
    const cap = Math.min(MAX_PIXELS, maxPixels);
    if (w * h * scale * scale > cap) scale = Math.sqrt(cap / (w * h));
    while (scale > 0.01 && Math.ceil(w * scale) * Math.ceil(h * scale) > cap) scale *= 0.999; // whole pixels
    const pw = Math.max(1, Math.ceil(w * scale)), ph = Math.max(1, Math.ceil(h * scale));
    // RGBA order (REVERSE_BYTE_ORDER on a BGRx bitmap) for the blank test and the rules in the pixels
    bitmap = m.FPDFBitmap_CreateEx(pw, ph, BITMAP_BGRX, 0, 0);
    if (!bitmap) throw new Error('the page image could not be allocated');
    m.FPDFBitmap_FillRect(bitmap, 0, 0, pw, ph, 0xffffffff);
    const flags = FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER | FPDF_NO_CATCH;
    m.FPDF_RenderPageBitmap(bitmap, page, 0, 0, pw, ph, quarter, flags);
    if (d.form) {
      m.FORM_OnAfterLoadPage(page, d.form);
      m.FPDF_FFLDraw(d.form, bitmap, page, 0, 0, pw, ph, quarter, flags);
      m.FORM_OnBeforeClosePage(page, d.form);
    }
    const stride = m.FPDFBitmap_GetStride(bitmap);
    const ptr = m.FPDFBitmap_GetBuffer(bitmap);
    const heap = e.u8();
    const pixels = stride === pw * 4 ? heap.subarray(ptr, ptr + pw * ph * 4) : packRows(heap, ptr, stride, pw, ph);
    const res = { dpi: scale * 72, width: pw, height: ph };
    // a page to look at (the studio): in colour, blank or not
    if (preview) return { ...res, rules: [], image: colourPng(pixels, pw, ph) };
    // a blank page (a white scan, shapes drawn in white): nothing to OCR, no image written
    if (uniformPixels(pixels, pw, ph)) return { ...res, rules: [], blank: true };
    // ruling lines in the pixels (table borders of the scan), for tables in the OCR text
    const rules = detectRules({ data: pixels, width: pw, height: ph });
    return { ...res, rules, image: greyPng(pixels, pw, ph) };
  } finally {
    if (bitmap) m.FPDFBitmap_Destroy(bitmap);
    m.FPDF_ClosePage(page);
  }
}

function packRows(heap: Uint8Array, ptr: number, stride: number, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) out.set(heap.subarray(ptr + y * stride, ptr + y * stride + w * 4), y * w * 4);
  return out;
}

/**
 * RGBA pixels as an 8-bit greyscale PNG, unfiltered, zlib level 1: what the OCR engine reads fastest (at
 * 300 dpi tesseract took 0.23 s on it against 0.36 s on the same page as a PGM and more on RGB; the
 * encoding costs about 30 ms).
 */
function greyPng(rgba: Uint8Array, w: number, h: number): Buffer {
  const grey = Buffer.allocUnsafe(w * h);
  for (let i = 0, o = 0, n = w * h * 4; i < n; i += 4) grey[o++] = (rgba[i]! * 77 + rgba[i + 1]! * 150 + rgba[i + 2]! * 29) >> 8;
  return PNG.sync.write({ width: w, height: h, data: grey } as InstanceType<typeof PNG>, { colorType: 0, inputColorType: 0, inputHasAlpha: false, bitDepth: 8, deflateLevel: 1, filterType: 0 });
}

/**
 * RGBA pixels as a PNG to look at: greyscale when no pixel has colour (most text pages; a third of the
 * size), else RGB; deflate level 6 (an image sent over the network is worth the smaller size).
 */
function colourPng(rgba: Uint8Array, w: number, h: number): Buffer {
  let grey = true;
  for (let i = 0, n = w * h * 4; i < n && grey; i += 4) grey = rgba[i] === rgba[i + 1] && rgba[i] === rgba[i + 2];
  if (grey) {
    const g = Buffer.allocUnsafe(w * h);
    for (let i = 0, o = 0, n = w * h * 4; i < n; i += 4) g[o++] = rgba[i]!;
    return PNG.sync.write({ width: w, height: h, data: g } as InstanceType<typeof PNG>, { colorType: 0, inputColorType: 0, inputHasAlpha: false, bitDepth: 8, deflateLevel: 6 });
  }
  return PNG.sync.write({ width: w, height: h, data: Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength) } as InstanceType<typeof PNG>, { colorType: 2, inputColorType: 6, inputHasAlpha: true, bitDepth: 8, deflateLevel: 6 });
}

/** A page drawn for people to look at: the PNG itself is the answer (the document is released by the caller). */
async function previewOf(jobId: string, file: string, n: number, dpi: number, maxPixels?: number) {
  const d = await getDoc(jobId, file);
  if (n < 1 || n > d.numPages) throw new Error(`page ${n} is not in the document`);
  try {
    const r = render(d, n, dpi, '', 0, maxPixels, true);
    return { png: r.image!, width: r.width, height: r.height };
  } finally {
    overMemory();
  }
}

async function renderTo(jobId: string, file: string, n: number, dpi: number, out: string, rotate?: number, maxPixels?: number) {
  const d = await getDoc(jobId, file);
  const t0 = performance.now();
  let rendered: ReturnType<typeof render>;
  try {
    rendered = render(d, n, dpi, out, rotate, maxPixels);
  } finally {
    overMemory();
  }
  const { image, ...r } = rendered;
  tick('render', t0);
  if (image) await fs.writeFile(out, image);
  return r;
}

async function handle(msg: WorkerRequest): Promise<unknown> {
  switch (msg.type) {
    case 'open':
      return open(msg.jobId, msg.path, msg.firstTo, msg.pageLimit);
    case 'load':
      // open the document ahead of the page ranges this worker will be given
      if (!released.has(msg.jobId)) await getDoc(msg.jobId, msg.path).catch(() => {});
      return null;
    case 'pages':
      return pages(msg.jobId, msg.path, msg.from, msg.to);
    case 'render':
      return renderTo(msg.jobId, msg.path, msg.page, msg.dpi, msg.out, msg.rotate, msg.maxPixels);
    case 'preview':
      return previewOf(msg.jobId, msg.path, msg.page, msg.dpi, msg.maxPixels);
    case 'release':
      await release(msg.jobId);
      printTiming();
      await writeProfile(msg.jobId);
      return null;
  }
}

/**
 * After a document of TRIM_PAGES pages or more, the heap it grew is given back once no document is open and
 * no task has come for a moment (heapTrimmer): the service's next stages for that document (its JSON, its
 * chunks in an isolate of their own past 400 pages) run meanwhile and make the process tree's peak. Not
 * after smaller documents: the trim costs the next document more collections while the young generation
 * grows again (heapTrimmer), a cost a large document's parse makes small. PDFium's WebAssembly memory cannot
 * shrink; the file's bytes and its pages in it are freed on release.
 */
const TRIM_PAGES = 400;
const trimmer = heapTrimmer();
let running = 0;

port.on('message', (msg: WorkerRequest) => {
  if (e.aborted()) return;
  trimmer.busy();
  running++;
  void handle(msg)
    .then(
      (result) => port.postMessage({ id: msg.id, ok: true, result } satisfies WorkerResponse),
      (err: unknown) => {
        const x = err as { name?: string; message?: string };
        // PDFium stopped (out of memory, an abort): this instance cannot be used again, the pool starts another
        const fatal = stopped(err) || e.aborted();
        port.postMessage({ id: msg.id, ok: false, error: { name: x?.name ?? 'Error', message: x?.message ?? String(err) }, ...(fatal ? { fatal } : {}) } satisfies WorkerResponse);
        if (fatal) setTimeout(() => process.exit(70), 1000).unref();
        else e.memoryLimitHit(true);
      },
    )
    .finally(() => {
      if (--running === 0 && docs.size === 0) trimmer.idle();
    });
});
port.postMessage({ ready: true });
