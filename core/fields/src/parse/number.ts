/**
 * Numbers as printed on business documents: currency symbols and codes, thousands separators in both
 * conventions (1,234.56 and 1.234,56, also 1 234,56 and 1'234.56), parenthesised and trailing-minus
 * negatives, percentages. Percentages keep their printed value ("21%" → 21).
 */

export interface NumberOptions {
  /** the decimal separator the document uses, when known; decides "1,234" and "1.234" */
  decimal?: '.' | ',';
}

export interface NumberMatch {
  start: number;
  end: number;
  value: number;
  /** ISO code or symbol printed with the number */
  currency: string | null;
  percent: boolean;
  /** decimals, a currency or grouping: looks like a money amount rather than a count or an id */
  amountLike: boolean;
  /** 1 when the reading is unambiguous; lower when the separator convention had to be guessed */
  quality: number;
}

const SYMBOLS: Record<string, string> = {
  $: 'USD', US$: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₩': 'KRW', '₽': 'RUB', '₺': 'TRY', '₪': 'ILS', '฿': 'THB',
  '₫': 'VND', '₴': 'UAH', '₦': 'NGN', '₱': 'PHP', R$: 'BRL', 'A$': 'AUD', 'C$': 'CAD', 'CA$': 'CAD', 'AU$': 'AUD', 'HK$': 'HKD', 'S$': 'SGD', 'NZ$': 'NZD',
  Rs: 'INR', 'Rs.': 'INR', RM: 'MYR', Fr: 'CHF', 'Fr.': 'CHF', 'CHF': 'CHF', kr: 'SEK', 'zł': 'PLN', 'Kč': 'CZK',
};
/** ISO 4217 codes common on invoices; matched only as whole words next to a number. */
export const CURRENCY_CODES = [
  'USD', 'EUR', 'GBP', 'JPY', 'CNY', 'RMB', 'INR', 'CHF', 'CAD', 'AUD', 'NZD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'RON', 'BGN', 'HRK',
  'RUB', 'TRY', 'ILS', 'AED', 'SAR', 'QAR', 'KWD', 'ZAR', 'NGN', 'KES', 'EGP', 'MAD', 'BRL', 'MXN', 'ARS', 'CLP', 'COP', 'PEN', 'SGD',
  'HKD', 'TWD', 'KRW', 'THB', 'MYR', 'IDR', 'PHP', 'VND', 'PKR', 'BDT', 'LKR', 'UAH',
];

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CUR_ALT = [...Object.keys(SYMBOLS), ...CURRENCY_CODES].sort((a, b) => b.length - a.length).map(esc).join('|');
// A number with optional grouping and decimals. Grouping separators: , . NBSP thin-space apostrophe. A plain
// space is not taken as grouping while scanning ("1 399,00" in a line item is a quantity and a price).
const NUM = String.raw`\d{1,3}(?:[,.\u00a0\u202f']\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|[.,]\d+`;
const NUMBER_RE = new RegExp(
  String.raw`(?<![\p{L}\p{N}]|[\p{L}\p{N}][-/])(?<open>\()?(?<sign1>[-−–+])?\s?(?<cur1>${CUR_ALT})?\s?(?<sign2>[-−–+])?\s?(?<num>${NUM})(?:\s?(?<cur2>${CUR_ALT}|%))?(?<sign3>-(?![\p{N}]))?(?<close>\))?(?![\p{L}\p{N}]|[.,]\d)`,
  'gu',
);

function symbolToCode(s: string | undefined): string | null {
  if (!s) return null;
  return SYMBOLS[s] ?? (CURRENCY_CODES.includes(s) ? s : null);
}

