/**
 * Passages of the sources, offline: the sentences of the documents' stored chunks (chat-text unitsOf:
 * hard-wrapped lines joined, list items, no table rows or headings, no sentence a chunk cuts off), scored
 * by centrality (LexRank-style: the mean TF-IDF cosine similarity of a sentence to all the others) and
 * optionally by how many terms of a query they share. Every passage keeps the chunk it comes from, so the
 * documents built from them cite real chunks.
 */
import type { GeneratedCitation } from '@quire/core';
import { terms, unitsOf } from '@quire/text';
import type { SourceDocument } from './sources.js';

export interface Passage {
  text: string;
  document_id: string;
  document_name: string;
  chunk_id: string;
  page: number;
  /** document order: source index, chunk index, offset in the chunk */
  order: [number, number, number];
}

/** sentences considered at most (the similarity matrix is quadratic) */
const MAX_CANDIDATES = 1500;

/** fewer sentences that end as sentences than this, and lines of prose without a full stop count too */
const MIN_SENTENCES = 3;

/**
 * The quotable sentences of the documents, in document order. A document written in lines without full
 * stops (a Word page of short paragraphs, a form's notes) has few: when the sources have fewer than
 * MIN_SENTENCES, lines of prose (at least 5 words, lower case, not cut off by the chunk) count too.
 */
