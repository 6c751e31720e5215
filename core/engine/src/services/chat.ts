import { randomUUID } from 'node:crypto';
import { errors, isQuireError } from '@quire/core';
import type { ChatMessageRecord, ChatSessionRecord, CollectionRecord, DocumentRecord, LlmMessage, Owned } from '@quire/core';
import { canRead, loadOwned } from '../accounts/access.js';
import type { AuthInfo } from '../accounts/access.js';
import type { EngineContext as Engine } from '../context.js';
import { KbSettingsSchema, loadCollection } from './collections.js';
import type { KbSettings } from './collections.js';
import { searchChunks } from './search.js';
import type { SearchHit } from './search.js';
import { alternativesOf, codeBlocksOf, labelExpansion, codeLikeness, decompose, focusTerms, isFollowUp, kindTerms, questionTerms, subjectVerb, terms, termSet, unitsOf } from './chat-text.js';
import { amountsOf, answerTypeOf, holdsFullDate, asksForCompany, holdsCompany, holdsType, questionWords, totalLine } from './chat-answer-types.js';
import type { AnswerType } from './chat-answer-types.js';
import type { CodeBlock, Unit } from './chat-text.js';
import { AUTHOR_LINE, DOCUMENT_WORDS, cellAnswer, documentAspect, isFragment } from './chat-answer-shape.js';
import type { AnswerKind, DocumentAspect } from './chat-answer-shape.js';
import { parseJsonObject, quoteInText, round, synonymWordsOf, unsupportedNumbers } from '@quire/text';
import { holdCredits } from '../accounts/credits.js';
import type { CreditHold } from '../accounts/credits.js';

export type ChatMode = 'quick' | 'deep' | 'code';
export const CHAT_MODES = ['quick', 'deep', 'code'] as const;

/** The answer when the sources do not support one. */
export const NOT_FOUND_ANSWER = "I could not find this in the knowledge base's sources.";

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
  /** called with each piece of the answer as it is produced (LLM tokens, or the extractive answer's sentences) */
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
  /** token counts: the LLM's own, or estimates (4 characters a token) for the offline answerer */
  usage: { prompt_tokens: number; completion_tokens: number; credits: number };
  /** true when the sources did not support an answer */
  unanswered: boolean;
  /** what the answer is: `value` (a typed value, one sentence or one table cell), `passage` (quoted sentences), `none` (the refusal) */
  answer_type: AnswerKind;
  /**
   * Every quote and number of the answer was found in its cited sources: always true, since an LLM answer
   * that fails the check is replaced by the offline answer (which quotes the sources verbatim).
   */
  grounded: boolean;
  /** `llm` or `offline` (no LLM configured, or the LLM failed or was not borne out by the sources) */
  answered_by: 'llm' | 'offline';
  /** with an LLM configured and answered_by `offline`: `llm_unavailable` (errors after retries) or `ungrounded` */
  fallback_reason: 'llm_unavailable' | 'ungrounded' | null;
}

// ---------------------------------------------------------------- sessions

/** A session of the caller (someone else's is not found). */
/**
 * A chat session for the caller, by the one access rule (accounts/access.ts): the caller's own, or one of
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
  /** terms of the document's name: a question may name the document ("the Coolblue invoice") */
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
  for (const r of rows) {
    for (const t of termSet(r.content)) df.set(t, (df.get(t) ?? 0) + 1);
    for (const m of r.content.matchAll(LOWER_WORD)) lower.add(m[0]);
  }
  const name = doc.name.replace(/\.[a-z0-9]{2,5}$/i, '').replace(/[_.-]+/g, ' ').replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, '$1$3 $2$4');
  const stats = { chunks: rows.length, df, nameTerms: termSet(name), lower };
  statsCache.set(key, stats);
  while (statsCache.size > STATS_CACHE_MAX) statsCache.delete(statsCache.keys().next().value!);
  return stats;
}

const LOWER_WORD = /(?<![\p{L}\p{N}])\p{Ll}+(?![\p{L}\p{N}])/gu;

class Idf {
  constructor(
    private readonly n: number,
    private readonly df: (t: string) => number,
  ) {}
  /** ln(1 + (N+1)/(df+0.5)) */
  of(t: string): number {
    return Math.log(1 + (this.n + 1) / (this.df(t) + 0.5));
  }
  has(t: string): boolean {
    return this.df(t) > 0;
  }
  /** the weight of a term found in one chunk */
  rare(): number {
    return Math.log(1 + (this.n + 1) / 1.5);
  }
}

/** Terms of the knowledge base's documents: IDF over all their chunks, and each document's own terms. */
async function kbTerms(rt: Engine, docs: DocumentRecord[]): Promise<{ idf: Idf; docTerms: DocTerms; lower: Set<string> }> {
  const stats = await Promise.all(docs.map((d) => docStats(rt, d)));
  const n = stats.reduce((a, s) => a + s.chunks, 0);
  const lower = new Set<string>();
  for (const s of stats) for (const w of s.lower) lower.add(w);
  const docTerms: DocTerms = new Map(docs.map((d, i) => [d.id, { has: (t: string) => stats[i]!.df.has(t) || stats[i]!.nameTerms.has(t), names: (t: string) => stats[i]!.nameTerms.has(t) }]));
  return { idf: new Idf(n, (t) => stats.reduce((a, s) => a + (s.df.get(t) ?? 0), 0)), docTerms, lower };
}

/** Whether a document (or a chunk's terms) has a term, or one of its synonyms (a name the document writes in its own language: "VAT" / "BTW"). */
const hasName = (d: { has: (t: string) => boolean } | undefined, t: string) => !!d && (d.has(t) || alternativesOf(t).some((x) => d.has(x)));

/** Whether some document of the knowledge base has the term itself. */
const someHas = (docTerms: DocTerms, t: string) => [...docTerms.values()].some((d) => d.has(t));

/**
 * Whether a document has every one of the question's names that some document of the knowledge base has (a name the
 * document writes in its own language counts: "VAT" in a Dutch invoice is "BTW"): the documents the question is about.
 * Every document, when none has them.
 */
function holdsNames(names: string[], docTerms: DocTerms): (documentId: string) => boolean {
  const known = names.filter((t) => [...docTerms.values()].some((d) => hasName(d, t)));
  return (id) => known.every((t) => hasName(docTerms.get(id), t));
}

/** Per document: whether a term occurs anywhere in it (or in its name). */
type DocTerms = Map<string, DocTermsOf>;
interface DocTermsOf {
  has: (t: string) => boolean;
  /** whether the document's name has the term: it then names the document, whichever sentence answers */
  names: (t: string) => boolean;
}

// ---------------------------------------------------------------- retrieval

