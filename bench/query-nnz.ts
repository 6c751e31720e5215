/**
 * How many of the default embedder's 384 dimensions a query's vector uses (nonzero): bench/search.ts's
 * synthetic queries, the relevance set's questions, the corpus search questions and the chat benches'
 * questions (alone, and with the chat's second search in other words, which appends synonyms).
 *
 *   QUIRE_CORPUS=… node --conditions=quire-source --import tsx bench/query-nnz.ts
 */
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { labelExpansion, questionTerms, synonymWordsOf } from '@quire/text';
import { QUERIES } from '../plugins/vector-embedded/test/fixtures/relevance.js';
import { QUESTIONS as CORPUS_QUESTIONS } from '../test/fixtures/corpus-search.js';
import { benchQueries } from './search-data.js';

const sets: [string, string[]][] = [];
sets.push(['bench/search.ts queries (200)', benchQueries(200)]);
sets.push(['relevance set questions', QUERIES.map((q) => q.q)]);
sets.push(['corpus search questions', CORPUS_QUESTIONS.map((q) => q[0])]);
const chat: string[] = [];
for (const f of ['heldout', 'fresh', 'blind', 'blind2', 'blind3', 'blind4', 'blind5', 'blind6', 'blind7', 'blind8', 'blind9']) {
  const m = (await import(`./chat-${f}.js`)) as { QUESTIONS: { q: string }[] };
  chat.push(...m.QUESTIONS.map((q) => q.q));
}
sets.push([`chat bench questions (${chat.length})`, chat]);
// the chat's second search (core/engine/src/chat/service.ts, retrieve): the question and up to 12 words of its terms' synonyms
const expanded = chat.map((question) => {
  const qTerms = questionTerms(question);
  const primary = new Set(qTerms.map((t) => t.term));
  const lists = qTerms.map((t) => synonymWordsOf(t.term).filter((w) => !primary.has(w)));
  const interleaved = new Set<string>();
  for (let i = 0, longest = Math.max(0, ...lists.map((l) => l.length)); i < longest; i++) for (const l of lists) if (i < l.length) interleaved.add(l[i]!);
  const expansion = [...new Set([...labelExpansion(question, 6), ...interleaved])].slice(0, 12);
  return expansion.length ? `${question} ${expansion.join(' ')}` : null;
}).filter((q): q is string => q !== null);
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
