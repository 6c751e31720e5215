/**
 * The synthetic texts of bench/search.ts (chunks and queries drawn from the corpus's ground-truth texts),
 * shared with bench/query-nnz.ts, bench/search-kernel.ts and bench/vector-bounds.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { labelExpansion, questionTerms, synonymWordsOf } from '@quire/text';
import { SpaceCache } from '../plugins/vector-embedded/src/cache.js';
import type { Layout } from '../plugins/vector-embedded/src/kernel.js';
import { QUERIES, fillerText } from '../plugins/vector-embedded/test/fixtures/relevance.js';

export function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------ synthetic chunks from the corpus's text
const CORPUS = process.env.QUIRE_CORPUS ?? path.resolve(import.meta.dirname, '../../shared/corpus');

/** The word stream of the corpus's ground-truth texts (markdown and plain text), or null without a corpus. */
export function corpusWords(): string[] | null {
  const dir = path.join(CORPUS, 'groundtruth');
  if (!fs.existsSync(dir)) return null;
  const words: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(md|txt)$/.test(e.name)) words.push(...(fs.readFileSync(p, 'utf8').match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu) ?? []));
    }
  };
  walk(dir);
  return words.length > 1000 ? words : null;
}

let WORDS: string[] | null | undefined;
/** the corpus's word stream (read once), or null without a corpus */
/**
 * Chunk i's text, the same at every size: runs of 4–15 consecutive words taken at random places of the
 * corpus's texts (its vocabulary, word frequencies and local word order), 60–160 words in all; without a
 * corpus, the relevance fixture's Zipf filler.
 */
export function chunkText(i: number): string {
  if (WORDS === undefined) WORDS = corpusWords();
  const r = rng(i * 2654435761 + 12345);
  const len = 60 + Math.floor(r() * 100);
  if (!WORDS) return fillerText(i + 1, len);
  const out: string[] = [];
  while (out.length < len) {
    const at = Math.floor(r() * (WORDS.length - 16));
    const run = 4 + Math.floor(r() * 12);
    for (let k = 0; k < run && out.length < len; k++) out.push(WORDS[at + k]!);
  }
  return out.join(' ');
}

/** A query: 2–8 corpus words (a phrase or loose keywords), a quarter of them the relevance set's questions. */
export function queryText(i: number): string {
  if (i % 4 === 0) return QUERIES[(i / 4) % QUERIES.length]!.q;
  if (WORDS === undefined) WORDS = corpusWords();
  const r = rng(777_000_000 + i);
  const len = 2 + Math.floor(r() * 7);
  if (!WORDS) return fillerText(100_000_000 + i, len);
  if (i % 2) {
    const at = Math.floor(r() * (WORDS.length - 10));
    return WORDS.slice(at, at + len).join(' ');
  }
  return Array.from({ length: len }, () => WORDS![Math.floor(r() * WORDS!.length)]!).join(' ');
}

/** bench/search.ts's first n queries */
export function benchQueries(n: number): string[] {
  return Array.from({ length: n }, (_, i) => queryText(i));
}

/** the chat benches' questions (bench/chat-*.ts) */
export async function chatQuestions(): Promise<string[]> {
  const chat: string[] = [];
  for (const f of ['heldout', 'fresh', 'blind', 'blind2', 'blind3', 'blind4', 'blind5', 'blind6', 'blind7', 'blind8', 'blind9']) {
    const m = (await import(`./chat-${f}.js`)) as { QUESTIONS: { q: string }[] };
    chat.push(...m.QUESTIONS.map((q) => q.q));
  }
  return chat;
}

/** the chat's second searches (core/engine/src/chat/service.ts, retrieve): each question and up to 12 words of its terms' synonyms (those with any) */
export function chatExpanded(questions: string[]): string[] {
  return questions.map((question) => {
    const qTerms = questionTerms(question);
    const primary = new Set(qTerms.map((t) => t.term));
    const lists = qTerms.map((t) => synonymWordsOf(t.term).filter((w) => !primary.has(w)));
    const interleaved = new Set<string>();
    for (let i = 0, longest = Math.max(0, ...lists.map((l) => l.length)); i < longest; i++) for (const l of lists) if (i < l.length) interleaved.add(l[i]!);
    const expansion = [...new Set([...labelExpansion(question, 6), ...interleaved])].slice(0, 12);
    return expansion.length ? `${question} ${expansion.join(' ')}` : null;
  }).filter((q): q is string => q !== null);
}

/**
 * The first n chunks' vectors from the default embedder, cached on disk (a float32 file per corpus/embedder
 * signature, extended as larger sizes are asked for), since embedding a million chunks takes minutes.
 */
export function embeddingsFile(cacheDir: string, emb: ReturnType<typeof createLocalEmbedder>): string {
  if (WORDS === undefined) WORDS = corpusWords();
  const sig = createHash('sha256').update(`${emb.space}\n${WORDS ? WORDS.length + WORDS.slice(0, 5000).join(' ') : 'filler'}\nv1`).digest('hex').slice(0, 12);
  return path.join(cacheDir, `chunks-${sig}.f32`);
}

export async function embeddings(cacheDir: string, n: number, emb: ReturnType<typeof createLocalEmbedder>): Promise<{ vectors: Float32Array; rate: number | null }> {
  fs.mkdirSync(cacheDir, { recursive: true });
  const file = embeddingsFile(cacheDir, emb);
  const dim = emb.dimension;
  const have = fs.existsSync(file) ? Math.floor(fs.statSync(file).size / (dim * 4)) : 0;
  const vectors = new Float32Array(n * dim);
  if (have) {
    const fd = fs.openSync(file, 'r');
    fs.readSync(fd, new Uint8Array(vectors.buffer), 0, Math.min(have, n) * dim * 4, 0);
    fs.closeSync(fd);
  }
  if (have >= n) return { vectors, rate: null };
  const t0 = performance.now();
  const fd = fs.openSync(file, 'a');
  for (let i = have; i < n; i += 2000) {
    const m = Math.min(2000, n - i);
    const vs = await emb.embed(Array.from({ length: m }, (_, k) => chunkText(i + k)), 'document');
    vs.forEach((v, k) => vectors.set(v, (i + k) * dim));
    fs.writeSync(fd, new Uint8Array(vectors.buffer, i * dim * 4, m * dim * 4));
    if ((i / 2000) % 50 === 0) console.error(`embedded ${i + m}/${n}`);
  }
  fs.closeSync(fd);
  return { vectors, rate: (n - have) / ((performance.now() - t0) / 1000) };
}

/** The embedded store's int8 in-memory cache of the first `n` vectors (one user, 16 rows a document), no SQLite. */
export function benchCache(vectors: Float32Array, n: number, dim: number, layout: Layout): SpaceCache {
  const cache = new SpaceCache('s', dim, 'int8', true, layout);
  for (let i = 0; i < n; i += 4096) {
    const rows = [];
    for (let k = i; k < Math.min(n, i + 4096); k++) rows.push({ rowid: k + 1, documentId: `d${k >> 4}`, userId: 'u', organizationId: null, vector: vectors.subarray(k * dim, (k + 1) * dim), terms: null });
    cache.addRows(rows, true);
  }
  cache.finishLoad();
  return cache;
}

/** `--name value` from the command line, else `dflt` */
export const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
/** bench/search.ts's cache directory (`--cache`) */
export const benchCacheDir = (): string => arg('cache', path.join(os.tmpdir(), 'quire-bench-search-cache'));
export const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
