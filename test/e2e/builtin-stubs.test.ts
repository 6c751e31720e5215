// Built-in plugins load exactly like third-party ones: the service starts with each built-in replaced by a
// stub of the same kind and name (loaded through QUIRE_PLUGINS; stubs that cannot interfere share a server),
// the stub is the one used, and the rest of the service still works (a file of another format parses with its
// own reader, search answers).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import { zip } from '../helpers/hostile.js';
import type { TestServer } from '../helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A reader stub: every file of its formats reads as one paragraph "STUB <kind:name>". */
const readerStub = (name: string, formats: string[]) => `import { DocumentBuilder } from '@quire/core';
export default { kind: 'reader', name: '${name}', core: '^1', create: () => ({
  formats: ${JSON.stringify(formats)},
  async read(input) {
    const b = new DocumentBuilder(input.documentId, input.name, input.format);
    b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
    b.addBlock({ type: 'paragraph', text: 'STUB reader:${name}', page: 1, bbox: null, confidence: 1 });
    return b.build();
  },
}) };`;

/** Stubs that hand the work to the real built-in (store, storage, transport): they show the override is taken. */
const delegate = (kind: string, name: string, pkg: string) => `import real from ${JSON.stringify(pathToPackage(pkg))};
export let created = 0;
export default { kind: '${kind}', name: '${name}', core: '^1', options: real.options, shared: real.shared, async create(ctx) { created++; globalThis.__quireStub = (globalThis.__quireStub ?? []).concat('${kind}:${name}'); return real.create(ctx); } };`;

/** The real plugin's entry as this process imports it: dist/ on the build, src/ (this process has tsx then) on the sources. */
function pathToPackage(pkg: string): string {
  return fileURLToPath(import.meta.resolve(pkg));
}

interface Case {
  kind: string;
  name: string;
  source: string;
  /** a file that is read by another plugin than the stub, with a word its parse must contain */
  other: { file: string; bytes: string; expect: RegExp };
  /** what shows that the stub, not the built-in, is at work */
  check(s: TestServer): Promise<void>;
}

const TXT = { file: 'notes.txt', bytes: 'Tides rise twice a day along the coast.', expect: /Tides rise/ };
const CSV = { file: 'table.csv', bytes: 'city,tide\nBrest,high\n', expect: /Brest/ };

async function parse(s: TestServer, file: string, bytes: string | Uint8Array): Promise<{ status: number; text: string; chunks: number }> {
  const r = await s.json('/api/parse', { method: 'POST', body: uploadForm(file, bytes) });
  const chunks = (r.body?.result?.chunks ?? []) as { content: string }[];
  return { status: r.status, text: chunks.map((c) => c.content).join('\n'), chunks: chunks.length };
}

const readerCase = (name: string, formats: string[], file: string, bytes: string | Uint8Array, other = TXT): Case => ({
  kind: 'reader',
  name,
  source: readerStub(name, formats),
  other,
  async check(s) {
    const r = await parse(s, file, bytes);
    assert.equal(r.status, 200);
    assert.match(r.text, new RegExp(`STUB reader:${name}`));
  },
});

