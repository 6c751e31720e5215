/**
 * OCR damage around printed dates, repaired without moving offsets (the repaired text has the length of the
 * original): a space OCR put after a separator ("28-03- 18", "28- 03-18") moves to the end of the date, and a
 * letter OCR glued to a slashed date ("Dater11/03/18" for "Date:11/03/18") becomes a space. Two misreadings of
 * the glyphs themselves are undone where the date as printed cannot be one: a day or month over 31 whose
 * first digit is a 6 or an 8 (a 0 with a stray mark: "69/02/2018", "05/61/2018") takes a 0 there, and the
 * two separators of a ten-digit run read as the same 7 or 1 ("1770372018" for "17/03/2018") become slashes
 * when the rest is a day, a month and a year of 19xx or 20xx. Dates found only in the repaired text are read
 * with less certainty (see datesOf).
 */
import { scanTyped, type ParseContext, type TypedMatch } from '@quire/fields';

export function repairDateText(text: string): string {
  text = text.replace(/(?<![\d.,])(\d{1,2})([-/.])( ?)(\d{1,2})\2( ?)(\d{4}|\d{2})(?![\d.,:])/g, (m, d: string, s: string, a: string, mo: string, b: string, y: string) => (a || b ? `${d}${s}${mo}${s}${y}${a}${b}` : m));
  text = text.replace(/(?<=\p{L}{2})\p{L}(?=\d{1,2}\/\d{1,2}\/(?:\d{4}|\d{2})(?![\d/]))/gu, ' ');
  text = text.replace(/(?<![\d.,])(\d{2})([-/.])(\d{2})\2(\d{4}|\d{2})(?![\d.,])/g, (m, a: string, s: string, b: string, y: string) => {
    const fix = (p: string, other: string): string => (Number(p) > 31 && /^[68]/.test(p) && Number(other) <= 31 ? `0${p[1]}` : p);
    const a2 = fix(a, b);
    const b2 = fix(b, a2);
    return a2 === a && b2 === b ? m : `${a2}${s}${b2}${s}${y}`;
  });
  return text.replace(/(?<![\d.,/-])(\d{2})([71])(\d{2})\2((?:19|20)\d{2})(?![\d.,/-])/g, (m, d: string, _s: string, mo: string, y: string) => {
    const [x, z] = [Number(d), Number(mo)];
    const ok = x >= 1 && z >= 1 && ((x <= 31 && z <= 12) || (x <= 12 && z <= 31));
    return ok ? `${d}/${mo}/${y}` : m;
  });
}

/** Dates of a text; when it holds none, those of its repaired reading at 0.9 of their quality. */
export function datesOf(text: string, ctx: ParseContext): TypedMatch[] {
  const found = scanTyped(text, 'date', ctx);
  if (found.length) return found;
  const fixed = repairDateText(text);
  return fixed === text ? found : scanTyped(fixed, 'date', ctx).map((m) => ({ ...m, quality: m.quality * 0.9 }));
}
