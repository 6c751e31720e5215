/**
 * Text of questions and sources, shared by the engine's retrieval, generation and answerer plugins: query terms,
 * sentence units of a chunk, code blocks, business labels in several languages and the decomposition of
 * multi-part questions. Pure functions; the label lexicon (lexicon/business-labels.json) is read once.
 */

import { ABBREVIATED_WORDS, LEXICON as BUSINESS_LEXICON } from './lexicon.js';
import { QUESTION_WORDS, STOP_WORDS } from './stop-words.js';
import { stem } from './stem.js';
import { synonymsOf } from './synonyms.js';

/** Words left out of a question's or a sentence's terms: the search side's stop words and the words that frame a question. */
const isStop = (w: string) => STOP_WORDS.has(w) || QUESTION_WORDS.has(w) || (w.endsWith("'s") && STOP_WORDS.has(w.slice(0, -2)));

/** Words that make a question a follow-up to the previous one (they refer back to it). */
const ANAPHORA = new Set(['it', 'its', 'he', 'him', 'his', 'she', 'her', 'they', 'them', 'their', 'this', 'that', 'these', 'those', 'there', 'then', 'same', 'former', 'latter']);

/**
 * The stem of a word as the chat answerer compares words: the shared stemmer, without a possessive "'s"; a noun in
 * -ie as its plural in -ies stems ("calorie" and "calories" → calory, where the stemmer makes calori and calory);
 * a word that documents print abbreviated as the word it stands for ("doc" → document, "amt" → amount:
 * lexicon/word-abbreviations.json), so that "Doc No" says the question's "document number".
 */
const termOf = (w: string) => {
  const bare = w.endsWith("'s") ? w.slice(0, -2) : w;
  const word = ABBREVIATED_WORDS.get(bare) ?? bare;
  return stem(/^\p{L}{3,}ie$/u.test(word) ? `${word.slice(0, -2)}y` : word);
};

/** Other stems that a question's term may be phrased as in a document (the shared synonym groups). */
export const alternativesOf = (term: string): readonly string[] => synonymsOf(term);

/** Lower-cased words of a text (letters and digits), diacritics removed; camelCase and snake_case split. */
export function words(text: string): string[] {
  const spaced = text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ');
  return (
    spaced
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:'[st])?/gu) ?? []
  );
}

/**
 * Content terms of a text: stems of its words without stop words (numbers kept), and the English words of every
 * business label the text prints in another language ("Factuurnummer" → invoice, number: lexicon below).
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  const ws = words(text);
  for (const w of ws) {
    if (isStop(w)) continue;
    if (w.length < 2 && !/\d/.test(w)) continue;
    out.push(termOf(w));
  }
  // (English labels say the concept's words already: only the other languages' add them)
  for (const c of labelsIn(ws, false)) for (const t of c.terms) if (!out.includes(t)) out.push(t);
  return out;
}

// ---------------------------------------------------------------- the lexicon of business labels

/** A concept of the lexicon: its English terms, and its labels as word sequences (words() of each label). */
interface LabelConcept {
  id: string;
  terms: string[];
  labels: { words: string[]; english: boolean }[];
}

/** The lexicon (lexicon.ts, core/text/lexicon/business-labels.json, shared with extraction's field concepts): labels of invoice number, date, total, VAT… as documents print them in several languages. */
const LEXICON: LabelConcept[] = (() => {
  return BUSINESS_LEXICON.filter((c) => !c.scope).map((c) => ({
    id: c.id,
    terms: words(c.terms).filter((w) => !isStop(w)).map(termOf),
    labels: Object.entries(c.labels)
      .flatMap(([lang, ls]) => ls.map((l) => ({ words: words(l), english: lang === 'en' })))
      .filter((l) => l.words.length > 0),
  }));
})();

/** Labels by their first word, for the scan of a text. */
const LABELS_BY_FIRST: Map<string, { words: string[]; english: boolean; concept: LabelConcept }[]> = (() => {
  const m = new Map<string, { words: string[]; english: boolean; concept: LabelConcept }[]>();
  for (const c of LEXICON) for (const l of c.labels) m.set(l.words[0]!, [...(m.get(l.words[0]!) ?? []), { ...l, concept: c }]);
  return m;
})();

/** The concepts of the lexicon whose labels a sequence of words (words()) holds (with `english` false, only by a label of another language). */
function labelsIn(ws: string[], english = true): LabelConcept[] {
  const found = new Set<LabelConcept>();
  for (let i = 0; i < ws.length; i++) {
    const cands = LABELS_BY_FIRST.get(ws[i]!);
    if (!cands) continue;
    for (const l of cands) if ((english || !l.english) && l.words.every((w, j) => ws[i + j] === w)) found.add(l.concept);
  }
  return [...found];
}

/** The concepts of the lexicon a text names by one of their labels (ids: invoice_number, due_date…). */
export const labelConcepts = (text: string): string[] => labelsIn(words(text)).map((c) => c.id);

/**
 * Words of the other languages' labels of the concepts a question names ("invoice number" → factuurnummer,
 * rechnungsnummer, facture…): for a search in the documents' own words. Single words first (compounds), at most `max`.
 */
