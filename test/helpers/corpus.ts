/** The shared corpus for tests: present in CI and on developers' machines, absent on a newcomer's clone. */
import fs from 'node:fs';
import path from 'node:path';

export interface CorpusFile {
  id: string;
  path: string;
  format: string;
  category?: string;
  tables?: number;
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
