/**
 * How much of the vector scan (the embedded store's int8 `columns` cache, top 200 as the store asks) bounds
 * could skip, at best, over bench/search.ts's chunks and queries:
 *
 * 1. Group bounds (issue 32's "per-block column maxima"): for groups of G consecutive rows (16 … 4,096, a
 *    block), each dimension's most and least value over the group (dequantised: int8 × the row's scale);
 *    the query's dot product with any row of the group is at most Σ q_d × (q_d > 0 ? most : least). The
 *    share of groups whose bound is not above the query's final 200th score (an oracle threshold: a real
 *    scan only knows it at the end) is the share such a scan could skip.
 * 2. A good threshold from the start (e.g. from the rows the keyword side found): CPU ms of the scan as the
 *    store runs it, with its top 200 seeded at the final 200th score (oracle), and the kernel alone (a
 *    threshold no row reaches: the per-row pass skips every 16 rows), in turn for each query.
 *
 *   QUIRE_CORPUS=… node --expose-gc --conditions=quire-source --import tsx bench/vector-bounds.ts [--sizes 300000,1000000] [--queries 200] [--cache DIR]
 *
 * The embeddings come from bench/search.ts's cache (written there when missing).
 */
import os from 'node:os';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { TopK } from '../plugins/vector-embedded/src/topk.js';
import { arg, benchCache, benchCacheDir, benchQueries, embeddings, pct } from './search-data.js';

const SIZES = arg('sizes', '300000,1000000').split(',').map(Number);
const NQ = Number(arg('queries', '200'));
const CACHE_DIR = benchCacheDir();
const K = 200, BLOCK = 4096, GROUPS = [16, 64, 256, 1024, 4096];
const cpu = (f: () => void) => {
  const c = process.cpuUsage();
  f();
  const u = process.cpuUsage(c);
  return (u.user + u.system) / 1000;
};

const emb = createLocalEmbedder();
const qv = await emb.embed(benchQueries(NQ), 'query');
const { vectors } = await embeddings(CACHE_DIR, Math.max(...SIZES), emb);
const dim = emb.dimension;
const bounds: (string | number)[][] = [], times: (string | number)[][] = [];
for (const n of SIZES) {
  global.gc?.();
  const cache = benchCache(vectors, n, dim, 'columns');
  const m = cache.matrix;
  const { rows, scales } = m.raw(n);
  const i8 = new Int8Array(rows.buffer, rows.byteOffset, rows.byteLength);
  // each dimension's most and least dequantised value per 16 rows (coarser groups: over their 16s)
  const g16 = Math.ceil(n / 16);
  const hi = new Float32Array(g16 * dim).fill(-Infinity), lo = new Float32Array(g16 * dim).fill(Infinity);
  for (let b = 0; b * BLOCK < n; b++) {
    const end = Math.min(BLOCK, n - b * BLOCK);
    for (let d = 0; d < dim; d++) {
      const col = b * BLOCK * dim + d * BLOCK;
      for (let r = 0; r < end; r++) {
        const pos = b * BLOCK + r, x = i8[col + r]! * scales[pos]!, at = (pos >> 4) * dim + d;
        if (x > hi[at]!) hi[at] = x;
        if (x < lo[at]!) lo[at] = x;
      }
    }
  }
  // the same per G rows (G a multiple of 16), from the 16s
  const levels = GROUPS.map((G) => {
    const per = G / 16, ng = Math.ceil(g16 / per);
    const h = new Float32Array(ng * dim).fill(-Infinity), l = new Float32Array(ng * dim).fill(Infinity);
    for (let j = 0; j < g16; j++) {
      const at = Math.floor(j / per) * dim;
      for (let d = 0; d < dim; d++) {
        if (hi[j * dim + d]! > h[at + d]!) h[at + d] = hi[j * dim + d]!;
        if (lo[j * dim + d]! < l[at + d]!) l[at + d] = lo[j * dim + d]!;
      }
    }
    return { ng, h, l };
  });
  const skippable = GROUPS.map(() => [] as number[]);
  const t = [[], [], []] as number[][];
  const allow = () => true;
  for (let q = 0; q < NQ; q++) {
    const res = cache.search(qv[q]!, K, {});
    const floor = res[res.length - 1]!.score;
    let norm = 0;
    for (const x of qv[q]!) norm += x * x;
    const unit = Array.from(qv[q]!, (x) => x / Math.sqrt(norm));
    const nz = unit.flatMap((x, d) => (x !== 0 ? [d] : []));
    levels.forEach(({ ng, h, l }, gi) => {
      let skip = 0;
      for (let g = 0; g < ng; g++) {
        let s = 0;
        for (const d of nz) s += unit[d]! * (unit[d]! > 0 ? h[g * dim + d]! : l[g * dim + d]!);
        if (s <= floor) skip++;
      }
      skippable[gi]!.push(skip / ng);
    });
    // the scan three ways, in turn
    m.setQuery(qv[q]!);
    t[0]!.push(cpu(() => m.scanInto(0, n, new TopK(K), allow)));
    const seeded = new TopK(K);
    for (let i = 0; i < K; i++) seeded.push(floor, -1 - i);
    t[1]!.push(cpu(() => m.scanInto(0, n, seeded, allow)));
    const none = new TopK(1);
    none.push(Infinity, -1);
    t[2]!.push(cpu(() => m.scanInto(0, n, none, allow)));
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  GROUPS.forEach((G, gi) => bounds.push([n, G, (100 * mean(skippable[gi]!)).toFixed(2), (100 * pct(skippable[gi]!, 50)).toFixed(2), (100 * Math.max(...skippable[gi]!)).toFixed(2)]));
  ['the store\'s scan (top 200 empty at the start)', 'top 200 seeded at the final 200th score (oracle)', 'kernel alone (no row passes the threshold)'].forEach((name, i) =>
    times.push([n, name, pct(t[i]!, 50).toFixed(2), pct(t[i]!, 95).toFixed(2)]));
}
const table = (title: string, head: string[], rs: (string | number)[][]) => {
  console.log(`\n${title}\n\n| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const r of rs) console.log(`| ${r.join(' | ')} |`);
};
table(`Groups a bound could skip with the final 200th score known from the start (${NQ} queries)`, ['rows', 'group rows', 'skippable % (mean)', 'median %', 'max %'], bounds);
table('The scan, CPU ms of one query (one thread)', ['rows', 'scan', 'p50', 'p95'], times);
console.log(`\nload average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
