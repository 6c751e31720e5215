import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QuireError, errors, isQuireError } from '../errors/index.js';
import type { ErrorCode } from '../errors/index.js';
import type { Chunk, ParsedDocument } from '../model/content.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { siblingModule, startIsolate } from '../util/worker.js';
import type { IsolateHandle } from '../util/worker.js';
import type { ChunkOptions, PagesRead, ReadOptions, ReaderInput } from './kinds.js';
import type { PluginOrigin, PluginRegistry, RegistrySettings } from './registry.js';
import { namedUse, parseUse } from './registry.js';

/**
 * Runs readers in child processes with a heap limit (isolates), so that a hostile document costs one
 * isolate, never the service: an isolate that runs out of heap is replaced and the document fails with
 * UNPROCESSABLE; an aborted read (time limit, cancelled job) that does not stop within a grace period has
 * its isolate killed. The API's event loop never runs a parser. (Processes rather than worker threads:
 * a thread's heap limit is best effort, and one allocation past it aborts the whole process.)
 *
 * Each isolate holds its own registry with the reader plugins it was asked for (loaded from the same
 * package or path as in the parent) and the selected OCR plugin.
 */
export interface ReaderSandboxOptions {
  /** isolates at most (reads beyond wait in a queue) */
  threads: number;
  /** memory limit of each isolate (V8 heap; resident memory is watched at this + 128 MB), MB */
  heapMb: number;
  /** after an abort, how long a read may take to stop before its isolate is killed (default 2 s) */
  graceMs?: number;
  /** tasks an isolate serves before it is replaced, to return its memory (default 100) */
  recycleAfter?: number;
  logger?: Logger;
}

/** What the thread needs to build its registry; plain data (structured-cloned). */
export interface SandboxWorkerData {
  settings: RegistrySettings;
  /** the host's OCR plugin, and the OCR plugins it names in `uses` (`'ocr:<name>'`, loaded before it) */
  ocr: { name: string; origin: PluginOrigin; uses?: { name: string; origin: PluginOrigin }[] } | null;
  /** readers that stay in the parent (isolated ones such as PDF): a reader in the thread that asks for one gets a proxy */
  delegates: { name: string; formats: string[] }[];
  /** where each reader loaded from a module came from: a reader in the thread that uses another ('reader:<format>') loads it */
  readerOrigins: Record<string, PluginOrigin>;
}

export type SandboxRequest =
  /** a read; with `ocrPages`, the reader's ocrPages() of those pages (a document of them only) */
  | { type: 'read'; id: number; reader: { name: string; origin: PluginOrigin }; input: ReaderInput; options: Omit<ReadOptions, 'signal' | 'onProgress'>; jsonPath?: string; ocrPages?: number[] }
  | { type: 'chunk'; id: number; chunker: { name: string; origin: PluginOrigin }; path: string; options: ChunkOptions }
  | { type: 'abort'; id: number }
  | { type: 'delegated'; id: number; call: number; doc?: ParsedDocument; error?: SerialisedError };

export interface SerialisedError {
  name: string;
  message: string;
  code?: string;
  details?: unknown;
  quire: boolean;
}

export type SandboxResponse =
  | { type: 'progress'; id: number; fraction: number; pages?: PagesRead }
  /** a part of a chunk task's chunks (the rest follow, then 'done') */
  | { type: 'chunks'; id: number; chunks: Chunk[] }
  | { type: 'done'; id: number; doc?: ParsedDocument; json?: ReadJson; chunks?: Chunk[] }
  | { type: 'error'; id: number; error: SerialisedError }
  /** a reader in the thread asks a parent reader (e.g. slides → pdf for a converted .ppt) */
  | { type: 'delegate'; id: number; call: number; reader: string; input: ReaderInput; options: Omit<ReadOptions, 'signal' | 'onProgress'> };

/** A document read as JSON (what blob storage keeps) with the little the caller needs to know of it. */
export interface ReadJson {
  /** a temporary file holding the JSON: the caller stores it and removes it */
  file: string;
  pages: number;
  ocrPages: number;
  /** pages a read with `ocr.defer` left for the `ocr` stage (ocrPendingOf) */
  ocrPending: number[];
  issues: ParsedDocument['issues'];
}

type TaskRequest = Extract<SandboxRequest, { type: 'read' | 'chunk' }>;

