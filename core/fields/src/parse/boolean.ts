/**
 * Booleans as printed: checkbox glyphs (☒ ☑ ✓ ✔ ■ ▣ checked; ☐ □ ◻ empty; ✗ ✘ a "no" mark), bracketed
 * boxes ([x] / [ ]), and words in several languages (yes/no, true/false, ja/nein, oui/non, x).
 */

export interface BooleanMatch {
  start: number;
  end: number;
  value: boolean;
  /** glyph: a checkbox mark; word: yes/no words */
  kind: 'glyph' | 'word';
}

export const CHECKED_GLYPHS = '☒☑✓✔■▣◼⊠⊗●◉';
export const UNCHECKED_GLYPHS = '☐□◻❏○◯';
export const NO_GLYPHS = '✗✘';

const TRUE_WORDS = ['yes', 'y', 'true', 'checked', 'selected', 'on', 'x', 'ja', 'oui', 'si', 'sí', 'sim', 'wahr', 'vrai'];
const FALSE_WORDS = ['no', 'n', 'false', 'unchecked', 'unselected', 'off', 'nein', 'non', 'nee', 'não', 'nao', 'falsch', 'faux'];

/** words that are a value only when they are the whole value ("on" and "x" are common in running text) */
const WHOLE_ONLY = new Set(['x', 'y', 'n', 'on', 'off', 'si', 'sí', 'sim', 'non']);

const GLYPH_RE = new RegExp(`\\[\\s*[xX✓✔]\\s*\\]|\\[\\s*\\]|\\(\\s*[xX]\\s*\\)|[${CHECKED_GLYPHS}${UNCHECKED_GLYPHS}${NO_GLYPHS}]`, 'gu');
const WORD_RE = new RegExp(`(?<![\\p{L}\\p{N}])(${[...TRUE_WORDS, ...FALSE_WORDS].sort((a, b) => b.length - a.length).map((w) => w.replace('/', '\\/')).join('|')})(?![\\p{L}\\p{N}])`, 'giu');

function glyphValue(g: string): boolean {
  if (/^\[\s*\]$/.test(g)) return false;
  if (g.startsWith('[') || g.startsWith('(')) return true;
  return CHECKED_GLYPHS.includes(g);
}

/** Checkbox marks and yes/no words in `text`, with offsets. Short words (x, y, n, on, off) only as whole values. */
export function scanBooleans(text: string): BooleanMatch[] {
  const out: BooleanMatch[] = [];
  for (const m of text.matchAll(GLYPH_RE)) out.push({ start: m.index!, end: m.index! + m[0].length, value: glyphValue(m[0]), kind: 'glyph' });
  const whole = text.trim().length <= 3;
  for (const m of text.matchAll(WORD_RE)) {
    const w = m[0].toLowerCase();
    if (WHOLE_ONLY.has(w) && !whole) continue;
    if (out.some((o) => o.start < m.index! + w.length && m.index! < o.end)) continue;
    out.push({ start: m.index!, end: m.index! + m[0].length, value: TRUE_WORDS.includes(w), kind: 'word' });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** A boolean from a value that is one mark or word ("☒", "[ ]", "Yes", "false", "x"), or null. */
export function parseBoolean(text: unknown): boolean | null {
  if (typeof text === 'boolean') return text;
  if (typeof text === 'number') return text === 1 ? true : text === 0 ? false : null;
  if (typeof text !== 'string') return null;
  const t = text.trim().toLowerCase().replace(/[.!]$/, '');
  if (!t) return null;
  if (t === '1') return true;
  if (t === '0') return false;
  const found = scanBooleans(t);
  if (found.length !== 1) return null;
  const m = found[0]!;
  const rest = (t.slice(0, m.start) + t.slice(m.end)).replace(/[\s:]+/g, '');
  return rest ? null : m.value;
}
