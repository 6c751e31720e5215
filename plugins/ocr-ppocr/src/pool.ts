/**
 * PP-OCR on worker threads (worker.ts): up to `concurrency` threads, each with its own sessions, made at the
 * first image that needs one and kept; an image waits for a free thread. A thread that dies (a crash in
 * native code) fails the image it had and is replaced at the next one. Threads do not keep the process
 * alive while idle.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { QuireError, errors, siblingModule } from '@quire/core';
import type { ErrorCode, OcrResult } from '@quire/core';
import { PPOCR_LANGUAGES, quietRuntime } from './ppocr.js';
import type { PpocrConfig } from './ppocr.js';

interface Pending {
  resolve: (v: any) => void;
  reject: (e: unknown) => void;
}

class Thread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  busy = false;
  dead = false;
  private seq = 0;
  private readonly idle: (() => void)[] = [];

  constructor(cfg: PpocrConfig, onExit: (t: Thread) => void) {
    this.worker = workerThread(cfg);
    this.worker.unref();
    this.worker.on('message', (m: { id: number; value?: unknown; error?: any }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (!this.pending.size) this.worker.unref();
      if (m.error) p.reject(revive(m.error));
      else p.resolve(m.value);
      if (!this.pending.size) for (const f of this.idle.splice(0)) f();
    });
    const fail = (e: unknown) => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(errors.processing(`The PP-OCR thread stopped: ${(e as Error)?.message ?? e}`));
      this.pending.clear();
      for (const f of this.idle.splice(0)) f();
      onExit(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
  }

  /**
   * Resolves when the thread has no call in flight (at once if it has none), or after `ms`. Terminating a
   * thread while onnxruntime creates its sessions aborts the whole process at exit (a native error thrown
   * during teardown), so close() lets a model load that is under way finish first.
   */
  settled(ms: number): Promise<void> {
    if (!this.pending.size || this.dead) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  call<T>(msg: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      const onAbort = () => {
        // the thread stops at its next step; the caller is answered now
        this.worker.postMessage({ id, op: 'abort' });
        this.pending.delete(id);
        if (!this.pending.size) this.worker.unref();
        reject(signal!.reason ?? new Error('aborted'));
      };
      this.pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      this.worker.ref();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.postMessage({ ...msg, id });
    });
  }
}

/**
 * The worker thread. From the TypeScript sources (tests, benches under tsx) the thread registers tsx's
 * loader itself first: loader hooks of the main thread do not reach worker threads.
 */
function workerThread(cfg: PpocrConfig): Worker {
  quietRuntime();
  const url = siblingModule(import.meta.url, 'worker');
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData: cfg });
  const boot = `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(url.href)}); }).catch((e) => { throw e; });`;
  return new Worker(boot, { eval: true, workerData: cfg });
}

function revive(e: { quire: boolean; code?: ErrorCode; message: string; details?: unknown; retryable?: boolean; name?: string }): Error {
  if (e.quire) {
    const err = new QuireError(e.code!, e.message, e.details);
    if (e.retryable !== undefined) Object.assign(err, { retryable: e.retryable });
    return err;
  }
  return Object.assign(new Error(e.message), { name: e.name ?? 'Error' });
}

/** How long close() lets a thread's call in flight finish before it is terminated anyway. */
const CLOSE_WAIT_MS = 30_000;

export class PpocrPool {
  private readonly threads: Thread[] = [];
  private readonly waiting: ((t: Thread) => void)[] = [];
  private made = 0;

  constructor(readonly cfg: PpocrConfig) {}

  /**
   * Whether a thread was ever made, i.e. the heavy part (onnxruntime and the models, ~430-580 MB) started: at the
   * first image, or at warm(). Before that, health() only checks that the files are there.
   */
  get started(): boolean {
    return this.made > 0;
  }

  private acquire(signal?: AbortSignal): Promise<Thread> {
    signal?.throwIfAborted();
    const idle = this.threads.find((t) => !t.busy && !t.dead);
    if (idle) return Promise.resolve(idle);
    if (this.threads.length < Math.max(1, this.cfg.concurrency)) {
      this.made++;
      const t = new Thread({ ...this.cfg }, (dead) => {
        const i = this.threads.indexOf(dead);
        if (i >= 0) this.threads.splice(i, 1);
      });
      this.threads.push(t);
      return Promise.resolve(t);
    }
    return new Promise((resolve, reject) => {
      const take = (t: Thread) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(t);
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(take);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(take);
    });
  }

  private release(t: Thread): void {
    t.busy = false;
    const next = this.waiting.shift();
    if (!next) return;
    if (t.dead) {
      // a thread that died is replaced for the one waiting
      void this.acquire().then(next);
      return;
    }
    next(t);
  }

  private async use<T>(msg: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    const t = await this.acquire(signal);
    t.busy = true;
    try {
      return await t.call<T>(msg, signal);
    } finally {
      this.release(t);
    }
  }

  recognize(imagePath: string, options: { language?: string; dpi?: number; signal?: AbortSignal }): Promise<OcrResult> {
    return this.use({ op: 'recognize', imagePath, language: options.language, dpi: options.dpi }, options.signal);
  }

  /**
   * Before the first image (and warm()): whether the models, the dictionary and onnxruntime are there, without
   * loading them. Afterwards: a thread's own check (its sessions are loaded).
   */
  health(): Promise<{ ok: boolean; message?: string }> {
    return this.started ? this.use({ op: 'health' }) : presence(this.cfg);
  }

  /** Starts a thread and loads the models now (what the first image would do): for a process that runs OCR. */
  warm(): Promise<{ ok: boolean; message?: string }> {
    return this.use({ op: 'health' });
  }

  /** Stops the threads, each once the call it is in (a model load, an image) has ended, or after 30 s. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map(async (t) => {
      await t.settled(CLOSE_WAIT_MS);
      await t.worker.terminate().catch(() => {});
    }));
  }
}

/** The cheap part of health(): the files and the runtime package are there (nothing is loaded). */
async function presence(cfg: PpocrConfig): Promise<{ ok: boolean; message?: string }> {
  for (const [what, file] of [['detection model', cfg.detModel], ['recognition model', cfg.recModel], ['dictionary', cfg.dictionary]] as const) {
    try {
      await fs.access(file);
    } catch (e) {
      return { ok: false, message: `PP-OCR ${what} ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
  }
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
  } catch (e) {
    return { ok: false, message: `onnxruntime-node cannot be found: ${(e as Error).message.split('\n')[0]}` };
  }
  return { ok: true, message: `PP-OCR not started (its models load at the first scan); languages: ${PPOCR_LANGUAGES.join(', ')}` };
}
