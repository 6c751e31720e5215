import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@quire/config';
import { runParse } from '../src/parse.js';

/** A chunker plugin `chunker:whole` that makes one chunk of the whole text, prefixed with its `label` option. */
function writeChunkerPlugin(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'quire-plugin-whole', version: '1.0.0', type: 'module', main: 'index.js', quire: { kind: 'chunker', name: 'whole', core: '^1' } }));
  fs.writeFileSync(
    path.join(dir, 'index.js'),
    `export default {
  kind: 'chunker', name: 'whole', core: '^1',
  create: (ctx) => ({
    chunk: (doc) => [{ id: doc.id + ':0', index: 0, page: 1, content: String(ctx.options.label ?? '') + doc.text, bbox: null, span: { start: 0, end: doc.text.length }, metadata: { type: 'text', confidence: 1 } }],
  }),
};
`,
  );
}

test('the runner uses the chunker the config selects, with its plugin options, as the server does', { timeout: 120_000 }, async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-runner-plugins-'));
  try {
    const input = path.join(base, 'in');
    const out = path.join(base, 'out');
    fs.mkdirSync(input);
    fs.writeFileSync(path.join(input, 'a.txt'), 'First paragraph.\n\nSecond paragraph.');
    writeChunkerPlugin(path.join(base, 'plugin'));
    const config = loadConfig({ QUIRE_DATA_DIR: path.join(base, 'data'), QUIRE_PLUGINS: path.join(base, 'plugin') }, { plugins: { selected: { chunker: 'whole' }, options: { 'chunker:whole': { label: 'WHOLE: ' } } } });
    const summary = await runParse({ folder: input, out, config });
    assert.equal(summary.parsed, 1, JSON.stringify(summary));
    const chunks = JSON.parse(fs.readFileSync(path.join(out, 'a.txt.json'), 'utf8')).result.chunks;
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0].content, 'WHOLE: First paragraph.\n\nSecond paragraph.');
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
