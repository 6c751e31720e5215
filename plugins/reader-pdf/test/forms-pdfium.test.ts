// AcroForm fields read through PDFium directly (src/forms.ts), without the reader's workers: a pdf-lib form
// with every kind of field, an XFA form, and the corpus forms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { init } from '@embedpdf/pdfium';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { PDFDocument, PDFName, PDFString, StandardFonts } from 'pdf-lib';
import { DocumentBuilder } from '@quire/core';
import { assemble } from '../src/assemble.js';
import { exitForm, fieldItems, formInfo, initForm, readFormFields } from '../src/forms.js';
import type { FormField, PageResult } from '../src/types.js';

const require = createRequire(import.meta.url);
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const manifest: { files: { id: string; path: string; format: string; category: string; pages?: number }[] } = fs.existsSync(path.join(corpus, 'manifest.json'))
  ? JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8'))
  : { files: [] };
const corpusForms = manifest.files.filter((f) => f.format === 'pdf' && /acroform/.test(f.category)).map((f) => ({ ...f, file: path.join(corpus, f.path) }));

let m: WrappedPdfiumModule;
before(async () => {
  m = await init({ wasmBinary: fs.readFileSync(require.resolve('@embedpdf/pdfium/pdfium.wasm')) } as never);
  m.PDFiumExt_Init();
});

interface Read {
  kind: string;
  form: number;
  pages: { width: number; height: number; fields: FormField[] }[];
}

