import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, StandardFonts, rgb } from 'pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import { errors } from '@quire/core';
import type { OcrPlugin, OcrResult, ParsedDocument, ReadOptions } from '@quire/core';
import { PdfReader, blankPagesNote, uniformPixels } from '@quire/plugin-reader-pdf';
import { pdfReader } from './make-reader.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-limits-'));

/** An OCR stand-in: counts calls, takes `ms` (stopping at once when its signal aborts), or fails. */
function fakeOcr(opts: { ms?: number; fail?: Error } = {}) {
  const seen = { calls: 0, aborted: 0 };
  const plugin: OcrPlugin = {
    async recognize(_image, o): Promise<OcrResult> {
      seen.calls++;
      if (opts.fail) throw opts.fail;
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, opts.ms ?? 0);
        o.signal?.addEventListener('abort', () => {
          clearTimeout(t);
          seen.aborted++;
          reject(o.signal!.reason);
        }, { once: true });
      });
      return { text: 'Scanned words', words: [], lines: [{ text: 'Scanned words', bbox: { x: 100, y: 100, width: 400, height: 40 }, confidence: 0.95 }], confidence: 0.95, width: 2550, height: 3300 };
    },
    languages: async () => ['eng'],
  };
  return { plugin, seen };
}

const readers: PdfReader[] = [];
function makeReader(ocr?: OcrPlugin, opts: { heapMb?: number; workers?: number } = {}): PdfReader {
  const r = pdfReader({ workers: opts.workers ?? 2, heapMb: opts.heapMb }, { ocr, shared: { 'ocr.concurrency': 2, 'limits.parseTimeoutMs': 120_000 } });
  readers.push(r);
  return r;
}
/** One reader for most tests (threads start once); its OCR plugin is whichever `useOcr` set last. */
let currentOcr: OcrPlugin = fakeOcr().plugin;
const useOcr = <T extends { plugin: OcrPlugin }>(o: T): T => ((currentOcr = o.plugin), o);
const shared = makeReader({ recognize: (img, o) => currentOcr.recognize(img, o), languages: () => currentOcr.languages() });
after(async () => {
  await Promise.all(readers.map((r) => r.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
async function save(doc: PDFDocument, name: string): Promise<string> {
  const p = path.join(tmp, `${n++}-${name}`);
  fs.writeFileSync(p, await doc.save());
  return p;
}
const read = (r: PdfReader, p: string, o: Partial<ReadOptions> = {}): Promise<ParsedDocument> =>
  r.read({ path: p, name: path.basename(p), format: 'pdf', size: fs.statSync(p).size, documentId: path.basename(p) }, { ocr: { enabled: 'auto', language: 'eng' }, ...o });

/** A PNG of dark text on white (a scanned page), or of plain white (a blank scan). */
function scanPng(text: string | null, w = 1275, h = 1650): Buffer {
  const c = createCanvas(w, h);
  const g = c.getContext('2d');
  g.fillStyle = '#fdfdfd';
  g.fillRect(0, 0, w, h);
  if (text) {
    g.fillStyle = '#111';
    g.font = '48px DejaVu Sans';
    g.fillText(text, 100, 200);
  }
  return c.toBuffer('image/png');
}

test('300 blank pages are not rendered or OCRed, and the document says so', async () => {
  const doc = await PDFDocument.create();
  for (let i = 0; i < 300; i++) doc.addPage([612, 792]);
  const file = await save(doc, 'blank-300.pdf');
  const { seen } = useOcr(fakeOcr());
  const t0 = performance.now();
  const parsed = await read(shared, file);
  const ms = performance.now() - t0;
  console.log(`300 blank pages: ${Math.round(ms)} ms (thread start included), ${seen.calls} OCR calls`);
  assert.equal(parsed.pages.length, 300);
  assert.equal(seen.calls, 0);
  assert.deepEqual(parsed.issues.map((i) => i.message), ['pages 1–300 are blank; not OCRed']);
  assert.equal(parsed.issues[0]!.code, 'BLANK_PAGES');
  assert.ok(ms < 150_000, `${ms} ms`);
});

test('blank and near-blank pages among text and scans: only the scan is OCRed', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const scan = await doc.embedPng(scanPng('Invoice 4711 total 99 EUR'));
  const white = await doc.embedPng(scanPng(null));
  // 1 text; 2 empty; 3 a white background; 4 a scan; 5 a blank scan (white image); 6 only a page number; 7 a drawn frame
  doc.addPage([612, 792]).drawText('A page with a real text layer on it.', { x: 72, y: 700, size: 12, font });
  doc.addPage([612, 792]);
  doc.addPage([612, 792]).drawRectangle({ x: 0, y: 0, width: 612, height: 792, color: rgb(1, 1, 1) });
  doc.addPage([612, 792]).drawImage(scan, { x: 0, y: 0, width: 612, height: 792 });
  doc.addPage([612, 792]).drawImage(white, { x: 0, y: 0, width: 612, height: 792 });
  doc.addPage([612, 792]).drawText('6', { x: 300, y: 40, size: 10, font });
  doc.addPage([612, 792]).drawRectangle({ x: 100, y: 100, width: 400, height: 500, borderColor: rgb(0, 0, 0), borderWidth: 2 });
  const { seen } = useOcr(fakeOcr());
  const parsed = await read(shared, await save(doc, 'mixed.pdf'));
  assert.equal(parsed.pages.length, 7);
  // the scan and the drawn frame (painted, no text) are OCRed; the white scan is drawn, found blank and not OCRed
  assert.equal(seen.calls, 2);
  assert.deepEqual(parsed.pages.map((p) => p.ocr), [false, false, false, true, false, false, true]);
  assert.ok(parsed.text.includes('A page with a real text layer'));
  assert.ok(parsed.blocks.some((b) => b.page === 6 && b.text === '6'), 'the page number stays');
  assert.ok(parsed.issues.some((i) => i.code === 'BLANK_PAGES' && i.message === 'pages 2–3 and 5–6 are blank; not OCRed'), JSON.stringify(parsed.issues));
});

test('the blank-page note and the pixel test', () => {
  assert.equal(blankPagesNote([7]), 'page 7 is blank');
  assert.equal(blankPagesNote([3, 4, 5, 9, 11, 12]), 'pages 3–5, 9 and 11–12 are blank');
  const w = 400, h = 500;
  const px = new Uint8ClampedArray(w * h * 4).fill(250);
  assert.equal(uniformPixels(px, w, h), true);
  for (let i = 0; i < 8; i++) px.fill(0, (i * 997 * 4) % px.length, ((i * 997 * 4) % px.length) + 4); // specks
  assert.equal(uniformPixels(px, w, h), true, 'a few specks are still blank');
  for (let y = 200; y < 230; y++) px.fill(20, (y * w + 100) * 4, (y * w + 300) * 4); // a word
  assert.equal(uniformPixels(px, w, h), false);
});

test('limits: a document with more pages than the limit fails at once; the first pages of one may still be read', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < 12; i++) doc.addPage([612, 792]).drawText(`Page ${i + 1} of the long report`, { x: 72, y: 700, size: 12, font });
  const file = await save(doc, 'long.pdf');
  const reader = shared;
  await assert.rejects(read(reader, file, { limits: { pages: 10 } }), (e: any) => e.code === 'UNPROCESSABLE' && e.message === 'PDF could not be read: the document has 12 pages; the limit is 10');
  const first = await read(reader, file, { limits: { pages: 10 }, maxPages: 5 });
  assert.equal(first.pages.length, 5);
  assert.equal((await read(reader, file, { limits: { pages: 12 } })).pages.length, 12);
});

/** width x height of a page image written for OCR (a greyscale PNG; a binary PNM or any format imageInfo knows) */
async function imagePixels(file: string): Promise<number> {
  const buf = fs.readFileSync(file);
  const pnm = /^P[56]\s+(\d+)\s+(\d+)\s/.exec(buf.subarray(0, 64).toString('latin1'));
  if (pnm) return Number(pnm[1]) * Number(pnm[2]);
  const { imageInfo } = await import('@quire/plugin-reader-image');
  const f = imageInfo(buf).frames[0]!;
  return f.width * f.height;
}

test('limits: a scanned page whose image has more pixels than the limit fails the document; rendered pages stay within it', async () => {
  const doc = await PDFDocument.create();
  const big = await doc.embedPng(scanPng('big scan', 2000, 2000));
  // a 480 dpi image in a corner: the page is drawn at the reader's 300 dpi, 8.4 MP
  doc.addPage([612, 792]).drawImage(big, { x: 0, y: 492, width: 300, height: 300 });
  const file = await save(doc, 'big-image.pdf');
  const { plugin, seen } = useOcr(fakeOcr());
  await assert.rejects(read(shared, file, { limits: { imagePixels: 1_000_000 } }), (e: any) => e.code === 'UNPROCESSABLE' && /page 1 holds an image of 4 megapixels; the limit is 1 megapixels/.test(e.message));
  assert.equal(seen.calls, 0);
  // within the image limit, the page is drawn at no more pixels than the limit: 300 dpi would be 8.4 MP
  let pixels = 0;
  currentOcr = { ...plugin, recognize: async (img, o) => ((pixels = await imagePixels(img)), plugin.recognize(img, o)) };
  const within = await read(shared, file, { limits: { imagePixels: 5_000_000 } });
  assert.equal(within.pages[0]!.ocr, true);
  assert.ok(pixels > 4_000_000 && pixels <= 5_000_000, `${pixels} pixels`);
});

test('a scan is drawn for OCR at the resolution of its image (150 dpi here), not at the 300 dpi of the reader', async () => {
  const doc = await PDFDocument.create();
  // 1275 x 1650 pixels on a letter page: 150 dpi
  const scan = await doc.embedPng(scanPng('a scan at 150 dpi'));
  doc.addPage([612, 792]).drawImage(scan, { x: 0, y: 0, width: 612, height: 792 });
  const file = await save(doc, 'scan-150.pdf');
  const { plugin } = useOcr(fakeOcr());
  let pixels = 0;
  currentOcr = { ...plugin, recognize: async (img, o) => ((pixels = await imagePixels(img)), plugin.recognize(img, o)) };
  const parsed = await read(shared, file);
  assert.equal(parsed.pages[0]!.ocr, true);
  assert.ok(Math.abs(pixels - 1275 * 1650) < 1275 * 10, `${pixels} pixels`);
});

test('abort: in-flight OCR and parse threads stop promptly; the reader keeps working', async () => {
  const doc = await PDFDocument.create();
  const scan = await doc.embedPng(scanPng('Slow scanned page'));
  for (let i = 0; i < 20; i++) doc.addPage([612, 792]).drawImage(scan, { x: 0, y: 0, width: 612, height: 792 });
  const file = await save(doc, 'slow-scans.pdf');
  const { seen } = useOcr(fakeOcr({ ms: 60_000 }));
  const reader = shared;
  const ac = new AbortController();
  const t0 = performance.now();
  const reading = read(reader, file, { signal: ac.signal });
  while (seen.calls === 0 && performance.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 20));
  const abortedAt = performance.now();
  ac.abort(new Error('job cancelled'));
  await assert.rejects(reading, /job cancelled/);
  const took = performance.now() - abortedAt;
  assert.ok(took < 30_000, `stopped ${Math.round(took)} ms after the abort`);
  assert.ok(seen.aborted >= 1 && seen.aborted === seen.calls, `${seen.aborted} of ${seen.calls} OCR runs aborted`);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(seen.calls, seen.aborted, 'no OCR starts after the abort');
  const again = await read(reader, file, { ocr: { enabled: false, language: 'eng' } });
  assert.equal(again.pages.length, 20);
});

