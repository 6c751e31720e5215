/**
 * The page image written for OCR: greyscale PGM (P5) against PNG (EPDF_PNG_EncodeRGBA, RGBA), end to end
 * (encode + write + tesseract reading and recognising it), on the scanned pages of the corpus PDFs.
 * Usage: node --conditions=quire-source --import tsx plugins/reader-pdf/bench/page-image.ts [dpi]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startEngine } from '../src/pdfium.js';

const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const files = ['docling__ocr_test.pdf', 'docling__nemotron_multipage.pdf'];
const dpi = Number(process.argv[2] ?? 300);
const e = await startEngine();
const { m } = e;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-page-image-'));
const total = { pgm: { encode: 0, ocr: 0, bytes: 0 }, png: { encode: 0, ocr: 0, bytes: 0 } };
let pages = 0;
const ocr = (file: string) => {
  const t0 = performance.now();
  const out = execFileSync('tesseract', [file, 'stdout', '--psm', '3', '--dpi', String(Math.round(dpi)), 'tsv'], { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, maxBuffer: 64 << 20 }).toString();
  return { ms: performance.now() - t0, words: out.split('\n').filter((l) => /^5\t/.test(l) && l.split('\t')[11]?.trim()).length };
};
for (const id of files) {
  const bytes = fs.readFileSync(path.join(corpus, 'files', id));
  const buf = e.malloc(bytes.length);
  e.u8().set(bytes, buf);
  const doc = m.FPDF_LoadMemDocument(buf, bytes.length, '');
  for (let i = 0; i < m.FPDF_GetPageCount(doc); i++) {
    const page = m.FPDF_LoadPage(doc, i);
    const w = Math.ceil((m.FPDF_GetPageWidthF(page) * dpi) / 72), h = Math.ceil((m.FPDF_GetPageHeightF(page) * dpi) / 72);
    const bmp = m.FPDFBitmap_CreateEx(w, h, 3, 0, 0);
    m.FPDFBitmap_FillRect(bmp, 0, 0, w, h, 0xffffffff);
    m.FPDF_RenderPageBitmap(bmp, page, 0, 0, w, h, 0, 0x01 | 0x10);
    const stride = m.FPDFBitmap_GetStride(bmp), ptr = m.FPDFBitmap_GetBuffer(bmp);
    // PGM
    let t0 = performance.now();
    const rgba = e.u8().subarray(ptr, ptr + stride * h);
    const head = Buffer.from(`P5\n${w} ${h}\n255\n`, 'latin1');
    const pgm = Buffer.allocUnsafe(head.length + w * h);
    head.copy(pgm, 0);
    let o = head.length;
    for (let y = 0; y < h; y++) for (let x = 0, r = y * stride; x < w; x++, r += 4) pgm[o++] = (rgba[r]! * 77 + rgba[r + 1]! * 150 + rgba[r + 2]! * 29) >> 8;
    const pgmFile = path.join(tmp, `p${pages}.pgm`);
    fs.writeFileSync(pgmFile, pgm);
    total.pgm.encode += performance.now() - t0;
    total.pgm.bytes += pgm.length;
    // PNG
    t0 = performance.now();
    const outPtr = e.malloc(4);
    const size = m.EPDF_PNG_EncodeRGBA(ptr, w, h, stride, 6, outPtr);
    const pngPtr = e.u32()[outPtr >> 2]!;
    const png = Buffer.from(e.u8().subarray(pngPtr, pngPtr + size));
    e.free(pngPtr);
    e.free(outPtr);
    const pngFile = path.join(tmp, `p${pages}.png`);
    fs.writeFileSync(pngFile, png);
    total.png.encode += performance.now() - t0;
    total.png.bytes += png.length;
    m.FPDFBitmap_Destroy(bmp);
    m.FPDF_ClosePage(page);
    const a = ocr(pgmFile), b = ocr(pngFile);
    total.pgm.ocr += a.ms;
    total.png.ocr += b.ms;
    console.log(`${id} p${i + 1} ${w}x${h}: PGM ${(pgm.length / 1e6).toFixed(1)} MB, tesseract ${Math.round(a.ms)} ms, ${a.words} words | PNG ${(png.length / 1e6).toFixed(2)} MB, tesseract ${Math.round(b.ms)} ms, ${b.words} words`);
    pages++;
  }
  m.FPDF_CloseDocument(doc);
  e.free(buf);
}
fs.rmSync(tmp, { recursive: true, force: true });
for (const k of ['pgm', 'png'] as const) console.log(`${k}: ${pages} pages at ${dpi} dpi, encode+write ${Math.round(total[k].encode)} ms, tesseract ${Math.round(total[k].ocr)} ms, end to end ${Math.round(total[k].encode + total[k].ocr)} ms, ${(total[k].bytes / 1e6).toFixed(1)} MB`);
