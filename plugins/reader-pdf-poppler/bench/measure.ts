/**
 * The poppler reader over the corpus PDFs: pages/s (text pages only, OCR off) against `pdftotext -bbox-layout`
 * alone, and word F1 against the ground truth of the born-digital files.
 * Usage: node --conditions=quire-source --import tsx plugins/reader-pdf-poppler/bench/measure.ts [file.pdf ...]
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pluginContext } from '@quire/core';
import popplerPlugin from '@quire/plugin-reader-pdf-poppler';
import type { PopplerPdfReader } from '@quire/plugin-reader-pdf-poppler';
import { stripMarkdown, wordF1 } from '../../reader-pdf/test/f1.js';

const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
type Entry = { id: string; path: string; format: string; pages: number; text_layer_chars?: number; ground_truth?: { path: string | null; kind: string }[] };
const extra = process.argv.slice(2);
const files: Entry[] = extra.length
  ? extra.map((f) => ({ id: path.basename(f), path: path.resolve(f), format: 'pdf', pages: 0 }))
  : (JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')).files as Entry[]).filter((f) => f.format === 'pdf').map((f) => ({ ...f, path: path.join(corpus, f.path) }));
const reader = popplerPlugin.create(pluginContext(popplerPlugin, { options: { processes: 2 }, shared: { 'limits.parseTimeoutMs': 120_000, 'ocr.concurrency': 2 } })) as unknown as PopplerPdfReader;

for (let rep = 0; rep < 2; rep++) {
  let pages = 0;
  let ours = 0;
  let theirs = 0;
  const lines: string[] = [];
  for (const f of files) {
    const t = performance.now();
    const doc = await reader.read({ path: f.path, name: f.id, format: 'pdf', size: fs.statSync(f.path).size, documentId: f.id }, { ocr: { enabled: false, language: 'eng' } });
    const ms = performance.now() - t;
    ours += ms;
    pages += doc.pages.length;
    const t2 = performance.now();
    execFileSync('pdftotext', ['-bbox-layout', f.path, '/dev/null'], { stdio: 'ignore' });
    theirs += performance.now() - t2;
    const gt = (f.ground_truth ?? []).find((g) => g.path && (g.kind === 'markdown' || g.kind === 'plain_text'));
    let f1 = '';
    if (gt && (f.text_layer_chars ?? 0) > 0) {
      const truth = fs.readFileSync(path.join(corpus, gt.path!), 'utf8');
      const s = wordF1(doc.text, gt.kind === 'markdown' ? stripMarkdown(truth) : truth);
      f1 = `F1 ${s.f1.toFixed(3)} (P ${s.precision.toFixed(2)} R ${s.recall.toFixed(2)})`;
    }
    lines.push(`${f.id.padEnd(48)} ${String(doc.pages.length).padStart(4)} p ${ms.toFixed(0).padStart(6)} ms  ${f1}`);
  }
  if (rep === 1) console.log(lines.join('\n'));
  console.log(`run ${rep + 1}: poppler reader ${pages} pages in ${(ours / 1000).toFixed(2)} s = ${(pages / (ours / 1000)).toFixed(1)} pages/s; pdftotext -bbox-layout alone ${(pages / (theirs / 1000)).toFixed(1)} pages/s`);
}
