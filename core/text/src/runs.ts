const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const MARK = /\p{M}/u;

/** Per code point above ASCII, whether it is a letter or digit (bit 1) and whether folding leaves it as it is (bit 2). */
const seen = new Map<number, number>();
const SEEN_MAX = 65_536;

function traits(cp: number): number {
  let t = seen.get(cp);
  if (t === undefined) {
    const ch = String.fromCodePoint(cp);
    t = (LETTER_OR_DIGIT.test(ch) ? 1 : 0) | (ch.normalize('NFKD') === ch && !MARK.test(ch) ? 2 : 0);
    if (seen.size >= SEEN_MAX) seen.clear();
    seen.set(cp, t);
  }
  return t;
}

/**
 * The width in code units (1, or 2 for a surrogate pair) of the letter or digit (Unicode `\p{L}` or `\p{N}`) that
 * starts at index `i` of `text`, or 0 when the code point there is none (or `i` is past the end).
 */
export function letterOrDigitAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ? 1 : 0;
  if (c !== c) return 0;
  const cp = text.codePointAt(i)!;
  return (traits(cp) & 1) === 0 ? 0 : cp > 0xffff ? 2 : 1;
}

/**
 * The runs of letters and digits (Unicode `\p{L}` and `\p{N}`, by code point) of a text, in order: the words
 * of the local embedder and of the keyword index. Scanned by character code; a character above ASCII is
 * looked up once per process.
 */
export function letterDigitRuns(text: string): string[] {
  const out: string[] = [];
  for (let i = 0, n = text.length; i < n; ) {
    let w = letterOrDigitAt(text, i);
    if (!w) {
      i++;
      continue;
    }
    const start = i;
    do i += w;
    while (i < n && (w = letterOrDigitAt(text, i)));
    out.push(text.slice(start, i));
  }
  return out;
}

/**
 * Whether folding (`normalize('NFKD')` and the removal of combining marks) leaves the text as it is: true for
 * ASCII, and for text whose every other character has no decomposition and is no mark (typographic quotes,
 * dashes, bullets, most non-Latin scripts), so that the folding can be skipped.
 */
export function foldsToItself(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) continue;
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    if ((traits(cp) & 2) === 0) return false;
  }
  return true;
}

/** The text decomposed (NFKD) with its combining marks removed ("café" → "cafe", "ﬁ" → "fi"); as it is when that would change nothing. */
export function foldMarks(text: string): string {
  return foldsToItself(text) ? text : text.normalize('NFKD').replace(/\p{M}+/gu, '');
}
