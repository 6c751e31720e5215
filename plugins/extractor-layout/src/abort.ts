/** An AbortError like fetch's, thrown between steps when the caller's signal is aborted. */
export function abortError(signal?: AbortSignal): Error {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new Error(typeof reason === 'string' ? reason : 'Extraction aborted');
  e.name = 'AbortError';
  return e;
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}
