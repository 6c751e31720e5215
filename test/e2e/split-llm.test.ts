import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makePdf } from '../helpers/fixtures.js';
import { noticePdf } from '../helpers/layout-pdfs.js';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startStubLlm } from '../helpers/llm-stub.js';
import type { StubAnswer, StubLlm } from '../helpers/llm-stub.js';

/**
 * Split with a model configured (QUIRE_LLM_*, a stand-in OpenAI-compatible server): the model names the
 * detected sections and gives their document types; the boundaries stay the offline detector's; a model that
 * fails leaves the offline names. And the built-in splitter is replaced by a third-party plugin of the same kind
 * and name (QUIRE_PLUGINS), as every built-in can be.
 */
describe('split with an LLM configured', () => {
  let s: TestServer;
  let failing = false;
  let llm: StubLlm;
  /** the stand-in model names each section after its first line and types it */
  const namesAnswer = (user: string): StubAnswer => {
    // a refusal the client does not retry (a 5xx would be retried with backoff)
    if (failing) return { status: 400, message: 'model refused' };
    const sections = [...user.matchAll(/^Section (\d+) \(pages (\d+)-(\d+)\):\n([^\n]*)/gm)].map((m) => ({ index: Number(m[1]), name: `Model: ${m[4]!.slice(0, 20)}`, document_type: /invoice/i.test(m[4]!) ? 'invoice' : 'memo' }));
    return JSON.stringify({ sections });
  };
  let docId = '';

  before(async () => {
    llm = await startStubLlm(namesAnswer);
    s = await startTestServer({ env: { QUIRE_LLM_BASE_URL: llm.url, QUIRE_LLM_MODEL: 'fake' } });
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('two.pdf', await makePdf([{ heading: 'INVOICE 2024-118', lines: ['Bill To: Initech', 'Stepper motors and timing belts', 'Total Amount Due: 407.93'] }, { heading: 'Orchard notes', lines: ['The apple trees blossomed early this spring.', 'Pears and plums followed in the lower field.'] }])) });
    docId = up.body.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${docId}`)).status, 'completed');
  });
  after(async () => {
    await s?.close();
    await llm?.close();
  });

  test('the model names the detected sections and types them; the boundaries are the detector\'s', async () => {
    const r = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: docId } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(llm.requests.some((b) => String(b.messages?.at(-1)?.content).includes('Section 0 (pages 1-')), 'the model was asked');
    for (const x of r.body.suggested_sections) assert.match(x.name, /^Model: /);
    assert.equal(r.body.suggested_sections[0].document_type, 'invoice');
    failing = true;
    const offline = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: docId } });
    assert.equal(offline.status, 200);
    assert.deepEqual(offline.body.suggested_sections.map((x: any) => [x.page_start, x.page_end]), r.body.suggested_sections.map((x: any) => [x.page_start, x.page_end]));
    for (const x of offline.body.suggested_sections) assert.doesNotMatch(x.name, /^Model: /);
    failing = false;
  });

  test('the model is shown the sections\' text without their running heads, footers and page numbers', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('notice.pdf', await noticePdf()) });
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    const before = llm.requests.length;
    const r = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: up.body.id } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const asked = llm.requests.slice(before).map((b) => String(b.messages?.at(-1)?.content)).join('\n');
    assert.match(asked, /^Section 0 \(pages 1-\d+\):\nThe agency announces a public meeting/m);
    assert.doesNotMatch(asked, /Vol\. 85|August 6, 2020|Page \d of 4|4761\d/);
    assert.match(r.body.suggested_sections[0].name, /^Model: The agency announces/);
  });
});

describe('a splitter plugin of the same kind and name replaces the built-in', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-splitter-stub-'));
  let s: TestServer;
  before(async () => {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'stub-splitter', type: 'module', main: 'index.mjs', quire: { kind: 'splitter', name: 'default', core: '^1' } }));
    fs.writeFileSync(
      path.join(dir, 'index.mjs'),
      `export default { kind: 'splitter', name: 'default', core: '^1', create: () => ({ async detect(doc) { return doc.pages.map((p) => ({ name: 'STUB ' + p.number, page_start: p.number, page_end: p.number, confidence: 0.42, reason: 'stub', document_type: null, signals: [] })); } }) };`,
    );
    s = await startTestServer({ env: { QUIRE_PLUGINS: dir } });
  });
  after(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('analyze and run use the stub', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('three.pdf', await makePdf([1, 2, 3].map((n) => ({ heading: `Report ${n}`, lines: ['Same words on every page.'] })))) });
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    const a = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: up.body.id } });
    assert.deepEqual(a.body.suggested_sections.map((x: any) => [x.name, x.page_start, x.confidence, x.reason]), [['STUB 1', 1, 0.42, 'stub'], ['STUB 2', 2, 0.42, 'stub'], ['STUB 3', 3, 0.42, 'stub']]);
    const r = await s.json('/api/split/run', { method: 'POST', json: { document_id: up.body.id } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.sections.map((x: any) => x.name), ['STUB 1', 'STUB 2', 'STUB 3']);
  });
});
