import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { makePdf } from '../helpers/fixtures.js';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Split with a model configured (QUIRE_LLM_*, a stand-in OpenAI-compatible server): the model names the
 * detected sections and gives their document types; the boundaries stay the offline detector's; a model that
 * fails leaves the offline names.
 */
describe('split with an LLM configured', () => {
  let s: TestServer;
  let failing = false;
  const requests: any[] = [];
  const llm = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}');
      requests.push(body);
      if (failing) {
        // a refusal the client does not retry (a 5xx would be retried with backoff)
        res.writeHead(400, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: 'model refused' } }));
      }
      const user = String(body.messages?.at(-1)?.content ?? '');
      const sections = [...user.matchAll(/^Section (\d+) \(pages (\d+)-(\d+)\):\n([^\n]*)/gm)].map((m) => ({ index: Number(m[1]), name: `Model: ${m[4]!.slice(0, 20)}`, document_type: /invoice/i.test(m[4]!) ? 'invoice' : 'memo' }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: 'fake', choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify({ sections }) }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 10 } }));
    });
  });
  let docId = '';

  before(async () => {
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', () => r()));
    s = await startTestServer({ env: { QUIRE_LLM_BASE_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`, QUIRE_LLM_MODEL: 'fake' } });
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('two.pdf', await makePdf([{ heading: 'INVOICE 2024-118', lines: ['Bill To: Initech', 'Stepper motors and timing belts', 'Total Amount Due: 407.93'] }, { heading: 'Orchard notes', lines: ['The apple trees blossomed early this spring.', 'Pears and plums followed in the lower field.'] }])) });
    docId = up.body.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${docId}`)).status, 'completed');
  });
  after(async () => {
    await s?.close();
    await new Promise<void>((r) => llm.close(() => r()));
  });

  test('the model names the detected sections and types them; the boundaries are the detector\'s', async () => {
    const r = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: docId } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(requests.some((b) => String(b.messages?.at(-1)?.content).includes('Section 0 (pages 1-')), 'the model was asked');
    for (const x of r.body.suggested_sections) assert.match(x.name, /^Model: /);
    assert.equal(r.body.suggested_sections[0].document_type, 'invoice');
    failing = true;
    const offline = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: docId } });
    assert.equal(offline.status, 200);
    assert.deepEqual(offline.body.suggested_sections.map((x: any) => [x.page_start, x.page_end]), r.body.suggested_sections.map((x: any) => [x.page_start, x.page_end]));
    for (const x of offline.body.suggested_sections) assert.doesNotMatch(x.name, /^Model: /);
  });
});
