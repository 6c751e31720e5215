/**
 * How many of the default embedder's 384 dimensions a query's vector uses (nonzero): bench/search.ts's
 * synthetic queries, the relevance set's questions, the corpus search questions and the chat benches'
 * questions (alone, and with the chat's second search in other words, which appends synonyms).
 *
 *   QUIRE_CORPUS=… node --conditions=quire-source --import tsx bench/query-nnz.ts
 */
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { QUERIES } from '../plugins/vector-embedded/test/fixtures/relevance.js';
import { QUESTIONS as CORPUS_QUESTIONS } from '../test/fixtures/corpus-search.js';
import { benchQueries, chatExpanded, chatQuestions } from './search-data.js';

const sets: [string, string[]][] = [];
sets.push(['bench/search.ts queries (200)', benchQueries(200)]);
sets.push(['relevance set questions', QUERIES.map((q) => q.q)]);
sets.push(['corpus search questions', CORPUS_QUESTIONS.map((q) => q[0])]);
const chat = await chatQuestions();
sets.push([`chat bench questions (${chat.length})`, chat]);
const expanded = chatExpanded(chat);
sets.push([`chat second searches, question + synonyms (${expanded.length})`, expanded]);

const emb = createLocalEmbedder();
const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
console.log(`| queries | n | nonzero dims of ${emb.dimension}: min | p25 | median | p75 | p95 | max | words median |`);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [label, texts] of sets) {
  const vs = await emb.embed(texts, 'query');
  const nnz = vs.map((v) => v.reduce((s, x) => s + (x !== 0 ? 1 : 0), 0)).sort((a, b) => a - b);
  const words = texts.map((t) => t.split(/\s+/).filter(Boolean).length).sort((a, b) => a - b);
  console.log(`| ${label} | ${texts.length} | ${nnz[0]} | ${pct(nnz, 25)} | ${pct(nnz, 50)} | ${pct(nnz, 75)} | ${pct(nnz, 95)} | ${nnz[nnz.length - 1]} | ${pct(words, 50)} |`);
}
