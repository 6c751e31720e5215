import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pluginContext } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import { pdfReader } from './make-reader.js';
import { stripMarkdown, wordF1 } from './f1.js';

const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const hasCorpus = fs.existsSync(path.join(corpus, 'manifest.json'));
const hasTesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

interface Entry { id: string; path: string; format: string; category: string; pages: number; text_layer_chars?: number; ground_truth?: { path: string | null; kind: string }[] }
const manifest: { files: Entry[] } = hasCorpus ? JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) : { files: [] };
const pdfs = manifest.files.filter((f) => f.format === 'pdf');

const shared = { 'limits.parseTimeoutMs': 120_000, 'ocr.concurrency': 2 };
const ocr = hasTesseract ? await ocrPlugin.create(pluginContext(ocrPlugin, { shared })) : undefined;
const reader = pdfReader({ workers: 2 }, { ocr, shared });
after(() => reader.close());

const read = (f: Entry, ocrEnabled: boolean) => {
  const p = path.join(corpus, f.path);
  return reader.read({ path: p, name: f.id, format: 'pdf', size: fs.statSync(p).size, documentId: f.id }, { ocr: { enabled: ocrEnabled ? 'auto' : false, language: 'eng' } });
};
const markdownTruth = (f: Entry) => {
  const gt = (f.ground_truth ?? []).find((g) => g.path && g.kind === 'markdown');
  return gt ? stripMarkdown(fs.readFileSync(path.join(corpus, gt.path!), 'utf8')) : null;
};

test('corpus: every PDF parses; born-digital text has word F1 >= 0.9 against the ground truth', { skip: !hasCorpus }, async () => {
  const low: string[] = [];
  for (const f of pdfs) {
    // scanned files are read without OCR here (one is OCRed below)
    const doc = await read(f, false);
    assert.equal(doc.pages.length, f.pages, f.id);
    assert.ok(!doc.text.includes('\f'), f.id);
    for (const b of doc.blocks) assert.equal(doc.text.slice(b.span.start, b.span.end), b.text);
    const bornDigital = (f.text_layer_chars ?? 0) > 0;
    if (bornDigital) assert.ok(doc.text.length > 0, `${f.id}: no text`);
    else assert.ok(doc.issues.some((i) => i.code === 'OCR_DISABLED'), f.id);
    const truth = markdownTruth(f);
    if (bornDigital && truth) {
      const s = wordF1(doc.text, truth);
      console.log(`${f.id}: word F1 ${s.f1.toFixed(3)} (precision ${s.precision.toFixed(3)}, recall ${s.recall.toFixed(3)})`);
      if (s.f1 < 0.9) low.push(`${f.id} ${s.f1.toFixed(3)}`);
    }
  }
  assert.deepEqual(low, []);
});

test('corpus: the ICDAR table page gives a table', { skip: !hasCorpus }, async () => {
  const f = pdfs.find((x) => x.id === 'tabula__us-012.pdf');
  if (!f) return;
  const doc = await read(f, false);
  assert.ok(doc.tables.length >= 1);
  const t = doc.tables[0]!;
  console.log(`tabula__us-012.pdf: table ${t.rows}x${t.cols}`);
  assert.ok(t.rows >= 5 && t.cols >= 3, `${t.rows}x${t.cols}`);
});

test('corpus: the scanned docling__ocr_test.pdf is OCRed', { skip: !hasCorpus || !hasTesseract }, async () => {
  const f = pdfs.find((x) => x.id === 'docling__ocr_test.pdf');
  if (!f) return;
  const doc = await read(f, true);
  assert.equal(doc.pages[0]!.ocr, true);
  const s = wordF1(doc.text, markdownTruth(f)!);
  console.log(`docling__ocr_test.pdf (OCR): word F1 ${s.f1.toFixed(3)}`);
  assert.ok(s.f1 >= 0.9, doc.text);
});
