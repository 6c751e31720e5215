/**
 * A question that looks a cell up in a table by another cell of its row, as one asks of a spreadsheet ("On Sheet2, what is
 * the col-4 value in the row where col-1 is 8?", "What is 'third' in the row where 'first' is 6?").
 */

export interface RowLookup {
  /** the column whose cell is asked for */
  column: string;
  /** the column that picks the row, and the value it holds there */
  keyColumn: string;
  key: string;
  /** the sheet the question names ("Sheet2"), if any */
  sheet: string | null;
}

const Q = String.raw`["'‘“]?`;
const QE = String.raw`["'’”]?`;
const CELL = String.raw`([^"'’”?,]{1,40}?)`;
const LOOKUP = new RegExp(
  String.raw`\bwhat\s+(?:is|was)\s+(?:the\s+)?(?:value\s+(?:of|in)\s+)?(?:(?:the\s+)?column\s+)?${Q}${CELL}${QE}(?:\s+(?:value|cell|entry))?\s+(?:in|of|on|for)\s+the\s+row\s+(?:where|whose|in\s+which|with)\s+(?:the\s+)?(?:column\s+)?${Q}${CELL}${QE}\s+(?:is|=|equals|reads|holds)\s+${Q}${CELL}${QE}\s*\?*$`,
  'iu',
);
const SHEET = /\b(?:on|in|of)\s+(?:the\s+)?(sheet\s*\d+|sheet\s+["'‘“][^"'’”]+["'’”])/iu;

/** The cell a question looks up by another cell of its row, or null. */
export function rowLookupAsked(question: string): RowLookup | null {
  const m = question.trim().match(LOOKUP);
  if (!m) return null;
  const sheet = question.match(SHEET)?.[1]?.replace(/["'‘“’”]/gu, '').replace(/\s+/g, ' ').trim() ?? null;
  return { column: m[1]!.trim(), keyColumn: m[2]!.trim(), key: m[3]!.trim(), sheet };
}

/** A cell or a header as compared: case, spaces and quotes aside. */
export const cellKey = (s: string) => s.toLowerCase().replace(/["'‘’“”*_`]/gu, '').replace(/\s+/g, ' ').trim();
