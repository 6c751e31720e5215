/**
 * Search benchmark: relevance of the fusion methods on the relevance set, then the embedded vector store at
 * 100k, 300k and 1M synthetic chunks (text drawn from the corpus's ground-truth texts, vectors from the
 * default embedder) — database write rate, ANN index build time, cold start (open, load the rows and the
 * saved index, answer the first search), memory, query latency (hybrid, vector-only, keyword-only,
 * owner-filtered, documents) with the ANN index and with the exact scan, and recall@10 against the exact
 * scan — and, for comparison, SQLite FTS5 bm25 queries over the same texts (the keyword design the store
 * does not use).
 *
 *   QUIRE_CORPUS=… node --expose-gc --conditions=quire-source --import tsx bench/search.ts [--sizes 100000,300000,1000000]
 *     [--queries 200] [--recall-queries 100] [--ann f16|f32|i8] [--no-ann] [--layout columns|rows] [--prune-mass 0.85] [--prune-candidates 400] [--cache DIR] [--no-relevance] [--no-fts5]
 *
 * The store measured uses the int8 `--layout` (default columns) and `--prune-mass` (default the store's; 1: the exact scan); the reference ("exact" columns, recall) is
 * the exact row scan (`layout: 'rows'`, no ANN index).
 *
 * Embeddings and the written databases are kept in --cache (default <tmp>/quire-bench-search-cache): a
 * million chunks take minutes to embed and to write. Searches run on one thread (one core); the figures
 * are the CPU time of each search. Not part of the tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULTS, EmbeddedVectorStore } from '@quire/plugin-vector-embedded';
import type { AnnQuantization, Fusion, Layout } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import type { VectorFilter, VectorItem } from '@quire/core';
import { PASSAGES, QUERIES, fillerText } from '../plugins/vector-embedded/test/fixtures/relevance.js';
import { chunkText, embeddings, embeddingsFile, queryText } from './search-data.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const CACHE_DIR = arg('cache', path.join(os.tmpdir(), 'quire-bench-search-cache'));
const SIZES = arg('sizes', '100000,300000,1000000').split(',').map(Number);
const NQ = Number(arg('queries', '200'));
/** queries per mode whose answers are compared with the exact scan's */
const RECALL_Q = Number(arg('recall-queries', '100'));
const QUANT = arg('ann', 'f16') as AnnQuantization;
const RELEVANCE = !process.argv.includes('--no-relevance');
const FTS5 = !process.argv.includes('--no-fts5');
/** --no-ann: no graph is built or loaded (cold start and latency of the exact scan only) */
const ANN = !process.argv.includes('--no-ann');
const LAYOUT = arg('layout', 'columns') as Layout;
const PRUNE = { pruneMass: Number(arg('prune-mass', String(DEFAULTS.pruneMass))), pruneCandidates: Number(arg('prune-candidates', String(DEFAULTS.pruneCandidates))) };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-search-'));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const f1 = (x: number) => x.toFixed(1);
const MB = (b: number) => (b / 1048576).toFixed(1);
function table(title: string, head: string[], rows: (string | number)[][]) {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r: (string | number)[]) => '| ' + r.map((c, i) => String(c).padEnd(w[i]!)).join(' | ') + ' |';
  console.log(`\n${title}\n${line(head)}\n|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

// ------------------------------------------------------------------ relevance
async function relevance() {
  const rows: (string | number)[][] = [];
  for (const dim of [384, 768]) {
    const emb = createLocalEmbedder({ dimension: dim });
    const corpus = [...PASSAGES, ...Array.from({ length: 2000 }, (_, i) => ({ id: `f${i}`, text: fillerText(i, 40 + (i % 80)) }))];
    const t0 = performance.now();
    const vecs = await emb.embed(corpus.map((c) => c.text), 'document');
    const rate = corpus.length / ((performance.now() - t0) / 1000);
    const dir = path.join(root, `rel-${dim}`);
    const setup = new EmbeddedVectorStore(dir);
    await setup.upsert(emb.space, corpus.map((c, i) => ({ id: c.id, documentId: c.id, userId: 'u', organizationId: null, page: 1, text: c.text, vector: vecs[i]! })));
    await setup.close();
    const qv = await emb.embed(QUERIES.map((q) => q.q), 'query');
    const runs: [Fusion, number][] = [['rrf', 0], ['rrf', 1], ['rrf', 0.3], ['rrf', 0.5], ['rrf', 0.7], ['relative', 0.3], ['relative', 0.5], ['relative', 0.7], ['weighted', 0.3], ['weighted', 0.5], ['weighted', 0.7]];
    for (const [fusion, alpha] of runs) {
      const store = new EmbeddedVectorStore(dir, { fusion, ...PRUNE });
      let mrr = 0, r1 = 0, r5 = 0;
      for (let i = 0; i < QUERIES.length; i++) {
        const hits = await store.search(emb.space, { text: QUERIES[i]!.q, vector: qv[i]!, topK: 10, filter: {}, alpha });
        const rank = hits.findIndex((h) => h.id === QUERIES[i]!.relevant) + 1;
        if (rank) mrr += 1 / rank;
        if (rank === 1) r1++;
        if (rank && rank <= 5) r5++;
      }
      await store.close();
      const n = QUERIES.length;
      const label = alpha === 0 ? 'keyword only (BM25)' : alpha === 1 ? 'vector only' : `${fusion} α=${alpha}`;
      rows.push([dim, label, (mrr / n).toFixed(3), (r1 / n).toFixed(2), (r5 / n).toFixed(2), Math.round(rate)]);
    }
  }
  table(`Relevance: ${QUERIES.length} paraphrased queries, ${PASSAGES.length} passages + 2000 filler chunks (local embedder)`, ['dim', 'method', 'MRR@10', 'R@1', 'R@5', 'embed/s'], rows);
}

async function scale(n: number) {
  const emb = createLocalEmbedder();
  const users = 50;
  // chunks: 20 per document; documents spread over 50 users (user u0 owns ~half), a third in organizations
  const docOf = (i: number) => `doc${Math.floor(i / 20)}`;
  const owner = (d: number) => (d % 2 === 0 ? 'u0' : `u${1 + (d % (users - 1))}`);
  const { vectors: all, rate: embedRate } = await embeddings(CACHE_DIR, n, emb);
  const dim = emb.dimension;
  const item = (i: number): VectorItem => {
    const d = Math.floor(i / 20);
    return { id: `${docOf(i)}:${i % 20}`, documentId: docOf(i), userId: owner(d), organizationId: d % 3 === 0 ? `org${d % 7}` : null, page: 1 + (i % 20), text: chunkText(i), vector: all.subarray(i * dim, (i + 1) * dim) };
  };
  const qTexts = Array.from({ length: NQ }, (_, i) => queryText(i));
  const qv = await emb.embed(qTexts, 'query');

  // the database is kept in the cache directory between runs (it takes minutes to write at 1M)
  const dir = path.join(CACHE_DIR, `store-${path.basename(embeddingsFile(CACHE_DIR, emb))}-${n}`);
  let buildRate: number | null = null;
  const probe = new EmbeddedVectorStore(dir, { ann: false });
  const have = await probe.count(emb.space);
  await probe.close();
  if (have !== n) {
    fs.rmSync(dir, { recursive: true, force: true });
    const writer = new EmbeddedVectorStore(dir, { ann: false });
    const t1 = performance.now();
    for (let i = 0; i < n; i += 1000) await writer.upsert(emb.space, Array.from({ length: Math.min(1000, n - i) }, (_, k) => item(i + k)));
    buildRate = n / ((performance.now() - t1) / 1000);
    await writer.checkpoint();
    await writer.close();
  }
  const dbBytes = ['vectors.db', 'vectors.db-wal'].reduce((s, f) => s + (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0), 0);

  // ANN build from scratch (the worker thread reads the database and writes the index file)
  fs.rmSync(path.join(dir, 'ann'), { recursive: true, force: true });
  let annBuildS = 0, annBuildCpuS = 0, cacheLoadS = 0, annBytes = 0;
  if (ANN) {
  const builder = new EmbeddedVectorStore(dir, { annQuantization: QUANT });
  const tb = performance.now();
  await builder.search(emb.space, { text: '', vector: qv[0]!, topK: 10, filter: {}, alpha: 1 });
  const tb1 = performance.now();
  const cb = process.cpuUsage();
  if (!(await builder.annReady(emb.space))) throw new Error('no ANN index was built');
  annBuildS = (performance.now() - tb1) / 1000;
  const cbu = process.cpuUsage(cb);
  // (the main thread waits meanwhile: the process's CPU time is the build thread's)
  annBuildCpuS = (cbu.user + cbu.system) / 1e6;
  cacheLoadS = (tb1 - tb) / 1000;
  await builder.close();
  annBytes = fs.readdirSync(path.join(dir, 'ann')).filter((f) => f.endsWith('.usearch')).reduce((s, f) => s + fs.statSync(path.join(dir, 'ann', f)).size, 0);
  }

  const results: (string | number)[][] = [];
  if (FTS5) results.push(...fts5(n, Array.from({ length: n }, (_, i) => chunkText(i)), Array.from({ length: n }, (_, i) => item(i)), qTexts));
  global.gc?.();
  // the exact scan: the reference of recall, and the latency before the ANN index
  const exact = new EmbeddedVectorStore(dir, { ann: false, layout: 'rows', snapshot: false });
  const rssE0 = process.memoryUsage().rss;
  await exact.search(emb.space, { text: '', vector: qv[0]!, topK: 10, filter: {}, alpha: 1 });
  const exactRss = process.memoryUsage().rss - rssE0;
  // cold start: open, load the rows (from SQLite: no cache snapshot) and the saved ANN index, answer the first search
  fs.rmSync(path.join(dir, 'cache'), { recursive: true, force: true });
  const tc = performance.now();
  const first = new EmbeddedVectorStore(dir, { ann: ANN, annQuantization: QUANT, layout: LAYOUT, ...PRUNE });
  const want = await first.search(emb.space, { text: qTexts[1]!, vector: qv[1]!, topK: 10, filter: {}, alpha: 0.5 });
  const coldS = (performance.now() - tc) / 1000;
  await first.close();
  // again, from the cache snapshot the first load (or close) wrote
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const ts = performance.now();
  const store = new EmbeddedVectorStore(dir, { ann: ANN, annQuantization: QUANT, layout: LAYOUT, ...PRUNE });
  const got = await store.search(emb.space, { text: qTexts[1]!, vector: qv[1]!, topK: 10, filter: {}, alpha: 0.5 });
  const coldSnapS = (performance.now() - ts) / 1000;
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error('the first search from the snapshot differs from the one from SQLite');
  if (ANN && !store.stats().spaces[0]!.annRows) throw new Error('the saved ANN index was not loaded');
  const rss1 = process.memoryUsage().rss;
  const cacheBytes = store.stats().spaces[0]!.cacheBytes;
  const modes: [string, number, VectorFilter][] = [
    ['hybrid α=0.5', 0.5, {}],
    ['vector only', 1, {}],
    ['keyword only', 0, {}],
    ['hybrid, owner scope (u0 + org)', 0.5, { userId: 'u0', organizationIds: ['org3'] }],
    ['hybrid, owner scope (small user)', 0.5, { userId: 'u7' }],
    ['hybrid, 10 documents', 0.5, { documentIds: Array.from({ length: 10 }, (_, k) => `doc${k * 37}`) }],
  ];
  const timed = async (s: EmbeddedVectorStore, q: number, alpha: number, filter: VectorFilter) => {
    const t = performance.now();
    const c = process.cpuUsage();
    const hits = await s.search(emb.space, { text: qTexts[q]!, vector: qv[q]!, topK: 10, filter, alpha });
    const u = process.cpuUsage(c);
    return { hits, cpu: (u.user + u.system) / 1000, wall: performance.now() - t };
  };
  for (const [label, alpha, filter] of modes) {
    const times: number[] = [], wall: number[] = [], before: number[] = [];
    const recalls: number[] = [];
    for (let q = 0; q < NQ; q++) {
      const a = await timed(store, q, alpha, filter);
      times.push(a.cpu);
      wall.push(a.wall);
      if (q < RECALL_Q || (label.startsWith('hybrid α') && q < NQ)) {
        // (a query of stop words only has the zero vector: nothing is similar, the exact scan ranks ties)
        const e = await timed(exact, q, alpha, filter);
        before.push(e.cpu);
        if (q < RECALL_Q && alpha > 0 && qv[q]!.some((x) => x !== 0)) {
          const want = e.hits.map((h) => h.id);
          const got = new Set(a.hits.map((h) => h.id));
          if (want.length) recalls.push(want.filter((id) => got.has(id)).length / want.length);
        }
      }
    }
    const rec = recalls.length ? (recalls.reduce((s, x) => s + x, 0) / recalls.length).toFixed(3) + ` (min ${Math.min(...recalls).toFixed(1)})` : '';
    results.push([n, label, f1(pct(times, 50)), f1(pct(times, 95)), f1(pct(times, 99)), f1(pct(wall, 95)), f1(pct(before, 50)), f1(pct(before, 95)), rec]);
  }
  await store.close();
  await exact.close();
  return { n, embedRate, buildRate, dbBytes, annBuildS, annBuildCpuS, cacheLoadS, annBytes, coldS, coldSnapS, cacheBytes, rss: rss1 - rss0, exactRss, results };
}

/**
 * The alternative measured for the keyword side: SQLite FTS5 (external content table, porter tokenizer),
 * bm25() ordered with LIMIT, joined to the row table for the space and owner filters.
 */
function fts5(n: number, texts: string[], items: VectorItem[], qTexts: string[]): (string | number)[][] {
  const db = new Database(path.join(root, `fts5-${n}.db`));
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE v (rowid INTEGER PRIMARY KEY, space TEXT, user_id TEXT, text TEXT);
    CREATE VIRTUAL TABLE f USING fts5 (text, content='v', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');`);
  const ins = db.prepare('INSERT INTO v (rowid, space, user_id, text) VALUES (?, ?, ?, ?)');
  const fins = db.prepare('INSERT INTO f (rowid, text) VALUES (?, ?)');
  const t0 = performance.now();
  db.transaction(() => texts.forEach((t, i) => {
    ins.run(i + 1, 's', items[i]!.userId, t);
    fins.run(i + 1, t);
  }))();
  const rate = n / ((performance.now() - t0) / 1000);
  const stop = new Set(['the', 'of', 'and', 'to', 'in', 'a', 'is', 'that', 'for', 'it', 'as', 'was', 'with', 'be', 'by', 'on', 'not', 'he', 'this', 'are', 'or', 'his', 'from', 'at', 'which', 'but', 'have', 'an', 'they', 'you', 'were', 'her', 'she', 'there', 'been', 'one', 'all', 'we', 'their', 'has', 'would', 'when', 'if', 'so', 'no', 'will', 'who', 'up', 'them', 'some', 'could', 'what', 'its', 'into', 'than', 'other', 'only', 'about', 'these', 'then', 'any', 'our', 'most', 'such', 'where', 'many', 'before', 'those', 'must', 'through', 'because', 'each', 'under', 'how', 'do', 'does', 'can', 'i', 'more', 'out', 'also', 'may', 'after', 'over', 'between']);
  const match = (q: string) => [...new Set(q.toLowerCase().match(/[a-z0-9]+/g) ?? [])].filter((w) => !stop.has(w)).map((w) => `"${w}"`).join(' OR ');
  const rows: (string | number)[][] = [];
  const variants: [string, string][] = [
    ['FTS5 bm25, space filter (join)', `SELECT v.rowid, bm25(f) s FROM f JOIN v ON v.rowid = f.rowid WHERE f MATCH ? AND v.space = 's' ORDER BY s LIMIT 50`],
    ['FTS5 bm25, owner scope (join)', `SELECT v.rowid, bm25(f) s FROM f JOIN v ON v.rowid = f.rowid WHERE f MATCH ? AND v.space = 's' AND v.user_id = 'u7' ORDER BY s LIMIT 50`],
    ['FTS5 bm25, no filter', `SELECT rowid, bm25(f) s FROM f WHERE f MATCH ? ORDER BY s LIMIT 50`],
  ];
  for (const [label, sql] of variants) {
    const st = db.prepare(sql);
    const times: number[] = [];
    const wall: number[] = [];
    for (const q of qTexts) {
      const m = match(q);
      if (!m) continue;
      const t = performance.now();
      const c = process.cpuUsage();
      st.all(m);
      const u = process.cpuUsage(c);
      times.push((u.user + u.system) / 1000);
      wall.push(performance.now() - t);
    }
    rows.push([n, 'sqlite', label, f1(pct(times, 50)), f1(pct(times, 95)), f1(pct(wall, 95)), '', `(FTS5 insert ${Math.round(rate)}/s)`]);
  }
  db.close();
  return rows;
}

