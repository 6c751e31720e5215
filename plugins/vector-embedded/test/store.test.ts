import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError, pluginContext } from '@quire/core';
import type { VectorItem } from '@quire/core';
import plugin, { EmbeddedVectorStore, KeywordIndex, analyze, fuse, queryTerms } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { PASSAGES, QUERIES, fillerText } from './fixtures/relevance.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-vectors-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(root, `s${n++}`);
const embedder = createLocalEmbedder();
const SPACE = embedder.space;

async function items(docs: { id: string; text: string; doc?: string; user?: string; org?: string | null; page?: number }[]): Promise<VectorItem[]> {
  const vecs = await embedder.embed(docs.map((d) => d.text), 'document');
  return docs.map((d, i) => ({ id: d.id, documentId: d.doc ?? `doc-${d.id}`, userId: d.user ?? 'u1', organizationId: d.org ?? null, page: d.page ?? 1, text: d.text, vector: vecs[i]!, metadata: { n: i } }));
}
async function ask(store: EmbeddedVectorStore, text: string, filter = {}, topK = 5, alpha?: number) {
  const [vector] = await embedder.embed([text], 'query');
  return store.search(SPACE, { text, vector: vector!, topK, filter, alpha });
}

test('hybrid search finds the paraphrased passage among near misses and filler', async () => {
  const store = new EmbeddedVectorStore(freshDir());
  const filler = Array.from({ length: 300 }, (_, i) => ({ id: `f${i}`, text: fillerText(i, 40 + (i % 60)) }));
  await store.upsert(SPACE, await items([...PASSAGES, ...filler]));
  assert.equal(await store.count(SPACE), PASSAGES.length + 300);
  let top1 = 0, top5 = 0;
  for (const q of QUERIES) {
    const hits = await ask(store, q.q, {}, 5);
    const rank = hits.findIndex((h) => h.id === q.relevant);
    if (rank === 0) top1++;
    if (rank >= 0) top5++;
    for (let i = 0; i < hits.length; i++) {
      assert.ok(hits[i]!.score >= 0 && hits[i]!.score <= 1, 'score in 0..1');
      if (i) assert.ok(hits[i - 1]!.score >= hits[i]!.score, 'descending');
    }
  }
  assert.ok(top1 / QUERIES.length >= 0.75, `top-1 ${top1}/${QUERIES.length}`);
  assert.ok(top5 / QUERIES.length >= 0.88, `top-5 ${top5}/${QUERIES.length}`);
  // hybrid beats either side alone on this set
  const mrr = async (alpha: number) => {
    let s = 0;
    for (const q of QUERIES) {
      const r = (await ask(store, q.q, {}, 10, alpha)).findIndex((h) => h.id === q.relevant);
      if (r >= 0) s += 1 / (r + 1);
    }
    return s / QUERIES.length;
  };
  const [hybrid, keyword, vector] = [await mrr(0.5), await mrr(0), await mrr(1)];
  assert.ok(hybrid >= keyword && hybrid >= vector, `hybrid ${hybrid.toFixed(3)} keyword ${keyword.toFixed(3)} vector ${vector.toFixed(3)}`);
  const hit = (await ask(store, 'can I go diving with the watch'))[0]!;
  assert.equal(hit.id, 'p17');
  assert.equal(hit.documentId, 'doc-p17');
  assert.deepEqual(hit.metadata, { n: 16 });
  await store.close();
});

