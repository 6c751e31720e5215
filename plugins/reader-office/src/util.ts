import { abortReason, errors, isQuireError } from '@quire/core';

/** The abort helpers of @quire/core, under the names this plugin's modules import them by. */
export { abortReason, checkAbort, raceSignal } from '@quire/core';

/** Nominal page size (US Letter, points) for flowed formats that have no fixed page geometry. */
export const NOMINAL_PAGE = { width: 612, height: 792 } as const;

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_MAGIC = Buffer.from([0x50, 0x4b]);

export function isCfb(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(CFB_MAGIC);
}

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === ZIP_MAGIC[0] && bytes[1] === ZIP_MAGIC[1];
}

function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/\s+/g, ' ').trim().slice(0, 300) || 'unknown error';
}

/** Messages of programming errors inside a library: never shown to users as such. */
const INTERNAL = /cannot (read|set) propert|is not a function|is not iterable|is not a constructor|is not defined|maximum call stack|invalid array length|invalid string length|unexpected token|\bundefined\b|\bnull\b/i;

const ARTICLE: Record<string, string> = { docx: 'a Word document', doc: 'a Word document', rtf: 'an RTF document', txt: 'a text file', html: 'an HTML page' };

/**
 * Turns a library failure into a clear reason. Errors that are only a library's internals showing
 * ("Cannot read properties of undefined") become "the file is damaged or not <a docx file>".
 */
export function describeFailure(e: unknown, bytes?: Uint8Array, ooxml = false, format?: string): string {
  if (bytes && ooxml && isCfb(bytes)) return 'the file is password-protected (encrypted)';
  if (bytes && bytes.length === 0) return 'the file is empty';
  const m = messageOf(e);
  if (/end of central directory|zip file|invalid zip|corrupted zip|unexpected end|invalid signature|ERR_INVALID/i.test(m)) {
    return `the file is corrupt or truncated (${m})`;
  }
  if (/password|encrypt/i.test(m)) return 'the file is password-protected (encrypted)';
  if (e instanceof TypeError || e instanceof ReferenceError || e instanceof RangeError || INTERNAL.test(m)) {
    return `the file is damaged or not ${format ? (ARTICLE[format] ?? `a ${format} file`) : 'what its format says'}`;
  }
  return m;
}

/**
 * Runs a reader body: aborts pass through untouched, Quire errors pass through, every other failure becomes
 * PROCESSING_ERROR "<format> could not be read: <reason>".
 */
export async function guard<T>(format: string, signal: AbortSignal | undefined, body: () => Promise<T>, reason?: (e: unknown) => string): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal);
    if (isQuireError(e)) throw e;
    throw errors.processing(`${format} could not be read: ${reason ? reason(e) : describeFailure(e, undefined, false, format)}`);
  }
}

/** "Figure 1: …", "Table 2. …": a caption line. */
export function isCaption(text: string): boolean {
  return /^(figure|fig\.|table|tab\.|chart|exhibit|image|illustration|plate|photo|listing|diagram|abbildung|tabelle)\s*[\dIVXivx]+[a-z]?\s*[.:–—-]/i.test(text.trim()) && text.length < 400;
}

/** `Label: value` on one line. Conservative: short label of at most 6 words, starting with a letter. */
const KV = /^([\p{L}][\p{L}\p{N} ./&()#'’_-]{0,48}?)\s*:\s+(\S.*)$/u;

export function keyValue(text: string): { key: string; value: string } | null {
  if (text.includes('\n') || text.length > 300 || isCaption(text)) return null;
  const m = KV.exec(text.trim());
  if (!m) return null;
  const key = m[1]!.trim();
  const value = m[2]!.trim();
  if (key.split(/\s+/).length > 6) return null;
  if (/^(https?|ftp|mailto|file)$/i.test(key)) return null;
  // a sentence that merely contains a colon ("Also, don't forget: ...") is not a pair
  if (/[,;]/.test(key)) return null;
  return { key, value };
}
