/**
 * A small pool of parse workers, each a child process (core's startIsolate): a queue of tasks, one task per
 * worker at a time. A task whose signal aborts is dropped from the queue, or, when already running, its
 * worker is killed and replaced (PDFium cannot be interrupted inside a page). Each worker has a heap limit:
 * a document that needs more ends only its worker, fails with UNPROCESSABLE, and the worker is replaced.
 * Processes rather than threads: a thread's heap limit is best effort, and a single array grown past it in
 * one step (a flate-bombed content stream) aborts the whole process (nodejs/node#47224).
 */
import { errors, siblingModule, startIsolate } from '@quire/core';
import type { IsolateHandle } from '@quire/core';
import type { WorkerRequest, WorkerResponse } from './types.js';

type Payload = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Task {
  payload: Payload;
  signal?: AbortSignal;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  onAbort?: () => void;
  /** run on the first worker only */
  first?: boolean;
}

interface Slot {
  worker: IsolateHandle;
  ready: Promise<void>;
  task: (Task & { id: number }) | null;
  dead: boolean;
  /** messages for this worker once its current task is done (see broadcast) */
  after: Payload[];
}

/** A document that needs more memory than the reader's limit (a worker killed for it, or PDFium refused at its cap). */
export function memoryError(heapMb: number | undefined): Error {
  return errors.unprocessable(`PDF could not be read: the document needs more memory than the reader limit (${heapMb ?? '?'} MB)`, { limit_mb: heapMb });
}

/** The worker module next to this file: pdfium-worker.ts under tsx (sources), pdfium-worker.js once built. */
export function workerUrl(): URL {
  return siblingModule(import.meta.url, 'pdfium-worker');
}

/**
 * V8 settings of the parse workers. The layout code's few large functions (the text of a page, table
 * detection) are compiled again whenever a document brings new shapes of data (other fonts, fractional
 * sizes, tables): with V8's default inlining budget each such compilation takes tens of milliseconds of
 * CPU on a background thread, which on a small machine competes with the parsing itself. A smaller budget
 * makes those compilations cheaper at no measured cost to parsing speed once warm (see bench/README).
 */
const WORKER_V8_FLAGS = ['--max-inlined-bytecode-size-cumulative=300'];

export interface WorkerPoolOptions {
  /** heap limit of each worker (V8 old generation), MB; default 768 */
  heapMb?: number;
  /** each worker prints its per-phase timings to stderr */
  debug?: boolean;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  /** started ahead of work (warm): a worker that dies is replaced at once, not at the next task */
  private warmed = false;
  readonly heapMb: number;
  private readonly debug: boolean;

  constructor(
    private readonly size: number,
    private readonly url: URL = workerUrl(),
    opts: WorkerPoolOptions = {},
  ) {
    this.heapMb = Math.max(16, Math.floor(opts.heapMb ?? 768));
    this.debug = opts.debug ?? false;
  }

  get threads(): number {
    return this.slots.filter((s) => !s.dead).length;
  }

  /** Workers started since the pool was made (replacements included). */
  started = 0;

  private replace(): void {
    if (this.closed || !this.warmed) return;
    while (this.slots.length < this.size) this.spawn();
  }

  private spawn(): Slot {
    this.started++;
    const worker = startIsolate(this.url, { heapMb: this.heapMb, workerData: { debug: this.debug, heapMb: this.heapMb }, v8Flags: WORKER_V8_FLAGS });
    worker.unref();
    let markReady!: () => void;
    const slot: Slot = { worker, ready: new Promise<void>((r) => (markReady = r)), task: null, dead: false, after: [] };
    worker.on('message', (msg: WorkerResponse | { ready: true }) => {
      if ('ready' in msg) {
        markReady();
        return;
      }
      const t = slot.task;
      if (!t || t.id !== msg.id) return;
      // the worker's engine is unusable (it ends itself): no further task goes to it, another takes its place
      if (!msg.ok && msg.fatal) return this.retire(slot, Object.assign(new Error(msg.error.message), { name: msg.error.name }), true);
      slot.task = null;
      for (const p of slot.after.splice(0)) worker.postMessage({ ...p, id: 0 });
      worker.unref();
      t.signal?.removeEventListener('abort', t.onAbort!);
      if (msg.ok) t.resolve(msg.result);
      else t.reject(Object.assign(new Error(msg.error.message), { name: msg.error.name }));
      this.pump();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      // the heap limit: the document in this worker needs more memory than a reader may take
      if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') this.retire(slot, memoryError(this.heapMb), false);
      else this.retire(slot, e instanceof Error ? e : new Error(String(e)), false);
    });
    worker.on('exit', (code) => this.retire(slot, new Error(`parse worker exited (code ${code})`), false));
    this.slots.push(slot);
    return slot;
  }

