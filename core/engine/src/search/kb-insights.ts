import type { CollectionRecord, DocumentRecord } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { canRead } from '../infra/access.js';
import { chunkRole } from '../io/steps.js';
import { QUESTION_WORDS, STOP_WORDS, round } from '@quire/text';

/** Words that say nothing of a document's topics: the shared stop and question words, and layout words. */
const LAYOUT_WORDS = new Set('page table figure first new old see two one day time long well good use way'.split(' '));
const isStop = (w: string) => STOP_WORDS.has(w) || QUESTION_WORDS.has(w) || LAYOUT_WORDS.has(w);

function tokens(text: string): string[] {
  return (text.toLowerCase().normalize('NFKC').match(/[\p{L}][\p{L}\p{N}]{2,}/gu) ?? []).filter((w) => !isStop(w));
}

async function documentText(rt: Engine, documentId: string, maxChunks = 60): Promise<string> {
  const rows = await rt.store.repo('chunks').find({ document_id: documentId }, { order: { idx: 'ASC' }, limit: maxChunks });
  // a document's topics are its body's: its running heads and footers (address, bank details) are left out
  return rows.filter((r) => chunkRole(r) !== 'furniture').map((r) => r.content).join('\n');
}

function termFreq(text: string): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

function weigh(tf: Map<string, number>, idf: Map<string, number>): Map<string, number> {
  const v = new Map<string, number>();
  let norm = 0;
  for (const [t, f] of tf) {
    const w = (1 + Math.log(f)) * (idf.get(t) ?? 1);
    v.set(t, w);
    norm += w * w;
  }
  norm = Math.sqrt(norm) || 1;
  for (const [t, w] of v) v.set(t, w / norm);
  return v;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let s = 0;
  const [small, big] = a.size < b.size ? [a, b] : [b, a];
  for (const [t, w] of small) s += w * (big.get(t) ?? 0);
  return s;
}

const top = (v: Map<string, number>, n: number) => [...v.entries()].sort((x, y) => y[1] - x[1]).slice(0, n).map(([t]) => t);

/**
 * Documents outside the knowledge base that cover its topics: TF-IDF profiles of the knowledge base and of
 * each candidate (the caller's completed documents), ranked by cosine similarity; the gap analysis names the
 * candidate's salient terms the knowledge base lacks and how much of the candidate is new to it.
 */
export async function suggestDocuments(rt: Engine, auth: AuthInfo, kb: CollectionRecord, limit: number) {
  const inKb = new Set((await rt.store.repo('collection_documents').find({ collection_id: kb.id })).map((l) => l.document_id));
  if (!inKb.size) return [];
  const own = await rt.store.repo('documents').find({ user_id: auth.user.id, status: 'completed' }, { order: { created_at: 'DESC' }, limit: 300 });
  const orgIds = auth.memberships.map((m) => m.organization_id);
  const org = orgIds.length ? await rt.store.repo('documents').find({ organization_id: orgIds, status: 'completed' }, { limit: 300 }) : [];
  const all = new Map<string, DocumentRecord>();
  for (const d of [...own, ...org]) if (canRead(auth, d)) all.set(d.id, d);
  const texts = new Map<string, Map<string, number>>();
  for (const d of all.values()) texts.set(d.id, termFreq(await documentText(rt, d.id)));
  for (const id of inKb) if (!texts.has(id)) texts.set(id, termFreq(await documentText(rt, id)));
  const df = new Map<string, number>();
  for (const tf of texts.values()) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = texts.size;
  const idf = new Map([...df].map(([t, c]) => [t, Math.log(1 + n / c)]));
  const kbTf = new Map<string, number>();
  for (const id of inKb) for (const [t, f] of texts.get(id) ?? []) kbTf.set(t, (kbTf.get(t) ?? 0) + f);
  const kbVec = weigh(kbTf, idf);
  const out = [];
  for (const d of all.values()) {
    if (inKb.has(d.id)) continue;
    const tf = texts.get(d.id)!;
    if (!tf.size) continue;
    const vec = weigh(tf, idf);
    const score = cosine(kbVec, vec);
    if (score < 0.05) continue;
    let newWeight = 0;
    let totalWeight = 0;
    for (const [t, w] of vec) {
      totalWeight += w * w;
      if (!kbTf.has(t)) newWeight += w * w;
    }
    const shared = top(new Map([...vec].filter(([t]) => kbTf.has(t)).map(([t, w]) => [t, w * (kbVec.get(t) ?? 0)])), 5);
    const missing = top(new Map([...vec].filter(([t]) => !kbTf.has(t))), 5);
    out.push({
      document_id: d.id,
      document_name: d.name,
      suggestion_reason: shared.length ? `Covers topics of this knowledge base: ${shared.join(', ')}` : 'Similar vocabulary to this knowledge base',
      relevance_score: round(score, 3),
      gap_analysis: { missing_topics: missing, coverage_improvement: round(totalWeight ? newWeight / totalWeight : 0, 3) },
    });
  }
  return out.sort((a, b) => b.relevance_score - a.relevance_score).slice(0, limit);
}

