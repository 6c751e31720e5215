import chardet from 'chardet';
import { fix_encoding } from 'ftfy-js';
import iconv from 'iconv-lite';

export interface Decoded {
  text: string;
  encoding: string;
  /** lines that had been decoded with the wrong encoding before they were saved (mojibake: "Â£850", "â€™") were repaired */
  repaired?: boolean;
}

/**
 * A character that UTF-8's lead bytes become when read as Windows-1252 or Latin-1 (Â, Ã, â, Ð, Ø, …), followed by one
 * that its continuation bytes become (C1 controls, Latin-1 symbols, the Windows-1252 punctuation): a line without
 * such a pair holds no mojibake of UTF-8 and is not looked at further.
 */
const MOJIBAKE_HINT = /[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]/;

/** a line is repaired in pieces of at most this many characters (cut after a space), and a text's repair stops after BUDGET */
const PIECE = 1000;
const BUDGET = 200_000;

/** what is left of a text's repair budget: one for a whole file whose parts (a CSV file's cells) are repaired one by one */
export interface MojibakeBudget {
  left: number;
}

/** a new budget of BUDGET characters */
export const mojibakeBudget = (): MojibakeBudget => ({ left: BUDGET });

/**
 * Repairs mojibake with ftfy's encoding fix (a port of python-ftfy: it changes a piece only when the re-decoded text is
 * more plausible, so "SÃO PAULO" and "Âge" stay): text saved after UTF-8 had been read as Windows-1252 or Latin-1,
 * often in pages copied from the web ("Â£850,000" → "£850,000", "2005 â†’" → "2005 →"). Only lines holding a
 * MOJIBAKE_HINT are looked at, in pieces of PIECE characters (the fix's time grows with the square of its input's
 * length: 8 s for one line of 100,000 characters), and at most BUDGET characters of them a text; past that it is
 * left as decoded (a 20 MB file of nothing but mojibake, in lines or in one line, decodes in 0.5–0.7 s). Parts of one file
 * repaired apart (a CSV file's cells) share one `budget`.
 */
export function repairMojibake(text: string, budget: MojibakeBudget = mojibakeBudget()): string {
  if (budget.left <= 0 || !MOJIBAKE_HINT.test(text)) return text;
  const out: string[] = [];
  // text before `copied` is in `out`; a line is cut in pieces of at most PIECE characters, each after a space near its end, and
  // once the budget is spent the rest of the text is copied as decoded, so a hostile line costs no more than its BUDGET
  let copied = 0;
  for (let start = 0; start < text.length && budget.left > 0; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    for (let i = start; i < end && budget.left > 0; ) {
      let j = Math.min(end, i + PIECE);
      if (j < end) {
        const space = text.slice(i + PIECE / 2, j).lastIndexOf(' ');
        if (space >= 0) j = i + PIECE / 2 + space + 1;
      }
      const piece = text.slice(i, j);
      if (MOJIBAKE_HINT.test(piece)) {
        budget.left -= piece.length;
        out.push(text.slice(copied, i), fix_encoding(piece));
        copied = j;
      }
      i = j;
    }
    if (newline < 0) break;
    start = newline + 1;
  }
  if (copied === 0) return text;
  out.push(text.slice(copied));
  return out.join('');
}

/** A decoded file's metadata: its encoding, and `encodingRepaired` when mojibake was repaired in it (text, HTML and CSV readers). */
export function encodingMetadata({ encoding, repaired }: Pick<Decoded, 'encoding' | 'repaired'>): Record<string, unknown> {
  return repaired ? { encoding, encodingRepaired: true } : { encoding };
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
 * then windows-1252. Line endings are normalised to \n, and mojibake is repaired (`repairMojibake`) unless `repair` is
 * false (a sample read only for its encoding and its delimiter).
 */
export function decodeText(bytes: Uint8Array, declared?: string | null, { repair = true }: { repair?: boolean } = {}): Decoded {
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
  const decoded = iconv.decode(body, encoding).replace(/\r\n?/g, '\n');
  const text = repair ? repairMojibake(decoded) : decoded;
  return text === decoded ? { text, encoding } : { text, encoding, repaired: true };
}
