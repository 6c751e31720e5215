import { AGENTIC_KEY, ReaderSandbox, errors, isQuireError, jsonPieces, mergeOcrPages, ocrPendingOf } from '@quire/core';
import type { AgenticOcrReport, BBox, Chunk, ChunkRecord, Owned, ParsedDocument, ReadJson, PagesRead, ProgressDetail, ReadLimits, ReaderPlugin, StageContext, VectorItem } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { chunkOptions } from './parse-config.js';
import type { ParseConfig } from './parse-config.js';
import { round } from '@quire/text';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { EventLoopUtilization } from 'node:perf_hooks';

/**
 * The steps every parse is made of (read → chunk → index). Pipeline stages, the synchronous parse
 * endpoint and the runner all call these same functions.
 */

/** The registry's reader of a format: the last registered reader that reads it (a third-party plugin may replace a built-in). */
export function readerFor(rt: Pick<Engine, 'registry'>, format: string): ReaderPlugin {
  return rt.registry.readerFor(format).instance;
}

/** The isolated reader threads of this registry (made at the first read, closed with the registry). */
function sandboxOf(rt: Pick<Engine, 'registry' | 'config'>): ReaderSandbox {
  return rt.registry.service('reader-sandbox', () => {
    const sandbox = new ReaderSandbox(rt.registry, { threads: rt.config.limits.readerThreads, heapMb: rt.config.limits.readerHeapMb });
    return { value: sandbox, close: () => sandbox.close() };
  });
}

/** The read limits of the config. */
export function configReadLimits(rt: Pick<Engine, 'config'>): ReadLimits {
  const l = rt.config.limits;
  return { decompressedBytes: l.decompressedBytes, pages: l.maxPages, cells: l.maxCells, imagePixels: l.maxImagePixels };
}

export interface FileRef {
  /** local path of a file Quire stored */
  path: string;
  name: string;
  format: string;
  size: number;
  id: string;
}