/** What a question (or a part of one) asks: its terms' weights, the terms a quoted sentence needs, the asked-for type. */
export interface Ask {
  text: string;
  weights: Map<string, number>;
  primary: Set<string>;
  /** the type of entity the answer must hold (who → person…), null when any statement may answer */
  type: AnswerType | null;
  /** the question's own words: an entity it already names is not an answer */
  own: Set<string>;
  /** the names and numbers of the question: an answer comes from a document that has them */
  names: string[];
  /** the kind of thing asked for ("which word processor"): no evidence that a sentence answers */
  kind: Set<string>;
}

/** What a question asks, with its terms' weights (exported for the unit tests). */
export function ask(text: string, weights: Map<string, number>): Ask {
  const qt = questionTerms(text);
  return { text, weights, primary: new Set(qt.map((t) => t.term)), type: answerTypeOf(text), own: questionWords(text), names: qt.filter((t) => t.entity).map((t) => t.term), kind: new Set(kindTerms(text)) };
}

interface Retrieval {
  hits: SearchHit[];
  /** the question parts (deep mode), each with its own query weights */
  parts: Ask[];
  /** the whole question */
  ask: Ask;
  /** weights of the whole question (plus the previous question's terms for follow-ups) */
  weights: Map<string, number>;
  /** the question's own terms: a quoted sentence has at least one of them */
  primary: Set<string>;
}

/**
 * IDF weights of the question's terms. A term the knowledge base lacks altogether weighs like its rarest
 * term when it is a name or number (the question is about something the sources do not have), half that
 * when it is a plain word (the sources may say it otherwise). Follow-ups add the previous question's terms
 * at half weight.
 */
function queryWeights(question: string, idf: Idf, context?: string): Map<string, number> {
  const w = new Map<string, number>();
  const weigh = (t: string, key: boolean) => (idf.has(t) ? idf.of(t) : key ? idf.rare() : 0.5 * idf.rare());
  // the focus of the question ("how many caps", "what is the capital") weighs more, and counts as a key term
  const focus = new Set(focusTerms(question));
  for (const { term, entity } of questionTerms(question)) w.set(term, weigh(term, entity || focus.has(term)) * (focus.has(term) ? 1.5 : 1));
  if (context) for (const { term, entity } of questionTerms(context)) if (!w.has(term)) w.set(term, 0.5 * weigh(term, entity));
  return w;
}

const primaryTerms = (question: string) => new Set(questionTerms(question).map((t) => t.term));

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
      // a hit like the search's own: its metadata is what the index stage stores with the vector
      out.set(r.id, { chunk_id: r.id, document_id: r.document_id, document_name: h.document_name, page: r.page, content: r.content, score: round(h.score * NEIGHBOUR_SCORE, 4), metadata: { type: r.type, index: r.idx } });
    }
  }
  return [...out.values()];
}

