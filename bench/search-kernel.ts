/**
 * The vector side's in-memory scan alone (no SQLite, no keyword side, no rescoring): the int8 cache of the
 * embedded store in its two layouts — `rows` (row-major, every query reads every value) and `columns`
 * (dimension-major blocks, a query reads its nonzero dimensions only) — over bench/search.ts's chunks and
 * queries, at the sizes asked for: CPU ms of one top-200 search (what the store rescores), one thread, and
 * whether both layouts give the same candidates.
 *
 *   QUIRE_CORPUS=… node --expose-gc --conditions=quire-source --import tsx bench/search-kernel.ts [--sizes 100000,300000,1000000] [--queries 200] [--cache DIR]
 *
 * With `--mass 0.5,0.7,…` (and `--candidates 400`): the columns layout alone, its full scan against scans
 * reading only the query's heaviest dimensions holding that share of its squared norm (the store's
 * `pruneMass`), on the bench queries, the relevance set's questions and the chat's second searches
 * (`--chat 300` of them): CPU ms, dimensions read, and recall@10 of the candidates rescored exactly (from
 * the float32 vectors, as the store does) against the full scan's.
 *
 * The embeddings come from bench/search.ts's cache (written there when missing: a million take ~15 minutes).
 */
import os from 'node:os';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import type { Layout } from '../plugins/vector-embedded/src/kernel.js';
import { QUERIES } from '../plugins/vector-embedded/test/fixtures/relevance.js';
import { arg, benchCache, benchCacheDir, benchQueries, chatExpanded, chatQuestions, embeddings, pct } from './search-data.js';

const SIZES = arg('sizes', '100000,300000,1000000').split(',').map(Number);
const NQ = Number(arg('queries', '200'));
const CACHE_DIR = benchCacheDir();

const emb = createLocalEmbedder();
const qv = await emb.embed(benchQueries(NQ), 'query');
const nnz = qv.map((v) => v.reduce((s, x) => s + (x !== 0 ? 1 : 0), 0));
const { vectors } = await embeddings(CACHE_DIR, Math.max(...SIZES), emb);
const dim = emb.dimension;
const MASS = process.argv.includes('--mass') ? arg('mass', '').split(',').map(Number) : null;
if (MASS) {
  await pruneBench(MASS);
  process.exit(0);
}
const LAYOUTS: Layout[] = ['rows', 'columns'];
console.log(`| chunks | layout | p50 ms | p95 ms | p99 ms | ms per 1M rows and query dimension (median) | cache MB | same top 200 as rows |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const n of SIZES) {
  global.gc?.();
  const caches = LAYOUTS.map((layout) => benchCache(vectors, n, dim, layout));
  // the layouts in turn for each query (the machine's load changes during a run: both see the same)
  const times = LAYOUTS.map(() => [] as number[]), perDim = LAYOUTS.map(() => [] as number[]);
  let same = 0;
  for (let q = 0; q < NQ; q++) {
    const got = caches.map((cache, l) => {
      const c = process.cpuUsage();
      const r = cache.search(qv[q]!, 200, {});
      const u = process.cpuUsage(c);
      const ms = (u.user + u.system) / 1000;
      times[l]!.push(ms);
      perDim[l]!.push((ms / (LAYOUTS[l] === 'rows' ? dim : Math.max(1, nnz[q]!))) * (1e6 / n));
      return JSON.stringify(r);
    });
    if (got[0] === got[1]) same++;
  }
  LAYOUTS.forEach((layout, l) => {
    console.log(`| ${n} | ${layout} | ${pct(times[l]!, 50).toFixed(1)} | ${pct(times[l]!, 95).toFixed(1)} | ${pct(times[l]!, 99).toFixed(1)} | ${pct(perDim[l]!, 50).toFixed(3)} | ${(caches[l]!.matrix.bytes / 1048576).toFixed(0)} | ${layout === 'columns' ? `${same}/${NQ}` : ''} |`);
  });
}
console.log(`\nquery nonzero dimensions: median ${pct(nnz, 50)}, p95 ${pct(nnz, 95)} of ${dim}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);

/** the full columns scan against pruned ones (`--mass`), per query set */
async function pruneBench(masses: number[]) {
  const candidates = Number(arg('candidates', '400'));
  const chat = chatExpanded(await chatQuestions());
  const step = Math.max(1, Math.floor(chat.length / Number(arg('chat', '300'))));
  const sets: [string, Float32Array[]][] = [
    [`bench queries (${NQ})`, qv],
    [`relevance set questions (${QUERIES.length})`, await emb.embed(QUERIES.map((q) => q.q), 'query')],
    [`chat second searches (every ${step}th)`, await emb.embed(chat.filter((_, i) => i % step === 0), 'query')],
  ];
  // the exact top 10 of a scan's 200 candidates: their cosines from the float32 vectors
  const top10 = (q: Float32Array, rows: { rowid: number }[]) => {
    let qn = 0;
    for (let i = 0; i < dim; i++) qn += q[i]! * q[i]!;
    return rows.map(({ rowid }) => {
      const off = (rowid - 1) * dim;
      let s = 0, n = 0;
      for (let i = 0; i < dim; i++) (s += vectors[off + i]! * q[i]!), (n += vectors[off + i]! ** 2);
      return { rowid, s: s / Math.sqrt(n * qn || 1) };
    }).sort((a, b) => b.s - a.s || a.rowid - b.rowid).slice(0, 10).map((r) => r.rowid);
  };
  console.log(`| chunks | queries | mass | candidates | p50 ms | p95 ms | p99 ms | dims read median (p95) | recall@10 vs full (min) |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const n of SIZES) {
    global.gc?.();
    const cache = benchCache(vectors, n, dim, 'columns');
    for (const [label, qs] of sets) {
      const runs = [1, ...masses];
      const times = runs.map(() => [] as number[]), dims = runs.map(() => [] as number[]), recall = runs.map(() => [] as number[]);
      for (const q of qs) {
        let ref: number[] = [];
        runs.forEach((mass, r) => {
          const c = process.cpuUsage();
          const got = cache.search(q, 200, {}, mass < 1 ? { mass, candidates, minRows: 0 } : undefined);
          const u = process.cpuUsage(c);
          times[r]!.push((u.user + u.system) / 1000);
          dims[r]!.push(cache.matrix.queryDimensions ?? 0);
          const t = top10(q, got);
          if (r === 0) ref = t;
          recall[r]!.push(ref.length ? t.filter((x) => ref.includes(x)).length / ref.length : 1);
        });
      }
      runs.forEach((mass, r) => {
        const rc = recall[r]!, mean = rc.reduce((a, b) => a + b, 0) / rc.length;
        console.log(`| ${n} | ${label} | ${mass === 1 ? '1 (full)' : mass} | ${mass === 1 ? 200 : candidates} | ${pct(times[r]!, 50).toFixed(1)} | ${pct(times[r]!, 95).toFixed(1)} | ${pct(times[r]!, 99).toFixed(1)} | ${pct(dims[r]!, 50)} (${pct(dims[r]!, 95)}) | ${mass === 1 ? '' : `${mean.toFixed(3)} (${Math.min(...rc).toFixed(1)})`} |`);
      });
    }
  }
  console.log(`\nload average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
}
