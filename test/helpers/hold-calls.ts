/**
 * Holds the calls of `obj[method]` whose first argument `matches`: such a call waits until `release()` before
 * running; `reached` settles when one arrives at the hold, `written` when it has run; `restore()` puts the
 * method back (and releases).
 */
export function holdCalls<T extends object>(obj: T, method: string, matches: (arg: any) => boolean) {
  const target = obj as any;
  const original = target[method];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let reach!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  let wrote!: () => void;
  const written = new Promise<void>((r) => (wrote = r));
  target[method] = async function (this: unknown, arg: unknown, ...rest: unknown[]) {
    if (!matches(arg)) return original.call(this, arg, ...rest);
    reach();
    await held;
    try {
      return await original.call(this, arg, ...rest);
    } finally {
      wrote();
    }
  };
  return {
    reached,
    written,
    release,
    restore() {
      release();
      target[method] = original;
    },
  };
}

/**
 * The call stack here, deep enough to name the functions of the run that made the call (their own frames and
 * their awaiting callers'): a hold picks its call by the function it is made for.
 */
export function callStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 200;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack;
}
