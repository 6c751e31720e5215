import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString, StandardFonts } from 'pdf-lib';
import type { OcrPlugin, ParsedDocument } from '@quire/core';
import { pdfReader } from './make-reader.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-forms-'));
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const manifest: { files: { id: string; path: string; format: string; category: string }[] } = fs.existsSync(path.join(corpus, 'manifest.json'))
  ? JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8'))
  : { files: [] };
const corpusPdfs = manifest.files.filter((f) => f.format === 'pdf').map((f) => ({ ...f, file: path.join(corpus, f.path) }));
const corpusForms = corpusPdfs.filter((f) => /acroform/.test(f.category));
/** the corpus forms and the first PDF of each other kind (born-digital, invoice, scanned…): what the forms are read beside (corpus.test.ts reads every corpus PDF) */
const kindOf = (f: { category: string }) => /^pdf\/([a-z-]+)/.exec(f.category)?.[1] ?? f.category;
const corpusMix = corpusPdfs.filter((f, i) => /acroform/.test(f.category) || corpusPdfs.findIndex((g) => kindOf(g) === kindOf(f)) === i);

// a quick OCR stand-in: scanned pages of the corpus are "read" at once
let ocrCalls = 0;
const ocr: OcrPlugin = {
  recognize: async () => (ocrCalls++, { text: 'scanned', words: [], lines: [{ text: 'scanned', bbox: { x: 10, y: 10, width: 100, height: 20 }, confidence: 0.9 }], confidence: 0.9, width: 1000, height: 1000 }),
  languages: async () => ['eng'],
};
const reader = pdfReader({ workers: 2, ocrConcurrency: 2, timeoutMs: 240_000 }, { ocr });
after(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  await reader.close();
});

const read = (p: string, id: string): Promise<ParsedDocument> =>
  reader.read({ path: p, name: path.basename(p), format: 'pdf', size: fs.statSync(p).size, documentId: id }, { ocr: { enabled: 'auto', language: 'eng' } });

const COUNTRIES = ['France', 'Germany', 'Spain'];
const PLANS = ['Basic', 'Premium', 'Gold'];

/** An application form with filled-in fields: a text field, a checkbox (ticked in even forms), a radio group, a dropdown, a multi-line text field. */
async function formPdf(i: number, opts: { xfa?: boolean } = {}): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText(`Membership application ${i}`, { x: 50, y: 740, size: 16, font });
  page.drawText('Name:', { x: 50, y: 656, size: 11, font });
  page.drawText('I agree to the terms', { x: 75, y: 604, size: 11, font });
  page.drawText('Country:', { x: 50, y: 556, size: 11, font });
  page.drawText('Remarks:', { x: 50, y: 500, size: 11, font });
  PLANS.forEach((p, k) => page.drawText(p, { x: 75 + k * 120, y: 584, size: 11, font }));
  const form = doc.getForm();
  const name = form.createTextField(`applicant.name.${i}`);
  name.addToPage(page, { x: 100, y: 650, width: 200, height: 20, font });
  name.setText(`Jane Doe ${i}`);
  const agree = form.createCheckBox(`applicant.agree.${i}`);
  agree.addToPage(page, { x: 50, y: 600, width: 15, height: 15 });
  if (i % 2 === 0) agree.check();
  const plan = form.createRadioGroup(`applicant.plan.${i}`);
  PLANS.forEach((p, k) => plan.addOptionToPage(p, page, { x: 55 + k * 120, y: 580, width: 15, height: 15 }));
  plan.select(PLANS[i % 3]!);
  const country = form.createDropdown(`applicant.country.${i}`);
  country.addOptions(COUNTRIES);
  country.addToPage(page, { x: 110, y: 550, width: 150, height: 20, font });
  country.select(COUNTRIES[i % 3]!);
  const remarks = form.createTextField(`applicant.remarks.${i}`);
  remarks.enableMultiline();
  remarks.addToPage(page, { x: 50, y: 420, width: 300, height: 70, font });
  remarks.setText(`First remark of form ${i}\nSecond remark`);
  form.updateFieldAppearances(font);
  // (pdf-lib drops an XFA entry when it updates appearances on save: they are up to date already)
  if (opts.xfa) form.acroForm.dict.set(PDFName.of('XFA'), PDFString.of('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"/>'));
  const p = path.join(tmp, `${opts.xfa ? 'xfa' : 'form'}-${i}.pdf`);
  fs.writeFileSync(p, await doc.save({ updateFieldAppearances: false }));
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

interface FieldMeta {
  name: string;
  type: string;
  value: unknown;
  options?: string[];
  page: number;
  bbox: { x: number; y: number; width: number; height: number };
}

