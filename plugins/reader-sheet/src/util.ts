import { errors, isQuireError } from '@quire/core';

/** Nominal page size (points) for sheets, which have no page geometry of their own. */
export const NOMINAL_PAGE = { width: 612, height: 792 } as const;

export const isCfb = (b: Uint8Array) => b.length >= 8 && b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0 && b[4] === 0xa1 && b[5] === 0xb1 && b[6] === 0x1a && b[7] === 0xe1;

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

export function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** Rejects as soon as the signal aborts, even when the wrapped work cannot be interrupted. */
export function raceSignal<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/\s+/g, ' ').trim().slice(0, 300) || 'unknown error';
}

export function describeFailure(e: unknown): string {
  const m = messageOf(e);
  if (/end of central directory|zip file|invalid zip|corrupted zip|unexpected end|invalid signature|Corrupted|truncated/i.test(m)) return `the file is corrupt or truncated (${m})`;
  if (/password|encrypt/i.test(m)) return 'the file is password-protected (encrypted)';
  return m;
}

/** Aborts pass through, Quire errors pass through, anything else becomes "<format> could not be read: <reason>". */
export async function guard<T>(format: string, signal: AbortSignal | undefined, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal);
    if (isQuireError(e)) throw e;
    throw errors.processing(`${format} could not be read: ${describeFailure(e)}`);
  }
}