async function retrieve(rt: Engine, auth: AuthInfo, question: string, mode: ChatMode, settings: KbSettings, docIds: string[], idf: Idf, context: string | undefined, docTerms?: DocTerms): Promise<Retrieval> {
  const depth = retrievalDepth(mode, settings);
  const search = (q: string, ids = docIds) => searchChunks(rt, auth, { query: q, documentIds: ids, limit: depth, threshold: settings.retrieval.threshold, reranking: settings.retrieval.reranking });
  const weights = queryWeights(question, idf, context);
  const withContext = (q: string) => (context ? `${q} ${context}` : q);
  if (mode === 'deep') {
    const partTexts = decompose(question);
    const parts = partTexts.map((p) => ask(p, queryWeights(p, idf, context)));
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
    return { hits, parts, weights, primary: primaryTerms(question), ask: ask(question, weights) };
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
  if (mode !== 'code') hits = [...hits, ...(await neighbours(rt, hits))];
  if (mode === 'code') {
    hits = hits
      .map((h) => ({ h, s: h.score * (1 + 0.6 * codeLikeness(h.content)) }))
      .sort((a, b) => b.s - a.s)
      .map((x) => x.h)
      .slice(0, Math.max(settings.retrieval.top_k, 5));
  }
  const whole = ask(question, weights);
  return { hits, parts: [whole], weights, primary: whole.primary, ask: whole };
}

// ---------------------------------------------------------------- extractive answers

export interface Candidate {
  /** the quoted text: a sentence, row or line, with the value or label printed next to it when that holds the answer */
  unit: Unit;
  hit: SearchHit;
  /** rank of the hit, for a stable order */
  hitRank: number;
  terms: Set<string>;
  coverage: number;
  /** the share of the question the quoted text itself covers (no credit for the rest of its chunk or document) */
  sentenceCoverage: number;
  /** query terms found in the sentence itself */
  own: number;
  /** whether the quoted text holds an entity of the asked-for type (true when the question asks for none) */
  typed: boolean;
  score: number;
  /** whether the quoted text lacks the question's key term (keyTerm) */
  keyMissing: boolean;
}

const MIN_COVERAGE = 0.5;
const MAX_SENTENCE_CHARS = 700;
/** how much a term counts when the sentence has it as a synonym, elsewhere in its chunk, elsewhere in its document */
const SYNONYM_WEIGHT = 0.85;
const CHUNK_WEIGHT = 0.35;
const DOC_WEIGHT = 0.35;
const DOC_NAME_WEIGHT = 0.8;
/** a question that asks for a type of entity needs less of its wording in the answer: holding the type is evidence too */
const MIN_TYPED_COVERAGE = 0.4;
/** a neighbouring line joined to a sentence as its label or value: at most this many words */
const NEIGHBOUR_WORDS = 40;
/** a label that takes its value from the line below or above: at most this many words, and that value at most VALUE_WORDS */
const LABEL_WORDS = 10;
/** a line that is a label with its value ("Restaurant: Docling"): not the value of the label above it */
const KEY_VALUE = /^[^:]{1,40}:\s*\S/;
const VALUE_WORDS = 12;

/** 1 when `terms` has the term, SYNONYM_WEIGHT when it has a synonym of it, else 0. */
function matchOf(t: string, terms: Set<string>): number {
  if (terms.has(t)) return 1;
  for (const alt of alternativesOf(t)) if (terms.has(alt)) return SYNONYM_WEIGHT;
  // the stemmer leaves some inflections apart ("incorporated" → incorporat, "incorporation" → incorpor): a long stem
  // that begins the other is the same word
  if (t.length >= PREFIX_STEM) for (const x of terms) if (x.length >= PREFIX_STEM && (x.startsWith(t) || t.startsWith(x))) return SYNONYM_WEIGHT;
  // a compound that begins with the word, as German and Dutch write them ("order" / "Orderdatum", "konto" / "Kontoinhaber")
  if (t.length >= COMPOUND_HEAD) for (const x of terms) if (x.length >= t.length + COMPOUND_TAIL && x.startsWith(t)) return SYNONYM_WEIGHT;
  // the doer of a verb: "managed" / "manager", "invented" / "inventor"
  if (t.length >= AGENT_STEM) for (const suffix of ['er', 'or']) if (terms.has(t + suffix) || (t.endsWith(suffix) && t.length - 2 >= AGENT_STEM && terms.has(t.slice(0, -2)))) return SYNONYM_WEIGHT;
  return 0;
}
/** the least length of a word that may begin a compound, and of the word that follows it there */
const COMPOUND_HEAD = 5;
const COMPOUND_TAIL = 4;
/** the least length of a verb's stem whose doer (stem + "er"/"or") counts as the same word */
const AGENT_STEM = 4;
/** the least length of a stem that counts as the same word as a longer stem it begins */
const PREFIX_STEM = 7;

/**
 * IDF-weighted share of the query's terms the sentence covers: in the sentence itself (a synonym counts
 * SYNONYM_WEIGHT), else elsewhere in its chunk (CHUNK_WEIGHT) or its document (DOC_WEIGHT: "the Coolblue
 * invoice" names the document, not the sentence that holds its date).
 */
function coverage(weights: Map<string, number>, sentence: Set<string>, chunk: Set<string>, doc?: DocTermsOf): { coverage: number; sentence: number; own: number } {
  let total = 0;
  let got = 0;
  let inSentence = 0;
  let own = 0;
  for (const [t, w] of weights) {
    total += w;
    const m = matchOf(t, sentence);
    if (m) {
      got += m * w;
      inSentence += m * w;
      own++;
      continue;
    }
    const c = matchOf(t, chunk);
    if (doc?.names(t)) got += DOC_NAME_WEIGHT * w;
    else if (c) got += CHUNK_WEIGHT * c * w;
    else if (doc?.has(t)) got += DOC_WEIGHT * w;
  }
  return { coverage: total ? got / total : 0, sentence: total ? inSentence / total : 0, own };
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** the score of a candidate for "which company" that names none by its legal form */
const NO_LEGAL_FORM = 0.8;
/** A line of a record: a table row, or a label with its value ("Check Out: 01/01/2018"), whose subject a heading or another line names. */
const isRecordLine = (u: Unit) => u.kind === 'row' || (KEY_VALUE.test(u.text) && wordCount(u.text) <= LABEL_WORDS + VALUE_WORDS);

/** Two neighbouring units quoted as one ("TOTAL AMOUNT DUE" + "$4.11", "Bill to:" + "ACME Ltd"). */
function joinUnits(a: Unit, b: Unit): Unit {
  const head = a.cut === 'start' || a.cut === 'both';
  const tail = b.cut === 'end' || b.cut === 'both';
  const cut = head && tail ? 'both' : head ? 'start' : tail ? 'end' : undefined;
  const context = a.context ?? b.context;
  return { text: `${a.text} ${b.text}`, start: a.start, kind: a.kind === 'row' && b.kind === 'row' ? 'row' : 'sentence', ...(context ? { context } : {}), ...(cut ? { cut } : {}) };
}

/** The attribute a "what is the X of …" question asks for, as a term ("What is the BIC of the account?" → bic); null for other questions. */
export function attributeAsked(question: string): string | null {
  const m = question.match(/\b(?:what|which)\s+(?:is|are|was|were)\s+(?:the|its|their|his|her)\s+([\p{L}\p{N}-]+)\s+of\b/iu);
  return m ? (terms(m[1]!)[0] ?? null) : null;
}

/**
 * The question's key term: of `evidence` (its words that show a sentence answers it, without its names), the one
 * of highest weight (the rarest in the sources, or the focus of the question) that some document has; null when
 * none. A term no document has is none: the sources may say it otherwise.
 */
export function keyTerm(evidence: string[], weights: Map<string, number>, docTerms?: DocTerms): string | null {
  let best: string | null = null;
  for (const t of evidence) {
    if (docTerms && !someHas(docTerms, t)) continue;
    if (best === null || (weights.get(t) ?? 0) > (weights.get(best) ?? 0)) best = t;
  }
  return best;
}

/** Whether the question's terms name the document by a phrase of its name: two or more of its name's terms ("the fancy fields form"). */
const namesDocument = (primary: Set<string>, doc: DocTermsOf) => [...primary].filter((t) => doc.names(t)).length >= 2;

/** The quotable candidates of the hits for a question, best first (exported for the unit tests). */
export function candidatesFor(hits: SearchHit[], a: Ask, docTerms?: DocTerms, lower: Set<string> = new Set()): Candidate[] {
  const { weights, primary } = a;
  const qTerms = new Set(weights.keys());
  // words the sources write in lower case are not names when capitalised ("Invoice", "Account")
  const common = new Set(lower);
  if (a.type === 'person' || a.type === 'place') for (const h of hits) for (const m of h.content.matchAll(LOWER_WORD)) common.add(m[0]);
  const holds = (text: string) => !a.type || holdsType(text, a.type, a.own, qTerms, common);
  // the question's names that some document has: a sentence from a document without them is about something else
  const names = docTerms ? a.names.filter((t) => someHas(docTerms, t)) : [];
  const numbers = a.names.filter((t) => /\d/.test(t));
  const verb = subjectVerb(a.text);
  const attribute = attributeAsked(a.text);
  // "which company…": a name with its legal form ("… Limited", "… GmbH") is likelier the answer than a capitalised label
  const company = a.type === 'person' && asksForCompany(a.text);
  const top = hits[0]?.score || 1;
  // a question that names documents by a phrase of their names ("on the sample form") is about those: a sentence of another is not
  const namedDocs = new Set(docTerms ? [...docTerms].filter(([, d]) => namesDocument(primary, d)).map(([id]) => id) : []);
  const out: Candidate[] = [];
  hits.forEach((hit, hitRank) => {
    const units = unitsOf(hit.content);
    const chunkTerms = termSet(hit.content);
    const doc = docTerms?.get(hit.document_id);
    // (a name the document writes in its own language counts: "VAT" in a Dutch invoice is "BTW")
    if (names.some((t) => !hasName(chunkTerms, t) && !hasName(doc, t))) return;
    const namedBy = namedDocs.has(hit.document_id);
    if (namedDocs.size && !namedBy) return;
    // a number of the question ("the 2010 World Cup", "chapter 13") is in the passage that answers it
    if (numbers.some((t) => !chunkTerms.has(t))) return;
    const neighbour = (u: Unit | undefined) => (u && u.kind !== 'heading' && wordCount(u.text) <= NEIGHBOUR_WORDS ? u : undefined);
    // the question's words that show a sentence answers it: not the kind of thing asked for, not the document's own name
    // (nor the words of the document's name when the question names it by a phrase of them, "the fancy fields form": they tell which
    // document, not which of its sentences answers; a single word of its name, "duck", may be what the question is about)
    const evidence = [...primary].filter((t) => !a.kind.has(t) && !((namedBy || a.names.includes(t)) && doc?.names(t)));
    // (a name of the question counts only as the attribute it asks for, "what is the BIC of …": the others name what the document is about)
    const key = keyTerm(evidence.filter((t) => !a.names.includes(t) || t === attribute), weights, docTerms);
    units.forEach((base, i) => {
      if (base.kind === 'heading' || base.text.length > MAX_SENTENCE_CHARS) return;
      const next = neighbour(units[i + 1]);
      const prev = neighbour(units[i - 1]);
      // a label ("Bill to Address:") is quoted with its value, the line after it
      // (not when the lines below are fields of their own: "Receipt details:" over "Restaurant: …", "Server: …")
      const fields = next && KEY_VALUE.test(next.text) && units[i + 2] && KEY_VALUE.test(units[i + 2]!.text);
      let unit = /:$/.test(base.text) && next && !fields ? joinUnits(base, next) : base;
      // a label whose value is not printed with it ("Receipt details for table service:") holds no answer
      let typed = !/:$/.test(unit.text) && holds(unit.text);
      // only a label without its value takes a value from a neighbouring line: not "Dining Type: Celebration", not a sentence,
      // not a table row (a header row heads the rows below it as their context: "Site | Score" over "Rotterdam | 97")
      const bare = unit === base && base.kind !== 'row' && !/:\s*\S/.test(base.text.replace(/:$/, '')) && wordCount(base.text) <= LABEL_WORDS;
      if (!typed && bare) {
        // the value of a label printed on the line below it (or above it, as forms do)
        const value = (u: Unit | undefined) => u && wordCount(u.text) <= VALUE_WORDS && !KEY_VALUE.test(u.text) && holds(u.text);
        if (next && !fields && value(next)) unit = joinUnits(base, next);
        // (a label ending in a colon announces a value after it, never the line above)
        else if (prev && value(prev) && !/:$/.test(base.text)) unit = joinUnits(prev, unit);
        typed = unit !== base;
      }
      const ws = wordCount(unit.text);
      // (a label with its value may be two words: "BIC: SBGSAT2SXXX")
      if (ws < 3 && !(ws === 2 && typed && KEY_VALUE.test(unit.text))) return;
      const ts = termSet(unit.context ? `${unit.text} ${unit.context}` : unit.text);
      const c = coverage(weights, ts, chunkTerms, doc);
      if (!c.own || (primary.size && ![...primary].some((t) => matchOf(t, ts)))) return;
      if (evidence.length && !evidence.some((t) => matchOf(t, ts))) return;
      // a table row answers "which city / country / company …" only in a column that says so: its header or its own cells name the kind
      // (a date, an amount shows its kind by its form: a name does not)
      if (unit.kind === 'row' && (a.type === 'person' || a.type === 'place') && a.kind.size && ![...a.kind].some((t) => matchOf(t, ts))) return;
      // "what joins …", "who invented …": a sentence answers only if it says that relation (a line of a record names it by its label)
      if (verb && !matchOf(verb, ts) && !isRecordLine(unit) && unit === base) return;
      const lengthFactor = ws > 60 ? 0.8 : ws < 5 && unit.kind !== 'row' ? 0.85 : 1;
      // whole sentences read better than fragments, titles and reference-list entries
      // (a web address is the answer to where something is published, not the mark of a reference)
      const reference = a.type === 'place' ? /\bRetrieved\b|\bArchived\b/ : /https?:\/\/|www\.|\bRetrieved\b|\bArchived\b/;
      const quality = (unit.cut ? 0.88 : unit.kind === 'sentence' && !/[.!?"'”’)]$/.test(unit.text) && wordCount(unit.text) > 12 ? 0.85 : 1) * (reference.test(unit.text) ? 0.6 : 1);
      const score = (0.72 * c.coverage + 0.28 * (hit.score / top)) * lengthFactor * quality * (typed ? (company && !holdsCompany(unit.text) ? NO_LEGAL_FORM : 1) : 0.6);
      out.push({ unit, hit, hitRank, terms: ts, coverage: c.coverage, sentenceCoverage: c.sentence, own: c.own, typed, score, keyMissing: !!key && !matchOf(key, ts) });
    });
  });
  return out.sort((a, b) => b.score - a.score || a.hitRank - b.hitRank || a.unit.start - b.unit.start);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter || 1);
}

/** Greedy pick of well-supported, non-redundant sentences that add to what is already covered. */
function pick(cands: Candidate[], weights: Map<string, number>, max: number, taken: Candidate[], min = MIN_COVERAGE): Candidate[] {
  const best = cands[0];
  if (!best || best.coverage < min) return [];
  const chosen: Candidate[] = [];
  const covered = new Set<string>();
  const total = [...weights.values()].reduce((a, b) => a + b, 0) || 1;
  const pool = [...cands];
  while (chosen.length < max && pool.length) {
    let bestIdx = -1;
    let bestValue = -1;
    for (let i = 0; i < pool.length; i++) {
      const c = pool[i]!;
      if (c.coverage < min * 0.7 || c.score < best.score * 0.6) continue;
      if ([...taken, ...chosen].some((x) => x.hit.chunk_id === c.hit.chunk_id && x.unit.start === c.unit.start) || [...taken, ...chosen].some((x) => jaccard(x.terms, c.terms) >= 0.6)) continue;
      let gain = 0;
      for (const [t, w] of weights) if (c.terms.has(t) && !covered.has(t)) gain += w;
      if (chosen.length && (c.score < best.score * 0.75 || (gain / total < 0.1 && c.score < best.score * 0.9))) continue;
      const value = c.score + 0.25 * (gain / total);
      if (value > bestValue) {
        bestValue = value;
        bestIdx = i;
      }
    }
    if (bestIdx < 0) break;
    const c = pool.splice(bestIdx, 1)[0]!;
    chosen.push(c);
    for (const t of c.terms) covered.add(t);
  }
  return chosen;
}

/** Orders picked sentences: sources in order of their best sentence, document order within a source. */
function orderPicked(picked: Candidate[]): Candidate[] {
  const firstSeen = new Map<string, number>();
  picked.forEach((c, i) => {
    if (!firstSeen.has(c.hit.document_id)) firstSeen.set(c.hit.document_id, i);
  });
  const idx = (c: Candidate) => Number(c.hit.metadata?.index ?? c.hitRank);
  return [...picked].sort((a, b) => firstSeen.get(a.hit.document_id)! - firstSeen.get(b.hit.document_id)! || idx(a) - idx(b) || a.unit.start - b.unit.start);
}

class CitationList {
  readonly list: ChatCitation[] = [];
  private readonly index = new Map<string, number>();
  /** 1-based number of a hit, adding it on first use */
  number(hit: SearchHit): number {
    let n = this.index.get(hit.chunk_id);
    if (!n) {
      this.list.push({ chunk_id: hit.chunk_id, document_id: hit.document_id, document_name: hit.document_name, page: hit.page, content: hit.content, score: hit.score, metadata: hit.metadata ?? {} });
      n = this.list.length;
      this.index.set(hit.chunk_id, n);
    }
    return n;
  }
}

interface Composed {
  /** value, passage or none; unset: none when unanswered, else passage */
  answerType?: AnswerKind;
  text: string;
  citations: ChatCitation[];
  confidence: number;
  unanswered: boolean;
  promptTokens: number;
  completionTokens: number;
  /** who wrote the answer: the LLM (checked against its sources) or the offline answerer */
  answeredBy?: 'llm' | 'offline';
  /** why an LLM was configured but the offline answerer answered */
  fallbackReason?: 'llm_unavailable' | 'ungrounded';
}

const clamp = (x: number, lo = 0, hi = 1) => Math.min(hi, Math.max(lo, x));
const tokensOf = (s: string) => Math.ceil(s.length / 4);

function refusal(bestCoverage: number, topScore: number, note?: string): Composed {
  // low by construction: at most 0.3, lower the less the sources cover the question
  const confidence = round(clamp(0.05 + 0.3 * bestCoverage * (0.5 + 0.5 * topScore), 0, 0.3), 3);
  return { text: note ? `${NOT_FOUND_ANSWER} ${note}` : NOT_FOUND_ANSWER, citations: [], confidence, unanswered: true, promptTokens: 0, completionTokens: tokensOf(NOT_FOUND_ANSWER) };
}

/**
 * Confidence of an extractive answer: how much of the question the quoted sentences cover (in themselves,
 * and with their chunk and document), whether they hold the asked-for type, and the share of the question's
 * parts answered. A question that asks for no particular type cannot be checked that way: such answers stay
 * below 0.8.
 */
export function extractiveConfidence(picked: Candidate[], parts: Ask[], coveredParts: number): number {
  const sentence = Math.max(...picked.map((c) => c.sentenceCoverage));
  const cov = Math.max(...picked.map((c) => c.coverage));
  const typed = parts.some((p) => p.type) ? (picked.every((c) => c.typed) ? 1 : 0.6) : 0.8;
  const partShare = parts.length ? coveredParts / parts.length : 1;
  // the quoted sentence that leaves out the question's key term ("who took over from …" quoted by a sentence without "took") may be about something else
  const key = picked[0]?.keyMissing ? KEY_MISSING : 1;
  return round(clamp((0.12 + 0.48 * sentence + 0.37 * cov) * typed * key * (0.6 + 0.4 * partShare), 0.05, 0.97), 3);
}

/** the share of the confidence kept when the best quoted sentence lacks the question's key term */
const KEY_MISSING = 0.92;

/** how close a rival's score must come to the best candidate's for the two to compete */
const RIVAL_RATIO = 0.97;

/**
 * Whether the best answering candidate is a short line (a label with its value, a table row) that another
 * short line of other text matches as well: the question does not tell which value it asks for.
 */
function competing(cands: Candidate[]): boolean {
  const best = cands[0];
  const short = (c: Candidate) => (c.unit.kind === 'row' || /[:|]/.test(c.unit.text)) && wordCount(c.unit.text) <= LABEL_WORDS + VALUE_WORDS;
  if (!best || !short(best)) return false;
  const norm = (c: Candidate) => c.unit.text.toLowerCase().replace(/\s+/g, ' ');
  const b = norm(best);
  // a rival that covers less of the question in itself ("Amazon Simple Storage Service" for "Glacier storage") does not compete,
  // nor one that states the same value ("Total | $4.11" and "Charges | $4.11"), nor a line item against a total the question asks for
  const total = totalLine(best.unit.text);
  const values = amountsOf(best.unit.text);
  return cands.some(
    (c) =>
      c !== best &&
      c.score >= RIVAL_RATIO * best.score &&
      c.sentenceCoverage >= best.sentenceCoverage - 0.02 &&
      short(c) &&
      !b.includes(norm(c)) &&
      !norm(c).includes(b) &&
      !(total && !totalLine(c.unit.text)) &&
      !amountsOf(c.unit.text).some((v) => values.includes(v)),
  );
}

/** how much more of the question a sentence without the asked-for type must say itself to show the typed answer off the point */
const ON_POINT_MARGIN = 0.05;

/**
 * Whether the best typed answer lacks the question's key term while a sentence without the asked-for type has it and
 * says more of the question itself ("to whom does the trustee owe a fiduciary duty": "… a fiduciary responsibility to
 * the bankruptcy estate" against "… must advise the United States Trustee"): the sources answer otherwise than asked,
 * and the typed sentence is about something else (exported for the unit tests).
 */
export function typeMissingOnPoint(best: Candidate, all: Candidate[]): boolean {
  return best.keyMissing && all.some((c) => !c.typed && !c.keyMissing && c.sentenceCoverage >= best.sentenceCoverage + ON_POINT_MARGIN && c.coverage >= best.coverage);
}

/** the share of the best hit's score below which a hit of another document is far behind it */
const ELSEWHERE_RATIO = 0.5;

/**
 * Whether the candidate comes from a document other than the search's best hit, from a hit scored less than half as
 * well: the question's words point at the other document, which holds no answer. Not when the question names the
 * candidate's document (`named`: "the Coolblue invoice"); and the best hit is taken among the documents that have
 * the question's names (`about`: a hit elsewhere is about something else anyway). Exported for the unit tests.
 */
export function elsewhere(c: Candidate, hits: SearchHit[], named: (documentId: string) => boolean = () => false, about: (documentId: string) => boolean = () => true): boolean {
  const top = hits.filter((h) => about(h.document_id)).reduce<SearchHit | undefined>((a, h) => (!a || h.score > a.score ? h : a), undefined);
  return !!top && top.document_id !== c.hit.document_id && c.hit.score < ELSEWHERE_RATIO * top.score && !named(c.hit.document_id);
}

/** a quoted sentence that says less than this share of the question itself leaves open which document it is about */
const OPEN_COVERAGE = 0.5;
/** the share of the best answer's score from which another document's answer competes with it */
const RIVAL_DOCUMENT_RATIO = 0.7;

/**
 * Whether another document answers about as well as the best candidate, when that candidate's sentence says less than half
 * of the question in itself: the question's words are spread over both documents, and nothing tells which one it is about
 * ("in what year was the character sheet copyrighted": a copyright line of another document). Exported for the unit tests.
 */
export function rivalDocument(answers: Candidate[]): boolean {
  const best = answers[0];
  if (!best || best.sentenceCoverage >= OPEN_COVERAGE) return false;
  const rival = answers.find((c) => c.hit.document_id !== best.hit.document_id);
  return !!rival && rival.score >= RIVAL_DOCUMENT_RATIO * best.score;
}

/** The candidates that may be quoted: those that say enough of the question themselves, and when it asks for a type of entity, hold one (exported for the unit tests). */
export const answering = (cands: Candidate[], a: Ask) => cands.filter((c) => (!a.type || c.typed) && c.sentenceCoverage >= MIN_SENTENCE_COVERAGE);
/** a sentence that says this little of the question itself answers it only by its chunk's words: not quoted */
const MIN_SENTENCE_COVERAGE = 0.15;
const minCoverage = (a: Ask) => (a.type ? MIN_TYPED_COVERAGE : MIN_COVERAGE);

/** A unit as quoted: an ellipsis marks where the chunk cuts the sentence. */
function quote(u: Unit): string {
  const head = u.cut === 'start' || u.cut === 'both' ? '… ' : '';
  const tail = u.cut === 'end' || u.cut === 'both' ? ' …' : '';
  return `${head}${u.text}${tail}`;
}

/** Sentences of the picked candidates with their citation markers, in answer order. */
function renderSentences(picked: Candidate[], cites: CitationList): string {
  return orderPicked(picked)
    .map((c) => `${quote(c.unit)} [${cites.number(c.hit)}]`)
    .join(' ');
}

/**
 * The extractive answer (no LLM). Quick and deep answers whose confidence stays below `minConfidence`
 * (QUIRE_CHAT_MIN_CONFIDENCE) are not given: on questions nobody tuned the rules for, such answers were wrong
 * about as often as right (bench/README), and a wrong answer costs the user more than a refusal.
 */
function composeExtractive(r: Retrieval, mode: ChatMode, docTerms: DocTerms, lower: Set<string>, minConfidence: number): Composed {
  const topScore = r.hits[0]?.score ?? 0;
  if (!r.hits.length) return refusal(0, 0);
  const cites = new CitationList();
  const all = candidatesFor(r.hits, r.ask, docTerms, lower);
  const bestCoverage = all[0]?.coverage ?? 0;
  const answered = (text: string, confidence: number): Composed =>
    confidence < minConfidence ? refusal(bestCoverage, topScore) : { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text) };

  if (mode === 'code') {
    const code = composeCode(r, all, cites);
    if (code) return code;
  }

  if (mode === 'deep' && r.parts.length > 1) {
    const sections: string[] = [];
    const missing: string[] = [];
    const taken: Candidate[] = [];
    for (const part of r.parts) {
      const picked = pick(answering(candidatesFor(r.hits, part, docTerms, lower), part), part.weights, 2, taken, minCoverage(part));
      if (!picked.length) {
        missing.push(part.text);
        continue;
      }
      taken.push(...picked);
      sections.push(renderSentences(picked, cites));
    }
    if (!taken.length) return refusal(bestCoverage, topScore);
    let text = sections.join('\n\n');
    if (missing.length) text += `\n\nThe sources do not cover: ${missing.map((m) => `"${m}"`).join('; ')}.`;
    return answered(text, extractiveConfidence(taken, r.parts, r.parts.length - missing.length));
  }

  const answers = answering(all, r.ask);
  // the sentences (and table rows, under their columns' header) that say the question best: quoted whole, as a passage, when no
  // single value can be told from them; a sentence the chunk cuts is marked as cut ("… ") rather than left out
  const best = pick(answers, r.weights, mode === 'deep' ? 4 : 2, [], minCoverage(r.ask));
  const bestConfidence = best.length ? extractiveConfidence(best, [r.ask], 1) : 0;
  // (`ambiguous`: several of them could give the value, none told apart: not confident, below 0.8)
  const passage = (ambiguous = false): Composed => {
    if (!best.length || bestConfidence < minConfidence) return refusal(bestCoverage, topScore);
    const text = `The documents say: ${orderPicked(best)
      .map((c) => `“${quoteLabelled(c.unit)}” [${cites.number(c.hit)}]`)
      .join(' ')}`;
    const confidence = ambiguous ? Math.min(PASSAGE_MAX, bestConfidence) : bestConfidence;
    return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: 'passage' };
  };
  // two short label-value lines as good as each other, with different values ("Charges | $0.01", "Charges | $1.87"): no answer
  if (r.ask.type && competing(answers)) return refusal(bestCoverage, topScore);
  // the sentence that says the question best, key term and all, holds no answer of the asked type: the typed one is about something else
  if (r.ask.type && answers[0] && typeMissingOnPoint(answers[0], all)) return refusal(bestCoverage, topScore);
  // the search put another document far ahead of the one the answer would come from: the question is about that one
  const named = (id: string) => r.ask.names.some((t) => !!docTerms.get(id)?.names(t));
  if (answers[0] && elsewhere(answers[0], r.hits, named, holdsNames(r.ask.names, docTerms))) return refusal(bestCoverage, topScore);
  // another document answers about as well, and the best sentence says too little of the question to tell which is meant
  if (rivalDocument(answers)) return refusal(bestCoverage, topScore);
  if (!r.ask.type) return passage();
  // a value: ONE well-formed span of the asked type, a whole sentence, a label with its value, or one cell of a table row
  const qTerms = new Set(r.weights.keys());
  const holds = (text: string) => holdsType(text, r.ask.type!, r.ask.own, qTerms, lower);
  // (a column is named in the table's own words: the question's words themselves, not their synonyms)
  const asked = (header: string) => [...termSet(header)].filter((t) => qTerms.has(t)).length;
  const given = (cell: string) => {
    const ws = questionWords(cell);
    return ws.size > 0 && [...ws].every((w) => r.ask.own.has(w));
  };
  const spans = answers
    .flatMap((c) => {
      if (c.unit.kind !== 'row') return isFragment(c.unit) ? [] : [c];
      const cell = cellAnswer(c.unit, holds, asked, given);
      if (!cell) return [];
      // the cell's evidence is its row label, its column header and the table's title: not the other columns' headers
      const columns = new Set(c.unit.columns ?? []);
      const title = (c.unit.context ?? '')
        .split(' | ')
        .filter((x) => !columns.has(x))
        .join(' ');
      // (and the row's cells the question names: "Sheryl", "Baxter" on a customer's row)
      const named = (c.unit.cells ?? []).filter((x) => x && given(x));
      const ts = termSet(`${cell} ${title} ${named.join(' ')}`);
      const cov = coverage(r.weights, ts, termSet(c.hit.content), docTerms.get(c.hit.document_id));
      if (!cov.own) return [];
      const score = c.score * Math.min(1, cov.coverage / (c.coverage || 1));
      return [{ ...c, unit: { ...c.unit, text: cell, kind: 'sentence' as const }, terms: ts, coverage: cov.coverage, sentenceCoverage: cov.sentence, own: cov.own, score }];
    })
    .sort((a, b) => b.score - a.score || a.hitRank - b.hitRank);
  // of the two best, the one that says the focus of the question itself ("the total of the bill": a line that says "Total")
  const two = pick(spans, r.weights, 2, [], minCoverage(r.ask));
  const focus = focusTerms(r.ask.text);
  const focusOf = (c: Candidate) => (focus.length ? Math.min(...focus.map((t) => matchOf(t, c.terms))) : 0);
  const picked = two.length > 1 && focusOf(two[1]!) > focusOf(two[0]!) ? [two[1]!] : two.slice(0, 1);
  if (!picked.length) return passage();
  // a value comes from the sentences (or rows) that say the question best; one found elsewhere is not told apart from them
  const same = (a: Candidate, b: Candidate) => a.hit.chunk_id === b.hit.chunk_id && a.unit.start === b.unit.start;
  if (!best.some((b) => same(b, picked[0]!))) return passage();
  // two spans that each say part of the answer, or about as good as each other (similar scores, or nothing in the question to
  // choose), or another of the best sentences holds a value of the asked type too: they are quoted, as a passage below 0.8
  // (a value is ONE sentence or cell)
  if (two.length > 1 && (focusOf(two[1]!) === focusOf(two[0]!) || two[1]!.score >= AMBIGUOUS * two[0]!.score)) return passage(true);
  if (best.some((b) => !same(b, picked[0]!) && b.typed)) return passage(true);
  // (confident, ≥ 0.8, only when the value's label says the question's words, the business labels of other languages included)
  const label = /^(.{1,120}?):\s/.exec(picked[0]!.unit.text)?.[1];
  const labelled = !label || [...termSet(label)].some((t) => qTerms.has(t) || alternativesOf(t).some((y) => qTerms.has(y)));
  const confidence = labelled ? extractiveConfidence(picked, [r.ask], 1) : Math.min(PASSAGE_MAX, extractiveConfidence(picked, [r.ask], 1));
  if (confidence < minConfidence) return passage();
  const text = renderSentences(picked, cites);
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType: 'value' };
}

