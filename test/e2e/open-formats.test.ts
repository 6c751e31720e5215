import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorBody } from '../helpers/assertions.js';
import { packSdk, writePluginPackage } from '../helpers/sdk.js';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The README's plugin example (its package.json and index.js), written to `dir` outside the repository as a
 * third party would, with the packed SDK installed there by npm (offline).
 */
async function writeReadmePlugin(dir: string, sdk: string): Promise<void> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Writing a plugin'));
  const block = (lang: string) => section.match(new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```'))?.[1];
  const pkg = block('json');
  const source = block('js');
  assert.ok(pkg && source, 'the README shows a package.json and an index.js under "Writing a plugin"');
  assert.match(pkg, /"peerDependencies": \{ "@quire\/sdk"/, 'the example depends on the SDK as a peer');
  await writePluginPackage(dir, pkg, { 'index.js': source }, sdk);
}

const MARKDOWN = '# Release plan\n\nShip the **new** reader on Friday.\n\n## Risks\n\nNone known.\n';

describe('open formats: a third-party reader adds Markdown', () => {
  let s: TestServer;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-open-formats-'));
  const plugin = path.join(root, 'markdown');
  before(async () => {
    await writeReadmePlugin(plugin, await packSdk(root));
    assert.ok(path.relative(ROOT, plugin).startsWith('..'), 'the plugin is outside the repository');
    assert.ok(!fs.existsSync(path.join(root, 'node_modules')), 'nothing of Quire is linked beside the plugin');
    s = await startTestServer({ env: { QUIRE_PLUGINS: plugin, QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'reader:markdown': { prefix: 'MD: ' } }) } });
  });
  after(async () => {
    await s?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('POST /v1/documents: a .md file is detected as md and read by the plugin (headings are blocks of their own)', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('plan.md', MARKDOWN) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.file_type, 'md');
    const c = await s.json(`/v1/documents/${up.body.id}/content?response=full`);
    assert.equal(c.status, 200);
    // the headings lost their "#" and stand alone; paragraphs carry the plugin's option
    assert.equal(c.body.text, 'Release plan\n\nMD: Ship the **new** reader on Friday.\n\nRisks\n\nMD: None known.');
    const contents = c.body.chunks.map((x: { content: string }) => x.content).join('\n');
    assert.match(contents, /Release plan/);
    assert.match(contents, /MD: Ship the \*\*new\*\* reader on Friday\./);
    assert.doesNotMatch(contents, /^#/m);
  });

  test('POST /api/parse: a .markdown file is parsed by the plugin at once', async () => {
    const r = await s.json('/api/parse', { method: 'POST', body: uploadForm('notes.markdown', '# Notes\n\nTides rise twice a day.') });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const contents = r.body.result.chunks.map((x: { content: string }) => x.content).join('\n');
    assert.match(contents, /Notes/);
    assert.match(contents, /MD: Tides rise twice a day\./);
    assert.doesNotMatch(contents, /# Notes/);
  });

  test('built-in formats are read as before, and an unknown extension is still refused with the spec error body', async () => {
    const txt = await s.json('/api/parse', { method: 'POST', body: uploadForm('plain.txt', 'Plain text, read by the built-in reader.') });
    assert.equal(txt.status, 200);
    assert.equal(txt.body.result.chunks.map((x: { content: string }) => x.content).join('\n'), 'Plain text, read by the built-in reader.');
    for (const url of ['/v1/documents', '/api/parse']) {
      const r = await s.json(url, { method: 'POST', body: uploadForm('notes.xyz', 'just some text') });
      assert.equal(r.status, 422, `${url}: ${JSON.stringify(r.body)}`);
      errorBody(r.body, 'UNSUPPORTED_FORMAT');
      if (url === '/v1/documents') assert.match(r.body.error.message, /Supported: .*\bmd\b.*\bpdf\b/);
    }
  });

  test('a bad option of the plugin stops start-up, naming the plugin, the option and the variable', async () => {
    await assert.rejects(
      startTestServer({ env: { QUIRE_PLUGINS: plugin, QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'reader:markdown': { prefix: 3 } }) } }),
      /invalid options of plugin reader:markdown: option "prefix" \(QUIRE_PLUGIN_OPTIONS\)/,
    );
    await assert.rejects(startTestServer({ env: { QUIRE_PLUGINS: plugin, QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'reader:markdown': { prefx: '' } }) } }), /reader:markdown: unknown option "prefx"/);
  });
});
