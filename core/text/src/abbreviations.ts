/**
 * Abbreviations and the words they stand for, as documents define them: "maximum inner product search (MIPS)",
 * "MT/ST (Magnetic Tape/Selectric Typewriter)", "“na” means not available", a table's row "| NUM | Numeric Response |",
 * a form's row "| G) crédit d'impôt monoparental bonifié | CIM |". A long form is accepted only when the abbreviation's
 * letters are found in it in order, the first at the start of a word (Schwartz & Hearst, "A simple algorithm for
 * identifying abbreviation definitions in biomedical text", PSB 2003): a word that merely sits next to an
 * abbreviation is not its definition.
 */

/** how a definition is printed, most explicit first */
export type DefinitionKind = 'parenthesis' | 'stated' | 'cell';

export interface Definition {
  /** the abbreviation as printed */
  short: string;
  /** the words it stands for, as printed */
  long: string;
  kind: DefinitionKind;
  /** where the definition starts in the text */
  at: number;
}

const isAlnum = (c: string | undefined) => !!c && /[\p{L}\p{N}]/u.test(c);
const fold = (s: string) => s.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
const wordCount = (s: string) => (s.match(/[\p{L}\p{N}]+/gu) ?? []).length;

/**
 * Schwartz & Hearst's match: the shortest end of `text` whose characters hold the abbreviation's letters and digits in
 * order, read from the right, its first letter at the start of a word (case and accents aside); null when none does.
 */
export function longFormEnd(short: string, printed: string): string | null {
  const text = printed.normalize('NFC');
  const s = fold(short);
  const l = fold(text);
  if (l.length !== text.length) return null;
  let si = s.length - 1;
  let li = l.length - 1;
  // (an abbreviation's first character must be a letter or a digit: "-X" is none)
  while (si >= 0) {
    const c = s[si]!;
    if (!isAlnum(c)) {
      si--;
      continue;
    }
    while (li >= 0 && (l[li] !== c || (si === firstAlnum(s) && isAlnum(l[li - 1])))) li--;
    if (li < 0) return null;
    li--;
    si--;
  }
  const start = Math.max(0, l.lastIndexOf(' ', li + 1) + 1);
  // (back to the start of the word whose letter matched: "d'impôt" is one word, its "d'" kept)
  return text.slice(start).trim();
}

function firstAlnum(s: string): number {
  for (let i = 0; i < s.length; i++) if (isAlnum(s[i])) return i;
  return -1;
}

/** the abbreviation's letters and digits (what must be matched) */
const letters = (short: string) => fold(short).replace(/[^\p{L}\p{N}]/gu, '');

/** A long form `short` stands for, read from the start of `text` (the whole of it, an enumerator like "G)" aside), else null. */
function longFormFrom(short: string, text: string): string | null {
  const t = text.replace(/^\s*(?:(?:[\p{L}\d]{1,2}[).]|[-–•*])\s+)?/u, '').replace(/[\s,;:.]+$/u, '').trim();
  const n = letters(short).length;
  if (!t || t.length <= short.length || wordCount(t) > n + 5 || fold(t) === fold(short)) return null;
  const end = longFormEnd(short, t);
  return end !== null && end.length === t.length ? t : null;
}