export function labelExpansion(question: string, max = 12): string[] {
  const concepts = labelsIn(words(question));
  const own = new Set(words(question));
  const single: string[] = [];
  const multi: string[] = [];
  for (const c of concepts)
    for (const l of c.labels) {
      if (l.english) continue;
      const ws = l.words.filter((w) => !own.has(w) && !isStop(w) && w.length > 2);
      if (!ws.length) continue;
      (l.words.length === 1 ? single : multi).push(...ws);
    }
  return [...new Set([...single, ...multi])].slice(0, max);
}

export const termSet = (text: string) => new Set(terms(text));

/** True when a question refers back to the conversation (pronouns, or too few content words of its own). */
export function isFollowUp(question: string): boolean {
  const ws = words(question);
  if (ws.some((w) => ANAPHORA.has(w))) return true;
  return terms(question).length < 2;
}

// ---------------------------------------------------------------- sentence units

export interface Unit {
  /** the text as quoted in answers (whitespace collapsed, markdown markers removed) */
  text: string;
  /** offset of the unit in the chunk's content (document order) */
  start: number;
  kind: 'sentence' | 'heading' | 'row';
  /** for table rows: the header row, whose words count as the row's */
  context?: string;
  /** for table rows: the row's cells as printed, blank ones included (the column of each) */
  cells?: string[];
  /** for table rows: the cells of the row that heads the columns, as printed (blank ones included) */
  columns?: string[];
  /** for table rows: the table's caption, the chunk's line above the table ("Table 3 - European ABCP issuance"), which names every row */
  title?: string;
  /** a sentence the chunk cuts: at its start (it begins mid-sentence), its end, or both */
  cut?: 'start' | 'end' | 'both';
}

const ABBREV = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'sr', 'jr', 'inc', 'ltd', 'co', 'corp', 'vs', 'etc', 'no', 'fig', 'figs', 'eq', 'vol', 'pp', 'p', 'al', 'approx', 'dept', 'est', 'gen', 'gov', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'e.g', 'i.e', 'u.s', 'u.k', 'mt']);

