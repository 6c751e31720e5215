// The chat answerer is a plugin of its own kind: a third-party answerer loaded with QUIRE_PLUGINS replaces the offline
// one by configuration (QUIRE_ANSWERER), and the host still presents and checks its citations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const OBSERVATORY =
  'Orvella Observatory\n\n' +
  'The Orvella Observatory was founded in 1893 by the astronomer Katrin Malmberg on the slopes of Mount Tessaly. ' +
  'Its main instrument is a refracting telescope with a 74 centimetre lens, completed in 1901.\n\n' +
  'Visitors can tour the dome on Saturdays between April and September; tickets cost 12 euros.\n';

const TIDES = 'Ocean tides\n\nTides are the rise and fall of sea levels caused by the gravitational pull of the Moon and the Sun.';

/**
 * A third-party answerer (no dependency at all: a plain definition). Its answers say what it was handed; a question
 * with "first chunk" makes it read the first chunk of the first document itself and cite it, "made up" makes it cite a
 * chunk it was not given, "badly" answers in the wrong shape.
 */
const QUOTER = `export default {
  kind: 'answerer', name: 'quoter', core: '^1',
  create: () => ({
    async answer(req) {
      if (/badly/.test(req.question)) return { text: 'whatever', citations: [], confidence: 2, answer_type: 'maybe' };
      if (/first chunk/.test(req.question)) {
        const doc = [...req.documents].sort((a, b) => a.name.localeCompare(b.name))[0];
        const [chunk] = await req.chunks(doc.id, [0]);
        return { text: 'The quoter read: ' + chunk.content.slice(0, 20) + ' [1]', citations: [{ chunk_id: chunk.id }], confidence: 0.9, answer_type: 'value' };
      }
      const top = req.sources[0];
      if (!top) return { text: '', citations: [], confidence: 0.1, answer_type: 'none' };
      if (/made up/.test(req.question)) return { text: 'Invented [1] and real [2]', citations: [{ chunk_id: 'not-a-chunk' }, { chunk_id: top.chunk_id }], confidence: 0.95, answer_type: 'passage' };
      return { text: 'The quoter answers from ' + req.sources.length + ' sources of ' + req.documents.length + ' documents (' + req.mode + ') [1]', citations: [{ chunk_id: top.chunk_id }], confidence: 0.88, answer_type: 'passage' };
    },
  }),
};
`;

async function upload(s: TestServer, name: string, body: string): Promise<string> {
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, body) });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return up.body.id;
}

/** Two documents in a knowledge base, and one document outside it. */
async function knowledgeBase(s: TestServer): Promise<{ kb: string; docs: Record<string, string> }> {
  const docs = { observatory: await upload(s, 'observatory.txt', OBSERVATORY), tides: await upload(s, 'tides.txt', TIDES) };
  await upload(s, 'outside.txt', 'Orvella Observatory outside note: founded in 1777 by nobody.');
  const kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Answerer' } })).body.knowledge_base.id;
  const batch = await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: Object.values(docs) } });
  assert.ok(batch.status < 300, JSON.stringify(batch.body));
  return { kb, docs };
}

async function chunksOf(s: TestServer, documentId: string): Promise<any[]> {
  const r = await s.json(`/v1/documents/${documentId}/content?response=chunks`);
  assert.equal(r.status, 200);
  return r.body.chunks;
}

describe('an answerer plugin chosen by QUIRE_ANSWERER', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-answerer-'));
  const dir = path.join(root, 'quoter');
  let s: TestServer;
  let kb: string;
  let docs: Record<string, string>;
  before(async () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'quire-plugin-quoter', version: '1.0.0', type: 'module', main: 'index.js' }));
    fs.writeFileSync(path.join(dir, 'index.js'), QUOTER);
    s = await startTestServer({ env: { QUIRE_PLUGINS: dir, QUIRE_ANSWERER: 'quoter' } });
    ({ kb, docs } = await knowledgeBase(s));
  });
  after(async () => {
    await s?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('chat returns the plugin answer, its citation presented from the stored chunk', async () => {
    const r = await s.json('/api/chat', { method: 'POST', json: { message: 'When was the Orvella Observatory founded?', knowledge_base_id: kb } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body;
    assert.match(a.message, /^The quoter answers from \d+ sources of 2 documents \(quick\) \[1\]$/);
    assert.equal(a.answer_type, 'passage');
    assert.equal(a.confidence, 0.88);
    assert.equal(a.grounded, true);
    assert.equal(a.answered_by, 'offline');
    assert.equal(a.fallback_reason, null);
    assert.equal(a.citations.length, 1);
    const c = a.citations[0];
    assert.ok(Object.values(docs).includes(c.document_id), 'the cited chunk is of the knowledge base');
    const stored = (await chunksOf(s, c.document_id)).find((x) => x.id === c.chunk_id);
    assert.ok(stored, 'the citation is a stored chunk');
    assert.equal(c.content, stored.content);
    assert.equal(c.page, stored.page);
    assert.ok(typeof c.document_name === 'string' && c.document_name.endsWith('.txt'));
    // the turn is stored as any other
    const msgs = await s.json(`/api/chat/sessions/${a.session_id}/messages`);
    assert.equal(msgs.status, 200);
    assert.ok(JSON.stringify(msgs.body).includes('The quoter answers from'));
  });

  test('a chunk the plugin read itself may be cited; one it was not given is left out and the answer is not grounded', async () => {
    const read = (await s.json('/api/chat', { method: 'POST', json: { message: 'What does the first chunk say?', knowledge_base_id: kb } })).body;
    assert.match(read.message, /^The quoter read: Orvella Observatory/);
    assert.equal(read.answer_type, 'value');
    assert.equal(read.grounded, true);
    const first = (await chunksOf(s, docs.observatory!)).find((x) => x.index === 0);
    assert.equal(read.citations[0].chunk_id, first.id);
    assert.equal(read.citations[0].content, first.content);

    const made = (await s.json('/api/chat', { method: 'POST', json: { message: 'Orvella Observatory telescope made up', knowledge_base_id: kb } })).body;
    assert.equal(made.grounded, false);
    assert.ok(made.confidence <= 0.3, String(made.confidence));
    assert.equal(made.citations.length, 1);
    assert.ok(Object.values(docs).includes(made.citations[0].document_id));
  });

  test('an answer of the wrong shape is an upstream error naming the plugin', async () => {
    const r = await s.json('/api/chat', { method: 'POST', json: { message: 'Answer this badly', knowledge_base_id: kb } });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.match(JSON.stringify(r.body), /answerer plugin \\?"quoter\\?" gave an answer of the wrong shape/);
  });
});

describe('without QUIRE_ANSWERER', () => {
  test('the offline answerer answers, though another answerer is loaded; an unknown one stops start-up', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-answerer-'));
    const dir = path.join(root, 'quoter');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'quire-plugin-quoter', version: '1.0.0', type: 'module', main: 'index.js' }));
    fs.writeFileSync(path.join(dir, 'index.js'), QUOTER);
    const s = await startTestServer({ env: { QUIRE_PLUGINS: dir } });
    try {
      const { kb } = await knowledgeBase(s);
      const a = (await s.json('/api/chat', { method: 'POST', json: { message: 'In which year was the Orvella Observatory founded?', knowledge_base_id: kb } })).body;
      assert.doesNotMatch(a.message, /quoter/);
      assert.match(a.message, /1893/);
      assert.equal(a.answered_by, 'offline');
      assert.equal(a.grounded, true);
    } finally {
      await s.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
    await assert.rejects(startTestServer({ env: { QUIRE_ANSWERER: 'nope' } }), /answerer/);
  });
});
