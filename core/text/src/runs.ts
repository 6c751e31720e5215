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

/** Whether the code point `cp` is a letter or a digit (Unicode `\p{L}` or `\p{N}`). */
export function isLetterOrDigit(cp: number): boolean {
  if (cp < 128) return (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90) || (cp >= 48 && cp <= 57);
  return (traits(cp) & 1) !== 0;
}

/**
 * The runs of letters and digits (Unicode `\p{L}` and `\p{N}`, by code point) of a text, in order: the words
 * of the local embedder and of the keyword index. Scanned by character code; a character above ASCII is
 * looked up once per process.
 */
export function letterDigitRuns(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    let inRun: boolean;
    let width = 1;
    if (c < 128) inRun = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
    else {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) width = 2;
      inRun = (traits(cp) & 1) !== 0;
    }
    if (inRun) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    }
    i += width - 1;
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
