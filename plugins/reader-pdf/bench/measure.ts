/**
 * Reader throughput and quality over the corpus PDFs: pages/s of this reader (end to end, warm pool)
 * against `pdftotext -bbox-layout` on the same files, and word F1 against the ground truth.
 * Usage: node --conditions=source --import tsx plugins/reader-pdf/bench/measure.ts [--ocr] [--blocks FILE]
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { silentLogger } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import pdfPlugin from '@quire/plugin-reader-pdf';
import { stripMarkdown, wordF1 } from '../test/f1.js';

const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) as { files: { id: string; path: string; format: string; pages: number; category: string; text_layer_chars?: number; ground_truth?: { path: string | null; kind: string }[] }[] };
const withOcr = process.argv.includes('--ocr');
const workers = Number(process.env.QUIRE_PDF_WORKERS ?? 2);
const config = { pdf: { workers }, limits: { parseTimeoutMs: 120000 }, ocr: { concurrency: 2, language: 'eng', tesseractPath: 'tesseract' } };
const base = { options: {}, config, dataDir: '/tmp', logger: silentLogger, get() { throw new Error('none'); } } as any;
const ocr = await ocrPlugin.create({ ...base, tryGet: () => undefined });
const reader = (await pdfPlugin.create({ ...base, tryGet: (k: string) => (k === 'ocr' ? ocr : undefined) })) as any;
const pdfs = manifest.files.filter((f) => f.format === 'pdf');

const read = (f: (typeof pdfs)[number]) => {
  const p = path.join(corpus, f.path);
  return reader.read({ path: p, name: f.id, format: 'pdf', size: fs.statSync(p).size, documentId: f.id }, { ocr: { enabled: withOcr ? 'auto' : false, language: 'eng' } });
};
// warm the pool (thread start, pdf.js load) outside the timing, as a running service would be
await Promise.all([read(pdfs[0]!), read(pdfs[1]!), read(pdfs[2]!)]);

let pages = 0;
const t0 = performance.now();
const results: { id: string; ms: number; pages: number; f1?: number; text: string }[] = [];
for (const f of pdfs) {
  const t = performance.now();
  const doc = await read(f);
  const ms = performance.now() - t;
  pages += doc.pages.length;
  results.push({ id: f.id, ms, pages: doc.pages.length, text: doc.text });
}
const ours = (performance.now() - t0) / 1000;

let tPages = 0;
const t1 = performance.now();
for (const f of pdfs) {
  execFileSync('pdftotext', ['-bbox-layout', path.join(corpus, f.path), '/tmp/quire-measure.html'], { stdio: 'ignore' });
  tPages += f.pages;
}
const theirs = (performance.now() - t1) / 1000;

for (const r of results) {
  const f = pdfs.find((x) => x.id === r.id)!;
  const gt = (f.ground_truth ?? []).find((g) => g.path && (g.kind === 'markdown' || g.kind === 'plain_text'));
  let f1 = '';
  if (gt) {
    const truth = fs.readFileSync(path.join(corpus, gt.path!), 'utf8');
    const s = wordF1(r.text, gt.kind === 'markdown' ? stripMarkdown(truth) : truth);
    f1 = `F1 ${s.f1.toFixed(3)} (P ${s.precision.toFixed(2)} R ${s.recall.toFixed(2)})`;
  }
  console.log(`${r.id.padEnd(48)} ${String(r.pages).padStart(3)} p ${r.ms.toFixed(0).padStart(6)} ms  ${f1}`);
}
console.log(`\nreader-pdf (${workers} workers${withOcr ? ', OCR on' : ', OCR off'}): ${pages} pages in ${ours.toFixed(2)} s = ${(pages / ours).toFixed(1)} pages/s`);
console.log(`pdftotext -bbox-layout:        ${tPages} pages in ${theirs.toFixed(2)} s = ${(tPages / theirs).toFixed(1)} pages/s`);
if (process.argv.includes('--dump')) for (const r of results) fs.writeFileSync(`/tmp/quire-measure-${r.id}.txt`, r.text);
await reader.close();