test('owner scope never returns another user\'s items, on every path', async () => {
  const store = new EmbeddedVectorStore(freshDir());
  await store.upsert(SPACE, await items([
    { id: 'a1', text: 'The secret merger plan of Alice for Zephyr Corp', user: 'alice' },
    { id: 'b1', text: 'The secret merger plan of Bob for Zephyr Corp', user: 'bob' },
    { id: 'b2', text: 'Bob shares this merger memo with the Zephyr team', user: 'bob', org: 'team-z' },
    { id: 'c1', text: 'Carol keeps her own merger notes on Zephyr', user: 'carol', org: 'team-y' },
  ]));
  const owners: Record<string, string> = { a1: 'alice', b1: 'bob', b2: 'bob', c1: 'carol' };
  for (const alpha of [0, 0.5, 1]) {
    const alice = await ask(store, 'secret merger plan Bob Zephyr', { userId: 'alice' }, 10, alpha);
    assert.deepEqual(alice.map((h) => h.id), ['a1'], `alpha ${alpha}`);
    const aliceTeam = await ask(store, 'secret merger plan Bob Zephyr', { userId: 'alice', organizationIds: ['team-z'] }, 10, alpha);
    assert.deepEqual(new Set(aliceTeam.map((h) => h.id)), new Set(['a1', 'b2']), `alpha ${alpha}`);
    const orgOnly = await ask(store, 'merger Zephyr', { organizationIds: ['team-y'] }, 10, alpha);
    assert.deepEqual(orgOnly.map((h) => h.id), ['c1']);
    const nobody = await ask(store, 'merger Zephyr', { userId: 'mallory' }, 10, alpha);
    assert.deepEqual(nobody, []);
    for (const h of alice) assert.equal(owners[h.id], 'alice');
  }
  await store.close();
});

test('documentIds filter restricts to those documents; an empty list finds nothing', async () => {
  const store = new EmbeddedVectorStore(freshDir());
  await store.upsert(SPACE, await items(PASSAGES.map((p, i) => ({ ...p, doc: `d${i % 5}` }))));
  const hits = await ask(store, 'password reset link', { documentIds: ['d1', 'd3'] }, 10);
  assert.ok(hits.length > 0);
  for (const h of hits) assert.ok(['d1', 'd3'].includes(h.documentId));
  assert.deepEqual(await ask(store, 'password', { documentIds: [] }), []);
  assert.deepEqual(await ask(store, 'password', { documentIds: ['unknown'] }), []);
  await store.close();
});

test('deleteDocument removes its rows at once, in this and in another instance; upsert replaces by id', async () => {
  const dir = freshDir();
  const a = new EmbeddedVectorStore(dir);
  const b = new EmbeddedVectorStore(dir);
  await a.upsert(SPACE, await items([
    { id: 'x1', text: 'Quarterly hedging strategy for copper futures', doc: 'dx' },
    { id: 'x2', text: 'Copper futures margin calls in March', doc: 'dx' },
    { id: 'y1', text: 'Copper wire procurement for the plant', doc: 'dy' },
  ]));
  assert.deepEqual((await ask(b, 'copper futures hedging')).map((h) => h.documentId).includes('dx'), true, 'b sees a\'s writes');
  await b.deleteDocument('dx');
  assert.equal(await a.count(SPACE), 1);
  for (const s of [a, b]) {
    const hits = await ask(s, 'copper futures hedging', {}, 10);
    assert.deepEqual(hits.map((h) => h.id), ['y1']);
  }
  await a.upsert(SPACE, await items([{ id: 'y1', text: 'Aluminium sheet procurement for the plant', doc: 'dy' }]));
  assert.equal(await b.count(SPACE), 1);
  assert.deepEqual((await ask(b, 'copper', {}, 10, 0)).map((h) => h.id), [], 'old text no longer indexed');
  assert.deepEqual((await ask(b, 'aluminium sheet', {}, 10, 0)).map((h) => h.id), ['y1']);
  await a.close();
  await b.close();
});

test('persists across restarts and through the plugin under <dataDir>/vectors', async () => {
  const dataDir = freshDir();
  const ctx = pluginContext(plugin, { dataDir });
  const s1 = (await plugin.create(ctx)) as EmbeddedVectorStore;
  await s1.upsert(SPACE, await items(PASSAGES.slice(0, 20)));
  const before = await ask(s1, 'annual leave carried over');
  await s1.close();
  assert.ok(fs.existsSync(path.join(dataDir, 'vectors', 'vectors.db')));
  const s2 = (await plugin.create(ctx)) as EmbeddedVectorStore;
  assert.equal(await s2.count(SPACE), 20);
  const again = await ask(s2, 'annual leave carried over');
  assert.deepEqual(again, before);
  assert.equal(again[0]!.id, 'p05');
  await s2.close();
  await assert.rejects(s2.count(SPACE), /closed/);
});