// ---- near-duplicates: MinHash over word 5-shingles ----
const HASHES = 128;
function fnv1a(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function minhash(text: string): Uint32Array {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const sig = new Uint32Array(HASHES).fill(0xffffffff);
  const k = Math.min(5, Math.max(1, words.length));
  for (let i = 0; i + k <= words.length; i++) {
    const shingle = words.slice(i, i + k).join(' ');
    const h1 = fnv1a(shingle, 0);
    const h2 = fnv1a(shingle, 0x9e3779b9) | 1;
    for (let j = 0; j < HASHES; j++) {
      const h = (h1 + Math.imul(j, h2)) >>> 0;
      if (h < sig[j]!) sig[j] = h;
    }
  }
  return sig;
}

export function jaccardEstimate(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  for (let i = 0; i < HASHES; i++) if (a[i] === b[i] && a[i] !== 0xffffffff) same++;
  return same / HASHES;
}

/** Which of `documentIds` are near-duplicates of documents already in the knowledge base (or of each other). */
export async function checkDuplicates(rt: Engine, kb: CollectionRecord, documentIds: string[], threshold = 0.8) {
  const inKb = (await rt.store.repo('collection_documents').find({ collection_id: kb.id })).map((l) => l.document_id);
  const sigs = new Map<string, Uint32Array>();
  const sigOf = async (id: string) => {
    if (!sigs.has(id)) sigs.set(id, minhash(await documentText(rt, id, 400)));
    return sigs.get(id)!;
  };
  const duplicates: { document_id: string; similar_to: string; similarity_score: number }[] = [];
  const unique: string[] = [];
  const seen: string[] = [];
  for (const id of documentIds) {
    const sig = await sigOf(id);
    let best: { id: string; score: number } | null = null;
    for (const other of [...inKb, ...seen]) {
      if (other === id) continue;
      const score = jaccardEstimate(sig, await sigOf(other));
      if (!best || score > best.score) best = { id: other, score };
    }
    if (best && best.score >= threshold) duplicates.push({ document_id: id, similar_to: best.id, similarity_score: round(best.score, 3) });
    else unique.push(id);
    seen.push(id);
  }
  return { duplicates, unique };
}

/** Query analytics of a knowledge base from its answered chat messages. */
export async function kbAnalytics(rt: Engine, kb: CollectionRecord, days: number, popularLimit: number, recentLimit: number) {
  const since = Date.now() - days * 86400_000;
  const rows = (await rt.store.repo('chat_messages').find({ knowledge_base_id: kb.id, role: 'assistant' }, { order: { created_at: 'DESC' } })).filter((m) => m.created_at.getTime() >= since);
  const avg = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 3) : 0);
  const popular = new Map<string, { query: string; count: number; conf: number[] }>();
  const usage = new Map<string, number>();
  for (const m of rows) {
    const q = (m.query ?? '').trim();
    if (q) {
      const key = q.toLowerCase().replace(/\s+/g, ' ');
      const p = popular.get(key) ?? { query: q, count: 0, conf: [] };
      p.count++;
      if (m.confidence !== null) p.conf.push(m.confidence);
      popular.set(key, p);
    }
    for (const c of (m.citations ?? []) as { document_id?: string }[]) if (c.document_id) usage.set(c.document_id, (usage.get(c.document_id) ?? 0) + 1);
  }
  const docs = usage.size ? await rt.store.repo('documents').find({ id: [...usage.keys()] }) : [];
  const names = new Map(docs.map((d) => [d.id, d.name]));
  return {
    summary: {
      total_queries: rows.length,
      avg_response_time_ms: Math.round(avg(rows.map((m) => m.response_time_ms ?? 0))),
      avg_confidence: avg(rows.filter((m) => m.confidence !== null).map((m) => m.confidence!)),
      feedback: { positive: rows.filter((m) => m.feedback === 'thumbs_up').length, negative: rows.filter((m) => m.feedback === 'thumbs_down').length },
    },
    popular_queries: [...popular.values()].sort((a, b) => b.count - a.count).slice(0, popularLimit).map((p) => ({ query: p.query, count: p.count, avg_confidence: avg(p.conf) })),
    recent_queries: rows.slice(0, recentLimit).map((m) => ({ query: m.query ?? '', timestamp: m.created_at.toISOString(), confidence: m.confidence })),
    document_usage: [...usage.entries()].sort((a, b) => b[1] - a[1]).map(([id, n]) => ({ document_id: id, document_name: names.get(id) ?? null, citation_count: n })),
  };
}