interface Task {
  id: number;
  request: TaskRequest;
  /** for messages: the format being read, or 'chunks' */
  what: string;
  signal?: AbortSignal;
  onProgress?: (f: number, pages?: PagesRead) => void;
  resolve(result: any): void;
  reject(e: unknown): void;
  settled: boolean;
  onAbort?: () => void;
  /** a chunk task's chunks received so far */
  chunks?: Chunk[];
}

interface Slot {
  worker: IsolateHandle;
  task: Task | null;
  served: number;
  dead: boolean;
  killTimer?: NodeJS.Timeout;
  /**
   * The JSON file the isolate was asked to write and has not handed over: removed when the isolate exits
   * (it may have been writing it when it was killed) or its read fails.
   */
  file?: string;
}

/** An idle isolate holding more than this (after a large document) is replaced to give the memory back. */
const RECYCLE_RSS = 320 * 1024 * 1024;

export class ReaderSandbox {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  private readonly logger: Logger;
  private readonly workerData: SandboxWorkerData;

  constructor(
    private readonly registry: PluginRegistry,
    private readonly opts: ReaderSandboxOptions,
  ) {
    this.logger = opts.logger ?? silentLogger;
    const s = registry.settings;
    const ocrName = s.selected.ocr;
    const ocrOrigin = ocrName ? registry.origin('ocr', ocrName) : undefined;
    // each isolate's OCR plugin gets its share of the OCR processes, so the isolates together keep the limit
    const shared = { ...s.shared, 'ocr.concurrency': Math.max(1, Math.floor(s.shared['ocr.concurrency'] / Math.max(1, opts.threads))) };
    // only the options of what an isolate loads (readers, OCR, chunkers): not the store's URL or API keys
    const options = Object.fromEntries(Object.entries(s.options).filter(([key]) => /^(reader|ocr|chunker):/.test(key)));
    this.workerData = {
      // the isolate's readers of a format are the host's (a reader that uses 'reader:pdf' gets the configured one)
      settings: JSON.parse(JSON.stringify({ ...s, options, shared, readers: Object.fromEntries(registry.formats().map((f) => [f.format, f.reader])) })) as RegistrySettings,
      ocr: ocrName && ocrOrigin ? { name: ocrName, origin: ocrOrigin, uses: namedOcrUses(registry, ocrName) } : null,
      delegates: registry
        .all('reader')
        .filter((r) => r.instance.isolated)
        .map((r) => ({ name: r.name, formats: [...r.instance.formats] })),
      readerOrigins: Object.fromEntries(
        registry
          .all('reader')
          .map((r) => [r.name, registry.origin('reader', r.name)] as const)
          .filter((e): e is readonly [string, PluginOrigin] => !!e[1]),
      ),
    };
  }

  read(readerName: string, input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
    return this.readAs(readerName, input, options).then((r) => (r as { doc: ParsedDocument }).doc);
  }

  /**
   * Reads a document and gives it back as JSON, parsed and serialised in the isolate and written to `file`
   * (its folder is made when missing): a large document is never turned into objects on the calling thread
   * (storing it only needs the file).
   */
  async readJson(readerName: string, input: ReaderInput, options: ReadOptions, file = path.join(os.tmpdir(), `quire-read-${randomUUID()}.json`)): Promise<ReadJson> {
    try {
      return ((await this.readAs(readerName, input, options, file)) as { json: ReadJson }).json;
    } catch (e) {
      removeQuietly(file);
      throw e;
    }
  }

  /**
   * The reader's OCR of `pages` (ReaderPlugin.ocrPages) in an isolate: a document of those pages only, which
   * the caller merges into the stored one (mergeOcrPages).
   */
  ocrPages(readerName: string, input: ReaderInput, pages: number[], options: ReadOptions): Promise<ParsedDocument> {
    return this.readAs(readerName, input, options, undefined, pages).then((r) => (r as { doc: ParsedDocument }).doc);
  }

