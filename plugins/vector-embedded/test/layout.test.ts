import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pluginContext } from '@quire/core';
import type { Logger, VectorFilter, VectorHit, VectorItem } from '@quire/core';
import plugin, { VectorMatrix } from '@quire/plugin-vector-embedded';
import type { EmbeddedVectorStore, Layout } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { owner, ownedCollection } from './fixtures/collection.js';

// The int8 cache's two layouts: `columns` (the default, dimension-major blocks of 4,096 rows, a query reads
// its nonzero dimensions only) and `rows` (the row scan). 9,000 chunks (three blocks) of 450 documents over
// five users and an organization; every query × filter × alpha must give the same hits and scores (the exact
// scan: `pruneMass` 1). Then the columns layout's pruned scan (the default `pruneMass`) against the exact one.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-layout-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = createLocalEmbedder();
const SPACE = embedder.space;
const N = 9000;
let items: VectorItem[] = [];
let queries: { text: string; vector: Float32Array }[] = [];

before(async () => {
  // short queries (a few dozen dimensions), longer ones, and two chunks' own texts (most dimensions)
  ({ items, queries } = await ownedCollection(embedder, N, 3, { seed: 80_000, count: 10, words: (i) => 2 + (i % 8) }, [17, 8999]));
});

const FILTERS: VectorFilter[] = [{}, { userId: 'u1' }, { userId: 'u2', organizationIds: ['org1'] }, { documentIds: ['d3', 'd204', 'd449'] }];
const ALPHAS = [1, 0.5];

/** a store through the plugin API (the exact scan unless `options` say), with the snapshots it loads logged */
async function open(dataDir: string, layout: Layout, loads: (string | null)[] = [], options: Record<string, unknown> = { pruneMass: 1 }): Promise<EmbeddedVectorStore> {
  const logger = { debug: (o: { snapshot?: string | null }, msg: string) => msg === 'vector cache loaded' && loads.push(o.snapshot ?? null), warn: () => {}, info: () => {}, error: () => {}, child: () => logger } as unknown as Logger;
  return (await plugin.create(pluginContext(plugin, { dataDir, logger, options: { layout, snapshotMinRows: 1000, ...options } }))) as EmbeddedVectorStore;
}

async function answers(s: EmbeddedVectorStore): Promise<VectorHit[][]> {
  const out: VectorHit[][] = [];
  for (const q of queries) for (const filter of FILTERS) for (const alpha of ALPHAS) out.push(await s.search(SPACE, { ...q, topK: 20, filter, alpha }));
  return out;
}

test('the columns layout answers as the row scan, owner filters, deletions, compaction and snapshots included', async () => {
  const dataDir = path.join(root, 'same');
  const cols = await open(dataDir, 'columns');
  for (let i = 0; i < N; i += 1000) await cols.upsert(SPACE, items.slice(i, i + 1000));
  const rows = await open(dataDir, 'rows');
  const want = await answers(rows);
  assert.deepEqual(await answers(cols), want);
  // (a query of stop words only has no vector and finds nothing by vector alone)
  assert.ok(want.filter((h) => h.length > 0).length >= want.length * 0.9, `${want.filter((h) => !h.length).length} empty`);
  const st = cols.stats().spaces[0]!;
  assert.equal(st.layout, 'columns');
  assert.equal(rows.stats().spaces[0]!.layout, 'rows');
  // the last query (a chunk's text) reads many dimensions; a two-word query few of the 384
  assert.ok(st.queryDimensions! > 150, `${st.queryDimensions}`);
  await cols.search(SPACE, { ...queries[0]!, topK: 5, filter: {}, alpha: 1 });
  assert.ok(cols.stats().spaces[0]!.queryDimensions! < 100, `${cols.stats().spaces[0]!.queryDimensions}`);
  assert.equal(rows.stats().spaces[0]!.queryDimensions, 384);

  // a third of the documents deleted (past the compaction threshold: the rows move within and across blocks)
  for (let d = 0; d < 450; d += 3) await rows.deleteDocument(`d${d}`);
  const afterDelete = await answers(rows);
  const got = await answers(cols);
  assert.deepEqual(got, afterDelete);
  for (const h of got.flat()) assert.notEqual(Number(h.documentId.slice(1)) % 3, 0, `${h.id} of a deleted document`);
  for (const [i, list] of got.entries()) {
    const f = FILTERS[Math.floor(i / ALPHAS.length) % FILTERS.length]!;
    for (const h of list) {
      const d = Number(h.documentId.slice(1));
      if (f.userId) assert.ok(owner(d) === f.userId || (f.organizationIds && d % 4 === 0), `${h.id} is outside ${JSON.stringify(f)}`);
      if (f.documentIds) assert.ok(f.documentIds.includes(h.documentId));
    }
  }
  await rows.close();
  await cols.close();

  // the snapshot written on close holds the columns; a restart reads it and answers the same
  const loads: (string | null)[] = [];
  const again = await open(dataDir, 'columns', loads);
  assert.deepEqual(await answers(again), afterDelete);
  assert.match(String(loads[0]), /\.snap$/, 'the restart loads the snapshot');
  await again.close();
  // a store of the other layout does not take it: it reads SQLite, with the same answers
  const other: (string | null)[] = [];
  const byRows = await open(dataDir, 'rows', other);
  assert.deepEqual(await answers(byRows), afterDelete);
  assert.equal(other[0], null);
  await byRows.close();
  assert.throws(() => pluginContext(plugin, { options: { layout: 'diagonal' } }), /vector-store:embedded: option "layout"/);
});

