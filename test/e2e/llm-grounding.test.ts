import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const FERRIES = 'Harbour ferries\n\nThe first ferry leaves Aldholm at 06:40 every weekday. The crossing to Skerra takes 35 minutes. A return ticket costs 14 euros.';

/** What the stand-in model does for one request: answer with content, answer an error status, or never answer. */
type Reply = { content: string } | { status: number; headers?: Record<string, string> } | { hang: true };

/**
 * A local OpenAI-compatible server whose answer depends on a case word in the question ("Case grounded: …")
 * and on how many times that question was asked: grounded, hallucinated, malformed, rate-limited, failing
 * and slow models. Chat requests are told apart from extraction requests by the JSON schema's name.
 */
function scriptedLlm() {
  const asked = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      const user = String(body.messages?.at(-1)?.content ?? '');
      const schema = body.response_format?.json_schema?.name ?? null;
      const key = schema === 'extraction' ? 'extraction' : (/Case (\w+)/.exec(user.slice(user.lastIndexOf('Question: ')))?.[1] ?? 'none');
      const n = (asked.get(key) ?? 0) + 1;
      asked.set(key, n);
      const source = (word: string) => Number(new RegExp(`^\\[(\\d+)\\] [^\\n]*\\n[^[]*${word}`, 'm').exec(user)?.[1] ?? 1);
      const json = (answer: string, quotes: { source: number; text: string }[], answer_type = 'value') => ({ content: JSON.stringify({ answer, answer_type, quotes }) });
      const s = source('Skerra');
      const scripts: Record<string, () => Reply> = {
        grounded: () => json(`The crossing to Skerra takes 35 minutes [${s}].`, [{ source: s, text: 'The crossing to Skerra takes 35 minutes.' }]),
        // near-verbatim: typographic apostrophe-free variant with one letter off still matches
        fuzzy: () => json(`The crossing to Skerra takes 35 minutes [${s}].`, [{ source: s, text: 'the crossing to  Skera takes 35 minutes' }]),
        hallucinated: () => json(`The crossing takes 20 minutes by hovercraft [${s}].`, [{ source: s, text: 'The crossing to Skerra takes 20 minutes by hovercraft.' }]),
        number: () => json(`A return ticket costs 19 euros [${s}].`, [{ source: s, text: 'A return ticket costs 14 euros.' }]),
        malformed: () => (n === 1 ? { content: 'Sure! The crossing to Skerra takes 35 minutes.' } : json(`The crossing to Skerra takes 35 minutes [${s}].`, [{ source: s, text: 'The crossing to Skerra takes 35 minutes.' }])),
        plain: () => ({ content: 'The crossing to Skerra takes 35 minutes [1].' }),
        ratelimited: () => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : json(`The crossing to Skerra takes 35 minutes [${s}].`, [{ source: s, text: 'The crossing to Skerra takes 35 minutes.' }])),
        failing: () => ({ status: 500 }),
        denied: () => ({ status: 401 }),
        slow: () => ({ hang: true }),
        extraction: () => ({
          content: JSON.stringify({
            departure_port: { value: 'Aldholm', quote: 'The first ferry leaves Aldholm at 06:40 every weekday.' },
            ticket_price: { value: 19, quote: 'A return ticket costs 19 euros.' },
            captain: { value: 'Jonas Berg', quote: 'Captain: Jonas Berg' },
            crossing_minutes: { value: 45, quote: 'The crossing to Skerra takes 35 minutes.' },
          }),
        }),
      };
      const reply = (scripts[key] ?? (() => json("I could not find this in the knowledge base's sources.", [], 'none')))();
      if ('hang' in reply) return; // answers only when the caller gives up
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        return res.end(JSON.stringify({ error: { message: `scripted ${reply.status}` } }));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }], usage: { prompt_tokens: 50, completion_tokens: 20 } }));
    });
  });
  return { server, asked };
}

