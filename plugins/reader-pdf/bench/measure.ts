/**
 * Reader throughput and quality over the corpus PDFs: pages/s of this reader (end to end, warm pool)
 * against `pdftotext -bbox-layout` on the same files, and word F1 against the ground truth.
 * Usage: node --conditions=quire-source --import tsx plugins/reader-pdf/bench/measure.ts [--ocr] [--dist] [--concurrency N] [--dump]
 *   --dist: the built plugin (dist/, run `npm run build` first), whose workers run without tsx
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pluginContext } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import sourcePlugin from '@quire/plugin-reader-pdf';
import { stripMarkdown, wordF1 } from '../test/f1.js';

const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) as { files: { id: string; path: string; format: string; pages: number; category: string; text_layer_chars?: number; ground_truth?: { path: string | null; kind: string }[] }[] };
const withOcr = process.argv.includes('--ocr');
const workers = Number(process.env.QUIRE_PDF_WORKERS ?? 2);
const shared = { 'limits.parseTimeoutMs': 120000, 'ocr.concurrency': 2 };
const ocr = await ocrPlugin.create(pluginContext(ocrPlugin, { shared }));
const concurrency = Number(process.argv[process.argv.indexOf('--concurrency') + 1] ?? 1) || 1;
const pdfPlugin = process.argv.includes('--dist') ? ((await import(new URL('../dist/index.js', import.meta.url).href)) as { default: typeof sourcePlugin }).default : sourcePlugin;
const reader = (await pdfPlugin.create(pluginContext(pdfPlugin, { options: { workers }, shared, tryGet: ((k: string) => (k === 'ocr' ? ocr : undefined)) as never }))) as any;
const pdfs = manifest.files.filter((f) => f.format === 'pdf');

const read = (f: (typeof pdfs)[number]) => {
  const p = path.join(corpus, f.path);
  return reader.read({ path: p, name: f.id, format: 'pdf', size: fs.statSync(p).size, documentId: f.id }, { ocr: { enabled: withOcr ? 'auto' : false, language: 'eng' } });
};
// warm the pool (process start, PDFium load) outside the timing, as a running service would be
await Promise.all([read(pdfs[0]!), read(pdfs[1]!), read(pdfs[2]!)]);

let pages = 0;
const results: { id: string; ms: number; pages: number; f1?: number; text: string }[] = [];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
// `concurrency` documents in flight at once (a service parses several documents at a time)
const queue = [...pdfs];
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const t = performance.now();
      const doc = await read(f);
      pages += doc.pages.length;
      results.push({ id: f.id, ms: performance.now() - t, pages: doc.pages.length, text: doc.text });
    }
  }),
);
const ours = (performance.now() - t0) / 1000;
const cpuUsed = process.cpuUsage(cpu0);
const ourCpu = (cpuUsed.user + cpuUsed.system) / 1e6;
results.sort((a, b) => pdfs.findIndex((f) => f.id === a.id) - pdfs.findIndex((f) => f.id === b.id));

let tPages = 0;
for (const f of pdfs) tPages += f.pages;
const list = pdfs.map((f) => `'${path.join(corpus, f.path)}'`).join(' ');

const tm = execFileSync('bash', ['-c', `TIMEFORMAT='%R %U %S'; { time (for f in ${list}; do pdftotext -bbox-layout "$f" /tmp/quire-measure.html 2>/dev/null; done) ; } 2>&1`], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
const theirs = tm[0]!;
const theirCpu = tm[1]! + tm[2]!;

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
console.log(`\nreader-pdf (${workers} workers, ${concurrency} document(s) at a time${withOcr ? ', OCR on' : ', OCR off'}): ${pages} pages in ${ours.toFixed(2)} s = ${(pages / ours).toFixed(1)} pages/s; CPU ${ourCpu.toFixed(2)} s = ${((ourCpu * 1000) / pages).toFixed(1)} ms/page`);
console.log(`pdftotext -bbox-layout (sequential): ${tPages} pages in ${theirs.toFixed(2)} s = ${(tPages / theirs).toFixed(1)} pages/s; CPU ${theirCpu.toFixed(2)} s = ${((theirCpu * 1000) / tPages).toFixed(1)} ms/page`);
console.log(`load average: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
if (process.argv.includes('--dump')) for (const r of results) fs.writeFileSync(`/tmp/quire-measure-${r.id}.txt`, r.text);
await reader.close();
