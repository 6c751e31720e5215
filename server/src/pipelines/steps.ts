import { ReaderSandbox, errors, isQuireError } from '@quire/core';
import type { Chunk, ChunkRecord, Owned, ParsedDocument, ReadLimits, ReaderPlugin } from '@quire/core';
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

export async function readFile(rt: Pick<QuireRuntime, 'registry' | 'config'>, file: FileRef, cfg: ParseConfig, opts: { signal?: AbortSignal; maxPages?: number; onProgress?: (f: number) => void } = {}): Promise<ParsedDocument> {
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
  try {
    // readers that do not bound themselves run in an isolated thread with a heap limit, off this event loop
    const sandbox = reader.instance.isolated ? null : sandboxOf(rt);
    if (sandbox?.canRun(reader.name)) return await sandbox.read(reader.name, input, options);
    return await reader.instance.read(input, options);
  } catch (e) {
    if (timeout.aborted) throw errors.processing(`Parsing timed out after ${Math.round(rt.config.limits.parseTimeoutMs / 1000)} s`);
    if (opts.signal?.aborted) throw e;
    if (isQuireError(e)) throw e;
    // the message of an unexpected error stays in the log: users get what failed, not an internal detail
    throw errors.processing(`${file.format.toUpperCase()} could not be read: the file is damaged or not a valid ${file.format} file`, { cause: (e as Error)?.name ?? 'Error' });
  }
}

export function chunkParsed(rt: Pick<QuireRuntime, 'registry'>, doc: ParsedDocument, cfg: ParseConfig): Chunk[] {
  return rt.registry.get('chunker').chunk(doc, chunkOptions(cfg));
}

export async function saveParsed(rt: QuireRuntime, key: string, doc: ParsedDocument): Promise<void> {
  // OCR words are large and only needed while reading: keep them for extraction evidence on OCR pages only
  await rt.storage.put(key, Buffer.from(JSON.stringify(doc)));
}

export async function loadParsed(rt: QuireRuntime, key: string): Promise<ParsedDocument> {
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
    for (const c of chunks) {
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
        metadata: { pages: c.metadata.pages ?? [c.page], heading: c.metadata.heading ?? null },
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

export const round = (n: number, d = 4) => Math.round(n * 10 ** d) / 10 ** d;
