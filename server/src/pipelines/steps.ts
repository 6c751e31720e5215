import { ReaderSandbox, errors, isQuireError } from '@quire/core';
import type { Chunk, ChunkRecord, Owned, ParsedDocument, ReadJson, ReadLimits, ReaderPlugin } from '@quire/core';
import type { QuireRuntime } from '../runtime.js';
import { chunkOptions } from '../services/parse-config.js';
import type { ParseConfig } from '../services/parse-config.js';

/**
 * The steps every parse is made of (read → chunk → index). Pipeline stages, the synchronous parse
 * endpoint and the runner all call these same functions.
 */

export function readerFor(rt: Pick<QuireRuntime, 'registry'>, format: string): ReaderPlugin {
  return readerEntry(rt, format).instance;
}

function readerEntry(rt: Pick<QuireRuntime, 'registry'>, format: string): { name: string; instance: ReaderPlugin } {
  // the last registered reader for a format wins, so a third-party plugin can replace a built-in
  const readers = rt.registry.all('reader').reverse();
  const found = readers.find((r) => r.instance.formats.includes(format));
  if (!found) throw errors.unsupported(`No reader for format ${format}`);
  return found;
}

/** The isolated reader threads of this registry (made at the first read, closed with the registry). */
function sandboxOf(rt: Pick<QuireRuntime, 'registry' | 'config'>): ReaderSandbox {
  return rt.registry.service('reader-sandbox', () => {
    const sandbox = new ReaderSandbox(rt.registry, { threads: rt.config.limits.readerThreads, heapMb: rt.config.limits.readerHeapMb });
    return { value: sandbox, close: () => sandbox.close() };
  });
}

