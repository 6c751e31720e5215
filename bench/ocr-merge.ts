/**
 * The ocr stage before and after it merged OCRed pages into the stored layout, on the corpus's PDFs and
 * images that leave pages to it (`ocr.defer`), through the real readers, one file at a time:
 * - before: the stage read the document again whole, with OCR (what `read` without defer gives);
 * - after: the deferred read's document, the pending pages OCRed alone (the reader's ocrPages) and merged.
 * For each: whether text, blocks, tables, pages (words, boxes) and ocr_engine are the same, word F1 against
 * the reference where the corpus has one, and the seconds of the stage's work. With --agentic, the pending
 * pages are also OCRed agentically (read twice, the more confident reading of each line): F1, seconds,
 * pages changed.
 *
 * With --receipts N, the first N receipts of the development set are read with standard and agentic OCR: the
 * share of their key fields' words found in the text.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx bench/ocr-merge.ts [--ocr tesseract] [--agentic] [--formats pdf,png,jpg,tiff] [--receipts 20]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry, mergeOcrPages, ocrPendingOf } from '@quire/core';
import type { ParsedDocument, ReadOptions } from '@quire/core';
import { corpusManifest, corpusRoot } from '../test/helpers/corpus.js';
import { stripMarkdown, wordF1 } from '../test/helpers/f1.js';

const args = process.argv.slice(2);
const engine = args.includes('--ocr') ? args[args.indexOf('--ocr') + 1]! : 'tesseract';
const agentic = args.includes('--agentic');
const root = corpusRoot();
if (!root) {
  console.log('no corpus (set QUIRE_CORPUS)');
  process.exit(0);
}
const formats = (args.includes('--formats') ? args[args.indexOf('--formats') + 1]! : 'pdf,png,jpg,tiff').split(',');
const files = corpusManifest(root).filter((e) => formats.includes(e.format));
const registry = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: engine } });
for (const spec of ['@quire/plugin-ocr-tesseract', '@quire/plugin-ocr-ppocr', '@quire/plugin-ocr-auto', '@quire/plugin-reader-pdf', '@quire/plugin-reader-image']) await registry.load(spec, process.cwd());
await registry.start();

const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const v = await f();
  return [v, (performance.now() - t0) / 1000];
};
const pagesOf = (d: ParsedDocument) => JSON.stringify(d.pages);
const blocksOf = (d: ParsedDocument) => JSON.stringify(d.blocks);
/** The reference text of a corpus file: its markdown, plain or OCR text, or the text column of its OCR lines (SROIE's CSV). */
function referenceText(e: ReturnType<typeof corpusManifest>[number]): string | null {
  const gt = e.ground_truth?.find((g) => ['markdown', 'plain_text', 'ocr_text', 'ocr_lines_csv'].includes(g.kind));
  if (!gt) return null;
  const raw = fs.readFileSync(path.join(root!, gt.path), 'utf8');
  if (gt.kind === 'markdown') return stripMarkdown(raw);
  // x1,y1,...,x4,y4,text: the text is what follows the eighth comma
  if (gt.kind === 'ocr_lines_csv') return raw.split(/\r?\n/).map((l) => l.split(',').slice(8).join(',')).join('\n');
  return raw;
}
type Row = { id: string; pages: number; pending: number; same: string; f1Before: number | null; f1After: number | null; sBefore: number; sAfter: number; f1Agentic?: number | null; sAgentic?: number; changed?: number[] };
const rows: Row[] = [];
for (const e of files) {
  const file = path.join(root, e.path);
  const input = { path: file, name: path.basename(file), format: e.format, size: fs.statSync(file).size, documentId: e.id };
  const reader = registry.readerFor(e.format).instance;
  const opts = (o: Partial<ReadOptions['ocr']> = {}): ReadOptions => ({ ocr: { enabled: 'auto', language: 'eng', ...o } });
  try {
    const deferred = await reader.read(input, opts({ defer: true }));
    const pending = ocrPendingOf(deferred);
    if (!pending.length) continue;
    const [before, sBefore] = await timed(() => reader.read(input, opts()));
    const [after, sAfter] = await timed(async () => mergeOcrPages(deferred, await reader.ocrPages!(input, pending, opts())));
    const diffs = [
      before.text === after.text ? '' : 'text',
      blocksOf(before) === blocksOf(after) ? '' : 'blocks',
      JSON.stringify(before.tables) === JSON.stringify(after.tables) ? '' : 'tables',
      pagesOf(before) === pagesOf(after) ? '' : 'pages',
      before.metadata.ocrEngine === after.metadata.ocrEngine ? '' : 'ocr_engine',
    ].filter(Boolean);
    const ref = referenceText(e);
    const f1 = (d: ParsedDocument) => (ref === null ? null : wordF1(d.text, ref).f1);
    const row: Row = { id: e.id, pages: deferred.pages.length, pending: pending.length, same: diffs.length ? `differs: ${diffs.join(', ')}` : 'same', f1Before: f1(before), f1After: f1(after), sBefore, sAfter };
    if (agentic) {
      const [ag, s] = await timed(async () => mergeOcrPages(deferred, await reader.ocrPages!(input, pending, opts({ agentic: true }))));
      row.f1Agentic = f1(ag);
      row.sAgentic = s;
      row.changed = ((ag.metadata.agentic as { pages_changed?: number[] } | undefined)?.pages_changed ?? []);
    }
    rows.push(row);
    if (process.env.BENCH_VERBOSE) console.error(JSON.stringify(row));
  } catch (err) {
    console.error(`${e.id}: ${(err as Error).message}`);
  }
}