/**
 * A page of 40,000 separately placed 300-character words: far more memory than a small heap allows, held
 * in many separate objects (a thread limit stops that one thread; see the pool's note on single huge arrays).
 */
async function heavyPdf(): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('x', { x: 10, y: 10, size: 5, font });
  const fontKey = [...(page.node.Resources()!.lookup(PDFName.of('Font')) as any).keys()][0].asString();
  const parts: string[] = [];
  const long = 'abcdefghij'.repeat(30);
  for (let i = 0; i < 40_000; i++) parts.push(`1 0 0 1 ${(i * 7) % 600} ${(i * 3) % 780} Tm (w${i}-${long}) Tj`);
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(`BT ${fontKey} 4 Tf ${parts.join('\n')} ET`)));
  return save(doc, 'heavy.pdf');
}

test('heap limit: a document that needs more memory kills only its thread, fails UNPROCESSABLE, and the pool goes on', async () => {
  const heavy = await heavyPdf();
  const small = await PDFDocument.create();
  const font = await small.embedFont(StandardFonts.Helvetica);
  small.addPage([612, 792]).drawText('Still readable after a thread ran out of memory.', { x: 72, y: 700, size: 12, font });
  const smallFile = await save(small, 'small.pdf');
  // 192 MB: a thread started from the TypeScript sources (tsx) needs about 160 MB to start; built code far less
  const reader = makeReader(undefined, { heapMb: 192, workers: 1 });
  reader.warm();
  const [bad, good] = await Promise.allSettled([read(reader, heavy), read(reader, smallFile)]);
  assert.equal(bad.status, 'rejected');
  const e = (bad as PromiseRejectedResult).reason;
  assert.equal(e.code, 'UNPROCESSABLE');
  assert.equal(e.message, 'PDF could not be read: the document needs more memory than the reader limit (192 MB)');
  assert.equal(good.status, 'fulfilled', String((good as PromiseRejectedResult).reason?.stack ?? (good as PromiseRejectedResult).reason));
  assert.ok((good as PromiseFulfilledResult<ParsedDocument>).value.text.includes('Still readable'));
  assert.ok(reader.threads!.started >= 2, 'the dead thread was replaced');
  assert.equal(reader.threads!.threads, 1);
  assert.equal((await read(reader, smallFile)).pages.length, 1);
});

