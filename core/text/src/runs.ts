const NON_ASCII = /[^\x00-\x7f]/;
const RUN = /[\p{L}\p{N}]+/gu;

/**
 * The runs of letters and digits of a text, in order: the words of the local embedder and of the keyword
 * index. ASCII text is scanned by character code, without the Unicode regex.
 */
export function letterDigitRuns(text: string): string[] {
  const out: string[] = [];
  if (NON_ASCII.test(text)) {
    for (const m of text.matchAll(RUN)) out.push(m[0]);
    return out;
  }
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    }
  }
  return out;
}