/** metadata.form_fields, each on an existing page with its box inside that page */
function formFields(doc: ParsedDocument): FieldMeta[] {
  const fields = (doc.metadata.form_fields ?? []) as FieldMeta[];
  assert.ok(Array.isArray(fields));
  for (const f of fields) {
    const page = doc.pages.find((p) => p.number === f.page);
    assert.ok(page, `${f.name}: page ${f.page}`);
    const b = f.bbox;
    assert.ok(b.width > 0 && b.height > 0 && b.x >= -1 && b.y >= -1 && b.x + b.width <= page.width + 1 && b.y + b.height <= page.height + 1, `${f.name}: box ${JSON.stringify(b)} inside ${page.width}x${page.height}`);
  }
  return fields;
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
  assert.ok(t.includes(COUNTRIES[i % 3]!), t);
  assert.ok(t.includes(`First remark of form ${i}`) && t.includes('Second remark'), t);
  assert.equal(t.includes('\u2612'), i % 2 === 0, 'a ticked box shows as ☒, an empty one not at all');
  assert.equal(t.split('\u25c9').length - 1, 1, 'the chosen radio button shows as ◉');
  // and in the metadata
  assert.equal(doc.metadata.form, 'acroform');
  const fields = formFields(doc);
  const got = Object.fromEntries(fields.map((f) => [f.name, { type: f.type, value: f.value, ...(f.options ? { options: f.options } : {}), page: f.page }]));
  assert.deepEqual(got, {
    [`applicant.name.${i}`]: { type: 'text', value: `Jane Doe ${i}`, page: 1 },
    [`applicant.agree.${i}`]: { type: 'checkbox', value: i % 2 === 0, page: 1 },
    [`applicant.plan.${i}`]: { type: 'radio', value: PLANS[i % 3], options: PLANS, page: 1 },
    [`applicant.country.${i}`]: { type: 'dropdown', value: [COUNTRIES[i % 3]], options: COUNTRIES, page: 1 },
    [`applicant.remarks.${i}`]: { type: 'text', value: `First remark of form ${i}\nSecond remark`, page: 1 },
  });
  // the name field: x 100..300, y 650..670 from the bottom of a 792 pt page
  const nb = fields.find((f) => f.type === 'text')!.bbox;
  assert.ok(Math.abs(nb.x - 100) <= 2 && Math.abs(nb.y - 122) <= 2 && Math.abs(nb.width - 200) <= 3, JSON.stringify(nb));
}

test('AcroForm PDFs read concurrently with other PDFs all complete, with their field values', async () => {
  const forms = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => formPdf(i)));
  const plain = await Promise.all([0, 1, 2].map(plainPdf));
  // two rounds, everything at once: forms, plain documents and corpus PDFs (the forms, a report, an invoice, a scan)
  for (let round = 0; round < 2; round++) {
    const jobs: { name: string; run: Promise<ParsedDocument> }[] = [
      ...forms.map((f, i) => ({ name: `form-${i}`, run: read(f, `r${round}-form-${i}`) })),
      ...plain.map((f, i) => ({ name: `plain-${i}`, run: read(f, `r${round}-plain-${i}`) })),
      ...corpusMix.map((f) => ({ name: f.id, run: read(f.file, `r${round}-${f.id}`) })),
    ];
    const settled = await Promise.allSettled(jobs.map((j) => j.run));
    const failed = settled.flatMap((s, k) => (s.status === 'rejected' ? [`${jobs[k]!.name}: ${(s.reason as Error)?.message}`] : []));
    assert.deepEqual(failed, [], `round ${round}`);
    settled.slice(0, forms.length).forEach((s, i) => checkForm((s as PromiseFulfilledResult<ParsedDocument>).value, i));
    for (const s of settled.slice(forms.length, forms.length + plain.length)) {
      const doc = (s as PromiseFulfilledResult<ParsedDocument>).value;
      assert.equal(doc.metadata.form_fields, undefined, 'a document without a form has no form_fields');
      assert.equal(doc.metadata.form, 'none');
    }
    for (const s of settled) for (const b of (s as PromiseFulfilledResult<ParsedDocument>).value.blocks) assert.ok(!b.text.includes('\uffff'));
  }
  console.log(`${corpusForms.length} corpus forms among ${corpusMix.length} corpus PDFs (${corpusMix.map((f) => f.id).join(', ')}); ${ocrCalls} pages OCRed`);
});

