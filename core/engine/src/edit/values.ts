/**
 * Values and the fields they go into: the part of a stated value a field of a given type and length can
 * hold (a date field takes only the date of "4 April 1990, female", a nine-box SSN comb the digits of
 * "123-45-6789", a radio one of its options), and whether a value read back from a filled file is the one
 * that was asked for (case, spaces, date and number formats aside).
 */
import type { EditElement } from '@quire/core';
import { parseBoolean, parseDate, parseNumber, scanDates, scanTyped } from '@quire/fields';
import { english, fold } from './match.js';

/** Separators an identifier is written with ("123-45-6789", "(217) 555-0134", "V1Y 2B3"). */
const SEPARATORS = /[\s\-./()]+/g;
/** A value made of digits and separators only: an identifier, a phone number, a code. */
const DIGITS_ONLY = /^\+?[\d\s\-./()]+$/;

const dateOrder = (e: EditElement) => (e.format && /^M/i.test(e.format) ? 'MDY' : 'DMY');
const optionLabel = (e: EditElement, i: number) => e.option_labels?.[i] || e.options?.[i] || '';

/** The option of a radio or dropdown a value names (the option itself or its printed caption), or null. */
export function optionFor(e: EditElement, value: string): string | null {
  const v = fold(value).trim();
  if (!v || !e.options?.length) return null;
  const names = e.options.map((o, i) => [o, fold(o).trim(), fold(optionLabel(e, i)).trim()] as const);
  const exact = names.find(([, o, l]) => o === v || l === v);
  if (exact) return exact[0];
  const prefix = names.filter(([, o, l]) => [o, l].some((n) => n.length > 1 && (n.startsWith(v) || v.startsWith(n))));
  if (prefix.length === 1) return prefix[0]![0];
  // the value and the options in English words ("féminin", "mujer" for Female; "female" for weiblich)
  const en = english(value);
  if (!en) return null;
  const hits = e.options.filter((o, i) => english(o) === en || english(optionLabel(e, i)) === en);
  return hits.length === 1 ? hits[0]! : null;
}

/** A field that takes several of its options: a multi-select list, a "check all that apply" group of checkboxes. */
export const multiChoice = (e: EditElement) => !!e.multi && (e.type === 'dropdown' || (e.type === 'checkbox' && !!e.options?.length));

/** The options a value names, each once, in the element's order: a list, or a text cut at commas, semicolons and "and"; null when a part names none. */
export function optionsFor(e: EditElement, value: unknown): string[] | null {
  const parts = (Array.isArray(value) ? value.map(String) : [String(value ?? '')]).filter((p) => p.trim());
  const chosen = new Set<string>();
  for (const p of parts) {
    // each part of a list an option ("SQL Server and Oracle"), else the whole one ("Married, filing jointly")
    const each = p.split(/\s*[,;&]\s*|\s+(?:and|et|und|y|en)\s+/i).filter((x) => x.trim()).map((q) => optionFor(e, q));
    // (the whole named exactly: a prefix of it would be its first part)
    const exact = (e.options ?? []).find((o, i) => fold(o).trim() === fold(p).trim() || fold(optionLabel(e, i)).trim() === fold(p).trim()) ?? null;
    const found = each.every((o) => o !== null) ? (each as string[]) : [exact];
    if (found.some((o) => o === null)) return null;
    for (const o of found) chosen.add(o!);
  }
  return (e.options ?? []).filter((o) => chosen.has(o));
}

export interface Fitted {
  value: string | boolean;
  /** why the stated value was narrowed, when it was */
  note?: string;
}

/**
 * The part of a stated value an element can hold, or null when the value is of another kind (a date field
 * given no date, a number field no number, a radio none of its options, a checkbox no yes or no).
 */
