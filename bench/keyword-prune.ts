/**
 * The keyword side alone: BM25 over n synthetic chunks (bench/search-data.ts's texts), the pruned search
 * (MaxScore with the block bounds, and with the terms' bounds only) against the exhaustive walk on the same
 * queries, in turn — CPU ms per search and whether every answer is the same. Not part of the tests.
 *
 *   QUIRE_CORPUS=… node --conditions=quire-source --import tsx bench/keyword-prune.ts [--rows 300000] [--queries 400] [--k 50] [--recent 0]
 *
 * --recent r: the last r rows are added one by one after the index of the others is built (recent postings
 * the searches read besides the frozen ones, as after inserts since the load; fewer than the index's merge
 * threshold, so they stay recent). The first 50 queries run once each way before the timed searches.
 */
import { KeywordIndex } from '@quire/plugin-vector-embedded';
import { blobTerms, queryTerms, termsBlob } from '../plugins/vector-embedded/src/text.js';
import { chunkText, queryText } from './search-data.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : Number(dflt);
};
const ROWS = arg('rows', '300000'), NQ = arg('queries', '400'), K = arg('k', '50'), RECENT = arg('recent', '0');
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const idx = new KeywordIndex();
idx.build(Array.from({ length: ROWS - RECENT }, (_, i) => blobTerms(termsBlob(chunkText(i)))));
for (let i = ROWS - RECENT; i < ROWS; i++) idx.add(i, blobTerms(termsBlob(chunkText(i))));
const queries = Array.from({ length: NQ }, (_, i) => queryTerms(queryText(i)));
const allow = () => true;
const cpu = (f: () => unknown) => {
  const c = process.cpuUsage();
  const r = f();
  const u = process.cpuUsage(c);
  return { r, ms: (u.user + u.system) / 1000 };
};
const first = cpu(() => idx.search(queries[0]!, K, allow)); // the terms' bounds are computed at the first search
// the first 50 queries once in each way before the timed ones (the compiler's warm-up, not the searches')
for (const q of queries.slice(0, 50)) for (const [ex, bl] of [[true, true], [false, false], [false, true]]) {
  idx.exhaustive = ex!;
  idx.blocks = bl!;
  idx.search(q, K, allow);
}
const times = { exhaustive: [] as number[], 'term bounds': [] as number[], 'block bounds': [] as number[] };
let same = 0;
const slow: [number, number, number, number][] = [];
for (const [qi, q] of queries.entries()) {
  idx.exhaustive = true;
  const a = cpu(() => idx.search(q, K, allow));
  idx.exhaustive = false;
  idx.blocks = false;
  const b = cpu(() => idx.search(q, K, allow));
  idx.blocks = true;
  const c = cpu(() => idx.search(q, K, allow));
  times.exhaustive.push(a.ms);
  times['term bounds'].push(b.ms);
  times['block bounds'].push(c.ms);
  slow.push([qi, a.ms, b.ms, c.ms]);
  const ra = JSON.stringify(a.r);
  if (ra === JSON.stringify(b.r) && ra === JSON.stringify(c.r)) same++;
}
const st = idx.state();
console.log(`${ROWS} rows (${RECENT} of them added after the build; ${st.hashes.length} terms, ${st.post.length} postings), ${NQ} queries, k ${K}: same answers ${same}/${NQ}`);
console.log(`first search (computes every term's bound): ${first.ms.toFixed(1)} ms CPU`);
for (const [m, t] of Object.entries(times)) console.log(`${m.padEnd(12)} CPU ms p50 ${pct(t, 50).toFixed(2)} p95 ${pct(t, 95).toFixed(2)} p99 ${pct(t, 99).toFixed(2)}`);
const ratio = slow.map(([, , b, c]) => c / Math.max(b, 0.01));
console.log(`block / term bounds, per query: p10 ${pct(ratio, 10).toFixed(2)} p50 ${pct(ratio, 50).toFixed(2)} p90 ${pct(ratio, 90).toFixed(2)}`);
console.log('slowest with the term bounds (query, its terms, ms exhaustive / term bounds / block bounds):');
for (const [qi, a, b, c] of slow.sort((x, y) => y[2] - x[2]).slice(0, 5)) console.log(`  ${qi} (${queries[qi]!.length} terms) ${a.toFixed(2)} / ${b.toFixed(2)} / ${c.toFixed(2)}`);