test('corpus AcroForms: each completes with its fields in the metadata; prefilled values in the text and the metadata', { skip: corpusForms.length ? false : 'no ../shared/corpus here' }, async () => {
  const docs = await Promise.all(corpusForms.map((f) => read(f.file, `c-${f.id}`)));
  const counts: Record<string, number> = {};
  corpusForms.forEach((f, k) => {
    const doc = docs[k]!;
    assert.equal(doc.metadata.form, 'acroform', f.id);
    const fields = formFields(doc);
    counts[f.id] = fields.length;
    assert.ok(fields.length > 0, `${f.id}: form_fields`);
    assert.equal(new Set(fields.map((x) => x.name)).size, fields.length, `${f.id}: each field once`);
    // every filled-in text value is in the text (comb fields: the characters, spaces aside)
    const flat = doc.text.replace(/\s+/g, '');
    for (const x of fields) if (x.type === 'text' && !(x as { hidden?: boolean }).hidden && typeof x.value === 'string' && x.value.trim()) assert.ok(flat.includes(x.value.replace(/\s+/g, '')), `${f.id}: ${x.name} = ${JSON.stringify(x.value)} in the text`);
  });
  console.log(`form_fields per corpus form: ${JSON.stringify(counts)}`);
  const byId = (id: string) => docs[corpusForms.findIndex((f) => f.id === id)];
  const fancy = byId('pdflib__fancy_fields.pdf');
  if (fancy) {
    for (const v of ['Ms.', 'Cedar', 'M', 'Lightningtwirls', 'Mars', 'Dynames']) assert.ok(fancy.text.includes(v), `${v} in:\n${fancy.text}`);
    assert.equal(fancy.text.split('Lightningtwirls').length - 1, 1, 'a field shown twice on a page is read once');
    assert.equal(fancy.text.split('\u2612').length - 1, 2, 'two of the four boxes are ticked');
    const v = (n: string) => formFields(fancy).find((x) => x.name.startsWith(n));
    assert.equal(v('LastName')?.value, 'Lightningtwirls');
    assert.deepEqual(v('Which Are Planets')?.value, ['Mars']);
    assert.deepEqual(v('Choose A Gundam')?.options, ['Exia', 'Kyrios', 'Virtue', 'Dynames']);
    assert.equal(v('Historical Figures')?.type, 'radio');
    assert.ok(v('Historical Figures')?.options?.includes(v('Historical Figures')!.value as string));
    assert.deepEqual(formFields(fancy).filter((x) => x.type === 'checkbox').map((x) => x.value), [true, false, true, false]);
  }
  const sample = byId('pdflib__sample_form.pdf');
  if (sample) {
    for (const v of ['Foo', '1234567890', '111111111']) assert.ok(sample.text.includes(v), `${v} in:\n${sample.text.slice(0, 1500)}`);
    assert.equal(formFields(sample).find((x) => x.name === 'SSN')?.value, '111111111');
    assert.equal(formFields(sample).find((x) => x.name === 'EMPLOYEE SIGNATURE')?.type, 'signature');
  }
  const combed = byId('pdflib__with_combed_fields.pdf');
  if (combed) {
    assert.equal(combed.pages.length, 13);
    assert.ok(formFields(combed).length >= 700, `${formFields(combed).length} fields`);
    assert.ok(new Set(formFields(combed).map((x) => x.page)).size >= 10, 'fields on most of the 13 pages');
  }
});

test('an XFA form whose pages only say "Please wait..." is read with an XFA_FORM issue', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText('Please wait... If this message is not eventually replaced by the proper contents of the document, your PDF viewer may not be able to display this type of document.', { x: 20, y: 700, size: 7, font });
  const form = doc.getForm();
  form.acroForm.dict.set(PDFName.of('XFA'), PDFString.of('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"/>'));
  const p = path.join(tmp, 'xfa-only.pdf');
  fs.writeFileSync(p, await doc.save({ updateFieldAppearances: false }));
  const parsed = await read(p, 'xfa-only');
  assert.equal(parsed.metadata.form, 'xfa');
  const issue = parsed.issues.find((i) => i.code === 'XFA_FORM');
  assert.ok(issue, JSON.stringify(parsed.issues));
  assert.match(issue.message, /XFA.*not rendered/);
  assert.ok(issue.message.includes('Please wait'));
  // a static XFA form whose pages carry the form (with AcroForm widgets): read as usual, no issue
  const xfaForm = await read(await formPdf(7, { xfa: true }), 'xfa-form');
  assert.equal(xfaForm.metadata.form, 'xfa');
  assert.ok(xfaForm.text.includes('Jane Doe 7'));
  assert.equal(xfaForm.issues.filter((i) => i.code === 'XFA_FORM').length, 0);
});
