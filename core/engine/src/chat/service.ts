import { randomUUID } from 'node:crypto';
import { NOT_FOUND_ANSWER, errors, isQuireError, z } from '@quire/core';
import type { AnswerChunk, AnswerRequest, AnswerResult, AnswerTermStats, ChatMessageRecord, ChatSessionRecord, CollectionRecord, DocumentRecord, LlmMessage, Owned } from '@quire/core';
import { canRead, loadOwned } from '../infra/access.js';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { KbSettingsSchema, loadCollection } from '../search/collections.js';
import type { KbSettings } from '../search/collections.js';
import { searchChunks } from '../search/service.js';
import { chunkRole, hitMetadata } from '../io/steps.js';
import type { SearchHit } from '../search/service.js';
import { KIND_TERMS, LOWER_WORD, LanguageCounts, codeLikeness, decompose, holdsNames, isFollowUp, kindWords, labelExpansion, parseJsonObject, questionTerms, quoteInText, round, synonymWordsOf, termSet, unsupportedNumbers } from '@quire/text';
import { holdCredits } from '../infra/credits.js';
import { receiptFieldAnswer } from './receipt-field.js';
import type { CreditHold } from '../infra/credits.js';

export type ChatMode = 'quick' | 'deep' | 'code';
export const CHAT_MODES = ['quick', 'deep', 'code'] as const;

/** The answer when the sources do not support one (declared with the answerer plugins' kind). */
export { NOT_FOUND_ANSWER };

/** A cited passage: the search hit it came from. */
export type ChatCitation = SearchHit;

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  message: string;
  knowledgeBaseId: string;
  sessionId?: string | null;
  mode?: ChatMode;
  /** earlier turns; when absent and a session is given, the session's stored turns are used */
  history?: ChatTurn[];
  /** extra instructions for the LLM (e.g. an OpenAI client's system message); never loosen the grounding */
  instructions?: string;
  signal?: AbortSignal;
  /** called once the ids are known, before any text */
  onStart?: (info: { session_id: string; message_id: string; mode: ChatMode; knowledge_base_id: string }) => void | Promise<void>;
  /** called with each piece of the answer as it is produced (the checked LLM answer's words, or the answerer's sentences) */
  onDelta?: (text: string) => void | Promise<void>;
}

export interface ChatAnswer {
  session_id: string;
  message_id: string;
  knowledge_base_id: string;
  message: string;
  citations: ChatCitation[];
  confidence: number;
  mode: ChatMode;
  response_time_ms: number;
  created_at: string;
  /** token counts: the LLM's (or the answerer plugin's) own, or estimates (4 characters a token) */
  usage: { prompt_tokens: number; completion_tokens: number; credits: number };
  /** true when the sources did not support an answer */
  unanswered: boolean;
  /** what the answer is: `value` (a typed value, one sentence or one table cell), `passage` (quoted sentences), `none` (the refusal) */
  answer_type: AnswerResult['answer_type'];
  /**
   * Every quote and number of an LLM answer was found in its cited sources (one that fails the check is replaced
   * by the answerer plugin's answer); an answerer plugin's answer cites only passages it was given (the offline
   * answerer quotes them verbatim). False when an answerer cited anything else (its confidence is then at most 0.3).
   */
  grounded: boolean;
  /** `llm`, or `offline`: the active answerer plugin (QUIRE_ANSWERER) answered (no LLM configured, or the LLM failed or was not borne out by the sources) */
  answered_by: 'llm' | 'offline';
  /** with an LLM configured and answered_by `offline`: `llm_unavailable` (errors after retries) or `ungrounded` */
  fallback_reason: 'llm_unavailable' | 'ungrounded' | null;
}

// ---------------------------------------------------------------- sessions

/** A session of the caller (someone else's is not found). */
/**
 * A chat session for the caller, by the one access rule (infra/access.ts): the caller's own, or one of
 * their organization's (members read it; continuing or deleting it is a write: its creator, or an owner or
 * admin). Anyone else's is a 404.
 */
export async function loadSession(rt: Engine, auth: AuthInfo, id: string, mode: 'read' | 'write' = 'read'): Promise<ChatSessionRecord> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw errors.notFound('chat session', id);
  return loadOwned(rt.store, 'chat_sessions', id, auth, mode, 'chat session');
}

/** The stored turns of a session, oldest first. */
export async function sessionMessages(rt: Engine, sessionId: string): Promise<ChatMessageRecord[]> {
  const rows = await rt.store.repo('chat_messages').find({ session_id: sessionId }, { order: { created_at: 'ASC' } });
  // a turn's user message and answer may share a timestamp: the question comes first
  return rows.map((r, i) => ({ r, i })).sort((a, b) => a.r.created_at.getTime() - b.r.created_at.getTime() || (a.r.role === b.r.role ? a.i - b.i : a.r.role === 'user' ? -1 : 1)).map((x) => x.r);
}

/**
 * The caller's own chat sessions (of one knowledge base when given), newest activity first; those in an
 * organization the caller has left are no longer theirs to see.
 */
