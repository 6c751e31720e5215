/**
 * The corpus's scans (images and image-only PDFs, the files of test/e2e/corpus-ocr-images and corpus-ocr-pdf)
 * read by each OCR engine through the real readers, one file at a time: word F1 against the reference text
 * where the corpus has one (the e2e test's floor is 0.8), the characters read, seconds per file and the peak
 * resident memory of the process and its children.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx bench/ocr-scans.ts [--engines tesseract,ppocr,auto] [--json out.json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry } from '@quire/core';
import { corpusManifest, corpusRoot, isScan } from '../test/helpers/corpus.js';
import { stripMarkdown, wordF1 } from '../test/helpers/f1.js';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const engines = (opt('--engines') ?? 'tesseract,ppocr,auto').split(',').map((s) => s.trim()).filter(Boolean);
const root = corpusRoot();
if (!root) {
  console.log('no corpus (set QUIRE_CORPUS)');
  process.exit(0);
}
const scans = corpusManifest(root).filter(isScan);

function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
function treeRss(pid: number): number {
  let total = rssKb(pid);
  try {
    for (const c of fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean)) total += treeRss(Number(c));
  } catch {
    /* gone */
  }
  return total;
}

const rows: { engine: string; id: string; f1: number | null; chars: number; seconds: number; used?: string; error?: string }[] = [];
const peaks: Record<string, number> = {};
for (const engine of engines) {
  const registry = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: engine } });
  for (const spec of ['@quire/plugin-ocr-tesseract', '@quire/plugin-ocr-ppocr', '@quire/plugin-ocr-auto', '@quire/plugin-reader-pdf', '@quire/plugin-reader-image']) await registry.load(spec, process.cwd());
  await registry.start();
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, treeRss(process.pid))), 100);
  for (const e of scans) {
    const file = path.join(root, e.path);
    const t0 = performance.now();
    if (process.env.BENCH_VERBOSE) console.error(`${engine} ${e.id}`);
    try {
      const reader = registry.readerFor(e.format).instance;
      const doc = await reader.read({ path: file, name: path.basename(file), format: e.format, size: fs.statSync(file).size, documentId: e.id }, { ocr: { enabled: 'auto', language: 'eng' } });
      const gt = e.ground_truth?.find((g) => ['markdown', 'plain_text', 'ocr_text'].includes(g.kind));
      const ref = gt ? fs.readFileSync(path.join(root, gt.path), 'utf8') : null;
      const f1 = ref === null ? null : wordF1(doc.text, gt!.kind === 'markdown' ? stripMarkdown(ref) : ref).f1;
      rows.push({ engine, id: e.id, f1, chars: doc.text.length, seconds: (performance.now() - t0) / 1000, used: String(doc.metadata.ocrEngine ?? '') });
    } catch (err) {
      rows.push({ engine, id: e.id, f1: null, chars: 0, seconds: (performance.now() - t0) / 1000, error: (err as Error).message });
    }
  }
  clearInterval(timer);
  peaks[engine] = Math.round(peak / 1024);
  await registry.close();
}

console.log(`${scans.length} scans; word F1 against the reference (floor 0.8 in the e2e test), characters read, seconds\n`);
console.log(`| file | ${engines.map((e) => `${e}: F1 / chars / s`).join(' | ')} |`);
console.log(`|---|${engines.map(() => '---').join('|')}|`);
for (const e of scans) {
  const cells = engines.map((engine) => {
    const r = rows.find((x) => x.engine === engine && x.id === e.id)!;
    if (r.error) return `error: ${r.error.slice(0, 60)}`;
    return `${r.f1 === null ? '–' : r.f1.toFixed(3)} / ${r.chars} / ${r.seconds.toFixed(1)}${r.used && r.used !== engine ? ` (${r.used})` : ''}`;
  });
  console.log(`| ${e.id} | ${cells.join(' | ')} |`);
}
console.log(`\ntotal seconds: ${engines.map((engine) => `${engine} ${rows.filter((r) => r.engine === engine).reduce((a, r) => a + r.seconds, 0).toFixed(1)}`).join(', ')}`);
console.log(`peak RSS (process and children): ${engines.map((engine) => `${engine} ${peaks[engine]} MB`).join(', ')}`);
const json = opt('--json');
if (json) fs.writeFileSync(json, JSON.stringify({ rows, peaks }, null, 2));
process.exit(0);
