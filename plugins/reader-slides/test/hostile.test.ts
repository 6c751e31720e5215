/** The pptx reader against hostile files: zip bombs, entity bombs, too many slides, damaged parts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSlidesReader } from '@quire/plugin-reader-slides';
import { MB, P_NS, SLIDE_HEAD, SLIDE_TAIL, entityBomb, isCode, measure, pptx, readInChild, repeated, shape, readerHarness } from '../../../test/helpers/reader-harness.js';

const reader = createSlidesReader();
const { save, read } = readerHarness('slides', reader);
const SRC = new URL('../src/index.ts', import.meta.url).pathname;

test('pptx zip bomb (a slide of 200 MB of XML in ~600 KB): refused at the part size parsed into a tree, in little memory', async () => {
  const bomb = pptx([SLIDE_HEAD + shape('title') + SLIDE_TAIL, repeated(SLIDE_HEAD, shape('lorem ipsum dolor sit amet'), 200 * MB, SLIDE_TAIL)]);
  assert.ok(bomb.length < 1.5 * MB, `${bomb.length} bytes`);
  const r = await readInChild(SRC, 'createSlidesReader', save('bomb.pptx', bomb), 'pptx', {});
  console.log(`200 MB pptx bomb: ${r.code} in ${r.ms} ms, peak RSS ${r.maxRssMb} MB: ${r.message}`);
  assert.equal(r.code, 'UNPROCESSABLE');
  assert.equal(r.message, 'pptx: decompressed size exceeds 16 MB for one part ("ppt/slides/slide2.xml")');
  assert.ok(r.ms < 30_000, `${r.ms} ms`);
  assert.ok(r.maxRssMb < 300, `peak RSS ${r.maxRssMb} MB`);
  // the whole package counts too
  const many = pptx(Array.from({ length: 6 }, () => repeated(SLIDE_HEAD, shape('x'), 6 * MB, SLIDE_TAIL)));
  await assert.rejects(read('many.pptx', many, { limits: { decompressedBytes: 24 * MB } }), isCode('UNPROCESSABLE', /^pptx: decompressed size exceeds 24 MB$/));
  // media is never inflated
  const media = pptx([SLIDE_HEAD + shape('hello') + SLIDE_TAIL], { 'ppt/media/image1.png': new Uint8Array(128 * MB) });
  assert.match((await read('media.pptx', media, { limits: { decompressedBytes: 4 * MB } })).text, /hello/);
});

test('more slides than the page limit: refused before any slide is parsed', async () => {
  const slides = Array.from({ length: 6 }, (_, i) => SLIDE_HEAD + shape(`slide ${i + 1}`) + SLIDE_TAIL);
  await assert.rejects(read('slides.pptx', pptx(slides), { limits: { pages: 5 } }), isCode('UNPROCESSABLE', /^pptx exceeds 5 pages \(it has 6 slides\)$/));
  assert.equal((await read('slides-ok.pptx', pptx(slides), { limits: { pages: 6 } })).pages.length, 6);
});

test('entity bomb (billion laughs) in a slide: refused', async () => {
  const lol = entityBomb(`<p:sld ${P_NS}><p:cSld><p:spTree>${shape('&lol9;')}</p:spTree></p:cSld></p:sld>`);
  const m = await measure(() => read('lol.pptx', pptx([lol])));
  assert.ok(isCode('UNPROCESSABLE', /^pptx: the XML part ppt\/slides\/slide1\.xml declares a DTD/)(m.error), String(m.error));
  assert.ok(m.ms < 30_000);
});

test('a damaged part fails with a clear message; abort stops between slides', async () => {
  // a slide whose deflate data is damaged
  const good = pptx([SLIDE_HEAD + shape('x'.repeat(5000)) + SLIDE_TAIL]);
  const at = good.indexOf('ppt/slides/slide1.xml') + 'ppt/slides/slide1.xml'.length + 10;
  const broken = Buffer.from(good);
  broken.fill(0xff, at, at + 40);
  await assert.rejects(read('broken.pptx', broken), (e: unknown) => isCode('PROCESSING_ERROR', /^pptx could not be read: the file is corrupt \(part "ppt\/slides\/slide1\.xml" does not inflate\)$/)(e));
  const slides = Array.from({ length: 400 }, (_, i) => SLIDE_HEAD + Array.from({ length: 60 }, (_, j) => shape(`slide ${i} shape ${j}`)).join('') + SLIDE_TAIL);
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('time limit')), 100);
  const m = await measure(() => read('abort.pptx', pptx(slides), { signal: ac.signal }));
  assert.match(String(m.error), /time limit/);
  assert.ok(m.ms < 30_000, `${m.ms} ms`);
});