export function fitValue(e: EditElement, stated: string | boolean): Fitted | null {
  if (e.type === 'signature') return null;
  if (multiChoice(e)) {
    if (typeof stated === 'boolean') return null;
    const all = optionsFor(e, stated);
    if (all?.length) return { value: all.join(', ') };
    // the parts that name an option ("Earth, Mars and Pluto" where Pluto is none)
    const chosen = stated.split(/\s*[,;&]\s*|\s+(?:and|et|und|y|en)\s+/i).map((p) => optionFor(e, p)).filter((o): o is string => o !== null);
    return chosen.length ? { value: [...new Set(chosen)].join(', ') } : null;
  }
  if (e.type === 'checkbox') {
    if (typeof stated === 'boolean') return { value: stated };
    const b = parseBoolean(stated.trim().toLowerCase());
    return b === null ? null : { value: b };
  }
  if (typeof stated === 'boolean') return null;
  const text = stated.trim();
  if (!text) return null;
  if (e.type === 'radio' || e.type === 'dropdown') {
    const whole = optionFor(e, text);
    if (whole) return { value: whole };
    // "female, born 1990": the first part that names an option
    for (const part of text.split(/\s*[,;]\s*|\s+and\s+/)) {
      const o = optionFor(e, part);
      if (o) return { value: o, note: `the option "${o}" of "${text}"` };
    }
    return null;
  }
  if (e.type === 'date_field') {
    const d = scanDates(text, { order: dateOrder(e) })[0];
    if (!d) return null;
    const date = text.slice(d.start, d.end);
    return date === text ? { value: text } : { value: date, note: `the date of "${text}"` };
  }
  if (e.type === 'number_field') {
    if (parseNumber(text) !== null) return { value: text };
    const n = scanTyped(text, 'number')[0];
    if (!n) return null;
    const num = text.slice(n.start, n.end);
    return { value: num, note: `the number of "${text}"` };
  }
  // text: what the field holds; an identifier its digits when the separators do not fit
  let value = text;
  let note: string | undefined;
  if (e.max_length && [...value].length > e.max_length && DIGITS_ONLY.test(value)) {
    const compact = value.replace(SEPARATORS, '');
    if ([...compact].length <= e.max_length) {
      note = `"${value}" without separators, for the field's ${e.max_length} characters`;
      value = compact;
    }
  }
  // a value longer than the field holds is not for this field (it would be cut)
  if (e.max_length && [...value].length > e.max_length) return null;
  return { value, ...(note ? { note } : {}) };
}

const plain = (s: unknown) => fold(String(s ?? '')).replace(/[\s.,:;/\\\-_'"()]+/g, '');

/**
 * Whether a value read back from a field is the one asked for: booleans as booleans, options by option or
 * caption, dates as dates and numbers as numbers, identifiers by their digits, text without case, spaces
 * and punctuation.
 */
export function sameValue(e: EditElement | undefined, got: unknown, want: unknown): boolean {
  if (typeof got === 'boolean' || typeof want === 'boolean') {
    const w = typeof want === 'boolean' ? want : parseBoolean(String(want ?? '').trim().toLowerCase()) ?? ['x', 'on', 'checked'].includes(String(want).trim().toLowerCase());
    const g = typeof got === 'boolean' ? got : parseBoolean(String(got ?? '').trim().toLowerCase());
    return g === w;
  }
  if (e && multiChoice(e)) {
    // a set of options, in any order, named by option or caption
    const og = optionsFor(e, got), ow = optionsFor(e, want);
    if (og && ow) return og.join('\u0000') === ow.join('\u0000');
  }
  const g = Array.isArray(got) ? got.join(', ') : String(got ?? '');
  const w = Array.isArray(want) ? want.join(', ') : String(want ?? '');
  if (plain(g) === plain(w)) return !!plain(w) || !g.trim();
  if (e && (e.type === 'radio' || e.type === 'dropdown') && !e.multi) {
    const og = optionFor(e, g), ow = optionFor(e, w);
    return og !== null && og === ow;
  }
  if (e?.type === 'date_field' || (scanDates(w).length === 1 && scanDates(g).length === 1)) {
    const order = e ? dateOrder(e) : 'DMY';
    const dg = parseDate(g, { order }), dw = parseDate(w, { order });
    if (dg && dw) return dg === dw;
  }
  if (e?.type === 'number_field') {
    const ng = parseNumber(g), nw = parseNumber(w);
    if (ng !== null && nw !== null) return Math.abs(ng - nw) < 1e-9;
  }
  if (DIGITS_ONLY.test(g) && DIGITS_ONLY.test(w)) return g.replace(/\D/g, '') === w.replace(/\D/g, '');
  return false;
}