test('plugin options: simd off (QUIRE_VECTOR_NO_SIMD) scans in JavaScript with the same results; bad options are refused', async () => {
  const dataDir = freshDir();
  const plain = (await plugin.create(pluginContext(plugin, { dataDir, options: { simd: false } }))) as EmbeddedVectorStore;
  await plain.upsert(SPACE, await items(PASSAGES.slice(0, 20)));
  const found = await ask(plain, 'annual leave carried over');
  assert.equal(plain.stats().spaces[0]!.simd, false);
  await plain.close();
  const simd = (await plugin.create(pluginContext(plugin, { dataDir }))) as EmbeddedVectorStore;
  assert.deepEqual((await ask(simd, 'annual leave carried over')).map((h) => h.id), found.map((h) => h.id));
  await simd.close();
  assert.throws(() => pluginContext(plugin, { options: { fusion: 'max' } }), /vector-store:embedded: option "fusion"/);
  assert.throws(() => pluginContext(plugin, { options: { alpha: 2 } }), /vector-store:embedded: option "alpha"/);
});

test('another process writing and deleting is seen by a running store', async () => {
  const dir = freshDir();
  const store = new EmbeddedVectorStore(dir);
  await store.upsert(SPACE, await items([{ id: 'local', text: 'Local row about glaciers melting', doc: 'dl' }]));
  assert.equal((await ask(store, 'volcanic eruption ash cloud')).some((h) => h.id === 'remote'), false);
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'writer.ts');
  const run = (op: string) => {
    const r = spawnSync(process.execPath, ['--conditions=quire-source', '--import', 'tsx', script, dir, op], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
  };
  run('add');
  const hits = await ask(store, 'volcanic eruption ash cloud');
  assert.equal(hits[0]?.id, 'remote');
  run('delete');
  assert.equal((await ask(store, 'volcanic eruption ash cloud')).some((h) => h.id === 'remote'), false);
  assert.equal(await store.count(SPACE), 1);
  await store.close();
});

test('int8 cache with exact rescoring matches brute force; compaction after mass deletion keeps results exact', async () => {
  const dim = 64;
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296) - 0.5;
  const rows: VectorItem[] = Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, documentId: `d${i % 30}`, userId: 'u', organizationId: null, page: 1, text: `row ${i}`, vector: Float32Array.from({ length: dim }, rnd) }));
  const unit = (v: Float32Array) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const units = new Map(rows.map((r) => [r.id, unit(r.vector)]));
  const brute = (q: Float32Array, keep: (r: VectorItem) => boolean) => {
    const uq = unit(q);
    return rows.filter(keep).map((r) => ({ id: r.id, s: units.get(r.id)!.reduce((a, x, i) => a + x * uq[i]!, 0) })).sort((a, b) => b.s - a.s).slice(0, 10).map((x) => x.id);
  };
  const dir = freshDir();
  const int8 = new EmbeddedVectorStore(dir, { precision: 'int8' });
  const f32 = new EmbeddedVectorStore(dir, { precision: 'f32' });
  await int8.upsert('rand', rows);
  const queries = Array.from({ length: 20 }, () => Float32Array.from({ length: dim }, rnd));
  for (const q of queries) {
    const want = brute(q, () => true);
    for (const s of [int8, f32]) assert.deepEqual((await s.search('rand', { text: '', vector: q, topK: 10, filter: {}, alpha: 1 })).map((h) => h.id), want);
  }
  for (let d = 0; d < 15; d++) await f32.deleteDocument(`d${d}`);
  const alive = (r: VectorItem) => Number(r.documentId.slice(1)) >= 15;
  for (const q of queries.slice(0, 5)) {
    const want = brute(q, alive);
    for (const s of [int8, f32]) assert.deepEqual((await s.search('rand', { text: '', vector: q, topK: 10, filter: {}, alpha: 1 })).map((h) => h.id), want);
    const hits = await int8.search('rand', { text: '', vector: q, topK: 10, filter: { documentIds: ['d20', 'd3'] }, alpha: 1 });
    assert.deepEqual(hits.map((h) => h.id), brute(q, (r) => r.documentId === 'd20'));
  }
  const st = int8.stats().spaces.find((s) => s.space === 'rand')!;
  assert.equal(st.rows, 1500);
  assert.equal(st.cachedRows, 1500);
  await int8.close();
  await f32.close();
});

