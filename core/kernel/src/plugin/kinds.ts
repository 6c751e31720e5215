import os from 'node:os';
import type { z } from 'zod';
import type { BBox, Chunk, ParsedDocument, Word } from '../model/content.js';
import type { BlobStorage, Store } from '../store.js';
import type { Transport } from '../transport/types.js';
import type { Logger } from '../util/logger.js';
import type { EventBus } from '../events/bus.js';
import type { FormatDeclaration } from '../formats.js';
import type { GeneratedDocumentModel } from '../model/generated.js';

/** zod, for plugins' option schemas: the same instance the registry validates with (a plugin needs no zod of its own). */
export { z } from 'zod';

export const PLUGIN_KINDS = [
  'reader',
  'ocr',
  'chunker',
  'embedder',
  'vector-store',
  'extractor',
  'answerer',
  'llm',
  'generator',
  'splitter',
  'editor',
  'integration',
  'storage',
  'store',
  'transport',
] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

/**
 * Settings of the host that several plugins need. A plugin names the ones it uses in its definition's
 * `shared` and finds them, frozen, in `ctx.shared`; no plugin sees the rest of the configuration.
 */
export interface SharedSettings {
  /** time limit of one document parse, ms (QUIRE_PARSE_TIMEOUT_S) */
  'limits.parseTimeoutMs': number;
  /** memory limit of each reader isolate or parse worker process, MB (QUIRE_READER_HEAP_MB) */
  'limits.readerHeapMb': number;
  /** OCR processes at once (QUIRE_OCR_CONCURRENCY); inside a reader isolate, that isolate's share */
  'ocr.concurrency': number;
  /** default OCR language(s): tesseract codes joined with +, or auto (QUIRE_OCR_LANGUAGE) */
  'ocr.language': string;
  /** stage messages a process handles at once (QUIRE_STAGE_CONCURRENCY) */
  'queue.concurrency': number;
  /** deliveries of a stage message before it is dead-lettered (QUIRE_MAX_ATTEMPTS) */
  'queue.maxAttempts': number;
}
export type SharedKey = keyof SharedSettings;

/**
 * Every shared setting with the value a plugin gets when the host gives none (a registry made in a test).
 * The service's values come from its configuration; the keys are also their paths in it.
 */
export const SHARED_DEFAULTS: Readonly<SharedSettings> = Object.freeze({
  'limits.parseTimeoutMs': 600_000,
  'limits.readerHeapMb': 768,
  'ocr.concurrency': Math.max(1, os.availableParallelism?.() ?? os.cpus().length),
  'ocr.language': 'eng',
  'queue.concurrency': 2,
  'queue.maxAttempts': 3,
});

/** What every plugin receives when it is created. */
export interface PluginContext<O = Record<string, unknown>, S extends SharedKey = never> {
  /**
   * The plugin's own options, from config `plugins.options["<kind>:<name>"]`, parsed by its `options`
   * schema (defaults filled in) and deep-frozen. Without a schema: the given options, frozen.
   */
  options: Readonly<O>;
  /** the shared settings the plugin declared in `shared`, frozen */
  shared: Readonly<Pick<SharedSettings, S>>;
  dataDir: string;
  logger: Logger;
  /**
   * Outbound HTTP as the host allows it: https (http only to hosts the host allows), public addresses only
   * unless allowed (the vetted address is the one connected to), no redirects followed, a time limit. A plugin
   * that calls a remote service uses it so that the host's network policy applies.
   */
  http: HttpClient;
  /**
   * The active OCR plugin, for a plugin that declared `uses: ['ocr']` (or `'ocr?'`: undefined when no OCR
   * plugin is active). Reading it without the declaration throws a PluginError that says what to declare.
   */
  readonly ocr: OcrPlugin | undefined;
  /**
   * The active plugin of a kind the plugin declared in `uses` (undefined for an optional use that has none), or
   * with `name` the plugin of that kind and name, declared as `'<kind>:<name>'` (a router over several engines).
   */
  use<K extends UsableKind>(kind: K, name?: string): PluginInstance<K> | undefined;
  /**
   * The reader the host uses for a format the plugin declared in `uses` (`'reader:pdf'`): the one the host
   * chose (e.g. pdf-poppler when configured), not a reader looked up by name.
   */
  readerFor(format: string): ReaderPlugin | undefined;
  /** other plugins by kind and name (prefer `uses` with ctx.ocr / ctx.use / ctx.readerFor) */
  get<K extends PluginKind>(kind: K, name?: string): PluginInstance<K>;
  tryGet<K extends PluginKind>(kind: K, name?: string): PluginInstance<K> | undefined;
}

