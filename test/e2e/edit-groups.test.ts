// Edit over HTTP: checkboxes that are one question's options (named alike, "c1_3[0]" … "c1_3[4]", or the
// only kids of one parent field) detected as one choice with their printed captions as option labels, and
// filled by an option's label (its box ticked, the others cleared; verification reads the group back).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { readBack, uploadDone } from './edit-fixtures.js';

const STATUS = ['Single', 'Married filing jointly', 'Married filing separately', 'Head of household', 'Qualifying surviving spouse'];
const CONTACT = ['Email', 'Telephone', 'Post'];

/** A tax-style form: a name field, a five-box filing-status group, a three-box contact group under one parent. */
async function groupsPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  page.drawText('Tax return', { x: 60, y: 740, size: 16, font });
  page.drawText('Full name:', { x: 60, y: 705, size: 11, font });
  form.createTextField('name').addToPage(page, { x: 160, y: 700, width: 250, height: 20, font });
  page.drawText('Filing status', { x: 60, y: 665, size: 11, font });
  STATUS.forEach((caption, k) => {
    const y = 640 - k * 22;
    form.createCheckBox(`c1_3[${k}]`).addToPage(page, { x: 80, y, width: 12, height: 12 });
    page.drawText(caption, { x: 100, y: y + 2, size: 10, font });
  });
  page.drawText('Contact me by', { x: 60, y: 510, size: 11, font });
  CONTACT.forEach((caption, k) => {
    const x = 170 + k * 110;
    form.createCheckBox(`contact.${caption.toLowerCase()}`).addToPage(page, { x, y: 507, width: 12, height: 12 });
    page.drawText(caption, { x: x + 18, y: 509, size: 10, font });
  });
  form.updateFieldAppearances(font);
  return doc.save();
}

describe('edit: checkbox groups as one field over HTTP', () => {
  let s: TestServer;
  let docId = '';

  before(async () => {
    s = await startTestServer();
    docId = await uploadDone(s, 'groups.pdf', await groupsPdf());
  });
  after(async () => {
    await s?.close();
  });

  test('a five-box group named alike and the kids of one parent are each one field with their captions as options', async () => {
    const r = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const els = r.body.elements as any[];
    assert.ok(!els.some((e) => /^c1_3\[|^contact\./.test(e.id)), `the boxes are not fields of their own: ${els.map((e) => e.id).join(', ')}`);
    const status = els.find((e) => e.id === 'c1_3');
    assert.ok(status, JSON.stringify(els.map((e) => e.id)));
    assert.equal(status.type, 'radio');
    assert.equal(status.options.length, 5);
    assert.deepEqual(status.option_labels, STATUS);
    assert.equal(status.label, 'Filing status');
    const contact = els.find((e) => e.id === 'contact');
    assert.ok(contact);
    assert.deepEqual(contact.option_labels, CONTACT);
    assert.equal(els.filter((e) => e.type === 'checkbox').length, 0);
  });

  test('filled by an option label (mapping and instructions): that box ticked, the others cleared, verified by value', async () => {
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: [{ elementId: 'c1_3', value: 'Married filing jointly' }, { elementId: 'contact', value: 'Telephone' }], verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const v = await readBack(run.body.output_file_url);
    assert.deepEqual([0, 1, 2, 3, 4].map((k) => v[`c1_3[${k}]`]), [false, true, false, false, false]);
    assert.deepEqual(['email', 'telephone', 'post'].map((k) => v[`contact.${k}`]), [false, true, false]);
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));

    const byWords = await s.json('/api/edit/run', { method: 'POST', json: { document_id: docId, instructions: 'Full name: Jane Doe. Filing status: head of household.', verify: true } });
    assert.equal(byWords.status, 200, JSON.stringify(byWords.body));
    const w = await readBack(byWords.body.output_file_url);
    assert.equal(w.name, 'Jane Doe');
    assert.deepEqual([0, 1, 2, 3, 4].map((k) => w[`c1_3[${k}]`]), [false, false, false, true, false]);
    assert.equal(byWords.body.verification_result.pass, true, JSON.stringify(byWords.body.verification_result));
  });
});
