/**
 * Search benchmark: relevance of the fusion methods on the relevance set, then the embedded vector store at
 * 10k and 100k synthetic chunks — index build rate, query latency (hybrid, vector-only, keyword-only,
 * owner-filtered), recall@10 against exact brute force, memory — and, for comparison, SQLite FTS5 bm25
 * queries over the same texts (the keyword design the store does not use, for the latency it measured).
 *
 *   node --conditions=quire-source --import tsx bench/search.ts [--sizes 10000,100000] [--queries 200] [--precision int8,f32] [--no-relevance] [--no-fts5]
 *
 * Single-threaded (one core). Not part of the tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EmbeddedVectorStore } from '@quire/plugin-vector-embedded';
import type { Fusion, Precision } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import type { VectorFilter, VectorItem } from '@quire/core';
import { PASSAGES, QUERIES, fillerText } from '../plugins/vector-embedded/test/fixtures/relevance.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const SIZES = arg('sizes', '10000,100000').split(',').map(Number);
const NQ = Number(arg('queries', '200'));
const PRECISIONS = arg('precision', 'int8,f32').split(',') as Precision[];
const RELEVANCE = !process.argv.includes('--no-relevance');
const FTS5 = !process.argv.includes('--no-fts5');
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
      const store = new EmbeddedVectorStore(dir, { fusion });
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

// ------------------------------------------------------------------ scale
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

async function scale(n: number) {
  const emb = createLocalEmbedder();
  const r = rng(n);
  const users = 50;
  // chunks: 20 per document; documents spread over 50 users (user u0 owns ~half), a third in organizations
  const texts = Array.from({ length: n }, (_, i) => fillerText(i + 1, 60 + Math.floor(r() * 100)));
  const docOf = (i: number) => `doc${Math.floor(i / 20)}`;
  const owner = (d: number) => (d % 2 === 0 ? 'u0' : `u${1 + (d % (users - 1))}`);
  const t0 = performance.now();
  const vecs: Float32Array[] = [];
  for (let i = 0; i < n; i += 1000) vecs.push(...(await emb.embed(texts.slice(i, i + 1000), 'document')));
  const embedRate = n / ((performance.now() - t0) / 1000);
  const items: VectorItem[] = texts.map((text, i) => {
    const d = Math.floor(i / 20);
    return { id: `${docOf(i)}:${i % 20}`, documentId: docOf(i), userId: owner(d), organizationId: d % 3 === 0 ? `org${d % 7}` : null, page: 1 + (i % 20), text, vector: vecs[i]! };
  });
  // exact brute force over unit vectors (they already are unit length)
  const dim = emb.dimension;
  const all = new Float32Array(n * dim);
  vecs.forEach((v, i) => all.set(v, i * dim));
  const qTexts = Array.from({ length: NQ }, (_, i) => (i % 4 === 0 ? QUERIES[i % QUERIES.length]!.q : fillerText(100_000_000 + i, 3 + (i % 6))));
  const qv = await emb.embed(qTexts, 'query');
  const brute = (q: Float32Array, keep: (i: number) => boolean) => {
    const best: { i: number; s: number }[] = [];
    for (let i = 0; i < n; i++) {
      if (!keep(i)) continue;
      let s = 0;
      const o = i * dim;
      for (let j = 0; j < dim; j++) s += all[o + j]! * q[j]!;
      if (best.length < 10 || s > best[9]!.s) {
        best.push({ i, s });
        best.sort((a, b) => b.s - a.s);
        if (best.length > 10) best.pop();
      }
    }
    return best.map((b) => items[b.i]!.id);
  };

  const dir = path.join(root, `scale-${n}`);
  const writer = new EmbeddedVectorStore(dir);
  const t1 = performance.now();
  for (let i = 0; i < n; i += 500) await writer.upsert(emb.space, items.slice(i, i + 500));
  const buildRate = n / ((performance.now() - t1) / 1000);
  await writer.close();
  const dbBytes = ['vectors.db', 'vectors.db-wal'].reduce((s, f) => s + (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0), 0);

  const results: (string | number)[][] = [];
  if (FTS5) results.push(...fts5(n, texts, items, qTexts));
  for (const precision of PRECISIONS) {
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const store = new EmbeddedVectorStore(dir, { precision });
    const tl = performance.now();
    await store.search(emb.space, { text: '', vector: qv[0]!, topK: 10, filter: {}, alpha: 1 });
    const loadMs = performance.now() - tl;
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
    for (const [label, alpha, filter] of modes) {
      const times: number[] = [];
      const wall: number[] = [];
      let recall = 0, recallN = 0;
      for (let q = 0; q < NQ; q++) {
        const t = performance.now();
        const c = process.cpuUsage();
        const hits = await store.search(emb.space, { text: qTexts[q]!, vector: qv[q]!, topK: 10, filter, alpha });
        const u = process.cpuUsage(c);
        times.push((u.user + u.system) / 1000);
        wall.push(performance.now() - t);
        if (alpha === 1 && q < 60 && qv[q]!.some((x) => x !== 0)) {
          // (a query of stop words only has the zero vector: nothing is similar, brute force ranks ties)
          const want = new Set(brute(qv[q]!, () => true));
          recall += hits.filter((h) => want.has(h.id)).length / Math.max(1, want.size);
          recallN++;
        }
      }
      results.push([n, precision, label, f1(pct(times, 50)), f1(pct(times, 95)), f1(pct(wall, 95)), recallN ? (recall / recallN).toFixed(3) : '', '']);
    }
    results.push([n, precision, `(cold load of the cache: ${f1(loadMs)} ms)`, '', '', '', '', `cache ${MB(cacheBytes)} MB, RSS +${MB(rss1 - rss0)} MB`]);
    await store.close();
  }
  return { n, embedRate, buildRate, dbBytes, results };
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
  console.log(`Quire search benchmark — ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${NQ} queries per mode, single thread`);
  if (RELEVANCE) await relevance();
  const build: (string | number)[][] = [];
  const lat: (string | number)[][] = [];
  for (const n of SIZES) {
    const s = await scale(n);
    build.push([n, Math.round(s.embedRate), Math.round(s.buildRate), MB(s.dbBytes), MB((s.dbBytes / n) * 100_000)]);
    lat.push(...s.results);
  }
  table('Index build (local embedder, 384 dims; upserts of 500 into SQLite, WAL)', ['chunks', 'embed chunks/s', 'index chunks/s', 'db MB', 'db MB per 100k'], build);
  table('Query latency (top 10; CPU time of the search, and wall-clock p95) and recall@10 of vector-only search vs exact brute force', ['chunks', 'cache', 'mode', 'p50 ms', 'p95 ms', 'wall p95 ms', 'recall@10', 'memory'], lat);
  console.log(`\nload average during the run: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores (wall-clock figures include waiting for a core)`);
}

await main();