/** Kinds a plugin may declare in `uses`: those with one active plugin that others call. */
export const USABLE_KINDS = ['ocr', 'llm', 'embedder', 'vector-store', 'chunker', 'extractor'] as const;
export type UsableKind = (typeof USABLE_KINDS)[number];
/**
 * What a plugin uses from others: the active plugin of a kind (`'ocr'`, `'llm'`, …), the reader of a
 * format (`'reader:pdf'`) or a plugin of a kind by name (`'ocr:tesseract'`: the registry makes it before the
 * plugin that uses it, whichever plugin of the kind is active). A trailing `?` makes the use optional: the plugin works without it (a PDF reader
 * reads text layers without OCR). The registry checks required uses at start.
 */
export type PluginUse = UsableKind | `${UsableKind}?` | `reader:${string}` | `reader:${string}?` | `${UsableKind}:${string}` | `${UsableKind}:${string}?`;

/** A request made with the host's HttpClient. */
export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** at most the host's limit */
  timeoutMs?: number;
}
/** The answer: status, headers and the first bytes of the body (as text). */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
export type HttpClient = (url: string, request?: OutboundRequest) => Promise<OutboundResponse>;

/**
 * The legacy manifest: a `quire` field in a plugin's package.json. The manifest is the definition
 * (definePlugin); a package.json that still has this field must agree with it.
 */
export interface PluginManifest {
  kind: PluginKind;
  name: string;
  /** semver range of @quire/core the plugin works with, e.g. "^1" */
  core: string;
  description?: string;
}

/**
 * A plugin module's default export.
 *
 * `options`: a zod schema of the plugin's options with their defaults (use `z.strictObject` so that an
 * unknown option is an error). The registry validates `plugins.options["<kind>:<name>"]` with it when the
 * plugin is registered (if options were given) and when it is created; a bad option stops start-up with
 * a message naming the plugin and the option. `create` gets the parsed options, frozen.
 * `shared`: the shared settings the plugin uses (see SharedSettings).
 * `formats`: readers only, the formats the reader reads (see FormatDeclaration).
 */
export interface PluginDefinition<K extends PluginKind = PluginKind, O = any, S extends SharedKey = any> {
  kind: K;
  name: string;
  /**
   * semver range of the SDK (@quire/sdk, the host's @quire/core) the plugin works with, e.g. "^1". May be
   * left out when the package.json declares it as `peerDependencies["@quire/sdk"]`; both are checked when given.
   */
  core?: string;
  description?: string;
  options?: z.ZodType<O>;
  shared?: readonly S[];
  formats?: FormatDeclaration[];
  /** What the plugin uses from other plugins (see PluginUse); the context gives only these (ctx.ocr, ctx.use, ctx.readerFor). */
  uses?: readonly PluginUse[];
  /** Creates the instance. May be async (open connections, spawn workers). */
  create(ctx: PluginContext<O, S>): CreatedInstance<K> | Promise<CreatedInstance<K>>;
}

export function definePlugin<K extends PluginKind, O = Record<string, unknown>, const S extends SharedKey = never>(def: PluginDefinition<K, O, S>): PluginDefinition<K, O, S> {
  return def;
}

interface Lifecycle {
  /** What this instance needs from the system and whether it has it (shown by /readyz and at start). */
  health?(): Promise<{ ok: boolean; message?: string }>;
  close?(): Promise<void>;
}

// ---------- reader / ocr ----------
/** Pages of a document a reader has read so far, of all its pages (ReadOptions.onProgress). */
export interface PagesRead {
  done: number;
  total: number;
}

