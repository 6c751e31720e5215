import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PluginRegistry, definePlugin, DocumentBuilder, tableToMarkdown, tableToHtml, tableToJson } from '@quire/core';

const reg = () => new PluginRegistry({ dataDir: os.tmpdir(), selected: { chunker: 'mine' } });

test('registry: unknown plugin names the known ones', async () => {
  const r = reg();
  r.register(definePlugin({ kind: 'chunker', name: 'mine', core: '^1', create: () => ({ chunk: () => [] }) }));
  await assert.rejects(r.instantiate('chunker', 'nope'), /known chunker plugins: mine/);
});

test('registry: a later registration overrides a built-in of the same kind and name', async () => {
  const r = reg();
  r.register(definePlugin({ kind: 'chunker', name: 'mine', core: '^1', create: () => ({ chunk: () => [] }) }));
  r.register(definePlugin({ kind: 'chunker', name: 'mine', core: '^1', create: () => ({ chunk: () => [{ id: 'x' } as any] }) }));
  await r.start();
  assert.equal(r.get('chunker').chunk({} as any, {} as any).length, 1);
});

test('registry: incompatible core range and bad kinds are refused', () => {
  const r = reg();
  assert.throws(() => r.register(definePlugin({ kind: 'chunker', name: 'old', core: '^0.5', create: () => ({ chunk: () => [] }) })), /needs @quire\/core/);
  assert.throws(() => r.register({ kind: 'nonsense', name: 'x', core: '^1', create: () => ({}) } as any), /unknown plugin kind/);
});

test('registry: loads a third-party plugin from a folder and checks its manifest', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-plugin-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', type: 'module', main: 'index.js', quire: { kind: 'chunker', name: 'mine', core: '^1' } }));
  fs.writeFileSync(path.join(dir, 'index.js'), `export default { kind: 'chunker', name: 'mine', core: '^1', create: () => ({ chunk: () => [1, 2, 3] }) };`);
  const r = reg();
  await r.load(dir);
  await r.start();
  assert.equal(r.get('chunker').chunk({} as any, {} as any).length, 3);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', type: 'module', main: 'index.js', quire: { kind: 'reader', name: 'mine', core: '^1' } }));
  await assert.rejects(reg().load(dir), /package.json "quire" says reader:mine/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('builder: spans index the full text; tables render in three formats', () => {
  const b = new DocumentBuilder('d', 'n', 'pdf');
  b.addPage({ number: 1, width: 100, height: 100, ocr: false, confidence: 1 });
  const h = b.addBlock({ type: 'heading', text: 'Title', page: 1, bbox: null, confidence: 1 })!;
  const t = b.addTable({ page: 1, bbox: null, rows: 2, cols: 2, confidence: 1, cells: [
    { row: 0, col: 0, rowSpan: 1, colSpan: 1, text: 'a', header: true }, { row: 0, col: 1, rowSpan: 1, colSpan: 1, text: 'b', header: true },
    { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: '1' }, { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: '2|3' } ] })!;
  const doc = b.build();
  assert.equal(doc.text.slice(h.span.start, h.span.end), 'Title');
  assert.equal(doc.text.slice(t.span.start, t.span.end), tableToMarkdown(doc.tables[0]!));
  assert.match(tableToMarkdown(doc.tables[0]!), /\| 1 \| 2\\\|3 \|/);
  assert.equal(tableToHtml(doc.tables[0]!), '<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2|3</td></tr></table>');
  assert.deepEqual(tableToJson(doc.tables[0]!).rows, [{ a: '1', b: '2|3' }]);
});

test('merged cells repeat their text across the positions they cover in markdown and json', () => {
  const t = { page: 1, bbox: null, rows: 2, cols: 3, confidence: 1, cells: [
    { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: 'Class1', header: true }, { row: 0, col: 2, rowSpan: 1, colSpan: 1, text: 'Other', header: true },
    { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: 'a' }, { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: 'b' }, { row: 1, col: 2, rowSpan: 1, colSpan: 1, text: 'c' } ] };
  assert.match(tableToMarkdown(t), /^\| Class1 \| Class1 \| Other \|/);
  assert.match(tableToHtml(t), /<th colspan="2">Class1<\/th>/);
});

test('registry: the manifest is the definition; the SDK range may come from peerDependencies, and is checked', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-plugin-'));
  const write = (peer: string | undefined, core?: string) => {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', type: 'module', main: 'index.js', ...(peer ? { peerDependencies: { '@quire/sdk': peer } } : {}) }));
    fs.writeFileSync(path.join(dir, `index.js`), `export default { kind: 'chunker', name: 'mine', ${core ? `core: '${core}', ` : ''}create: () => ({ chunk: () => [1] }) };`);
  };
  try {
    write('^1');
    const r = reg();
    await r.load(dir);
    await r.start();
    assert.equal(r.get('chunker').chunk({} as any, {} as any).length, 1);
    write('^2');
    await assert.rejects(reg().load(`${dir}/`), /needs @quire\/core \(the SDK, @quire\/sdk\) "\^2", this is 1\.0\.0/);
    write(undefined);
    await assert.rejects(reg().load(`${dir}/.`), /says no SDK version: give definePlugin\(\{ core: "\^1" \}\) or peerDependencies/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('errors of another copy of the SDK are QuireErrors and NonRetryableErrors of the host', async () => {
  const { QuireError, NonRetryableError, isQuireError, isRetryable } = await import('@quire/core');
  // a plugin's own copy: the same module loaded again under another URL (from the build when this process
  // imports the build, a test file without a TypeScript loader then; else from the sources)
  const fromBuild = !import.meta.resolve('@quire/core').endsWith('.ts');
  const own = (p: string) => new URL(fromBuild ? `../dist/${p}.js` : `../src/${p}.ts`, import.meta.url).href;
  const copy = await import(`${own('errors/index')}?copy`);
  const pipeline = await import(`${own('pipeline/types')}?copy`);
  assert.notEqual(copy.QuireError, QuireError);
  const e = copy.errors.unsupported('No reader for .xyz');
  assert.ok(e instanceof QuireError && isQuireError(e));
  assert.equal(e.status, 422);
  assert.ok(new pipeline.NonRetryableError('stop') instanceof NonRetryableError);
  assert.equal(isRetryable(new pipeline.NonRetryableError('stop')), false);
  assert.ok(!(new Error('plain') instanceof QuireError));
});