export async function readableSessions(rt: Engine, auth: AuthInfo, knowledgeBaseId?: string): Promise<ChatSessionRecord[]> {
  const where = { user_id: auth.user.id, ...(knowledgeBaseId ? { knowledge_base_id: knowledgeBaseId } : {}) };
  return (await rt.store.repo('chat_sessions').find(where, { order: { updated_at: 'DESC' } })).filter((s) => canRead(auth, s));
}

/** How many messages a session holds. */
export async function messageCount(rt: Engine, sessionId: string): Promise<number> {
  return rt.store.repo('chat_messages').count({ session_id: sessionId });
}

/** Records the caller's thumbs up or down on one of their answers in a knowledge base (404 for any other message). */
export async function rateAnswer(rt: Engine, auth: AuthInfo, kb: CollectionRecord, messageId: string, feedback: 'thumbs_up' | 'thumbs_down'): Promise<ChatMessageRecord> {
  const msg = await rt.store.repo('chat_messages').get(messageId);
  if (!msg || msg.knowledge_base_id !== kb.id || msg.role !== 'assistant' || msg.user_id !== auth.user.id) throw errors.notFound('message', messageId);
  await rt.store.repo('chat_messages').update(msg.id, { feedback });
  return { ...msg, feedback };
}

export function apiSession(s: ChatSessionRecord, messageCount?: number) {
  return { id: s.id, knowledge_base_id: s.knowledge_base_id, title: s.title, ...(messageCount !== undefined ? { message_count: messageCount } : {}), created_at: s.created_at.toISOString(), updated_at: s.updated_at.toISOString() };
}

export function apiMessage(m: ChatMessageRecord) {
  return {
    id: m.id,
    session_id: m.session_id,
    role: m.role,
    content: m.content,
    ...(m.role === 'assistant' ? { query: m.query, mode: m.mode, citations: m.citations ?? [], confidence: m.confidence, response_time_ms: m.response_time_ms, feedback: m.feedback } : {}),
    created_at: m.created_at.toISOString(),
  };
}

export async function deleteSession(rt: Engine, s: ChatSessionRecord): Promise<void> {
  await rt.store.transaction(async (tx) => {
    await tx.repo('chat_messages').delete({ session_id: s.id });
    await tx.repo('chat_sessions').delete(s.id);
  });
}

// ---------------------------------------------------------------- term statistics of a knowledge base

interface DocStats {
  chunks: number;
  df: Map<string, number>;
  /**
   * terms of the document's name, kind and language: a question may name the document ("the Coolblue invoice") or describe it
   * ("the short RTF file", "the Arabic article")
   */
  nameTerms: Set<string>;
  /** words the document writes in lower case: capitalised, they are not names ("Invoice", "Commission") */
  lower: Set<string>;
}
const STATS_CACHE_MAX = 500;
const statsCache = new Map<string, DocStats>();

/** Chunk-level document frequencies of a document's terms, cached per document version. */
async function docStats(rt: Engine, doc: DocumentRecord): Promise<DocStats> {
  const key = `${doc.id}:${doc.updated_at.getTime()}`;
  const hit = statsCache.get(key);
  if (hit) {
    statsCache.delete(key);
    statsCache.set(key, hit);
    return hit;
  }
  const rows = await rt.store.repo('chunks').find({ document_id: doc.id });
  const df = new Map<string, number>();
  const lower = new Set<string>();
  const language = new LanguageCounts();
  for (const r of rows) {
    for (const t of termSet(r.content)) df.set(t, (df.get(t) ?? 0) + 1);
    for (const m of r.content.matchAll(LOWER_WORD)) lower.add(m[0]);
    language.add(r.content);
  }
  const name = doc.name.replace(/\.[a-z0-9]{2,5}$/i, '').replace(/[_.-]+/g, ' ').replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, '$1$3 $2$4');
  const stats = { chunks: rows.length, df, nameTerms: new Set([...termSet(name), ...kindWords(doc.file_type), ...language.terms()]), lower };
  statsCache.set(key, stats);
  while (statsCache.size > STATS_CACHE_MAX) statsCache.delete(statsCache.keys().next().value!);
  return stats;
}

/** The knowledge base's term statistics (what retrieval and the answerer weigh a question's terms by). */
async function kbTerms(rt: Engine, docs: DocumentRecord[]): Promise<AnswerTermStats> {
  const stats = await Promise.all(docs.map((d) => docStats(rt, d)));
  const lower = new Set<string>();
  for (const s of stats) for (const w of s.lower) lower.add(w);
  return {
    chunks: stats.reduce((a, s) => a + s.chunks, 0),
    df: (t) => stats.reduce((a, s) => a + (s.df.get(t) ?? 0), 0),
    documents: new Map(docs.map((d, i) => [d.id, { has: (t: string) => stats[i]!.df.has(t) || stats[i]!.nameTerms.has(t), names: (t: string) => stats[i]!.nameTerms.has(t) }])),
    lower,
  };
}

// ---------------------------------------------------------------- retrieval


/** at most this many synonyms of the question's words are added to its search */
const MAX_EXPANSION = 12;