export interface ReadOptions {
  /**
   * OCR of pages without a text layer. `defer`: the read is the pipeline's `read` stage and OCR is its own
   * `ocr` stage; a reader that can tell which pages need OCR does not OCR them, reads the rest and lists
   * them (1-based) in the document's `metadata.ocrPending` (OCR_PENDING_KEY); the `ocr` stage then has
   * them OCRed (ReaderPlugin.ocrPages, else a read with OCR). A reader that ignores it OCRs as usual.
   * `agentic`: each page OCRed is read twice and each line taken from the more confident reading
   * (metadata.agentic, AgenticOcrReport).
   */
  ocr: { enabled: boolean | 'auto'; language: string; agentic?: boolean; defer?: boolean };
  /** abort the read (timeouts, cancelled jobs) */
  signal?: AbortSignal;
  /** anonymous conversions read only the first pages */
  maxPages?: number;
  /**
   * progress 0..1; a reader that reads page by page also gives the pages read so far and the document's
   * page count (shown on the job as progress_detail.pages_read / pages_total)
   */
  onProgress?: (fraction: number, pages?: PagesRead) => void;
  /** bounds on what a reader takes out of one document (defaults: DEFAULT_READ_LIMITS) */
  limits?: Partial<ReadLimits>;
}

/**
 * What a reader may take out of one document. A reader that reaches a limit stops and throws
 * errors.unprocessable(...) naming it ("decompressed size exceeds 512 MB"), which fails the job at once.
 */
/** The document metadata key where a read with `ocr.defer` lists the pages left for the `ocr` stage. */
export const OCR_PENDING_KEY = 'ocrPending';

/** The pages a deferred read left for the `ocr` stage (none when it OCRed itself or nothing needs OCR). */
export function ocrPendingOf(doc: Pick<ParsedDocument, 'metadata'>): number[] {
  const v = (doc.metadata as Record<string, unknown> | undefined)?.[OCR_PENDING_KEY];
  return Array.isArray(v) ? v.filter((n): n is number => typeof n === 'number') : [];
}

export interface ReadLimits {
  /** inflated bytes of all parts of a zip-based file together (docx, xlsx, pptx); one part gets at most half */
  decompressedBytes: number;
  /** pages, slides or sheets */
  pages: number;
  /** spreadsheet cells */
  cells: number;
  /** pixels of one decoded image or rendered page */
  imagePixels: number;
}

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = Object.freeze({
  decompressedBytes: 512 * 1024 * 1024,
  pages: 5000,
  cells: 2_000_000,
  imagePixels: 100_000_000,
});

/** The limits of a read: the defaults overridden by what the caller set. */
export function readLimits(options?: Pick<ReadOptions, 'limits'>): ReadLimits {
  return { ...DEFAULT_READ_LIMITS, ...(options?.limits ?? {}) };
}
export interface ReaderInput {
  /** local file path made by Quire (never a user-chosen path) */
  path: string;
  /** display name (user's file name) */
  name: string;
  format: string;
  size: number;
  documentId: string;
}
export interface ReaderPlugin extends Lifecycle {
  /**
   * ids of the formats this reader reads, e.g. ['pdf']: set by the registry from the definition's
   * `formats`. (A reader whose definition declares none may list ids here itself: built-in formats, or
   * formats it is only ever handed by id.)
   */
  formats: string[];
  /**
   * true when the reader already runs its parsing off the calling thread, bounded in memory and time (its
   * own worker threads with resourceLimits, or child processes). Other readers are run by the host inside
   * an isolated worker thread with a heap limit and a wall-clock limit.
   */
  isolated?: boolean;
  read(input: ReaderInput, options: ReadOptions): Promise<ParsedDocument>;
  /**
   * Optional: page `page` (1-based) drawn as a colour PNG at `dpi` (fewer dots when the image would pass
   * `maxPixels`), for people to look at (the studio's page view). Bounded like read(): off the calling
   * thread, stopped by `signal`.
   */
  renderPage?(input: ReaderInput, page: number, options: { dpi: number; maxPixels: number; signal?: AbortSignal }): Promise<{ png: Buffer; width: number; height: number }>;
  /**
   * Optional: OCR of the pages (1-based) a read with `ocr.defer` left (metadata.ocrPending), without reading
   * the document's other pages again. The reader renders each of them, has the OCR plugin read it and lays
   * the result out as read() would; it answers a document of those pages only (their pages with words,
   * blocks and tables in page coordinates, issues, metadata.ocrEngine; with `ocr.agentic`,
   * metadata.agentic), which the `ocr` stage merges into the stored document (mergeOcrPages). A reader
   * without it is read again whole, with OCR.
   */
  ocrPages?(input: ReaderInput, pages: number[], options: ReadOptions): Promise<ParsedDocument>;
}

/** What agentic OCR (`ocr.agentic`) did on a document (metadata.agentic): the pages where the second reading changed a line. */
export const AGENTIC_KEY = 'agentic';
export interface AgenticOcrReport {
  /** pages OCRed twice */
  pages_read: number[];
  /** pages where a line of the second reading replaced (or was added to) the first */
  pages_changed: number[];
  /** lines taken from the second reading */
  lines_changed: number;
}

