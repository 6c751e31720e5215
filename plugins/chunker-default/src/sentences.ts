/**
 * Sentence and word boundaries for splitting over-long paragraphs. Rule-based: a sentence ends at . ! ? …
 * (optionally followed by closing quotes/brackets) and whitespace, unless the period follows a known
 * abbreviation or an initial, or the next word starts in lower case; CJK full stops end a sentence without
 * whitespace; a line break inside a block also starts a new sentence (list lines, addresses).
 */

const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'e.g', 'i.e', 'fig', 'figs', 'no', 'nos', 'vol', 'vols',
  'inc', 'ltd', 'co', 'corp', 'approx', 'dept', 'est', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept',
  'oct', 'nov', 'dec', 'cf', 'al', 'p', 'pp', 'ch', 'sec', 'art', 'ref', 'eq', 'u.s', 'u.k', 'a.m', 'p.m', 'ca', 'resp',
  'gen', 'gov', 'sgt', 'capt', 'col', 'lt', 'mt', 'ft', 'nr', 'tel', 'abs', 'para', 'cl', 'ed', 'eds', 'rev', 'dr', 'bzw', 'z.b', 'vgl', 'ggf',
]);

const BOUNDARY = /([.!?…]+["'”’»)\]]*\s+)|([。！？]+["'”’»)\]]*\s*)|(\s*\n\s*)/g;
const LOWER_START = /^\p{Ll}/u;
const ONE_UPPER = /^\p{Lu}$/u;
const LEADING_DOTS = /^\.+/;
const WORD_CHAR = /^[\p{L}\p{N}.]$/u;

/** The run of letters, digits and periods that ends at `end`, at most 24 code units back. */
function wordBefore(text: string, end: number): string {
  const limit = Math.max(0, end - 24);
  let i = end;
  while (i > limit) {
    const c = text.charCodeAt(i - 1);
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46) {
      i--;
      continue;
    }
    if (c < 128) break;
    // a letter outside ASCII, of one code unit or of a surrogate pair (both inside the 24)
    const ch = c >= 0xdc00 && c <= 0xdfff && i - 2 >= limit ? text.slice(i - 2, i) : text[i - 1]!;
    if (!WORD_CHAR.test(ch)) break;
    i -= ch.length;
  }
  return text.slice(i, end);
}

/** Offsets in `text` (> 0, < text.length) where a new sentence starts. */
export function sentenceStarts(text: string): number[] {
  const out: number[] = [];
  BOUNDARY.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BOUNDARY.exec(text))) {
    const next = m.index + m[0].length;
    if (next >= text.length || next === 0) continue;
    if (m[3] !== undefined || m[0].includes('\n')) {
      // a line break always starts a new sentence
    } else if (m[1] && m[1].startsWith('.') && !m[1].startsWith('...')) {
      const before = wordBefore(text, m.index);
      const word = before.toLowerCase().replace(LEADING_DOTS, '');
      if (ABBREVIATIONS.has(word)) continue;
      if (ONE_UPPER.test(before)) continue; // an initial: "J. Smith"
      if (LOWER_START.test(text[next]!)) continue; // "approx. five", "e.g. this"
    } else if (m[1] && LOWER_START.test(text[next]!)) {
      continue; // "?" or "!" inside a sentence ("Yahoo! shares"), "... and then"
    }
    if (out[out.length - 1] !== next) out.push(next);
  }
  return out;
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/**
 * Splits text[s, e) into pieces of at most `max` characters: whole sentences where a sentence fits, a
 * longer sentence at word boundaries, a longer word (a token without spaces) as a hard cut.
 * Pieces are [start, end) offsets into `text`, trimmed, in order, covering every non-space character.
 */
export function splitRange(text: string, s: number, e: number, max: number): Array<[number, number]> {
  const slice = text.slice(s, e);
  const starts = [0, ...sentenceStarts(slice)];
  const pieces: Array<[number, number]> = [];
  for (let i = 0; i < starts.length; i++) {
    let a = s + starts[i]!;
    let b = i + 1 < starts.length ? s + starts[i + 1]! : e;
    while (b > a && isSpace(text[b - 1])) b--;
    while (a < b && isSpace(text[a])) a++;
    if (a >= b) continue;
    if (b - a <= max) pieces.push([a, b]);
    else pieces.push(...splitWords(text, a, b, max));
  }
  return pieces;
}

/** Splits text[a, b) at whitespace into pieces of at most `max` characters (hard cut inside a longer word). */
export function splitWords(text: string, a: number, b: number, max: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let pos = a;
  while (pos < b) {
    while (pos < b && isSpace(text[pos])) pos++;
    if (pos >= b) break;
    let end = Math.min(pos + max, b);
    if (end < b) {
      let i = end;
      while (i > pos && !isSpace(text[i])) i--;
      if (i > pos) end = i;
      else if (isLowSurrogate(text.charCodeAt(end))) end--; // never cut a surrogate pair
    }
    let e2 = end;
    while (e2 > pos && isSpace(text[e2 - 1])) e2--;
    out.push([pos, e2]);
    pos = end;
  }
  return out;
}

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