const CASES: Case[] = [
  readerCase('pdf', ['pdf'], 'a.pdf', '%PDF-1.4\n%%EOF\n'),
  readerCase('office', ['docx', 'doc', 'txt', 'html', 'rtf'], 'a.txt', 'plain words', CSV),
  readerCase('sheet', ['csv', 'xlsx', 'xls', 'xlsm', 'xltx', 'xltm', 'qpw'], 'a.csv', 'a,b\n1,2\n'),
  readerCase('slides', ['pptx', 'ppt'], 'a.pptx', new Uint8Array(zip([
    { name: '[Content_Types].xml', content: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>' },
    { name: 'ppt/presentation.xml', content: '<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"/>' },
  ]))),
  readerCase('image', ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff'], 'a.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0])),
  {
    kind: 'chunker',
    name: 'default',
    source: `export default { kind: 'chunker', name: 'default', core: '^1', create: () => ({ chunk(doc) { return [{ id: doc.id + ':stub', index: 0, page: 1, content: 'STUB chunker ' + doc.text, bbox: null, span: { start: 0, end: doc.text.length }, metadata: { type: 'text', confidence: 1 } }]; } }) };`,
    other: { file: 'a.csv', bytes: 'city\nBrest\n', expect: /Brest/ },
    async check(s) {
      const r = await parse(s, 'x.txt', 'one\n\ntwo\n\nthree');
      assert.equal(r.chunks, 1);
      assert.match(r.text, /^STUB chunker/);
    },
  },
  {
    kind: 'ocr',
    name: 'tesseract',
    source: `export default { kind: 'ocr', name: 'tesseract', core: '^1', create: () => ({ async recognize() { return { text: 'STUB ocr', words: [], lines: [], confidence: 1, width: 1, height: 1 }; }, async languages() { return ['eng']; } }) };`,
    other: TXT,
    async check(s) {
      const ready = await s.json('/readyz');
      assert.equal(ready.status, 200);
    },
  },
  {
    kind: 'embedder',
    name: 'local',
    source: `let calls = 0; export default { kind: 'embedder', name: 'local', core: '^1', create: () => ({ space: 'stub-v1', dimension: 4, async embed(texts) { calls++; globalThis.__stubEmbeds = calls; return texts.map((t) => Float32Array.from([t.length % 7 + 1, 1, (t.charCodeAt(0) || 1) % 5 + 1, 1])); } }) };`,
    other: TXT,
    async check(s) {
      await searchFinds(s);
    },
  },
  {
    kind: 'vector-store',
    name: 'embedded',
    source: `const items = new Map();
export default { kind: 'vector-store', name: 'embedded', core: '^1', create: () => ({
  async upsert(space, list) { for (const i of list) items.set(i.id, { ...i, space }); },
  async search(space, q) { const words = q.text.toLowerCase().split(/\\W+/).filter(Boolean); return [...items.values()].filter((i) => i.space === space && (!q.filter.documentIds || q.filter.documentIds.includes(i.documentId)) && i.userId === q.filter.userId).map((i) => ({ id: i.id, documentId: i.documentId, page: i.page, text: 'STUB ' + i.text, score: words.filter((w) => i.text.toLowerCase().includes(w)).length / (words.length || 1), metadata: i.metadata })).filter((h) => h.score > 0).sort((a, b) => b.score - a.score).slice(0, q.topK); },
  async deleteDocument(id) { for (const [k, v] of items) if (v.documentId === id) items.delete(k); },
  async count(space) { return [...items.values()].filter((i) => i.space === space).length; },
}) };`,
    other: TXT,
    async check(s) {
      const hits = await searchFinds(s);
      assert.ok(hits.some((h) => /STUB/.test(JSON.stringify(h))), 'search answers from the stub store');
    },
  },
  {
    kind: 'extractor',
    name: 'layout',
    source: `export default { kind: 'extractor', name: 'layout', core: '^1', create: () => ({ async extract({ fields }) { const data = Object.fromEntries(fields.map((f) => [f.name, 'STUB'])); return { data, fieldResults: fields.map((f) => ({ field: f.name, value: 'STUB', confidence: 0.5, evidence: null })) }; } }) };`,
    other: TXT,
    async check(s) {
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('inv.txt', 'Invoice number: 42') });
      await waitForStatus(s, `/v1/documents/${up.body.id}`);
      const r = await s.json('/v1/extractions', { method: 'POST', json: { document_id: up.body.id, fields: [{ name: 'invoice_number', type: 'string' }] } });
      assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
      assert.equal(r.body.data.invoice_number, 'STUB');
    },
  },
  {
    kind: 'answerer',
    name: 'offline',
    source: `export default { kind: 'answerer', name: 'offline', core: '^1', create: () => ({ async answer(req) { const top = req.sources[0]; return top ? { text: 'STUB answer [1]', citations: [{ chunk_id: top.chunk_id }], confidence: 0.5, answer_type: 'passage' } : { text: '', citations: [], confidence: 0.1, answer_type: 'none' }; } }) };`,
    other: TXT,
    async check(s) {
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('ferries.txt', 'The harbour ferry to Brest leaves every hour from pier four.') });
      await waitForStatus(s, `/v1/documents/${up.body.id}`);
      const kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Stub answers' } })).body.knowledge_base.id;
      await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: [up.body.id] } });
      const r = await s.json('/api/chat', { method: 'POST', json: { message: 'When does the harbour ferry to Brest leave?', knowledge_base_id: kb } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.message, 'STUB answer [1]');
      assert.equal(r.body.citations[0].document_id, up.body.id);
    },
  },
  ...(
    [
      ['llm', 'openai', '@quire/plugin-llm-openai'],
      ['embedder', 'openai', '@quire/plugin-embedder-openai'],
      ['vector-store', 'weaviate', '@quire/plugin-vector-weaviate'],
      ['transport', 'rabbitmq', '@quire/plugin-transport-rabbitmq'],
      ['store', 'typeorm', '@quire/plugin-store-typeorm'],
      ['storage', 'disk', '@quire/plugin-storage-disk'],
    ] as const
  ).map(
    ([kind, name, pkg]): Case => ({
      kind,
      name,
      source: delegate(kind, name, pkg),
      other: TXT,
      async check() {
        // the active ones (store, storage) are created from the stub; the others are registered but not selected
        if (kind === 'store' || kind === 'storage') assert.ok(((globalThis as any).__quireStub ?? []).includes(`${kind}:${name}`), `${kind}:${name} was created from the stub`);
      },
    }),
  ),
];