/** a second span scoring at least this share of the first's is as good as it: both are quoted, as a passage */
const AMBIGUOUS = 0.9;

/** A unit as quoted in a passage: a table row under its columns' header ("Name | Amount — Sheryl | 45"), a cut sentence marked. */
function quoteLabelled(u: Unit): string {
  if (u.kind !== 'row') return quote(u);
  const cells = u.cells ?? u.text.split(' | ');
  const header = u.columns && u.columns.length === cells.length ? u.columns : u.context && u.context !== u.text ? u.context.split(' | ') : null;
  if (!header || header.length !== cells.length) return quote(u);
  // each cell under its column's header, after the row's label: "Students enrolled (2011–12): 18,300; … (2015–16): 19,950"
  const first = cells.findIndex((c) => c.trim());
  const label = cells[first]?.trim() ?? '';
  const labelled = cells.flatMap((c, j) => (j > first && c.trim() ? [header[j]?.trim() ? `${label} (${header[j]!.trim()}): ${c.trim()}` : `${label}: ${c.trim()}`] : []));
  return labelled.length ? labelled.join('; ') : quote(u);
}

/** a passage's confidence stays below this: it quotes, it does not tell which value is the answer */
const PASSAGE_MAX = 0.79;

/** how many chunks from a document's start make its first section, and at most how many words its title has */
const FIRST_CHUNKS = 3;
/** the share of a document-level answer's confidence kept when the document is the search's first, not one the question names */
const DOCUMENT_GUESSED = 0.75;
const TITLE_WORDS = 20;

