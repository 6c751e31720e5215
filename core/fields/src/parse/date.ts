/**
 * Dates as printed → ISO 8601 YYYY-MM-DD. Numeric forms (2024-03-12, 12/03/2024, 03/12/2024, 12.03.24),
 * compact forms (20240312, and day first 12032024 at lower quality), textual forms in English, German, French, Dutch, Spanish and Italian ("12 March 2024", "Mar 12, 2024",
 * "7. Mai 2014", "19 april 2014", "1er janvier 2024", "12-Mar-2024"). Day/month order of numeric dates is
 * decided by the values when one part exceeds 12, else by the `order` hint (default day first).
 */

export type DateOrder = 'DMY' | 'MDY';

export interface DateOptions {
  /** day/month order for ambiguous numeric dates (01/02/2024), e.g. from documentDateOrder() */
  order?: DateOrder;
}

export interface DateMatch {
  start: number;
  end: number;
  /** YYYY-MM-DD */
  iso: string;
  /** 1 unambiguous; lower when the day/month order or the century was guessed */
  quality: number;
  /** numeric date whose day/month order could not be decided from its values */
  ambiguous: boolean;
}

const MONTHS: Record<string, number> = {};
const addMonths = (names: string[][]) => names.forEach((list, i) => list.forEach((n) => (MONTHS[n] = i + 1)));
// English, German, French, Dutch, Spanish, Italian; full names and the usual abbreviations (accents optional).
addMonths([
  ['january', 'jan', 'januar', 'janner', 'jänner', 'janvier', 'janv', 'januari', 'enero', 'ene', 'gennaio', 'gen'],
  ['february', 'feb', 'febr', 'februar', 'fevrier', 'février', 'fevr', 'févr', 'fev', 'fév', 'februari', 'febrero', 'febbraio'],
  ['march', 'mar', 'marz', 'märz', 'maerz', 'mrz', 'mär', 'mars', 'maart', 'mrt', 'marzo'],
  ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile'],
  ['may', 'mai', 'mei', 'mayo', 'maggio', 'mag'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu'],
  ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug'],
  ['august', 'aug', 'aout', 'août', 'augustus', 'agosto', 'ago'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'settembre', 'set'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott'],
  ['november', 'nov', 'novembre', 'noviembre'],
  ['december', 'dec', 'dezember', 'dez', 'decembre', 'décembre', 'déc', 'diciembre', 'dic', 'dicembre'],
]);
const MONTH_ALT = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|');

const D = String.raw`(?<!\d)`;
const RE_ISO = new RegExp(String.raw`${D}(?<y>\d{4})(?<s>[-/.])(?<m>\d{1,2})\k<s>(?<d>\d{1,2})(?!\d)(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`, 'g');
const RE_COMPACT = new RegExp(String.raw`${D}(?<y>(?:19|20)\d{2})(?<m>0[1-9]|1[0-2])(?<d>0[1-9]|[12]\d|3[01])(?!\d)`, 'g');
// day first without separators, as some tills print it ("25032018"): read after every other form, at lower quality
const RE_COMPACT_DMY = new RegExp(String.raw`${D}(?<d>0[1-9]|[12]\d|3[01])(?<m>0[1-9]|1[0-2])(?<y>(?:19|20)\d{2})(?!\d)`, 'g');
const RE_NUMERIC = new RegExp(String.raw`(?<![\p{L}\p{N}]|\p{L}[-/.]|\p{N}[/.])(?<a>\d{1,2})(?<s>[-/.])(?<b>\d{1,2})\k<s>(?<y>\d{4}(?!:\d)|\d{2})(?:(?=\d{1,2}:\d{2}(?!\d))|(?![\p{N}]|[/.]\d))`, 'gu');
const RE_DMY_TEXT = new RegExp(String.raw`${D}(?<d>\d{1,2})(?:st|nd|rd|th|er|e|\.|º)?(?:\s*(?:of|de|del)\s+|[\s\-/.]*)(?<mon>${MONTH_ALT})\.?(?:\s*(?:de|del)\s+|[\s\-/.,']*)(?<y>\d{4}|'?\d{2})(?!\d)`, 'giu');
const RE_MDY_TEXT = new RegExp(String.raw`(?<![\p{L}])(?<mon>${MONTH_ALT})\.?\s*(?<d>\d{1,2})(?:st|nd|rd|th)?(?!\d)\s*,?\s*(?<y>\d{4})(?!\d)`, 'giu');

function fullYear(y: string): { year: number; guessed: boolean } {
  const n = Number(y.replace("'", ''));
  if (y.replace("'", '').length === 4) return { year: n, guessed: false };
  return { year: n < 70 ? 2000 + n : 1900 + n, guessed: true };
}

function valid(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1 || y < 1000 || y > 2999) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

const iso = (y: number, m: number, d: number) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

/** Every date printed in `text`, with offsets; textual forms first, overlapping numeric readings dropped. */
export function scanDates(text: string, opts: DateOptions = {}): DateMatch[] {
  const out: DateMatch[] = [];
  const push = (m: DateMatch) => {
    if (!out.some((o) => overlaps(o, m))) out.push(m);
  };
  for (const m of text.matchAll(RE_DMY_TEXT)) {
    const g = m.groups!;
    const { year, guessed } = fullYear(g.y!);
    const mon = MONTHS[g.mon!.toLowerCase()]!;
    const d = Number(g.d);
    if (valid(year, mon, d)) push({ start: m.index!, end: m.index! + m[0].length, iso: iso(year, mon, d), quality: guessed ? 0.9 : 1, ambiguous: false });
  }
  for (const m of text.matchAll(RE_MDY_TEXT)) {
    const g = m.groups!;
    const mon = MONTHS[g.mon!.toLowerCase()]!;
    const d = Number(g.d);
    const y = Number(g.y);
    if (valid(y, mon, d)) push({ start: m.index!, end: m.index! + m[0].length, iso: iso(y, mon, d), quality: 1, ambiguous: false });
  }
  for (const re of [RE_ISO, RE_COMPACT]) {
    for (const m of text.matchAll(re)) {
      const g = m.groups!;
      const y = Number(g.y), mo = Number(g.m), d = Number(g.d);
      if (valid(y, mo, d)) push({ start: m.index!, end: m.index! + m[0].length, iso: iso(y, mo, d), quality: re === RE_COMPACT ? 0.8 : 1, ambiguous: false });
    }
  }
  for (const m of text.matchAll(RE_NUMERIC)) {
    const g = m.groups!;
    const a = Number(g.a), b = Number(g.b);
    const { year, guessed } = fullYear(g.y!);
    let order: DateOrder;
    let ambiguous = false;
    if (a > 12 && b <= 12) order = 'DMY';
    else if (b > 12 && a <= 12) order = 'MDY';
    else if (a === b) order = 'DMY';
    else {
      // dd.mm.yyyy is day-first wherever it is printed
      order = g.s === '.' ? 'DMY' : (opts.order ?? 'DMY');
      ambiguous = g.s !== '.' && !opts.order;
    }
    const [d, mo] = order === 'DMY' ? [a, b] : [b, a];
    if (!valid(year, mo, d)) continue;
    let quality = 1;
    if (ambiguous) quality *= 0.8;
    else if (a <= 12 && b <= 12 && a !== b && g.s !== '.') quality *= 0.95; // decided by a document-level hint
    if (guessed) quality *= 0.9;
    push({ start: m.index!, end: m.index! + m[0].length, iso: iso(year, mo, d), quality, ambiguous });
  }
  for (const m of text.matchAll(RE_COMPACT_DMY)) {
    const g = m.groups!;
    const y = Number(g.y), mo = Number(g.m), d = Number(g.d);
    if (valid(y, mo, d)) push({ start: m.index!, end: m.index! + m[0].length, iso: iso(y, mo, d), quality: 0.6, ambiguous: false });
  }
  return out.sort((x, y) => x.start - y.start);
}

/**
 * ISO date (YYYY-MM-DD) from text that is one date, or null. Accepts Date objects and ISO date-times.
 */
export function parseDate(text: unknown, opts: DateOptions = {}): string | null {
  if (text instanceof Date) return Number.isNaN(text.getTime()) ? null : text.toISOString().slice(0, 10);
  if (typeof text !== 'string') return null;
  const t = text.trim();
  if (!t) return null;
  const found = scanDates(t, opts);
  if (found.length !== 1) return null;
  const m = found[0]!;
  const rest = (t.slice(0, m.start) + t.slice(m.end)).replace(/[\s,.:;()\-–]+/g, '');
  // weekday names around the date are fine ("Tuesday, 12 March 2024")
  if (rest && !/^(mon|tue|wed|thu|fri|sat|sun|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)[a-z]*\.?$/i.test(rest)) return null;
  return m.iso;
}

/**
 * The day/month order a document uses: from its unambiguous numeric dates first (13/02 vs 02/13), then
 * from language and currency hints (US dollars and English month-first phrases → MDY). Undefined when the
 * document gives no hint.
 */
export function documentDateOrder(text: string): DateOrder | undefined {
  let dmy = 0, mdy = 0;
  for (const m of text.matchAll(RE_NUMERIC)) {
    const a = Number(m.groups!.a), b = Number(m.groups!.b);
    if (m.groups!.s === '.') dmy += 0.5;
    else if (a > 12 && b <= 12) dmy++;
    else if (b > 12 && a <= 12) mdy++;
  }
  if (dmy !== mdy) return dmy > mdy ? 'DMY' : 'MDY';
  let textMdy = 0, textDmy = 0;
  for (const _ of text.matchAll(RE_MDY_TEXT)) textMdy++;
  for (const _ of text.matchAll(RE_DMY_TEXT)) textDmy++;
  if (textMdy !== textDmy) return textMdy > textDmy ? 'MDY' : 'DMY';
  // a dollar amount has cents ("$ 12.50"); a lone "$" before digits is often OCR's S ("Jalan $821/39")
  if (/(US\$|\bUSD\b|\$\s?\d{1,3}(?:,\d{3})*\.\d{2}(?!\d))/.test(text) && !/[€£₹]|\b(EUR|GBP|INR|MYR|RM)\b/.test(text)) return 'MDY';
  if (/[€£₹]|\b(EUR|GBP|INR|MYR|RM|Rs)\b/.test(text)) return 'DMY';
  return undefined;
}