async function searchFinds(s: TestServer): Promise<unknown[]> {
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('tides.txt', 'Tides rise twice a day along the coast of Brittany.') });
  await waitForStatus(s, `/v1/documents/${up.body.id}`);
  const r = await s.json('/v1/search', { method: 'POST', json: { query: 'tides coast', limit: 3 } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const hits = (r.body.results ?? r.body.data ?? []) as unknown[];
  assert.ok(hits.length > 0, `search finds the document: ${JSON.stringify(r.body)}`);
  return hits;
}

/**
 * Stubs loaded together in one server: of different kinds (or readers of different formats), none of them in
 * the way of another's check or of the other format parsed beside it. The embedder stub has a server of its
 * own (the built-in vector store must take its vectors), and so does the office reader stub (the other
 * readers' stubs would replace the reader of its other format).
 */
const GROUPS: string[][] = [
  ['reader:pdf', 'reader:sheet', 'reader:slides', 'reader:image'],
  ['reader:office'],
  ['chunker:default', 'ocr:tesseract', 'vector-store:embedded', 'extractor:layout', 'answerer:offline'],
  ['embedder:local'],
  ['llm:openai', 'embedder:openai', 'vector-store:weaviate', 'transport:rabbitmq', 'store:typeorm', 'storage:disk'],
];

describe('every built-in plugin can be replaced by a stub of the same kind and name', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-stubs-'));
  before(() => {
    fs.mkdirSync(path.join(root, 'node_modules', '@quire'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'core/kernel'), path.join(root, 'node_modules', '@quire', 'core'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('the groups hold every case once', () => {
    assert.deepEqual(GROUPS.flat().sort(), CASES.map((c) => `${c.kind}:${c.name}`).sort());
  });

  for (const group of GROUPS) {
    const cases = group.map((id) => CASES.find((c) => `${c.kind}:${c.name}` === id)!);
    describe(`replaced together: ${group.join(', ')}`, () => {
      let s: TestServer;
      before(async () => {
        const dirs = cases.map((c) => {
          const dir = path.join(root, `${c.kind}-${c.name}`);
          fs.mkdirSync(dir, { recursive: true });
          fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `stub-${c.kind}-${c.name}`, type: 'module', main: 'index.mjs', quire: { kind: c.kind, name: c.name, core: '^1' } }));
          fs.writeFileSync(path.join(dir, 'index.mjs'), c.source);
          return dir;
        });
        (globalThis as any).__quireStub = [];
        s = await startTestServer({ env: { QUIRE_PLUGINS: dirs.join(',') } });
      });
      after(async () => {
        await s?.close();
      });
      for (const c of cases) {
        test(`${c.kind}:${c.name} replaced: the stub is used and the rest still works`, async () => {
          await c.check(s);
          const other = await parse(s, c.other.file, c.other.bytes);
          assert.equal(other.status, 200, `another format still parses (${c.other.file})`);
          assert.match(other.text, c.other.expect);
        });
      }
    });
  }
});