/**
 * A question about a document as a whole (its title, date, author, what it is about), answered from its title and first
 * section: the document the question names by words of its name, else the knowledge base's only document, else the one
 * the search found first when the question says more than the aspect it asks. Null when no document is meant or its
 * start does not say (the usual answerer then tries).
 */
async function composeDocumentLevel(rt: Engine, aspect: DocumentAspect, question: string, docs: DocumentRecord[], docTerms: DocTerms, r: Retrieval): Promise<Composed | null> {
  // the question's words other than those that ask for the aspect ("the title of this report"): they may name the document
  const own = terms(
    question
      .split(/\s+/)
      .filter((w) => !DOCUMENT_WORDS.test(w.replace(/[^\p{L}]/gu, '')))
      .join(' '),
  );
  const naming = docs.map((d) => ({ d, n: own.filter((t) => !!docTerms.get(d.id)?.names(t)).length })).filter((x) => x.n > 0).sort((a, b) => b.n - a.n);
  const named = !!naming[0] && naming[0].n > (naming[1]?.n ?? 0);
  const doc = named ? naming[0]!.d : docs.length === 1 ? docs[0] : own.length && r.hits[0] ? docs.find((d) => d.id === r.hits[0]!.document_id) : undefined;
  if (!doc) return null;
  // confident only when nothing else may be meant: the question names the document, or the knowledge base has no other
  const sure = named || docs.length === 1 ? 1 : DOCUMENT_GUESSED;
  const rows = (await rt.store.repo('chunks').find({ document_id: doc.id, idx: Array.from({ length: FIRST_CHUNKS }, (_, i) => i) })).sort((a, b) => a.idx - b.idx);
  if (!rows.length) return null;
  const units = rows.flatMap((row) => unitsOf(row.content).map((u) => ({ u, row })));
  // the first section: up to the second heading
  const headings = units.filter((x) => x.u.kind === 'heading');
  const end = headings[1] ? units.indexOf(headings[1]) : units.length;
  const first = units.slice(0, end);
  const titleUnit = headings[0] && units.indexOf(headings[0]) <= 2 ? headings[0] : first.find((x) => x.u.kind !== 'row' && wordCount(x.u.text) <= TITLE_WORDS && !/[.,;:]$/.test(x.u.text));
  const cites = new CitationList();
  const hit = (row: (typeof rows)[number]): SearchHit => ({ chunk_id: row.id, document_id: doc.id, document_name: doc.name, page: row.page, content: row.content, score: 1, metadata: { type: row.type, index: row.idx } });
  const composed = (text: string, confidence: number, answerType: AnswerKind): Composed => ({ text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text), answerType });
  const sentences = first.filter((x) => x.u.kind === 'sentence' && x !== titleUnit && !isFragment(x.u));
  switch (aspect) {
    case 'title':
      return titleUnit ? composed(`${titleUnit.u.text} [${cites.number(hit(titleUnit.row))}]`, round(0.85 * sure, 3), 'value') : null;
    case 'author': {
      const by = first.find((x) => AUTHOR_LINE.test(x.u.text) && wordCount(x.u.text) <= TITLE_WORDS);
      return by ? composed(`${by.u.text} [${cites.number(hit(by.row))}]`, round(0.8 * sure, 3), 'value') : null;
    }
    case 'date': {
      const dated = first.find((x) => x.u.kind !== 'row' && !isFragment(x.u) && holdsFullDate(x.u.text));
      return dated ? composed(`${dated.u.text} [${cites.number(hit(dated.row))}]`, round(0.8 * sure, 3), 'value') : null;
    }
    case 'about': {
      const quoted = [...(titleUnit ? [titleUnit] : []), ...sentences.slice(0, 2)];
      if (!sentences.length) return null;
      return composed(`The documents say: ${quoted.map((x) => `“${x.u.text}” [${cites.number(hit(x.row))}]`).join(' ')}`, round(0.7 * sure, 3), 'passage');
    }
  }
}

