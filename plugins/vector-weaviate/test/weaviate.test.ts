import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QuireError, pluginContext } from '@quire/core';
import type { VectorItem } from '@quire/core';
import plugin, { WeaviateVectorStore, collectionName, connectParams } from '@quire/plugin-vector-weaviate';
import type { ClientLike, CollectionLike, ConnectParams } from '@quire/plugin-vector-weaviate';

type Call = [string, ...unknown[]];

/** A fake weaviate-client that records every call (arguments as JSON) and answers from a script. */
function recorder(opts: { existing?: string[]; hybridObjects?: unknown[]; deleteMatches?: number[]; insertErrors?: Record<number, { message: string }> } = {}) {
  const calls: Call[] = [];
  const params: ConnectParams[] = [];
  const rec = (name: string, ...args: unknown[]) => calls.push([name, ...(JSON.parse(JSON.stringify(args)) as unknown[])]);
  const existing = new Set(opts.existing ?? []);
  const deletes = [...(opts.deleteMatches ?? [])];
  const collection = (name: string): CollectionLike => ({
    data: {
      async insertMany(objects) {
        rec(`${name}.data.insertMany`, objects);
        const errors = opts.insertErrors ?? {};
        return { hasErrors: Object.keys(errors).length > 0, errors };
      },
      async deleteMany(where) {
        rec(`${name}.data.deleteMany`, where);
        const m = deletes.shift() ?? 0;
        return { failed: 0, matches: m, successful: m };
      },
      async update(object) {
        rec(`${name}.data.update`, object);
        return undefined;
      },
    },
    query: {
      async fetchObjects(o) {
        rec(`${name}.query.fetchObjects`, o);
        return { objects: [{ uuid: `${name}-obj-1`, properties: {} }, { uuid: `${name}-obj-2`, properties: {} }] };
      },
      async hybrid(q, o) {
        rec(`${name}.query.hybrid`, q, o);
        return { objects: (opts.hybridObjects ?? []) as never };
      },
      async nearVector(v, o) {
        rec(`${name}.query.nearVector`, v, o);
        return { objects: [{ properties: { chunk_id: 'c9', document_id: 'd9', page: 2, text: 't', metadata: '{}' }, metadata: { distance: 0.25 } }] };
      },
    },
    aggregate: {
      async overAll() {
        rec(`${name}.aggregate.overAll`);
        return { totalCount: 3 };
      },
    },
  });
  const client: ClientLike = {
    collections: {
      async exists(name) {
        rec('collections.exists', name);
        return existing.has(name);
      },
      async create(config) {
        rec('collections.create', config);
        existing.add((config as { name: string }).name);
        return {};
      },
      get: (name) => collection(name),
      async listAll() {
        rec('collections.listAll');
        return [...existing, 'SomethingElse'].map((name) => ({ name }));
      },
    },
    isReady: async () => true,
    close: async () => void rec('close'),
  };
  const factory = async (p: ConnectParams) => {
    params.push(p);
    return client;
  };
  return { calls, params, factory };
}

const item = (id: string, doc: string, org: string | null = null): VectorItem => ({ id, documentId: doc, userId: 'u1', organizationId: org, page: 3, text: `text of ${id}`, vector: new Float32Array([0.5, 0.25, -1]), metadata: { type: 'text' } });
const SPACE = 'openai:text-embedding-3-small';
const COL = collectionName(SPACE);

test('connection parameters come from the URL, with gRPC on 50051 of the same host', () => {
  assert.deepEqual(connectParams({ url: 'http://weaviate:8080', apiKey: 'k' }), {
    httpHost: 'weaviate', httpPort: 8080, httpSecure: false, grpcHost: 'weaviate', grpcPort: 50051, grpcSecure: false, apiKey: 'k', timeoutSeconds: { init: 10, query: 30, insert: 120 },
  });
  const tls = connectParams({ url: 'https://vectors.example.com/weaviate?grpc_host=grpc.example.com' });
  assert.equal(tls.httpPort, 443);
  assert.equal(tls.httpPath, '/weaviate');
  assert.equal(tls.grpcHost, 'grpc.example.com');
  assert.equal(tls.grpcPort, 443);
  assert.equal(tls.grpcSecure, true);
  assert.equal(connectParams({ url: 'http://h:8080?grpc_port=6000' }).grpcPort, 6000);
  assert.throws(() => connectParams({ url: 'ftp://x' }), /http/);
  assert.match(COL, /^QuireChunks_[0-9a-f]{12}$/);
});

