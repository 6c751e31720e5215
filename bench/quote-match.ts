import fs from 'node:fs';
import path from 'node:path';
import { quoteInText, unsupportedNumbers } from '@quire/text';
// sentences of the corpus ground-truth texts as quotes: verbatim, with a slip, with a changed word, from another document
const root = path.join(process.env.QUIRE_CORPUS ?? '/work/shared/corpus', 'groundtruth');
const texts: string[] = [];
for (const d of fs.readdirSync(root)) for (const f of fs.readdirSync(path.join(root, d))) if (f.endsWith('.md')) texts.push(fs.readFileSync(path.join(root, d, f), 'utf8'));
const sentences = (t: string) => t.split(/(?<=[.!?])\s+|\n+/).map((x) => x.trim()).filter((x) => x.length >= 30 && x.length <= 300);
let verb = 0, verbOk = 0, typo = 0, typoOk = 0, foreign = 0, foreignOk = 0, swapped = 0, swappedOk = 0, numChanged = 0, numCaught = 0;
const perDoc: number[] = [];
for (const [i, t] of texts.entries()) {
  const ss = sentences(t).slice(0, 40);
  let okHere = 0;
  for (const s of ss) {
    verb++; if (quoteInText(t, s)) { verbOk++; okHere++; }
    // two letters swapped (an OCR-like slip), typographic quotes
    const k = Math.floor(s.length / 2);
    const slip = (s.slice(0, k) + s[k + 1] + s[k] + s.slice(k + 2)).replace(/'/g, '\u2019');
    typo++; if (quoteInText(t, slip)) typoOk++;
    // a sentence with a word replaced by another (a changed claim)
    const words = s.split(' ');
    if (words.length >= 6) {
      const w = words.map((x, j) => (j === Math.floor(words.length / 2) ? 'never' : x)).join(' ');
      swapped++; if (quoteInText(t, w)) swappedOk++;
    }
    const m = /\d+/.exec(s);
    if (m) { numChanged++; const changed = s.replace(m[0], String(Number(m[0]) + 7)); if (unsupportedNumbers(changed, [s]).length) numCaught++; }
  }
  if (ss.length) perDoc.push(okHere / ss.length);
  const other = texts[(i + 1) % texts.length]!;
  for (const s of sentences(other).slice(0, 40)) { if (t.includes(s)) continue; foreign++; if (quoteInText(t, s)) foreignOk++; }
}
const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(1)} %)`;
console.log('docs', texts.length);
console.log('verbatim quotes accepted', pct(verbOk, verb), 'per-doc min', Math.min(...perDoc).toFixed(2));
console.log('one transposition + typographic apostrophe accepted', pct(typoOk, typo));
console.log('one word replaced by "never" accepted (edit within tolerance)', pct(swappedOk, swapped));
console.log('sentences of another document accepted', pct(foreignOk, foreign));
console.log('answers with a number changed caught', pct(numCaught, numChanged));
