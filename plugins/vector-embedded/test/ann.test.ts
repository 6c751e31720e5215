import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { VectorFilter, VectorItem } from '@quire/core';
import { EmbeddedVectorStore } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { fillerText } from './fixtures/relevance.js';

// A generated collection: 3,000 chunks of 150 documents over five users (u0 owns half) and an organization;
// the ANN index is used from 500 rows here (annThreshold), so the owner filters below exercise both the
// ANN path (u0's half) and the exact path (a user with few rows).
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-ann-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = createLocalEmbedder();
const SPACE = embedder.space;
const N = 3000;
const THRESHOLD = 500;
const owner = (d: number) => (d % 2 === 0 ? 'u0' : `u${1 + (d % 4)}`);
const docOf = (i: number) => Math.floor(i / 20);
let items: VectorItem[] = [];
let queries: { text: string; vector: Float32Array }[] = [];

before(async () => {
  const texts = Array.from({ length: N }, (_, i) => fillerText(i + 7, 30 + (i % 50)));
  // the same text in two owners' documents: the nearest neighbour of its query is the other owner's row too
  texts[21] = texts[41] = 'quarterly maintenance contract renewal for the harbour crane fleet, invoice attached';
  const vecs = await embedder.embed(texts, 'document');
  items = texts.map((text, i) => {
    const d = docOf(i);
    return { id: `c${i}`, documentId: `d${d}`, userId: owner(d), organizationId: d % 5 === 0 ? 'org1' : null, page: 1 + (i % 20), text, vector: vecs[i]! };
  });
  const qTexts = [...Array.from({ length: 40 }, (_, i) => fillerText(50_000 + i, 3 + (i % 5))), texts[21]!];
  const qv = await embedder.embed(qTexts, 'query');
  queries = qTexts.map((text, i) => ({ text, vector: qv[i]! }));
});

async function filled(dir: string): Promise<void> {
  const w = new EmbeddedVectorStore(dir, { ann: false });
  for (let i = 0; i < N; i += 500) await w.upsert(SPACE, items.slice(i, i + 500));
  await w.close();
}

const ownerOfDoc = (doc: string) => owner(Number(doc.slice(1)));
const annFilesIn = (dir: string) => (fs.existsSync(path.join(dir, 'ann')) ? fs.readdirSync(path.join(dir, 'ann')).filter((f) => f.endsWith('.usearch')) : []);

async function recall(ann: EmbeddedVectorStore, exact: EmbeddedVectorStore, filter: VectorFilter, alpha: number): Promise<number> {
  let sum = 0;
  for (const q of queries) {
    const want = (await exact.search(SPACE, { ...q, topK: 10, filter, alpha })).map((h) => h.id);
    const got = new Set((await ann.search(SPACE, { ...q, topK: 10, filter, alpha })).map((h) => h.id));
    sum += want.length ? want.filter((id) => got.has(id)).length / want.length : 1;
  }
  return sum / queries.length;
}

test('the ANN index answers the same owner-filtered results as the exact scan', async () => {
  const dir = path.join(root, 'recall');
  await filled(dir);
  const ann = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  const exact = new EmbeddedVectorStore(dir, { ann: false });
  assert.equal(await ann.annReady(SPACE), true, 'an index is built for a space above the threshold');
  assert.equal(ann.stats().spaces[0]!.annRows, N, 'every row is in the index');
  assert.equal(await exact.annReady(SPACE), false);
  assert.equal(annFilesIn(dir).length, 1, 'the built index is saved beside the database');
  for (const [filter, alpha] of [
    [{}, 1],
    [{ userId: 'u0' }, 1],
    [{ userId: 'u0', organizationIds: ['org1'] }, 1],
    [{ userId: 'u3' }, 1],
    [{ userId: 'u0' }, 0.5],
  ] as [VectorFilter, number][]) {
    const r = await recall(ann, exact, filter, alpha);
    assert.ok(r >= 0.98, `recall@10 ${r.toFixed(3)} for ${JSON.stringify(filter)} α ${alpha}`);
  }
  await ann.close();
  await exact.close();
});

test('the ANN path never returns another owner\'s rows, even their nearest twins', async () => {
  const dir = path.join(root, 'owners');
  await filled(dir);
  const store = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  assert.equal(await store.annReady(SPACE), true);
  const twin = queries[queries.length - 1]!;
  // c21 (document d1, user u2) and c41 (document d2, user u0) have the same text
  assert.equal(ownerOfDoc('d1'), 'u2');
  assert.equal(ownerOfDoc('d2'), 'u0');
  const all = await store.search(SPACE, { ...twin, topK: 2, filter: {}, alpha: 1 });
  assert.deepEqual(all.map((h) => h.id).sort(), ['c21', 'c41']);
  const u0 = await store.search(SPACE, { ...twin, topK: 10, filter: { userId: 'u0' }, alpha: 1 });
  assert.equal(u0[0]!.id, 'c41');
  assert.ok(!u0.some((h) => h.id === 'c21'));
  for (const filter of [{ userId: 'u0' }, { userId: 'u2' }, { userId: 'u4', organizationIds: ['org1'] }, { userId: 'nobody' }] as VectorFilter[]) {
    for (const q of queries) {
      for (const alpha of [1, 0.5]) {
        const hits = await store.search(SPACE, { ...q, topK: 20, filter, alpha });
        for (const h of hits) {
          const d = Number(h.documentId.slice(1));
          const ok = ownerOfDoc(h.documentId) === filter.userId || (filter.organizationIds?.includes('org1') && d % 5 === 0);
          assert.ok(ok, `${h.id} of ${ownerOfDoc(h.documentId)} returned for ${JSON.stringify(filter)}`);
        }
        if (filter.userId === 'nobody') assert.equal(hits.length, 0);
      }
    }
  }
  await store.close();
});