export interface OcrResult {
  text: string;
  words: Word[];
  /** lines of words, in reading order, each with a bbox */
  lines: { text: string; bbox: BBox; confidence: number }[];
  confidence: number;
  width: number;
  height: number;
  /** the engine that read it, when the plugin routes between engines (`tesseract`, `ppocr`): readers keep it as the document's `ocrEngine` */
  engine?: string;
}
export interface OcrPlugin extends Lifecycle {
  /** imagePath must be a path Quire created. `language`: tesseract codes ('eng', 'eng+deu') or 'auto'. */
  recognize(imagePath: string, options: { language: string; signal?: AbortSignal; dpi?: number }): Promise<OcrResult>;
  /** languages installed */
  languages(): Promise<string[]>;
  /**
   * Loads now what the first recognition would load (models, runtimes): called in the background at start by
   * a process that runs the `ocr` stage. Without it, or in any other process, nothing heavy is loaded before
   * the first image, and health() stays cheap until then.
   */
  warm?(): Promise<void>;
}

// ---------- chunker ----------
export interface ChunkOptions {
  strategy: 'semantic' | 'fixed' | 'page';
  max_chunk_size: number;
  overlap: number;
  table_output_format: 'markdown' | 'html' | 'json';
}
export interface ChunkerPlugin extends Lifecycle {
  chunk(doc: ParsedDocument, options: ChunkOptions): Chunk[];
}

// ---------- embedder / vector store ----------
export interface EmbedderPlugin extends Lifecycle {
  /** stable id of the vector space, e.g. 'local-hash-v1' or 'openai:text-embedding-3-small' */
  readonly space: string;
  readonly dimension: number;
  embed(texts: string[], purpose: 'document' | 'query'): Promise<Float32Array[]>;
}
export interface VectorItem {
  id: string; // chunk id
  documentId: string;
  userId: string;
  organizationId: string | null;
  page: number;
  text: string;
  vector: Float32Array;
  metadata?: Record<string, unknown>;
}
export interface VectorFilter {
  /** restrict to these documents (collections, knowledge bases) */
  documentIds?: string[];
  /** owner scope: items of this user, or of any of these organizations */
  userId?: string;
  organizationIds?: string[];
}
export interface VectorHit {
  id: string;
  documentId: string;
  page: number;
  text: string;
  score: number;
  metadata?: Record<string, unknown>;
}
export interface VectorStorePlugin extends Lifecycle {
  upsert(space: string, items: VectorItem[]): Promise<void>;
  /** hybrid search: `text` for keyword scoring, `vector` for similarity; alpha 0 = keyword only, 1 = vector only */
  search(space: string, query: { text: string; vector: Float32Array; topK: number; filter: VectorFilter; alpha?: number }): Promise<VectorHit[]>;
  deleteDocument(documentId: string): Promise<void>;
  count(space: string): Promise<number>;
  /** As Store.checkpoint: empties a local write-ahead log into the index file, so deleted text lingers in neither. */
  checkpoint?(): Promise<void>;
  /** Gives a document's items another owner (its rows were handed over, e.g. when their creator's account is erased). */
  setOwner?(documentId: string, owner: { userId: string; organizationId: string | null }): Promise<void>;
}

// ---------- llm / extractor ----------
export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
export interface LlmPlugin extends Lifecycle {
  readonly model: string;
  complete(request: {
    messages: LlmMessage[];
    jsonSchema?: { name: string; schema: Record<string, unknown> };
    temperature?: number;
    maxTokens?: number;
    signal?: AbortSignal;
  }): Promise<{ content: string; usage: { prompt_tokens: number; completion_tokens: number } }>;
  /** with `jsonSchema`, the deltas are pieces of one JSON object, to be parsed once all have come */
  stream?(request: { messages: LlmMessage[]; jsonSchema?: { name: string; schema: Record<string, unknown> }; temperature?: number; maxTokens?: number; signal?: AbortSignal }): AsyncIterable<string>;
}

