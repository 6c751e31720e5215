import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORE_VERSION, DocumentBuilder, createPlugin, definePlugin, errors, QuireError, readWith, z } from '@quire/sdk';

const reader = definePlugin({
  kind: 'reader',
  name: 'lines',
  core: '^1',
  formats: [{ format: 'lines', extensions: ['.lines'], mime: 'text/plain' }],
  options: z.strictObject({ upper: z.boolean().default(false) }),
  create: (ctx) => ({
    async read(input) {
      const text = fs.readFileSync(input.path, 'utf8');
      if (!text.trim()) throw errors.unprocessable('empty file');
      const b = new DocumentBuilder(input.documentId, input.name, input.format);
      b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
      for (const line of text.split('\n').filter(Boolean)) b.addBlock({ type: 'paragraph', text: ctx.options.upper ? line.toUpperCase() : line, page: 1, bbox: null, confidence: 1 });
      return b.build();
    },
  }),
});

test('createPlugin makes a plugin as the registry does: options checked and defaulted, formats from the declarations', async () => {
  const r = await createPlugin(reader, { options: { upper: true } });
  assert.deepEqual(r.formats, ['lines']);
  await assert.rejects(createPlugin(reader, { options: { upper: 'yes' } }), /invalid options of plugin reader:lines: option "upper"/);
  await assert.rejects(createPlugin(reader, { options: { shout: true } }), /unknown option "shout"/);
});

test('readWith reads a real file with a reader plugin; its errors are the host\'s coded errors', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sdk-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.lines'), 'first\nsecond\n');
    const doc = await readWith(reader, path.join(dir, 'a.lines'), { init: { options: { upper: true } } });
    assert.equal(doc.text, 'FIRST\n\nSECOND');
    assert.equal(doc.format, 'lines');
    assert.equal(doc.name, 'a.lines');
    fs.writeFileSync(path.join(dir, 'empty.lines'), '\n');
    await assert.rejects(readWith(reader, path.join(dir, 'empty.lines')), (e: unknown) => e instanceof QuireError && e.code === 'UNPROCESSABLE');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the SDK's version is the kernel's: a plugin's peer range on @quire/sdk is checked against it", () => {
  const sdk = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const kernel = JSON.parse(fs.readFileSync(new URL('../../kernel/package.json', import.meta.url), 'utf8'));
  assert.equal(sdk.version, CORE_VERSION);
  assert.equal(kernel.version, CORE_VERSION);
});