export function sentencesOf(docs: SourceDocument[]): Passage[] {
  const strict: Passage[] = [];
  const loose: Passage[] = [];
  docs.forEach((d, di) => {
    for (const c of d.chunks) {
      // tables, and the running heads and footers (an address, bank details): no sentences to summarise
      if (c.metadata.type !== 'text' || c.metadata.role === 'furniture') continue;
      for (const u of unitsOf(c.content)) {
        if (u.kind !== 'sentence' || u.cut) continue;
        const words = u.text.split(/\s+/).length;
        // fragments, labels and run-on lines are no sentences to quote
        if (words < 5 || words > 90 || !/\p{Ll}/u.test(u.text)) continue;
        const p = { text: u.text, document_id: d.id, document_name: d.name, chunk_id: c.id, page: c.page, order: [di, c.index, u.start] as [number, number, number] };
        (/[.!?]["'”’)]*$/.test(u.text) ? strict : loose).push(p);
      }
    }
  });
  if (strict.length >= MIN_SENTENCES || !loose.length) return strict;
  return [...strict, ...loose].sort(byOrder);
}

type Vec = Map<string, number>;

function vectors(texts: string[]): Vec[] {
  const tfs = texts.map((t) => {
    const m: Vec = new Map();
    for (const w of terms(t)) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const m of tfs) for (const k of m.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  const n = texts.length;
  return tfs.map((m) => {
    const v: Vec = new Map();
    let norm = 0;
    for (const [k, tf] of m) {
      const w = (1 + Math.log(tf)) * Math.log(1 + n / df.get(k)!);
      v.set(k, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [k, w] of v) v.set(k, w / norm);
    return v;
  });
}

function cosine(a: Vec, b: Vec): number {
  const [s, l] = a.size < b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [k, w] of s) {
    const x = l.get(k);
    if (x) dot += w * x;
  }
  return dot;
}

const byOrder = (a: Passage, b: Passage) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2];

/**
 * How much a sentence states, 0–1: its figures (numbers, amounts, percentages, dates) and its named
 * entities (capitalised words after the first, acronyms). A summary ranks such sentences first, so the
 * loan survey's "45% … $33,200" comes before a sentence that only talks about the survey.
 */
export function factWeight(text: string): number {
  const figures = (text.match(/[$€£¥]?\d[\d,.]*(?:\s?(?:%|percent|per cent))?/giu) ?? []).length;
  const words = text.split(/\s+/).slice(1);
  const names = words.filter((w) => /^[\p{Lu}][\p{L}'’-]*[\p{L}]/u.test(w) && !/^(?:The|A|An|In|On|At|Of|And|But|For|This|That|These|Those|It|We|They|He|She|I)$/.test(w.replace(/[^\p{L}]/gu, ''))).length;
  return Math.min(1, figures / 2) * 0.65 + Math.min(1, names / 2) * 0.35;
}

/**
 * The `count` best passages, in document order: centrality, plus (with a query) the share of the query's
 * terms a sentence has, and (`facts`) half of that plus the weight of the figures and names it states
 * (factWeight), so sentences carrying figures and names rank first; a
 * sentence too like one already chosen (cosine > 0.6) is skipped.
 */
export function bestPassages(all: Passage[], count: number, query?: string, opts: { facts?: boolean; ranked?: boolean } = {}): Passage[] {
  if (!all.length || count <= 0) return [];
  // long documents: candidates spread evenly over the text
  const step = all.length > MAX_CANDIDATES ? all.length / MAX_CANDIDATES : 1;
  const cands = step > 1 ? Array.from({ length: MAX_CANDIDATES }, (_, i) => all[Math.floor(i * step)]!) : all;
  const vs = vectors(cands.map((p) => p.text));
  const central = vs.map((v, i) => {
    let s = 0;
    for (let j = 0; j < vs.length; j++) if (j !== i) s += cosine(v, vs[j]!);
    return vs.length > 1 ? s / (vs.length - 1) : 1;
  });
  const top = Math.max(...central) || 1;
  const q = query ? new Set(terms(query)) : null;
  const score = cands.map((p, i) => {
    let s = central[i]! / top;
    if (q?.size) {
      const own = new Set(terms(p.text));
      let hit = 0;
      for (const t of q) if (own.has(t)) hit++;
      s = 0.4 * s + 0.6 * (hit / q.size);
    }
    // facts first: what a sentence states outweighs how central it is
    if (opts.facts) s = 0.5 * s + factWeight(p.text);
    return s;
  });
  const ranked = cands.map((_, i) => i).sort((a, b) => score[b]! - score[a]! || byOrder(cands[a]!, cands[b]!));
  const chosen: number[] = [];
  for (const i of ranked) {
    if (chosen.length >= count) break;
    if (chosen.some((j) => cosine(vs[i]!, vs[j]!) > 0.6)) continue;
    chosen.push(i);
  }
  // `ranked`: best first (a caller that trims keeps the best), else in document order
  const out = chosen.map((i) => cands[i]!);
  return opts.ranked ? out : out.sort(byOrder);
}

/** Passages of one chunk that share the most terms with a query (ties: earlier first); the first ones when none does. */
export function passagesOfChunk(doc: { id: string; name: string }, chunk: { id: string; page: number; index: number; content: string }, query: string, count: number): Passage[] {
  const q = new Set(terms(query));
  const units = unitsOf(chunk.content).filter((u) => (u.kind === 'sentence' || u.kind === 'row') && u.text.split(/\s+/).length >= 3);
  const scored = units.map((u, i) => {
    const own = new Set(terms(`${u.context ?? ''} ${u.text}`));
    let hit = 0;
    for (const t of q) if (own.has(t)) hit++;
    return { u, i, hit };
  });
  const best = scored.some((s) => s.hit > 0) ? scored.filter((s) => s.hit > 0).sort((a, b) => b.hit - a.hit || a.i - b.i) : scored;
  return best
    .slice(0, count)
    .sort((a, b) => a.i - b.i)
    .map(({ u }) => ({ text: u.text, document_id: doc.id, document_name: doc.name, chunk_id: chunk.id, page: chunk.page, order: [0, chunk.index, u.start] as [number, number, number] }));
}

/** Numbers the sources a document cites, one number per chunk, in order of first use. */
export class Citations {
  readonly list: GeneratedCitation[] = [];
  private readonly byKey = new Map<string, number>();

  cite(p: { document_id: string | null; document_name: string; chunk_id: string | null; page: number | null; quote?: string }): number {
    const key = p.chunk_id ?? `${p.document_id}:${p.page}:${p.quote ?? ''}`;
    let n = this.byKey.get(key);
    if (n === undefined) {
      n = this.list.length + 1;
      this.byKey.set(key, n);
      this.list.push({ n, document_id: p.document_id, document_name: p.document_name, chunk_id: p.chunk_id, page: p.page, ...(p.quote ? { quote: shorten(p.quote, 160) } : {}) });
    }
    return n;
  }
}

export function shorten(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1).replace(/\s+\S*$/, '')}…` : t;
}
