import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { PluginRegistry, definePlugin, errors } from '@quire/core';
import type { OcrPlugin } from '@quire/core';
import router, { createRouter } from '@quire/plugin-ocr-auto';

/** A stand-in engine: reads every image as its own name, or fails as told. */
const engine = (name: string, opts: { languages?: string[]; health?: { ok: boolean; message?: string }; fail?: (path: string) => Error | null } = {}) => {
  const calls: string[] = [];
  const e: OcrPlugin & { calls: string[] } = {
    calls,
    async recognize(p, o) {
      calls.push(`${p}:${o.language}`);
      const err = opts.fail?.(p);
      if (err) throw err;
      return { text: name, words: [], lines: [], confidence: 1, width: 1, height: 1 };
    },
    languages: async () => opts.languages ?? ['eng'],
    ...(opts.health ? { health: async () => opts.health! } : {}),
  };
  return e;
};
const logger = () => {
  const warned: string[] = [];
  const l = { warn: (_o: unknown, m: string) => warned.push(m), info() {}, debug() {}, error() {}, child: () => l } as never;
  return { l, warned };
};

test('English and Chinese (and their combinations) go to ppocr, other languages and auto to tesseract', async () => {
  const tesseract = engine('tesseract', { languages: ['eng', 'deu', 'osd'] });
  const ppocr = engine('ppocr', { languages: ['chi_sim', 'chi_tra', 'eng'], health: { ok: true } });
  const r = createRouter({ tesseract, ppocr }, 'eng', logger().l);
  const read = async (language: string) => {
    const res = await r.recognize('a.png', { language });
    assert.equal(res.text, res.engine, 'the result says which engine read it');
    return res.engine;
  };
  for (const l of ['eng', 'ENG', 'chi_sim', 'chi_tra', 'eng+chi_sim', 'chi_tra+eng', '']) assert.equal(await read(l), 'ppocr', l);
  for (const l of ['deu', 'fra', 'eng+deu', 'rus', 'auto']) assert.equal(await read(l), 'tesseract', l);
  assert.deepEqual(await r.languages(), ['chi_sim', 'chi_tra', 'deu', 'eng', 'osd']);
});

test('the default language is the shared one: a German default goes to tesseract', async () => {
  const tesseract = engine('tesseract');
  const ppocr = engine('ppocr', { health: { ok: true } });
  const r = createRouter({ tesseract, ppocr }, 'deu', logger().l);
  assert.equal((await r.recognize('a.png', { language: '' })).engine, 'tesseract');
  assert.deepEqual(tesseract.calls, ['a.png:deu']);
});

test('when ppocr cannot run, everything goes to tesseract and the reason is logged once', async () => {
  const { l, warned } = logger();
  const tesseract = engine('tesseract');
  const broken = engine('ppocr', { health: { ok: false, message: 'PP-OCR detection model /x.onnx cannot be loaded' } });
  const r = createRouter({ tesseract, ppocr: broken }, 'eng', l);
  for (let i = 0; i < 3; i++) assert.equal((await r.recognize('a.png', { language: 'eng' })).engine, 'tesseract');
  assert.equal(broken.calls.length, 0);
  assert.equal(warned.length, 1);
  assert.match(warned[0]!, /PP-OCR is unavailable.*detection model \/x\.onnx cannot be loaded/);
  assert.match((await r.health!()).message!, /ppocr unavailable/);

  // a model that fails at the first image (not retryable): that image and the next go to tesseract
  const late = engine('ppocr', { health: { ok: true }, fail: () => Object.assign(errors.unavailable('onnxruntime-node cannot be loaded'), { retryable: false }) });
  const r2 = createRouter({ tesseract, ppocr: late }, 'eng', l);
  assert.equal((await r2.recognize('b.png', { language: 'eng' })).engine, 'tesseract');
  assert.equal((await r2.recognize('c.png', { language: 'eng' })).engine, 'tesseract');
  assert.equal(late.calls.length, 1);

  // no ppocr plugin at all
  assert.equal((await createRouter({ tesseract }, 'eng', l).recognize('d.png', { language: 'eng' })).engine, 'tesseract');
});

test('an image ppocr does not decode (TIFF) goes to tesseract; other ppocr errors stay errors', async () => {
  const tesseract = engine('tesseract');
  const ppocr = engine('ppocr', {
    health: { ok: true },
    fail: (p) => (p.endsWith('.tif') ? errors.unprocessable('not decoded', { ocr: 'ppocr', undecodable: true }) : p.endsWith('.bad') ? errors.unprocessable('corrupt') : null),
  });
  const r = createRouter({ tesseract, ppocr }, 'eng', logger().l);
  assert.equal((await r.recognize('scan.tif', { language: 'eng' })).engine, 'tesseract');
  assert.equal((await r.recognize('next.png', { language: 'eng' })).engine, 'ppocr');
  await assert.rejects(r.recognize('x.bad', { language: 'eng' }), /corrupt/);
});

test('through the registry: the router gets both engines by name, whichever is registered first', async () => {
  const reg = new PluginRegistry({ dataDir: os.tmpdir(), selected: { ocr: 'auto' } });
  reg.register(router);
  reg.register(definePlugin({ kind: 'ocr', name: 'tesseract', core: '^1', create: () => engine('tesseract') }));
  reg.register(definePlugin({ kind: 'ocr', name: 'ppocr', core: '^1', create: () => engine('ppocr', { health: { ok: true } }) }));
  await reg.start();
  const ocr = reg.get('ocr');
  assert.equal((await ocr.recognize('a.png', { language: 'eng' })).engine, 'ppocr');
  assert.equal((await ocr.recognize('a.png', { language: 'fra' })).engine, 'tesseract');
  await reg.close();
});
