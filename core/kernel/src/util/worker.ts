import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { QuireError, errors, isQuireError } from '../errors/index.js';
import type { ErrorCode } from '../errors/index.js';

/**
 * The worker module `name` next to the module at `self` (import.meta.url): `<name>.ts` under tsx
 * (sources), `<name>.js` once built.
 */
export function siblingModule(self: string, name: string): URL {
  return new URL(self.endsWith('.ts') ? `./${name}.ts` : `./${name}.js`, self);
}

/** A child process started by startIsolate(), answering like a Worker. */
export interface IsolateHandle {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: any) => void): this;
  on(event: 'error', listener: (err: Error & { code?: string }) => void): this;
  on(event: 'exit', listener: (code: number) => void): this;
  terminate(): Promise<unknown>;
  ref(): void;
  unref(): void;
  /** resident memory of the isolate in bytes (Linux), else null */
  rss(): number | null;
}

/**
 * Starts a module in a child process of its own with a heap limit (`--max-old-space-size`), answering like a
 * Worker (postMessage / message / error / exit / terminate). Unlike a worker thread's resourceLimits, whose
 * enforcement is best effort (one allocation past the limit in a single step aborts the whole process,
 * nodejs/node#47224), a child process that runs out of memory ends alone: the parent sees an 'error' with
 * code ERR_WORKER_OUT_OF_MEMORY and then 'exit'. The module reads its data and talks through isolatePort().
 */
export function startIsolate(url: URL, opts: { workerData?: unknown; heapMb: number; maxRssMb?: number; v8Flags?: string[] }): IsolateHandle {
  const execArgv: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const a = process.execArgv[i]!;
    // the test runner's and the debugger's flags stay with the parent; the heap limit is the isolate's own
    if (/^--(test|experimental-test|inspect|max-old-space-size|heapsnapshot|cpu-prof|prof)/.test(a)) continue;
    execArgv.push(a);
  }
  execArgv.push(`--max-old-space-size=${opts.heapMb}`);
  // V8 settings of the module's own (its compiler's budgets), set in code by the module's owner
  execArgv.push(...(opts.v8Flags ?? []));
  const child: ChildProcess = fork(fileURLToPath(url), [], {
    execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, QUIRE_ISOLATE_DATA: JSON.stringify(opts.workerData ?? null) },
  });
  const emitter = new EventEmitter();
  let terminating = false;
  let exited = false;
  // the child and its channel never hold the parent's event loop by themselves; ref() holds it with a timer
  // (the ref/unref of an IPC channel is counted by Node itself and cannot be relied on from outside)
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
  let keep: NodeJS.Timeout | null = null;
  const hold = (on: boolean) => {
    if (on && !keep) keep = setInterval(() => {}, 1 << 30);
    else if (!on && keep) {
      clearInterval(keep);
      keep = null;
    }
  };
  // the heap limit does not cover buffers (a decoded stream, an image): the whole process is watched too, and
  // killed past maxRssMb (default: the heap limit and 128 MB of code and buffers, and 256 MB more when it
  // runs from the TypeScript sources, whose compiler and source maps live in the same process)
  const fromSource = url.pathname.endsWith('.ts');
  const maxRss = (opts.maxRssMb ?? opts.heapMb + 128 + (fromSource ? 256 : 0)) * 1024 * 1024;
  let overMemory = false;
  const watch = setInterval(() => {
    const rss = processRss(child.pid);
    if (rss !== null && rss > maxRss && !exited) {
      overMemory = true;
      child.kill('SIGKILL');
    }
  }, 100);
  watch.unref();
  child.on('message', (m) => emitter.emit('message', m));
  child.on('error', (e) => emitter.emit('error', e));
  child.on('exit', (code, signal) => {
    exited = true;
    clearInterval(watch);
    hold(false);
    if (overMemory && !terminating) {
      emitter.emit('error', Object.assign(new Error('the isolate used more memory than its limit'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }));
      emitter.emit('exit', 1);
      return;
    }
    // V8 ends a process that runs out of heap, or grows one object past it, with abort() or a trap
    // (SIGABRT, SIGTRAP, SIGILL; 134, 133, 132 when reported as exit codes)
    if (!terminating && (signal === 'SIGABRT' || signal === 'SIGTRAP' || signal === 'SIGILL' || code === 134 || code === 133 || code === 132)) emitter.emit('error', Object.assign(new Error('the isolate ran out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }));
    else if (!terminating && signal) emitter.emit('error', Object.assign(new Error(`the isolate was stopped by ${signal}`), { code: 'ERR_ISOLATE_KILLED' }));
    emitter.emit('exit', code ?? (signal ? 1 : 0));
  });
  const handle: IsolateHandle = {
    postMessage(message) {
      if (!exited && child.connected) child.send(message as never);
    },
    on(event: string, listener: (...args: any[]) => void) {
      emitter.on(event, listener);
      return handle;
    },
    terminate() {
      if (exited) return Promise.resolve(0);
      terminating = true;
      hold(true);
      return new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGKILL');
      });
    },
    rss() {
      return exited ? null : processRss(child.pid);
    },
    ref() {
      hold(true);
    },
    unref() {
      hold(false);
    },
  } as IsolateHandle;
  return handle;
}

