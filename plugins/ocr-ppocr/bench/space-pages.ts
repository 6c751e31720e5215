/**
 * The word-space rules (ctcWords) on proportional type: pages of the corpus's born-digital PDFs drawn at
 * 300 dpi (pdftoppm) and read by the models, scored by word F1 against the page's own text (pdftotext), with
 * docling's ocr_test.pdf (an image-only page) against its reference. Per page, the F1 with each choice of
 * gaps (`mono`: the k rule alone, as before the glyph widths; `proportional`: the glyph-width rule alone;
 * `both`: the default) at each `--excess`; then min / median / max / mean over the pages. Receipts (monospaced
 * type) are measured by space-gap.ts. The models run once per page; --cache FILE keeps the decoded boxes.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx plugins/ocr-ppocr/bench/space-pages.ts \
 *     [--cache FILE] [--excess 150,200,250]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ppocr, RETRY_BELOW, RETRY_WIDTHS, SPACE_EXCESS, bundledModels, groupLines, spacedBox } from '@quire/plugin-ocr-ppocr';
import type { DecodedBox, GapOptions } from '@quire/plugin-ocr-ppocr';
import { corpusManifest, corpusRoot } from '../../../test/helpers/corpus.js';
import { stripMarkdown, wordF1 } from '../../../test/helpers/f1.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const cache = arg('cache');
const excesses = (arg('excess') ?? `150,${SPACE_EXCESS},250,350`).split(',').map(Number).filter((v, i, a) => a.indexOf(v) === i);
const root = corpusRoot();
if (!root) {
  console.error('no corpus (set QUIRE_CORPUS)');
  process.exit(1);
}
/** [file id, page]: born-digital pages of several kinds (papers, a handbook, invoices, forms, a table, a report) */
const PAGES: [string, number][] = [
  ['docling__2305.03393v1-pg9.pdf', 1],
  ['docling__multi_page.pdf', 1],
  ['docling__amt_handbook_sample.pdf', 1],
  ['unstructured__multi-column-2p.pdf', 1],
  ['tabula__us-012.pdf', 1],
  ['invoice2data__AmazonWebServices.pdf', 1],
  ['invoice2data__oyo.pdf', 1],
  ['invoice2data__coolblue1.pdf', 1],
  ['invoice2data__QualityHosting.pdf', 1],
  ['docling__redp5110_sampled.pdf', 3],
  ['pdflib__sample_form.pdf', 1],
  ['pdfjs__160F-2019.pdf', 1],
  ['docling__ocr_test.pdf', 1],
];
const manifest = corpusManifest(root);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'space-pages-'));
let decoded: Record<string, DecodedBox[]> = cache && fs.existsSync(cache) ? (JSON.parse(fs.readFileSync(cache, 'utf8')) as Record<string, DecodedBox[]>) : {};
const refs: Record<string, string> = {};
let ocr: Ppocr | null = null;
for (const [id, page] of PAGES) {
  const e = manifest.find((m) => m.id === id);
  if (!e) continue;
  const file = path.join(root, e.path);
  const key = `${id}#${page}`;
  const gt = e.ground_truth?.find((g) => g.kind === 'markdown' && (e.text_layer_chars ?? 0) === 0);
  refs[key] = gt
    ? stripMarkdown(fs.readFileSync(path.join(root, gt.path), 'utf8'))
    : execFileSync('pdftotext', ['-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (!decoded[key]) {
    const out = path.join(tmp, 'page');
    execFileSync('pdftoppm', ['-r', '300', '-png', '-f', String(page), '-l', String(page), '-singlefile', file, out]);
    ocr ??= new Ppocr({ ...bundledModels(), concurrency: 1, threads: 1, detMaxSide: 960, maxImageSide: 4096, recBatch: 6, dropScore: 0.5, memArena: false, retryBelow: RETRY_BELOW, retryWidths: RETRY_WIDTHS });
    decoded[key] = await ocr.decodedBoxes(`${out}.png`);
  }
}
await ocr?.close();
fs.rmSync(tmp, { recursive: true, force: true });
if (cache) fs.writeFileSync(cache, JSON.stringify(decoded));

const configs: [string, GapOptions][] = [['mono', { metrics: 'mono' }], ...excesses.flatMap((excess) => (['proportional', 'both'] as const).map((metrics) => [`${metrics} ${excess}${metrics === 'both' && excess === SPACE_EXCESS ? ' (default)' : ''}`, { metrics, excess }] as [string, GapOptions]))];
const scores: Record<string, number[]> = {};
console.log(`| page | ${configs.map((c) => c[0]).join(' | ')} |`);
console.log(`|---|${configs.map(() => '---').join('|')}|`);
for (const key of Object.keys(refs)) {
  const cells = configs.map(([name, opts]) => {
    const text = groupLines(decoded[key]!.map((d) => spacedBox(d, undefined, undefined, opts))).map((l) => l.text).join('\n');
    const f1 = wordF1(text, refs[key]!).f1;
    (scores[name] ??= []).push(f1);
    return f1.toFixed(3);
  });
  console.log(`| ${key} | ${cells.join(' | ')} |`);
}
const stat = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return `${s[0]!.toFixed(3)} / ${s[Math.floor((s.length - 1) / 2)]!.toFixed(3)} / ${s[s.length - 1]!.toFixed(3)} / ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(3)}`;
};
console.log(`| min / median / max / mean | ${configs.map(([name]) => stat(scores[name]!)).join(' | ')} |`);