function retrievalDepth(mode: ChatMode, s: KbSettings): number {
  const k = s.retrieval.top_k;
  if (mode === 'quick') return k;
  if (mode === 'deep') return Math.min(50, Math.max(k * 2, 8));
  return Math.min(50, Math.max(k * 3, 10)); // code: a wider pool, re-ranked by code-likeness below
}

/** a hit shorter than this is a fragment (a label, a line of a form): the chunks around it may hold the rest */
const FRAGMENT_CHARS = 200;
/** how many of the best hits have their neighbours added, and the share of the hit's score a neighbour gets */
const FRAGMENT_HITS = 3;
const NEIGHBOUR_SCORE = 0.8;

/**
 * The chunks right before and after the best hits that are fragments: a form or an invoice split into small
 * chunks puts a label and its value ("Bill to Address:" / "ATTN: …") or a record's lines in neighbouring chunks,
 * which the search may not find as they share few words with the question.
 */
async function neighbours(rt: Engine, hits: SearchHit[]): Promise<SearchHit[]> {
  const have = new Set(hits.map((h) => h.chunk_id));
  const out = new Map<string, SearchHit>();
  for (const h of hits.slice(0, FRAGMENT_HITS)) {
    if (h.content.length >= FRAGMENT_CHARS) continue;
    // the chunk's position, as the index stage gives every vector (metadata { type, index })
    const idx = h.metadata.index;
    if (typeof idx !== 'number' || !Number.isInteger(idx)) continue;
    const rows = await rt.store.repo('chunks').find({ document_id: h.document_id, idx: [idx - 1, idx + 1] });
    for (const r of rows) {
      if (have.has(r.id) || out.has(r.id)) continue;
      // the furniture chunks come after the body's: the last body chunk is no neighbour of theirs
      if (chunkRole(r) !== h.metadata.role) continue;
      // a hit like the search's own: its metadata is what the index stage stores with the vector
      out.set(r.id, { chunk_id: r.id, document_id: r.document_id, document_name: h.document_name, page: r.page, content: r.content, score: round(h.score * NEIGHBOUR_SCORE, 4), metadata: hitMetadata(r) });
    }
  }
  return [...out.values()];
}

/** at most this many documents are described by a question's word (one that more fit describes none of them) */
const MAX_DESCRIBED = 3;
/** the share of the best hit's score a described document's chunk gets, times its own score in the search of those documents */
const DESCRIBED_SCORE = 0.8;

/**
 * The documents a question describes by their names, kinds or languages (docStats' nameTerms): those that the most of the
 * question's terms name, counting only a term that names a few of the knowledge base's documents (MAX_DESCRIBED), not all, and a
 * kind or a language only as a name, capitalised.
 */
function describedDocuments(qTerms: { term: string; entity: boolean }[], docIds: string[], docTerms: AnswerTermStats['documents']): string[] {
  const count = new Map<string, number>();
  for (const { term: t, entity } of qTerms) {
    // ("the word duck" describes no Word file)
    if (KIND_TERMS.has(t) && !entity) continue;
    const naming = docIds.filter((id) => docTerms.get(id)?.names(t));
    if (!naming.length || naming.length > MAX_DESCRIBED || naming.length === docIds.length) continue;
    for (const id of naming) count.set(id, (count.get(id) ?? 0) + 1);
  }
  const most = Math.max(0, ...count.values());
  const described = [...count].filter(([, n]) => n === most).map(([id]) => id);
  return most && described.length <= MAX_DESCRIBED ? described : [];
}

/**
 * The passages of the knowledge base's documents a question finds: deep mode searches the whole question and each of
 * its parts and merges them; quick mode adds a second search in other words of its terms, a search of the documents the
 * question describes (by name, kind or language) that the others found nothing of, and the chunks around the best hits that
 * are fragments; code mode re-ranks a wider pool by code-likeness.
 */
