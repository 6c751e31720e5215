import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { silentLogger } from '@quire/core';
import type { OcrPlugin, ParsedDocument } from '@quire/core';
import { PdfReader } from '@quire/plugin-reader-pdf';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-forms-'));
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const manifest: { files: { id: string; path: string; format: string; category: string }[] } = fs.existsSync(path.join(corpus, 'manifest.json'))
  ? JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8'))
  : { files: [] };
const corpusPdfs = manifest.files.filter((f) => f.format === 'pdf').map((f) => ({ ...f, file: path.join(corpus, f.path) }));
const corpusForms = corpusPdfs.filter((f) => /acroform/.test(f.category));

// a quick OCR stand-in: scanned pages of the corpus are "read" at once
let ocrCalls = 0;
const ocr: OcrPlugin = {
  recognize: async () => (ocrCalls++, { text: 'scanned', words: [], lines: [{ text: 'scanned', bbox: { x: 10, y: 10, width: 100, height: 20 }, confidence: 0.9 }], confidence: 0.9, width: 1000, height: 1000 }),
  languages: async () => ['eng'],
};
const reader = new PdfReader({ config: { pdf: { workers: 2 }, ocr: { concurrency: 2 }, limits: { parseTimeoutMs: 240_000 } }, logger: silentLogger, tryGet: (k: string) => (k === 'ocr' ? ocr : undefined) } as never, { prestart: false });
after(async () => {
  await reader.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const read = (p: string, id: string): Promise<ParsedDocument> =>
  reader.read({ path: p, name: path.basename(p), format: 'pdf', size: fs.statSync(p).size, documentId: id }, { ocr: { enabled: 'auto', language: 'eng' } });

/** An application form with filled-in fields: a text field, a ticked checkbox, a dropdown, a multi-line text field. */
async function formPdf(i: number): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText(`Membership application ${i}`, { x: 50, y: 740, size: 16, font });
  page.drawText('Name:', { x: 50, y: 656, size: 11, font });
  page.drawText('I agree to the terms', { x: 75, y: 604, size: 11, font });
  page.drawText('Country:', { x: 50, y: 556, size: 11, font });
  page.drawText('Remarks:', { x: 50, y: 500, size: 11, font });
  const form = doc.getForm();
  const name = form.createTextField(`applicant.name.${i}`);
  name.addToPage(page, { x: 100, y: 650, width: 200, height: 20, font });
  name.setText(`Jane Doe ${i}`);
  const agree = form.createCheckBox(`applicant.agree.${i}`);
  agree.addToPage(page, { x: 50, y: 600, width: 15, height: 15 });
  if (i % 2 === 0) agree.check();
  const country = form.createDropdown(`applicant.country.${i}`);
  country.addOptions(['France', 'Germany', 'Spain']);
  country.addToPage(page, { x: 110, y: 550, width: 150, height: 20, font });
  country.select(['France', 'Germany', 'Spain'][i % 3]!);
  const remarks = form.createTextField(`applicant.remarks.${i}`);
  remarks.enableMultiline();
  remarks.addToPage(page, { x: 50, y: 420, width: 300, height: 70, font });
  remarks.setText(`First remark of form ${i}\nSecond remark`);
  form.updateFieldAppearances(font);
  const p = path.join(tmp, `form-${i}.pdf`);
  fs.writeFileSync(p, await doc.save());
  return p;
}

async function plainPdf(i: number): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let k = 0; k < 3; k++) doc.addPage([612, 792]).drawText(`Plain document ${i}, page ${k + 1}: a paragraph of ordinary text.`, { x: 72, y: 700, size: 12, font });
  const p = path.join(tmp, `plain-${i}.pdf`);
  fs.writeFileSync(p, await doc.save());
  return p;
}

function checkForm(doc: ParsedDocument, i: number) {
  const t = doc.text;
  assert.ok(t.includes(`Membership application ${i}`), t);
  // the values filled into the fields are part of the text, next to their printed labels
  const name = doc.blocks.find((b) => b.text.includes(`Jane Doe ${i}`));
  assert.ok(name, `field value missing:\n${t}`);
  assert.equal(name.type, 'key_value', JSON.stringify(name));
  assert.equal(name.key, 'Name');
  assert.equal(name.value, `Jane Doe ${i}`);
  assert.ok(t.includes(['France', 'Germany', 'Spain'][i % 3]!), t);
  assert.ok(t.includes(`First remark of form ${i}`) && t.includes('Second remark'), t);
  assert.equal(t.includes('\u2612'), i % 2 === 0, 'a ticked box shows as ☒, an empty one not at all');
}

test('AcroForm PDFs read concurrently with other PDFs all complete, with their field values', async () => {
  const forms = await Promise.all([0, 1, 2, 3, 4, 5].map(formPdf));
  const plain = await Promise.all([0, 1, 2].map(plainPdf));
  // two rounds, everything at once: forms, plain documents and every corpus PDF (forms, scans, reports)
  for (let round = 0; round < 2; round++) {
    const jobs: { name: string; run: Promise<ParsedDocument> }[] = [
      ...forms.map((f, i) => ({ name: `form-${i}`, run: read(f, `r${round}-form-${i}`) })),
      ...plain.map((f, i) => ({ name: `plain-${i}`, run: read(f, `r${round}-plain-${i}`) })),
      ...corpusPdfs.map((f) => ({ name: f.id, run: read(f.file, `r${round}-${f.id}`) })),
    ];
    const settled = await Promise.allSettled(jobs.map((j) => j.run));
    const failed = settled.flatMap((s, k) => (s.status === 'rejected' ? [`${jobs[k]!.name}: ${(s.reason as Error)?.message}`] : []));
    assert.deepEqual(failed, [], `round ${round}`);
    settled.slice(0, forms.length).forEach((s, i) => checkForm((s as PromiseFulfilledResult<ParsedDocument>).value, i));
    for (const s of settled) for (const b of (s as PromiseFulfilledResult<ParsedDocument>).value.blocks) assert.ok(!b.text.includes('\uffff'));
  }
  console.log(`${corpusForms.length} corpus forms among ${corpusPdfs.length} corpus PDFs; ${ocrCalls} pages OCRed`);
});

test('corpus: prefilled form values are in the text', { skip: corpusForms.length ? false : 'no ../shared/corpus here' }, async () => {
  const fancy = corpusForms.find((f) => f.id === 'pdflib__fancy_fields.pdf');
  if (fancy) {
    const doc = await read(fancy.file, 'fancy');
    for (const v of ['Ms.', 'Cedar', 'M', 'Lightningtwirls', 'Mars', 'Dynames']) assert.ok(doc.text.includes(v), `${v} in:\n${doc.text}`);
    assert.equal(doc.text.split('Lightningtwirls').length - 1, 1, 'a field shown twice on a page is read once');
    assert.equal(doc.text.split('\u2612').length - 1, 2, 'two of the four boxes are ticked');
  }
  const sample = corpusForms.find((f) => f.id === 'pdflib__sample_form.pdf');
  if (sample) {
    const doc = await read(sample.file, 'sample');
    for (const v of ['Foo', '1234567890', '111111111']) assert.ok(doc.text.includes(v), `${v} in:\n${doc.text.slice(0, 1500)}`);
  }
});