/** Opens the PDF in PDFium, reads the fields of every page (unrotated pages: view y = height - y) and frees everything. */
function readAll(bytes: Uint8Array): Read {
  const ptr = m.pdfium.wasmExports.malloc(bytes.length);
  (m.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8.set(bytes, ptr);
  const doc = m.FPDF_LoadMemDocument(ptr, bytes.length, '');
  assert.ok(doc, 'PDFium opens the file');
  const form = initForm(m, doc);
  try {
    const kind = formInfo(m, doc).kind;
    const pages: Read['pages'] = [];
    for (let i = 0; i < m.FPDF_GetPageCount(doc); i++) {
      const page = m.FPDF_LoadPage(doc, i);
      const width = m.FPDF_GetPageWidthF(page), height = m.FPDF_GetPageHeightF(page);
      pages.push({ width, height, fields: readFormFields(m, doc, page, form, i + 1, (x, y) => [x, height - y]) });
      m.FPDF_ClosePage(page);
    }
    return { kind, form, pages };
  } finally {
    exitForm(m, form);
    m.FPDF_CloseDocument(doc);
    m.pdfium.wasmExports.free(ptr);
  }
}

/** A form with every kind of field, prefilled. */
async function formPdf(opts: { xfa?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const p2 = doc.addPage([612, 792]);
  page.drawText('Name:', { x: 50, y: 656, size: 11, font });
  const form = doc.getForm();
  const name = form.createTextField('applicant.name');
  name.addToPage(page, { x: 100, y: 650, width: 200, height: 20, font });
  name.setText('Jane Doe');
  name.enableRequired();
  // the same field shown a second time on the page and once on page 2
  name.addToPage(page, { x: 100, y: 100, width: 200, height: 20, font });
  name.addToPage(p2, { x: 100, y: 700, width: 200, height: 20, font });
  const agree = form.createCheckBox('applicant.agree');
  agree.addToPage(page, { x: 50, y: 600, width: 15, height: 15 });
  agree.check();
  const news = form.createCheckBox('applicant.newsletter');
  news.addToPage(page, { x: 250, y: 600, width: 15, height: 15 });
  const plan = form.createRadioGroup('applicant.plan');
  plan.addOptionToPage('Basic', page, { x: 50, y: 570, width: 15, height: 15 });
  plan.addOptionToPage('Premium', page, { x: 150, y: 570, width: 15, height: 15 });
  plan.addOptionToPage('Gold', page, { x: 250, y: 570, width: 15, height: 15 });
  plan.select('Premium');
  const country = form.createDropdown('applicant.country');
  country.addOptions(['France', 'Germany', 'Spain']);
  country.addToPage(page, { x: 110, y: 530, width: 150, height: 20, font });
  country.select('Germany');
  const langs = form.createOptionList('applicant.languages');
  langs.addOptions(['English', 'French', 'German']);
  langs.enableMultiselect();
  langs.addToPage(page, { x: 300, y: 480, width: 150, height: 60, font });
  langs.select(['English', 'German']);
  const remarks = form.createTextField('applicant.remarks');
  remarks.enableMultiline();
  remarks.addToPage(page, { x: 50, y: 380, width: 300, height: 70, font });
  remarks.setText('First remark\nSecond remark');
  const id = form.createTextField('applicant.id');
  id.addToPage(page, { x: 400, y: 650, width: 100, height: 20, font });
  id.setText('A-17');
  id.enableReadOnly();
  const pin = form.createTextField('applicant.pin');
  pin.addToPage(page, { x: 400, y: 620, width: 100, height: 20, font });
  pin.setText('secret');
  pin.enablePassword();
  const empty = form.createTextField('applicant.empty');
  empty.addToPage(page, { x: 400, y: 300, width: 100, height: 20, font });
  const sub = form.createButton('applicant.submit');
  sub.addToPage('Submit', page, { x: 400, y: 200, width: 80, height: 20, font });
  form.updateFieldAppearances(font);
  // (pdf-lib drops an XFA entry when it updates appearances on save: they are up to date already)
  if (opts.xfa) form.acroForm.dict.set(PDFName.of('XFA'), PDFString.of('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"/>'));
  return doc.save({ updateFieldAppearances: false });
}

const insidePage = (f: FormField, p: { width: number; height: number }) =>
  f.bbox.width > 0 && f.bbox.height > 0 && f.bbox.x >= -1 && f.bbox.y >= -1 && f.bbox.x + f.bbox.width <= p.width + 1 && f.bbox.y + f.bbox.height <= p.height + 1;

test('every field of a pdf-lib form: names, types, values, options, flags, boxes', async () => {
  const r = readAll(await formPdf());
  assert.equal(r.kind, 'acroform');
  assert.ok(r.form > 0);
  const [p1, p2] = r.pages;
  const by = new Map(p1!.fields.map((f) => [f.name, f]));
  assert.equal(by.size, p1!.fields.length, 'a field drawn by several widgets is one field');
  assert.deepEqual([...by.keys()].sort(), ['applicant.agree', 'applicant.country', 'applicant.empty', 'applicant.id', 'applicant.languages', 'applicant.name', 'applicant.newsletter', 'applicant.pin', 'applicant.plan', 'applicant.remarks', 'applicant.submit']);
  for (const f of p1!.fields) {
    assert.equal(f.page, 1);
    assert.ok(insidePage(f, p1!), `${f.name} box ${JSON.stringify(f.bbox)} inside the page`);
  }
  const name = by.get('applicant.name')!;
  assert.equal(name.type, 'text');
  assert.equal(name.value, 'Jane Doe');
  assert.equal(name.required, true);
  // both widgets on page 1 (y 650 and y 100 from the bottom): top-left origin, union of the two
  assert.ok(Math.abs(name.bbox.y - (792 - 670)) < 1 && Math.abs(name.bbox.y + name.bbox.height - (792 - 100)) < 1, JSON.stringify(name.bbox));
  assert.deepEqual(p2!.fields.map((f) => [f.name, f.value, f.page]), [['applicant.name', 'Jane Doe', 2]]);

  assert.deepEqual(pick(by.get('applicant.agree')!), { type: 'checkbox', value: true });
  assert.deepEqual(pick(by.get('applicant.newsletter')!), { type: 'checkbox', value: false });
  const plan = by.get('applicant.plan')!;
  assert.deepEqual(pick(plan), { type: 'radio', value: 'Premium', options: ['Basic', 'Premium', 'Gold'] });
  // a chosen radio button: its box (x 150..165, y 570..585 from the bottom)
  assert.ok(Math.abs(plan.bbox.x - 150) <= 1 && Math.abs(plan.bbox.y - (792 - 585)) <= 1 && plan.bbox.width < 20, JSON.stringify(plan.bbox));
  assert.deepEqual(pick(by.get('applicant.country')!), { type: 'dropdown', value: ['Germany'], options: ['France', 'Germany', 'Spain'] });
  assert.deepEqual(pick(by.get('applicant.languages')!), { type: 'listbox', value: ['English', 'German'], options: ['English', 'French', 'German'] });
  assert.deepEqual(pick(by.get('applicant.remarks')!), { type: 'text', value: 'First remark\nSecond remark' });
  assert.deepEqual(pick(by.get('applicant.id')!), { type: 'text', value: 'A-17' });
  assert.equal(by.get('applicant.id')!.readOnly, true);
  assert.deepEqual(pick(by.get('applicant.pin')!), { type: 'text', value: null }, 'a password field gives no value');
  assert.deepEqual(pick(by.get('applicant.empty')!), { type: 'text', value: null });
  assert.deepEqual(pick(by.get('applicant.submit')!), { type: 'button', value: null });

  // as text items where the fields are
  const items = fieldItems(p1!.fields);
  const strs = items.map((i) => i.str);
  assert.deepEqual(strs.sort(), ['A-17', 'English, German', 'First remark', 'Germany', 'Jane Doe', 'Second remark', '\u25c9', '\u2612'].sort());
  const jane = items.find((i) => i.str === 'Jane Doe')!;
  assert.ok(jane.x >= name.bbox.x && jane.top >= name.bbox.y && jane.bottom <= name.bbox.y + name.bbox.height, JSON.stringify(jane));
  assert.ok(jane.size >= 6 && jane.size <= 10);
  const mark = items.find((i) => i.str === '\u25c9')!;
  assert.ok(mark.x >= 150 && mark.x < 165, 'the radio mark is on the chosen button');
  const first = items.find((i) => i.str === 'First remark')!, second = items.find((i) => i.str === 'Second remark')!;
  assert.ok(second.baseline > first.baseline, 'lines of a multi-line field go down');
});

function pick(f: FormField) {
  return { type: f.type, value: f.value, ...(f.options ? { options: f.options } : {}) };
}

test('form kinds: none, XFA', async () => {
  const plain = await PDFDocument.create();
  plain.addPage([300, 300]);
  const none = readAll(await plain.save());
  assert.equal(none.kind, 'none');
  assert.equal(none.form, 0, 'no form, no environment');
  assert.deepEqual(none.pages[0]!.fields, []);
  const xfa = readAll(await formPdf({ xfa: true }));
  assert.equal(xfa.kind, 'xfa');
  assert.ok(xfa.pages[0]!.fields.some((f) => f.value === 'Jane Doe'), 'an XFA form with AcroForm widgets still gives their values');
});

test('fieldItems: hidden and empty fields give nothing, sizes stay near body text', () => {
  const base = { page: 1, bbox: { x: 10, y: 10, width: 100, height: 40 } };
  const items = fieldItems([
    { ...base, name: 'a', type: 'text', value: 'shown', fontSize: 30 },
    { ...base, name: 'b', type: 'text', value: 'hidden', hidden: true },
    { ...base, name: 'c', type: 'text', value: '  ' },
    { ...base, name: 'd', type: 'checkbox', value: false },
    { ...base, name: 'e', type: 'radio', value: null, options: ['x'] },
    { ...base, name: 'f', type: 'text', value: 'flat', bbox: { x: 0, y: 0, width: 100, height: 0.5 } },
    { ...base, name: 'g', type: 'text', value: '\ufb01ne' },
  ]);
  assert.deepEqual(items.map((i) => i.str), ['shown', 'fine']);
  assert.equal(items[0]!.size, 10);
});

test('corpus AcroForms: every page read, values where prefilled', { skip: corpusForms.length ? false : 'no ../shared/corpus here' }, () => {
  const counts: Record<string, number> = {};
  for (const f of corpusForms) {
    const r = readAll(fs.readFileSync(f.file));
    assert.equal(r.kind, 'acroform', f.id);
    if (f.pages) assert.equal(r.pages.length, f.pages, f.id);
    const fields = r.pages.flatMap((p) => p.fields.map((x) => ({ x, p })));
    counts[f.id] = fields.length;
    assert.ok(fields.length > 0, `${f.id} has fields`);
    for (const { x, p } of fields) {
      assert.ok(x.name, `${f.id}: a field without a name`);
      assert.ok(insidePage(x, p) || x.hidden, `${f.id} ${x.name} box ${JSON.stringify(x.bbox)} inside ${p.width}x${p.height}`);
      assert.ok(x.type !== 'checkbox' || typeof x.value === 'boolean');
      if (x.type === 'radio' && x.value !== null) assert.ok(x.options?.includes(x.value as string), `${f.id} ${x.name}`);
    }
    fieldItems(r.pages.flatMap((p) => p.fields));
  }
  const values = (id: string) => {
    const f = corpusForms.find((x) => x.id === id);
    return f ? readAll(fs.readFileSync(f.file)).pages.flatMap((p) => p.fields) : null;
  };
  const fancy = values('pdflib__fancy_fields.pdf');
  if (fancy) {
    const v = (n: string) => fancy.find((x) => x.name.startsWith(n))?.value;
    assert.equal(v('Prefix'), 'Ms.');
    assert.equal(v('First Name'), 'Cedar');
    assert.equal(v('MiddleInitial'), 'M');
    assert.equal(v('LastName'), 'Lightningtwirls');
    assert.deepEqual(v('Which Are Planets'), ['Mars']);
    assert.deepEqual(v('Choose A Gundam'), ['Dynames']);
    assert.equal(v('Historical Figures'), 'Marcus Aurelius 🏛️');
    assert.deepEqual(fancy.filter((x) => x.type === 'checkbox').map((x) => x.value), [true, false, true, false]);
  }
  const sample = values('pdflib__sample_form.pdf');
  if (sample) {
    const v = (n: string) => sample.find((x) => x.name === n)?.value;
    assert.equal(v('Name_First'), 'Foo');
    assert.equal(v('Telephone_Home'), '1234567890');
    assert.equal(v('SSN'), '111111111');
    assert.equal(sample.find((x) => x.name === 'EMPLOYEE SIGNATURE')?.type, 'signature');
  }
  const combed = values('pdflib__with_combed_fields.pdf');
  if (combed) assert.ok(combed.length >= 700, `${combed.length} fields in the 13-page form`);
  console.log(`fields per corpus form: ${JSON.stringify(counts)}`);
});

test('assemble: metadata.form_fields (each field once), XFA_FORM for an XFA form without its content', () => {
  const field = (name: string, page: number, value: FormField['value'], type: FormField['type'] = 'text'): FormField => ({ name, type, value, page, bbox: { x: 10, y: 10 * page, width: 50, height: 12 } });
  const text = (t: string, y: number) => ({ kind: 'text' as const, type: 'paragraph' as const, text: t, bbox: { x: 10, y, width: 200, height: 12 }, lines: 1, size: 10, bold: false });
  const page = (number: number, texts: string[], fields?: FormField[]): PageResult => ({ number, width: 612, height: 792, needsOcr: false, elements: texts.map((t, i) => text(t, 100 + i * 20)), ...(fields ? { fields } : {}) });
  const build = (form: string, pages: PageResult[]) => {
    const b = new DocumentBuilder('d', 'f.pdf', 'pdf');
    b.metadata = { form };
    assemble(b, pages);
    return b.build();
  };
  const doc = build('acroform', [
    page(1, ['Name: Jane', 'A paragraph of the form with enough words in it to be ordinary text.'], [field('name', 1, 'Jane'), field('ok', 1, true, 'checkbox')]),
    page(2, ['More text on the second page of the form, ordinary text again.'], [field('name', 2, 'Jane'), { ...field('plan', 2, 'Gold', 'radio'), options: ['Basic', 'Gold'], readOnly: true }]),
  ]);
  assert.deepEqual(doc.metadata.form_fields, [
    { name: 'name', type: 'text', value: 'Jane', page: 1, bbox: { x: 10, y: 10, width: 50, height: 12 } },
    { name: 'ok', type: 'checkbox', value: true, page: 1, bbox: { x: 10, y: 10, width: 50, height: 12 } },
    { name: 'plan', type: 'radio', value: 'Gold', options: ['Basic', 'Gold'], page: 2, bbox: { x: 10, y: 20, width: 50, height: 12 }, readOnly: true },
  ]);
  assert.deepEqual(doc.issues, []);
  assert.equal(build('none', [page(1, ['Plain text.'])]).metadata.form_fields, undefined, 'no fields, no form_fields');

  // an XFA form: the viewer placeholder, or nothing at all, gives an issue; a static XFA form with its text none
  const placeholder = 'Please wait... If this message is not eventually replaced by the proper contents of the document, your PDF viewer may not be able to display this type of document.';
  const xfa = build('xfa', [page(1, [placeholder])]);
  assert.deepEqual(xfa.issues.map((i) => i.code), ['XFA_FORM']);
  assert.match(xfa.issues[0]!.message, /XFA.*not rendered/);
  assert.ok(xfa.issues[0]!.message.includes('Please wait'), 'the issue says what text was read');
  assert.deepEqual(build('xfa', [page(1, []), page(2, [])]).issues.map((i) => i.code), ['XFA_FORM']);
  const rich = build('xfa', [page(1, ['A static XFA form whose pages carry their own printed text, read as usual from the page content.', 'Name: Jane'], [field('name', 1, 'Jane')])]);
  assert.deepEqual(rich.issues, []);
  assert.equal((rich.metadata.form_fields as unknown[]).length, 1);
});
