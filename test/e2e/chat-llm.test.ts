import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const NOT_FOUND = "I could not find this in the knowledge base's sources.";

/**
 * A stand-in OpenAI-compatible LLM server. It answers like a grounded model would: it finds the numbered
 * sources that contain a capitalised word of the question, quotes the first sentence of the first such
 * source with that source's number, or refuses; as the JSON object asked for (answer, answer_type, quotes)
 * when the request has a response_format. A question containing "Explode" gets HTTP 500; one containing
 * "Slow" is streamed over several seconds.
 */
function fakeLlm() {
  const requests: any[] = [];
  const slowAborted: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-grounded', object: 'model' }] }));
      }
      requests.push(body);
      const user = body.messages.at(-1).content as string;
      const question = user.slice(user.lastIndexOf('Question: ') + 10);
      if (/Explode/.test(question)) {
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: 'model crashed' } }));
      }
      const sources = [...user.matchAll(/^\[(\d+)\] [^\n]*\(chunk [^)]+\)\n([\s\S]*?)(?=\n\n\[\d+\] |\n\nQuestion: )/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
      const keys = (question.match(/\b[A-Z][a-z]{3,}\b/g) ?? []).filter((w) => !['When', 'What', 'Which', 'Who', 'How'].includes(w));
      const hit = sources.find((s) => keys.some((k) => s.text.includes(k)));
      let answer = NOT_FOUND;
      let quotes: { source: number; text: string }[] = [];
      if (hit) {
        const qWords = question.toLowerCase().match(/[a-z]{4,}/g) ?? [];
        const sentences = hit.text.split(/(?<=\.)\s+|\n+/).filter((x) => x.trim());
        const score = (x: string) => qWords.filter((w) => x.toLowerCase().includes(w)).length;
        const sentence = sentences.reduce((a, b) => (score(b) > score(a) ? b : a));
        // also cites a source number that does not exist, which must be dropped
        answer = `According to the sources: ${sentence.trim()} [${hit.n}][${sources.length + 5}]`;
        quotes = [{ source: hit.n, text: sentence.trim() }];
      }
      if (body.response_format) answer = JSON.stringify({ answer, answer_type: hit ? 'passage' : 'none', quotes });
      if (body.stream && /Slow/.test(question)) {
        // drips for several seconds; notes when the caller hangs up
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let i = 0;
        const timer = setInterval(() => {
          if (i++ >= 60) {
            clearInterval(timer);
            return res.end('data: [DONE]\n\n');
          }
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'word ' } }] })}\n\n`);
        }, 100);
        res.on('close', () => {
          if (i < 60) slowAborted.push(question);
          clearInterval(timer);
        });
        return;
      }
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // small pieces, so a citation marker is split across deltas
        for (let i = 0; i < answer.length; i += 3) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: answer.slice(i, i + 3) } }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
        return res.end('data: [DONE]\n\n');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }], usage: { prompt_tokens: 321, completion_tokens: 12 } }));
    });
  });
  return { server, requests, slowAborted };
}

describe('chat with an LLM configured', () => {
  let s: TestServer;
  let llm: ReturnType<typeof fakeLlm>;
  let kb = '';
  const ids: Record<string, string> = {};

  before(async () => {
    llm = fakeLlm();
    await new Promise<void>((r) => llm.server.listen(0, '127.0.0.1', () => r()));
    const port = (llm.server.address() as AddressInfo).port;
    s = await startTestServer({ env: { QUIRE_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, QUIRE_LLM_MODEL: 'fake-grounded' } });
    const docs: [string, string][] = [
      ['observatory.txt', 'Orvella Observatory\n\nThe Orvella Observatory was founded in 1893 by the astronomer Katrin Malmberg. It discovered the comet Malmberg-Osei in 1927.'],
      ['ferries.txt', 'Harbour ferries\n\nThe first ferry leaves Aldholm at 06:40 every weekday. The crossing to Skerra takes 35 minutes.'],
    ];
    for (const [name, text] of docs) {
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, text) });
      ids[name] = up.body.id;
      assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    }
    kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'LLM' } })).body.knowledge_base.id;
    await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: Object.values(ids) } });
  });
  after(async () => {
    await s?.close();
    llm?.server.close();
  });

  test('a grounded prompt with numbered sources; cited numbers map back to chunks', async () => {
    const r = await s.json('/api/chat', { method: 'POST', json: { message: 'When does the first ferry leave Aldholm?', knowledge_base_id: kb } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const req = llm.requests.at(-1);
    assert.equal(req.model, 'fake-grounded');
    assert.equal(req.messages[0].role, 'system');
    assert.match(req.messages[0].content, /ONLY the numbered sources/);
    assert.ok(req.messages[0].content.includes(NOT_FOUND));
    const user = req.messages.at(-1).content as string;
    assert.match(user, /^Sources:\n\n\[1\] /);
    assert.match(user, /Question: When does the first ferry leave Aldholm\?$/);
    // the model cited the source by its number in the prompt; the answer renumbers it as citation 1
    assert.match(r.body.message, /^According to the sources: The first ferry leaves Aldholm at 06:40 every weekday\. \[1\]$/);
    assert.equal(r.body.answered_by, 'llm');
    assert.equal(r.body.grounded, true);
    assert.equal(r.body.fallback_reason, null);
    assert.equal(r.body.citations.length, 1, 'the invented source number is dropped');
    const c = r.body.citations[0];
    assert.equal(c.document_id, ids['ferries.txt']);
    assert.ok(user.includes(`(chunk ${c.chunk_id})`));
    const chunks = (await s.json(`/v1/documents/${c.document_id}/content?response=chunks`)).body.chunks;
    assert.equal(chunks.find((x: any) => x.id === c.chunk_id)?.content, c.content);
    assert.ok(r.body.confidence > 0.5 && r.body.confidence < 1);
    // the grounded answer persists like any other
    const msgs = await s.json(`/api/chat/sessions/${r.body.session_id}/messages`);
    assert.equal(msgs.body.messages[1].content, r.body.message);
  });

  test('the model\'s refusal gives no citations and low confidence; history goes to the model', async () => {
    const first = await s.json('/api/chat', { method: 'POST', json: { message: 'Who founded the Orvella Observatory?', knowledge_base_id: kb } });
    assert.match(first.body.message, /Katrin Malmberg/);
    const r = await s.json('/api/chat', { method: 'POST', json: { message: 'what is the boiling point of mercury?', knowledge_base_id: kb, session_id: first.body.session_id } });
    assert.equal(r.status, 200);
    assert.equal(r.body.message, NOT_FOUND);
    assert.deepEqual(r.body.citations, []);
    assert.ok(r.body.confidence < 0.35);
    const req = llm.requests.at(-1);
    assert.deepEqual(req.messages.slice(1, 3).map((m: any) => [m.role, m.content]), [
      ['user', 'Who founded the Orvella Observatory?'],
      ['assistant', first.body.message.replace(/\s*\[\d+\]/g, '')],
    ]);
  });

  test('streamed through the OpenAI client: tokens, renumbered markers split across deltas, citations at the end', async () => {
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.url}/v1` });
    const stream = await client.chat.completions.create({ model: `kb:${kb}`, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Which comet did Orvella discover?' }], stream: true });
    let text = '';
    let citations: any[] = [];
    let pieces = 0;
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta.content;
      if (d) {
        text += d;
        pieces++;
      }
      if (chunk.choices[0]?.finish_reason === 'stop') citations = (chunk as any).citations;
    }
    assert.ok(pieces > 5, 'the model\'s tokens are passed on as they come');
    assert.match(text, /Malmberg-Osei in 1927\. \[1\]$/);
    assert.equal(citations.length, 1);
    assert.equal(citations[0].document_id, ids['observatory.txt']);
    assert.equal(llm.requests.at(-1).stream, true);
    assert.match(llm.requests.at(-1).messages[0].content, /Be terse\./, 'the caller\'s system message is passed as extra instructions');
    const plain = await client.chat.completions.create({ model: `kb:${kb}`, messages: [{ role: 'user', content: 'When does the first ferry leave Aldholm?' }] });
    assert.deepEqual(plain.usage, { prompt_tokens: 321, completion_tokens: 12, total_tokens: 333 }, 'the model\'s own token counts');
  });

  test('an LLM that keeps failing: the offline answer after the retries, charged like any answer', async () => {
    const before = (await s.runtime.store.repo('usage').find({ operation: 'chat' })).length;
    const sent = llm.requests.length;
    const r = await s.json('/api/chat', { method: 'POST', json: { message: 'Explode about Aldholm ferries', knowledge_base_id: kb } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.answered_by, 'offline');
    assert.equal(r.body.fallback_reason, 'llm_unavailable');
    assert.equal(llm.requests.length - sent, 3, 'three attempts in all');
    assert.equal((await s.runtime.store.repo('usage').find({ operation: 'chat' })).length, before + 1);
    const stream = await s.api('/api/chat', { method: 'POST', json: { message: 'Explode about Aldholm ferries', knowledge_base_id: kb, stream: true } });
    const text = await stream.text();
    assert.match(text, /event: complete\ndata: \{"type":"complete","result":\{[^\n]*"answered_by":"offline","fallback_reason":"llm_unavailable"/);
  });

  test('closing a stream cancels the model call; the unfinished turn is neither stored nor charged', async () => {
    const usageBefore = (await s.runtime.store.repo('usage').find({ operation: 'chat' })).length;
    const question = 'Slow question about Aldholm ferries';
    const ac = new AbortController();
    const res = await s.api('/api/chat', { method: 'POST', json: { message: question, knowledge_base_id: kb, stream: true }, signal: ac.signal });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('event: start')) seen += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    const until = Date.now() + 5000;
    while (!llm.slowAborted.includes(question) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.ok(llm.slowAborted.includes(question), 'the LLM request was cancelled');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await s.runtime.store.repo('chat_messages').find({ content: question })).length, 0);
    assert.equal((await s.runtime.store.repo('usage').find({ operation: 'chat' })).length, usageBefore);
  });
});
