/** The image reader against hostile and coarse images: pixel bombs refused from the header, low-resolution images enlarged before OCR. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import { isQuireError, pluginContext } from '@quire/core';
import type { OcrPlugin, OcrResult, ParsedDocument, ReadOptions } from '@quire/core';
import imagePlugin, { imageInfo } from '@quire/plugin-reader-image';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-img-hostile-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

interface Call {
  file: string;
  dpi?: number;
  width: number;
  height: number;
}

/** An OCR plugin that records what it was given and answers with `reply`. */
function fakeOcr(reply: (call: Call, n: number) => OcrResult): OcrPlugin & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    async recognize(file, o) {
      const f = imageInfo(fs.readFileSync(file)).frames[0]!;
      const call = { file, dpi: o.dpi, width: f.width, height: f.height };
      calls.push(call);
      return reply(call, calls.length);
    },
    async languages() {
      return ['eng'];
    },
  };
}

async function read(file: string, format: string, ocr: OcrPlugin | undefined, options: Partial<ReadOptions> = {}): Promise<ParsedDocument> {
  const base = pluginContext(imagePlugin, { dataDir: tmp, get: () => assert.fail('no'), tryGet: ((kind: string) => (kind === 'ocr' ? ocr : undefined)) as never });
  const reader = (await imagePlugin.create(base)) as { read: (i: unknown, o: ReadOptions) => Promise<ParsedDocument> };
  return reader.read({ path: file, name: path.basename(file), format, size: fs.statSync(file).size, documentId: 'd' }, { ocr: { enabled: 'auto', language: 'eng' }, ...options });
}

const chunk = (type: string, data: Buffer) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
};

/** A PNG header claiming width × height (8-bit grey) with a tiny IDAT: a pixel bomb. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(1000))), chunk('IEND', Buffer.alloc(0))]);
}

/** A real PNG of width × height with some text, with a pHYs chunk saying `dpi` (none when null). */
function pngPage(file: string, width: number, height: number, dpi: number | null, fontPx = 12): string {
  const c = createCanvas(width, height);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#000';
  g.font = `${fontPx}px DejaVu Sans`;
  for (let y = 40; y < height - 20; y += fontPx * 2) g.fillText('The quick brown fox jumps over the lazy dog.', 30, y);
  let png = c.toBuffer('image/png');
  if (dpi) {
    const phys = Buffer.alloc(9);
    phys.writeUInt32BE(Math.round(dpi / 0.0254), 0);
    phys.writeUInt32BE(Math.round(dpi / 0.0254), 4);
    phys[8] = 1;
    png = Buffer.concat([png.subarray(0, 33), chunk('pHYs', phys), png.subarray(33)]);
  }
  const p = path.join(tmp, file);
  fs.writeFileSync(p, png);
  return p;
}

/** A little-endian TIFF of frames (width, height, dpi); pixel data is not needed by anything here. */
function tiff(frames: { width: number; height: number; dpi: number }[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0])];
  let offset = 8;
  frames.forEach((f, i) => {
    const n = 5;
    const ifdSize = 2 + n * 12 + 4;
    const rationals = offset + ifdSize;
    const next = i < frames.length - 1 ? rationals + 16 : 0;
    const b = Buffer.alloc(ifdSize + 16);
    b.writeUInt16LE(n, 0);
    const entry = (k: number, tag: number, type: number, value: number) => {
      b.writeUInt16LE(tag, 2 + k * 12);
      b.writeUInt16LE(type, 4 + k * 12);
      b.writeUInt32LE(1, 6 + k * 12);
      b.writeUInt32LE(value, 10 + k * 12);
    };
    entry(0, 256, 4, f.width);
    entry(1, 257, 4, f.height);
    entry(2, 282, 5, rationals);
    entry(3, 283, 5, rationals + 8);
    entry(4, 296, 3, 2);
    b.writeUInt32LE(next, 2 + n * 12);
    b.writeUInt32LE(f.dpi, ifdSize);
    b.writeUInt32LE(1, ifdSize + 4);
    b.writeUInt32LE(f.dpi, ifdSize + 8);
    b.writeUInt32LE(1, ifdSize + 12);
    parts.push(b);
    offset += b.length;
  });
  return Buffer.concat(parts);
}

const word = (text: string, x: number, y: number, width: number, height: number) => ({ text, confidence: 90, bbox: { x, y, width, height } });
const result = (call: Call, lineHeight: number, confidence = 90): OcrResult => {
  const w = word('Hello', call.width / 4, call.height / 4, call.width / 8, lineHeight);
  return { text: 'Hello', words: [w], lines: [{ text: 'Hello', bbox: w.bbox, confidence }], confidence, width: call.width, height: call.height };
};

const refused = (re: RegExp) => (e: unknown) => isQuireError(e) && e.code === 'UNPROCESSABLE' && re.test(e.message);

