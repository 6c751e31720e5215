import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { VectorFilter, VectorItem } from '@quire/core';
import { EmbeddedVectorStore } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';

// The keyword side prunes (MaxScore) an unfiltered search; `keywordPruning: false` walks every posting.
// Both must answer the same rows with the same scores in the same order, ties included.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-kw-prune-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = createLocalEmbedder();
const SPACE = embedder.space;

let seed = 12345;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
// a vocabulary with a skewed (Zipf-like) use: a few words in most rows, most words in few
const VOCAB = Array.from({ length: 600 }, (_, i) => `w${i.toString(36)}x${'abcdefgh'[i % 8]}`);
const word = () => VOCAB[Math.floor(VOCAB.length * rnd() ** 2.5)]!;
// words only the rows added after the index was frozen use (their postings are all recent ones)
const NEW = Array.from({ length: 40 }, (_, i) => `n${i.toString(36)}q`);
let newWords = 0; // how many of a later row's words are drawn from NEW, out of 10
const rowWord = () => (rnd() * 10 < newWords ? NEW[Math.floor(NEW.length * rnd() ** 2)]! : word());
let longer = 0; // words added to a later row's length (to make the average row length grow)
const text = () => Array.from({ length: 3 + longer + Math.floor(rnd() * 60) }, rowWord).join(' ');

async function items(from: number, count: number): Promise<VectorItem[]> {
  const docs = Array.from({ length: count }, (_, i) => ({ id: `c${from + i}`, text: text(), doc: `d${Math.floor((from + i) / 20)}`, user: `u${Math.floor((from + i) / 20) % 7}` }));
  const vecs = await embedder.embed(docs.map((d) => d.text), 'document');
  return docs.map((d, i) => ({ id: d.id, documentId: d.doc, userId: d.user, organizationId: Number(d.doc.slice(1)) % 3 === 0 ? 'o1' : null, page: 1, text: d.text, vector: vecs[i]!, metadata: null }));
}

async function compare(pruned: EmbeddedVectorStore, exhaustive: EmbeddedVectorStore, queries: number, queryWord = word) {
  const filters: VectorFilter[] = [{}, {}, {}, { userId: 'u3' }, { userId: 'u1', organizationIds: ['o1'] }, { documentIds: ['d2', 'd9', 'd40', 'd77'] }];
  let compared = 0;
  for (let q = 0; q < queries; q++) {
    const query = Array.from({ length: 1 + Math.floor(rnd() * 5) }, queryWord).join(' ');
    const [vector] = await embedder.embed([query], 'query');
    const filter = filters[q % filters.length]!;
    const topK = [1, 5, 10, 40, 200][q % 5]!;
    for (const alpha of [0, 0.5]) {
      const args = { text: query, vector: vector!, topK, filter, alpha };
      const a = (await pruned.search(SPACE, args)).map((h) => [h.id, h.score]);
      const b = (await exhaustive.search(SPACE, args)).map((h) => [h.id, h.score]);
      assert.deepEqual(a, b, `query "${query}" topK ${topK} alpha ${alpha} filter ${JSON.stringify(filter)}`);
      if (b.length) compared++;
    }
  }
  assert.ok(compared > queries, `${compared} non-empty answers compared`);
}

test('the pruned keyword search answers what the exhaustive walk answers: many queries, filters, deletes, added rows', async () => {
  const dir = path.join(root, 'gen');
  const pruned = new EmbeddedVectorStore(dir, { snapshot: false });
  const exhaustive = new EmbeddedVectorStore(dir, { snapshot: false, keywordPruning: false });
  await pruned.upsert(SPACE, await items(0, 2500));
  await compare(pruned, exhaustive, 150);
  // deleted documents (still counted in the statistics until compaction) and rows added since (recent postings)
  for (let d = 0; d < 125; d += 6) await pruned.deleteDocument(`d${d}`);
  await pruned.upsert(SPACE, await items(2500, 600));
  await compare(pruned, exhaustive, 150);
  // frozen postings plus recent ones in the same terms and in terms that have only recent ones (NEW words),
  // rows deleted among the recent ones too, several rounds (the searches between them fix the terms' bounds)
  newWords = 3;
  const mixed = () => (rnd() < 0.4 ? NEW[Math.floor(NEW.length * rnd() ** 2)]! : word());
  for (let round = 0; round < 3; round++) {
    const from = 3100 + round * 300;
    await pruned.upsert(SPACE, await items(from, 300));
    for (let d = from / 20 - 12; d < from / 20 + 15; d += 4) await pruned.deleteDocument(`d${d}`);
    await compare(pruned, exhaustive, 80, mixed);
  }
  // longer rows: the average length grows by less than the 2% the bounds are stretched for (kept), then by
  // more (recomputed, the block bounds with them)
  longer = 80;
  for (const [from, count] of [[4000, 25], [4025, 300]] as const) {
    await pruned.upsert(SPACE, await items(from, count));
    await compare(pruned, exhaustive, 150, mixed);
  }
  await pruned.close();
  await exhaustive.close();
});

