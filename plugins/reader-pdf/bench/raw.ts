/**
 * Raw page speed of the PDFium worker's code, in one process without the pool: per book-like corpus PDF,
 * pages/s of (a) text items alone (load page, text page, character runs) and (b) a full page as the worker
 * parses it (text items, ruling lines when the text could be a table, layout), against `pdftotext
 * -bbox-layout` on the same file in the same run (its process start included, as a caller pays it).
 * Best of `rounds` runs each. Usage: node --conditions=quire-source --import tsx plugins/reader-pdf/bench/raw.ts [rounds]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startEngine, viewMatrix } from '../src/pdfium.js';
import { pageText } from '../src/text.js';
import { pageRules } from '../src/objects.js';
import { layoutPage, mayHaveTable } from '../src/layout.js';

const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const files = ['docling__redp5110_sampled.pdf', 'docling__multi_page.pdf', 'docling__normal_4pages.pdf', 'unstructured__multi-column-2p.pdf', 'docling__amt_handbook_sample.pdf'];
const rounds = Number(process.argv[2] ?? 5);
const e = await startEngine();
const { m } = e;

function run(file: string, full: boolean): { ms: number; pages: number } {
  const bytes = fs.readFileSync(file);
  const t0 = performance.now();
  const buf = e.malloc(bytes.length);
  e.u8().set(bytes, buf);
  const doc = m.FPDF_LoadMemDocument(buf, bytes.length, '');
  const n = m.FPDF_GetPageCount(doc);
  for (let i = 0; i < n; i++) {
    const page = m.FPDF_LoadPage(doc, i);
    const w = m.FPDF_GetPageWidthF(page), h = m.FPDF_GetPageHeightF(page);
    const view = viewMatrix(e, page, w, h);
    const tp = m.FPDFText_LoadPage(page);
    const { items } = pageText(e, tp, view);
    if (full) layoutPage(items, mayHaveTable(items) ? pageRules(e, page, view, w, h) : [], { width: w, height: h, markHyphenBreaks: true });
    m.FPDFText_ClosePage(tp);
    m.FPDF_ClosePage(page);
  }
  m.FPDF_CloseDocument(doc);
  e.free(buf);
  return { ms: performance.now() - t0, pages: n };
}

const best = (f: () => number) => Math.min(...Array.from({ length: rounds }, f));
const tmp = path.join(os.tmpdir(), 'quire-raw.html');
let tot = { text: 0, full: 0, pdftotext: 0, pages: 0 };
run(path.join(corpus, 'files', files[0]!), true); // warm (JIT, WASM tiers)
for (const id of files) {
  const file = path.join(corpus, 'files', id);
  const pages = run(file, false).pages;
  const text = best(() => run(file, false).ms);
  const full = best(() => run(file, true).ms);
  const pt = best(() => {
    const t0 = performance.now();
    execFileSync('pdftotext', ['-bbox-layout', file, tmp], { stdio: 'ignore' });
    return performance.now() - t0;
  });
  tot = { text: tot.text + text, full: tot.full + full, pdftotext: tot.pdftotext + pt, pages: tot.pages + pages };
  const ps = (ms: number) => ((pages * 1000) / ms).toFixed(0).padStart(5);
  console.log(`${id.padEnd(38)} ${String(pages).padStart(3)} p  text items ${ps(text)} p/s  full page ${ps(full)} p/s  pdftotext -bbox-layout ${ps(pt)} p/s`);
}
const ps = (ms: number) => ((tot.pages * 1000) / ms).toFixed(0);
console.log(`all ${tot.pages} pages: text items ${ps(tot.text)} p/s (${(tot.text / tot.pages).toFixed(1)} ms/page), full page ${ps(tot.full)} p/s (${(tot.full / tot.pages).toFixed(1)} ms/page), pdftotext -bbox-layout ${ps(tot.pdftotext)} p/s (${(tot.pdftotext / tot.pages).toFixed(1)} ms/page)`);
fs.rmSync(tmp, { force: true });
