import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createCanvas } from '@napi-rs/canvas';
import { ocrPendingOf, pluginContext } from '@quire/core';
import type { ReadOptions } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import imagePlugin, { imageInfo } from '@quire/plugin-reader-image';
import { ruledTablePng } from '../../../test/helpers/reader-harness.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-img-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const hasTesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const hasCorpus = fs.existsSync(path.join(corpus, 'manifest.json'));

const shared = { 'ocr.concurrency': 2, 'ocr.language': 'eng' };
async function makeReader(withOcr = true) {
  const ocr = withOcr ? await ocrPlugin.create(pluginContext(ocrPlugin, { shared, dataDir: tmp })) : undefined;
  return imagePlugin.create(pluginContext(imagePlugin, { dataDir: tmp, tryGet: ((kind: string) => (kind === 'ocr' ? ocr : undefined)) as never })) as any;
}
const opts = (o: Partial<ReadOptions> = {}): ReadOptions => ({ ocr: { enabled: 'auto', language: 'eng' }, ...o });
const input = (p: string, format: string) => ({ path: p, name: path.basename(p), format, size: fs.statSync(p).size, documentId: 'doc1' });

/** A PNG with a pHYs chunk saying 144 dpi. */
function pngWithText(lines: string[], file: string): string {
  const c = createCanvas(1000, 80 + lines.length * 70);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.font = '36px DejaVu Sans';
  lines.forEach((l, i) => g.fillText(l, 40, 70 + i * 70));
  let png = c.toBuffer('image/png');
  // insert pHYs (144 dpi = 5669 px/m) after IHDR
  const phys = Buffer.alloc(21);
  phys.writeUInt32BE(9, 0);
  phys.write('pHYs', 4, 'latin1');
  phys.writeUInt32BE(5669, 8);
  phys.writeUInt32BE(5669, 12);
  phys[16] = 1;
  phys.writeInt32BE(crc32(phys.subarray(4, 17)), 17);
  png = Buffer.concat([png.subarray(0, 33), phys, png.subarray(33)]);
  const p = path.join(tmp, file);
  fs.writeFileSync(p, png);
  return p;
}
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c | 0;
}

test('imageInfo reads size and DPI from PNG headers', () => {
  const p = pngWithText(['x'], 'dpi.png');
  const info = imageInfo(fs.readFileSync(p));
  assert.equal(info.format, 'png');
  assert.equal(info.frames[0]!.width, 1000);
  assert.ok(Math.abs(info.frames[0]!.dpiX! - 144) < 0.1);
});

test('OCR disabled: pages with sizes, no text, an issue', async () => {
  const p = pngWithText(['Hello'], 'disabled.png');
  const doc = await (await makeReader()).read(input(p, 'png'), opts({ ocr: { enabled: false, language: 'eng' } }));
  assert.equal(doc.pages.length, 1);
  assert.equal(doc.pages[0].width, 500); // 1000 px at 144 dpi
  assert.equal(doc.text, '');
  assert.equal(doc.issues[0].code, 'OCR_DISABLED');
  assert.match(doc.issues[0].message, /OCR is disabled/);
});

test('no OCR plugin: an OCR_UNAVAILABLE issue', async () => {
  const p = pngWithText(['Hello'], 'noocr.png');
  const doc = await (await makeReader(false)).read(input(p, 'png'), opts());
  assert.equal(doc.issues[0].code, 'OCR_UNAVAILABLE');
});

test('a read that defers OCR (the pipeline\'s read stage) lists every page for the ocr stage and OCRs none', async () => {
  const p = pngWithText(['Hello'], 'deferred.png');
  const doc = await (await makeReader()).read(input(p, 'png'), opts({ ocr: { enabled: 'auto', language: 'eng', defer: true } }));
  assert.deepEqual(ocrPendingOf(doc), [1]);
  assert.equal(doc.text, '');
  assert.equal(doc.pages.length, 1);
  assert.equal(doc.pages[0].ocr, false);
  assert.deepEqual(doc.issues, []);
});

test('a generated PNG with known text: OCR text, key-values, words in points', { skip: !hasTesseract }, async () => {
  const p = pngWithText(['Quarterly Report', 'Invoice number: INV-2024-001', 'Customer: Acme Corporation', 'The quick brown fox jumps over the lazy dog.'], 'known.png');
  const doc = await (await makeReader()).read(input(p, 'png'), opts());
  assert.match(doc.text, /Quarterly Report/);
  assert.match(doc.text, /INV-2024-001/);
  assert.match(doc.text, /quick brown fox jumps over the lazy dog/);
  const kv = doc.blocks.find((b: any) => b.type === 'key_value' && b.key === 'Customer');
  assert.ok(kv, JSON.stringify(doc.blocks.map((b: any) => [b.type, b.text])));
  assert.equal(kv.value, 'Acme Corporation');
  assert.ok(kv.confidence > 0.7 && kv.confidence <= 1);
  assert.equal(doc.pages[0].ocr, true);
  const w = doc.pages[0].words.find((x: any) => x.text === 'Quarterly');
  assert.ok(w.bbox.x > 15 && w.bbox.x < 25, JSON.stringify(w.bbox)); // 40 px at 144 dpi = 20 pt
  for (const b of doc.blocks) assert.equal(doc.text.slice(b.span.start, b.span.end), b.text);
});

