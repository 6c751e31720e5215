import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { canRead, ownerScope } from '../infra/access.js';
import { errors } from '@quire/core';
import type { AnswerSource } from '@quire/core';
import { round } from '@quire/text';

/** A chunk retrieval found, with its score: the shape answerer plugins read as their sources. */
export type SearchHit = AnswerSource;

const terms = (s: string) => new Set((s.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []).filter((w) => w.length > 2 || /\d/.test(w)));

/**
 * Hybrid retrieval over the caller's chunks (their own and their organizations'), optionally restricted to
 * documents (a collection or knowledge base). Optional reranking re-scores the candidates by how much of
 * the query each one covers, and `threshold` drops weak hits.
 */
export async function searchChunks(
  rt: Engine,
  auth: AuthInfo,
  q: { query: string; documentIds?: string[]; limit: number; threshold?: number; reranking?: boolean },
): Promise<SearchHit[]> {
  const embedder = rt.registry.tryGet('embedder');
  const vectors = rt.registry.tryGet('vector-store');
  if (!embedder || !vectors) throw errors.unavailable('Search needs an embedder and a vector store plugin');
  if (q.documentIds && !q.documentIds.length) return [];
  const [vector] = await embedder.embed([q.query], 'query');
  const scope = ownerScope(auth);
  const candidates = q.reranking ? Math.min(100, q.limit * 4) : q.limit;
  let hits = await vectors.search(embedder.space, { text: q.query, vector: vector!, topK: candidates, filter: { ...scope, documentIds: q.documentIds } });
  if (q.reranking && hits.length > 1) {
    const qt = terms(q.query);
    hits = hits
      .map((h) => {
        const ct = terms(h.text);
        let covered = 0;
        for (const t of qt) if (ct.has(t)) covered++;
        const coverage = qt.size ? covered / qt.size : 0;
        return { ...h, score: 0.7 * h.score + 0.3 * coverage };
      })
      .sort((a, b) => b.score - a.score);
  }
  hits = hits.filter((h) => h.score >= (q.threshold ?? 0)).slice(0, q.limit);
  if (!hits.length) return [];
  const docs = await rt.store.repo('documents').find({ id: [...new Set(hits.map((h) => h.documentId))] });
  // the vector filter matches the caller's own rows by user_id: those of an organization they left are dropped here
  const names = new Map(docs.filter((d) => canRead(auth, d)).map((d) => [d.id, d.name]));
  // a document deleted a moment ago is gone from the results even if its vectors are still being removed
  return hits
    .filter((h) => names.has(h.documentId))
    .map((h) => ({ chunk_id: h.id, document_id: h.documentId, document_name: names.get(h.documentId)!, page: h.page, content: h.text, score: round(h.score, 4), metadata: h.metadata ?? {} }));
}