test('deleting a document removes it from the ANN index, now and after a restart', async () => {
  const dir = path.join(root, 'delete');
  await filled(dir);
  const store = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  assert.equal(await store.annReady(SPACE), true);
  const twin = queries[queries.length - 1]!;
  assert.equal((await store.search(SPACE, { ...twin, topK: 1, filter: { userId: 'u2' }, alpha: 1 }))[0]?.id, 'c21');
  await store.deleteDocument('d1');
  const after = await store.search(SPACE, { ...twin, topK: 20, filter: {}, alpha: 1 });
  assert.ok(!after.some((h) => h.documentId === 'd1'));
  assert.equal(after[0]!.id, 'c41');
  assert.equal(store.stats().spaces[0]!.annRows, N - 20, 'its 20 rows left the index');
  assert.deepEqual(await store.search(SPACE, { ...twin, topK: 5, filter: { userId: 'u2' }, alpha: 1 }).then((h) => h.filter((x) => x.documentId === 'd1')), []);
  await store.close();
  // the saved index is the one without the document
  const again = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  assert.equal(await again.annReady(SPACE), true);
  assert.equal(again.stats().spaces[0]!.annRows, N - 20);
  assert.ok(!(await again.search(SPACE, { ...twin, topK: 20, filter: {}, alpha: 1 })).some((h) => h.documentId === 'd1'));
  await again.close();
});

test('a missing index file is rebuilt at start, a stale one repaired with the rows and deletions after it', async () => {
  const dir = path.join(root, 'rebuild');
  await filled(dir);
  const first = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  assert.equal(await first.annReady(SPACE), true);
  await first.close();
  assert.equal(annFilesIn(dir).length, 1);

  // missing: removed while the service was down
  fs.rmSync(path.join(dir, 'ann'), { recursive: true });
  const second = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  const exact = new EmbeddedVectorStore(dir, { ann: false });
  // the first search answers at once (exact scan) while the index builds
  assert.ok((await second.search(SPACE, { ...queries[0]!, topK: 10, filter: {}, alpha: 1 })).length > 0);
  assert.equal(await second.annReady(SPACE), true);
  assert.equal(second.stats().spaces[0]!.annRows, N);
  assert.equal(annFilesIn(dir).length, 1, 'rebuilt and saved');
  assert.ok((await recall(second, exact, { userId: 'u0' }, 1)) >= 0.98);
  await second.close();

  // stale: another process (no index of its own) adds a document and deletes one after the file was saved
  const fileBefore = annFilesIn(dir)[0];
  const extraText = 'emergency generator load test report for the northern substation';
  const [ev] = await embedder.embed([extraText], 'document');
  const other = new EmbeddedVectorStore(dir, { ann: false });
  await other.upsert(SPACE, [{ id: 'x1', documentId: 'dx', userId: 'u0', organizationId: null, page: 1, text: extraText, vector: ev! }]);
  await other.deleteDocument('d2');
  await other.close();
  const third = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  assert.equal(await third.annReady(SPACE), true);
  assert.equal(annFilesIn(dir)[0], fileBefore, 'repaired in memory from the same file, not rebuilt');
  assert.equal(third.stats().spaces[0]!.annRows, N - 20 + 1);
  const [qv] = await embedder.embed([extraText], 'query');
  assert.equal((await third.search(SPACE, { text: extraText, vector: qv!, topK: 1, filter: { userId: 'u0' }, alpha: 1 }))[0]?.id, 'x1');
  const twin = queries[queries.length - 1]!;
  assert.ok(!(await third.search(SPACE, { ...twin, topK: 20, filter: {}, alpha: 1 })).some((h) => h.documentId === 'd2'));
  assert.ok((await recall(third, exact, {}, 1)) >= 0.98);
  await third.close();
  await exact.close();

  // an unreadable file is replaced by a build
  const f = path.join(dir, 'ann', annFilesIn(dir)[0]!);
  fs.writeFileSync(f, 'not an index');
  // (the checksum beside it no longer matches: the file is never handed to USearch)
  const fourth = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  assert.equal(await fourth.annReady(SPACE), true);
  assert.equal(fourth.stats().spaces[0]!.annRows, N - 20 + 1);
  await fourth.close();
});

test('a space below the threshold keeps to the exact scan; one growing past it gets an index', async () => {
  const dir = path.join(root, 'small');
  const store = new EmbeddedVectorStore(dir, { ann: true, annThreshold: THRESHOLD });
  await store.upsert(SPACE, items.slice(0, THRESHOLD - 100));
  assert.equal(await store.annReady(SPACE), false);
  assert.equal(store.stats().spaces[0]!.annRows, null);
  assert.equal(annFilesIn(dir).length, 0);
  await store.upsert(SPACE, items.slice(THRESHOLD - 100, THRESHOLD + 100));
  assert.equal(await store.annReady(SPACE), true);
  assert.equal(store.stats().spaces[0]!.annRows, THRESHOLD + 100);
  await store.close();
});
