/**
 * Words broken at a line end with a hyphen ("dual-" / "encoder", "infor-" / "mation"). Whether the hyphen
 * belongs to the word (a compound) or only to the line break (hyphenation) is decided for the whole
 * document at once, from the words it uses elsewhere: the page workers join such lines with the hyphen and
 * a marker after it, and `resolveHyphenBreaks` settles every marker once all pages are read.
 */
import { joinLines } from '@quire/layout';
import { letterOrDigitAt } from '@quire/text';
import type { PageResult } from './types.js';

/**
 * Marks a hyphen at a line break that may be hyphenation. U+FFFF never comes out of a PDF's text (the
 * text cleaning drops it), and every marker is gone once resolveHyphenBreaks has run.
 */
export const BREAK = '\uffff';

const HYPHEN_END = /\p{Ll}[-\u2010]$/u;
const LOWER_START = /^\p{Ll}/u;
const ONE_CHAR_BEFORE = /(?:^|\s)\S[-\u2010]$/u;

/**
 * Joins the lines of a block like joinLines. With `mark`, a line ending in "-" (or U+2010) after a
 * lowercase letter that continues in lowercase on the next line keeps its hyphen, followed by BREAK, for
 * the document-level decision; without it such a hyphen is dropped (joinLines).
 */
export function joinBlockLines(lines: string[], mark: boolean): string {
  if (!mark) return joinLines(lines);
  let out = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (out && HYPHEN_END.test(out) && LOWER_START.test(line) && !ONE_CHAR_BEFORE.test(out) && !out.endsWith('\u00ad')) out += BREAK + line;
    else out = out ? joinLines([out, line]) : joinLines([line]);
  }
  return out;
}

/** First parts that are prefixes or short function words: a break after them is hyphenation ("re-search", "with-out", "be-come"). */
const NOT_A_COMPOUND_START = new Set(
  (
    'a an the and or but nor for so yet as at by in of on to up with within without from into onto upon over under out off ' +
    'be been being is are was were can could will would shall should may might must do does did has have had ' +
    'some any every no not each such per other another many much more most what when where which who whom how there here ' +
    'this that these those then than thus also ever never ' +
    're pre pro de dis un im il ir non con com ex sub super inter intra trans anti auto semi mis counter en em fore post mid ' +
    'micro macro multi poly mono hyper hypo extra ultra'
  ).split(' '),
);

/** a marked break with the compound-or-word on each side */
const MARKED = /([\p{L}\p{N}]+(?:[-\u2010][\p{L}\p{N}]+)*)([-\u2010])\uffff([\p{L}\p{N}]+(?:[-\u2010][\p{L}\p{N}]+)*)/gu;

/**
 * The words of a text with its hyphens as "-", as the pattern `[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*` (flags gu)
 * matches them: runs of letters and digits, joined by single hyphens into compounds; each is given to
 * `add`, and a compound's parts after it. Scanned by character code: a document's text has tens of thousands of words, and a
 * match object for each was most of the time of the hyphen decisions.
 */
export function eachWord(s: string, add: (w: string) => void): void {
  const n = s.length;
  for (let i = 0; i < n; ) {
    let w = letterOrDigitAt(s, i);
    if (!w) {
      i++;
      continue;
    }
    const start = i;
    let compound = false;
    for (;;) {
      while (i < n && (w = letterOrDigitAt(s, i))) i += w;
      if (i + 1 < n && s.charCodeAt(i) === 45 && letterOrDigitAt(s, i + 1)) {
        compound = true;
        i++;
        continue;
      }
      break;
    }
    const word = s.slice(start, i);
    add(word);
    if (compound) for (const part of word.split('-')) add(part);
  }
}

/**
 * How often each of the `needed` words (lowercase) and hyphenated compounds occurs, broken words left out.
 * Only the words a decision looks at are counted: a long document has many words and few breaks.
 */
function vocabulary(texts: string[], needed: Set<string>): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (w: string) => {
    if (needed.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  };
  for (const t of texts) {
    // the two halves of a broken word are no evidence of themselves
    const lower = (t.includes(BREAK) ? t.replace(MARKED, ' ') : t).toLowerCase();
    eachWord(lower.includes('\u2010') ? lower.replace(/\u2010/g, '-') : lower, add);
  }
  return counts;
}

/** The two sides of a break as keepHyphen compares them: whole, and the parts next to the break. */
function breakSides(left: string, right: string): { l: string; r: string; a: string; b: string } {
  const l = left.toLowerCase().replace(/\u2010/g, '-');
  const r = right.toLowerCase().replace(/\u2010/g, '-');
  return { l, r, a: l.split('-').pop() ?? l, b: r.split('-')[0] ?? r };
}

/**
 * Keeps the hyphen of "left-" + "right" when the document supports the compound: the hyphenated form is
 * used elsewhere and the joined one is not, or, neither being used, the part after the break is a word
 * of the document on its own ("encoder") and the part before is not a prefix or a function word. The
 * joined form used elsewhere, or no evidence at all, makes it hyphenation: the hyphen goes.
 */
export function keepHyphen(left: string, right: string, counts: Map<string, number>): boolean {
  const { l, r, a, b } = breakSides(left, right);
  // the same word written elsewhere: whole ("state-of-the-art"), then the two parts at the break
  for (const [joined, hyphenated] of [[l + r, `${l}-${r}`], [a + b, `${a}-${b}`]] as const) {
    const j = counts.get(joined) ?? 0;
    const h = counts.get(hyphenated) ?? 0;
    if (j || h) return h > j;
  }
  if (/\d/.test(a + b)) return true;
  // a compound going on after one of its small words ("state-of-the-" / "art", "end-to-" / "end")
  if (l.includes('-') && a.length <= 3 && NOT_A_COMPOUND_START.has(a)) return true;
  if (a.length < 3 || b.length < 3 || NOT_A_COMPOUND_START.has(a)) return false;
  return (counts.get(b) ?? 0) > 0;
}

/** Settles every marked line-break hyphen of the document's pages (text blocks, key-values, table cells). */
export function resolveHyphenBreaks(pages: (PageResult | undefined)[]): number {
  const texts: string[] = [];
  for (const p of pages) {
    for (const e of p?.elements ?? []) {
      if (e.kind === 'text') texts.push(e.text);
      else for (const c of e.table.cells) texts.push(c.text);
    }
  }
  if (!texts.some((t) => t.includes(BREAK))) return 0;
  // the words the decisions look at
  const needed = new Set<string>();
  for (const t of texts) {
    if (!t.includes(BREAK)) continue;
    for (const [, left, , right] of t.matchAll(MARKED)) {
      const { l, r, a, b } = breakSides(left!, right!);
      for (const w of [l + r, `${l}-${r}`, a + b, `${a}-${b}`, b]) needed.add(w);
    }
  }
  const counts = vocabulary(texts, needed);
  let n = 0;
  const settle = (s: string | undefined): string | undefined => {
    if (!s || !s.includes(BREAK)) return s;
    const out = s.replace(MARKED, (_m, left: string, hyphen: string, right: string) => {
      n++;
      return keepHyphen(left, right, counts) ? `${left}${hyphen}${right}` : `${left}${right}`;
    });
    return out.replace(/\uffff/g, '');
  };
  for (const p of pages) {
    for (const e of p?.elements ?? []) {
      if (e.kind === 'text') {
        e.text = settle(e.text)!;
        if (e.key !== undefined) e.key = settle(e.key);
        if (e.value !== undefined) e.value = settle(e.value);
      } else {
        for (const c of e.table.cells) c.text = settle(c.text)!;
      }
    }
  }
  return n;
}
