import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QuireError, pluginContext } from '@quire/core';
import plugin, { OpenAIEmbedder } from '@quire/plugin-embedder-openai';

interface Seen {
  path: string;
  auth: string | undefined;
  body: { model: string; input: string[]; encoding_format?: string };
}

/** A fake OpenAI-compatible server: `script` decides each reply; the default embeds deterministically. */
async function fakeServer(script: (req: Seen, n: number) => { status?: number; headers?: Record<string, string>; body?: unknown; hang?: boolean } | undefined = () => undefined) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const s: Seen = { path: req.url!, auth: req.headers.authorization, body: JSON.parse(raw) };
      seen.push(s);
      const r = script(s, seen.length) ?? {};
      if (r.hang) return; // never answers
      const body = r.body ?? {
        object: 'list',
        model: s.body.model,
        // shuffled order with indexes, as some servers do
        data: s.body.input.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, index, 1] })).reverse(),
        usage: { prompt_tokens: 1, total_tokens: 1 },
      };
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...(r.headers ?? {}) });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url, seen };
}

const isUpstream = (re: RegExp) => (e: unknown) => {
  assert.ok(e instanceof QuireError, String(e));
  assert.equal(e.code, 'UPSTREAM_ERROR');
  assert.match(e.message, re);
  return true;
};

test('batches inputs, keeps their order, sends model and key, learns the dimension', async () => {
  const { url, seen } = await fakeServer();
  const e = await plugin.create(pluginContext(plugin, { options: { batchSize: 64, baseUrl: url, model: 'nomic-embed-text', apiKey: 'sk-test' } }));
  assert.equal(e.space, 'openai:nomic-embed-text');
  assert.equal(e.dimension, 0, 'unknown before the first response');
  const texts = Array.from({ length: 150 }, (_, i) => 'x'.repeat(i + 1));
  texts[5] = '';
  const out = await e.embed(texts, 'document');
  assert.equal(out.length, 150);
  out.forEach((v, i) => assert.equal(v[0], i === 5 ? 1 : i + 1, `vector ${i} in input order`));
  assert.ok(out.every((v) => v instanceof Float32Array && v.length === 3));
  assert.equal(e.dimension, 3);
  assert.deepEqual(seen.map((s) => s.body.input.length), [64, 64, 22]);
  for (const s of seen) {
    assert.equal(s.path, '/v1/embeddings');
    assert.equal(s.auth, 'Bearer sk-test');
    assert.equal(s.body.model, 'nomic-embed-text');
    assert.equal(s.body.encoding_format, 'float');
  }
  assert.equal(seen[0]!.body.input[5], ' ', 'empty input replaced by a space');
  assert.deepEqual(await e.embed([], 'query'), []);
});

