/**
 * The top lines of each receipt read twice: by PP-OCR (the plugin's lines, with each line's confidence and the
 * lowest probability of a character in it) and by tesseract on the same line's crop alone (`--psm 7`, one text
 * line, the crop padded by `--pad` of the line's height on every side and scaled to `--line-height` pixels
 * high), with tesseract's mean word confidence. It says for how many receipts the company name appears
 * verbatim in PP-OCR's text, in tesseract's line readings, and in either: the most a per-line choice between
 * the two engines could win. `--print all` prints every receipt's lines, `misses` (default) those PP-OCR misses.
 * PP-OCR's decoded boxes and tesseract's readings are kept in `--cache DIR` for the next run.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx plugins/ocr-ppocr/bench/header-lines.ts \
 *     [--only 155,159] [--top 8] [--pad 0.25] [--line-height 48] [--cache DIR] [--print all|misses]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { Ppocr, RETRY_BELOW, RETRY_WIDTHS, bundledModels, groupLines, spacedBox } from '@quire/plugin-ocr-ppocr';
import type { DecodedBox } from '@quire/plugin-ocr-ppocr';
import { loadReceipts, receiptsDir, verbatim } from '../../../test/helpers/receipts.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const TOP = Number(arg('top') ?? 8);
const PAD = Number(arg('pad') ?? 0.25);
const LINE_H = Number(arg('line-height') ?? 48);
const cacheDir = arg('cache') ?? path.join(os.tmpdir(), 'quire-header-lines');
const printAll = arg('print') === 'all';
fs.mkdirSync(cacheDir, { recursive: true });
const boxesFile = path.join(cacheDir, 'boxes.json');
const tessFile = path.join(cacheDir, `tesseract-${TOP}-${PAD}-${LINE_H}.json`);

const dir = receiptsDir();
if (!dir) {
  console.error('no receipts in the corpus (set QUIRE_CORPUS)');
  process.exit(1);
}
const receipts = loadReceipts(dir, { only: arg('only')?.split(',') });
type Read = { text: string; conf: number };
const decoded: Record<string, DecodedBox[]> = fs.existsSync(boxesFile) ? JSON.parse(fs.readFileSync(boxesFile, 'utf8')) : {};
const tess: Record<string, Read[]> = fs.existsSync(tessFile) ? JSON.parse(fs.readFileSync(tessFile, 'utf8')) : {};
const engine = new Ppocr({ ...bundledModels(), concurrency: 1, threads: 1, detMaxSide: 960, maxImageSide: 4096, recBatch: 6, dropScore: 0.5, memArena: false, retryBelow: RETRY_BELOW, retryWidths: RETRY_WIDTHS });
const crop = path.join(cacheDir, 'line.png');

/** tesseract's reading of one line crop: its words joined, and their mean confidence (0..1) */
function tesseractLine(): Read {
  const tsv = execFileSync('tesseract', [crop, 'stdout', '--psm', '7', '-l', 'eng', 'tsv'], { encoding: 'utf8', env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['ignore', 'pipe', 'ignore'] });
  const words = tsv
    .split('\n')
    .slice(1)
    .map((s) => s.split('\t'))
    .filter((c) => c.length >= 12 && c[0] === '5' && c[11]!.trim());
  return { text: words.map((w) => w[11]).join(' '), conf: words.length ? words.reduce((a, w) => a + Number(w[10]), 0) / words.length / 100 : 0 };
}

let ppocrHits = 0;
let tessHits = 0;
let either = 0;
for (const r of receipts) {
  const f = path.basename(r.file);
  if (!decoded[f]) {
    decoded[f] = await engine.decodedBoxes(r.file);
    fs.writeFileSync(boxesFile, JSON.stringify(decoded));
  }
  const boxes = decoded[f]!;
  const lines = groupLines(boxes.map((d) => spacedBox(d))).slice(0, TOP);
  if (!tess[f]) {
    const img = await loadImage(fs.readFileSync(r.file));
    tess[f] = lines.map((l) => {
      const b = l.bbox;
      const pad = b.height * PAD;
      const x = Math.max(0, b.x - pad);
      const y = Math.max(0, b.y - pad);
      const w = Math.min(img.width, b.x + b.width + pad) - x;
      const h = Math.min(img.height, b.y + b.height + pad) - y;
      const k = LINE_H / b.height;
      const c = createCanvas(Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k)));
      const g = c.getContext('2d');
      g.fillStyle = '#fff';
      g.fillRect(0, 0, c.width, c.height);
      g.drawImage(img, x, y, w, h, 0, 0, c.width, c.height);
      fs.writeFileSync(crop, c.toBuffer('image/png'));
      return tesseractLine();
    });
    fs.writeFileSync(tessFile, JSON.stringify(tess));
  }
  const t = tess[f]!;
  const want = verbatim(r.key.company ?? '');
  if (!want) continue;
  const pp = verbatim(groupLines(boxes.map((d) => spacedBox(d))).map((l) => l.text).join('\n')).includes(want);
  const te = t.some((x) => verbatim(x.text).includes(want));
  ppocrHits += +pp;
  tessHits += +te;
  either += +(pp || te);
  if (pp && !printAll) continue;
  console.log(`\n${f} company "${r.key.company}": ppocr ${pp ? 'found' : 'missed'}, tesseract's lines ${te ? 'found' : 'missed'}`);
  console.log('  ppocr: line conf / lowest char p / height px / text                 | tesseract: conf / text');
  lines.forEach((l, i) => {
    const inLine = boxes.filter((b) => b.bbox.y + b.bbox.height / 2 >= l.bbox.y && b.bbox.y + b.bbox.height / 2 <= l.bbox.y + l.bbox.height);
    const low = Math.min(...inLine.flatMap((b) => b.chars.map((c) => c.p ?? 1)));
    console.log(`  ${l.confidence.toFixed(3)} ${low.toFixed(2)} ${l.bbox.height.toFixed(0).padStart(3)} ${l.text.padEnd(45)} | ${t[i]?.conf.toFixed(2)} ${t[i]?.text}`);
  });
}
await engine.close();
console.log(`\ncompany verbatim, ${receipts.length} receipts (top ${TOP} lines for tesseract): ppocr ${ppocrHits}, tesseract's line readings ${tessHits}, either ${either}`);
