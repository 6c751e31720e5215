// Edit over HTTP, values checked by value: plain-language instructions read with the form's fields in view
// (a comb SSN keeps its nine digits, a first-name field gets the first name only, a date field only the date,
// a radio its option by the caption printed beside it), AcroForm labels from tooltips or printed captions
// (never the letters of a vertical strip), and verification that fails when a read-back value is not the one
// asked for.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, PDFName, PDFString, StandardFonts } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { readBack, uploadDone } from './edit-fixtures.js';

/**
 * A personal-details form: first and last name, a nine-box comb for the SSN, a date of birth (MM/DD/YYYY),
 * a sex radio whose export values are 1 and 2 (captions Male and Female printed beside the buttons), an
 * email field named only by its tooltip, a remarks field captioned above, a five-character code field,
 * and the words PRINT CLEARLY printed one letter a line down the left margin beside the fields.
 */
async function detailsPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  page.drawText('Personal details', { x: 60, y: 740, size: 16, font });
  [...'PRINTCLEARLY'].forEach((ch, k) => page.drawText(ch, { x: 24, y: 700 - k * 16, size: 12, font }));
  const text = (name: string, label: string | null, y: number, opts: { width?: number; maxLength?: number; comb?: boolean; tooltip?: string } = {}) => {
    if (label) page.drawText(label, { x: 60, y: y + 5, size: 11, font });
    const tf = form.createTextField(name);
    if (opts.maxLength) tf.setMaxLength(opts.maxLength);
    if (opts.comb) tf.enableCombing();
    if (opts.tooltip) tf.acroField.dict.set(PDFName.of('TU'), PDFString.of(opts.tooltip));
    tf.addToPage(page, { x: 230, y, width: opts.width ?? 200, height: 20, font });
  };
  text('f.first', 'First name:', 690);
  text('f.last', 'Last name:', 660);
  text('f.ssn', 'Social security number:', 630, { width: 135, maxLength: 9, comb: true });
  text('f.dob', 'Date of birth (MM/DD/YYYY):', 600);
  page.drawText('Sex:', { x: 60, y: 575, size: 11, font });
  const sex = form.createRadioGroup('f.sex');
  ['1', '2'].forEach((v, k) => {
    sex.addOptionToPage(v, page, { x: 230 + k * 100, y: 571, width: 14, height: 14 });
    page.drawText(k ? 'Female' : 'Male', { x: 250 + k * 100, y: 574, size: 11, font });
  });
  text('f.email', null, 540, { tooltip: 'Email address' });
  page.drawText('Remarks', { x: 60, y: 522, size: 11, font });
  const remarks = form.createTextField('f.notes');
  remarks.addToPage(page, { x: 60, y: 496, width: 370, height: 20, font });
  text('f.code', 'Code:', 460, { maxLength: 5 });
  form.updateFieldAppearances(font);
  return doc.save();
}

describe('edit fills checked by value over HTTP', () => {
  let s: TestServer;
  let docId = '';

  before(async () => {
    s = await startTestServer();
    docId = await uploadDone(s, 'details.pdf', await detailsPdf());
  });
  after(async () => {
    await s?.close();
  });

  test('labels: the tooltip, else the printed caption; never the letters of a vertical strip; radio captions beside their buttons', async () => {
    const r = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const by = new Map((r.body.elements as any[]).map((e) => [e.id, e]));
    assert.equal(by.get('f.email').label, 'Email address');
    assert.equal(by.get('f.notes').label, 'Remarks');
    assert.equal(by.get('f.first').label, 'First name');
    for (const e of by.values()) assert.match(e.label, /\p{L}{2}/u, `${e.id} is labelled "${e.label}"`);
    assert.equal(by.get('f.sex').type, 'radio');
    assert.deepEqual(by.get('f.sex').options, ['1', '2']);
    assert.deepEqual(by.get('f.sex').option_labels, ['Male', 'Female']);
    assert.equal(by.get('f.ssn').max_length, 9);
    assert.equal(by.get('f.dob').type, 'date_field');
  });

  test('instructions: each value cut to what its field holds, none written into a field of another type; verification passes', async () => {
    const instructions = 'First name Jane, last name Doe. Social security number 123-45-6789. Born 4 April 1990, female. Email address jane.doe@example.com.';
    const run = await s.json('/api/edit/run', { method: 'POST', json: { document_id: docId, instructions, verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const values = await readBack(run.body.output_file_url);
    assert.equal(values['f.first'], 'Jane');
    assert.equal(values['f.last'], 'Doe');
    assert.equal(values['f.ssn'], '123456789', 'the comb of nine boxes gets the nine digits');
    assert.equal(values['f.dob'], '04/04/1990', 'the date field gets the date alone');
    assert.equal(values['f.sex'], '2', 'female is the option captioned Female');
    assert.equal(values['f.email'], 'jane.doe@example.com');
    assert.ok(!values['f.code'] && !values['f.notes'], JSON.stringify(values));
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
  });

  test('verification: a value the field cut to its length fails, naming the field', async () => {
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: [{ elementId: 'f.code', value: 'ABCDEFGH' }, { elementId: 'f.ssn', value: '987-65-4321' }], verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const values = await readBack(run.body.output_file_url);
    assert.equal(values['f.code'], 'ABCDE');
    assert.equal(values['f.ssn'], '987654321');
    const v = run.body.verification_result;
    assert.equal(v.pass, false, JSON.stringify(v));
    const warnings = (v.warnings as string[]).join('\n');
    assert.match(warnings, /^Code: expected "ABCDEFGH", the file has "ABCDE"/m);
    assert.doesNotMatch(warnings, /Social security/, 'the SSN written as its digits is the value asked for');
  });
});