/** Code mode: the best-supported explanatory sentence and the code block of the sources that fits best. */
function composeCode(r: Retrieval, prose: Candidate[], cites: CitationList): Composed | null {
  const total = [...r.weights.values()].reduce((a, b) => a + b, 0) || 1;
  const top = r.hits[0]?.score || 1;
  const blocks: { block: CodeBlock; hit: SearchHit; coverage: number; score: number }[] = [];
  for (const hit of r.hits) {
    const chunkTerms = termSet(hit.content);
    for (const block of codeBlocksOf(hit.content)) {
      const bt = termSet(block.code);
      // prose right before the block explains it: count the chunk's terms at a lower weight
      let got = 0;
      let own = 0;
      for (const [t, w] of r.weights) {
        if (bt.has(t)) {
          got += w;
          own++;
        } else if (chunkTerms.has(t)) got += 0.6 * w;
      }
      const cov = got / total;
      if (!own && cov < MIN_COVERAGE) continue;
      blocks.push({ block, hit, coverage: cov, score: 0.7 * cov + 0.3 * (hit.score / top) });
    }
  }
  blocks.sort((a, b) => b.score - a.score);
  const best = blocks[0];
  if (!best || best.coverage < MIN_COVERAGE * 0.8) return null;
  const intro = prose.find((c) => c.hit.chunk_id === best.hit.chunk_id && c.coverage >= MIN_COVERAGE * 0.7) ?? (prose[0] && prose[0].coverage >= MIN_COVERAGE ? prose[0] : undefined);
  const parts: string[] = [];
  const picked: Candidate[] = [];
  if (intro) {
    parts.push(`${quote(intro.unit)} [${cites.number(intro.hit)}]`);
    picked.push(intro);
  }
  const n = cites.number(best.hit);
  parts.push(`\`\`\`${best.block.language}\n${best.block.code}\n\`\`\`\n[${n}]`);
  const second = blocks.find((b) => b !== best && b.hit.chunk_id !== best.hit.chunk_id && b.score >= best.score * 0.85);
  if (second) parts.push(`\`\`\`${second.block.language}\n${second.block.code}\n\`\`\`\n[${cites.number(second.hit)}]`);
  const text = parts.join('\n\n');
  const cov = Math.max(best.coverage, intro?.coverage ?? 0);
  const confidence = round(clamp(0.12 + 0.5 * cov + 0.38 * best.hit.score, 0.05, 0.97), 3);
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens: 0, completionTokens: tokensOf(text) };
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

