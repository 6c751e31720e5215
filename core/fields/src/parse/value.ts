/** Typed reading of text regions, value coercion and normalisation for ground-truth comparison. */
import type { FieldDefinition } from '@quire/core';
import { scanNumbers, parseNumber, CURRENCY_CODES, type NumberOptions } from './number.js';
import { scanDates, parseDate, type DateOrder } from './date.js';
import { scanBooleans, parseBoolean } from './boolean.js';

export type FieldType = FieldDefinition['type'];
/** Shapes some string fields have (from the field's concept): used to find the value inside a region. */
export type StringFormat = 'email' | 'iban' | 'url' | 'phone' | 'bic' | 'currency' | 'id' | 'taxid' | 'company';

export interface ParseContext {
  dateOrder?: DateOrder;
  decimal?: NumberOptions['decimal'];
  format?: StringFormat;
  /** money concepts (total, tax, price...) prefer amounts with decimals or a currency */
  money?: boolean;
}

export interface TypedMatch {
  start: number;
  end: number;
  value: unknown;
  /** 1 clean; lower when the reading was guessed (separators, day/month order, two-digit year) */
  quality: number;
  amountLike?: boolean;
  percent?: boolean;
}

const LEGAL = String.raw`Inc\.?|Incorporated|L\.?L\.?C\.?|Ltd\.?|Limited|PLC|plc|Corp\.?|Corporation|Co\.|GmbH|AG|KG|OHG|UG|e\.V\.|B\.\s?V\.?|BV|N\.\s?V\.?|NV|S\.A\.?|SA|SAS|SARL|S\.r\.l\.|S\.p\.A\.|Oy|AB|A/S|ApS|Sdn\.?\s?Bhd\.?|SDN\.?\s?BHD\.?|Bhd\.?|BHD|Pte\.?\s?Ltd\.?|Pty\.?\s?Ltd\.?|Pvt\.?\s?Ltd\.?|Private Limited|LLP|LP|LTD\.?|INC\.?|LIMITED|CORP\.?|GMBH`;
/** A company name: up to five capitalised words before a legal form ("Amazon Web Services, Inc.", "Coolblue B.V."). */
const COMPANY = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:[\p{Lu}\d(][\p{L}\d&'’.()\-]*,?\s+|&\s+){0,5}(?:${LEGAL})(?=$|[^\p{L}]|(?<=\.))`, 'gu');

const FORMATS: Record<StringFormat, RegExp> = {
  email: /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu,
  iban: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g,
  url: /\b(?:https?:\/\/)?(?:www\.)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:\/[^\s]*)?/gi,
  phone: /(?<![\p{L}\p{N}])\+?\(?\d[\d\s().\/-]{5,}\d(?!\p{N})/gu,
  bic: /\b[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b/g,
  // identifiers: a run of letters/digits/separators holding at least one digit (INV-2024-001, 42183017, IBZY2087)
  // (underscores belong to the token: "invoice_number_1", "BLR_WFLD20151000982590")
  id: /(?<![\p{L}\p{N}_])[#]?(?=[\p{L}\p{N}_\-\/.]*\p{N})[\p{L}\p{N}][\p{L}\p{N}_\-\/.]*[\p{L}\p{N}]|(?<![\p{L}\p{N}_])\p{N}(?![\p{L}\p{N}_])/gu,
  // tax / VAT / company registration ids: optional country prefix, then digit groups (DE 232 446 240, NL810433941B01)
  taxid: /(?<![\p{L}\p{N}])(?:[A-Z]{2,3}[ -]?)?\d[\dA-Z]*(?:[ .\-/]\d[\dA-Z]*)*(?![\p{L}\p{N}])/gu,
  company: COMPANY,
  currency: new RegExp(`\\b(?:${CURRENCY_CODES.join('|')})\\b|[$€£¥₹₩₽₺₪฿₫₴₦₱]|\\bRs\\.?(?=\\s|\\d)|\\bRM(?=\\s|\\d)`, 'g'),
};
const SYMBOL_CODES: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₩': 'KRW', '₽': 'RUB', '₺': 'TRY', '₪': 'ILS', '฿': 'THB', '₫': 'VND', '₴': 'UAH', '₦': 'NGN', '₱': 'PHP', Rs: 'INR', 'Rs.': 'INR', RM: 'MYR' };

/** Matches of `type` inside `text`. Strings: the format's matches, else the trimmed text as one match. */
export function scanTyped(text: string, type: FieldType, ctx: ParseContext = {}): TypedMatch[] {
  switch (type) {
    case 'number': {
      // numbers inside dates, times and ids with letters are not amounts
      const masked = maskDatesAndTimes(text, ctx);
      return scanNumbers(masked, { decimal: ctx.decimal }).map((m) => ({ start: m.start, end: m.end, value: m.value, quality: m.quality, amountLike: m.amountLike, percent: m.percent }));
    }
    case 'date':
      return scanDates(text, { order: ctx.dateOrder }).map((m) => ({ start: m.start, end: m.end, value: m.iso, quality: m.quality }));
    case 'boolean':
      return scanBooleans(text).map((m) => ({ start: m.start, end: m.end, value: m.value, quality: m.kind === 'glyph' ? 1 : 0.95 }));
    default: {
      if (ctx.format) {
        const re = new RegExp(FORMATS[ctx.format].source, FORMATS[ctx.format].flags);
        const found = [...text.matchAll(re)].map((m) => {
          const raw = m[0];
          let value: string = raw.trim();
          if (ctx.format === 'currency') value = SYMBOL_CODES[value] ?? value.toUpperCase();
          if (ctx.format === 'iban' || ctx.format === 'bic') value = value.replace(/\s+/g, '');
          return { start: m.index!, end: m.index! + raw.length, value, quality: 1 };
        }).filter((m) => ctx.format !== 'taxid' || (String(m.value).match(/\d/g)?.length ?? 0) >= 6);
        // company names without a legal form are still names: the whole text, read with less certainty
        if (ctx.format === 'company') {
          if (found.length) return found;
          const whole = scanTyped(text, 'string', {});
          return whole.map((m) => ({ ...m, quality: 0.9 }));
        }
        return found;
      }
      const lead = text.length - text.trimStart().length;
      const t = text.trim().replace(/[\s:;,]+$/, '');
      return t ? [{ start: lead, end: lead + t.length, value: t, quality: 1 }] : [];
    }
  }
}

function maskDatesAndTimes(text: string, ctx: ParseContext): string {
  let out = text;
  const blank = (s: number, e: number) => (out = out.slice(0, s) + ' '.repeat(e - s) + out.slice(e));
  for (const d of scanDates(text, { order: ctx.dateOrder })) blank(d.start, d.end);
  for (const m of text.matchAll(/(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)/g)) blank(m.index!, m.index! + m[0].length);
  // codes mixing letters and digits (IBZY2087, NL810433941B01, 06AABCO6063D1ZQ) are not numbers
  for (const m of text.matchAll(/[\p{L}\p{N}]*(?:\p{L}\p{N}|\p{N}\p{L})[\p{L}\p{N}]*/gu)) {
    if (/^(?:RM|Rs|US|EUR|USD|INR|GBP)\d/i.test(m[0]) || /^\d+(?:st|nd|rd|th|x|%|k|m)$/i.test(m[0])) continue;
    blank(m.index!, m.index! + m[0].length);
  }
  return out;
}

/**
 * How much of `region` the match covers, ignoring punctuation, currency marks and whitespace: 1 when the
 * region is just the value, lower when other words sit next to it.
 */
export function coverage(region: string, m: { start: number; end: number }): number {
  const strip = (s: string) => s.replace(/[\s\p{P}\p{S}]+/gu, '').replace(/\b(?:USD|EUR|GBP|INR|MYR|Rs|RM)\b/gi, '');
  const rest = strip(region.slice(0, m.start)) + strip(region.slice(m.end));
  const val = strip(region.slice(m.start, m.end));
  if (!rest) return 1;
  return val.length / (val.length + rest.length);
}

export interface Coerced {
  value: unknown;
  /** false when the value had to be read out of other text or converted */
  clean: boolean;
}

/** Converts a loosely typed value (an LLM's answer, a form value) to the field's type. */
export function coerceValue(raw: unknown, field: FieldDefinition, ctx: ParseContext = {}): Coerced {
  if (raw === null || raw === undefined || raw === '') return { value: null, clean: true };
  switch (field.type) {
    case 'number': {
      if (typeof raw === 'number') return { value: Number.isFinite(raw) ? raw : null, clean: Number.isFinite(raw) };
      const s = String(raw);
      const exact = parseNumber(s, { decimal: ctx.decimal });
      if (exact !== null) return { value: exact, clean: true };
      const found = scanTyped(s, 'number', ctx);
      return { value: found.length ? (found[0]!.value as number) : null, clean: false };
    }
    case 'date': {
      const s = String(raw);
      const exact = parseDate(s, { order: ctx.dateOrder });
      if (exact) return { value: exact, clean: true };
      const found = scanDates(s, { order: ctx.dateOrder });
      return { value: found.length ? found[0]!.iso : null, clean: false };
    }
    case 'boolean': {
      const b = parseBoolean(raw as string);
      return { value: b, clean: b !== null };
    }
    case 'array': {
      const list = Array.isArray(raw) ? raw : [raw];
      const item = field.items ?? { name: 'item', type: 'string' };
      const out = list.map((x) => coerceValue(x, item, ctx));
      return { value: out.map((o) => o.value), clean: Array.isArray(raw) && out.every((o) => o.clean) };
    }
    case 'object': {
      if (typeof raw !== 'object' || Array.isArray(raw)) return { value: null, clean: false };
      const props = field.properties ?? {};
      const out: Record<string, unknown> = {};
      let clean = true;
      for (const [k, def] of Object.entries(props)) {
        const c = coerceValue((raw as Record<string, unknown>)[k], { ...def, name: def.name ?? k }, ctx);
        out[k] = c.value;
        clean &&= c.clean;
      }
      return { value: out, clean };
    }
    default:
      if (typeof raw === 'object') return { value: JSON.stringify(raw), clean: false };
      return { value: String(raw).trim(), clean: true };
  }
}

/** A string for comparison: Unicode-normalised, lower case, whitespace collapsed, no spaces around punctuation. */
export function normaliseText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’`´]/g, "'")
    .replace(/[“”„]/g, '"')
    .replace(/\s+/g, ' ')
    .replace(/\s*([\p{P}])\s*/gu, '$1')
    .replace(/[\s.,;:]+$/, '')
    .trim();
}

/**
 * A value in a comparable form for ground truth: numbers as numbers (from "€ 1.234,56" or 1234.56),
 * dates as YYYY-MM-DD, booleans as booleans, strings through normaliseText; arrays and objects member-wise.
 * Empty values become null.
 */
export function normaliseValue(value: unknown, type: FieldType | FieldDefinition, ctx: ParseContext = {}): unknown {
  const def: FieldDefinition = typeof type === 'string' ? { name: 'value', type } : type;
  if (value === null || value === undefined || (typeof value === 'string' && !value.trim())) return null;
  switch (def.type) {
    case 'number': {
      const n = typeof value === 'number' ? value : parseNumber(String(value), { decimal: ctx.decimal });
      return n === null ? normaliseText(String(value)) : Math.round(n * 1e6) / 1e6;
    }
    case 'date': {
      const d = parseDate(value instanceof Date ? value : String(value), { order: ctx.dateOrder });
      return d ?? normaliseText(String(value));
    }
    case 'boolean': {
      const b = parseBoolean(value as string);
      return b ?? normaliseText(String(value));
    }
    case 'array': {
      const list = Array.isArray(value) ? value : [value];
      return list.map((x) => normaliseValue(x, def.items ?? 'string', ctx));
    }
    case 'object': {
      if (typeof value !== 'object') return normaliseText(String(value));
      const out: Record<string, unknown> = {};
      const props = def.properties ?? {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = normaliseValue(v, props[k] ?? 'string', ctx);
      return out;
    }
    default:
      return typeof value === 'object' ? JSON.stringify(value) : normaliseText(String(value));
  }
}