  /**
   * Takes a worker out of the pool (it died, its engine is unusable, or its task was aborted; `stop`: end
   * it now): its task, if any, fails with `err`, and another worker takes its place.
   */
  private retire(slot: Slot, err: unknown, stop: boolean): void {
    if (slot.dead) return;
    slot.dead = true;
    const t = slot.task;
    slot.task = null;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    if (stop) void slot.worker.terminate();
    if (t) {
      t.signal?.removeEventListener('abort', t.onAbort!);
      t.reject(err);
    }
    this.replace();
    this.pump();
  }

  /**
   * Starts every worker now (process start, module load, PDFium's WebAssembly instance), so that the first document finds
   * them all ready instead of one warm worker taking the work while the others are still starting.
   */
  warm(): void {
    if (this.closed) return;
    this.warmed = true;
    while (this.slots.length < this.size) this.spawn();
  }

  /**
   * Runs a task on the next free worker, or with `first` on the first worker alone (tasks that need much
   * memory for a moment: memory a thread has freed is kept for its next use, so one thread holds it once).
   */
  run<T>(payload: Payload, signal?: AbortSignal, opts: { first?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const task: Task = { payload, signal, resolve: resolve as (v: unknown) => void, reject, first: opts.first };
      task.onAbort = () => {
        const qi = this.queue.indexOf(task);
        if (qi >= 0) {
          this.queue.splice(qi, 1);
          reject(signal!.reason);
          return;
        }
        const slot = this.slots.find((s) => s.task && s.task.payload === payload);
        if (slot) this.retire(slot, signal!.reason, true);
      };
      signal?.addEventListener('abort', task.onAbort, { once: true });
      this.queue.push(task);
      this.pump();
    });
  }

  /** Sends a message to every live worker (no reply awaited beyond delivery). */
  broadcast(payload: Payload): void {
    for (const s of this.slots) {
      if (s.dead) continue;
      // a busy worker gets it once its current task is done
      if (s.task) s.after.push(payload);
      else void s.ready.then(() => s.worker.postMessage({ ...payload, id: 0 }));
    }
  }

  private pump(): void {
    if (this.closed) return;
    for (let i = 0; i < this.queue.length; ) {
      const task = this.queue[i]!;
      let slot: Slot | undefined;
      if (task.first) {
        const first = this.slots.find((s) => !s.dead) ?? this.spawn();
        if (!first.task) slot = first;
      } else {
        slot = this.slots.find((s) => !s.dead && !s.task);
        if (!slot && this.slots.length < this.size) slot = this.spawn();
      }
      if (!slot) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      const id = this.nextId++;
      slot.task = { ...task, id };
      // keep the process alive while a task runs; idle workers do not hold it open
      slot.worker.ref();
      const s = slot;
      void s.ready.then(() => {
        if (s.task?.id === id && !s.dead) s.worker.postMessage({ ...task.payload, id });
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new Error('worker pool closed'));
    // an idle worker is unref'd: ref it again so that the process waits for its exit (otherwise the loop may
    // empty and the process end while close() is still pending, and whatever follows the await never runs)
    await Promise.all(this.slots.splice(0).map((s) => ((s.dead = true), s.worker.ref(), s.worker.terminate())));
  }
}