/** The long form that ends right before an abbreviation's parenthesis ("… maximum inner product search (MIPS)"), else null. */
function longFormBefore(short: string, before: string): string | null {
  const n = letters(short).length;
  const ws = before.replace(/\s+$/u, '').split(/\s+/u);
  // (at most min(|A| + 5, 2|A|) words, within the clause the parenthesis ends)
  const clause = ws.slice(-Math.min(n + 5, 2 * n)).join(' ');
  const tail = clause.split(/[.;:!?|()\[\]“”"]\s*/u).pop() ?? '';
  const long = longFormEnd(short, tail);
  if (!long || long.length <= short.length || wordCount(long) < 1 || fold(long).includes(fold(short))) return null;
  // (a long form is more words than one, unless the abbreviation shortens that one word: "Ordering" for ORD)
  return long;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The abbreviation as a word of a text: in capitals only where it is written in capitals ("na" in any case). */
const tokenOf = (short: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${escape(short)}(?![\\p{L}\\p{N}_])`, short === short.toUpperCase() ? 'gu' : 'giu');

/** Whether a text prints the abbreviation as a word (in capitals when it is written so). */
export const printsAbbreviation = (short: string, text: string): boolean => tokenOf(short).test(text);

/**
 * Every definition of `short` in `text`: before its parenthesis, inside a parenthesis after it, stated after it ("X: …",
 * "X = …", "X – …", "“X” means …", "X stands for …", "X is short for …"), or in the next or the previous cell of a table's
 * row. An abbreviation written in capitals matches only in capitals; one written in small letters ("na") in any case.
 */
export function definitionsOf(short: string, text: string): Definition[] {
  const n = letters(short).length;
  if (n < 2 || n > 12) return [];
  const token = tokenOf(short);
  const out: Definition[] = [];
  for (const m of text.matchAll(token)) {
    const at = m.index!;
    const before = text.slice(Math.max(0, at - 300), at);
    const after = text.slice(at + m[0].length, at + m[0].length + 300);
    // (1) "long form (X)"
    const open = before.match(/[(\[]\s*["“']?$/u);
    if (open && /^["”']?\s*[)\]]/u.test(after)) {
      const long = longFormBefore(short, before.slice(0, before.length - open[0].length));
      if (long) out.push({ short: m[0], long, kind: 'parenthesis', at: at - open[0].length - long.length });
      continue;
    }
    // (2) "X (long form)"
    const paren = after.match(/^["”']?\s*[(\[]([^()\[\]\n]{2,120})[)\]]/u);
    if (paren) {
      const long = longFormFrom(short, paren[1]!);
      if (long) out.push({ short: m[0], long, kind: 'parenthesis', at });
    }
    // (3) a table's cells: X a whole cell, the long form the next or the previous one
    const cellBefore = before.match(/(?:^|\n)([^\n]*)\|\s*$/u);
    const cellAfter = after.match(/^\s*\|([^|\n]*)\|?/u);
    if (cellBefore && cellAfter) {
      const next = longFormFrom(short, cellAfter[1]!);
      if (next) out.push({ short: m[0], long: next, kind: 'cell', at });
      else {
        // (the nearest cell before it that is not empty; a row's cells are sometimes printed twice)
        const prev = cellBefore[1]!.split('|').map((c) => c.trim()).filter(Boolean).pop();
        const long = prev ? longFormEnd(short, prev) : null;
        // (the whole cell, an enumerator like "G)" aside)
        if (prev && long && long.length > short.length && /^\s*(?:[\p{L}\d]{1,2}[).]\s*)?$/u.test(prev.slice(0, prev.length - long.length)) && wordCount(long) <= n + 5) out.push({ short: m[0], long, kind: 'cell', at });
      }
      continue;
    }
    // (4) stated after it
    const stated = after.match(/^["”']?\s*(?::|=|\s[–—-]\s|,?\s+(?:stands?\s+for|means|meaning|is\s+short\s+for|refers\s+to|denotes)\b)\s*["“']?([^\n.;|()]{2,160})/u);
    if (stated) {
      // (up to the end of its clause: "not available", not what the sentence says next)
      const clause = stated[1]!.split(/,\s|["”]/u)[0]!;
      const long = longFormFrom(short, clause);
      if (long) out.push({ short: m[0], long, kind: 'stated', at });
    }
  }
  return out;
}

/** an abbreviation in a question: a word of capitals (two or more, with digits, "/", "_", "&" or "-" inside) or a short quoted word */
const CAPS = String.raw`(?<![\p{L}\p{N}_])((?=[\p{Lu}\d_/&-]*\p{Lu}[\p{Lu}\d_/&-]*\p{Lu})[\p{Lu}\d][\p{Lu}\d_/&-]*[\p{Lu}\d])(?![\p{L}\p{N}_])`;
const QUOTED = String.raw`["“‘']([\p{L}\d][\p{L}\d_/&.-]{0,11})["”’']`;
const TOKEN = `(?:${QUOTED}|${CAPS})`;
/** the abbreviation before the words that ask what it stands for ("What does MIPS stand for", "… the code AMD mean …") */
const ASKED_BEFORE = new RegExp(`${TOKEN}\\s+(?:stands?|stood)\\s+for\\b|${TOKEN}\\s+(?:mean|means|meant|denotes?|represents?|signif(?:y|ies)|abbreviates?|refers?\\s+to|(?:is|was)\\s+short\\s+for)\\b`, 'u');
/** the abbreviation after the words that ask which words it abbreviates ("Which tax credit is abbreviated CIM", "the meaning of NA") */
const ASKED_AFTER = new RegExp(`\\b(?:abbreviated|marked|coded|denoted|shortened|labell?ed|written)(?:\\s+(?:as|by|with))?\\s+${TOKEN}|\\b(?:meaning|full\\s+form|long\\s+form|expansion)\\s+of\\s+(?:the\\s+)?(?:\\p{L}+\\s+){0,2}${TOKEN}`, 'u');

/**
 * The abbreviation a question asks the long form of ("What does the abbreviation MIPS mean?", "Which question format is
 * marked NUM in the template?", "What does “na” mean in the exhibit?"), or null: the one next to the words that ask it.
 */
export function abbreviationAsked(question: string): string | null {
  if (!/\b(?:what|which)\b/i.test(question)) return null;
  for (const re of [ASKED_BEFORE, ASKED_AFTER]) {
    const m = question.match(re);
    const token = m?.slice(1).find((g) => g !== undefined);
    if (token && letters(token).length >= 2) return token;
  }
  return null;
}

/** a question that asks for the abbreviation of words it gives ("Which abbreviation marks essay questions?", "What is the code for pilotage?") */
const SHORT_ASKED = /\b(?:which|what)\s+(?:abbreviation|acronym|short\s+form)\b|\b(?:abbreviation|acronym|short\s+form)\s+(?:for|of)\b|\bhow\s+(?:is|are)\b.*\babbreviated\s*\??$/iu;

/** Whether a question asks for the abbreviation of words it gives, not for what an abbreviation stands for. */
export const shortFormAsked = (question: string): boolean => SHORT_ASKED.test(question) && abbreviationAsked(question) === null;

/** The abbreviations a text prints in capitals (two letters or more), each once. */
export function capitalsIn(text: string): string[] {
  return [...new Set([...text.matchAll(new RegExp(CAPS, 'gu'))].map((m) => m[1]!))];
}
