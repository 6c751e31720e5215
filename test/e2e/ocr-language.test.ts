// One default OCR language (QUIRE_OCR_LANGUAGE) on every path that OCRs, and no OCR engine started where OCR
// does not run: a process without the `ocr` stage loads no PP-OCR models until something asks it to OCR.
// An OCR plugin loaded through QUIRE_PLUGINS writes down the language of each image it is given.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { scannedPng } from '../helpers/scans.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-ocr-language-'));
const LOG = path.join(root, 'languages.log');

/** An OCR plugin that reads every image as "OCRLANG <the language it was asked for>" and logs that language. */
const RECORDER = `import fs from 'node:fs';
export default { kind: 'ocr', name: 'langrec', core: '^1', create: () => ({
  async recognize(imagePath, options) {
    fs.appendFileSync(${JSON.stringify(LOG)}, String(options.language) + '\\n');
    const text = 'OCRLANG ' + options.language;
    const bbox = { x: 10, y: 10, width: 300, height: 30 };
    return { text, words: text.split(' ').map((t, i) => ({ text: t, bbox: { ...bbox, x: 10 + i * 160, width: 150 }, confidence: 0.95 })), lines: [{ text, bbox, confidence: 0.95 }], confidence: 0.95, width: 1000, height: 320 };
  },
  async languages() { return ['deu', 'eng', 'fra']; },
}) };`;

/**
 * A third-party reader of ".scanwrap" files ("SCANWRAP" then a PNG) that hands the PNG to the reader of png
 * images and names no OCR language: the image reader then asks for the configured default.
 */
const WRAPPER = `import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
export default { kind: 'reader', name: 'scanwrap', core: '^1',
  formats: [{ format: 'scanwrap', extensions: ['.scanwrap'], mime: 'application/x-scanwrap', detect: { magic: [{ bytes: 'SCANWRAP' }] } }],
  uses: ['reader:png'],
  create: (ctx) => ({
    async read(input, options) {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'scanwrap-'));
      try {
        const png = path.join(dir, 'page.png');
        await fs.writeFile(png, (await fs.readFile(input.path)).subarray(8));
        const doc = await ctx.readerFor('png').read({ ...input, path: png, format: 'png' }, { signal: options.signal, limits: options.limits, ocr: { enabled: true } });
        return { ...doc, format: input.format };
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
  }),
};`;

const logged = (): string[] => (fs.existsSync(LOG) ? fs.readFileSync(LOG, 'utf8').split('\n').filter(Boolean) : []);
const SCAN = scannedPng(['DELIVERY NOTE 4471']);