test('inputs are validated', async () => {
  const store = new EmbeddedVectorStore(freshDir());
  await store.upsert('sp', [{ id: 'a', documentId: 'd', userId: 'u', organizationId: null, page: 1, text: 't', vector: new Float32Array([1, 0, 0]) }]);
  await assert.rejects(store.upsert('sp', [{ id: 'b', documentId: 'd', userId: 'u', organizationId: null, page: 1, text: 't', vector: new Float32Array([1, 0]) }]), (e: unknown) => e instanceof QuireError && e.code === 'VALIDATION_ERROR' && /dimension 3/.test(e.message));
  await assert.rejects(store.search('sp', { text: 'x', vector: new Float32Array(2), topK: 5, filter: {} }), /dimension/);
  await assert.rejects(store.upsert('sp', [{ id: 'c', documentId: 'd', userId: 'u', organizationId: null, page: 1, text: 't', vector: new Float32Array([NaN, 0, 0]) }]), /non-finite/);
  assert.deepEqual(await store.search('nothing-here', { text: 'x', vector: new Float32Array(3), topK: 5, filter: {} }), []);
  // a text that is all punctuation or FTS syntax still works
  assert.equal((await store.search('sp', { text: '"AND OR NOT*:(', vector: new Float32Array([1, 0, 0]), topK: 5, filter: {} }))[0]?.id, 'a');
  assert.throws(() => new EmbeddedVectorStore(freshDir(), { fusion: 'max' as never }), /fusion/);
  await store.close();
});

test('fusion methods give scores in 0..1', () => {
  const vec = [{ rowid: 1, score: 0.9 }, { rowid: 2, score: 0.8 }, { rowid: 4, score: 0.1 }];
  const kw = [{ rowid: 2, score: 12 }, { rowid: 3, score: 3 }];
  for (const m of ['rrf', 'relative', 'weighted'] as const) {
    const f = fuse(vec, kw, 0.5, m);
    assert.deepEqual(new Set(f.map((x) => x.rowid)), new Set([1, 2, 3, 4]));
    for (const x of f) assert.ok(x.score >= 0 && x.score <= 1);
  }
  assert.equal(fuse(vec, kw, 0.5, 'relative')[0]!.rowid, 2, 'in both lists wins');
});

test('text analysis: stop words dropped, stems and diacritics folded; BM25 ranks rarer, denser matches higher', () => {
  assert.deepEqual(queryTerms('How do I reset the password?'), queryTerms('RESETS passwords'));
  assert.deepEqual(queryTerms('the of and'), []);
  assert.deepEqual(queryTerms('many without much'), [], 'the stop words of the local embedder (@quire/text)');
  assert.deepEqual(queryTerms('Café résumé'), queryTerms('cafe resume'));
  assert.deepEqual(queryTerms('invoices'), queryTerms('invoice'));
  assert.equal(analyze('The payments of the invoices, payments!').length, 3);
  const kw = new KeywordIndex();
  const blob = (t: string) => {
    const a = analyze(t);
    return Uint32Array.from([a.length, ...[...a.terms].flat()]);
  };
  const docs = ['copper copper futures', 'copper wire', 'aluminium sheet', 'copper futures hedging strategy for the year ahead with many other words'];
  kw.build(docs.slice(0, 2).map(blob));
  kw.add(2, blob(docs[2]!));
  kw.add(3, blob(docs[3]!));
  const r = kw.search(queryTerms('copper futures'), 10, () => true);
  assert.deepEqual(r.map((x) => x.key), [0, 3, 1]);
  assert.deepEqual(kw.search(queryTerms('copper futures'), 10, (p) => p !== 0).map((x) => x.key), [3, 1]);
  // compaction renumbers: drop row 0
  kw.rebuild(Int32Array.from([-1, 0, 1, 2]), 3);
  assert.deepEqual(kw.search(queryTerms('futures'), 10, () => true).map((x) => x.key), [2]);
  assert.deepEqual(kw.search(queryTerms('aluminium'), 10, () => true).map((x) => x.key), [1]);
});