export interface FieldDefinition {
  id?: string;
  name: string;
  type: 'string' | 'number' | 'boolean' | 'date' | 'array' | 'object';
  description?: string;
  required?: boolean;
  items?: FieldDefinition;
  properties?: Record<string, FieldDefinition>;
}
export interface Evidence {
  text: string;
  page: number;
  bbox: BBox | null;
  confidence: number;
  chunk_id?: string;
  span?: { start: number; end: number };
}
export interface FieldResult {
  field: string;
  value: unknown;
  confidence: number;
  evidence: Evidence | null;
  /** with an LLM configured: `llm` (its value, its quote found in the document with the value in it) or `offline` */
  answered_by?: 'llm' | 'offline';
  /** with answered_by `offline`: `ungrounded` (the LLM's value was not borne out) or `llm_unavailable` (it failed after its retries) */
  fallback_reason?: 'ungrounded' | 'llm_unavailable' | null;
}
export type ExtractionEvent =
  | { type: 'progress'; progress: number; progress_message?: string }
  | { type: 'field_extracted'; field: { fieldId: string; fieldName: string; value: unknown; confidence: number } }
  | { type: 'chunk_done'; chunk_index: number; partial_data?: unknown };
export interface ExtractorPlugin extends Lifecycle {
  extract(request: {
    doc: ParsedDocument;
    chunks: Chunk[];
    fields: FieldDefinition[];
    instructions?: string;
    settings?: Record<string, unknown>;
    signal?: AbortSignal;
    onEvent?: (e: ExtractionEvent) => void | Promise<void>;
  }): Promise<{ data: Record<string, unknown>; fieldResults: FieldResult[] }>;
  /** propose fields from a document (schema generation) */
  suggestFields?(doc: ParsedDocument): Promise<(FieldDefinition & { suggestionReason: string })[]>;
}

// ---------- answerer ----------
/** The answer when the sources do not support one. */
export const NOT_FOUND_ANSWER = "I could not find this in the knowledge base's sources.";

/** A passage the host's retrieval found for a question: a chunk of a document of the knowledge base, with its search score. */
export interface AnswerSource {
  chunk_id: string;
  document_id: string;
  document_name: string;
  page: number;
  content: string;
  /** 0..1 */
  score: number;
  /** what the index stores with the chunk (`type`, `index`: its position in the document; `role: 'furniture'`: running heads and footers, after the body) */
  metadata: Record<string, unknown>;
}
/** A stored chunk of a document, as `AnswerRequest.chunks` reads it. */
export interface AnswerChunk {
  id: string;
  document_id: string;
  /** position in the document, from 0 */
  idx: number;
  page: number;
  type: string;
  content: string;
}
/** A document of the knowledge base (completed ones only). */
export interface AnswerDocument {
  id: string;
  name: string;
  /** changes whenever the document's chunks may have changed: a key for what an answerer caches about it */
  version: string;
}
/**
 * The knowledge base's term statistics, as the host's retrieval computes them (terms as `terms()` of @quire/text
 * makes them): chunk-level document frequencies and each document's terms.
 */
export interface AnswerTermStats {
  /** chunks in the knowledge base */
  chunks: number;
  /** how many chunks of the knowledge base have the term */
  df(term: string): number;
  /** per document id: whether a term occurs in the document (or its name), and whether its name has the term */
  documents: ReadonlyMap<string, { has(term: string): boolean; names(term: string): boolean }>;
  /** words the documents write in lower case somewhere: capitalised, they are not names */
  lower: ReadonlySet<string>;
}
export interface AnswerRequest {
  question: string;
  mode: 'quick' | 'deep' | 'code';
  /** the previous question, when this one follows up on it ("and its date?") */
  context?: string;
  /** earlier turns of the session, oldest first */
  history: { role: 'user' | 'assistant'; content: string }[];
  /** what the host's retrieval found (restricted to the knowledge base and the caller's documents), best first */
  sources: AnswerSource[];
  documents: AnswerDocument[];
  terms: AnswerTermStats;
  /** stored chunks of one of `documents` (at the given positions, else all of them), e.g. a document's first section */
  chunks(documentId: string, idx?: number[]): Promise<AnswerChunk[]>;
  /** answers less confident than this are not given (QUIRE_CHAT_MIN_CONFIDENCE): the refusal instead */
  minConfidence: number;
  signal?: AbortSignal;
}
/**
 * An answer. Its text cites sources with markers [1], [2]… numbering `citations` (each one of the request's
 * sources, by chunk_id: the host presents its own copy, and drops a citation of anything else).
 */