/** A PNG of a ruled 3x3 table (72 dpi). */
async function tablePng(file: string): Promise<string> {
  const p = path.join(tmp, file);
  fs.writeFileSync(p, await ruledTablePng());
  return p;
}

/** A till receipt as printed: header centred, item labels on the left, amounts right-aligned (a PNG about twice as high as wide). */
function receiptPng(file: string, items: [string, string][]): string {
  const W = 480;
  const step = 72;
  const c = createCanvas(W, 220 + items.length * step);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.textAlign = 'center';
  g.font = 'bold 24px DejaVu Sans Mono';
  g.fillText('CORNER CAFE SDN BHD', W / 2, 50);
  g.font = '18px DejaVu Sans Mono';
  g.fillText('12 JALAN MAJU, 50000 KL', W / 2, 80);
  g.fillText('DATE: 03/04/2018 10:15', W / 2, 108);
  g.font = '20px DejaVu Sans Mono';
  items.forEach(([label, amount], i) => {
    const y = 170 + i * step;
    g.textAlign = 'left';
    g.fillText(label, 20, y);
    g.textAlign = 'right';
    g.fillText(amount, W - 20, y);
  });
  const p = path.join(tmp, file);
  fs.writeFileSync(p, c.toBuffer('image/png'));
  return p;
}

test('a narrow receipt: every amount of the right-hand column is read on its label\'s line', { skip: !hasTesseract }, async () => {
  const items: [string, string][] = [
    ['COFFEE', '4.50'],
    ['CROISSANT', '3.20'],
    ['ORANGE JUICE', '5.90'],
    ['WATER', '1.10'],
    ['SUBTOTAL', '14.70'],
    ['ROUNDING', '0.00'],
    ['TOTAL', '14.70'],
    ['CASH', '20.00'],
    ['CHANGE', '5.30'],
  ];
  const file = receiptPng('receipt.png', items);
  const reader = await makeReader();
  const doc = await reader.read(input(file, 'png'), opts());
  const lines = doc.text.split('\n').map((l: string) => l.trim());
  for (const [label, amount] of items) assert.ok(lines.includes(`${label} ${amount}`), `"${label} ${amount}" is not a line of:\n${doc.text}`);
  assert.match(doc.text, /DATE: 03\/04\/2018/);
});

test('a ruled table in an image becomes a table', { skip: !hasTesseract }, async () => {
  const doc = await (await makeReader()).read(input(await tablePng('table.png'), 'png'), opts());
  assert.equal(doc.tables.length, 1, doc.text);
  const t = doc.tables[0];
  assert.equal(t.rows, 3);
  assert.equal(t.cols, 3);
  assert.equal(t.cells.find((c: any) => c.row === 1 && c.col === 0).text, 'Apples');
  assert.equal(t.cells.find((c: any) => c.row === 2 && c.col === 2).text, '4.25');
  assert.ok(t.confidence > 0.5);
  assert.match(doc.text, /Notes below the table\./);
  assert.ok(doc.text.indexOf('| Product') < doc.text.indexOf('Notes below'));
});

function f1(a: string, b: string): number {
  const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const ca = new Map<string, number>();
  for (const w of words(a)) ca.set(w, (ca.get(w) ?? 0) + 1);
  let common = 0;
  const wb = words(b);
  for (const w of wb) {
    const n = ca.get(w) ?? 0;
    if (n > 0) {
      common++;
      ca.set(w, n - 1);
    }
  }
  const na = words(a).length;
  if (!na || !wb.length) return 0;
  const p = common / na;
  const r = common / wb.length;
  return p + r ? (2 * p * r) / (p + r) : 0;
}

test('corpus: phototest.tif F1 >= 0.8 against its ground truth', { skip: !hasTesseract || !hasCorpus }, async () => {
  const p = path.join(corpus, 'files/tesstest__phototest.tif');
  const gt = fs.readFileSync(path.join(corpus, 'groundtruth/tesstest__phototest.tif/phototest.gold.txt'), 'utf8');
  const doc = await (await makeReader()).read(input(p, 'tiff'), opts());
  const score = f1(doc.text, gt);
  console.log(`phototest.tif word F1 = ${score.toFixed(3)}`);
  assert.ok(score >= 0.8, `F1 ${score}`);
});

test('corpus: a two-page TIFF gives two pages', { skip: !hasTesseract || !hasCorpus }, async () => {
  const p = path.join(corpus, 'files/docling__2206.01062.tif');
  const info = imageInfo(fs.readFileSync(p));
  assert.equal(info.frames.length, 2);
  const doc = await (await makeReader()).read(input(p, 'tiff'), opts({ maxPages: 1 }));
  assert.equal(doc.pages.length, 1);
  assert.ok(doc.text.length > 200);
});