/** The read limits of the config. */
export function configReadLimits(rt: Pick<QuireRuntime, 'config'>): ReadLimits {
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
function readPlan(rt: Pick<QuireRuntime, 'registry' | 'config'>, file: FileRef, cfg: ParseConfig, opts: { signal?: AbortSignal; maxPages?: number; onProgress?: (f: number) => void }) {
  const reader = readerEntry(rt, file.format);
  const timeout = AbortSignal.timeout(rt.config.limits.parseTimeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const input = { path: file.path, name: file.name, format: file.format, size: file.size, documentId: file.id };
  const options = {
    ocr: { enabled: cfg.ocr.enabled, language: cfg.ocr.language ?? rt.config.ocr.language, agentic: cfg.ocr.agentic },
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
    // the message of an unexpected error stays in the log: users get what failed, not an internal detail
    return errors.processing(`${file.format.toUpperCase()} could not be read: the file is damaged or not a valid ${file.format} file`, { cause: (e as Error)?.name ?? 'Error' });
  };
  return { reader, input, options, isolate, failed };
}

export async function readFile(rt: Pick<QuireRuntime, 'registry' | 'config'>, file: FileRef, cfg: ParseConfig, opts: { signal?: AbortSignal; maxPages?: number; onProgress?: (f: number) => void } = {}): Promise<ParsedDocument> {
  const { reader, input, options, isolate, failed } = readPlan(rt, file, cfg, opts);
  try {
    if (isolate) return await isolate.read(reader.name, input, options);
    return await reader.instance.read(input, options);
  } catch (e) {
    throw failed(e);
  }
}

/** What the read stage needs to know of a document it stored. */
export interface StoredRead {
  pages: number;
  ocrPages: number;
  issues: ParsedDocument['issues'];
}

/**
 * Reads a file and stores the parsed document as JSON under `key`. A reader in an isolate hands back the
 * JSON text itself, so a large document is never turned into objects on this event loop.
 */
export async function readFileToStorage(rt: Pick<QuireRuntime, 'registry' | 'config' | 'storage'>, file: FileRef, cfg: ParseConfig, key: string, opts: { signal?: AbortSignal; onProgress?: (f: number) => void } = {}): Promise<StoredRead> {
  const { reader, input, options, isolate, failed } = readPlan(rt, file, cfg, opts);
  // only the read's errors are the reader's: a storage failure keeps its own (transient) kind
  let read: ReadJson | null = null;
  let doc: ParsedDocument | null = null;
  try {
    if (isolate) read = await isolate.readJson(reader.name, input, options);
    else doc = await reader.instance.read(input, options);
  } catch (e) {
    throw failed(e);
  }
  if (read) {
    await rt.storage.put(key, Buffer.from(read.json));
    return { pages: read.pages, ocrPages: read.ocrPages, issues: read.issues };
  }
  await saveParsed(rt, key, doc!);
  return { pages: doc!.pages.length, ocrPages: doc!.pages.filter((p) => p.ocr).length, issues: doc!.issues };
}

/** Chunks the parsed document stored under `key`; in an isolate when the chunker and the file allow it. */
export async function chunkStored(rt: Pick<QuireRuntime, 'registry' | 'config' | 'storage'>, key: string, cfg: ParseConfig, signal?: AbortSignal): Promise<Chunk[]> {
  const name = rt.registry.settings.selected?.chunker;
  const local = rt.storage.localPath(key);
  const sandbox = sandboxOf(rt);
  if (name && local && sandbox.canRunPlugin('chunker', name)) return sandbox.chunk(name, local, chunkOptions(cfg), signal);
  return chunkParsed(rt, await loadParsed(rt, key), cfg);
}

export function chunkParsed(rt: Pick<QuireRuntime, 'registry'>, doc: ParsedDocument, cfg: ParseConfig): Chunk[] {
  return rt.registry.get('chunker').chunk(doc, chunkOptions(cfg));
}

export async function saveParsed(rt: Pick<QuireRuntime, 'storage'>, key: string, doc: ParsedDocument): Promise<void> {
  // OCR words are large and only needed while reading: keep them for extraction evidence on OCR pages only
  await rt.storage.put(key, Buffer.from(JSON.stringify(doc)));
}

export async function loadParsed(rt: Pick<QuireRuntime, 'storage'>, key: string): Promise<ParsedDocument> {
  return JSON.parse((await rt.storage.get(key)).toString('utf8')) as ParsedDocument;
}

export const contentKey = (documentId: string) => `content/${documentId}.json`;
export const originalKey = (documentId: string) => `documents/${documentId}/original`;
export const jobParsedKey = (jobId: string) => `jobs/${jobId}/parsed.json`;
export const jobInputKey = (jobId: string) => `jobs/${jobId}/input`;

/** Stores a document's chunks (replacing earlier ones: the stage may run again after a crash). */
export async function storeChunks(rt: QuireRuntime, owner: Owned, documentId: string, chunks: Chunk[]): Promise<void> {
  await rt.store.transaction(async (tx) => {
    const repo = tx.repo('chunks');
    await repo.delete({ document_id: documentId });
    let n = 0;
    for (const c of chunks) {
      // the SQLite driver answers synchronously, so without a pause the loop would hold the event loop
      if (++n % 200 === 0) await yieldToEventLoop();
      const row: ChunkRecord = {
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
        metadata: { pages: c.metadata.pages ?? [c.page], heading: c.metadata.heading ?? null, ...(c.metadata.boxes?.length ? { boxes: c.metadata.boxes } : {}) },
      };
      await repo.insert(row);
    }
  });
}

/** Embeds a document's chunks and writes them to the vector store (replacing earlier vectors). */
export async function indexChunks(rt: QuireRuntime, owner: Owned, documentId: string, signal?: AbortSignal): Promise<number> {
  const embedder = rt.registry.tryGet('embedder');
  const vectors = rt.registry.tryGet('vector-store');
  if (!embedder || !vectors) return 0;
  const rows = await rt.store.repo('chunks').find({ document_id: documentId }, { order: { idx: 'ASC' } });
  await vectors.deleteDocument(documentId);
  const batch = 64;
  for (let i = 0; i < rows.length; i += batch) {
    signal?.throwIfAborted();
    // the local embedder and the embedded index work synchronously: let requests in between batches
    await yieldToEventLoop();
    const part = rows.slice(i, i + batch);
    const embedded = await embedder.embed(part.map((r) => r.content), 'document');
    await vectors.upsert(
      embedder.space,
      part.map((r, j) => ({
        id: r.id,
        documentId,
        userId: owner.user_id,
        organizationId: owner.organization_id,
        page: r.page,
        text: r.content,
        vector: embedded[j]!,
        metadata: { type: r.type, index: r.idx },
      })),
    );
  }
  return rows.length;
}

/** API shape of a chunk in parse results (spec §2.2, plus id, bbox and span). */
export function apiChunk(c: Chunk) {
  return {
    id: c.id,
    content: c.content,
    page: c.page,
    bbox: c.bbox,
    span: c.span,
    metadata: { type: c.metadata.type, confidence: round(c.metadata.confidence) },
  };
}

/** Lets the event loop run what waits (requests, timers) before going on with a long loop. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export const round = (n: number, d = 4) => Math.round(n * 10 ** d) / 10 ** d;