describe('the OCR language of every path is QUIRE_OCR_LANGUAGE unless the request names one', () => {
  let s: TestServer;
  before(async () => {
    fs.writeFileSync(path.join(root, 'langrec.js'), RECORDER);
    fs.writeFileSync(path.join(root, 'scanwrap.js'), WRAPPER);
    s = await startTestServer({ env: { QUIRE_PLUGINS: [path.join(root, 'langrec.js'), path.join(root, 'scanwrap.js')].join(','), QUIRE_OCR_ENGINE: 'langrec', QUIRE_OCR_LANGUAGE: 'deu' } });
  });
  after(async () => {
    await s?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const uploaded = async (name: string, bytes: Uint8Array, type = 'application/octet-stream') => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes, {}, type) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const doc = await waitForStatus(s, `/v1/documents/${up.body.id}`, 120_000);
    assert.equal(doc.status, 'completed', JSON.stringify(doc));
    return (await s.json(`/v1/documents/${up.body.id}/content`)).body as { text: string };
  };
  const parsed = async (name: string, bytes: Uint8Array, fields: Record<string, string> = {}) => {
    const r = await s.json('/api/parse', { method: 'POST', body: uploadForm(name, bytes, fields) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.result.chunks as { content: string }[]).map((c) => c.content).join('\n');
  };

  test('an uploaded scan (read → ocr stage) is OCRed in the configured language', async () => {
    fs.rmSync(LOG, { force: true });
    const content = await uploaded('note.png', SCAN, 'image/png');
    assert.match(content.text, /OCRLANG deu/);
    assert.deepEqual([...new Set(logged())], ['deu']);
  });

  test('/api/parse OCRs in the configured language, or in the one its config names', async () => {
    fs.rmSync(LOG, { force: true });
    assert.match(await parsed('note.png', SCAN), /OCRLANG deu/);
    assert.match(await parsed('note.png', SCAN, { config: JSON.stringify({ ocr: { language: 'fra' } }) }), /OCRLANG fra/);
    assert.deepEqual([...new Set(logged())].sort(), ['deu', 'fra']);
  });

  test('a reader that hands a scan to the image reader without a language gets the configured one, not English', async () => {
    fs.rmSync(LOG, { force: true });
    const bytes = Buffer.concat([Buffer.from('SCANWRAP'), SCAN]);
    const content = await uploaded('page.scanwrap', bytes);
    assert.match(content.text, /OCRLANG deu/);
    assert.match(await parsed('page.scanwrap', bytes), /OCRLANG deu/);
    assert.deepEqual([...new Set(logged())], ['deu']);
  });
});

describe('the OCR engine starts where OCR runs', () => {
  const ppocrOf = (s: TestServer) => s.runtime.registry.tryGet('ocr', 'ppocr') as { pool?: { started?: boolean } } | undefined;
  const ppocrHealth = async (s: TestServer) => {
    const r = await s.json('/readyz');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.plugins as { plugin: string; ok: boolean; message?: string }[]).find((p) => p.plugin === 'ocr:ppocr');
  };

  test('an API process without stages (QUIRE_RUN_STAGES=false) has not started PP-OCR, and /readyz says so', async (t) => {
    const s = await startTestServer({ env: { QUIRE_RUN_STAGES: 'false' } });
    try {
      if (!ppocrOf(s)) return t.skip('the ppocr plugin is not active here');
      const h = await ppocrHealth(s);
      assert.ok(h?.ok, JSON.stringify(h));
      assert.match(h!.message!, /not started/);
      assert.equal(ppocrOf(s)!.pool!.started, false, 'no PP-OCR thread was made');
    } finally {
      await s.close();
    }
  });

  test('a reader process (fetch,read,chunk,index) reads a scan, leaves it to the ocr stage, and starts no OCR engine', async (t) => {
    const s = await startTestServer({ env: { QUIRE_RUN_STAGES: 'fetch,read,chunk,index' } });
    try {
      if (!ppocrOf(s)) return t.skip('the ppocr plugin is not active here');
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('note.png', SCAN, {}, 'image/png') });
      assert.equal(up.status, 201, JSON.stringify(up.body));
      const job = await until('the ingest job', async () => s.runtime.store.repo('jobs').findOne({ document_id: up.body.id, type: 'document' }), 60_000);
      await until('the read stage done', async () => (await s.runtime.store.repo('job_stages').find({ job_id: job.id })).some((r) => r.stage === 'ingest.read' && r.status === 'completed'), 120_000, 200);
      assert.match((await ppocrHealth(s))!.message!, /not started/);
      assert.equal(ppocrOf(s)!.pool!.started, false, 'no PP-OCR thread was made');
    } finally {
      await s.close();
    }
  });

  test('a process that runs the ocr stage starts PP-OCR at start, without waiting for a scan', async (t) => {
    const s = await startTestServer({ env: { QUIRE_RUN_STAGES: 'ocr' } });
    try {
      if (!ppocrOf(s)) return t.skip('the ppocr plugin is not active here');
      await until('PP-OCR started', () => ppocrOf(s)!.pool!.started === true, 60_000, 100);
      await until('PP-OCR loaded', async () => /onnxruntime/.test((await ppocrHealth(s))?.message ?? ''), 180_000, 500);
    } finally {
      await s.close();
    }
  });
});