async function retrieve(rt: Engine, auth: AuthInfo, question: string, mode: ChatMode, settings: KbSettings, docIds: string[], context: string | undefined, docTerms?: AnswerTermStats['documents']): Promise<SearchHit[]> {
  const depth = retrievalDepth(mode, settings);
  const search = (q: string, ids = docIds) => searchChunks(rt, auth, { query: q, documentIds: ids, limit: depth, threshold: settings.retrieval.threshold, reranking: settings.retrieval.reranking });
  const withContext = (q: string) => (context ? `${q} ${context}` : q);
  if (mode === 'deep') {
    const partTexts = decompose(question);
    const lists = await Promise.all([question, ...(partTexts.length > 1 ? partTexts : [])].map((q) => search(withContext(q))));
    // merge: a chunk found for several parts keeps its best score plus a small bonus per extra part
    const merged = new Map<string, SearchHit & { n: number }>();
    for (const list of lists)
      for (const h of list) {
        const prev = merged.get(h.chunk_id);
        if (!prev) merged.set(h.chunk_id, { ...h, n: 1 });
        else merged.set(h.chunk_id, { ...prev, score: Math.max(prev.score, h.score), n: prev.n + 1 });
      }
    const hits = [...merged.values()]
      .map(({ n, ...h }) => ({ ...h, score: Math.min(1, round(h.score * (1 + 0.05 * (n - 1)), 3)) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, Math.min(50, depth * Math.max(1, partTexts.length)));
    return hits;
  }
  let hits = await search(withContext(question));
  // the sources may say it in other words ("must be paid" / "amount due"): a second search in those words adds what the first missed
  // (taken in turn from each term's words, so that every term of the question is phrased otherwise within the limit)
  const qTerms = questionTerms(question);
  const primary = new Set(qTerms.map((t) => t.term));
  const lists = qTerms.map((t) => synonymWordsOf(t.term).filter((w) => !primary.has(w)));
  const interleaved = new Set<string>();
  for (let i = 0, longest = Math.max(0, ...lists.map((l) => l.length)); i < longest; i++) for (const l of lists) if (i < l.length) interleaved.add(l[i]!);
  // (a business label the question names is searched for in the other languages' words first: "invoice number" / "Factuurnummer")
  const expansion = [...new Set([...labelExpansion(question, MAX_EXPANSION / 2), ...interleaved])].slice(0, MAX_EXPANSION);
  if (expansion.length && mode !== 'code') {
    const seen = new Set(hits.map((h) => h.chunk_id));
    // a sentence from a document without the question's names is about something else (candidatesFor): the search in other
    // words looks only in the documents that have them, where the first search's best hits from elsewhere cannot crowd them out
    const names = qTerms.filter((t) => t.entity).map((t) => t.term);
    const named = docTerms ? docIds.filter(holdsNames(names, docTerms)) : docIds;
    const more = (await search(withContext(`${question} ${expansion.join(' ')}`), named.length ? named : docIds)).filter((h) => !seen.has(h.chunk_id));
    hits = [...hits, ...more.slice(0, Math.ceil(depth / 2))];
  }
  // a question may describe its document by its name, kind or language in words its text does not say ("the short RTF file",
  // "the Arabic article", "the Word file"): the documents it describes that the searches above found nothing of are searched on
  // their own, and their best chunks added below the hits
  if (mode !== 'code' && docTerms) {
    const found = new Set(hits.map((h) => h.document_id));
    const missing = describedDocuments(qTerms, docIds, docTerms).filter((id) => !found.has(id));
    if (missing.length) {
      const seen = new Set(hits.map((h) => h.chunk_id));
      const top = hits[0]?.score ?? 1;
      const more = (await search(withContext(expansion.length ? `${question} ${expansion.join(' ')}` : question), missing)).filter((h) => !seen.has(h.chunk_id));
      hits = [...hits, ...more.slice(0, Math.ceil(depth / 2)).map((h) => ({ ...h, score: round(h.score * top * DESCRIBED_SCORE, 4) }))];
    }
  }
  if (mode !== 'code') hits = [...hits, ...(await neighbours(rt, hits))];
  if (mode === 'code') {
    hits = hits
      .map((h) => ({ h, s: h.score * (1 + 0.6 * codeLikeness(h.content)) }))
      .sort((a, b) => b.s - a.s)
      .map((x) => x.h)
      .slice(0, Math.max(settings.retrieval.top_k, 5));
  }
  return hits;
}


// ---------------------------------------------------------------- LLM answers

const SOURCE_CHARS = 1800;

function systemPrompt(mode: ChatMode, instructions?: string): string {
  const lines = [
    'You answer questions about a knowledge base using ONLY the numbered sources in the user message.',
    'Cite every statement with the number of its source in square brackets, e.g. [1] or [2][3]. Cite only sources you used.',
    `If the sources do not contain the answer, reply exactly: ${NOT_FOUND_ANSWER}`,
    'Never use outside knowledge, never invent facts, numbers or citations.',
    // the offline answerer's lesson: a label without its value ("TOTAL AMOUNT DUE") is no answer
    'Answer with what the question asks for: the name for "who", the date for "when", the amount or number for "how much" and "how many". If the sources name the thing asked about but not that value, reply exactly the sentence above.',
  ];
  if (mode === 'quick') lines.push('Be brief: one to three sentences.');
  if (mode === 'deep') lines.push('The question may have several parts: answer each part in turn, saying which parts the sources do not cover.');
  if (mode === 'code') lines.push('Answer with code: quote or adapt code from the sources in fenced Markdown code blocks with a language tag, with a short explanation.');
  if (instructions?.trim()) lines.push('', 'Further instructions from the caller (the rules above take precedence):', instructions.trim().slice(0, 4000));
  return lines.join('\n');
}

function sourcesBlock(hits: SearchHit[]): string {
  return hits.map((h, i) => `[${i + 1}] ${h.document_name}, page ${h.page} (chunk ${h.chunk_id})\n${h.content.length > SOURCE_CHARS ? `${h.content.slice(0, SOURCE_CHARS)}…` : h.content}`).join('\n\n');
}

/**
 * Rewrites the model's source numbers into the numbering of the citations list (order of first use), while
 * text streams through: a marker split across deltas is held back until it is complete.
 */
class MarkerRenumberer {
  private pending = '';
  readonly used: number[] = [];
  constructor(private readonly sources: number) {}

  push(text: string): string {
    this.pending += text;
    let out = '';
    for (;;) {
      const open = this.pending.indexOf('[');
      if (open < 0) {
        out += this.pending;
        this.pending = '';
        return out;
      }
      out += this.pending.slice(0, open);
      this.pending = this.pending.slice(open);
      const m = this.pending.match(/^\[([\d,\s]*)(\]?)/);
      if (!m || (!m[2] && m[0].length < this.pending.length) || (!m[2] && m[0].length > 12)) {
        // not a marker: pass the bracket on
        out += '[';
        this.pending = this.pending.slice(1);
        continue;
      }
      if (!m[2]) return out; // incomplete marker: wait for more text
      const nums = m[1]!.split(/[,\s]+/).filter(Boolean).map(Number);
      if (!nums.length || nums.some((n) => !Number.isInteger(n))) {
        out += m[0];
        this.pending = this.pending.slice(m[0].length);
        continue;
      }
      out += nums
        .filter((n) => n >= 1 && n <= this.sources)
        .map((n) => {
          let i = this.used.indexOf(n);
          if (i < 0) i = this.used.push(n) - 1;
          return `[${i + 1}]`;
        })
        .join('');
      this.pending = this.pending.slice(m[0].length);
    }
  }

  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }
}

/** The JSON the model answers with: its answer (with [n] markers), the verbatim quotes it rests on, its kind. */
const ANSWER_SCHEMA = {
  type: 'object',
  properties: {
    answer: { type: 'string', description: 'the answer, citing sources as [n]' },
    answer_type: { type: 'string', enum: ['value', 'passage', 'none'], description: 'value: one fact; passage: sentences of the sources; none: the sources do not answer' },
    quotes: {
      type: 'array',
      description: 'the passages of the sources the answer rests on, copied verbatim',
      items: { type: 'object', properties: { source: { type: 'integer' }, text: { type: 'string' } }, required: ['source', 'text'], additionalProperties: false },
    },
  },
  required: ['answer', 'answer_type', 'quotes'],
  additionalProperties: false,
} as const;

const JSON_RULES = [
  'Reply with one JSON object: {"answer": the answer with its [n] citations, "answer_type": "value" | "passage" | "none", "quotes": [{"source": n, "text": "..."}]}.',
  'Each quote is a passage copied verbatim from source n that supports the answer; every number in the answer must be printed in a quoted or cited source. When the sources do not answer, give answer_type "none", no quotes and the sentence above as the answer.',
].join(' ');

/** An answer as the engine presents it (the LLM's or the answerer plugin's), its citations the host's own copies of the sources. */
interface Composed {
  answerType: AnswerResult['answer_type'];
  text: string;
  citations: ChatCitation[];
  confidence: number;
  /** 0 when unknown: the host estimates it */
  promptTokens: number;
  completionTokens: number;
  /** false when the answerer cited passages it was not given, or wrote a number none of its cited sources has */
  grounded: boolean;
  /** who wrote the answer: the LLM (checked against its sources) or the answerer plugin */
  answeredBy?: 'llm' | 'offline';
  /** why an LLM was configured but the answerer plugin answered */
  fallbackReason?: 'llm_unavailable' | 'ungrounded';
}

const clamp = (x: number, lo = 0, hi = 1) => Math.min(hi, Math.max(lo, x));
const tokensOf = (s: string) => Math.ceil(s.length / 4);

/** Why the model's answer was not used: it failed (after its retries), or the sources do not bear it out. */
type LlmOutcome = Composed | { fallback: 'llm_unavailable' | 'ungrounded'; detail: string };

/**
 * Checks a model's JSON answer against the sources it cites: every quote must be in its source (normalised,
 * within a small edit distance), every number of the answer printed in a cited source. Returns the
 * problem, or null when the answer is grounded.
 */
function groundingProblem(answer: string, quotes: { source: number; text: string }[], sources: SearchHit[], cited: SearchHit[]): string | null {
  if (!quotes.length) return 'the answer quotes no source';
  for (const q of quotes) {
    const hit = sources[q.source - 1];
    if (!hit) return `a quote names source ${q.source}, which was not given`;
    if (!quoteInText(hit.content, q.text)) return `the quote "${q.text.slice(0, 80)}" is not in source ${q.source}`;
  }
  const missing = unsupportedNumbers(answer.replace(/\[\d+\]/g, ' '), cited.map((h) => h.content));
  if (missing.length) return `the number ${missing.slice(0, 3).join(', ')} is in no cited source`;
  return null;
}

async function composeWithLlm(rt: Engine, hits: SearchHit[], req: ChatRequest, mode: ChatMode, history: ChatTurn[], refusal: () => Composed): Promise<LlmOutcome> {
  const llm = rt.registry.get('llm');
  if (!hits.length) return refusal();
  const sources = hits.slice(0, mode === 'deep' ? 12 : 8);
  const messages: LlmMessage[] = [{ role: 'system', content: `${systemPrompt(mode, req.instructions)}\n${JSON_RULES}` }];
  // earlier answers' markers point at earlier sources: left out so they are not read as the numbers below
  for (const t of history.slice(-6)) messages.push({ role: t.role, content: t.content.replace(/\s*\[\d+\]/g, '').slice(0, 2000) });
  messages.push({ role: 'user', content: `Sources:\n\n${sourcesBlock(sources)}\n\nQuestion: ${req.message}` });
  let raw: string;
  let usage: { prompt_tokens: number; completion_tokens: number };
  const jsonSchema = { name: 'grounded_answer', schema: ANSWER_SCHEMA as unknown as Record<string, unknown> };
  try {
    raw = '';
    usage = { prompt_tokens: 0, completion_tokens: 0 };
    if (req.onDelta && llm.stream) {
      // streamed from the model (a closed connection cancels it), but passed on only once checked
      for await (const piece of llm.stream({ messages, jsonSchema, temperature: 0.1, signal: req.signal })) raw += piece;
    }
    // a stream that did not give the JSON asked for is asked again whole, with the client's retries
    if (!parseJsonObject(raw)) ({ content: raw, usage } = await llm.complete({ messages, jsonSchema, temperature: 0.1, signal: req.signal }));
  } catch (e) {
    if ((e as Error).name === 'AbortError' || req.signal?.aborted) throw e;
    return { fallback: 'llm_unavailable', detail: (e as Error).message };
  }
  const j = parseJsonObject(raw);
  if (!j || typeof j.answer !== 'string') return { fallback: 'llm_unavailable', detail: 'the LLM answer is not the JSON asked for' };
  const quotes = (Array.isArray(j.quotes) ? j.quotes : [])
    .filter((q: any) => q && typeof q.text === 'string' && q.text.trim() && Number.isInteger(Number(q.source)))
    .map((q: any) => ({ source: Number(q.source), text: String(q.text) }));
  const renumber = new MarkerRenumberer(sources.length);
  let text = (renumber.push(j.answer) + renumber.flush()).trim();
  const promptTokens = usage.prompt_tokens || tokensOf(messages.map((m) => m.content).join('\n'));
  const completionTokens = usage.completion_tokens || tokensOf(raw);
  const refused = j.answer_type === 'none' || !text || (!renumber.used.length && /could not find|not (?:contain|mention|covered|in the sources)|no information/i.test(text));
  if (refused) return { ...refusal(), promptTokens, completionTokens };
  // the sources cited: by marker, then by quote
  const used = [...renumber.used];
  const unmarked: number[] = [];
  for (const q of quotes) if (q.source >= 1 && q.source <= sources.length && !used.includes(q.source)) unmarked.push(used[used.push(q.source) - 1]!);
  const cited = used.map((n) => sources[n - 1]!);
  const problem = groundingProblem(text, quotes, sources, cited);
  if (problem) return { fallback: 'ungrounded', detail: problem };
  if (unmarked.length) text += ` ${unmarked.map((n) => `[${used.indexOf(n) + 1}]`).join('')}`;
  const citations = [...new Map(cited.map((h) => [h.chunk_id, h])).values()];
  const retrieval = cited.reduce((a, h) => a + h.score, 0) / cited.length;
  const confidence = round(clamp(0.35 + 0.45 * retrieval + 0.1 * Math.min(1, cited.length / 2), 0.05, 0.97), 3);
  const answerType = j.answer_type === 'value' ? 'value' : 'passage';
  return { text, citations, confidence, promptTokens, completionTokens, answerType, grounded: true, answeredBy: 'llm' };
}

// ---------------------------------------------------------------- the answerer

const AnswerResultSchema = z.object({
  text: z.string().max(200_000),
  citations: z.array(z.object({ chunk_id: z.string() })).max(200),
  confidence: z.number().finite(),
  answer_type: z.enum(['value', 'passage', 'none']),
  usage: z.object({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0) }).optional(),
});
/** the confidence an answer keeps at most when it cites what it was not given */
const UNGROUNDED_MAX = 0.3;