test('a 20000 × 20000 PNG is refused from its header, before anything decodes it', async () => {
  const file = path.join(tmp, 'huge.png');
  fs.writeFileSync(file, pngHeader(20_000, 20_000));
  assert.ok(fs.statSync(file).size < 2000);
  const ocr = fakeOcr(() => assert.fail('OCR must not run'));
  const t0 = performance.now();
  await assert.rejects(read(file, 'png', ocr), refused(/^png image of 20,000 × 20,000 pixels \(400 megapixels\) exceeds the limit of 100 megapixels$/));
  assert.ok(performance.now() - t0 < 15_000);
  assert.equal(ocr.calls.length, 0);
  // also with OCR off (nothing would decode it then, but the page is still refused), and the other formats' headers
  await assert.rejects(read(file, 'png', ocr, { ocr: { enabled: false, language: 'eng' } }), refused(/400 megapixels/));
  const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0])]);
  fs.writeFileSync(path.join(tmp, 'huge.gif'), gif);
  await assert.rejects(read(path.join(tmp, 'huge.gif'), 'gif', ocr), refused(/^gif image of 65,535 × 65,535 pixels/));
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xea, 0x60, 0xea, 0x60, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9]);
  fs.writeFileSync(path.join(tmp, 'huge.jpg'), jpeg);
  await assert.rejects(read(path.join(tmp, 'huge.jpg'), 'jpg', ocr), refused(/^jpg image of 60,000 × 60,000 pixels/));
  // a lower limit
  await assert.rejects(read(pngPage('small.png', 800, 600, 300), 'png', ocr, { limits: { imagePixels: 400_000 } }), refused(/^png image of 800 × 600 pixels \(0.5 megapixels\) exceeds the limit of 0.4 megapixels$/));
});

test('a TIFF of more images than the page limit is refused; a damaged header is a clear error', async () => {
  const file = path.join(tmp, 'many.tif');
  fs.writeFileSync(file, tiff([1, 2, 3].map(() => ({ width: 100, height: 100, dpi: 300 }))));
  const ocr = fakeOcr(() => assert.fail('OCR must not run'));
  await assert.rejects(read(file, 'tiff', ocr, { limits: { pages: 2 } }), refused(/^tiff exceeds 2 pages \(it has 3 images\)$/));
  const bad = path.join(tmp, 'bad.png');
  fs.writeFileSync(bad, Buffer.from('\x89PNG\r\n\x1a\n but nothing after', 'latin1'));
  await assert.rejects(read(bad, 'png', ocr), (e: unknown) => isQuireError(e) && e.code === 'PROCESSING_ERROR' && /^png could not be read: the image header is damaged/.test(e.message));
});

test('a 72-dpi page is enlarged 4× before OCR, flagged, and its words come back in page points', async () => {
  const file = pngPage('page72.png', 612, 792, 72);
  let seen: Call | undefined;
  const ocr = fakeOcr((call) => {
    seen = call;
    assert.ok(fs.existsSync(call.file));
    return result(call, 40);
  });
  const doc = await read(file, 'png', ocr);
  assert.equal(ocr.calls.length, 1);
  assert.notEqual(seen!.file, file);
  assert.deepEqual([seen!.width, seen!.height, seen!.dpi], [2448, 3168, 288]);
  assert.ok(!fs.existsSync(seen!.file), 'the enlarged copy is removed');
  assert.deepEqual([doc.pages[0]!.width, doc.pages[0]!.height], [612, 792]);
  assert.deepEqual(doc.pages[0]!.words![0]!.bbox, { x: 153, y: 198, width: 76.5, height: 10 });
  assert.equal(doc.issues.length, 1);
  assert.equal(doc.issues[0]!.code, 'LOW_RESOLUTION_UPSCALED');
  assert.match(doc.issues[0]!.message, /^The image is too coarse for reliable OCR \(it is 72 dpi\): it was enlarged 4× before OCR\./);
  assert.equal(doc.metadata.ocrUpscale, 4);
});

test('no resolution in the header: a small page-shaped image is enlarged by its size; a 300-dpi one is left alone', async () => {
  const ocr = fakeOcr((call) => result(call, 30));
  const doc = await read(pngPage('nodpi.png', 850, 1100, null), 'png', ocr);
  assert.deepEqual([ocr.calls[0]!.width, ocr.calls[0]!.height], [2550, 3300]);
  assert.match(doc.issues[0]!.message, /no resolution information and at 850 × 1100 pixels for a page it is about 100 dpi\): it was enlarged 3× before OCR/);
  const fine = fakeOcr((call) => result(call, 40));
  const file = pngPage('fine.png', 1275, 1650, 300, 36);
  const ok = await read(file, 'png', fine);
  assert.deepEqual(fine.calls.map((c) => [c.file, c.width, c.dpi]), [[file, 1275, 300]]);
  assert.deepEqual(ok.issues, []);
});

test('no resolution and not page-shaped: text lines a few pixels high get a second OCR pass on an enlarged image', async () => {
  const file = pngPage('screenshot.png', 1200, 400, null, 8);
  const ocr = fakeOcr((call, n) => (n === 1 ? result(call, 8, 40) : result(call, 32, 88)));
  const doc = await read(file, 'png', ocr);
  assert.equal(ocr.calls.length, 2);
  assert.deepEqual([ocr.calls[1]!.width, ocr.calls[1]!.height], [4800, 1600]);
  assert.equal(doc.issues[0]!.code, 'LOW_RESOLUTION_UPSCALED');
  assert.match(doc.issues[0]!.message, /its text is only about 8 pixels high\): it was enlarged 4× before OCR/);
  assert.equal(doc.pages[0]!.confidence, 88);
  assert.equal(doc.pages[0]!.words![0]!.bbox.height, 8); // 32 enlarged pixels → 8 pixels → 8 points at 72 dpi
});

test('a 72-dpi TIFF (which cannot be enlarged here) is flagged as low resolution', async () => {
  const file = path.join(tmp, 'fax.tif');
  fs.writeFileSync(file, tiff([{ width: 612, height: 792, dpi: 72 }]));
  const ocr = fakeOcr((call) => result(call, 10));
  const doc = await read(file, 'tiff', ocr);
  assert.equal(ocr.calls[0]!.file, file);
  assert.equal(doc.issues[0]!.code, 'LOW_RESOLUTION');
  assert.match(doc.issues[0]!.message, /\(it is 72 dpi\); the text may have errors/);
});
