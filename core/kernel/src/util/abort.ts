/**
 * Abort helpers for work that takes an AbortSignal (reads, extractions, LLM calls, zip inflation).
 *
 * Two policies, on purpose:
 * - `abortReason` / `checkAbort` / `raceSignal` pass the caller's reason through as it is (like
 *   `signal.throwIfAborted()`): a reader's timeout error or a cancelled job's error surfaces as itself.
 * - `abortError` / `throwIfAborted` always give an Error named AbortError (like fetch): for callers that
 *   test `e.name === 'AbortError'` whatever the reason was.
 * Both accept a missing signal and signals without a reason.
 */

/** Why the signal was aborted, as the caller gave it; an Error named AbortError when it gave nothing. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

/** Throws the abort reason (see abortReason) when the signal is aborted. */
export function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortReason(signal);
}

/**
 * An Error named AbortError for an abort reason: the reason itself when it already is one, else a new
 * error whose message is the reason when that is a string, else `message`.
 */
export function abortError(reason?: unknown, message = 'The operation was aborted'): Error {
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new Error(typeof reason === 'string' ? reason : message);
  e.name = 'AbortError';
  return e;
}

/** Throws abortError(signal.reason, message) when the signal is aborted. */
export function throwIfAborted(signal?: AbortSignal, message?: string): void {
  if (signal?.aborted) throw abortError(signal.reason, message);
}

/** Rejects with the abort reason as soon as the signal aborts, even when the wrapped work cannot be interrupted. */
export function raceSignal<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
