/**
 * The light English stemmer of the search side: the local embedder's word features and the embedded
 * vector store's keyword (BM25) terms use this one function, so that both sides reduce a word alike.
 */

const VOWEL = /[aeiouy]/;

/** A light English suffix stripper (plural, -ing, -ed, -ly, -ation, -ment, -ness, -ies). Expects a lower-cased word. */
export function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = s.slice(0, -3) + 'y';
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (s.endsWith('s') && !s.endsWith('ss') && !s.endsWith('us') && !s.endsWith('is')) s = s.slice(0, -1);
  if (s.endsWith('ational') && s.length > 8) s = s.slice(0, -5) + 'e';
  else if (s.endsWith('ation') && s.length > 7) s = s.slice(0, -5) + 'e';
  else if (s.endsWith('ness') && s.length > 6) s = s.slice(0, -4);
  else if (s.endsWith('ment') && s.length > 6) s = s.slice(0, -4);
  else if (s.endsWith('ingly') && s.length > 7) s = s.slice(0, -5);
  else if (s.endsWith('ing') && s.length > 5 && VOWEL.test(s.slice(0, -3))) s = undouble(s.slice(0, -3));
  else if (s.endsWith('edly') && s.length > 6) s = s.slice(0, -4);
  else if (s.endsWith('ed') && s.length > 4 && VOWEL.test(s.slice(0, -2))) s = undouble(s.slice(0, -2));
  else if (s.endsWith('ly') && s.length > 5) s = s.slice(0, -2);
  if (s.endsWith('e') && s.length > 3) s = s.slice(0, -1); // rate/rated/rating → rat, make/making → mak
  return s;
}

function undouble(s: string): string {
  const n = s.length;
  if (n > 3 && s[n - 1] === s[n - 2] && !'lsz'.includes(s[n - 1]!)) return s.slice(0, -1);
  return s;
}