function clean(s: string): string {
  return s
    .replace(/\*\*|__|`/g, '')
    .replace(/\s*\[\s*\d{1,3}\s*\]/g, '') // reference markers of the source ("[ 3 ]") would read as citations
    .replace(/\s+/g, ' ')
    .trim();
}

/** Splits a paragraph into sentences, respecting abbreviations and initials. */
export function splitSentences(text: string): { text: string; offset: number }[] {
  const out: { text: string; offset: number }[] = [];
  const re = /[.!?]+["'”’)\]]*\s+(?=["“'(\[]?[\p{Lu}\p{N}])/gu;
  let from = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const before = text.slice(from, m.index);
    const lastWord = (before.match(/([\p{L}.]+)$/u)?.[1] ?? '').toLowerCase().replace(/\.$/, '');
    if (m[0].startsWith('.') && (ABBREV.has(lastWord) || /^\p{L}$/u.test(lastWord))) continue;
    const end = m.index + m[0].trimEnd().length;
    out.push({ text: text.slice(from, end), offset: from });
    from = m.index + m[0].length;
  }
  if (from < text.length) out.push({ text: text.slice(from), offset: from });
  return out.filter((s) => s.text.trim().length > 0);
}

const LIST_ITEM = /^\s*(?:[-*•▪◦‣]|\d{1,3}[.)]|[a-z][.)])\s+/;
const HEADING = /^\s*#{1,6}\s+/;

/**
 * The quotable units of a chunk: sentences of its paragraphs (hard-wrapped lines are joined back), list
 * items, table rows and headings. Short standalone lines (infobox rows such as "Date of birth 26 June 1968")
 * stay units of their own.
 */
export function unitsOf(content: string): Unit[] {
  const units: Unit[] = [];
  let buf = '';
  let bufStart = 0;
  let prevLine = '';
  let header: string | null = null;
  let headerCells: string[] = [];
  /** the rows of the table so far under its first */
  let rowsUnder = 0;
  let titleRow = false;
  let inTable = false;
  let gap = false;
  /** the caption of the chunk's table, once its line is read */
  let caption: string | null = null;
  const flush = () => {
    if (buf.trim()) {
      // reference markers ("team.[66] Roberts") would hide sentence ends
      // (a label line without a colon is one unit: "USt-IdNr. DE 232 446 240", "Kto-Nr. 48567" end no sentence at the label's dot)
      const line = labelWithoutColon(buf.trim()) ? [{ text: buf, offset: 0 }] : null;
      for (const s of line ?? splitSentences(buf.replace(/\s*\[\s*\d{1,3}\s*\]/g, ''))) {
        const text = clean(s.text);
        if (text) units.push({ text, start: bufStart + s.offset, kind: 'sentence' });
      }
    }
    buf = '';
    prevLine = '';
  };
  let offset = 0;
  const lines = content.split('\n');
  const gutter = lineNumberGutter(lines);
  for (const [n, rawLine] of lines.entries()) {
    const lineStart = offset;
    offset += rawLine.length + 1;
    const line = gutter.has(n) ? rawLine.trim().replace(GUTTER, '').trim() : rawLine.trim();
    // (a line number alone on its line is no break in the text)
    if (!line && gutter.has(n)) continue;
    if (!line) {
      // readers may put a paragraph break inside a wrapped sentence: decided by the next line
      gap = true;
      inTable = false;
      header = null;
      continue;
    }
    const afterGap = gap;
    gap = false;
    if (line.startsWith('|')) {
      // (the chunk's one line above its table is the table's caption, "Table 3 - European ABCP issuance": a title, not a sentence)
      if (header === null && !units.length && buf && bufStart === 0 && afterGap) {
        caption = clean(buf);
        units.push({ text: caption, start: 0, kind: 'heading' });
        buf = '';
      }
      flush();
      if (/^\|?[\s:|-]+\|?$/.test(line)) continue; // separator row
      // a cell merged across columns is printed once per column: quoted once
      const raw = line.replace(/^\||\|$/g, '').split('|').map((c) => clean(c));
      const cells = raw.filter((c, j, all) => c && c !== all[j - 1]);
      if (!cells.length) continue;
      const text = cells.join(' | ');
      const context = header;
      const columns = headerCells;
      if (header === null) {
        header = text;
        headerCells = raw;
        // a first row of mostly blank cells is the table's title ("In millions of CHF | January–June 2023"): the row under it heads the columns too
        titleRow = raw.length >= 3 && cells.length * 2 <= raw.length;
      } else if (titleRow || (context === header && rowsUnder === 0 && raw.length > 2 && raw[0] === '' && !cells.some((c) => /^[-+]?[\d.,\s%]+$/.test(c)))) {
        // (a row under the first whose corner cell is blank, with words for cells, heads the columns: "|  | Sales | Profit |")
        header = `${header} | ${text}`;
        headerCells = raw;
        titleRow = false;
      }
      rowsUnder = context === null ? 0 : rowsUnder + 1;
      units.push({ text, start: lineStart, kind: 'row', cells: raw, ...(context !== null ? { context, columns } : {}), ...(caption ? { title: caption } : {}) });
      inTable = true;
      continue;
    }
    if (inTable) {
      inTable = false;
      header = null;
    }
    if (HEADING.test(line)) {
      flush();
      units.push({ text: clean(line.replace(HEADING, '')), start: lineStart, kind: 'heading' });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flush();
      buf = line.replace(LIST_ITEM, '');
      bufStart = lineStart;
      prevLine = buf;
      continue;
    }
    // (a label printed without a colon before its value, "Tel. +49 6051 916 44 10", "IBAN DE30…", is a line of its own, as
    // footers and letterheads print them: neither joined to the line before nor continued by the next)
    if (buf && !labelWithoutColon(line) && !labelWithoutColon(prevLine) && (afterGap ? continuesAcrossGap(prevLine, line) : joins(prevLine, line))) {
      buf += ` ${line}`;
    } else {
      flush();
      buf = line;
      bufStart = lineStart;
    }
    prevLine = line;
  }
  flush();
  // the numbers of an ordered list printed on lines of their own ("1", "2", "3") are not values
  const numbered = units.filter((u) => u.kind === 'sentence' && /^\d{1,3}$/.test(u.text));
  if (numbered.length >= 3 && numbered.every((u, i) => i === 0 || Number(u.text) === Number(numbered[i - 1]!.text) + 1)) {
    const drop = new Set(numbered);
    units.splice(0, units.length, ...units.filter((u) => !drop.has(u)));
  }
  captionsBelow(units);
  // a chunk may begin or end inside a sentence: mark the fragments
  const first = units.find((u) => u.kind === 'sentence');
  if (first && first.start === units[0]?.start && /^[\p{Ll},;)]/u.test(first.text)) first.cut = 'start';
  const last = units[units.length - 1];
  if (last && last.kind === 'sentence' && !/[.!?:"'”’)\]]$/.test(last.text) && last.text.split(/\s+/).length >= 6) last.cut = last.cut ? 'both' : 'end';
  return units;
}

/** a line's number printed in the margin of a transcript or a filing: "13 argument before the Court", or a line of its own "13" */
const GUTTER = /^\d{1,3}(?=\s|$)/;
/** the least number of numbered lines that make a gutter, and the share of them whose number follows the previous one's */
const GUTTER_LINES = 4;
const GUTTER_SEQUENCE = 0.6;

/**
 * The lines of a chunk that begin with a line number of a margin gutter (court transcripts, pleadings: "12 the
 * petitioner argued", "13 that the statute"): at least GUTTER_LINES lines begin with a number, and most numbers
 * follow the one before by one. Their numbers are no part of the text: the sentence runs on across the lines.
 */
export function lineNumberGutter(lines: string[]): Set<number> {
  const numbered: { i: number; n: number }[] = [];
  lines.forEach((l, i) => {
    const t = l.trim();
    if (t.startsWith('|')) return;
    const m = t.match(GUTTER);
    if (m) numbered.push({ i, n: Number(m[0]) });
  });
  if (numbered.length < GUTTER_LINES) return new Set();
  let next = 0;
  for (let k = 1; k < numbered.length; k++) if (numbered[k]!.n === numbered[k - 1]!.n + 1) next++;
  // (and most of the chunk's text lines are numbered: not a list of amounts or years that happens to count up)
  const textLines = lines.filter((l) => l.trim() && !l.trim().startsWith('|')).length;
  if (next < GUTTER_SEQUENCE * (numbered.length - 1) || numbered.length < 0.5 * textLines) return new Set();
  return new Set(numbered.map((x) => x.i));
}

const CAPTION = /^\([^()]{3,120}\)$/;
const CAPTION_WORDS = 16;

/**
 * Forms and filings print a field's caption in brackets under its value ("Nevada" over "(State or other
 * jurisdiction of incorporation)", "Galaxy Gaming, Inc." over "(Exact name of registrant)"): the caption is
 * joined to the value above it, cell by cell in a table, so that the value is quoted with what it is.
 */
function captionsBelow(units: Unit[]): void {
  const isCaption = (u: Unit) => {
    const cells = u.text.split(' | ');
    return u.kind !== 'heading' && wordCount(u.text) <= CAPTION_WORDS * cells.length && cells.every((c) => CAPTION.test(c.trim()));
  };
  for (let i = units.length - 1; i > 0; i--) {
    const cap = units[i]!;
    const above = units[i - 1]!;
    if (!isCaption(cap) || isCaption(above) || above.kind === 'heading' || above.kind !== cap.kind || wordCount(above.text) > CAPTION_WORDS * above.text.split(' | ').length) continue;
    const values = above.text.split(' | ');
    const captions = cap.text.split(' | ');
    const text = values.length === captions.length && values.length > 1 ? values.map((v, j) => `${v} ${captions[j]}`).join(' | ') : `${above.text} ${cap.text}`;
    units.splice(i - 1, 2, { ...above, text });
  }
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

const DANGLING = /\b(?:a|an|the|of|for|to|in|on|at|by|with|from|into|and|or|but|nor|as|than|that|which|who|whose|his|her|its|their|our|my|your|was|were|is|are|be|been|has|had|have|not|no|one|total|like|including|namely|via)$/i;

/** Whether a line after a blank line still continues the sentence before it (a break inside a wrapped sentence). */
function continuesAcrossGap(prev: string, line: string): boolean {
  const p = prev.replace(/\s*\[\s*\d{1,3}\s*\]\s*$/, '');
  if (/[.!?:;"'”’)]$/.test(p) || p.length < 20) return false;
  return /^[\p{Ll}(,;]/u.test(line) || DANGLING.test(p);
}

/** Whether `line` continues the sentence of `prev` (a hard-wrapped paragraph) rather than starting a new unit. */
function joins(prev: string, line: string): boolean {
  if (/[,;:(\-–—]$/.test(prev) && !/:$/.test(prev)) return true;
  if (/^[\p{Ll}(,;]/u.test(line)) return true;
  if (/[.!?]["'”’)]*$/.test(prev)) return prev.length >= 45;
  return prev.length >= 55;
}

// ---------------------------------------------------------------- code

const CODE_SIGNALS: RegExp[] = [
  /[;{}]\s*$/,
  /^\s*(?:const|let|var|function|class|def|import|from|export|return|if|for|while|public|private|static|async|await|package|using|#include|fn|pub|impl|SELECT|INSERT|UPDATE|CREATE|curl|npm|npx|pip|yarn|docker|git)\b/,
  /=>|::|\+=|===|!==|->|\(\)\s*[{:]?$/,
  /^\s*(?:\$|>>>|#!)\s*\S/,
  /^\s{2,}\S.*[(){}[\];=]/,
  /\w+\([^)]*\)\s*;?\s*$/,
  /^\s*[\w.]+\s*=\s*\S/,
  /^\s*(?:\/\/|#)\s?\S/,
  /^\s*[}\])]+[;,)]*\s*$/,
];

/** 0..1: how much a line looks like source code or a shell command. */
export function codeLineScore(line: string): number {
  const t = line.trimEnd();
  if (!t.trim()) return 0;
  let hits = 0;
  for (const re of CODE_SIGNALS) if (re.test(t)) hits++;
  const symbols = (t.match(/[{}()[\];=<>_$.:/\\"'`|&*+-]/g) ?? []).length / t.length;
  const proseLike = /^[\p{Lu}][\p{Ll}]+(?: [\p{Ll},]+){4,}[.!?]$/u.test(t.trim());
  const score = Math.min(1, hits * 0.35 + symbols * 1.5);
  return proseLike ? score * 0.3 : score;
}