/**
 * An answerer plugin's answer as the engine presents it: its citations replaced by the host's own copies of the
 * passages (the retrieval's hits, or chunks the answerer read), and checked: a citation of anything else is left
 * out, and the answer, or a marker [n] past its citations, is then not grounded (confidence at most 0.3). A refusal
 * is NOT_FOUND_ANSWER's text when the answerer gives none. An answer of the wrong shape is an upstream error.
 */
function presentAnswer(raw: AnswerResult, name: string, source: (chunkId: string) => SearchHit | undefined): Composed {
  const parsed = AnswerResultSchema.safeParse(raw);
  if (!parsed.success) throw errors.upstream(`The answerer plugin "${name}" gave an answer of the wrong shape: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ')}`);
  const a = parsed.data;
  const citations: ChatCitation[] = [];
  let grounded = true;
  for (const c of a.citations) {
    const hit = source(c.chunk_id);
    if (!hit) grounded = false;
    else if (!citations.some((x) => x.chunk_id === hit.chunk_id)) citations.push(hit);
  }
  const none = a.answer_type === 'none';
  const text = none && !a.text.trim() ? NOT_FOUND_ANSWER : a.text;
  if ([...text.matchAll(/\[(\d+)\]/g)].some((m) => Number(m[1]) < 1 || Number(m[1]) > citations.length)) grounded = false;
  const confidence = round(clamp(a.confidence, 0, grounded ? 1 : UNGROUNDED_MAX), 3);
  return { answerType: a.answer_type, text, citations: none ? [] : citations, confidence, promptTokens: a.usage?.prompt_tokens ?? 0, completionTokens: a.usage?.completion_tokens ?? tokensOf(text), grounded };
}