test('the column kernel gives the row kernel\'s scores, in WebAssembly and in JavaScript, over any range of rows', () => {
  const D = 100;
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296;
  const vec = (density: number) => Float32Array.from({ length: D }, () => (rnd() < density ? rnd() - 0.5 : 0));
  const m = [new VectorMatrix(D, 'int8', 10, true, 'rows'), new VectorMatrix(D, 'int8', 10, true, 'columns'), new VectorMatrix(D, 'int8', 10, false, 'columns')];
  // (Node has WebAssembly SIMD: a kernel that fails to compile would fall back to JavaScript unseen)
  assert.deepEqual(m.map((x) => x.simd), [true, true, false]);
  const n = 9000;
  for (let i = 0; i < n; i++) {
    const v = vec(0.3);
    for (const x of m) x.set(i, v);
  }
  for (const x of m) {
    x.move(8000, 5); // within and across blocks
    x.move(4095, 4096);
  }
  for (let t = 0; t < 12; t++) {
    const q = vec(t % 3 === 0 ? 1 : 0.07); // dense, and sparse with an odd or even count of dimensions
    const from = (t * 997) % 5000, to = n - ((t * 331) % 3000);
    const scores = m.map((x) => {
      assert.ok(x.setQuery(q));
      const s: number[] = [];
      x.scan(from, to, (pos, score) => s.push(pos, score));
      return s;
    });
    assert.equal(scores[0]!.length, (to - from) * 2);
    assert.deepEqual(scores[1], scores[0]);
    assert.deepEqual(scores[2], scores[0]);
    assert.ok(m[1]!.queryDimensions! < (t % 3 === 0 ? D + 1 : 20));
  }
});

test('the pruned scan reads fewer dimensions, returns only the allowed owners\' rows, and the exact top 10 where its candidates hold every allowed row', async () => {
  const dataDir = path.join(root, 'pruned');
  const exact = await open(dataDir, 'columns');
  for (let i = 0; i < N; i += 1000) await exact.upsert(SPACE, items.slice(i, i + 1000));
  // (the defaults, pruneMass 0.85 and 400 candidates, on a collection under the default pruneMinRows: exact)
  const small = await open(dataDir, 'columns', [], {});
  for (const q of queries.slice(0, 5)) {
    assert.deepEqual(await small.search(SPACE, { ...q, topK: 10, alpha: 1 }), await exact.search(SPACE, { ...q, topK: 10, alpha: 1 }));
    assert.equal(small.stats().spaces[0]!.queryDimensions, exact.stats().spaces[0]!.queryDimensions, 'a collection under pruneMinRows reads every dimension');
  }
  await small.close();
  const pruned = await open(dataDir, 'columns', [], { pruneMinRows: 0 });
  // filters allowing more rows than the candidates (1,800; ~3,000) and fewer (200: every one of them completed)
  const wide: VectorFilter[] = [{}, { userId: 'u1' }, { userId: 'u2', organizationIds: ['org1'] }];
  const few: VectorFilter[] = [{ documentIds: Array.from({ length: 10 }, (_, i) => `d${i * 41}`) }, { userId: 'u3', documentIds: ['d3', 'd8', 'd13', 'd18', 'd23', 'd28', 'd33'] }];
  let found = 0, want = 0, read = 0, nonzero = 0;
  for (const q of queries) {
    for (const filter of [...wide, ...few]) {
      const a = await exact.search(SPACE, { ...q, topK: 10, filter, alpha: 1 });
      const b = await pruned.search(SPACE, { ...q, topK: 10, filter, alpha: 1 });
      read += pruned.stats().spaces[0]!.queryDimensions!;
      nonzero += exact.stats().spaces[0]!.queryDimensions!;
      for (const h of b) {
        const d = Number(h.documentId.slice(1));
        if (filter.userId) assert.ok(owner(d) === filter.userId || (filter.organizationIds?.includes('org1') && d % 4 === 0), `${h.id} is outside ${JSON.stringify(filter)}`);
        if (filter.documentIds) assert.ok(filter.documentIds.includes(h.documentId), `${h.id} is outside ${JSON.stringify(filter)}`);
      }
      if (few.includes(filter)) assert.deepEqual(b, a, `${q.text.slice(0, 40)} ${JSON.stringify(filter)}`);
      else {
        const top = new Set(a.map((h) => h.id));
        found += b.filter((h) => top.has(h.id)).length;
        want += a.length;
      }
    }
  }
  assert.ok(read < nonzero * 0.6, `read ${read} of ${nonzero} query dimensions`);
  assert.ok(want > 0 && found / want >= 0.95, `recall@10 ${found}/${want}`);
  await pruned.close();
  await exact.close();
  assert.throws(() => pluginContext(plugin, { options: { pruneMass: 0 } }), /vector-store:embedded: option "pruneMass"/);
  assert.throws(() => pluginContext(plugin, { options: { pruneMinRows: -1 } }), /vector-store:embedded: option "pruneMinRows"/);
});