/** 0..1: the share of a text's lines that look like code (fenced blocks count fully). */
export function codeLikeness(text: string): number {
  const lines = text.split('\n').filter((l) => l.trim());
  if (!lines.length) return 0;
  let inFence = false;
  let code = 0;
  for (const l of lines) {
    if (/^\s*```/.test(l)) {
      inFence = !inFence;
      code++;
      continue;
    }
    if (inFence || codeLineScore(l) >= 0.5) code++;
  }
  return code / lines.length;
}

export interface CodeBlock {
  code: string;
  language: string;
  start: number;
}

/** Code blocks of a chunk: fenced blocks, and runs of code-like lines (at least two, or one strong line). */
export function codeBlocksOf(content: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = content.split('\n');
  let offset = 0;
  let fence: { lang: string; lines: string[]; start: number } | null = null;
  let run: { lines: string[]; start: number; strong: number } | null = null;
  const endRun = () => {
    if (run) {
      while (run.lines.length && !run.lines[run.lines.length - 1]!.trim()) run.lines.pop();
      if (run.lines.length >= 2 || run.strong > 0) {
        const code = dedent(run.lines).join('\n');
        blocks.push({ code, language: guessLanguage(code), start: run.start });
      }
    }
    run = null;
  };
  for (const line of lines) {
    const lineStart = offset;
    offset += line.length + 1;
    const f = line.match(/^\s*```\s*([\w+#-]*)/);
    if (f) {
      if (fence) {
        const code = dedent(fence.lines).join('\n');
        if (code.trim()) blocks.push({ code, language: fence.lang || guessLanguage(code), start: fence.start });
        fence = null;
      } else {
        endRun();
        fence = { lang: f[1] ?? '', lines: [], start: lineStart };
      }
      continue;
    }
    if (fence) {
      fence.lines.push(line);
      continue;
    }
    const s = codeLineScore(line);
    if (s >= 0.5) {
      run ??= { lines: [], start: lineStart, strong: 0 };
      run.lines.push(line);
      if (s >= 0.7) run.strong++;
    } else if (!line.trim() && run) {
      run.lines.push(line);
    } else {
      endRun();
    }
  }
  if (fence) {
    const code = dedent(fence.lines).join('\n');
    if (code.trim()) blocks.push({ code, language: fence.lang || guessLanguage(code), start: fence.start });
  }
  endRun();
  return blocks;
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim()).map((l) => l.match(/^\s*/)![0].length);
  const min = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(min));
}

export function guessLanguage(code: string): string {
  if (/^\s*(?:\$ |npm |npx |pip |yarn |curl |docker |git |export \w+=)/m.test(code)) return 'bash';
  if (/^\s*(?:SELECT|INSERT|UPDATE|DELETE|CREATE TABLE|WITH)\b/im.test(code)) return 'sql';
  if (/^\s*(?:def |import \w+$|from [\w.]+ import|print\(|class \w+(\(.*\))?:)/m.test(code)) return 'python';
  if (/^\s*(?:interface |type \w+ =|import .* from '|export (?:const|function|default))/m.test(code) || /:\s*(?:string|number|boolean)\b/.test(code)) return 'typescript';
  if (/\b(?:const|let|var|function)\b|=>|console\.log|require\(/.test(code)) return 'javascript';
  if (/^\s*(?:package |func |fmt\.)/m.test(code)) return 'go';
  if (/^\s*(?:fn |let mut |use \w+::|impl )/m.test(code)) return 'rust';
  if (/^\s*(?:public |private |import java)/m.test(code)) return 'java';
  if (/^\s*[{[]/.test(code) && /[}\]]\s*$/.test(code)) return 'json';
  return '';
}

// ---------------------------------------------------------------- questions

const QUESTION_START = '(?:what|who|whom|whose|when|where|why|how|which|is|are|was|were|does|do|did|can|could|should|would|will|has|have|list|name|give|tell|explain|describe)';

/**
 * The parts of a multi-part question: separate questions ("…? …?"), and clauses joined by "and"/"also"/";"
 * when the next clause starts a question of its own ("who patented the typewriter and when did WordStar
 * appear"). A single question comes back as one part.
 */
export function decompose(question: string): string[] {
  const parts: string[] = [];
  const bySentence = question
    .split(/(?<=\?)\s+|\n+|;\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const joiner = new RegExp(`\\s*(?:,\\s*)?\\b(?:and(?: also)?|also|as well as|plus|then)\\s+(?=${QUESTION_START}\\b)`, 'i');
  const comma = new RegExp(`,\\s+(?=${QUESTION_START}\\b)`, 'i');
  for (const s of bySentence) {
    for (const a of s.split(joiner)) for (const b of a.split(comma)) if (terms(b).length) parts.push(b.trim().replace(/^(?:and|also)\s+/i, ''));
  }
  const unique = [...new Map(parts.map((p) => [terms(p).join(' '), p])).values()];
  return unique.length ? unique : [question.trim()];
}

/**
 * Content terms of a question, each marked `entity` when it looks like a name or a number (capitalised
 * past the first word, or with digits): such terms must be found; a plain word may be phrased otherwise.
 */
export function questionTerms(question: string): { term: string; entity: boolean }[] {
  const out = new Map<string, boolean>();
  const tokens = question.replace(/_/g, ' ').match(/[\p{L}\p{N}]+(?:'[st])?/gu) ?? [];
  tokens.forEach((tok, i) => {
    for (const w of words(tok)) {
      if (isStop(w) || (w.length < 2 && !/\d/.test(w))) continue;
      const t = termOf(w);
      const entity = /\d/.test(tok) || (i > 0 && /^\p{Lu}/u.test(tok));
      out.set(t, (out.get(t) ?? false) || entity);
    }
  });
  return [...out].map(([term, entity]) => ({ term, entity }));
}

/** Words before the noun of "which …" and "what is the …" that are not it: articles and "kind of". */
const LEADING = /^(?:the|a|an|kinds?|types?|sorts?|of)$/i;
const COPULA = /^(?:is|are|was|were)$/i;

/**
 * The kind of thing a "which/what …" question asks for, as terms: the words after "which/what" up to the
 * verb ("which word processor was…" → word, processor; "what materials are…" → material). An answer names
 * an instance of that kind, so these words are no evidence that a sentence answers; empty when the phrase
 * does not end within three words.
 */
export function kindTerms(question: string): string[] {
  const m = question.match(/\b(?:which|what)\s+((?:[\p{L}\p{N}'-]+\s*){1,4})/iu);
  if (!m) return [];
  let ws = m[1]!.trim().split(/\s+/);
  // "what is the IBAN of …", "what was the price of …": the noun is the attribute asked for, which a sentence that
  // answers names ("IBAN: AT92 …"), not a kind of thing whose instance is named
  if (COPULA.test(ws[0] ?? '')) return [];
  while (ws.length && LEADING.test(ws[0]!)) ws = ws.slice(1);
  const out: string[] = [];
  for (const w of ws.slice(0, 4)) {
    const t = terms(w);
    if (!t.length) return out;
    if (out.length >= 3) return out.slice(0, 1);
    out.push(...t);
    // (a thing's number ends the phrase: "which contract number appears on …" asks for a contract number)
    if (out.length > 1 && /^(?:number|code|id)$/i.test(w)) return out;
  }
  return out.slice(0, 1);
}

/**
 * The focus of a question: the thing asked about right after "how many/much" or "which/what" ("how many
 * caps", "which comet", "what is the capital"). An answer should name it.
 */
export function focusTerms(question: string): string[] {
  const m = question.match(/\b(how\s+(?:many|much)|which|what)\s+((?:[\p{L}\p{N}'-]+\s*){1,4})/iu);
  if (!m) return [];
  let ws = m[2]!.trim().split(/\s+/);
  // "what is the capital": skip the copula and articles; "how much does it cost" has no focus word
  if (!/^how/i.test(m[1]!)) while (ws.length && (COPULA.test(ws[0]!) || LEADING.test(ws[0]!))) ws = ws.slice(1);
  const first = ws[0];
  if (!first) return [];
  const t = terms(first);
  if (!t.length) return [];
  // "which operating system": a participle before its noun
  if (/ing$/i.test(first) && ws[1]) return [...t, ...terms(ws[1])];
  return t;
}

const AUXILIARY = /^(?:is|are|was|were|be|been|do|does|did|has|have|had|can|could|will|would|should|shall|may|might|must|kind|type|sort|else)$/i;

/**
 * The verb of a question whose wh-word is its subject ("what joins …" → join, "who invented …" → invent): the
 * relation asked about, which a sentence that answers says (or a synonym). Null for other questions.
 */
export function subjectVerb(question: string): string | null {
  // (not "what materials are …": a noun before the verb)
  const m = question.trim().match(/^(?:what|who)\s+([\p{L}'-]+)\s+([\p{L}'-]+)/iu);
  if (!m || AUXILIARY.test(m[1]!) || AUXILIARY.test(m[2]!) || !/(?:s|ed)$/i.test(m[1]!)) return null;
  return terms(m[1]!)[0] ?? null;
}

/** Participles of a passive question that do not end in -ed/-en ("when was it built", "where was she born"). */
const IRREGULAR_PARTICIPLE = /^(?:built|made|held|sold|paid|sent|spent|won|set|put|born|bought|brought|caught|fought|found|had|heard|kept|laid|led|left|lent|lost|meant|met|read|run|said|shot|shut|sat|slid|spun|split|spread|stood|struck|taught|told|thought|understood|wound|cut|hit|let|cost)$/i;

/**
 * The predicate of a question: the verb that says the relation asked about, as a term ("who invented the typewriter"
 * → invent, "how many goals did Messi score" → score, "when was the company founded" → found), or, for a question
 * with a copula and no participle, the noun asked for ("what is the capital of France" → capital). Null when none is
 * found. A heuristic over the word order (no tagger): after "do/does/did" or a modal, the first lower-case content word
 * past the subject's first word; after "is/was/…", the first participle.
 */
export function questionPredicate(question: string): string | null {
  const verb = subjectVerb(question);
  if (verb) return verb;
  // ("in which city is …", "by how much does …": the preposition before the wh-word aside)
  const q = question.trim().replace(/^(?:in|on|at|to|from|by|for|with|of|into|under|during)\s+(?=(?:what|which|whom|how|when|where)\b)/i, '');
  const m = q.match(/^(?:what|who|whom|whose|which|when|where|why|how)\b(.*?)\b(do|does|did|can|could|will|would|should|shall|may|might|must|has|have|had|is|are|was|were)\s+(.+)$/iu);
  if (!m) {
    // "which firm employs …", "which department took over …": the wh-phrase is the subject, the verb follows it
    if (!/^(?:which|what|who)\s/i.test(q)) return null;
    // (the word after the wh-word is the noun it asks for: the verb is one of the two after it)
    const w = q.split(/\s+/).slice(2, 4).find((x) => /^\p{Ll}[\p{L}'-]*$/u.test(x) && !AUXILIARY.test(x) && !isStop(x) && (/(?:s|ed)$/.test(x) || IRREGULAR_PARTICIPLE.test(x) || IRREGULAR_PAST.test(x)));
    return w ? (terms(w)[0] ?? null) : null;
  }
  const tokens = m[3]!.match(/[\p{L}\p{N}'-]+/gu) ?? [];
  const rest = tokens.filter((w) => !isStop(w.toLowerCase()));
  if (/^(?:is|are|was|were)$/i.test(m[2]!)) {
    const participle = rest.find((w) => /^\p{Ll}/u.test(w) && (/(?:ed|en|wn)$/.test(w) || IRREGULAR_PARTICIPLE.test(w)));
    if (participle) return terms(participle)[0] ?? null;
    // a copula: the noun asked for, the head (last word) of the phrase after the verb ("the overall price of …" → price)
    const phrase: string[] = [];
    for (const w of tokens) {
      if (isStop(w.toLowerCase())) {
        if (phrase.length) break;
        continue;
      }
      phrase.push(w);
    }
    return terms(phrase.at(-1) ?? '')[0] ?? null;
  }
  // "did the harbour crew check the …": past the subject's first word, the first word in lower case that a function word
  // or the question's end follows (a verb before its object's article or a preposition), else the first in lower case
  const content = tokens.map((w, i) => ({ w, i })).filter(({ w }) => !isStop(w.toLowerCase())).slice(1).filter(({ w }) => /^\p{Ll}/u.test(w));
  const verbWord = content.find(({ i }) => i === tokens.length - 1 || isStop(tokens[i + 1]!.toLowerCase())) ?? content[0];
  return verbWord ? (terms(verbWord.w)[0] ?? null) : null;
}
/** Past tenses that do not end in -ed ("which department took over …"). */
const IRREGULAR_PAST = /^(?:got|took|gave|came|went|became|began|wrote|grew|rose|fell|drove|chose|broke|spoke|knew|ran|saw|did|won)$/i;

/** A word written in lower case: capitalised, such a word is not a name ("Invoice", "Commission"). */
export const LOWER_WORD = /(?<![\p{L}\p{N}])\p{Ll}+(?![\p{L}\p{N}])/gu;

/** Whether a document (or a chunk's terms) has a term, or one of its synonyms (a name the document writes in its own language: "VAT" / "BTW"). */
export const hasName = (d: { has: (t: string) => boolean } | undefined, t: string) => !!d && (d.has(t) || alternativesOf(t).some((x) => d.has(x)));

/**
 * Whether a document has every one of the question's names that some document of the knowledge base has (a name the
 * document writes in its own language counts: "VAT" in a Dutch invoice is "BTW"): the documents the question is about.
 * Every document, when none has them. `docTerms`: per document id, whether a term occurs in it.
 */
export function holdsNames(names: string[], docTerms: ReadonlyMap<string, { has: (t: string) => boolean }>): (documentId: string) => boolean {
  const known = names.filter((t) => [...docTerms.values()].some((d) => hasName(d, t)));
  return (id) => known.every((t) => hasName(docTerms.get(id), t));
}

// ---------------------------------------------------------------- label lines

/*
 * Label lines as documents print them: "Label: value", and, as footers, letterheads and forms print them, a label without a
 * colon before a value whose form fits it ("IBAN DE30 5075 0094 …", "Tel. +49 6051 916 44 10", "VAT No GB123456789",
 * "Invoice No 4711", "Rechnungsdatum 07.05.2014"). A label without a colon is told from the first words of a sentence only
 * by its value: the value's form is what the label names (an account's IBAN, a bank's BIC, a telephone number, an e-mail
 * address, a code of digits, a date, an amount), and nothing else follows it.
 */

/** a label with its value after a colon ("Restaurant: Docling") */
const KEY_VALUE = /^[^:]{1,40}:\s*\S/;

/** The forms a value printed after a label may have. */
export type LabelForm = 'iban' | 'bic' | 'phone' | 'email' | 'code' | 'date' | 'amount';

const FORMS: Record<LabelForm, (value: string) => boolean> = {
  // two letters of the country, two check digits, the account (11–30 letters and digits, often in groups of four)
  iban: (v) => /^[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}$/.test(v),
  // bank, country, place and branch: 8 or 11 letters and digits, the first six letters
  bic: (v) => /^[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/.test(v),
  // digits grouped by spaces, dots, dashes, brackets, a leading plus: 6 to 15 digits
  phone: (v) => /^\+?\(?\d[\d ()./-]*\d$/.test(v) && digits(v) >= 6 && digits(v) <= 15,
  email: (v) => /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/.test(v),
  // a code of capitals and digits, at least three digits ("DE 232 446 240", "HRB 13302", "NL810433941B01", "4711")
  code: (v) => /^[A-Z0-9][A-Z0-9./-]*(?: [A-Z0-9][A-Z0-9./-]*){0,5}$/.test(v) && digits(v) >= 3 && v.length <= 34,
  // a whole date with its day, month and year, and nothing else
  date: (v) => FULL_DATE.test(v),
  // a sum with a currency or two decimals ("€ 34,73", "34.73 EUR", "$4.11")
  amount: (v) => /^(?:[$€£¥₹]\s?|(?:EUR|USD|GBP|CHF|RM|SGD|INR)\s?)?-?\d{1,3}(?:[.,' ]?\d{3})*(?:[.,]\d{2})?(?:\s?(?:€|EUR|USD|GBP|CHF))?$/i.test(v) && (/[$€£¥₹]|EUR|USD|GBP|CHF|RM|SGD|INR/i.test(v) || /[.,]\d{2}$/.test(v)),
};
const digits = (v: string) => v.replace(/\D/g, '').length;
/** a date with its day, month and year, alone: "07.05.2014", "2014-05-07", "7. Mai 2014", "March 14, 2023" */
const FULL_DATE = /^(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{2}|\d{4})|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\.?\s+\p{L}{3,9}\.?,?\s+\d{4}|\p{L}{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})$/u;

/** labels by what they name: the forms of the value each may have (a label names one kind of value) */
const LABEL_FORMS: [RegExp, LabelForm[]][] = [
  [/^iban$/i, ['iban']],
  [/^(?:bic|swift|swift[- ]?code|bic[- ]?code|bic\s?\/\s?swift|swift\s?\/\s?bic)$/i, ['bic']],
  [/^(?:tel|tele?phone|telefon|telefoon|t[ée]l[ée]phone|t[ée]l|phone|ph|fon|fax|telefax|mobile?|mob|cell|handy|mobil|gsm|hotline)\.?(?:\s?(?:no|nr|number|nummer)\.?)?$/i, ['phone']],
  [/^(?:e-?mail|mail|courriel)(?:\s?(?:address|adresse))?$/i, ['email']],
  // a label that names a code: its last word says so ("Invoice No", "Kto-Nr.", "Steuer-Nr.", "Customer ID"), or it is the name
  // of a register or a tax number as invoices print them ("UStId", "BTW", "VAT", "KvK", "HRB", "Blz")
  [/(?:^|[\s-])(?:no|nr|number|nummer|num|id|code|ref)\.?$|^(?:ust-?id(?:nr)?\.?|uid|btw|tva|iva|gst|vat|abn|kvk|blz|kto\.?|siret|siren|tin|ein|reg\.?)$/i, ['code']],
];

/** the business concepts of the lexicon whose labels name a date, a sum */
const DATE_CONCEPTS = new Set(['date', 'invoice_date', 'due_date']);
const AMOUNT_CONCEPTS = new Set(['total', 'amount_due', 'subtotal', 'vat']);
/** the concepts that name a code ("Rechnungsnummer", "BTW-nummer", "Kundennr") */
const CODE_CONCEPTS = new Set(['invoice_number', 'vat_number', 'customer_number', 'order_number']);

/** at most this many words make a label printed without a colon */
const LABEL_WORDS = 4;

/** The forms of value a label printed without a colon may take: by its words, or by the business concept the lexicon gives it. */
function formsOf(label: string): LabelForm[] {
  const l = label.trim().replace(/\s+/g, ' ');
  const out = new Set<LabelForm>();
  for (const [re, forms] of LABEL_FORMS) if (re.test(l)) forms.forEach((f) => out.add(f));
  for (const c of labelConcepts(l)) {
    if (DATE_CONCEPTS.has(c)) out.add('date');
    if (AMOUNT_CONCEPTS.has(c)) out.add('amount');
    if (CODE_CONCEPTS.has(c)) out.add('code');
  }
  return [...out];
}

export interface LabelValue {
  label: string;
  value: string;
  /** the form of the value, checked, when the label is printed without a colon; null after a colon */
  form: LabelForm | null;
}

/**
 * A label line's label and value: "Label: value" (the label at most 40 characters), or a label printed without a colon
 * (labelWithoutColon). Null for any other line.
 */
export function labelValue(text: string): LabelValue | null {
  if (KEY_VALUE.test(text)) {
    const at = text.indexOf(':');
    return { label: text.slice(0, at), value: text.slice(at + 1).trim(), form: null };
  }
  return labelWithoutColon(text);
}

/**
 * A label of at most four words, with no digits, printed without a colon before a value of a form it names ("IBAN DE30…",
 * "Tel. +49 …", "Invoice No 4711", "Rechnungsdatum 07.05.2014"), the value the rest of the line; null for any other line.
 */
export function labelWithoutColon(text: string): LabelValue | null {
  const t = text.trim();
  if (t.length > 120 || /[|•]/.test(t)) return null;
  const ws = t.split(/\s+/);
  for (let k = 1; k <= Math.min(LABEL_WORDS, ws.length - 1); k++) {
    const label = ws.slice(0, k).join(' ');
    // (a label is words: letters, with dots, dashes and slashes between them; no digits)
    if (!/^\p{L}[\p{L}.\/'’-]*(?: [\p{L}.\/'’-]+)*$/u.test(label) || !words(label).length) break;
    const value = ws.slice(k).join(' ').replace(/^[#№]\s*/, '');
    const form = formsOf(label).find((f) => FORMS[f](value));
    if (form) return { label, value, form };
  }
  return null;
}

/** Whether a text is a label line (a label with its value, with or without a colon). */
export const isLabelLine = (text: string) => labelValue(text) !== null;