/**
 * Answers a question over a knowledge base: retrieval restricted to its documents (its retrieval settings;
 * quick = its top_k, deep = wider retrieval per question part, code = code-like chunks first), then a
 * grounded LLM answer when an LLM is configured, else (or when it fails or is not borne out) the active answerer
 * plugin's answer (QUIRE_ANSWERER; offline: quoting the best-supported sentences of the sources), presented with
 * the host's copies of the cited chunks. Persists the turn, emits chat events, charges 0.1 credit.
 */
export async function answer(rt: Engine, auth: AuthInfo, req: ChatRequest): Promise<ChatAnswer> {
  const started = Date.now();
  const mode: ChatMode = req.mode ?? 'quick';
  const question = req.message.trim();
  if (!question) throw errors.validation('message must not be empty', [{ field: 'message', message: 'empty' }]);
  const kb: CollectionRecord = await loadCollection(rt, auth, req.knowledgeBaseId, 'read', 'knowledge base');
  // billed as the turn will be: to the knowledge base's organization, else the caller; reserved now,
  // charged when the turn is stored, released when it fails
  const hold = await holdCredits(rt, { user_id: auth.user.id, organization_id: kb.organization_id }, 'chat', 1);
  try {
    return await answerHeld(rt, auth, req, kb, hold, started, mode, question);
  } catch (e) {
    await hold.release().catch(() => {});
    throw e;
  }
}

