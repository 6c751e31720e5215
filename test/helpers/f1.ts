/** Word-level F1 between a parse and a reference text (markdown syntax stripped, lowercase word multisets). */
export function stripMarkdown(md: string): string {
  return md
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/gm, ' ')
    .replace(/[#*_`|>]/g, ' ');
}

export function words(text: string): string[] {
  return (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 0);
}

export function wordF1(predicted: string, reference: string): { f1: number; precision: number; recall: number } {
  const p = words(predicted);
  const r = words(reference);
  const counts = new Map<string, number>();
  for (const w of r) counts.set(w, (counts.get(w) ?? 0) + 1);
  let hit = 0;
  for (const w of p) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      hit++;
      counts.set(w, c - 1);
    }
  }
  const precision = p.length ? hit / p.length : 0;
  const recall = r.length ? hit / r.length : 0;
  return { f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, precision, recall };
}