async function main() {
  console.log(`Quire search benchmark — ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${NQ} queries per mode, single thread, ANN graph ${ANN ? QUANT : 'off'}, int8 layout ${LAYOUT}, prune mass ${PRUNE.pruneMass} (${PRUNE.pruneCandidates} candidates) (reference: the row scan)`);
  if (RELEVANCE) await relevance();
  const build: (string | number)[][] = [];
  const lat: (string | number)[][] = [];
  for (const n of SIZES) {
    const s = await scale(n);
    build.push([n, s.embedRate ? Math.round(s.embedRate) : '(cached)', s.buildRate ? Math.round(s.buildRate) : '(kept)', MB(s.dbBytes), f1(s.annBuildS), f1(s.annBuildCpuS), MB(s.annBytes), f1(s.cacheLoadS), f1(s.coldS), f1(s.coldSnapS), MB(s.cacheBytes), MB(s.rss), MB(s.exactRss)]);
    lat.push(...s.results);
    // the tables so far after each size (a million chunks take long)
    tables(build, lat);
  }
}

function tables(build: (string | number)[][], lat: (string | number)[][]) {
  table('Index build and memory (default embedder, 384 dims)', ['chunks', 'embed chunks/s', 'db write chunks/s', 'db MB', 'ANN build wall s', 'ANN build CPU s', 'ANN file MB', 'rows load s', 'cold start s', 'cold start from snapshot s', 'cache MB', 'RSS with ANN MB (snapshot load)', 'RSS exact only MB'], build);
  table(`Query latency, top 10, CPU ms of one search (one core); recall@10 against the exact scan (${RECALL_Q} queries)`, ['chunks', 'mode', 'p50', 'p95', 'p99', 'wall p95', 'exact p50', 'exact p95', 'recall@10'], lat);
  console.log(`\nload average: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores (wall-clock figures include waiting for a core)`);
}

await main();
