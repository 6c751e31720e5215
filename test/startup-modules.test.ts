// What a process pays to start: the service's module graph (the server, the engine, the built-in plugins)
// leaves out the libraries that only the isolates reading or writing files need. pdf-lib (some 140 modules,
// about a third of a second of CPU to load) is loaded by the isolates that split PDFs and fill forms
// (core/engine/src/split/pdf-worker.ts, plugins/editor-pdf/src/worker.ts), never by the service itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

test('the server, the engine and the built-in plugins load without pdf-lib', () => {
  // a process of its own (this one may have loaded anything), with this process's loader and conditions
  const code = `
    import { createRequire } from 'node:module';
    await import('@quire/server');
    await import('@quire/engine');
    await import('@quire/plugin-editor-pdf');
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify({ modules: loaded.length, pdfLib: loaded.filter((f) => f.includes('/node_modules/pdf-lib/')).length }));`;
  const execArgv = process.execArgv.filter((a) => !a.startsWith('--test'));
  const out = JSON.parse(execFileSync(process.execPath, [...execArgv, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8', env: { ...process.env, QUIRE_LOG_LEVEL: 'silent' } }).trim().split('\n').pop()!);
  assert.ok(out.modules > 100, `the graph was loaded (${out.modules} CommonJS modules)`);
  assert.equal(out.pdfLib, 0, 'pdf-lib modules loaded at start-up');
});
