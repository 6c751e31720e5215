/**
 * The evidence an offline chat answer may stand on: what is a fragment (never an answer), one cell of a table
 * row with its row label and column header, and the questions about a document as a whole (its title, date,
 * author, what it is about). Pure functions, no I/O.
 */
import type { Unit } from './chat-text.js';

/** What an answer is: a typed value, a quoted passage, or none (the refusal). */
export type AnswerKind = 'value' | 'passage' | 'none';

/** function words that cannot end a sentence: a line ending in one breaks off mid-sentence */
const DANGLING_END = /\b(?:a|an|the|of|for|to|in|on|at|by|with|from|into|and|or|but|nor|than|that|which|whose|his|her|its|their|our|my|your|is|are|was|were|be|been|has|had|have)$/i;
/** a label with its value ("Invoice date: 14 March 2023", "Factuurnummer: 2023-0412") */
const LABEL_VALUE = /^[^:]{1,40}:\s*\S/;

const cellsOf = (text: string) => text.split(' | ').map((c) => c.trim());

/**
 * Whether a unit is a fragment, which is never an answer: a sentence the chunk cuts, a bare (line) number, a table
 * row of several cells (one of its cells may answer, with its labels: `cellAnswer`), a text run of several cells, or a
 * sentence that breaks off (ends in a comma or a function word, or begins in lower case past a line break).
 */
export function isFragment(u: Unit): boolean {
  const t = u.text.trim();
  if (u.cut) return true;
  if (/^[\d\s.,;:)(-]*$/.test(t)) return true;
  if (u.kind === 'row') return cellsOf(t).length > 2;
  if (u.kind === 'heading') return false;
  if ((t.match(/ \| /g) ?? []).length >= 2) return true;
  if (LABEL_VALUE.test(t)) return false;
  if (/[,;(–—-]$/.test(t) || DANGLING_END.test(t)) return true;
  // (a sentence that begins in lower case is the end of one that began elsewhere)
  if (/^\p{Ll}/u.test(t) && !/^\p{Ll}+\p{Lu}/u.test(t)) return true;
  return false;
}

/**
 * The answer of a table row: ONE cell, with the row's label (its first cell) and the column's header
 * ("Percent who borrowed (2015–16): 45%"). `holds` says whether a cell holds a value of the asked type; `asked`
 * whether a header cell names what the question asks (its words). Null when no single cell answers: no cell of the
 * type, or several with nothing in the header to tell them apart.
 */
export function cellAnswer(u: Unit, holds: (cell: string) => boolean, asked: (header: string) => number): string | null {
  if (u.kind !== 'row') return null;
  const cells = cellsOf(u.text);
  const header = u.context ? cellsOf(u.context) : null;
  if (cells.length < 2) return null;
  const label = cells[0]!;
  const typed = cells.map((c, j) => ({ c, j })).filter(({ c, j }) => j > 0 && c && holds(c));
  if (!typed.length) return null;
  const aligned = header && header.length === cells.length ? header : null;
  let pickIdx = typed.length === 1 ? typed[0]!.j : -1;
  if (aligned && typed.length > 1) {
    // the column whose header says most of the question; a tie leaves it open
    const scored = typed.map((x) => ({ ...x, s: asked(aligned[x.j]!) })).sort((a, b) => b.s - a.s);
    if (scored[0]!.s > 0 && scored[0]!.s > (scored[1]?.s ?? 0)) pickIdx = scored[0]!.j;
  }
  if (pickIdx < 0) return null;
  const col = aligned?.[pickIdx];
  const value = cells[pickIdx]!;
  return col && col !== label ? `${label} (${col}): ${value}` : `${label}: ${value}`;
}

/** What a question asks about a document as a whole, or null. */
export type DocumentAspect = 'title' | 'author' | 'date' | 'about';

const DOC_NOUN = '(?:document|file|report|paper|article|letter|memo|text|book|form|pdf|presentation|slides?|page|brochure|contract|agreement|notice|filing)';
const THIS = `(?:this|the|that|your|our|my)(?:\\s+[\\p{L}\\p{N}'’-]+){0,3}?`;

const ASPECTS: [DocumentAspect, RegExp][] = [
  ['title', new RegExp(`\\bwhat(?:'s|’s|\\s+is|\\s+was)\\s+(?:the\\s+)?(?:title|name|heading)\\s+of\\s+${THIS}\\s+${DOC_NOUN}\\b|\\bwhat\\s+is\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:called|titled|named)\\b|\\bwhat\\s+(?:title|heading)\\s+does\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:have|bear|carry)\\b`, 'iu')],
  ['author', new RegExp(`\\bwho\\s+(?:wrote|authored|prepared|issued|signed|sent|created)\\s+${THIS}\\s+${DOC_NOUN}\\b|\\bwho\\s+is\\s+the\\s+(?:author|writer|sender|issuer)\\s+of\\s+${THIS}\\s+${DOC_NOUN}\\b|\\bwho\\s+is\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:by|from)\\b`, 'iu')],
  ['date', new RegExp(`\\bwhen\\s+(?:was|is)\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:written|dated|published|issued|created|made|signed|sent|released)\\b|\\bwhat\\s+(?:is|was)\\s+the\\s+date\\s+(?:of|on)\\s+${THIS}\\s+${DOC_NOUN}\\b|\\bhow\\s+is\\s+${THIS}\\s+${DOC_NOUN}\\s+dated\\b`, 'iu')],
  ['about', new RegExp(`\\bwhat\\s+(?:is|are|was)\\s+${THIS}\\s+${DOC_NOUN}\\s+about\\b|\\bwhat\\s+does\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:say|cover|describe|deal\\s+with|discuss)\\b|\\b(?:summari[sz]e|give\\s+(?:me\\s+)?(?:a|the)\\s+(?:summary|gist)\\s+of)\\s+${THIS}\\s+${DOC_NOUN}\\b|\\bwhat\\s+is\\s+the\\s+(?:subject|topic|purpose)\\s+of\\s+${THIS}\\s+${DOC_NOUN}\\b`, 'iu')],
];

/** The aspect of the document a question asks for ("What is the title of this report?" → title), or null for other questions. */
export function documentAspect(question: string): DocumentAspect | null {
  for (const [aspect, re] of ASPECTS) if (re.test(question)) return aspect;
  return null;
}

/** the words of a document-level question that name no document ("the title of this report") */
export const DOCUMENT_WORDS = new RegExp(`^(?:${DOC_NOUN.slice(3, -1)}|title|name|heading|author|writer|date|dated|written|about|summary|subject|topic|purpose|wrote)$`, 'i');

/** A line that names the author of a document: "By Katrin Malmberg", "Author: …", "Prepared by …". */
export const AUTHOR_LINE = /^(?:(?:written|prepared|compiled|edited|issued)\s+by|by|authors?|written by|prepared for and by)\s*:?\s+\p{Lu}/iu;