test('query and document prefixes for models trained with them', async () => {
  const { url, seen } = await fakeServer();
  const e = new OpenAIEmbedder({ baseUrl: url, model: 'nomic-embed-text', queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
  await e.embed(['refund policy'], 'query');
  await e.embed(['Refunds are issued within 5 days.'], 'document');
  assert.deepEqual(seen.map((s) => s.body.input[0]), ['search_query: refund policy', 'search_document: Refunds are issued within 5 days.']);
});

test('retries 429 (honouring Retry-After) and 5xx, then succeeds', async () => {
  const { url, seen } = await fakeServer((_, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached' } } } : n === 2 ? { status: 503, body: 'upstream busy' } : undefined));
  const e = new OpenAIEmbedder({ baseUrl: url, model: 'm', retryBaseMs: 5 });
  const [v] = await e.embed(['hello'], 'query');
  assert.deepEqual(Array.from(v!), [5, 0, 1]);
  assert.equal(seen.length, 3);
});

test('gives up after the retries with a clear upstream error', async () => {
  const { url, seen } = await fakeServer(() => ({ status: 500, body: { error: { message: 'model crashed' } } }));
  const e = new OpenAIEmbedder({ baseUrl: url, model: 'm', retryBaseMs: 1, maxRetries: 2 });
  await assert.rejects(e.embed(['a'], 'query'), isUpstream(/HTTP 500: model crashed \(gave up after 3 attempts\)/));
  assert.equal(seen.length, 3);
});

test('4xx other than 429 fails at once with the provider message', async () => {
  const { url, seen } = await fakeServer(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided' } } }));
  const e = new OpenAIEmbedder({ baseUrl: url, model: 'm', apiKey: 'bad', retryBaseMs: 1 });
  await assert.rejects(e.embed(['a'], 'query'), (err: unknown) => {
    isUpstream(/HTTP 401: Incorrect API key provided/)(err);
    assert.equal(((err as QuireError).details as { status: number }).status, 401);
    assert.ok(!(err as Error).message.includes('bad'), 'the key is never in the message');
    return true;
  });
  assert.equal(seen.length, 1);
});

test('times out a hanging server; unreachable endpoints and malformed answers are upstream errors', async () => {
  const { url } = await fakeServer(() => ({ hang: true }));
  const slow = new OpenAIEmbedder({ baseUrl: url, model: 'm', timeoutMs: 150, maxRetries: 1, retryBaseMs: 1 });
  const t = Date.now();
  await assert.rejects(slow.embed(['a'], 'query'), isUpstream(/timed out after 150 ms/));
  assert.ok(Date.now() - t < 30_000);

  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const dead = new OpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', maxRetries: 0 });
  await assert.rejects(dead.embed(['a'], 'query'), isUpstream(/not reachable: ECONNREFUSED/));
  assert.equal((await dead.health()).ok, false);

  const short = await fakeServer(() => ({ body: { data: [] } }));
  await assert.rejects(new OpenAIEmbedder({ baseUrl: short.url, model: 'm' }).embed(['a', 'b'], 'query'), isUpstream(/0 embeddings for 2 inputs/));
  const html = await fakeServer(() => ({ body: '<html>' }));
  await assert.rejects(new OpenAIEmbedder({ baseUrl: html.url, model: 'm' }).embed(['a'], 'query'), isUpstream(/no data array|not JSON/));
});

test('a configured dimension is enforced; base64 embeddings are decoded', async () => {
  const { url } = await fakeServer();
  const e = new OpenAIEmbedder({ baseUrl: url, model: 'm', dimension: 1536 });
  assert.equal(e.dimension, 1536);
  await assert.rejects(e.embed(['a'], 'query'), isUpstream(/dimension 3; expected 1536/));
  const b64 = Buffer.from(new Float32Array([0.5, -1, 2]).buffer).toString('base64');
  const enc = await fakeServer(() => ({ body: { data: [{ index: 0, embedding: b64 }] } }));
  const [v] = await new OpenAIEmbedder({ baseUrl: enc.url, model: 'm' }).embed(['a'], 'query');
  assert.deepEqual(Array.from(v!), [0.5, -1, 2]);
  assert.equal((await new OpenAIEmbedder({ baseUrl: enc.url, model: 'm' }).health()).ok, true);
});

test('options are validated', () => {
  assert.throws(() => new OpenAIEmbedder({ baseUrl: '', model: 'm' }), /baseUrl is required/);
  assert.throws(() => new OpenAIEmbedder({ baseUrl: 'not a url', model: 'm' }), /not a URL/);
  assert.throws(() => new OpenAIEmbedder({ baseUrl: 'http://x/v1', model: 'm', batchSize: 0 }), /batchSize/);
  // as plugin options: checked when the plugin is registered, named with the variable they came from
  assert.throws(() => pluginContext(plugin, { options: { baseUrl: 'nope' }, optionSources: { 'embedder:openai.baseUrl': 'QUIRE_EMBEDDINGS_BASE_URL' } }), /embedder:openai: option "baseUrl" \(QUIRE_EMBEDDINGS_BASE_URL\): not a URL/);
  assert.throws(() => plugin.create(pluginContext(plugin, { options: { model: 'm' } })), /QUIRE_EMBEDDINGS_BASE_URL/);
  assert.equal(pluginContext(plugin).options.model, 'text-embedding-3-small');
});