async function composeWithLlm(rt: Engine, r: Retrieval, req: ChatRequest, mode: ChatMode, history: ChatTurn[]): Promise<LlmOutcome> {
  const llm = rt.registry.get('llm');
  if (!r.hits.length) return refusal(0, 0);
  const sources = r.hits.slice(0, mode === 'deep' ? 12 : 8);
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
  if (refused) {
    const best = candidatesFor(r.hits, r.ask)[0]?.coverage ?? 0;
    return { ...refusal(best, r.hits[0]!.score), promptTokens, completionTokens };
  }
  // the sources cited: by marker, then by quote
  const used = [...renumber.used];
  const unmarked: number[] = [];
  for (const q of quotes) if (q.source >= 1 && q.source <= sources.length && !used.includes(q.source)) unmarked.push(used[used.push(q.source) - 1]!);
  const cited = used.map((n) => sources[n - 1]!);
  const problem = groundingProblem(text, quotes, sources, cited);
  if (problem) return { fallback: 'ungrounded', detail: problem };
  if (unmarked.length) text += ` ${unmarked.map((n) => `[${used.indexOf(n) + 1}]`).join('')}`;
  const cites = new CitationList();
  for (const h of cited) cites.number(h);
  const retrieval = cited.reduce((a, h) => a + h.score, 0) / cited.length;
  const confidence = round(clamp(0.35 + 0.45 * retrieval + 0.1 * Math.min(1, cited.length / 2), 0.05, 0.97), 3);
  const answerType = j.answer_type === 'value' ? 'value' : 'passage';
  return { text, citations: cites.list, confidence, unanswered: false, promptTokens, completionTokens, answerType, answeredBy: 'llm' };
}

