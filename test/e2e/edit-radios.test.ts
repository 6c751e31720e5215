// Edit over HTTP of printed radio buttons: rings drawn on a flat page (no form fields), captioned beside
// them, are found as one radio question with its captions as options and each option's ring; a letter "O"
// printed in the text is no ring. Filling the radio draws a dot inside the chosen ring, which a detection of
// the output reads as the chosen option.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { uploadDone } from './edit-fixtures.js';

/** A printed form: "Name:" with a box, "Sex:" with two rings in a row, "Plan:" with three rings stacked, "O" words in the text. */
async function printedRadiosPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Membership application', { x: 60, y: 740, size: 16, font });
  page.drawText('Name:', { x: 60, y: 700, size: 11, font });
  page.drawRectangle({ x: 140, y: 694, width: 250, height: 20, borderWidth: 1, borderColor: rgb(0, 0, 0) });
  page.drawText('Sex:', { x: 60, y: 660, size: 11, font });
  ['Male', 'Female'].forEach((c, k) => {
    page.drawCircle({ x: 147 + k * 100, y: 664, size: 6, borderWidth: 0.8, borderColor: rgb(0.35, 0.35, 0.35) });
    page.drawText(c, { x: 160 + k * 100, y: 660, size: 11, font });
  });
  page.drawText('Plan', { x: 60, y: 620, size: 11, font });
  ['Basic', 'Standard', 'Premium'].forEach((c, k) => {
    page.drawCircle({ x: 77, y: 600 - k * 20, size: 6, borderWidth: 0.8, borderColor: rgb(0, 0, 0) });
    page.drawText(c, { x: 90, y: 596 - k * 20, size: 11, font });
  });
  page.drawText('O OO O: our Ohio Office is Open on weekdays.', { x: 60, y: 500, size: 12, font });
  return doc.save();
}

/** A printed form whose checkbox squares are small, thin and light grey (as many government forms print them). */
async function greySquaresPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Services requested', { x: 60, y: 740, size: 14, font });
  ['Delivery', 'Installation', 'Maintenance', 'Training'].forEach((c, k) => {
    page.drawRectangle({ x: 60, y: 700 - k * 22, width: 7, height: 7, borderWidth: 0.3, borderColor: rgb(0.62, 0.62, 0.62) });
    page.drawText(c, { x: 74, y: 700 - k * 22, size: 9, font });
  });
  return doc.save();
}

describe('edit: printed radio buttons over HTTP', () => {
  let s: TestServer;
  let docId = '';

  before(async () => {
    s = await startTestServer();
    docId = await uploadDone(s, 'radios.pdf', await printedRadiosPdf());
  });
  after(async () => {
    await s?.close();
  });

  test('rings in a row and in a column are radio questions with their captions as options; letters are not', async () => {
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const radios = (det.body.elements as any[]).filter((e) => e.type === 'radio');
    assert.equal(radios.length, 2, JSON.stringify(det.body.elements));
    const sex = radios.find((e) => e.options.includes('Female'));
    assert.deepEqual(sex.options, ['Male', 'Female']);
    assert.equal(sex.label, 'Sex');
    assert.equal(sex.option_boxes.length, 2);
    assert.ok(Math.abs(sex.option_boxes[1].x + sex.option_boxes[1].width / 2 - 247) < 2, JSON.stringify(sex.option_boxes));
    const plan = radios.find((e) => e.options.includes('Premium'));
    assert.deepEqual(plan.options, ['Basic', 'Standard', 'Premium']);
    assert.equal(plan.label, 'Plan');
    assert.ok((det.body.elements as any[]).some((e) => e.type === 'text_field' && e.label === 'Name'));
  });

  test('a radio filled by its option: a dot in that ring, read as the chosen option from the output', async () => {
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    const sex = (det.body.elements as any[]).find((e) => e.type === 'radio' && e.options.includes('Female'));
    const plan = (det.body.elements as any[]).find((e) => e.type === 'radio' && e.options.includes('Premium'));
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: [{ elementId: sex.id, value: 'female' }, { elementId: plan.id, value: 'Standard' }], verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    // verification reads the chosen ring back from the output
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
    assert.deepEqual(run.body.filled_elements.map((f: any) => f.value).sort(), ['Female', 'Standard']);
    const bytes = new Uint8Array(await (await fetch(run.body.output_file_url)).arrayBuffer());
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('filled.pdf', bytes) });
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    const again = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: up.body.id } });
    const radios = (again.body.elements as any[]).filter((e) => e.type === 'radio');
    assert.equal(radios.find((e) => e.options.includes('Female'))?.current_value, 'Female', JSON.stringify(radios));
    assert.equal(radios.find((e) => e.options.includes('Premium'))?.current_value, 'Standard', JSON.stringify(radios));
  });

  test('small thin grey checkbox squares are found (the page read again at a higher resolution)', async () => {
    const id = await uploadDone(s, 'grey.pdf', await greySquaresPdf());
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const boxes = (det.body.elements as any[]).filter((e) => e.type === 'checkbox');
    assert.deepEqual(boxes.map((e) => e.label), ['Delivery', 'Installation', 'Maintenance', 'Training'], JSON.stringify(det.body.elements));
  });
});
