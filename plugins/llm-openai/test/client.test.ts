import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QuireError, pluginContext } from '@quire/core';
import plugin, { OpenAiChatClient } from '@quire/plugin-llm-openai';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}
type Handler = (req: Seen, res: http.ServerResponse, n: number) => void;

/** A fake OpenAI-compatible server on 127.0.0.1 whose behaviour each test sets. */
const seen: Seen[] = [];
let handler: Handler = () => {};
const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const s: Seen = { path: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : null };
    seen.push(s);
    handler(s, res, seen.length);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
after(() => new Promise<void>((r) => server.close(() => r())));

const reset = (h: Handler) => {
  seen.length = 0;
  handler = h;
};
const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const answer = (content: string) => ({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content } }], usage: { prompt_tokens: 11, completion_tokens: 7 } });
const client = (o: Partial<ConstructorParameters<typeof OpenAiChatClient>[0]> = {}) =>
  new OpenAiChatClient({ baseUrl: base, model: 'm1', apiKey: 'sk-test', retryBaseMs: 5, ...o });

const ctx = (options: Record<string, unknown> = {}) => pluginContext(plugin, { options });

test('complete: posts model, messages, temperature, max_tokens and json_schema; returns content and usage', async () => {
  reset((_s, res) => json(res, 200, answer('{"a":1}')));
  const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false };
  const r = await client().complete({ messages: [{ role: 'user', content: 'hi' }], jsonSchema: { name: 'fields', schema }, temperature: 0.2, maxTokens: 50 });
  assert.equal(r.content, '{"a":1}');
  assert.deepEqual(r.usage, { prompt_tokens: 11, completion_tokens: 7 });
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.path, '/v1/chat/completions');
  assert.equal(seen[0]!.headers.authorization, 'Bearer sk-test');
  assert.equal(seen[0]!.body.model, 'm1');
  assert.equal(seen[0]!.body.temperature, 0.2);
  assert.equal(seen[0]!.body.max_tokens, 50);
  assert.deepEqual(seen[0]!.body.messages, [{ role: 'user', content: 'hi' }]);
  assert.deepEqual(seen[0]!.body.response_format, { type: 'json_schema', json_schema: { name: 'fields', schema, strict: true } });
});

test('complete: retries a 500 and a 429 (honouring Retry-After), then succeeds', async () => {
  reset((_s, res, n) => {
    if (n === 1) return json(res, 500, { error: { message: 'boom' } });
    if (n === 2) return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' });
    json(res, 200, answer('ok'));
  });
  const r = await client().complete({ messages: [{ role: 'user', content: 'x' }] });
  assert.equal(r.content, 'ok');
  assert.equal(seen.length, 3);
});

test('complete: gives up after 3 attempts with an UPSTREAM_ERROR naming the status and server message', async () => {
  reset((_s, res) => json(res, 503, { error: { message: 'overloaded' } }));
  await assert.rejects(client().complete({ messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
    assert.ok(e instanceof QuireError);
    assert.equal(e.code, 'UPSTREAM_ERROR');
    assert.match(e.message, /HTTP 503 after 3 attempts: overloaded/);
    return true;
  });
  assert.equal(seen.length, 3);
});

test('complete: a 401 is not retried', async () => {
  reset((_s, res) => json(res, 401, { error: { message: 'bad key' } }));
  await assert.rejects(client().complete({ messages: [{ role: 'user', content: 'x' }] }), /HTTP 401: bad key/);
  assert.equal(seen.length, 1);
});

test('complete: network errors are retried and reported', async () => {
  const dead = http.createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  const port = (dead.address() as AddressInfo).port;
  await new Promise<void>((r) => dead.close(() => r()));
  const c = new OpenAiChatClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', retryBaseMs: 1 });
  await assert.rejects(c.complete({ messages: [{ role: 'user', content: 'x' }] }), /unreachable .* after 3 attempts/);
});

test('complete: server that refuses json_schema gets json_object with the schema in the system prompt', async () => {
  reset((s, res) => {
    if (s.body.response_format?.type === 'json_schema') return json(res, 400, { error: { message: "Unsupported response_format type 'json_schema'" } });
    json(res, 200, answer('{"total": 4.11}'));
  });
  const c = client();
  const schema = { type: 'object', properties: { total: { type: 'number' } } };
  const r = await c.complete({ messages: [{ role: 'system', content: 'You extract.' }, { role: 'user', content: 'doc' }], jsonSchema: { name: 'inv', schema } });
  assert.equal(r.content, '{"total": 4.11}');
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[1]!.body.response_format, { type: 'json_object' });
  assert.equal(seen[1]!.body.messages.length, 2);
  assert.match(seen[1]!.body.messages[0].content, /^You extract\.[\s\S]*JSON Schema[\s\S]*"total"/);
  // remembered: the next call goes straight to json_object
  await c.complete({ messages: [{ role: 'user', content: 'doc' }], jsonSchema: { name: 'inv', schema } });
  assert.equal(seen.length, 3);
  assert.equal(seen[2]!.body.response_format.type, 'json_object');
});