export interface AnswerResult {
  text: string;
  citations: { chunk_id: string }[];
  /** 0..1 */
  confidence: number;
  /** `value` (a typed value: one sentence or one table cell), `passage` (quoted sentences), `none` (the refusal: `NOT_FOUND_ANSWER`) */
  answer_type: 'value' | 'passage' | 'none';
  /** tokens read and written, when the answerer counts them (an LLM's own counts); else the host estimates them */
  usage?: { prompt_tokens: number; completion_tokens: number };
}
/**
 * Answers chat questions from the passages the host's retrieval found. The host keeps the session, credits,
 * streaming and presenting; with an LLM configured (QUIRE_LLM_*) it asks the LLM first and calls the answerer
 * when the LLM is unavailable or not borne out by the sources. One is active (QUIRE_ANSWERER; `offline` by default).
 */
export interface AnswererPlugin extends Lifecycle {
  answer(request: AnswerRequest): Promise<AnswerResult>;
  /**
   * Optional: the refusal of this question (answer_type `none`, confidence lower the less the sources cover it), which
   * the host gives when its LLM says the sources do not answer. Without it: NOT_FOUND_ANSWER at confidence 0.05.
   */
  refusal?(request: AnswerRequest): AnswerResult;
}

// ---------- later kinds: generator, splitter, editor, integration ----------
/**
 * A format writer of generated documents: turns the engine's structured model (title, headings,
 * paragraphs, tables, lists, citations; model/generated.ts) into the bytes of one of its `formats`.
 * A writer that needs something missing on the machine (a browser) throws errors.unavailable naming it.
 */
export interface GeneratorPlugin extends Lifecycle {
  formats: string[];
  generate(request: { format: string; document: GeneratedDocumentModel; signal?: AbortSignal }): Promise<{ bytes: Buffer; mime: string; extension: string }>;
}
/** A section a splitter suggests: pages [page_start, page_end] (1-based, inclusive) of one document. */
export interface SplitSuggestion {
  name: string;
  page_start: number;
  page_end: number;
  /** 0..1: how sure the splitter is of this section's start and of no further boundary inside it */
  confidence: number;
  /** the signals that placed the section's start, in words */
  reason: string;
  /** detected document type (invoice, receipt, form, letter, report, statement, contract, article, other) or null */
  document_type?: string | null;
  /** 0..1: how sure the splitter is of document_type */
  document_type_confidence?: number | null;
  /** short names of the signals at the start (heading, numbering_restart, ...) */
  signals?: string[];
}
export interface SplitDetectOptions {
  /** natural-language instructions (e.g. "one section per receipt", "split every 2 pages", "3 sections") */
  instructions?: string;
  /** no section shorter than this many pages (default 1) */
  minSectionPages?: number;
  /** optional vector per page (e.g. the mean of its chunk embeddings), for the topic-shift signal; null for pages without text */
  pageVectors?: (Float32Array | null)[];
  signal?: AbortSignal;
}
export interface SplitterPlugin extends Lifecycle {
  detect(doc: ParsedDocument, options: SplitDetectOptions): Promise<SplitSuggestion[]>;
}
/** A fillable element of a form (spec §2.2 "Edit element"); bbox in page points, top-left origin. */
export interface EditElement {
  id: string;
  type: 'text_field' | 'date_field' | 'number_field' | 'checkbox' | 'radio' | 'dropdown' | 'signature';
  label: string;
  page: number;
  bbox: BBox;
  required?: boolean;
  current_value?: string;
  /** date fields: the pattern dates are written in (e.g. MM/DD/YYYY) */
  format?: string;
  checked?: boolean;
  options?: string[];
  /** radios: the caption printed beside each option's button, in the order of options ('' when none) */
  option_labels?: string[];
  /** a radio found on a flat page: the box of each option's circle, in the order of options (where its mark is drawn) */
  option_boxes?: BBox[];
  multi?: boolean;
  max_length?: number;
  comb?: boolean;
  multiline?: boolean;
  /** acroform: a field of the file's form; blank: a place found on a flat page */
  source: 'acroform' | 'blank';
  /** the AcroForm field's full name */
  field_name?: string;
}
/** The layout of a parsed document an editor needs to name and find blanks: page sizes and words with boxes. */
export interface EditLayout {
  pages: { number: number; width: number; height: number; words: Word[] }[];
}
export interface EditFillValue {
  element: EditElement;
  /** text for text fields and dropdowns, the option for radios, true/false for checkboxes */
  value: string | boolean | string[];
}
export interface EditorPlugin extends Lifecycle {
  formats: string[];
  /**
   * `renderPage`: page n of a PDF drawn as a PNG (by the host's PDF reader), for the drawn geometry of flat
   * pages (boxes, underlines, checkbox squares), at 144 dpi or the `dpi` asked (at most 288); null when it cannot be drawn.
   */
  detect(path: string, options: { format: string; layout?: EditLayout; include_checkboxes?: boolean; include_signatures?: boolean; signal?: AbortSignal; renderPage?: (page: number, dpi?: number) => Promise<Buffer | null> }): Promise<EditElement[]>;
  fill(path: string, values: EditFillValue[], options: { format: string; flatten?: boolean; color?: string; layout?: EditLayout }): Promise<{ bytes: Buffer; mime: string; warnings: string[]; applied: { id: string; value: string }[] }>;
  /** the values of a filled file's form fields by element id (AcroForm files), for verification */
  readValues?(path: string, options: { format: string }): Promise<Record<string, string | boolean | string[] | null>>;
  /** an element's box cut out of an image (PNG, on a white margin), for OCR of each filled box in verification */
  cropImage?(path: string, options: { format: string; layout?: EditLayout; bbox: BBox }): Promise<Buffer>;
}
/** What a workflow step hands an integration to send. */
export interface IntegrationMessage {
  /** the step's rendered template, else the execution's context as JSON */
  body: string;
  /** the rendered subject, when the step, the target or the plugin (`subject`) gives one */
  subject?: string;
  /** the workflow and execution that send it (absent for the host's own notices) */
  workflow?: { id: string; name: string };
  execution?: { id: string };
}
/** What was sent (the step log's input) and what came back (its output). */
export interface IntegrationResult {
  sent: Record<string, unknown>;
  result: Record<string, unknown>;
}
/**
 * Sends a workflow's message somewhere (a chat, an HTTP endpoint, email). A step names the plugin
 * (`{"type": "plugin", "plugin": "integration:<name>", "config": {...}}`) or a saved integration whose type
 * maps to it (messaging → integration:slack, webhook → integration:http, email → integration:email).
 * `config` is where to send (the target): validated by the `target` schema when saved and when sent.
 */