test('among rows of equal keyword score at the cut, the earlier rows are kept, whichever term lists them first', async () => {
  const dir = path.join(root, 'ties');
  // 60 rows with "zephyr" and 60 with "quokka" (same length, same frequency: the same score), the quokka
  // rows first; a query names zephyr first, so the exhaustive walk meets the later rows first
  const rows = [...Array.from({ length: 60 }, () => 'quokka filler'), ...Array.from({ length: 60 }, () => 'zephyr filler')];
  const vecs = await embedder.embed(rows, 'document');
  const its: VectorItem[] = rows.map((t, i) => ({ id: `r${String(i).padStart(3, '0')}`, documentId: `d${i}`, userId: 'u1', organizationId: null, page: 1, text: t, vector: vecs[i]!, metadata: null }));
  for (const keywordPruning of [true, false]) {
    const store = new EmbeddedVectorStore(path.join(dir, String(keywordPruning)), { snapshot: false, keywordPruning });
    await store.upsert(SPACE, its);
    const hits = await store.search(SPACE, { text: 'zephyr quokka', vector: new Float32Array(0), topK: 10, filter: {}, alpha: 0 });
    assert.deepEqual(hits.map((h) => h.id), Array.from({ length: 10 }, (_, i) => `r${String(i).padStart(3, '0')}`), `keywordPruning ${keywordPruning}`);
    await store.close();
  }
});

test('the pruned keyword search stays exact while the average row length grows under its stretched bounds', async () => {
  // The terms' and blocks' bounds are computed at one average row length and, while the average grows by at
  // most 2%, stretched by the growth instead of recomputed: a bound left as it was is then up to 2% low (a
  // row of length L scores as one of length L·(1 + growth) did). To put answers within that margin: rows
  // cut at a fixed size (most rows 250 terms, 3% 1–3 shorter), each topic word once in a row (many rows
  // score alike, a block's best is a shorter row a fraction of a percent above the k-th score), topics common
  // (many blocks of postings each), single and several topic queries, the keyword pool 50 or 120 rows.
  let s = 777;
  const rand = () => {
    // mulberry32 (successive draws independent enough: the row's length, then its topics)
    let t = (s = (s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const TOPICS = Array.from({ length: 6 }, (_, i) => `topic${i.toString(36)}z`);
  const FILL = Array.from({ length: 2000 }, (_, i) => `f${i.toString(36)}k`);
  const pick = <T>(a: T[]) => a[Math.floor(a.length * rand())]!;
  // a row of `length` terms: its topics once each, the rest filler
  const row = (length: number, topics: string[]) => {
    const ws = [...topics];
    while (ws.length < length) ws.push(pick(FILL));
    return ws.join(' ');
  };
  const [vector] = await embedder.embed(['keyword rows'], 'document');
  let next = 0;
  const itemsOf = (texts: string[]): VectorItem[] =>
    texts.map((text) => {
      const i = next++;
      return { id: `b${String(i).padStart(5, '0')}`, documentId: `d${Math.floor(i / 25)}`, userId: `u${i % 3}`, organizationId: null, page: 1, text, vector: vector!, metadata: null };
    });
  const rows = 6000;
  let total = 0;
  const texts = Array.from({ length: rows }, () => {
    const length = rand() < 0.03 ? 249 - Math.floor(rand() * 3) : 250;
    total += length;
    const topics = new Set(Array.from({ length: 1 + Math.floor(rand() * 2) }, () => pick(TOPICS)));
    return row(length, [...topics]);
  });
  const dir = path.join(root, 'stretch');
  const pruned = new EmbeddedVectorStore(dir, { snapshot: false });
  const exhaustive = new EmbeddedVectorStore(dir, { snapshot: false, keywordPruning: false });
  await pruned.upsert(SPACE, itemsOf(texts));
  const queries = Array.from({ length: 120 }, (_, q) => {
    const n = q < 40 ? 1 : 2 + Math.floor(rand() * 2);
    return [...new Set(Array.from({ length: n }, () => pick(TOPICS)))].join(' ');
  });
  const check = async (label: string) => {
    let differ = 0;
    for (const [q, text] of queries.entries()) {
      const topK = [1, 10, 16, 40][q % 4]!;
      const args = { text, vector: new Float32Array(0), topK, filter: {}, alpha: 0 };
      const a = (await pruned.search(SPACE, args)).map((h) => [h.id, h.score]);
      const b = (await exhaustive.search(SPACE, args)).map((h) => [h.id, h.score]);
      assert.equal(b.length, topK);
      if (JSON.stringify(a) !== JSON.stringify(b)) differ++;
    }
    assert.equal(differ, 0, `${label}: ${differ} of ${queries.length} answers differ`);
  };
  // the bounds are computed here, at this average length (the rows are all frozen postings)
  await check('at the bounds’ average length');
  // longer rows without topics: the average grows by 1.6% (the bounds are kept, stretched by 1.016)
  const avg = total / rows;
  const count = 60;
  const length = Math.round((avg * 1.016 * (rows + count) - total) / count);
  await pruned.upsert(SPACE, itemsOf(Array.from({ length: count }, () => row(length, []))));
  const grown = (total + count * length) / (rows + count) / avg;
  assert.ok(grown > 1.01 && grown < 1.02, `average length grown by ${grown}`);
  await check('average length grown by 1.6%');
  await pruned.close();
  await exhaustive.close();
});