describe('answers from an LLM are checked against the sources, and a failing LLM gives the offline answer', () => {
  let s: TestServer;
  let llm: ReturnType<typeof scriptedLlm>;
  let kb = '';
  let doc = '';

  before(async () => {
    llm = scriptedLlm();
    await new Promise<void>((r) => llm.server.listen(0, '127.0.0.1', () => r()));
    const port = (llm.server.address() as AddressInfo).port;
    s = await startTestServer({ env: { QUIRE_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, QUIRE_LLM_MODEL: 'scripted', QUIRE_LLM_TIMEOUT_MS: '1500' } });
    doc = (await s.json('/v1/documents', { method: 'POST', body: uploadForm('ferries.txt', FERRIES) })).body.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${doc}`)).status, 'completed');
    kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Ferries' } })).body.knowledge_base.id;
    await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: [doc] } });
  });
  after(async () => {
    await s?.close();
    llm?.server.closeAllConnections();
    llm?.server.close();
  });

  const ask = async (c: string, question = 'how long is the crossing to Skerra?') => {
    const r = await s.json('/api/chat', { method: 'POST', json: { message: `Case ${c}: ${question}`, knowledge_base_id: kb } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };

  test('a grounded answer (verbatim or within a small edit distance) is the LLM\'s, with its citation', async () => {
    for (const c of ['grounded', 'fuzzy']) {
      const a = await ask(c);
      assert.deepEqual([a.answered_by, a.grounded, a.fallback_reason], ['llm', true, null], c);
      assert.equal(a.message, 'The crossing to Skerra takes 35 minutes [1].');
      assert.equal(a.citations.length, 1);
      assert.equal(a.citations[0].document_id, doc);
      assert.ok(a.confidence > 0.5, `${a.confidence}`);
      assert.equal(llm.asked.get(c), 1);
    }
  });

  test('a quote that is not in its source: the offline answer replaces the LLM\'s', async () => {
    const a = await ask('hallucinated');
    assert.deepEqual([a.answered_by, a.grounded, a.fallback_reason], ['offline', true, 'ungrounded']);
    assert.doesNotMatch(a.message, /hovercraft|20 minutes/);
  });

  test('a number in the answer that no cited source prints: rejected', async () => {
    const a = await ask('number', 'how much is a return ticket?');
    assert.deepEqual([a.answered_by, a.fallback_reason], ['offline', 'ungrounded']);
    assert.doesNotMatch(a.message, /19/);
  });

  test('an answer that is not the JSON asked for is retried, and the second answer is used', async () => {
    const a = await ask('malformed');
    assert.equal(llm.asked.get('malformed'), 2);
    assert.deepEqual([a.answered_by, a.fallback_reason], ['llm', null]);
    assert.equal(a.message, 'The crossing to Skerra takes 35 minutes [1].');
    // a server that only ever answers plain text: retried, then the offline answer
    const p = await ask('plain');
    assert.equal(llm.asked.get('plain'), 3);
    assert.deepEqual([p.answered_by, p.fallback_reason], ['offline', 'llm_unavailable']);
  });

  test('429 with Retry-After is waited out and retried', async () => {
    const a = await ask('ratelimited');
    assert.equal(llm.asked.get('ratelimited'), 2);
    assert.deepEqual([a.answered_by, a.fallback_reason], ['llm', null]);
  });

  test('a persistent 500 and a model slower than the time limit: bounded attempts, then the offline answer; a 401 is not retried', async () => {
    for (const [c, attempts] of [['failing', 3], ['slow', 3], ['denied', 1]] as const) {
      const a = await ask(c);
      assert.equal(llm.asked.get(c), attempts, c);
      assert.deepEqual([a.answered_by, a.fallback_reason], ['offline', 'llm_unavailable'], c);
      assert.ok(a.citations.length > 0 || a.answer_type === 'none', c);
    }
  });

  test('the streamed answer is the checked one', async () => {
    const res = await s.api('/api/chat', { method: 'POST', json: { message: 'Case hallucinated: how long is the crossing to Skerra?', knowledge_base_id: kb, stream: true } });
    const text = await res.text();
    assert.doesNotMatch(text, /hovercraft/);
    assert.match(text, /"answered_by":"offline","fallback_reason":"ungrounded"/);
  });

  test('extraction: a value whose quote is not in the document, or not in its quote, is never kept', async () => {
    const fields = [
      { name: 'departure_port', type: 'string', description: 'where the first ferry leaves' },
      { name: 'ticket_price', type: 'number', description: 'price of a return ticket' },
      { name: 'captain', type: 'string', description: 'name of the captain' },
      { name: 'crossing_minutes', type: 'number', description: 'length of the crossing in minutes' },
    ];
    const r = await s.json('/api/extract/run', { method: 'POST', json: { document_id: doc, config: { fields }, include_citations: true } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const by = Object.fromEntries(r.body.field_results.map((f: any) => [f.field, f]));
    assert.equal(r.body.data.departure_port, 'Aldholm');
    assert.deepEqual([by.departure_port.answered_by, by.departure_port.fallback_reason], ['llm', null]);
    assert.notEqual(r.body.data.ticket_price, 19, 'the invented price is dropped');
    assert.notEqual(r.body.data.captain, 'Jonas Berg', 'the invented captain is dropped');
    assert.notEqual(r.body.data.crossing_minutes, 45, 'a number not in its quote is dropped');
    for (const f of ['ticket_price', 'captain', 'crossing_minutes']) {
      assert.deepEqual([by[f].answered_by, by[f].fallback_reason], ['offline', 'ungrounded'], f);
      if (by[f].value === null) assert.equal(by[f].confidence, 0);
      else assert.ok(String(FERRIES).includes(by[f].evidence.text), `${f}: the layout reading is from the document`);
    }
  });
});
