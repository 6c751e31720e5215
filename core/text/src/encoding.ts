import chardet from 'chardet';
import iconv from 'iconv-lite';

export interface Decoded {
  text: string;
  encoding: string;
}

const BOMS: [number[], string][] = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe, 0x00, 0x00], 'utf-32le'],
  [[0x00, 0x00, 0xfe, 0xff], 'utf-32be'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

function bom(bytes: Uint8Array): { encoding: string; length: number } | null {
  for (const [sig, encoding] of BOMS) {
    if (bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b)) return { encoding, length: sig.length };
  }
  return null;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** UTF-16 without a BOM is valid UTF-8 byte-wise (NULs), so look for many NUL bytes first. */
function looksUtf16(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  let nul = 0;
  for (let i = 0; i < n; i++) if (bytes[i] === 0) nul++;
  return n > 0 && nul / n > 0.2;
}

/** Normalises detector / meta names to ones iconv-lite knows; latin1 is read as its superset windows-1252. */
function normalise(name: string): string | null {
  const n = name.trim().toLowerCase().replace(/_/g, '-');
  if (n === 'iso-8859-1' || n === 'latin1' || n === 'us-ascii' || n === 'ascii') return n === 'us-ascii' || n === 'ascii' ? 'utf-8' : 'windows-1252';
  if (n === 'utf8') return 'utf-8';
  return iconv.encodingExists(n) ? n : null;
}

/**
 * Decodes text bytes: a BOM wins, then valid UTF-8, then a declared charset (HTML meta), then chardet's guess,
 * then windows-1252. Line endings are normalised to \n.
 */
export function decodeText(bytes: Uint8Array, declared?: string | null): Decoded {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let encoding: string;
  let body = buf;
  const b = bom(buf);
  if (b) {
    encoding = b.encoding;
    body = buf.subarray(b.length);
  } else if (!looksUtf16(buf) && isUtf8(buf)) {
    encoding = 'utf-8';
  } else {
    const fromMeta = declared ? normalise(declared) : null;
    const guess = chardet.detect(buf.subarray(0, 256 * 1024));
    encoding = (fromMeta && fromMeta !== 'utf-8' ? fromMeta : null) ?? (guess ? normalise(guess) : null) ?? 'windows-1252';
    if (encoding === 'utf-8') encoding = 'windows-1252'; // not valid UTF-8, so the guess was wrong
  }
  const text = iconv.decode(body, encoding).replace(/\r\n?/g, '\n');
  return { text, encoding };
}
