// Edit over HTTP of printed (flat) choice fields: a dropdown drawn as a box with a separate arrow cell, or
// with a chevron at its right end, is a dropdown (its box left of the arrow), not a text box and a ticked
// checkbox; radio rings drawn inside square frames are one radio question, not checkboxes; a lone ring is
// no question. Filled: the dropdown's value written in its box, the framed radio's dot in the chosen ring,
// both verified from the output.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { uploadDone } from './edit-fixtures.js';

async function printedChoicesPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const black = rgb(0, 0, 0);
  page.drawText('Supplier registration', { x: 60, y: 740, size: 16, font });
  page.drawText('Company name:', { x: 60, y: 706, size: 11, font });
  page.drawRectangle({ x: 160, y: 700, width: 250, height: 20, borderWidth: 0.8, borderColor: black });
  // a dropdown with its arrow in a cell of its own
  page.drawText('Country:', { x: 60, y: 666, size: 11, font });
  page.drawRectangle({ x: 160, y: 660, width: 180, height: 20, borderWidth: 0.8, borderColor: black });
  page.drawLine({ start: { x: 320, y: 660 }, end: { x: 320, y: 680 }, thickness: 0.8, color: black });
  page.drawSvgPath('M 0 0 L 9 0 L 4.5 5.5 Z', { x: 325.5, y: 672.5, color: rgb(0.25, 0.25, 0.25) });
  // a dropdown with a chevron at its right end, in a light grey frame
  page.drawText('Currency:', { x: 60, y: 626, size: 11, font });
  page.drawRectangle({ x: 160, y: 620, width: 120, height: 20, borderWidth: 0.6, borderColor: rgb(0.5, 0.5, 0.5) });
  page.drawSvgPath('M 0 0 L 4.5 4.5 L 9 0', { x: 265.5, y: 632, borderColor: black, borderWidth: 1 });
  // radio buttons whose rings are drawn inside square frames
  page.drawText('Invoices by email:', { x: 60, y: 586, size: 11, font });
  ['Yes', 'No'].forEach((c, k) => {
    const x = 180 + k * 80;
    page.drawRectangle({ x, y: 582, width: 12, height: 12, borderWidth: 0.4, borderColor: black });
    page.drawCircle({ x: x + 6, y: 588, size: 5.8, borderWidth: 0.6, borderColor: black });
    page.drawText(c, { x: x + 17, y: 585, size: 11, font });
  });
  // a lone ring beside a word: no question of its own
  page.drawCircle({ x: 66, y: 544, size: 5, borderWidth: 0.6, borderColor: black });
  page.drawText('Preferred supplier', { x: 76, y: 540, size: 11, font });
  return doc.save();
}

describe('edit: printed dropdowns and framed radio buttons over HTTP', () => {
  let s: TestServer;
  let docId = '';

  before(async () => {
    s = await startTestServer();
    docId = await uploadDone(s, 'choices.pdf', await printedChoicesPdf());
  });
  after(async () => {
    await s?.close();
  });

  test('a box with an arrow cell or a chevron is a dropdown; rings in square frames are one radio, not checkboxes', async () => {
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const els = det.body.elements as any[];
    const drops = els.filter((e) => e.type === 'dropdown');
    assert.deepEqual(drops.map((e) => e.label), ['Country', 'Currency'], JSON.stringify(els));
    const country = drops[0];
    // its box is the part left of the arrow cell
    assert.ok(Math.abs(country.bbox.x - 160) < 2 && Math.abs(country.bbox.x + country.bbox.width - 320) < 3, JSON.stringify(country.bbox));
    assert.ok(!els.some((e) => e.type === 'text_field' && /country|currency/i.test(e.label)), JSON.stringify(els));
    assert.ok(els.some((e) => e.type === 'text_field' && /company name/i.test(e.label)), JSON.stringify(els));
    const radios = els.filter((e) => e.type === 'radio');
    assert.equal(radios.length, 1, JSON.stringify(els));
    assert.deepEqual(radios[0].options, ['Yes', 'No']);
    assert.equal(radios[0].option_boxes.length, 2);
    assert.equal(els.filter((e) => e.type === 'checkbox').length, 0, JSON.stringify(els));
  });

  test('filled: the dropdown value written in its box, the framed radio dot in its ring, both verified', async () => {
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    const els = det.body.elements as any[];
    const country = els.find((e) => e.type === 'dropdown' && e.label === 'Country');
    const email = els.find((e) => e.type === 'radio');
    assert.ok(country && email, JSON.stringify(els));
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: [{ elementId: country.id, value: 'Canada' }, { elementId: email.id, value: 'No' }], verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
    assert.deepEqual(run.body.filled_elements.map((f: any) => f.value).sort(), ['Canada', 'No']);
  });
});
