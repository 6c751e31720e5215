/**
 * What the read stage does before the ocr stage: the corpus's PDFs and images read as the pipeline's read
 * stage reads them (`ocr.defer`, no OCR), through the real readers, one file at a time. For each file: the
 * pages left to the ocr stage and the seconds of that read. A document with no page left passes the ocr
 * stage untouched; one with pages left is read again there, with OCR, so its deferred read is the work the
 * stage split adds (the text layer read twice).
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx bench/ocr-stage.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry, ocrPendingOf } from '@quire/core';
import { corpusManifest, corpusRoot } from '../test/helpers/corpus.js';

const root = corpusRoot();
if (!root) {
  console.log('no corpus (set QUIRE_CORPUS)');
  process.exit(0);
}
const files = corpusManifest(root).filter((e) => ['pdf', 'png', 'jpg', 'tiff'].includes(e.format));
const registry = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: 'tesseract' } });
for (const spec of ['@quire/plugin-ocr-tesseract', '@quire/plugin-reader-pdf', '@quire/plugin-reader-image']) await registry.load(spec, process.cwd());
await registry.start();

const rows: { id: string; pages: number; pending: number; seconds: number; error?: string }[] = [];
for (const e of files) {
  const file = path.join(root, e.path);
  const t0 = performance.now();
  try {
    const doc = await registry.readerFor(e.format).instance.read({ path: file, name: path.basename(file), format: e.format, size: fs.statSync(file).size, documentId: e.id }, { ocr: { enabled: 'auto', language: 'eng', defer: true } });
    rows.push({ id: e.id, pages: doc.pages.length, pending: ocrPendingOf(doc).length, seconds: (performance.now() - t0) / 1000 });
  } catch (err) {
    rows.push({ id: e.id, pages: 0, pending: 0, seconds: (performance.now() - t0) / 1000, error: (err as Error).message });
  }
}
await registry.close();

const spread = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? `${s[0]!.toFixed(2)} / ${s[Math.floor((s.length - 1) / 2)]!.toFixed(2)} / ${s.at(-1)!.toFixed(2)}` : '–';
};
console.log(`${rows.length} files (pdf and images); load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
console.log('| file | pages | left to the ocr stage | deferred read, s |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.id} | ${r.pages} | ${r.error ? `error: ${r.error.slice(0, 60)}` : r.pending} | ${r.seconds.toFixed(2)} |`);
const withOcr = rows.filter((r) => r.pending > 0);
const without = rows.filter((r) => !r.error && r.pending === 0);
console.log(`\n| set | files | deferred read s, min / median / max |`);
console.log('|---|---|---|');
console.log(`| pages left to the ocr stage (read again there) | ${withOcr.length} | ${spread(withOcr.map((r) => r.seconds))} |`);
console.log(`| nothing left (ocr stage passes them on) | ${without.length} | ${spread(without.map((r) => r.seconds))} |`);
process.exit(0);
