import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry, ReaderSandbox, isQuireError } from '../src/index.js';

// A third-party style reader plugin written to a temp folder: behaviour chosen by the file name.
const PLUGIN = `
export default {
  kind: 'reader', name: 'hostile', core: '^1',
  create(ctx) {
    return {
      formats: ['hostile'],
      async read(input, options) {
        if (input.name === 'oom') {
          const keep = [];
          for (;;) keep.push(new Array(1e6).fill({ a: Math.random() }));
        }
        if (input.name === 'huge') {
          const a = [];
          for (let i = 0; ; i++) a.push(i); // one array doubled past the heap limit in a single step
        }
        if (input.name === 'spin') {
          for (;;) {} // never looks at the signal
        }
        if (input.name === 'throws') {
          const e = new Error('no good'); e.name = 'QuireError'; throw e;
        }
        options.onProgress?.(0.5);
        return { id: input.documentId, name: input.name, format: input.format, metadata: { pid: process.pid, limits: options.limits ?? null }, pages: [], issues: [] };
      },
    };
  },
};`;

async function setup(heapMb = 256) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sandbox-'));
  fs.writeFileSync(path.join(dir, 'hostile-reader.mjs'), PLUGIN);
  const registry = new PluginRegistry({ shared: { 'ocr.concurrency': 2 }, dataDir: dir, selected: {} });
  await registry.load('./hostile-reader.mjs', dir);
  await registry.start();
  const sandbox = new ReaderSandbox(registry, { threads: 2, heapMb, graceMs: 300 });
  const read = (name: string, signal?: AbortSignal, onProgress?: (f: number) => void) =>
    sandbox.read('hostile', { path: path.join(dir, name), name, format: 'hostile', size: 1, documentId: name }, { ocr: { enabled: false, language: 'eng' }, signal, onProgress, limits: { pages: 7 } });
  return {
    read,
    sandbox,
    async close() {
      await sandbox.close();
      await registry.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('a reader runs in an isolate (a child process), with its limits and progress', async () => {
  const s = await setup();
  try {
    const seen: number[] = [];
    const doc = await s.read('fine', undefined, (f) => seen.push(f));
    assert.equal(doc.metadata.pid !== process.pid, true);
    assert.deepEqual(doc.metadata.limits, { pages: 7 });
    assert.deepEqual(seen, [0.5]);
  } finally {
    await s.close();
  }
});

test('a reader that runs out of heap fails its document with UNPROCESSABLE; the next read works', async () => {
  const s = await setup(200);
  try {
    const rssBefore = process.memoryUsage().rss;
    const err = await s.read('oom').then(() => null, (e) => e);
    assert.ok(isQuireError(err), `expected a QuireError, got ${err}`);
    assert.equal(err.code, 'UNPROCESSABLE');
    assert.match(err.message, /more memory than the reader limit \(200 MB\)/);
    assert.ok(process.memoryUsage().rss - rssBefore < 400 * 1024 * 1024);
    const doc = await s.read('fine');
    assert.equal(doc.metadata.pid !== process.pid, true);
  } finally {
    await s.close();
  }
});

test('one array grown past the heap limit in a single step ends the isolate, not this process', async () => {
  const s = await setup(200);
  try {
    const err = await s.read('huge').then(() => null, (e) => e);
    assert.ok(isQuireError(err), `expected a QuireError, got ${err}`);
    assert.equal(err.code, 'UNPROCESSABLE');
    assert.equal((await s.read('fine')).name, 'fine');
  } finally {
    await s.close();
  }
});

test('a reader that ignores the abort signal loses its thread after the grace period', async () => {
  const s = await setup();
  try {
    const t0 = Date.now();
    const err = await s.read('spin', AbortSignal.timeout(200)).then(() => null, (e) => e);
    assert.ok(err, 'the read must fail');
    assert.ok(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`);
    // the event loop was never blocked, and the pool still serves
    const doc = await s.read('fine');
    assert.equal(doc.name, 'fine');
  } finally {
    await s.close();
  }
});

test('errors come back as they were thrown; reads beyond the thread count wait their turn', async () => {
  const s = await setup();
  try {
    const err = await s.read('throws').then(() => null, (e) => e);
    assert.equal(err.message, 'no good');
    const docs = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => s.read(n)));
    assert.deepEqual(docs.map((d) => d.name), ['a', 'b', 'c', 'd', 'e']);
  } finally {
    await s.close();
  }
});
