/**
 * Values written the way the field asks: dates in the form's pattern, numbers as digits, an identifier
 * without its separators when only that fits the field's maximum length, other text cut to that length (a
 * combed field has one box a character). What cannot be formatted is written as
 * given, with a warning naming the field.
 */
import { parseBoolean, parseDate, parseNumber } from '@quire/fields';
import type { EditElement } from '@quire/core';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** An ISO date (YYYY-MM-DD) in a pattern of YYYY/YY, MMMM/MMM/MM/M, DD/D (e.g. MM/DD/YYYY, DD.MM.YYYY). */
export function formatDate(iso: string, pattern: string): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return pattern.replace(/YYYY|YY|MMMM|MMM|MM|M|DD|D/g, (t) => {
    switch (t) {
      case 'YYYY': return String(y).padStart(4, '0');
      case 'YY': return String(y % 100).padStart(2, '0');
      case 'MMMM': return MONTHS[m - 1]!;
      case 'MMM': return MONTHS[m - 1]!.slice(0, 3);
      case 'MM': return String(m).padStart(2, '0');
      case 'M': return String(m);
      case 'DD': return String(d).padStart(2, '0');
      default: return String(d);
    }
  });
}

export interface Formatted {
  value: string | boolean | string[];
  warning?: string;
}

/** Whether a value means "checked" (true, "yes", "x", "on", "checked", ☒ …). */
export function truthy(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  const s = String(v ?? '').trim().toLowerCase();
  if (['x', 'on', 'checked', 'check', 'selected', 'tick', 'ticked'].includes(s)) return true;
  if (['', 'off', 'unchecked', 'none'].includes(s)) return false;
  return parseBoolean(s) ?? true;
}

/** The value to write into an element. `raw` skips formatting (the mapping's `formatted: true`). */
export function formatValue(el: EditElement, value: unknown, raw = false): Formatted {
  // a multi choice (a list box, a "check all that apply" group): the options named, as a list
  if (el.multi && (el.type === 'dropdown' || el.type === 'checkbox')) return { value: Array.isArray(value) ? value.map(String) : String(value ?? '').split(/\s*[,;]\s*/).filter(Boolean) };
  if (el.type === 'checkbox') return { value: truthy(value) };
  let text = Array.isArray(value) ? value.map(String).join(', ') : String(value ?? '');
  let warning: string | undefined;
  if (!raw && el.type === 'date_field' && text) {
    const order = el.format && /^M/i.test(el.format) ? 'MDY' : 'DMY';
    const iso = parseDate(text, { order });
    if (iso) text = formatDate(iso, el.format ?? 'YYYY-MM-DD');
    else warning = `${el.label || el.id}: "${text}" is not a date; written as given`;
  }
  if (!raw && el.type === 'number_field' && text) {
    const n = parseNumber(text);
    if (n === null) warning = `${el.label || el.id}: "${text}" is not a number; written as given`;
  }
  if ((el.type === 'radio' || el.type === 'dropdown') && el.options?.length && text) {
    const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
    const captioned = el.option_labels?.findIndex((l) => l && fold(l) === fold(text)) ?? -1;
    const hit = el.options.find((o) => fold(o) === fold(text)) ?? (captioned >= 0 ? el.options[captioned] : undefined) ?? el.options.find((o) => fold(o).startsWith(fold(text)) || fold(text).startsWith(fold(o)));
    if (hit) text = hit;
  }
  // an identifier written with separators ("123-45-6789") that a nine-box comb cannot hold: its characters alone
  if (el.max_length && [...text].length > el.max_length && /^\+?[\d\s\-./()]+$/.test(text)) {
    const compact = text.replace(/[\s\-./()]+/g, '');
    if ([...compact].length <= el.max_length) text = compact;
  }
  if (el.max_length && [...text].length > el.max_length) {
    warning = `${el.label || el.id}: value cut to the field's ${el.max_length} characters`;
    text = [...text].slice(0, el.max_length).join('');
  }
  return { value: text, ...(warning ? { warning } : {}) };
}
