/**
 * OCR damage around printed dates, repaired without moving offsets (the repaired text has the length of the
 * original): a space OCR put after a separator ("28-03- 18", "28- 03-18") moves to the end of the date, and a
 * letter OCR glued to a slashed date ("Dater11/03/18" for "Date:11/03/18") becomes a space. Dates found only
 * in the repaired text are read with less certainty (see datesOf).
 */
import { scanTyped, type ParseContext, type TypedMatch } from '@quire/fields';

export function repairDateText(text: string): string {
  text = text.replace(/(?<![\d.,])(\d{1,2})([-/.])( ?)(\d{1,2})\2( ?)(\d{4}|\d{2})(?![\d.,:])/g, (m, d: string, s: string, a: string, mo: string, b: string, y: string) => (a || b ? `${d}${s}${mo}${s}${y}${a}${b}` : m));
  return text.replace(/(?<=\p{L}{2})\p{L}(?=\d{1,2}\/\d{1,2}\/(?:\d{4}|\d{2})(?![\d/]))/gu, ' ');
}

/** Dates of a text; when it holds none, those of its repaired reading at 0.9 of their quality. */
export function datesOf(text: string, ctx: ParseContext): TypedMatch[] {
  const found = scanTyped(text, 'date', ctx);
  if (found.length) return found;
  const fixed = repairDateText(text);
  return fixed === text ? found : scanTyped(fixed, 'date', ctx).map((m) => ({ ...m, quality: m.quality * 0.9 }));
}
