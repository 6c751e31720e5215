import { abortReason, errors, isQuireError } from '@quire/core';
import { XmlScanError } from '@quire/office';

/** Nominal page size (points) for sheets, which have no page geometry of their own. */
export const NOMINAL_PAGE = { width: 612, height: 792 } as const;

export const isCfb = (b: Uint8Array) => b.length >= 8 && b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0 && b[4] === 0xa1 && b[5] === 0xb1 && b[6] === 0x1a && b[7] === 0xe1;

/** The abort helpers of @quire/core, under the names this plugin's modules import them by. */
export { abortReason, checkAbort, raceSignal } from '@quire/core';

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