// ---------------------------------------------------------------- the answerer

/**
 * Answers a question over a knowledge base: retrieval restricted to its documents (its retrieval settings;
 * quick = its top_k, deep = wider retrieval per question part, code = code-like chunks first), then a
 * grounded LLM answer when an LLM is configured, else an extractive answer quoting the best-supported
 * sentences of the sources. Persists the turn, emits chat events, charges 0.1 credit.
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
  const { idf, docTerms, lower } = await kbTerms(rt, docs);
  const previousQuestion = [...history].reverse().find((t) => t.role === 'user')?.content;
  const context = previousQuestion && isFollowUp(question) ? previousQuestion : undefined;
  const retrieval: Retrieval = docIds.length ? await retrieve(rt, auth, question, mode, settings, docIds, idf, context, docTerms) : { hits: [], parts: [], weights: new Map(), primary: new Set(), ask: ask(question, new Map()) };
  req.signal?.throwIfAborted();

  const offline = async (): Promise<Composed> => {
    const aspect = mode === 'code' ? null : documentAspect(question);
    return (aspect && (await composeDocumentLevel(rt, aspect, question, docs, docTerms, retrieval))) || composeExtractive(retrieval, mode, docTerms, lower, rt.config.chat.minConfidence);
  };
  let composed: Composed;
  const outcome = rt.registry.tryGet('llm') ? await composeWithLlm(rt, retrieval, req, mode, history) : null;
  if (outcome && !('fallback' in outcome)) {
    composed = { ...outcome, answeredBy: 'llm' };
    // the answer is checked before any of it is sent: it streams as words once it holds
    if (req.onDelta) for (const p of composed.text.split(/(?<=\s)/)) if (p) await req.onDelta(p);
  } else {
    composed = { ...(await offline()), answeredBy: 'offline' };
    if (outcome) {
      composed.fallbackReason = outcome.fallback;
      rt.logger.warn({ reason: outcome.fallback, detail: outcome.detail, knowledge_base_id: kb.id }, 'LLM answer not used; answered offline');
    }
    if (req.onDelta) {
      // the extractive answer streams paragraph by paragraph and sentence by sentence
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
    unanswered: composed.unanswered,
    answer_type: composed.unanswered ? 'none' : (composed.answerType ?? 'passage'),
    // an LLM answer is returned only once its quotes and numbers are found in its sources; others quote them
    grounded: true,
    answered_by: composed.answeredBy ?? 'offline',
    fallback_reason: composed.fallbackReason ?? null,
  };
}

/** The public shape of an answer (spec field names). */
export function apiAnswer(a: ChatAnswer) {
  return { session_id: a.session_id, message_id: a.message_id, knowledge_base_id: a.knowledge_base_id, message: a.message, citations: a.citations, confidence: a.confidence, mode: a.mode, answer_type: a.answer_type, grounded: a.grounded, answered_by: a.answered_by, fallback_reason: a.fallback_reason, response_time_ms: a.response_time_ms, created_at: a.created_at, usage: { credits: a.usage.credits } };
}
