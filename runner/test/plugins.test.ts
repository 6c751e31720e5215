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

/** A plugin of `kind` whose creation writes `<marker>/<kind>`: which plugins a run started is seen from outside. */
function writeProbePlugin(dir: string, kind: 'generator' | 'integration' | 'embedder', marker: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `quire-plugin-probe-${kind}`, version: '1.0.0', type: 'module', main: 'index.js', quire: { kind, name: 'probe', core: '^1' } }));
  fs.writeFileSync(
    path.join(dir, 'index.js'),
    `import fs from 'node:fs';
import path from 'node:path';
export default {
  kind: ${JSON.stringify(kind)}, name: 'probe', core: '^1',
  create: () => {
    fs.mkdirSync(${JSON.stringify(marker)}, { recursive: true });
    fs.writeFileSync(path.join(${JSON.stringify(marker)}, ${JSON.stringify(kind)}), 'started');
    return { generate: async () => ({}), send: async () => ({}), embed: async () => [], dimension: 3 };
  },
};
`,
  );
}

test('the runner starts only the plugins a parse uses: generators, integrations and embedders stay unstarted', { timeout: 120_000 }, async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-runner-lazy-'));
  try {
    const input = path.join(base, 'in');
    const out = path.join(base, 'out');
    const marker = path.join(base, 'started');
    fs.mkdirSync(input);
    fs.writeFileSync(path.join(input, 'a.txt'), 'First paragraph.\n\nSecond paragraph.');
    const kinds = ['generator', 'integration', 'embedder'] as const;
    for (const k of kinds) writeProbePlugin(path.join(base, `probe-${k}`), k, marker);
    writeChunkerPlugin(path.join(base, 'chunker'));
    const plugins = [...kinds.map((k) => path.join(base, `probe-${k}`)), path.join(base, 'chunker')].join(',');
    const config = loadConfig({ QUIRE_DATA_DIR: path.join(base, 'data'), QUIRE_PLUGINS: plugins }, { plugins: { selected: { chunker: 'whole', embedder: 'probe' }, options: { 'chunker:whole': { label: 'WHOLE: ' } } } });
    const summary = await runParse({ folder: input, out, config });
    assert.equal(summary.parsed, 1, JSON.stringify(summary));
    // the chunker the parse uses was started; the plugins no parse calls were loaded but never created
    assert.equal(JSON.parse(fs.readFileSync(path.join(out, 'a.txt.json'), 'utf8')).result.chunks[0].content, 'WHOLE: First paragraph.\n\nSecond paragraph.');
    assert.deepEqual(fs.existsSync(marker) ? fs.readdirSync(marker) : [], []);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