  /** Chunks a stored parsed document (JSON at `path`) with the chunker kind:name, in an isolate. */
  chunk(chunkerName: string, path: string, options: ChunkOptions, signal?: AbortSignal): Promise<Chunk[]> {
    const origin = this.registry.origin('chunker', chunkerName);
    if (!origin) return Promise.reject(new Error(`chunker ${chunkerName} was not loaded from a module and cannot run in an isolate`));
    return this.submit((id) => ({ type: 'chunk', id, chunker: { name: chunkerName, origin }, path, options: { ...options } }), 'chunks', signal).then((r) => (r as { chunks: Chunk[] }).chunks);
  }

  /** Whether kind:name can run here (it was loaded from a package or path, not registered inline). */
  canRunPlugin(kind: 'reader' | 'chunker', name: string): boolean {
    return !!this.registry.origin(kind, name);
  }

  private readAs(readerName: string, input: ReaderInput, options: ReadOptions, jsonPath?: string, ocrPages?: number[]): Promise<unknown> {
    const origin = this.registry.origin('reader', readerName);
    if (!origin) return Promise.reject(new Error(`reader ${readerName} was not loaded from a module and cannot run in an isolate`));
    const { signal, onProgress, ...plain } = options;
    return this.submit((id) => ({ type: 'read', id, reader: { name: readerName, origin }, input: { ...input }, options: plain, ...(jsonPath ? { jsonPath } : {}), ...(ocrPages ? { ocrPages: [...ocrPages] } : {}) }), input.format, signal, onProgress);
  }