test('complete: with a JSON schema, an answer that is not JSON is retried; code fences are accepted', async () => {
  reset((_s, res, n) => json(res, 200, answer(n === 1 ? 'Sure! The total is 4.11.' : '```json\n{"total": 4.11}\n```')));
  const r = await client().complete({ messages: [{ role: 'user', content: 'doc' }], jsonSchema: { name: 'inv', schema: { type: 'object' } } });
  assert.equal(seen.length, 2);
  assert.match(r.content, /"total": 4.11/);
  reset((_s, res) => json(res, 200, answer('not JSON at all')));
  await assert.rejects(client().complete({ messages: [{ role: 'user', content: 'doc' }], jsonSchema: { name: 'inv', schema: { type: 'object' } } }), /not a JSON object after 3 attempts/);
  assert.equal(seen.length, 3);
});

test('complete: a server that refuses json_object too is asked for JSON in the prompt alone, from then on', async () => {
  reset((s, res) => {
    if (s.body.response_format) return json(res, 400, { error: { message: `response_format ${s.body.response_format.type} is not supported` } });
    json(res, 200, answer('{"total": 4.11}'));
  });
  const c = client();
  const req = { messages: [{ role: 'user' as const, content: 'doc' }], jsonSchema: { name: 'inv', schema: { type: 'object' } } };
  assert.equal((await c.complete(req)).content, '{"total": 4.11}');
  assert.deepEqual(seen.map((x) => x.body.response_format?.type ?? null), ['json_schema', 'json_object', null]);
  assert.match(seen[2]!.body.messages[0].content, /JSON Schema/);
  await c.complete(req);
  assert.equal(seen.length, 4);
  assert.equal(seen[3]!.body.response_format, undefined);
});

test('complete: a timed-out attempt is retried', async () => {
  reset((_s, res, n) => {
    if (n > 1) json(res, 200, answer('ok'));
  });
  const r = await client({ timeoutMs: 300 }).complete({ messages: [{ role: 'user', content: 'x' }] });
  assert.equal(r.content, 'ok');
  assert.equal(seen.length, 2);
});

test('complete: per-attempt timeout gives a clear error', async () => {
  reset(() => {
    /* never answers */
  });
  const t0 = Date.now();
  await assert.rejects(client({ timeoutMs: 150, maxAttempts: 1 }).complete({ messages: [{ role: 'user', content: 'x' }] }), /timed out after 0 s|timed out/);
  assert.ok(Date.now() - t0 < 30_000);
});

test('complete: a caller abort stops at once with an AbortError and no retries', async () => {
  const ac = new AbortController();
  // never answers; the caller aborts once the request has arrived (not after a fixed delay, which a loaded
  // machine can outlast before the request is even sent)
  reset(() => ac.abort());
  await assert.rejects(client().complete({ messages: [{ role: 'user', content: 'x' }], signal: ac.signal }), (e: Error) => e.name === 'AbortError');
  assert.equal(seen.length, 1);
});

