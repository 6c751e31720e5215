// @services: rate limits counted in the store (QUIRE_RATE_LIMIT_STORE=db)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { packSdk } from '../helpers/sdk.js';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** A third-party plugin folder, loaded through QUIRE_PLUGINS exactly as the README describes. */
function writePlugin(dir: string, pkg: object, source: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
  fs.writeFileSync(path.join(dir, 'index.js'), source);
}

const run = promisify(execFile);

describe('third-party plugins through config', () => {
  let s: TestServer;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-plugins-'));
  before(async () => {
    // the README's example: a txt reader where "# " lines are headings; it replaces the built-in for txt
    writePlugin(
      path.join(root, 'markdown'),
      { name: 'quire-plugin-markdown', version: '1.0.0', type: 'module', main: 'index.js', peerDependencies: { '@quire/sdk': '^1' } },
      `import fs from 'node:fs/promises';
import { DocumentBuilder, definePlugin } from '@quire/sdk';
export default definePlugin({
  kind: 'reader', name: 'markdown',
  create: () => ({
    formats: ['txt'],
    async read(input) {
      const b = new DocumentBuilder(input.documentId, input.name, input.format);
      b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
      for (const para of (await fs.readFile(input.path, 'utf8')).split(/\\n\\s*\\n/)) {
        const heading = para.startsWith('# ');
        b.addBlock({ type: heading ? 'heading' : 'paragraph', level: heading ? 1 : undefined, text: heading ? para.slice(2) : 'MD: ' + para, page: 1, bbox: null, confidence: 1 });
      }
      return b.build();
    },
  }),
});`,
    );
    // a chunker that fails in an unexpected way, to see what a client gets from an internal error
    writePlugin(
      path.join(root, 'faulty'),
      { name: 'quire-plugin-faulty', type: 'module', main: 'index.js', quire: { kind: 'chunker', name: 'default', core: '^1' } },
      `export default { kind: 'chunker', name: 'default', core: '^1', create: () => ({ chunk(doc) { if (doc.text.includes('EXPLODE')) { const o = null; return o.boom; } return [{ id: doc.id + ':0', index: 0, page: 1, content: doc.text, bbox: null, span: { start: 0, end: doc.text.length }, metadata: { type: 'text', confidence: 1 } }]; } }) };`,
    );
    // a PDF reader that takes over pdf, and a reader of a wrapper format that declares it uses the reader of pdf
    fs.writeFileSync(
      path.join(root, 'markdown', 'pdfstamp.js'),
      `import { DocumentBuilder, definePlugin } from '@quire/sdk';
export default definePlugin({
  kind: 'reader', name: 'pdfstamp', core: '^1',
  formats: [{ format: 'pdf', extensions: ['.pdf'], mime: 'application/pdf', detect: 'builtin' }],
  create: () => ({
    async read(input) {
      const b = new DocumentBuilder(input.documentId, input.name, input.format);
      b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
      b.addBlock({ type: 'paragraph', text: 'read by pdfstamp', page: 1, bbox: null, confidence: 1 });
      return b.build();
    },
  }),
});`,
    );
    fs.writeFileSync(
      path.join(root, 'markdown', 'wrapped.js'),
      `import { definePlugin } from '@quire/sdk';
export default definePlugin({
  kind: 'reader', name: 'wrapped', core: '^1',
  formats: [{ format: 'wrapped', extensions: ['.wrapped'], mime: 'application/x-wrapped', detect: { magic: [{ bytes: 'WRAPPED1' }] } }],
  uses: ['reader:pdf'],
  create: (ctx) => ({
    async read(input, options) {
      const doc = await ctx.readerFor('pdf').read({ ...input, format: 'pdf' }, options);
      return { ...doc, format: input.format };
    },
  }),
});`,
    );
    fs.writeFileSync(
      path.join(root, 'markdown', 'needs-xyz.js'),
      `import { definePlugin } from '@quire/sdk';
export default definePlugin({ kind: 'reader', name: 'needs-xyz', core: '^1', formats: [{ format: 'xyz2', extensions: ['.xyz2'], mime: 'application/x-xyz2' }], uses: ['reader:xyz'], create: () => ({ read: async () => { throw new Error('never'); } }) });`,
    );
    // the SDK installed beside the plugin from its packed tarball, as a third party does (nothing of the repository linked)
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--save-dev', await packSdk(root)], { cwd: path.join(root, 'markdown') });
    const more = ['pdfstamp.js', 'wrapped.js'].map((f) => path.join(root, 'markdown', f));
    s = await startTestServer({ env: { QUIRE_PLUGINS: [path.join(root, 'markdown'), path.join(root, 'faulty'), ...more].join(',') } });
  });
  after(async () => {
    await s?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a plugin named in QUIRE_PLUGINS replaces the built-in reader for its format', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('notes.txt', '# Plan\n\nShip the release.') });
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    const c = await s.json(`/v1/documents/${up.body.id}/content`);
    assert.equal(c.body.text, 'Plan\n\nMD: Ship the release.');
  });

  test("a plugin that declares uses: ['reader:pdf'] gets the reader the host reads PDF with, not one found by name", async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('report.wrapped', 'WRAPPED1 anything') });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const c = await s.json(`/v1/documents/${up.body.id}/content`);
    assert.equal(c.body.text, 'read by pdfstamp');
  });

  test('a plugin whose declared use is not there stops start-up, naming both', async () => {
    await assert.rejects(startTestServer({ env: { QUIRE_PLUGINS: path.join(root, 'markdown', 'needs-xyz.js') } }), /reader:needs-xyz uses reader:xyz, but no active reader reads xyz/);
  });

  test('an unexpected plugin failure is a 500 INTERNAL_ERROR without a stack trace', async () => {
    const r = await s.json('/api/parse', { method: 'POST', body: uploadForm('boom.txt', 'EXPLODE now') });
    assert.equal(r.status, 500);
    assert.equal(r.body.error.code, 'INTERNAL_ERROR');
    assert.doesNotMatch(JSON.stringify(r.body), /TypeError|at .*\.js|index\.js/);
    assert.ok(r.headers.get('x-request-id'));
  });

  test('an unknown plugin stops start-up with the list of known ones', async () => {
    await assert.rejects(startTestServer({ env: { QUIRE_VECTOR_STORE: 'nonexistent' } }), /known vector-store plugins: .*embedded/);
  });
});

describe('rate limits shared through the database', () => {
  test('QUIRE_RATE_LIMIT_STORE=db counts in the store and answers 429 past the plan', async () => {
    const s = await startTestServer({ plan: 'free', env: { QUIRE_RATE_LIMIT_STORE: 'db' } });
    try {
      if (new Date().getSeconds() > 50) await new Promise((r) => setTimeout(r, (61 - new Date().getSeconds()) * 1000));
      for (let i = 0; i < 100; i++) assert.equal((await s.api('/v1/documents').then(async (r) => (await r.arrayBuffer(), r))).status, 200);
      const over = await s.json('/v1/documents');
      assert.equal(over.status, 429);
      assert.equal(over.body.error.type, 'rate_limit_error');
      const counters = await s.runtime.store.repo('rate_counters').find();
      assert.ok(counters.some((c) => c.count === 101), JSON.stringify(counters));
    } finally {
      await s.close();
    }
  });
});
