// What a process pays to start: the service's module graph (the server, the engine, the built-in plugins)
// leaves out the libraries that only the isolates reading or writing files need. pdf-lib (some 140 modules,
// about a third of a second of CPU to load) is loaded by the isolates that split PDFs and fill forms
// (core/engine/src/split/pdf-worker.ts, plugins/editor-pdf/src/worker.ts), never by the service itself.
// The libraries only some requests need are loaded at their first use (`lazy` of @quire/core, core/kernel/src/util/lazy.ts):
// handlebars and JSONata (templates and expressions, checked when a workflow is saved, run in isolates), the
// Markdown parser and writer (generation) — about a quarter of the CPU the service's graph costs to load.
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

test('the server, the engine and the built-in plugins load without handlebars, JSONata or the Markdown libraries', () => {
  // every module the process loads, CommonJS or ES module, as the loader sees it (a hook of this process's own)
  const hook = `let port; export function initialize(d) { port = d.port; } export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;
  const code = `
    import { register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const { port1, port2 } = new MessageChannel();
    const urls = [];
    port1.on('message', (u) => urls.push(u));
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
    await import('@quire/server');
    await import('@quire/engine');
    await import('@quire/plugin-generator-default');
    await new Promise((r) => setTimeout(r, 200));
    port1.close();
    console.log(JSON.stringify(urls));`;
  const execArgv = process.execArgv.filter((a) => !a.startsWith('--test'));
  const urls: string[] = JSON.parse(execFileSync(process.execPath, [...execArgv, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8', env: { ...process.env, QUIRE_LOG_LEVEL: 'silent' } }).trim().split('\n').pop()!);
  const packages = urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1]).filter((p): p is string => !!p);
  assert.ok(packages.includes('koa') && packages.includes('zod'), `the graph was loaded (${packages.length} modules of packages)`);
  const lazy = packages.filter((p) => /^(handlebars|jsonata|mdast-util-from-markdown|mdast-util-to-markdown|micromark.*)$/.test(p));
  assert.deepEqual([...new Set(lazy)], [], 'libraries of some requests loaded at start-up');
});