test('stream: yields SSE deltas until [DONE]', async () => {
  reset((s, res) => {
    assert.equal(s.body.stream, true);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
    res.write(': keep-alive\n\n');
    res.write(ev('Hel'));
    // an event split across two network writes
    const split = ev('lo, ');
    res.write(split.slice(0, 10));
    setTimeout(() => {
      res.write(split.slice(10));
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`);
      res.write(ev('world'));
      res.write('data: [DONE]\n\n');
      res.end();
    }, 20);
  });
  const parts: string[] = [];
  for await (const d of client().stream({ messages: [{ role: 'user', content: 'x' }] })) parts.push(d);
  assert.deepEqual(parts, ['Hel', 'lo, ', 'world']);
});

test('stream: retries a 502 before the first byte', async () => {
  reset((_s, res, n) => {
    if (n === 1) return json(res, 502, { error: { message: 'bad gateway' } });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify({ choices: [{ delta: { content: 'ok' } }] })}\n\ndata: [DONE]\n\n`);
  });
  const parts: string[] = [];
  for await (const d of client().stream({ messages: [{ role: 'user', content: 'x' }] })) parts.push(d);
  assert.deepEqual(parts, ['ok']);
  assert.equal(seen.length, 2);
});

test('plugin: create() refuses to start without QUIRE_LLM_BASE_URL, and builds a client when set', async () => {
  assert.equal(plugin.kind, 'llm');
  assert.equal(plugin.name, 'openai');
  assert.throws(() => plugin.create(ctx()), /QUIRE_LLM_BASE_URL/);
  assert.throws(() => plugin.create(ctx({ baseUrl: base })), /QUIRE_LLM_MODEL/);
  assert.throws(() => ctx({ baseUrl: base, model: 'm', timeoutMs: -1 }), /llm:openai: option "timeoutMs": Too small/);
  assert.throws(() => ctx({ baseUrl: base, model: 'm', temperature: 1 }), /llm:openai: unknown option "temperature"/);
  reset((_s, res) => json(res, 200, answer('pong')));
  const llm = (await plugin.create(ctx({ baseUrl: base, model: 'm2', apiKey: 'k', timeoutMs: 5000 }))) as OpenAiChatClient;
  assert.equal(llm.model, 'm2');
  assert.equal((await llm.complete({ messages: [{ role: 'user', content: 'ping' }] })).content, 'pong');
  assert.equal(seen[0]!.body.model, 'm2');
});

test('extractor-layout over this client: the schema it sends is accepted and answers become located evidence', async () => {
  const { createExtractor } = await import('@quire/plugin-extractor-layout');
  const { DocumentBuilder } = await import('@quire/core');
  const b = new DocumentBuilder('d1', 'inv.txt', 'txt');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Invoice No: Q-881\nTotal due: EUR 1.250,00', page: 1, bbox: null, confidence: 1 });
  const doc = b.build();
  reset((s, res) => {
    // the fake model answers from the prompt it was given, as a strict json_schema server would
    assert.equal(s.body.response_format.type, 'json_schema');
    assert.equal(s.body.response_format.json_schema.strict, true);
    assert.match(s.body.messages[1].content, /Invoice No: Q-881/);
    json(res, 200, answer(JSON.stringify({ invoice_number: { value: 'Q-881', quote: 'Invoice No: Q-881' }, total: { value: 1250, quote: 'Total due: EUR 1.250,00' } })));
  });
  const llm = client();
  const ex = createExtractor({ use: ((kind: string) => (kind === 'llm' ? llm : undefined)) as any });
  const r = await ex.extract({ doc, chunks: [], fields: [{ name: 'invoice_number', type: 'string' }, { name: 'total', type: 'number' }] });
  assert.deepEqual(r.data, { invoice_number: 'Q-881', total: 1250 });
  const total = r.fieldResults.find((x) => x.field === 'total')!;
  assert.equal(total.evidence!.text, 'EUR 1.250,00');
  assert.ok(total.confidence >= 0.85);
});
