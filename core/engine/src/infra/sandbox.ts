/**
 * Where the expressions and templates of workflow steps are evaluated: never on the process's event loop, but
 * in a few isolates (core's startIsolate: child processes with a heap limit), one task at a time each. A task
 * is all the expressions (or templates) of one step; it may take `timeoutMs` from the moment its isolate
 * gets it (queueing and process start not counted), then the isolate is killed (SIGKILL: a loop inside a
 * regex or a template cannot stop itself) and the step fails with UNPROCESSABLE. An answer larger than
 * `maxChars` is refused in the isolate; one that needs more than the heap limit ends its isolate and fails
 * the same way. Isolates start on first use, wait idle for the next task, and end after a minute unused.
 */
import { QuireError, errors, siblingModule, startIsolate } from '@quire/core';
import type { ErrorCode, IsolateHandle } from '@quire/core';

export interface EvalRequest {
  id: number;
  /** JSONata expressions, or handlebars templates (JSON-escaped for a template that looks like JSON) */
  kind: 'expressions' | 'templates';
  /** name → expression or template; the answer has the same names */
  items: Record<string, string>;
  context: Record<string, unknown>;
  /** characters all the answers of the task may have together (JSON for values, the text of templates) */
  maxChars: number;
}

export type EvalResponse = { id: number; ok: true; result: Record<string, unknown> } | { id: number; ok: false; error: { code: string; message: string; details?: unknown } };

export interface SandboxOptions {
  /** isolates at most; tasks beyond wait */
  size: number;
  /** time one task may take in its isolate, ms */
  timeoutMs: number;
  /** heap limit of each isolate, MB */
  heapMb: number;
  /** characters a task's answers may have together */
  maxChars: number;
  /** how long an idle isolate is kept, ms */
  idleMs?: number;
}

/**
 * The isolates of a process (a step's task waits while both are busy), the heap of each, and the characters a
 * step's expressions or templates may produce together (1 MB of text: a message, a request body, a mapping).
 */
export const EVAL_LIMITS = Object.freeze({ size: 2, heapMb: 256, maxChars: 1_000_000 });

/** how long an isolate may take to start (process start and module load, on a loaded machine) */
const START_MS = 60_000;

interface Task {
  request: Omit<EvalRequest, 'id' | 'maxChars'>;
  label: string;
  signal?: AbortSignal;
  resolve(result: Record<string, unknown>): void;
  reject(e: unknown): void;
}

interface Slot {
  isolate: IsolateHandle;
  ready: boolean;
  task: (Task & { id: number; timer?: NodeJS.Timeout; onAbort?: () => void }) | null;
  dead: boolean;
  idle?: NodeJS.Timeout;
}

export class EvalSandbox {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: SandboxOptions) {}

  /** Evaluates a step's expressions over `context`: name → value (undefined where an expression has none). */
  expressions(items: Record<string, string>, context: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return this.run({ kind: 'expressions', items, context }, 'The expression', signal);
  }

  /** Renders a step's templates with `context`: name → text. */
  templates(items: Record<string, string>, context: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, string>> {
    return this.run({ kind: 'templates', items, context }, 'The template', signal) as Promise<Record<string, string>>;
  }

  private run(request: Task['request'], label: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new Error('the expression sandbox is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      this.queue.push({ request, label, signal, resolve, reject });
      this.pump();
    });
  }

  private spawn(): Slot {
    const isolate = startIsolate(siblingModule(import.meta.url, 'eval-worker'), { heapMb: this.opts.heapMb });
    isolate.unref();
    const slot: Slot = { isolate, ready: false, task: null, dead: false };
    // an isolate that does not come up (a machine out of processes or memory) fails its task instead of holding it
    const starting = setTimeout(() => this.retire(slot, errors.unavailable(`The isolate for workflow expressions did not start within ${START_MS / 1000} s`)), START_MS);
    starting.unref();
    isolate.on('message', (m: EvalResponse | { ready: true }) => {
      if ('ready' in m) {
        clearTimeout(starting);
        slot.ready = true;
        return this.send(slot);
      }
      const t = slot.task;
      if (!t || t.id !== m.id) return;
      this.settle(slot);
      if (m.ok) t.resolve(m.result);
      else t.reject(new QuireError(m.error.code as ErrorCode, m.error.message, m.error.details));
      this.pump();
    });
    isolate.on('error', (e: Error & { code?: string }) => {
      const label = slot.task?.label ?? 'The expression';
      this.retire(slot, e?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? errors.unprocessable(`${label} needs more memory than its limit (${this.opts.heapMb} MB); it was stopped`, { limit_mb: this.opts.heapMb }) : e);
    });
    isolate.on('exit', (code) => this.retire(slot, new Error(`the isolate evaluating ${(slot.task?.label ?? 'an expression').toLowerCase()} stopped unexpectedly (exit code ${code})`)));
    this.slots.push(slot);
    return slot;
  }

  /** Hands a ready isolate its task and starts the task's clock. */
  private send(slot: Slot): void {
    const t = slot.task;
    if (!t || !slot.ready || slot.dead || t.timer) return;
    const { timeoutMs } = this.opts;
    t.timer = setTimeout(() => this.retire(slot, errors.unprocessable(`Evaluation timeout: ${t.label.toLowerCase()} ran for more than ${Math.round(timeoutMs / 100) / 10} s and was stopped`, { limit_ms: timeoutMs })), timeoutMs);
    slot.isolate.postMessage({ ...t.request, id: t.id, maxChars: this.opts.maxChars } satisfies EvalRequest);
  }

  /** The slot's task is over: its clock and abort listener go, the isolate no longer holds the process. */
  private settle(slot: Slot): void {
    const t = slot.task;
    slot.task = null;
    if (t) {
      clearTimeout(t.timer);
      t.signal?.removeEventListener('abort', t.onAbort!);
    }
    slot.isolate.unref();
    if (!slot.dead) {
      slot.idle = setTimeout(() => this.retire(slot, null), this.opts.idleMs ?? 60_000);
      slot.idle.unref();
    }
  }

  /** Ends an isolate (its task, if any, fails with `err`). */
  private retire(slot: Slot, err: unknown): void {
    if (slot.dead) return;
    const t = slot.task;
    slot.dead = true;
    this.settle(slot);
    clearTimeout(slot.idle);
    this.slots.splice(this.slots.indexOf(slot), 1);
    // the process waits for the kill to be done (terminate refs it), so that close() leaves nothing behind
    void slot.isolate.terminate();
    t?.reject(err);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.queue.length) {
      let slot = this.slots.find((s) => !s.dead && !s.task);
      if (!slot && this.slots.length < this.opts.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift()!;
      clearTimeout(slot.idle);
      const s = slot;
      const running = { ...task, id: this.nextId++, onAbort: () => this.retire(s, task.signal!.reason) };
      slot.task = running;
      task.signal?.addEventListener('abort', running.onAbort, { once: true });
      slot.isolate.ref();
      this.send(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new Error('the expression sandbox is closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        const t = s.task;
        s.dead = true;
        this.settle(s);
        clearTimeout(s.idle);
        t?.reject(new Error('the expression sandbox is closed'));
        s.isolate.ref();
        return s.isolate.terminate();
      }),
    );
  }
}