export interface IntegrationPlugin extends Lifecycle {
  /** zod schema of a target's config (use z.strictObject) */
  readonly target?: z.ZodType<Record<string, unknown>>;
  /** target fields that are secret: kept encrypted in saved integrations and masked in answers */
  readonly secretFields?: readonly string[];
  /** a subject template used when neither step nor target gives one (email) */
  readonly subject?: string;
  /** the addresses a target sends to: the host allows only its recipients (the owner, an organization's members) */
  recipients?(target: Record<string, unknown>): string[];
  /**
   * Sends the message. A failure throws; an error may carry `sent` (what was attempted) for the step's log
   * (see sendFailed).
   */
  send(request: { target: Record<string, unknown>; message: IntegrationMessage; signal?: AbortSignal }): Promise<IntegrationResult>;
}

/** An integration's failure with what it attempted to send (shown in the step's log). */
export function sendFailed(err: unknown, sent: Record<string, unknown>): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  return Object.assign(e, { sent });
}

export interface StoragePlugin extends Lifecycle, BlobStorage {}
export interface StorePlugin extends Store { health?(): Promise<{ ok: boolean; message?: string }> }
export interface TransportPlugin extends Transport { health?(): Promise<{ ok: boolean; message?: string }> }

export interface PluginInstances {
  reader: ReaderPlugin;
  ocr: OcrPlugin;
  chunker: ChunkerPlugin;
  embedder: EmbedderPlugin;
  'vector-store': VectorStorePlugin;
  extractor: ExtractorPlugin;
  answerer: AnswererPlugin;
  llm: LlmPlugin;
  generator: GeneratorPlugin;
  splitter: SplitterPlugin;
  editor: EditorPlugin;
  integration: IntegrationPlugin;
  storage: StoragePlugin;
  store: StorePlugin;
  transport: TransportPlugin;
}
export type PluginInstance<K extends PluginKind> = PluginInstances[K];

/** What create() returns: the instance; a reader may leave `formats` to its definition's declarations. */
export type CreatedInstance<K extends PluginKind> = K extends 'reader' ? Omit<ReaderPlugin, 'formats'> & { formats?: string[] } : PluginInstance<K>;
