/** Text helpers shared by the readers that lay out lines (images through OCR, PDF pages). */

const BULLET = /^\s*(?:[•◦▪▫‣⁃●○■□➢►▸▹❖✓✔\u2022\u2023\u2043\u25aa\u25cf\uf0b7\uf0a7\uf076\uf0d8]|[-–—*·](?=\s))\s*/u;
const NUMBERED = /^\s*(?:\(?\d{1,3}(?:\.\d{1,3})*[.)]|\(?[a-z][.)]|\(?(?:i|ii|iii|iv|v|vi|vii|viii|ix|x|xi|xii)[.)]|\([A-Z]\)|[A-Z]\))\s+(?=\S)/i;

/** True when the line starts like a list item: a bullet or a number/letter with a dot or parenthesis. */
export function isListItem(text: string): boolean {
  return BULLET.test(text) || NUMBERED.test(text);
}

/** True when the text is only a bullet glyph (bullets drawn apart from their text). */
export function isBulletOnly(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.length <= 2 && BULLET.test(t + ' x');
}

/**
 * `Label: value` lines: a short label (1-6 words, with a letter, not a time or URL) and a non-empty value.
 * Returns null for anything else.
 */
export function parseKeyValue(text: string): { key: string; value: string } | null {
  const t = text.trim();
  if (t.length > 200) return null;
  const m = /^([^:]{1,48}?)\s*:\s*(\S.*)$/u.exec(t);
  if (!m) return null;
  const key = m[1]!.trim();
  const value = m[2]!.trim();
  if (!/\p{L}/u.test(key)) return null;
  // labels start like labels ("Invoice number", "Date", "2. Total"); a lowercase start is a sentence going on
  if (/^\p{Ll}/u.test(key) || key.includes(',')) return null;
  if (value.length > 100) return null;
  if (/\d$/.test(key) && /^\d/.test(value)) return null; // 10:30
  if (/^\/\//.test(value)) return null; // http://
  if (key.split(/\s+/).length > 6) return null;
  if (isListItem(key) && key.split(/\s+/).length > 4) return null;
  if (!/\s/.test(t.slice(t.indexOf(':') + 1, t.indexOf(':') + 2)) && !/^\d/.test(value)) return null;
  return { key, value };
}

/**
 * Joins the lines of a paragraph with spaces. A line ending in a soft hyphen is always joined to the next
 * word; one ending in "-" after a lowercase letter is joined without the hyphen when the next line starts
 * with a lowercase letter (a word broken at the line end). Other hyphens are kept.
 */
export function joinLines(lines: string[]): string {
  let out = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (!out) {
      out = line;
      continue;
    }
    if (out.endsWith('\u00ad')) {
      out = out.slice(0, -1) + line;
    } else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(line) && !/(?:^|\s)\S-$/u.test(out)) {
      out = out.slice(0, -1) + line;
    } else if (/[\p{L}\p{N}][\u2010-]$/u.test(out) && /^[\p{Lu}\p{N}]/u.test(line)) {
      out += line; // "self-" + "Employed", "2019-" + "2020": keep the hyphen, no space
    } else {
      out += ' ' + line;
    }
  }
  return out.replace(/\u00ad/g, '');
}

/** Removes characters that must never reach the text: NUL, form feeds and other C0/C1 controls except tab/newline. */
export function cleanText(s: string): string {
  // most text has none of them: no regex pass
  let clean = true;
  for (let i = 0; i < s.length && clean; i++) {
    const c = s.charCodeAt(i);
    clean = c >= 0x20 ? c < 0x7f || (c > 0x9f && c < 0xfffe) : c === 9 || c === 10;
  }
  if (clean) return s;
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffe\uffff]/g, (c) => (c === '\f' || c === '\u000b' ? ' ' : ''));
}