/** Reads the digits-and-separators part. Returns null when the grouping is not valid. */
function readDigits(raw: string, opts: NumberOptions): { value: number; quality: number; grouped: boolean; decimals: number } | null {
  let s = raw.replace(/[\u00a0\u202f' ]/g, (m) => (m === "'" ? ',' : ' '));
  const spaceGrouped = / /.test(s);
  if (spaceGrouped) {
    if (!/^\d{1,3}( \d{3})+([.,]\d+)?$/.test(s)) return null;
    s = s.replace(/ /g, '');
  }
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let decimalSep: '.' | ',' | null = null;
  let quality = 1;
  if (lastDot >= 0 && lastComma >= 0) {
    decimalSep = lastDot > lastComma ? '.' : ',';
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const count = s.split(sep).length - 1;
    const after = s.length - s.lastIndexOf(sep) - 1;
    if (count > 1) decimalSep = null; // 1,234,567 / 1.234.567
    else if (after !== 3) decimalSep = sep; // 12,5 / 4.11
    else if (/^0[.,]/.test(s) || s.startsWith(sep)) decimalSep = sep; // 0,125
    else if (opts.decimal) decimalSep = opts.decimal === sep ? sep : null;
    else {
      // "1,234" or "1.234": English grouping for a comma, German grouping for a dot; a guess either way.
      decimalSep = null;
      quality = 0.85;
    }
  }
  const groupSep = decimalSep === '.' ? ',' : decimalSep === ',' ? '.' : lastDot >= 0 ? '.' : ',';
  const [intPart, fracPart = ''] = decimalSep ? [s.slice(0, s.lastIndexOf(decimalSep)), s.slice(s.lastIndexOf(decimalSep) + 1)] : [s, ''];
  const grouped = intPart.includes(groupSep) || spaceGrouped;
  if (intPart.includes(groupSep) && !new RegExp(`^\\d{1,3}(${esc(groupSep)}\\d{3})+$`).test(intPart)) return null;
  if (decimalSep && /[.,]/.test(fracPart)) return null;
  const digits = intPart.replace(/[.,]/g, '') + (fracPart ? `.${fracPart}` : '');
  const value = Number(digits || '0');
  if (!Number.isFinite(value)) return null;
  return { value, quality, grouped, decimals: fracPart.length };
}

/** Every number printed in `text`, with offsets. Dates and times are not excluded here (see scanTyped). */
export function scanNumbers(text: string, opts: NumberOptions = {}): NumberMatch[] {
  const out: NumberMatch[] = [];
  for (const m of text.matchAll(NUMBER_RE)) {
    const g = m.groups!;
    const read = readDigits(g.num!, opts);
    if (!read) continue;
    let start = m.index!;
    let end = start + m[0].length;
    let negative = !!(g.sign1 && g.sign1 !== '+') || !!(g.sign2 && g.sign2 !== '+') || !!g.sign3;
    // parentheses count only when both are there; otherwise leave them out of the match
    if (g.open && g.close) negative = true;
    else {
      if (g.open) start += 1;
      if (g.close) end -= 1;
    }
    // a leading dash glued to a word boundary like "A-12" is a hyphen, not a sign: (?<![\p{L}\p{N}]) handles it
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    while (start < end && /\s/.test(text[start]!)) start++;
    const percent = g.cur2 === '%';
    const currency = symbolToCode(g.cur1) ?? (percent ? null : symbolToCode(g.cur2));
    const value = (negative ? -1 : 1) * read.value;
    out.push({
      start,
      end,
      value: Object.is(value, -0) ? 0 : value,
      currency,
      percent,
      amountLike: !!currency || read.decimals === 2 || read.grouped,
      quality: read.quality,
    });
  }
  return out;
}

/**
 * A number from text that is one number (currency, sign, separators and % allowed around it).
 * "€ 1.234,56" → 1234.56, "(1,234.00)" → -1234, "21 %" → 21, "USD 4.11" → 4.11. Null when the text holds
 * no number or several.
 */
export function parseNumber(text: unknown, opts: NumberOptions = {}): number | null {
  if (typeof text === 'number') return Number.isFinite(text) ? text : null;
  if (typeof text !== 'string') return null;
  let t = text.trim();
  if (!t) return null;
  // a lone value may use plain spaces for grouping ("1 234,56")
  if (/^\D*\d{1,3}( \d{3})+([.,]\d+)?\D*$/.test(t)) t = t.replace(/(\d) (?=\d{3})/g, '$1\u00a0');
  const found = scanNumbers(t, opts);
  if (found.length !== 1) return null;
  const m = found[0]!;
  const rest = (t.slice(0, m.start) + ' ' + t.slice(m.end)).replace(/[\s:=*]+/g, '');
  if (rest && !/^(total|amount|price|sum|approx\.?|ca\.?|~)?$/i.test(rest)) return null;
  return m.value;
}
