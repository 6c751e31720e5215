/** Word-level F1 between a parse and a reference text (markdown syntax stripped, lowercase word multisets). */
/** Markdown → plain words: drops comments, table rules, emphasis, list markers, link targets. */
export function stripMarkdown(md: string): string {
  return md
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/gm, ' ')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s*)?/gm, '')
    .replace(/\[[ xX]\]/g, ' ')
    .replace(/[*_`|]/g, ' ');
}

export function words(text: string): string[] {
  return (text.toLowerCase().replace(/[’‘`´]/g, "'").replace(/[“”]/g, '"').match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** F1 over lowercase word multisets. */
export function wordF1(candidate: string, reference: string): { f1: number; precision: number; recall: number } {
  const count = (ws: string[]) => {
    const m = new Map<string, number>();
    for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  };
  const a = count(words(candidate));
  const b = count(words(reference));
  let common = 0;
  for (const [w, n] of a) common += Math.min(n, b.get(w) ?? 0);
  const na = [...a.values()].reduce((x, y) => x + y, 0);
  const nb = [...b.values()].reduce((x, y) => x + y, 0);
  const precision = na ? common / na : 0;
  const recall = nb ? common / nb : 0;
  return { f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, precision, recall };
}