// --receipts N: the first N receipts of the development set, standard and agentic OCR: the share of their key
// fields' words (company, date, address, total) found in the text read
const receiptRows: { id: string; standard: number; agentic: number; changed: boolean; s: number; sAgentic: number }[] = [];
const receipts = args.includes('--receipts') ? Number(args[args.indexOf('--receipts') + 1]) : 0;
if (receipts > 0) {
  const dir = path.join(root, 'receipts');
  const names = fs.readdirSync(path.join(dir, 'files')).sort().slice(0, receipts);
  const reader = registry.readerFor('jpg').instance;
  const norm = (t: string) => t.toUpperCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  for (const name of names) {
    const file = path.join(dir, 'files', name);
    const key = JSON.parse(fs.readFileSync(path.join(dir, 'key', name.replace(/\.\w+$/, '.json')), 'utf8')) as Record<string, string>;
    const wanted = Object.values(key).flatMap((v) => norm(String(v)));
    const recall = (text: string) => {
      const have = new Set(norm(text));
      return wanted.length ? wanted.filter((w) => have.has(w)).length / wanted.length : 1;
    };
    const input = { path: file, name, format: 'jpg', size: fs.statSync(file).size, documentId: name };
    try {
      const [std, s] = await timed(() => reader.read(input, { ocr: { enabled: 'auto', language: 'eng' } }));
      const [ag, sAgentic] = await timed(() => reader.read(input, { ocr: { enabled: 'auto', language: 'eng', agentic: true } }));
      const changed = !!(ag.metadata.agentic as { pages_changed?: number[] } | undefined)?.pages_changed?.length;
      receiptRows.push({ id: name, standard: recall(std.text), agentic: recall(ag.text), changed, s, sAgentic });
      if (process.env.BENCH_VERBOSE) console.error(JSON.stringify(receiptRows.at(-1)));
    } catch (err) {
      console.error(`${name}: ${(err as Error).message}`);
    }
  }
}
await registry.close();

const f = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));
const spread = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return '–';
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return `${s[0]!.toFixed(3)} / ${s[Math.floor((s.length - 1) / 2)]!.toFixed(3)} / ${mean.toFixed(3)} / ${s.at(-1)!.toFixed(3)}`;
};
console.log(`${rows.length} files leave pages to the ocr stage (OCR: ${engine}); load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
console.log(`| file | pages | OCRed | after vs before | F1 before | F1 after | s before | s after |${agentic ? ' F1 agentic | s agentic | pages changed |' : ''}`);
console.log(`|---|---|---|---|---|---|---|---|${agentic ? '---|---|---|' : ''}`);
for (const r of rows)
  console.log(`| ${r.id} | ${r.pages} | ${r.pending} | ${r.same} | ${f(r.f1Before)} | ${f(r.f1After)} | ${r.sBefore.toFixed(2)} | ${r.sAfter.toFixed(2)} |${agentic ? ` ${f(r.f1Agentic)} | ${r.sAgentic!.toFixed(2)} | ${r.changed!.join(',') || '–'} |` : ''}`);
const scored = rows.filter((r) => r.f1Before !== null);
console.log(`\n| measure (min / median / mean / max) | before | after |${agentic ? ' agentic |' : ''}`);
console.log(`|---|---|---|${agentic ? '---|' : ''}`);
console.log(`| word F1 (${scored.length} files with a reference) | ${spread(scored.map((r) => r.f1Before!))} | ${spread(scored.map((r) => r.f1After!))} |${agentic ? ` ${spread(scored.map((r) => r.f1Agentic!))} |` : ''}`);
console.log(`| seconds of the stage | ${spread(rows.map((r) => r.sBefore))} | ${spread(rows.map((r) => r.sAfter))} |${agentic ? ` ${spread(rows.map((r) => r.sAgentic!))} |` : ''}`);
console.log(`\nsame output: ${rows.filter((r) => r.same === 'same').length} of ${rows.length}`);
if (receiptRows.length) {
  console.log(`\n${receiptRows.length} receipts: share of key-field words in the text (min / median / mean / max)\n`);
  console.log('| OCR | key-field words found | seconds |');
  console.log('|---|---|---|');
  console.log(`| standard | ${spread(receiptRows.map((r) => r.standard))} | ${spread(receiptRows.map((r) => r.s))} |`);
  console.log(`| agentic | ${spread(receiptRows.map((r) => r.agentic))} | ${spread(receiptRows.map((r) => r.sAgentic))} |`);
  console.log(`\nagentic changed ${receiptRows.filter((r) => r.changed).length} of ${receiptRows.length}; better on ${receiptRows.filter((r) => r.agentic > r.standard).length}, worse on ${receiptRows.filter((r) => r.agentic < r.standard).length}`);
}
process.exit(0);
