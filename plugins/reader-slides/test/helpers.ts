/** Test helpers: the shared corpus (when present) and word-level F1 against its reference text. */
import fs from 'node:fs';
import path from 'node:path';

export interface CorpusFile {
  id: string;
  path: string;
  format: string;
  category?: string;
  tables?: number;
  pages?: number | null;
  ground_truth?: { path: string; kind: string }[];
}

/** The corpus root (env QUIRE_CORPUS, else ../shared/corpus from the project root), or null when absent. */
export function corpusRoot(): string | null {
  const root = process.env.QUIRE_CORPUS ?? path.resolve(process.cwd(), '../shared/corpus');
  return fs.existsSync(path.join(root, 'manifest.json')) ? root : null;
}

export function corpusFiles(formats: string[]): { root: string; files: CorpusFile[] } | null {
  const root = corpusRoot();
  if (!root) return null;
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'manifest.json'), 'utf8')) as { files: CorpusFile[] };
  return { root, files: manifest.files.filter((f) => formats.includes(f.format)) };
}

/** Reference text of a corpus file (markdown or plain text ground truth), or null. */
export function referenceText(root: string, file: CorpusFile): string | null {
  const gt = file.ground_truth?.find((g) => g.kind === 'markdown' || g.kind === 'plain_text');
  return gt ? fs.readFileSync(path.join(root, gt.path), 'utf8') : null;
}

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
