// scripts/test-bundles.mjs: on the build, a TypeScript test file and the TypeScript helpers it imports run as
// one JavaScript file with plain node (no TypeScript loader), with the import.meta of each source, the .mjs
// files next to the tests as modules of their own, and packages from node_modules; a file that imports a
// package's TypeScript sources imports their build (dist/) instead, or is left to tsx where there is none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error a plain .mjs script without types
import { bundleTestFiles } from '../scripts/test-bundles.mjs';

test('a TypeScript test file and its helpers run as one bundle with plain node; a file importing sources is left to tsx', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bundles-')));
  try {
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    // a package the bundle must import from node_modules, as the sources do
    write('node_modules/fake-pkg/package.json', JSON.stringify({ name: 'fake-pkg', type: 'module', exports: './index.js' }));
    write('node_modules/fake-pkg/index.js', 'export const where = import.meta.url;\n');
    // a .mjs helper imported by the test and by its TypeScript helper: one module
    write('test/helpers/counter.mjs', 'export let loads = (globalThis.__loads = (globalThis.__loads ?? 0) + 1);\nexport const where = import.meta.url;\n');
    write(
      'test/helpers/util.ts',
      [
        "import { where as counterAt } from './counter.mjs';",
        'export interface Shape { n: number }',
        'export const helperDir: string = import.meta.dirname;',
        'export const helperUrl: string = import.meta.url;',
        'export const counter: string = counterAt;',
        'export enum Kind { A = 1, B = 2 }',
        '',
      ].join('\n'),
    );
    write(
      'test/e2e/one.test.ts',
      [
        "import type { Shape } from '../helpers/util.js';",
        "import { helperDir, helperUrl, counter, Kind } from '../helpers/util.js';",
        "import { loads } from '../helpers/counter.mjs';",
        "import { where } from 'fake-pkg';",
        'const s: Shape = { n: Kind.B };',
        'console.log(JSON.stringify({ n: s.n, helperDir, helperUrl, counter, loads, where, own: import.meta.filename, dir: import.meta.dirname }));',
        '',
      ].join('\n'),
    );
    write('src/lib.ts', 'export const x: number = 1;\n');
    write('test/uses-src.test.ts', "import { x } from '../src/lib.js';\nconsole.log(x);\n");
    write('test/plain.test.mjs', 'console.log(1);\n');
    // a workspace package with its build: a test of an internal module (../src/) imports the built module
    write('core/pkg/package.json', JSON.stringify({ name: '@fake/pkg', type: 'module', exports: './dist/index.js' }));
    write('core/pkg/src/index.ts', "export { inner } from './util/inner.js';\n");
    write('core/pkg/src/util/inner.ts', 'export const inner: string = import.meta.url;\n');
    write('core/pkg/dist/index.js', "export { inner } from './util/inner.js';\n");
    write('core/pkg/dist/util/inner.js', 'export const inner = import.meta.url;\n');
    write('core/pkg/src/unbuilt.ts', 'export const y: number = 2;\n');
    write('core/pkg/test/inner.test.ts', ["import { inner } from '../src/util/inner.js';", "import * as index from '../src/index.js';", 'console.log(JSON.stringify({ inner, same: index.inner === inner }));', ''].join('\n'));
    write('core/pkg/test/unbuilt.test.ts', "import { y } from '../src/unbuilt.js';\nconsole.log(y);\n");

    const outDir = path.join(root, 'node_modules/.cache/quire/test-bundles/run');
    const files = ['test/e2e/one.test.ts', 'test/uses-src.test.ts', 'test/plain.test.mjs', 'core/pkg/test/inner.test.ts', 'core/pkg/test/unbuilt.test.ts'];
    const bundles: Map<string, string> = await bundleTestFiles(root, files, outDir);
    assert.deepEqual([...bundles.keys()].sort(), [path.normalize('core/pkg/test/inner.test.ts'), path.normalize('test/e2e/one.test.ts')]);
    const inner = spawnSync(process.execPath, [bundles.get(path.normalize('core/pkg/test/inner.test.ts'))!], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(inner.status, 0, inner.stderr);
    assert.deepEqual(JSON.parse(inner.stdout), { inner: `file://${path.join(root, 'core/pkg/dist/util/inner.js')}`, same: true });
    const bundle = bundles.get(path.normalize('test/e2e/one.test.ts'))!;
    assert.equal(bundle, path.join(outDir, 'test/e2e/one.test.mjs'));

    // plain node, no loader: the bundle is JavaScript
    const r = spawnSync(process.execPath, [bundle], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.n, 2);
    assert.equal(out.own, path.join(root, 'test/e2e/one.test.ts'));
    assert.equal(out.dir, path.join(root, 'test/e2e'));
    assert.equal(out.helperDir, path.join(root, 'test/helpers'));
    assert.equal(out.helperUrl, `file://${path.join(root, 'test/helpers/util.ts')}`);
    // the .mjs helper is loaded once, from where it is
    assert.equal(out.loads, 1);
    assert.equal(out.counter, `file://${path.join(root, 'test/helpers/counter.mjs')}`);
    assert.equal(out.where, `file://${path.join(root, 'node_modules/fake-pkg/index.js')}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
