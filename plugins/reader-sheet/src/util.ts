import { errors, isQuireError } from '@quire/core';
import { XmlScanError } from '@quire/plugin-reader-office';

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

/** Messages of programming errors inside a library: never shown to users as such. */
const INTERNAL = /cannot (read|set) propert|is not a function|is not iterable|is not a constructor|is not defined|maximum call stack|invalid array length|invalid string length|unexpected token|\bundefined\b|\bnull\b/i;

export function describeFailure(e: unknown, format = 'file'): string {
  const m = messageOf(e);
  if (e instanceof XmlScanError) return `the file is damaged (malformed XML: ${m})`;
  if (/end of central directory|zip file|invalid zip|corrupted zip|unexpected end|invalid signature|Corrupted|truncated/i.test(m)) return `the file is corrupt or truncated (${m})`;
  if (/password|encrypt/i.test(m)) return 'the file is password-protected (encrypted)';
  if (e instanceof TypeError || e instanceof ReferenceError || e instanceof RangeError || INTERNAL.test(m)) {
    return `the file is damaged or not ${format === 'csv' ? 'a CSV file' : 'a spreadsheet'}`;
  }
  return m;
}

/** Aborts pass through, Quire errors pass through, anything else becomes "<format> could not be read: <reason>". */
export async function guard<T>(format: string, signal: AbortSignal | undefined, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal);
    if (isQuireError(e)) throw e;
    throw errors.processing(`${format} could not be read: ${describeFailure(e, format)}`);
  }
}
