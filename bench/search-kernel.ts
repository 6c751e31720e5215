/**
 * The vector side's in-memory scan alone (no SQLite, no keyword side, no rescoring): the int8 cache of the
 * embedded store in its two layouts — `rows` (row-major, every query reads every value) and `columns`
 * (dimension-major blocks, a query reads its nonzero dimensions only) — over bench/search.ts's chunks and
 * queries, at the sizes asked for: CPU ms of one top-200 search (what the store rescores), one thread, and
 * whether both layouts give the same candidates.
 *
 *   QUIRE_CORPUS=… node --expose-gc --conditions=quire-source --import tsx bench/search-kernel.ts [--sizes 100000,300000,1000000] [--queries 200] [--cache DIR]
 *
 * The embeddings come from bench/search.ts's cache (written there when missing: a million take ~15 minutes).
 */
import os from 'node:os';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import type { Layout } from '../plugins/vector-embedded/src/kernel.js';
import { arg, benchCache, benchCacheDir, benchQueries, embeddings, pct } from './search-data.js';

const SIZES = arg('sizes', '100000,300000,1000000').split(',').map(Number);
const NQ = Number(arg('queries', '200'));
const CACHE_DIR = benchCacheDir();

const emb = createLocalEmbedder();
const qv = await emb.embed(benchQueries(NQ), 'query');
const nnz = qv.map((v) => v.reduce((s, x) => s + (x !== 0 ? 1 : 0), 0));
const { vectors } = await embeddings(CACHE_DIR, Math.max(...SIZES), emb);
const dim = emb.dimension;
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