/** Resident memory of a process in bytes (Linux /proc), or null where it cannot be read. */
function processRss(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const statm = readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ');
    return Number(statm[1]) * PAGE_SIZE;
  } catch {
    return null;
  }
}
const PAGE_SIZE = 4096;

/** Inside a module started by startIsolate(): its data and the port to its parent. It ends when its parent goes away. */
export function isolatePort(): { data: unknown; port: { on(event: 'message', listener: (m: any) => void): void; postMessage(m: unknown): void } } {
  if (!process.send) throw new Error('isolatePort(): this process was not started by startIsolate');
  process.on('disconnect', () => process.exit(0));
  const raw = process.env.QUIRE_ISOLATE_DATA;
  return {
    data: raw ? JSON.parse(raw) : null,
    port: {
      on: (_event, listener) => void process.on('message', listener),
      postMessage: (m) => void process.send!(m as never),
    },
  };
}

/** What runIsolated() needs: the worker module, its limits, and what to call a failure of it. */
export interface RunIsolatedOptions {
  /** heap limit of the isolate, MB (resident memory is watched at this + 128 MB, see startIsolate) */
  heapMb: number;
  /** time the whole task may take, process start included, ms; past it the isolate is killed */
  timeoutMs: number;
  /** what the task works on, for messages ("The PDF", "The template") */
  label: string;
  signal?: AbortSignal;
}

/** One task's request and answer between runIsolated() and serveIsolated(). */
type IsolatedReply = { ok: true; result: unknown } | { ok: false; error: { name: string; message: string; code?: string; details?: unknown; quire: boolean } };

/**
 * Runs one task in an isolate of its own (startIsolate): the module at `url` answers `request` through
 * serveIsolated(). The isolate is killed once the task is done, when it takes longer than `timeoutMs`, or
 * when `signal` aborts. Running out of time or memory is a permanent failure (UNPROCESSABLE, a 422): the same
 * input would do it again. A QuireError the task throws comes back with its code, a system error (ENOENT…)
 * with its code, any other error as UNPROCESSABLE (the parser's verdict on the input, permanent). For parsers of untrusted input that must not run on the API's event loop and have no pool of
 * their own; a process start costs a few hundred milliseconds, so it suits jobs, not hot paths.
 */
export function runIsolated<T>(url: URL, request: unknown, opts: RunIsolatedOptions): Promise<T> {
  if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
  return new Promise<T>((resolve, reject) => {
    const isolate = startIsolate(url, { heapMb: opts.heapMb });
    isolate.ref();
    let settled = false;
    const finish = (err: unknown, result?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      void isolate.terminate();
      if (err) reject(err);
      else resolve(result as T);
    };
    const timer = setTimeout(() => finish(errors.unprocessable(`${opts.label} could not be processed within ${Math.round(opts.timeoutMs / 100) / 10} s; it was stopped`, { limit_ms: opts.timeoutMs })), opts.timeoutMs);
    const onAbort = () => finish(opts.signal!.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    isolate.on('message', (m: IsolatedReply) => {
      if (m.ok) return finish(null, m.result);
      const e = m.error;
      if (e.quire && e.code) return finish(new QuireError(e.code as ErrorCode, e.message, e.details));
      // a system error (ENOENT, EMFILE…) keeps its code, and its retry verdict with it; any other error is the
      // parser's verdict on the input (a RangeError of a cyclic object graph, a malformed structure): permanent
      if (e.code && /^E[A-Z]+$/.test(e.code)) return finish(Object.assign(new Error(e.message), { name: e.name, code: e.code }));
      finish(errors.unprocessable(`${opts.label} could not be processed: ${e.message.split('\n')[0]!.slice(0, 300)}`));
    });
    isolate.on('error', (e) => {
      if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') finish(errors.unprocessable(`${opts.label} needs more memory than its limit (${opts.heapMb} MB); it was stopped`, { limit_mb: opts.heapMb }));
      else finish(e);
    });
    isolate.on('exit', (code) => finish(new Error(`the worker for ${opts.label.toLowerCase()} stopped unexpectedly (exit code ${code})`)));
    isolate.postMessage(request);
  });
}

/** Inside a module run by runIsolated(): answers its one request with `handler`'s result (or its error) and ends. */
export function serveIsolated(handler: (request: any) => unknown): void {
  const { port } = isolatePort();
  port.on('message', (request) => {
    void (async () => {
      let reply: IsolatedReply;
      try {
        reply = { ok: true, result: await handler(request) };
      } catch (e) {
        reply = isQuireError(e) ? { ok: false, error: { name: e.name, message: e.message, code: e.code, details: e.details, quire: true } } : { ok: false, error: { name: (e as Error)?.name ?? 'Error', message: (e as Error)?.message ?? String(e), code: typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : undefined, quire: false } };
      }
      port.postMessage(reply);
    })();
  });
}
