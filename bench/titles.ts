/**
 * Document titles on the corpus: every PDF, DOCX and image of the shared corpus read by its reader (images and
 * scans through OCR), then, per file:
 *   - `json`: the document JSON's metadata.title (what /api/pdf-to-json and the document JSON return),
 *   - `split`: the name the splitter gives the file's first section (detectSections),
 *   - `found`: the title found on the first page (findTitle; absent on code without it),
 * against the reference: the first `#` heading of the docling markdown in groundtruth/ when there is one.
 * A title matches when its words and the reference's overlap (word F1 >= 0.8). Summary: matches / none /
 * wrong for the files with a reference, and for the others how many got a title at all (print them with
 * --list to judge by eye: a table row, a footer, an address or OCR noise is wrong).
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx bench/titles.ts [--list] [--no-ocr]
 *
 * Not part of the tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as core from '@quire/core';
import type { ParsedDocument } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import pdfPlugin from '@quire/plugin-reader-pdf';
import imagePlugin from '@quire/plugin-reader-image';
import officePlugin from '@quire/plugin-reader-office';
import { detectSections } from '@quire/plugin-splitter-default';
import { corpusRoot, referenceTitle } from '../test/helpers/corpus.js';
import { wordF1 } from '../test/helpers/f1.js';

const LIST = process.argv.includes('--list');
const NO_OCR = process.argv.includes('--no-ocr');
const root = corpusRoot();
if (!root) {
  console.error('bench/titles: the corpus is not there (QUIRE_CORPUS or ../shared/corpus)');
  process.exit(1);
}

interface ManifestFile {
  id: string;
  path: string;
  format: string;
  category?: string;
  ground_truth?: { path: string; kind: string }[];
}
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'manifest.json'), 'utf8')) as { files: ManifestFile[] };
const IMAGES = ['png', 'jpg', 'jpeg', 'tif', 'tiff'];
const files = manifest.files.filter((f) => f.format === 'pdf' || f.format === 'docx' || (!NO_OCR && IMAGES.includes(f.format)));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-titles-'));
const shared = { 'limits.parseTimeoutMs': 120_000, 'ocr.concurrency': 1 };
const ocr = await ocrPlugin.create(core.pluginContext(ocrPlugin, { shared, dataDir: tmp }));
const tryGet = ((kind: string) => (kind === 'ocr' ? ocr : undefined)) as never;
const pdf = pdfPlugin.create(core.pluginContext(pdfPlugin, { options: { workers: 1, prestart: false }, shared, logger: core.silentLogger, tryGet })) as unknown as { read: Reader; close(): Promise<void> };
const image = (await imagePlugin.create(core.pluginContext(imagePlugin, { dataDir: tmp, shared, tryGet }))) as unknown as { read: Reader };
const office = (await officePlugin.create(core.pluginContext(officePlugin, { dataDir: tmp, shared }))) as unknown as { read: Reader };
type Reader = (input: unknown, options: unknown) => Promise<ParsedDocument>;

const findTitle = (core as unknown as { findTitle?: (d: ParsedDocument) => { text: string; confidence: number } | null }).findTitle;
type Kind = 'json' | 'split' | 'found';
const KINDS: Kind[] = findTitle ? ['json', 'split', 'found'] : ['json', 'split'];
const tally = Object.fromEntries(KINDS.map((k) => [k, { match: 0, none: 0, wrong: 0, titled: 0 }])) as Record<Kind, { match: number; none: number; wrong: number; titled: number }>;
let withRef = 0, without = 0;
const cut = (s: string | null | undefined, n = 70) => (s ? (s.length > n ? `${s.slice(0, n - 1)}…` : s) : '—');

for (const f of files) {
  const file = path.join(root, f.path);
  const input = { path: file, name: path.basename(f.path), format: f.format, size: fs.statSync(file).size, documentId: f.id };
  const options = { ocr: { enabled: 'auto', language: 'eng' }, signal: AbortSignal.timeout(180_000) };
  let doc: ParsedDocument;
  try {
    doc = await (f.format === 'pdf' ? pdf : f.format === 'docx' ? office : image).read(input, options);
  } catch (e) {
    console.log(`${f.id}: not read (${(e as Error).message})`);
    continue;
  }
  const ref = referenceTitle(root!, f);
  const split = detectSections(doc)[0]?.name ?? null;
  const got: Record<Kind, string | null> = { json: typeof doc.metadata.title === 'string' ? doc.metadata.title : null, split, found: findTitle?.(doc)?.text ?? null };
  // a split name made of the type and the page range is no title
  if (got.split && /\((?:page|pages) \d+(?:-\d+)?\)$/.test(got.split)) got.split = null;
  if (ref) withRef++;
  else without++;
  const verdicts: string[] = [];
  for (const k of KINDS) {
    const t = got[k];
    if (t) tally[k].titled++;
    if (!ref) continue;
    const v = !t ? 'none' : wordF1(t, ref).f1 >= 0.8 ? 'match' : 'wrong';
    tally[k][v]++;
    verdicts.push(`${k}:${v}`);
  }
  if (LIST) {
    console.log(`\n${f.id} (${f.format}${f.category ? `, ${f.category}` : ''})`);
    console.log(`  reference: ${cut(ref)}`);
    for (const k of KINDS) console.log(`  ${k.padEnd(5)}: ${cut(got[k])}`);
    if (verdicts.length) console.log(`  ${verdicts.join('  ')}`);
  }
}
await pdf.close();
fs.rmSync(tmp, { recursive: true, force: true });

console.log(`\nfiles: ${withRef + without} (${withRef} with a reference title, ${without} without)`);
console.log('| title | match | none | wrong | titled (all files) |');
console.log('|---|---|---|---|---|');
for (const k of KINDS) console.log(`| ${k} | ${tally[k].match} | ${tally[k].none} | ${tally[k].wrong} | ${tally[k].titled} / ${withRef + without} |`);