test('the plugin bounds itself (isolated) and takes its heap limit from the shared reader limit, or its option', async () => {
  const r = pdfReader({ workers: 1 }, { shared: { 'limits.readerHeapMb': 300 } });
  readers.push(r);
  assert.equal(r.isolated, true);
  assert.equal(r.heapMb, 300);
  const o = pdfReader({ workers: 1, heapMb: 200 }, { shared: { 'limits.readerHeapMb': 300 } });
  readers.push(o);
  assert.equal(o.heapMb, 200);
  assert.throws(() => pdfReader({ workers: 0 }), /reader:pdf: option "workers": Too small/);
  assert.throws(() => pdfReader({ heapMb: 10 }), /reader:pdf: option "heapMb"/);
});

test('encrypted, truncated and damaged files fail with a clear message, never the PDF engine internals', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < 8; i++) doc.addPage([612, 792]).drawText(`Page ${i + 1} has some text to read here`, { x: 72, y: 700, size: 12, font });
  const bytes = await doc.save();
  const reader = shared;
  for (const frac of [0.2, 0.5, 0.8, 0.97]) {
    const p = path.join(tmp, `cut-${frac}.pdf`);
    fs.writeFileSync(p, bytes.subarray(0, Math.floor(bytes.length * frac)));
    await assert.rejects(read(reader, p), (e: any) => e.code === 'PROCESSING_ERROR' && e.message === 'PDF could not be read: the file is truncated or damaged', `cut at ${frac}`);
  }
  const junk = path.join(tmp, 'junk.pdf');
  fs.writeFileSync(junk, '%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
  await assert.rejects(read(reader, junk), (e: any) => e.code === 'PROCESSING_ERROR' && e.message === 'PDF could not be read: the file is truncated or damaged');
  const empty = path.join(tmp, 'empty.pdf');
  fs.writeFileSync(empty, '');
  await assert.rejects(read(reader, empty), (e: any) => e.message === 'PDF could not be read: the file is empty');
});

test('OCR failures name the page and what failed, without the engine output', async () => {
  const doc = await PDFDocument.create();
  const scan = await doc.embedPng(scanPng('Words on a scan'));
  for (let i = 0; i < 2; i++) doc.addPage([612, 792]).drawImage(scan, { x: 0, y: 0, width: 612, height: 792 });
  const file = await save(doc, 'ocr-fails.pdf');
  useOcr(fakeOcr({ fail: errors.processing('tesseract exited with code 1') }));
  const quire = await read(shared, file);
  assert.deepEqual(quire.issues.map((i) => i.message), [1, 2].map((p) => `OCR failed on page ${p}: tesseract exited with code 1`));
  useOcr(fakeOcr({ fail: new Error('Error in pixReadStream: Unknown format\nLeptonica Error in pixRead: /tmp/x.png') }));
  const raw = await read(shared, file);
  assert.deepEqual(raw.issues.map((i) => i.message), [1, 2].map((p) => `OCR failed on page ${p}: the OCR engine failed`));
});
