/**
 * Combined files for the split tests and bench/split.ts: corpus PDFs joined with pdf-lib in a seeded random
 * order (their true boundaries known), and scanned receipts as the pages of one PDF.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { corpusManifest } from './corpus.js';
import type { CorpusEntry } from './corpus.js';

/** A small seeded generator (LCG), so that a run draws the same combinations every time. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The corpus PDFs to combine: those with a text layer, or every PDF (scans are OCRed) with `scans`. */
export function splitPool(root: string, opts: { scans?: boolean } = {}): CorpusEntry[] {
  return corpusManifest(root).filter((e) => e.format === 'pdf' && (opts.scans || ((e as { text_layer_chars?: number }).text_layer_chars ?? 0) > 0));
}

/** `n` combinations of 3 to `max` different documents each. */
export function drawCombos(pool: CorpusEntry[], n: number, seed: number, max = 4): CorpusEntry[][] {
  const next = seeded(seed);
  const out: CorpusEntry[][] = [];
  for (let i = 0; i < n; i++) {
    const k = 3 + Math.floor(next() * (max - 2));
    const pick: CorpusEntry[] = [];
    while (pick.length < Math.min(k, pool.length)) {
      const e = pool[Math.floor(next() * pool.length)]!;
      if (!pick.includes(e)) pick.push(e);
    }
    out.push(pick);
  }
  return out;
}

/** The documents joined into one PDF (pages copied with pdf-lib) and the first page of each. */
export async function joinPdfs(root: string, entries: CorpusEntry[]): Promise<{ bytes: Uint8Array; starts: number[]; pages: number }> {
  const joined = await PDFDocument.create();
  const starts: number[] = [];
  for (const e of entries) {
    const src = await PDFDocument.load(fs.readFileSync(path.join(root, e.path)), { ignoreEncryption: true });
    starts.push(joined.getPageCount() + 1);
    for (const p of await joined.copyPages(src, src.getPageIndices())) joined.addPage(p);
  }
  return { bytes: await joined.save(), starts, pages: joined.getPageCount() };
}

/** The corpus's scanned receipts (JPEG files), sorted by name. */
export function receiptFiles(root: string): string[] {
  const dir = path.join(root, 'receipts', 'files');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.jpe?g$/i.test(f)).sort().map((f) => path.join(dir, f)) : [];
}

/**
 * Scanned receipts as the pages of one PDF, one receipt a page, every page of the same size (a receipt
 * scanner's long page, 300 x 850 pt), so that the paper size says nothing about where a receipt ends. (A narrow
 * receipt drawn small on an A4 page is not read by OCR at the resolution pages are rendered at.)
 */
export async function receiptsPdf(files: string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const [w, h] = [300, 850];
  for (const f of files) {
    const img = await pdf.embedJpg(fs.readFileSync(f));
    const page = pdf.addPage([w, h]);
    const scale = Math.min((w - 20) / img.width, (h - 20) / img.height);
    page.drawImage(img, { x: 10, y: h - 10 - img.height * scale, width: img.width * scale, height: img.height * scale });
  }
  return pdf.save();
}

/** Boundary precision and recall: boundaries are the first pages of every document but the first. */
export function boundaryCounts(want: number[], got: number[]): { tp: number; fp: number; fn: number; exact: boolean } {
  const w = new Set(want.filter((p) => p > 1));
  const g = new Set(got.filter((p) => p > 1));
  const tp = [...g].filter((p) => w.has(p)).length;
  return { tp, fp: g.size - tp, fn: w.size - tp, exact: tp === w.size && g.size === w.size };
}