  private submit(make: (id: number) => TaskRequest, what: string, signal?: AbortSignal, onProgress?: (f: number, pages?: PagesRead) => void): Promise<unknown> {
    if (this.closed) return Promise.reject(errors.unavailable('the reader isolates are closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const task: Task = { id, request: make(id), what, signal, onProgress, resolve, reject, settled: false };
      if (signal) {
        task.onAbort = () => this.abort(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      this.queue.push(task);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) this.settle(t, errors.unavailable('the reader threads were closed'));
    await Promise.allSettled(
      this.slots.splice(0).map(async (s) => {
        s.dead = true;
        if (s.task) this.settle(s.task, errors.unavailable('the reader threads were closed'));
        clearTimeout(s.killTimer);
        // an idle worker is unref'd: hold the process until it has exited, so that close() settles
        s.worker.ref();
        await s.worker.terminate();
      }),
    );
  }

  // ---------------------------------------------------------------------------------------------------

  private pump(): void {
    while (this.queue.length && !this.closed) {
      let slot = this.slots.find((s) => !s.dead && !s.task);
      if (!slot && this.slots.length < Math.max(1, this.opts.threads)) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift()!;
      if (task.settled) continue;
      slot.task = task;
      slot.served++;
      // a busy thread keeps the process alive; an idle one does not
      slot.worker.ref();
      if (task.request.type === 'read' && task.request.jsonPath) slot.file = task.request.jsonPath;
      slot.worker.postMessage(task.request);
    }
  }

  private spawn(): Slot {
    const worker = startIsolate(siblingModule(import.meta.url, 'sandbox-worker'), { workerData: this.workerData, heapMb: this.opts.heapMb });
    const slot: Slot = { worker, task: null, served: 0, dead: false };
    this.slots.push(slot);
    worker.on('message', (m: SandboxResponse) => this.onMessage(slot, m));
    worker.on('error', (err: Error & { code?: string }) => {
      const task = slot.task;
      if (!task) {
        this.logger.warn({ err: err.message }, 'reader thread failed while idle');
        return;
      }
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.settle(task, errors.unprocessable(`${task.what} could not be read: the document needs more memory than the reader limit (${this.opts.heapMb} MB)`, { limit_mb: this.opts.heapMb }));
      } else {
        this.logger.error({ err: err.message, format: task.what }, 'reader thread crashed');
        this.settle(task, errors.processing(`${task.what} could not be read: the reader stopped unexpectedly`));
      }
    });
    worker.on('exit', () => {
      slot.dead = true;
      clearTimeout(slot.killTimer);
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      if (slot.task) this.settle(slot.task, errors.processing(`${slot.task.what} could not be read: the reader stopped unexpectedly`));
      // an isolate stopped (killed after an abort, out of memory, crashed) may have been writing a read's JSON
      if (slot.file) removeQuietly(slot.file);
      slot.file = undefined;
      slot.task = null;
      this.pump();
    });
    return slot;
  }

  private onMessage(slot: Slot, m: SandboxResponse): void {
    const task = slot.task;
    // a read that finished after its task was given up (aborted): its file has no taker
    if (m.type === 'done' && m.json && (!task || task.id !== m.id || task.settled)) removeQuietly(m.json.file);
    if (!task || task.id !== m.id) return;
    if (m.type === 'progress') {
      try {
        task.onProgress?.(m.fraction, m.pages);
      } catch {
        /* a progress callback never fails a read */
      }
      return;
    }
    if (m.type === 'delegate') {
      void this.delegate(slot, task, m);
      return;
    }
    if (m.type === 'chunks') {
      (task.chunks ??= []).push(...m.chunks);
      return;
    }
    // the file is the caller's once a read succeeds; a failed one leaves nothing behind
    if (slot.file && !(m.type === 'done' && !task.settled)) removeQuietly(slot.file);
    slot.file = undefined;
    if (m.type === 'done') this.settle(task, null, task.chunks ? { ...m, chunks: [...task.chunks, ...(m.chunks ?? [])] } : m);
    else this.settle(task, revive(m.error));
    slot.task = null;
    slot.worker.unref();
    clearTimeout(slot.killTimer);
    // an isolate that grew for a large document is replaced rather than kept idle at that size
    const rss = slot.worker.rss() ?? 0;
    if (slot.served >= (this.opts.recycleAfter ?? 100) || rss > RECYCLE_RSS) {
      slot.dead = true;
      void slot.worker.terminate();
    }
    this.pump();
  }

  private async delegate(slot: Slot, task: Task, m: Extract<SandboxResponse, { type: 'delegate' }>): Promise<void> {
    if (task.request.type !== 'read') return;
    let reply: SandboxRequest;
    try {
      const reader = this.registry.get('reader', m.reader);
      const doc = await reader.read(m.input, { ...m.options, signal: task.signal });
      reply = { type: 'delegated', id: m.id, call: m.call, doc };
    } catch (e) {
      reply = { type: 'delegated', id: m.id, call: m.call, error: serialiseError(e) };
    }
    if (slot.task === task && !slot.dead) slot.worker.postMessage(reply);
  }

  private abort(task: Task): void {
    if (task.settled) return;
    const slot = this.slots.find((s) => s.task === task);
    const reason = task.signal?.reason ?? new Error('aborted');
    if (!slot) {
      // still queued
      this.settle(task, reason);
      return;
    }
    slot.worker.postMessage({ type: 'abort', id: task.id } satisfies SandboxRequest);
    // a reader that does not stop by itself loses its thread
    slot.killTimer = setTimeout(() => {
      if (slot.task !== task) return;
      this.logger.warn({ format: task.what }, 'reader did not stop after abort; its thread is terminated');
      this.settle(task, reason);
      slot.task = null;
      slot.dead = true;
      void slot.worker.terminate();
    }, this.opts.graceMs ?? 2000);
    slot.killTimer.unref?.();
  }

  private settle(task: Task, err: unknown, result?: unknown): void {
    if (task.settled) return;
    task.settled = true;
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    if (err) task.reject(err);
    else task.resolve(result);
  }
}

function removeQuietly(file: string): void {
  fs.rm(file, { force: true }, () => {});
}

export function revive(e: SerialisedError): Error {
  if (e.quire && e.code) return new QuireError(e.code as ErrorCode, e.message, e.details);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

/** The error of a read as plain data for postMessage. */
export function serialiseError(e: unknown): SerialisedError {
  if (isQuireError(e)) return { name: e.name, message: e.message, code: e.code, details: e.details, quire: true };
  const err = e instanceof Error ? e : new Error(String(e));
  return { name: err.name, message: err.message, quire: false };
}

/** The OCR plugins (with their origins) that the OCR plugin `name` names in its `uses` ('ocr:<name>'). */
function namedOcrUses(registry: PluginRegistry, name: string): { name: string; origin: PluginOrigin }[] {
  return (registry.definition('ocr', name)?.uses ?? [])
    .map((u) => namedUse(parseUse(u).target))
    .filter((n): n is { kind: 'ocr'; name: string } => n?.kind === 'ocr' && n.name !== name)
    .map((n) => ({ name: n.name, origin: registry.origin('ocr', n.name) }))
    .filter((n): n is { name: string; origin: PluginOrigin } => !!n.origin);
}