test('first upsert creates the collection (no vectorizer, cosine HNSW, our properties) and imports in batches', async () => {
  const r = recorder();
  const store = await plugin.create(pluginContext(plugin, { options: { client: r.factory, batchSize: 2, url: 'http://weaviate:8080', apiKey: 'secret' } }));
  await store.upsert(SPACE, [item('d1:0', 'd1'), item('d1:1', 'd1', 'org-1'), item('d2:0', 'd2')]);
  await store.upsert(SPACE, [item('d2:1', 'd2')]);
  assert.equal(r.params.length, 1, 'one connection');
  assert.equal(r.params[0]!.apiKey, 'secret');
  assert.deepEqual(r.calls[0], ['collections.exists', COL]);
  assert.deepEqual(r.calls[1], ['collections.create', {
    name: COL,
    description: `Quire chunks of vector space ${SPACE}`,
    vectorizers: { vectorIndex: { name: 'hnsw', config: { distance: 'cosine', type: 'hnsw' } }, vectorizer: { name: 'none' } },
    properties: [
      { name: 'chunk_id', dataType: 'text', tokenization: 'field', indexSearchable: false, indexFilterable: true },
      { name: 'document_id', dataType: 'text', tokenization: 'field', indexSearchable: false, indexFilterable: true },
      { name: 'user_id', dataType: 'text', tokenization: 'field', indexSearchable: false, indexFilterable: true },
      { name: 'organization_id', dataType: 'text', tokenization: 'field', indexSearchable: false, indexFilterable: true },
      { name: 'page', dataType: 'int' },
      { name: 'text', dataType: 'text', tokenization: 'word', indexSearchable: true, indexFilterable: false },
      { name: 'metadata', dataType: 'text', indexSearchable: false, indexFilterable: false },
    ],
  }]);
  const inserts = r.calls.filter((c) => c[0] === `${COL}.data.insertMany`);
  assert.deepEqual(inserts.map((c) => (c[1] as unknown[]).length), [2, 1, 1]);
  const first = (inserts[0]![1] as { id: string; properties: Record<string, unknown>; vectors: number[] }[])[1]!;
  assert.match(first.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a uuid v5');
  assert.deepEqual(first.properties, { chunk_id: 'd1:1', document_id: 'd1', user_id: 'u1', organization_id: 'org-1', page: 3, text: 'text of d1:1', metadata: '{"type":"text"}' });
  assert.deepEqual(first.vectors, [0.5, 0.25, -1]);
  const noOrg = (inserts[0]![1] as { properties: Record<string, unknown> }[])[0]!.properties;
  assert.equal('organization_id' in noOrg, false, 'no organization: the property is absent');
  // same chunk id in the same space → same object id (batch import overwrites)
  const again = recorder({ existing: [COL] });
  const s2 = new WeaviateVectorStore({ url: 'http://weaviate:8080', client: again.factory });
  await s2.upsert(SPACE, [item('d1:1', 'd1', 'org-1')]);
  assert.equal(((again.calls.find((c) => c[0].endsWith('insertMany'))![1]) as { id: string }[])[0]!.id, first.id);
  assert.equal(again.calls.some((c) => c[0] === 'collections.create'), false);
});

test('hybrid query: text, our vector, alpha, limit, document and owner filters; hits mapped and scored 0..1', async () => {
  const r = recorder({
    existing: [COL],
    hybridObjects: [
      { uuid: 'x', properties: { chunk_id: 'd1:0', document_id: 'd1', page: 4, text: 'alpha', metadata: '{"type":"table"}' }, metadata: { score: 0.42 } },
      { uuid: 'y', properties: { chunk_id: 'd2:5', document_id: 'd2', page: 1, text: 'beta', metadata: '' }, metadata: { score: 0.97 } },
    ],
  });
  const store = new WeaviateVectorStore({ url: 'http://weaviate:8080', client: r.factory });
  const hits = await store.search(SPACE, { text: 'refund policy', vector: new Float32Array([0.5, 0.25, 1]), topK: 7, alpha: 0.6, filter: { documentIds: ['d1', 'd2'], userId: 'u1', organizationIds: ['o1', 'o2'] } });
  const call = r.calls.find((c) => c[0] === `${COL}.query.hybrid`)!;
  assert.deepEqual(call, [`${COL}.query.hybrid`, 'refund policy', {
    limit: 7,
    filters: {
      operator: 'And', value: null, filters: [
        { operator: 'ContainsAny', target: { property: 'document_id' }, value: ['d1', 'd2'] },
        { operator: 'Or', value: null, filters: [
          { operator: 'Equal', target: { property: 'user_id' }, value: 'u1' },
          { operator: 'ContainsAny', target: { property: 'organization_id' }, value: ['o1', 'o2'] },
        ] },
      ],
    },
    returnProperties: ['chunk_id', 'document_id', 'page', 'text', 'metadata'],
    vector: [0.5, 0.25, 1],
    alpha: 0.6,
    fusionType: 'RelativeScore',
    queryProperties: ['text'],
    returnMetadata: ['score'],
  }]);
  assert.deepEqual(hits, [
    { id: 'd2:5', documentId: 'd2', page: 1, text: 'beta', score: 0.97 },
    { id: 'd1:0', documentId: 'd1', page: 4, text: 'alpha', score: 0.42, metadata: { type: 'table' } },
  ]);
  // user only: a single Equal filter; no text: a nearVector query, score = 1 - distance
  await store.search(SPACE, { text: '', vector: new Float32Array([1, 0, 0]), topK: 3, filter: { userId: 'u1' } });
  const near = r.calls.find((c) => c[0] === `${COL}.query.nearVector`)!;
  assert.deepEqual(near[1], [1, 0, 0]);
  assert.deepEqual(near[2], { limit: 3, filters: { operator: 'Equal', target: { property: 'user_id' }, value: 'u1' }, returnProperties: ['chunk_id', 'document_id', 'page', 'text', 'metadata'], returnMetadata: ['distance'] });
  // the owner scope alone (no documents), on both query kinds: user or organizations, applied by Weaviate
  // inside its HNSW search (a filtered search, never a post-filter that could return another owner's rows)
  const scope = { operator: 'Or', value: null, filters: [
    { operator: 'Equal', target: { property: 'user_id' }, value: 'u2' },
    { operator: 'ContainsAny', target: { property: 'organization_id' }, value: ['o3'] },
  ] };
  const n0 = r.calls.length;
  await store.search(SPACE, { text: 'refund', vector: new Float32Array([1, 0, 0]), topK: 3, alpha: 0.7, filter: { userId: 'u2', organizationIds: ['o3'] } });
  await store.search(SPACE, { text: '', vector: new Float32Array([1, 0, 0]), topK: 3, filter: { userId: 'u2', organizationIds: ['o3'] } });
  await store.search(SPACE, { text: '', vector: new Float32Array([1, 0, 0]), topK: 3, filter: { organizationIds: ['o3'] } });
  const scoped = r.calls.slice(n0) as [string, ...Record<string, unknown>[]][];
  assert.deepEqual(scoped.map((c) => c[0]), [`${COL}.query.hybrid`, `${COL}.query.nearVector`, `${COL}.query.nearVector`]);
  assert.deepEqual(scoped[0]![2]!.filters, scope);
  assert.deepEqual(scoped[1]![2]!.filters, scope);
  assert.deepEqual(scoped[2]![2]!.filters, { operator: 'ContainsAny', target: { property: 'organization_id' }, value: ['o3'] });
  const [h] = await store.search(SPACE, { text: '   ', vector: new Float32Array([1, 0, 0]), topK: 3, filter: {} });
  assert.equal(h!.score, 0.75);
  // an empty document list or an unknown space: no query at all
  const before = r.calls.length;
  assert.deepEqual(await store.search(SPACE, { text: 'x', vector: new Float32Array(3), topK: 3, filter: { documentIds: [] } }), []);
  assert.equal(r.calls.length, before);
  assert.deepEqual(await store.search('other-space', { text: 'x', vector: new Float32Array(3), topK: 3, filter: {} }), []);
  assert.equal(r.calls.some((c) => c[0] === 'collections.create'), false, 'searching never creates');
});

test('deleteDocument deletes by document_id in every Quire collection until nothing matches; count aggregates', async () => {
  const other = collectionName('local-hash-v1-384');
  const r = recorder({ existing: [COL, other], deleteMatches: [10000, 12, 0] });
  const store = new WeaviateVectorStore({ url: 'http://weaviate:8080', client: r.factory });
  await store.deleteDocument('doc-7');
  const dels = r.calls.filter((c) => c[0].endsWith('.data.deleteMany'));
  const filter = { operator: 'Equal', target: { property: 'document_id' }, value: 'doc-7' };
  assert.deepEqual(dels, [[`${COL}.data.deleteMany`, filter], [`${COL}.data.deleteMany`, filter], [`${COL}.data.deleteMany`, filter], [`${other}.data.deleteMany`, filter]]);
  assert.equal(r.calls.some((c) => c[0].startsWith('SomethingElse')), false, 'other collections are left alone');
  assert.equal(await store.count(SPACE), 3);
  assert.equal(await store.count('never-used'), 0);
  await store.close();
  assert.deepEqual(r.calls[r.calls.length - 1], ['close']);
});

test('setOwner gives every object of a document, in every Quire collection, the new owner', async () => {
  const r = recorder({ existing: [COL, 'SomethingElse'] });
  const store = new WeaviateVectorStore({ url: 'http://weaviate:8080', client: r.factory });
  await store.setOwner('doc-7', { userId: 'heir', organizationId: 'org-1' });
  const filter = { operator: 'Equal', target: { property: 'document_id' }, value: 'doc-7' };
  assert.deepEqual(r.calls.filter((c) => c[0].endsWith('.query.fetchObjects')), [[`${COL}.query.fetchObjects`, { filters: filter, limit: 10_000, returnProperties: ['chunk_id'] }]]);
  assert.deepEqual(
    r.calls.filter((c) => c[0].endsWith('.data.update')),
    [1, 2].map((i) => [`${COL}.data.update`, { id: `${COL}-obj-${i}`, properties: { user_id: 'heir', organization_id: 'org-1' } }]),
  );
  await store.close();
});

test('batch import errors surface as upstream errors', async () => {
  const r = recorder({ existing: [COL], insertErrors: { 0: { message: 'vector lengths don\'t match' } } });
  const store = new WeaviateVectorStore({ url: 'http://weaviate:8080', client: r.factory });
  await assert.rejects(store.upsert(SPACE, [item('a', 'd')]), (e: unknown) => e instanceof QuireError && e.code === 'UPSTREAM_ERROR' && /1 of 1 objects: vector lengths/.test(e.message));
});

test('an unreachable Weaviate fails with a clear error (real client), and health says so', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const store = new WeaviateVectorStore({ url: `http://127.0.0.1:${port}`, grpcPort: port });
  const t = Date.now();
  await assert.rejects(store.count(SPACE), (e: unknown) => {
    assert.ok(e instanceof QuireError);
    assert.equal(e.code, 'SERVICE_UNAVAILABLE');
    assert.match(e.message, new RegExp(`Weaviate at http://127.0.0.1:${port} \\(gRPC 127.0.0.1:${port}\\) is not reachable`));
    return true;
  });
  assert.ok(Date.now() - t < 60_000);
  const h = await store.health();
  assert.equal(h.ok, false);
  assert.match(h.message!, /not reachable/);
  assert.throws(() => new WeaviateVectorStore({ url: '' }), /QUIRE_WEAVIATE_URL/);
  assert.throws(() => new WeaviateVectorStore({ url: 'http://w:8080', collectionPrefix: 'lower' }), /option "collectionPrefix": must start with a capital letter/);
  assert.throws(() => pluginContext(plugin, { options: { alpha: 2 } }), /vector-store:weaviate: option "alpha"/);
});