/** What a read needs: the reader for the format, its input and options, and the time limit. */
function readPlan(rt: Pick<Engine, 'registry' | 'config'> & Partial<Pick<Engine, 'metrics'>>, file: FileRef, cfg: ParseConfig, opts: { signal?: AbortSignal; maxPages?: number; onProgress?: (f: number, pages?: PagesRead) => void; deferOcr?: boolean }) {
  const reader = rt.registry.readerFor(file.format);
  const timeout = AbortSignal.timeout(rt.config.limits.parseTimeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const input = { path: file.path, name: file.name, format: file.format, size: file.size, documentId: file.id };
  const options = {
    ocr: { enabled: cfg.ocr.enabled, language: cfg.ocr.language ?? rt.config.ocr.language, agentic: cfg.ocr.agentic, ...(opts.deferOcr ? { defer: true } : {}) },
    signal,
    maxPages: opts.maxPages,
    onProgress: opts.onProgress,
    limits: configReadLimits(rt),
  };
  // readers that do not bound themselves run in an isolate with a heap limit, off this event loop
  const sandbox = reader.instance.isolated ? null : sandboxOf(rt);
  const isolate = sandbox?.canRunPlugin('reader', reader.name) ? sandbox : null;
  const failed = (e: unknown): unknown => {
    if (timeout.aborted) return errors.processing(`Parsing timed out after ${Math.round(rt.config.limits.parseTimeoutMs / 1000)} s`);
    if (opts.signal?.aborted) return e;
    if (isQuireError(e)) return e;
    rt.metrics?.pluginFailed(`reader:${reader.name}`);
    // the message of an unexpected error stays in the log: users get what failed, not an internal detail
    return errors.processing(`${file.format.toUpperCase()} could not be read: the file is damaged or not a valid ${file.format} file`, { cause: (e as Error)?.name ?? 'Error' });
  };
  return { reader, input, options, isolate, failed };
}

export async function readFile(rt: Pick<Engine, 'registry' | 'config'> & Partial<Pick<Engine, 'metrics'>>, file: FileRef, cfg: ParseConfig, opts: { signal?: AbortSignal; maxPages?: number; onProgress?: (f: number, pages?: PagesRead) => void } = {}): Promise<ParsedDocument> {
  const { reader, input, options, isolate, failed } = readPlan(rt, file, cfg, opts);
  let doc: ParsedDocument;
  try {
    doc = isolate ? await isolate.read(reader.name, input, options) : await reader.instance.read(input, options);
  } catch (e) {
    throw failed(e);
  }
  rt.metrics?.ocr(doc.pages.filter((p) => p.ocr).length);
  return doc;
}

/** What the read stage needs to know of a document it stored. */
export interface StoredRead {
  pages: number;
  ocrPages: number;
  /** what agentic OCR (ocr.agentic) did, when it ran and the reader said (metadata.agentic) */
  agentic?: AgenticOcrReport;
  /**
   * Pages the reader left for the `ocr` stage (a read with `deferOcr`): the stage OCRs them
   * (ocrPendingToStorage). Empty when nothing needs OCR, or the reader OCRed them itself.
   */
  ocrPending: number[];
  issues: ParsedDocument['issues'];
  /**
   * The document's chunks, when the caller asked for them (`chunk`) and the reader built the document in
   * this process (the PDF reader assembles its workers' pages here), up to INLINE_CHUNK_PAGES pages:
   * chunking what is already in memory costs a few milliseconds, where the chunk stage would read the
   * stored JSON back in an isolate.
   */
  chunks?: Chunk[];
}

/**
 * Reads a file and stores the parsed document as JSON under `key`. A reader in an isolate writes the JSON to
 * a file that is streamed into storage, so a large document is never turned into objects (or one large
 * string) on this event loop.
 */
export async function readFileToStorage(
  rt: Pick<Engine, 'registry' | 'config' | 'storage'> & Partial<Pick<Engine, 'metrics'>>,
  file: FileRef,
  cfg: ParseConfig,
  key: string,
  opts: {
    signal?: AbortSignal;
    onProgress?: (f: number, pages?: PagesRead) => void;
    chunk?: boolean;
    deferOcr?: boolean;
    /**
     * Hears the chunks of a document chunked where it was read (see StoredRead.chunks) before its JSON is
     * saved: what it starts (storing and indexing them, the embedding in the embedder's own thread) runs
     * while this thread encodes and writes the JSON. Awaited before the read returns.
     */
    onChunks?: (chunks: Chunk[]) => Promise<void>;
  } = {},
): Promise<StoredRead> {
  const { reader, input, options, isolate, failed } = readPlan(rt, file, cfg, opts);
  // only the read's errors are the reader's: a storage failure keeps its own (transient) kind
  let read: ReadJson | null = null;
  let doc: ParsedDocument | null = null;
  try {
    if (isolate) read = await isolate.readJson(reader.name, input, options, ...readJsonFile(rt, key));
    else doc = await reader.instance.read(input, options);
  } catch (e) {
    throw failed(e);
  }
  if (read) {
    try {
      await rt.storage.put(key, fs.createReadStream(read.file));
    } finally {
      await fs.promises.rm(read.file, { force: true });
    }
    rt.metrics?.ocr(read.ocrPages);
    return { pages: read.pages, ocrPages: read.ocrPages, ocrPending: read.ocrPending ?? [], issues: read.issues };
  }
  // a longer document is chunked by the chunk stage, in an isolate: chunking it here would hold this event
  // loop for more than ~50 ms
  // (a document with pages left for the ocr stage is chunked once they are read)
  const ocrPending = ocrPendingOf(doc!);
  const chunks = opts.chunk && !ocrPending.length && doc!.pages.length <= INLINE_CHUNK_PAGES ? chunkParsed(rt, doc!, cfg) : undefined;
  // the chunks' own work starts first (their embedding goes to the embedder's thread at once), then the
  // JSON is encoded and saved on this thread meanwhile
  const onChunks = chunks && opts.onChunks ? opts.onChunks(chunks) : null;
  onChunks?.catch(() => {});
  try {
    await saveParsed(rt, key, doc!);
  } finally {
    await onChunks?.catch(() => {});
  }
  await onChunks;
  const ocrPages = doc!.pages.filter((p) => p.ocr).length;
  rt.metrics?.ocr(ocrPages);
  const agentic = doc!.metadata[AGENTIC_KEY] as AgenticOcrReport | undefined;
  return { pages: doc!.pages.length, ocrPages, ocrPending, issues: doc!.issues, ...(chunks ? { chunks } : {}), ...(agentic ? { agentic } : {}) };
}

/**
 * The `ocr` stage: the pages a deferred read left (`pending`) OCRed by the reader (ReaderPlugin.ocrPages: only
 * those pages are drawn and read, the text layer of the others is not read again) and merged into the
 * document stored under `key` (mergeOcrPages: the OCRed pages' words, blocks and tables in their place in the
 * reading order). A reader without ocrPages reads the document again whole, with OCR, as before.
 */
export async function ocrPendingToStorage(rt: Pick<Engine, 'registry' | 'config' | 'storage'> & Partial<Pick<Engine, 'metrics'>>, file: FileRef, cfg: ParseConfig, key: string, pending: number[], opts: { signal?: AbortSignal; onProgress?: (f: number, pages?: PagesRead) => void; chunk?: boolean } = {}): Promise<StoredRead> {
  const { reader, input, options, isolate, failed } = readPlan(rt, file, cfg, opts);
  if (typeof reader.instance.ocrPages !== 'function') {
    return readFileToStorage(rt, file, cfg, key, opts);
  }
  let ocred: ParsedDocument;
  try {
    ocred = isolate ? await isolate.ocrPages(reader.name, input, pending, options) : await reader.instance.ocrPages(input, pending, options);
  } catch (e) {
    throw failed(e);
  }
  const doc = mergeOcrPages(await loadParsed(rt, key), ocred);
  await saveParsed(rt, key, doc);
  const chunks = opts.chunk && doc.pages.length <= INLINE_CHUNK_PAGES ? chunkParsed(rt, doc, cfg) : undefined;
  const ocrPages = ocred.pages.filter((p) => p.ocr).length;
  rt.metrics?.ocr(ocrPages);
  const agentic = ocred.metadata[AGENTIC_KEY] as AgenticOcrReport | undefined;
  return { pages: doc.pages.length, ocrPages: doc.pages.filter((p) => p.ocr).length, ocrPending: [], issues: doc.issues, ...(chunks ? { chunks } : {}), ...(agentic ? { agentic } : {}) };
}

/**
 * Where an isolate writes a read's JSON: the storage's temporary name beside the stored blob, so that a file
 * left by a killed process is swept with the storage's other leftovers; else the isolate's default (the
 * system's temporary folder).
 */
function readJsonFile(rt: Pick<Engine, 'storage'>, key: string): [string] | [] {
  const tmp = rt.storage.tempPath?.(key);
  return tmp ? [tmp] : [];
}

/**
 * The page counts of a read in progress (job.progress_detail): the read stage's pages read; the ocr stage's
 * pass over the pages it OCRs is not counted as pages read.
 */
export function readCounts(readStage: boolean, pages: PagesRead | undefined): ProgressDetail {
  return readStage && pages ? { pages_total: pages.total, pages_read: pages.done } : {};
}

/**
 * The read and ocr stages of the upload (ingest) and the parse pipeline alike. Without `pending` (the read
 * stage) the file is read into stored content under `key` with OCR deferred: the pages that need OCR are left
 * out and listed in the result's ocrPending. With `pending` (the ocr stage) those pages alone are OCRed and
 * merged into that content. The stage hears the pages read as they go; `local` runs the work on a local path
 * of the file. `chunk`, `onChunks`: see readFileToStorage.
 */
export async function readStep(
  rt: Pick<Engine, 'registry' | 'config' | 'storage'> & Partial<Pick<Engine, 'metrics'>>,
  stage: Pick<StageContext, 'signal' | 'report'>,
  local: (work: (path: string) => Promise<StoredRead>) => Promise<StoredRead>,
  file: Omit<FileRef, 'path'>,
  cfg: ParseConfig,
  key: string,
  pending: number[] | undefined,
  extra: { chunk?: boolean; onChunks?: (chunks: Chunk[]) => Promise<void> } = {},
): Promise<StoredRead> {
  const readStage = !pending;
  return local((path) => {
    const ref = { ...file, path };
    const opts = { signal: stage.signal, onProgress: (f: number, pages?: PagesRead) => void stage.report(readCounts(readStage, pages), f).catch(() => {}), ...(extra.chunk ? { chunk: true } : {}) };
    if (pending) return ocrPendingToStorage(rt, ref, cfg, key, pending, opts);
    return readFileToStorage(rt, ref, cfg, key, { ...opts, deferOcr: true, ...(extra.onChunks ? { onChunks: extra.onChunks } : {}) });
  });
}

/** What a read step reports once done: the pages read (the read stage) and those OCRed. */
export function readReport(read: StoredRead, readStage: boolean): ProgressDetail {
  return { ...(readStage ? { pages_total: read.pages, pages_read: read.pages } : {}), pages_ocr: read.ocrPages };
}

/** Documents of at most this many pages, built in this process by their reader, are chunked where they were read. */
const INLINE_CHUNK_PAGES = 400;

/** Chunks the parsed document stored under `key`; in an isolate when the chunker and the file allow it. */
export async function chunkStored(rt: Pick<Engine, 'registry' | 'config' | 'storage'>, key: string, cfg: ParseConfig, signal?: AbortSignal): Promise<Chunk[]> {
  const name = rt.registry.settings.selected?.chunker;
  const local = rt.storage.localPath(key);
  const sandbox = sandboxOf(rt);
  if (name && local && sandbox.canRunPlugin('chunker', name)) return sandbox.chunk(name, local, chunkOptions(cfg), signal);
  return chunkParsed(rt, await loadParsed(rt, key), cfg);
}

export function chunkParsed(rt: Pick<Engine, 'registry'>, doc: ParsedDocument, cfg: ParseConfig): Chunk[] {
  return rt.registry.get('chunker').chunk(doc, chunkOptions(cfg));
}

export async function saveParsed(rt: Pick<Engine, 'storage'>, key: string, doc: ParsedDocument): Promise<void> {
  // word boxes (OCR's and a PDF text layer's) are kept: extraction evidence boxes cover words. Written in
  // pieces, page by page and block by block: the JSON of a 1,000-page document is never one string (and
  // its Buffer) on this thread, and no single step holds the event loop for the whole of it
  await rt.storage.put(key, Readable.from(jsonPieces(doc)));
}

export async function loadParsed(rt: Pick<Engine, 'storage'>, key: string): Promise<ParsedDocument> {
  return JSON.parse((await rt.storage.get(key)).toString('utf8')) as ParsedDocument;
}

export const contentKey = (documentId: string) => `content/${documentId}.json`;
export const originalKey = (documentId: string) => `documents/${documentId}/original`;
export const jobParsedKey = (jobId: string) => `jobs/${jobId}/parsed.json`;
export const jobInputKey = (jobId: string) => `jobs/${jobId}/input`;

/** The stored row of a chunk (the one mapping Chunk → ChunkRecord). */
export function chunkRecord(c: Chunk, owner: Owned, documentId: string): ChunkRecord {
  return {
    id: c.id,
    document_id: documentId,
    user_id: owner.user_id,
    organization_id: owner.organization_id,
    idx: c.index,
    page: c.page,
    content: c.content,
    type: c.metadata.type,
    confidence: c.metadata.confidence,
    bbox: c.bbox ? { ...c.bbox } : null,
    span_start: c.span.start,
    span_end: c.span.end,
    metadata: { pages: c.metadata.pages ?? [c.page], heading: c.metadata.heading ?? null, ...(c.metadata.boxes?.length ? { boxes: c.metadata.boxes } : {}), ...(c.metadata.role ? { role: c.metadata.role } : {}) },
  };
}

/** The role a stored chunk has (`furniture`: the document's running heads and footers, after the body), if any. */
export const chunkRole = (r: Pick<ChunkRecord, 'metadata'>): Chunk['metadata']['role'] => (r.metadata?.role === 'furniture' ? 'furniture' : undefined);

/** What a search hit or citation carries of a stored chunk: the metadata the index stage stores with its vector. */
export const hitMetadata = (r: Pick<ChunkRecord, 'type' | 'idx' | 'metadata'>) => {
  const role = chunkRole(r);
  return { type: r.type, index: r.idx, ...(role ? { role } : {}) };
};

/** A chunk from its stored row (the one mapping ChunkRecord → Chunk). */
export function chunkFromRecord(r: ChunkRecord): Chunk {
  const pages = Array.isArray(r.metadata?.pages) ? (r.metadata!.pages as number[]) : undefined;
  const boxes = Array.isArray(r.metadata?.boxes) ? (r.metadata!.boxes as Chunk['metadata']['boxes']) : undefined;
  const heading = typeof r.metadata?.heading === 'string' ? r.metadata.heading : undefined;
  const role = chunkRole(r);
  return {
    id: r.id,
    index: r.idx,
    page: r.page,
    content: r.content,
    bbox: (r.bbox as BBox | null) ?? null,
    span: { start: r.span_start, end: r.span_end },
    metadata: { type: r.type as Chunk['metadata']['type'], confidence: r.confidence, ...(pages ? { pages } : {}), ...(boxes ? { boxes } : {}), ...(heading ? { heading } : {}), ...(role ? { role } : {}) },
  };
}

/** The stored chunks of a document, in order. */
export async function loadChunks(rt: Engine, documentId: string): Promise<Chunk[]> {
  return (await rt.store.repo('chunks').find({ document_id: documentId }, { order: { idx: 'ASC' } })).map(chunkFromRecord);
}

/** Stores a document's chunks (replacing earlier ones: the stage may run again after a crash). */
export async function storeChunks(rt: Engine, owner: Owned, documentId: string, chunks: Chunk[]): Promise<void> {
  await rt.store.transaction(async (tx) => {
    const repo = tx.repo('chunks');
    await repo.delete({ document_id: documentId });
    // the SQLite driver answers synchronously: rows go in batches sized by the time they hold the event
    // loop (about INDEX_SLICE_MS), with a pause between them (a network database holds it little)
    let batch = 50;
    for (let i = 0; i < chunks.length; ) {
      if (i) await yieldToEventLoop();
      const part = chunks.slice(i, i + batch);
      i += part.length;
      const before = performance.eventLoopUtilization();
      await repo.insertMany(part.map((c) => chunkRecord(c, owner, documentId)));
      batch = sliceBatch(part.length, before, 500);
    }
  });
}

/** Rows of chunks read from the store at a time while indexing (one synchronous SQLite query each). */
const INDEX_PAGE = 256;
/**
 * Time on this event loop between two pauses while indexing, ms. The local embedder and the embedded index
 * work synchronously, so batches are sized by the time they hold the loop, not by a fixed number of chunks:
 * 64 large table chunks on a loaded machine would otherwise hold requests (and /healthz) for seconds.
 */
const INDEX_SLICE_MS = 20;
/**
 * The size of the next batch, so that it holds this event loop for about INDEX_SLICE_MS: from the time the
 * batch of `done` items begun at `before` held it (work that waits on the network holds it little and keeps
 * large batches), between 1 and `max`.
 */
function sliceBatch(done: number, before: EventLoopUtilization, max: number): number {
  const busyMs = performance.eventLoopUtilization(before).active;
  return Math.max(1, Math.min(max, Math.floor((INDEX_SLICE_MS * done) / Math.max(busyMs, 0.01))));
}

/** Chunks embedded in one call at most (a remote embedder's request). */
const INDEX_BATCH = 64;

/**
 * Embeds a document's chunks and writes them to the vector store (replacing earlier vectors). `onIndexed`
 * hears the count written so far after each batch.
 */
export async function indexChunks(rt: Engine, owner: Owned, documentId: string, signal?: AbortSignal, onIndexed?: (done: number) => void): Promise<number> {
  const embedder = rt.registry.tryGet('embedder');
  const vectors = rt.registry.tryGet('vector-store');
  if (!embedder || !vectors) return 0;
  await vectors.deleteDocument(documentId);
  const chunks = rt.store.repo('chunks');
  let total = 0;
  let indexed = 0;
  let batch = 8;
  for (let offset = 0; ; offset += INDEX_PAGE) {
    signal?.throwIfAborted();
    await yieldToEventLoop();
    const rows = await chunks.find({ document_id: documentId }, { order: { idx: 'ASC' }, limit: INDEX_PAGE, offset });
    total += rows.length;
    let i = 0;
    const take = () => {
      if (i >= rows.length) return null;
      const part = rows.slice(i, i + batch);
      i += part.length;
      const embedded = embedder.embed(part.map((r) => r.content), 'document');
      embedded.catch(() => {}); // awaited below, unless an earlier batch failed first
      return { part, embedded };
    };
    for (let cur = take(); cur; ) {
      signal?.throwIfAborted();
      await yieldToEventLoop();
      const before = performance.eventLoopUtilization();
      const { part } = cur;
      const embedded = await cur.embedded;
      // the next batch is embedded while this one is written (in the embedder's own thread, or on the
      // network, when it has one)
      const next = take();
      await vectors.upsert(
        embedder.space,
        part.map((r, j) => vectorItem(owner, documentId, { id: r.id, page: r.page, content: r.content, metadata: hitMetadata(r) }, embedded[j]!)),
      );
      indexed += part.length;
      onIndexed?.(indexed);
      batch = sliceBatch(part.length, before, INDEX_BATCH);
      cur = next;
    }
    if (rows.length < INDEX_PAGE) break;
  }
  return total;
}

/** The vector-store item of one chunk of a document (both ways of indexing write the same shape). */
function vectorItem(owner: Owned, documentId: string, c: { id: string; page: number; content: string; metadata: ReturnType<typeof hitMetadata> }, vector: VectorItem['vector']): VectorItem {
  return { id: c.id, documentId, userId: owner.user_id, organizationId: owner.organization_id, page: c.page, text: c.content, vector, metadata: c.metadata };
}

/** Embedding requests of one document asked for ahead of the vectors written (bounds what waits in memory). */
const EMBED_AHEAD = 8;

/**
 * Stores the chunks of a document chunked where it was read and indexes them, without reading them back:
 * the first batches' embeddings are asked for at once (the embedder works through them in its own thread, or
 * on the network) while this thread writes the rows and the document's JSON (see readFileToStorage's
 * onChunks); then each batch's vectors are written as they come, EMBED_AHEAD batches asked for ahead.
 * Idempotent, so that a stage run again after a crash leaves one copy of everything: the rows are replaced
 * in one transaction, the document's earlier vectors are deleted first and every vector is keyed by its
 * chunk's id. `onIndexed` hears the count written so far after each batch. Returns the vectors written.
 */
export async function storeAndIndexChunks(rt: Engine, owner: Owned, documentId: string, chunks: Chunk[], signal?: AbortSignal, onIndexed?: (done: number) => void): Promise<number> {
  const embedder = rt.registry.tryGet('embedder');
  const vectors = rt.registry.tryGet('vector-store');
  if (!embedder || !vectors) {
    await storeChunks(rt, owner, documentId, chunks);
    return 0;
  }
  const batches: Chunk[][] = [];
  for (let i = 0; i < chunks.length; i += INDEX_BATCH) batches.push(chunks.slice(i, i + INDEX_BATCH));
  const asked: (Promise<Float32Array[]> | undefined)[] = [];
  const ask = (i: number) => {
    if (i >= batches.length || asked[i]) return;
    const p = embedder.embed(batches[i]!.map((c) => c.content), 'document');
    p.catch(() => {}); // awaited below, unless an earlier step failed first
    asked[i] = p;
  };
  // asked before the first await: the embedder's thread starts while this one goes on
  for (let i = 0; i < EMBED_AHEAD; i++) ask(i);
  await vectors.deleteDocument(documentId);
  await storeChunks(rt, owner, documentId, chunks);
  let indexed = 0;
  // vectors are written in parts sized by the time they hold this event loop (the embedded store writes
  // synchronously), as indexChunks does
  let size = 16;
  for (let i = 0; i < batches.length; i++) {
    signal?.throwIfAborted();
    const embedded = await asked[i]!;
    ask(i + EMBED_AHEAD);
    const batch = batches[i]!;
    for (let k = 0; k < batch.length; ) {
      signal?.throwIfAborted();
      const before = performance.eventLoopUtilization();
      const part = batch.slice(k, k + size);
      await vectors.upsert(
        embedder.space,
        part.map((c, j) => vectorItem(owner, documentId, { id: c.id, page: c.page, content: c.content, metadata: hitMetadata({ type: c.metadata.type, idx: c.index, metadata: c.metadata }) }, embedded[k + j]!)),
      );
      k += part.length;
      indexed += part.length;
      onIndexed?.(indexed);
      size = sliceBatch(part.length, before, INDEX_BATCH);
      await yieldToEventLoop();
    }
  }
  return indexed;
}

/** API shape of a chunk in parse results (spec §2.2, plus id, bbox and span). */
export function apiChunk(c: Chunk) {
  return {
    id: c.id,
    content: c.content,
    page: c.page,
    bbox: c.bbox,
    span: c.span,
    metadata: { type: c.metadata.type, confidence: round(c.metadata.confidence, 4), ...(c.metadata.role ? { role: c.metadata.role } : {}) },
  };
}

/** Lets the event loop run what waits (requests, timers) before going on with a long loop. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