async function answerHeld(rt: Engine, auth: AuthInfo, req: ChatRequest, kb: CollectionRecord, hold: CreditHold, started: number, mode: ChatMode, question: string): Promise<ChatAnswer> {
  const settings = KbSettingsSchema.parse(kb.settings ?? {});
  let session: ChatSessionRecord | null = null;
  if (req.sessionId) {
    session = await loadSession(rt, auth, req.sessionId, 'write');
    if (session.knowledge_base_id && session.knowledge_base_id !== kb.id) throw errors.validation('This chat session belongs to another knowledge base', [{ field: 'session_id', message: 'session of another knowledge base' }]);
  }
  const history: ChatTurn[] = req.history ?? (session ? (await sessionMessages(rt, session.id)).slice(-12).map((m) => ({ role: m.role, content: m.content })) : []);

  const sessionId = session?.id ?? randomUUID();
  const messageId = randomUUID();
  await req.onStart?.({ session_id: sessionId, message_id: messageId, mode, knowledge_base_id: kb.id });

  const links = await rt.store.repo('collection_documents').find({ collection_id: kb.id });
  const docs = links.length ? (await rt.store.repo('documents').find({ id: links.map((l) => l.document_id) })).filter((d) => d.status === 'completed') : [];
  const docIds = docs.map((d) => d.id);
  const terms = await kbTerms(rt, docs);
  const previousQuestion = [...history].reverse().find((t) => t.role === 'user')?.content;
  const context = previousQuestion && isFollowUp(question) ? previousQuestion : undefined;
  const hits = docIds.length ? await retrieve(rt, auth, question, mode, settings, docIds, context, terms.documents) : [];
  req.signal?.throwIfAborted();

  // the active answerer plugin (QUIRE_ANSWERER) answers from what the retrieval found; the chunks it reads itself
  // (a document's first section) it may cite too
  const answerer = rt.registry.get('answerer');
  const docById = new Map(docs.map((d) => [d.id, d]));
  const read = new Map<string, SearchHit>();
  const request: AnswerRequest = {
    question,
    mode,
    context,
    history,
    sources: hits,
    documents: docs.map((d) => ({ id: d.id, name: d.name, version: String(d.updated_at.getTime()) })),
    terms,
    minConfidence: rt.config.chat.minConfidence,
    signal: req.signal,
    async chunks(documentId: string, idx?: number[]): Promise<AnswerChunk[]> {
      const doc = docById.get(documentId);
      if (!doc) return [];
      const rows = await rt.store.repo('chunks').find(idx ? { document_id: doc.id, idx } : { document_id: doc.id });
      for (const r of rows) read.set(r.id, { chunk_id: r.id, document_id: doc.id, document_name: doc.name, page: r.page, content: r.content, score: 1, metadata: hitMetadata(r) });
      return rows.map((r) => ({ id: r.id, document_id: r.document_id, idx: r.idx, page: r.page, type: r.type, content: r.content }));
    },
  };
  const present = (a: AnswerResult): Composed => presentAnswer(a, rt.config.plugins.selected.answerer ?? 'answerer', (id) => hits.find((h) => h.chunk_id === id) ?? read.get(id));

  let composed: Composed;
  const refusal = () => present(answerer.refusal?.(request) ?? { text: NOT_FOUND_ANSWER, citations: [], confidence: 0.05, answer_type: 'none' });
  const outcome = rt.registry.tryGet('llm') ? await composeWithLlm(rt, hits, req, mode, history, refusal) : null;
  if (outcome && !('fallback' in outcome)) {
    composed = { ...outcome, answeredBy: 'llm' };
    // the answer is checked before any of it is sent: it streams as words once it holds
    if (req.onDelta) for (const p of composed.text.split(/(?<=\s)/)) if (p) await req.onDelta(p);
  } else {
    composed = { ...present(await answerer.answer(request)), answeredBy: 'offline' };
    // a question for a receipt's or an invoice's total, date, invoice number, VAT id…: the extractor's value, when it is
    // sure of it and the answer does not say it
    const field = await receiptFieldAnswer(rt, request, { text: composed.text, citations: [], confidence: composed.confidence, answer_type: composed.answerType });
    if (field) composed = { ...present(field), answeredBy: 'offline' };
    if (outcome) {
      composed.fallbackReason = outcome.fallback;
      rt.logger.warn({ reason: outcome.fallback, detail: outcome.detail, knowledge_base_id: kb.id }, 'LLM answer not used; answered by the answerer plugin');
    }
    if (req.onDelta) {
      // the answer streams paragraph by paragraph and sentence by sentence
      for (const p of composed.text.split(/(?<=\] )|(?<=\n)/)) if (p) await req.onDelta(p);
    }
  }
  req.signal?.throwIfAborted();

  const responseMs = Date.now() - started;
  const owner: Owned = { user_id: auth.user.id, organization_id: kb.organization_id };
  const now = new Date();
  const existing = session;
  const title = question.length > 80 ? `${question.slice(0, 77)}...` : question;
  await rt.store.transaction(async (tx) => {
    if (!existing) await tx.repo('chat_sessions').insert({ id: sessionId, ...owner, knowledge_base_id: kb.id, title, created_at: new Date(started), updated_at: now });
    else await tx.repo('chat_sessions').update(existing.id, { updated_at: now, ...(existing.knowledge_base_id ? {} : { knowledge_base_id: kb.id }) });
    const base = { ...owner, session_id: sessionId, knowledge_base_id: kb.id, feedback: null };
    await tx.repo('chat_messages').insert({ ...base, id: randomUUID(), role: 'user', content: question, query: null, mode, citations: null, confidence: null, response_time_ms: null, created_at: new Date(started) });
    await tx.repo('chat_messages').insert({
      ...base,
      id: messageId,
      role: 'assistant',
      content: composed.text,
      query: question,
      mode,
      citations: composed.citations.map((c) => ({ chunk_id: c.chunk_id, document_id: c.document_id, document_name: c.document_name, page: c.page, score: c.score })),
      confidence: composed.confidence,
      response_time_ms: responseMs,
      created_at: now,
    });
  });
  const credits = await hold.settle(messageId);
  if (!existing) await rt.events.emit('chat.session.created', { session_id: sessionId, knowledge_base_id: kb.id, title, created_at: new Date(started).toISOString() }, owner);
  await rt.events.emit(
    'chat.message',
    { session_id: sessionId, message_id: messageId, knowledge_base_id: kb.id, query: question, mode, message: composed.text, confidence: composed.confidence, citations: composed.citations.map((c) => ({ chunk_id: c.chunk_id, document_id: c.document_id, page: c.page })), response_time_ms: responseMs },
    owner,
  );
  return {
    session_id: sessionId,
    message_id: messageId,
    knowledge_base_id: kb.id,
    message: composed.text,
    citations: composed.citations,
    confidence: composed.confidence,
    mode,
    response_time_ms: responseMs,
    created_at: now.toISOString(),
    usage: { prompt_tokens: composed.promptTokens || tokensOf([question, ...history.map((h) => h.content), ...composed.citations.map((c) => c.content)].join('\n')), completion_tokens: composed.completionTokens, credits },
    unanswered: composed.answerType === 'none',
    answer_type: composed.answerType,
    // an LLM answer is returned only once its quotes and numbers are found in its sources; an answerer's cites only what it was given
    grounded: composed.grounded,
    answered_by: composed.answeredBy ?? 'offline',
    fallback_reason: composed.fallbackReason ?? null,
  };
}

/** The public shape of an answer (spec field names). */
export function apiAnswer(a: ChatAnswer) {
  return { session_id: a.session_id, message_id: a.message_id, knowledge_base_id: a.knowledge_base_id, message: a.message, citations: a.citations, confidence: a.confidence, mode: a.mode, answer_type: a.answer_type, grounded: a.grounded, answered_by: a.answered_by, fallback_reason: a.fallback_reason, response_time_ms: a.response_time_ms, created_at: a.created_at, usage: { credits: a.usage.credits } };
}
