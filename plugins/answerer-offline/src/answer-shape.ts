/**
 * The evidence an offline chat answer may stand on: what is a fragment (never an answer), one cell of a table
 * row with its row label and column header, and the questions about a document as a whole (its title, date,
 * author, what it is about). Pure functions, no I/O.
 */
import type { Unit } from '@quire/text';

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
 * how many of the question's words a header (or a cell) says; `own` whether the question itself gives a cell's value.
 * A header with fewer or more cells than the row is aligned on the right (an empty corner cell, a title row above).
 * A cell that is a field of its own ("Corporate Office: 9th floor, … Gurgaon") answers alone. When the row's label
 * is the value asked for ("In which year were 135 ducks counted?" → "2020 | 135"), it is quoted with the cell the
 * question gives. Null when no single cell answers: no cell of the type, or several with nothing to tell them apart.
 */
export function cellAnswer(u: Unit, holds: (cell: string) => boolean, asked: (header: string) => number, own: (cell: string) => boolean = () => false): string | null {
  if (u.kind !== 'row') return null;
  // the cells as printed, with their columns' headers when the header row has as many cells (blank ones included)
  const cells = u.cells ?? cellsOf(u.text);
  const header = u.columns && u.columns.length === cells.length ? u.columns : !u.cells && u.context && cellsOf(u.context).length === cells.length ? cellsOf(u.context) : null;
  const first = cells.findIndex((c) => c);
  if (first < 0 || cells.filter((c) => c).length < 2) return null;
  // the row's label: its first cell, or, when that is a bare index ("1", "5"), the cells the question names ("Sheryl", "Baxter")
  const named = cells.filter((c, j) => j > first && c && own(c));
  const label = /^\d{1,6}$/.test(cells[first]!) && named.length && !holds(cells[first]!) ? named.join(' ') : cells[first]!;
  const col = (j: number) => header?.[j] || undefined;
  const render = (j: number) => {
    const c = col(j);
    return c && c !== label && c !== cells[j] ? `${label} (${c}): ${cells[j]}` : `${label}: ${cells[j]}`;
  };
  // the one best of several, by the question's words in `by`; a tie leaves it open
  const best = (xs: number[], by: (j: number) => number): number => {
    if (xs.length === 1) return xs[0]!;
    const scored = xs.map((j) => ({ j, s: by(j) })).sort((a, b) => b.s - a.s);
    return scored[0]!.s > 0 && scored[0]!.s > scored[1]!.s ? scored[0]!.j : -1;
  };
  const filled = cells.map((c, j) => ({ c, j })).filter(({ c }) => c);
  // cells that are fields of their own ("Phone: 080 100 444 66")
  const fields = filled.filter(({ c }) => LABEL_VALUE.test(c));
  if (fields.length >= 2 && fields.length >= filled.length - 1) {
    const typed = fields.filter(({ c }) => holds(c)).map(({ j }) => j);
    if (!typed.length) return null;
    const j = best(typed, (k) => asked(cells[k]!.split(':')[0]!));
    return j < 0 ? null : cells[j]!;
  }
  // (a cell merged across columns is printed once per column: one value)
  const typed = [...new Map(filled.filter(({ c, j }) => j > first && !own(c) && holds(c)).map(({ c, j }) => [`${c}\u0000${col(j) ?? ''}`, j])).values()];
  if (!typed.length) {
    // the label is the value asked for: quoted with the cell the question names
    if (!holds(label) || own(label)) return null;
    const given = filled.filter(({ c, j }) => j > first && own(c));
    return given.length === 1 ? render(given[0]!.j) : null;
  }
  const j = best(typed, (k) => asked(col(k) ?? ''));
  // another column names more of the question than the typed cell's ("which company is Roy Berry with": Company, not Country)
  if (j >= 0 && filled.some(({ j: k }) => k > first && asked(col(k) ?? '') > asked(col(j) ?? ''))) return null;
  return j < 0 ? null : render(j);
}

/** What a question asks about a document as a whole, or null. */
export type DocumentAspect = 'title' | 'author' | 'date' | 'about';

const DOC_NOUN = '(?:document|file|report|paper|article|letter|memo|text|form|pdf|presentation|slides?|page|brochure|contract|agreement|notice|filing)';
// (the words between the article and the noun qualify the document: "the Kestrel notice", not "the author of the report")
const THIS = `(?:this|the|that|your|our|my)(?:\\s+(?!(?:of|who|whom|which|that|in|on|for|by|to|with|from|and|or|about|at)\\b)[\\p{L}\\p{N}'’-]+){0,3}?`;

/** the end of the question: the document is the whole of what it names ("the title of the book", not "of the book Roberts wrote") */
const END = '(?:\\s+(?:that|which)\\s+[^?]*)?\\s*[?.!]*\\s*$';

const ASPECTS: [DocumentAspect, RegExp][] = [
  ['title', new RegExp(`\\bwhat(?:'s|’s|\\s+is|\\s+was)\\s+(?:the\\s+)?(?:title|name|heading)\\s+of\\s+${THIS}\\s+${DOC_NOUN}${END}|\\bwhat\\s+is\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:called|titled|named)${END}|\\bwhat\\s+(?:title|heading)\\s+does\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:have|bear|carry)${END}`, 'iu')],
  ['author', new RegExp(`\\bwho\\s+(?:wrote|authored|prepared|issued|signed|sent|created)\\s+${THIS}\\s+${DOC_NOUN}${END}|\\bwho\\s+is\\s+the\\s+(?:author|writer|sender|issuer)\\s+of\\s+${THIS}\\s+${DOC_NOUN}${END}|\\bwho\\s+is\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:by|from)${END}`, 'iu')],
  ['date', new RegExp(`\\bwhen\\s+(?:was|is)\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:written|dated|published|issued|created|made|signed|sent|released)${END}|\\bwhat\\s+(?:is|was)\\s+the\\s+date\\s+(?:of|on)\\s+${THIS}\\s+${DOC_NOUN}${END}|\\bhow\\s+is\\s+${THIS}\\s+${DOC_NOUN}\\s+dated${END}`, 'iu')],
  ['about', new RegExp(`\\bwhat\\s+(?:is|are|was)\\s+${THIS}\\s+${DOC_NOUN}\\s+about${END}|\\bwhat\\s+does\\s+${THIS}\\s+${DOC_NOUN}\\s+(?:say|cover|describe|deal\\s+with|discuss)${END}|\\b(?:summari[sz]e|give\\s+(?:me\\s+)?(?:a|the)\\s+(?:summary|gist)\\s+of)\\s+${THIS}\\s+${DOC_NOUN}${END}|\\bwhat\\s+is\\s+the\\s+(?:subject|topic|purpose)\\s+of\\s+${THIS}\\s+${DOC_NOUN}${END}`, 'iu')],
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
