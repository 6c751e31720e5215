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

// ---- the end-to-end corpus test, split by format group (test/e2e/corpus-*.test.ts, suite in corpus-e2e.ts)

export interface CorpusEntry extends CorpusFile {
  category: string;
  pages?: number;
}

const OCR_FORMATS = new Set(['png', 'jpg', 'tiff', 'gif', 'bmp']);

/** Scans: images and image-only PDFs, read by OCR. */
export const isScan = (e: CorpusEntry) => OCR_FORMATS.has(e.format) || /scanned|image-only/.test(e.category);

/**
 * Format groups of the end-to-end corpus test, one test file each (a single file for all of it came near the
 * per-file time limit on a loaded machine). Every manifest file belongs to exactly one group (checked by
 * test/e2e/corpus-groups.test.ts).
 */
export const CORPUS_GROUPS: Record<string, (e: CorpusEntry) => boolean> = {
  /** born-digital PDFs: reports, papers, invoices, forms */
  pdf: (e) => e.format === 'pdf' && !isScan(e),
  /** image-only PDFs (OCR of rendered pages) */
  'ocr-pdf': (e) => e.format === 'pdf' && isScan(e),
  /** images (OCR) */
  'ocr-images': (e) => OCR_FORMATS.has(e.format),
  /** word processing and text: docx, doc, rtf, html, txt */
  office: (e) => ['docx', 'doc', 'rtf', 'html', 'txt'].includes(e.format),
  /** spreadsheets and presentations: csv, xlsx, xls, pptx, ppt */
  'sheets-slides': (e) => ['csv', 'xlsx', 'xls', 'pptx', 'ppt'].includes(e.format),
};

/**
 * References that leave out content Quire reads (checked by hand): for these, recall against the reference is
 * asserted instead of F1, since the extra words are real content of the file.
 */
export const E2E_REFERENCE_GAPS: Record<string, string> = {
  'docling__pptx_chart.pptx': 'the reference omits the data table of the 3-D chart on slide 2 (Q1 10, Q2 20, Q3 30), which Quire reads from the chart XML',
  'docling__powerpoint_sample.pptx': 'the reference has no speaker notes; Quire reads them into the text (as "Notes:" captions)',
};

/** Every manifest entry of a corpus root. */
export function corpusManifest(root: string): CorpusEntry[] {
  return (JSON.parse(fs.readFileSync(path.join(root, 'manifest.json'), 'utf8')) as { files: CorpusEntry[] }).files;
}

/** The reference title of a corpus file: the first Markdown heading of its docling ground truth, else null. */
export function referenceTitle(root: string, e: { ground_truth?: { path: string; kind: string }[] }): string | null {
  const gt = e.ground_truth?.find((g) => g.kind === 'markdown');
  if (!gt) return null;
  for (const line of fs.readFileSync(path.join(root, gt.path), 'utf8').split('\n')) {
    const m = /^#{1,6}\s+(.+)$/.exec(line.trim());
    if (m) return m[1]!.trim();
  }
  return null;
}
