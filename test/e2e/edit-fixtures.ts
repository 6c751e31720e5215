// Forms the edit tests build with pdf-lib, and reading a filled file back.
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** Uploads a file as the bootstrap user and waits until it is processed; its document id. */
export async function uploadDone(s: TestServer, name: string, bytes: Uint8Array): Promise<string> {
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes) });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return up.body.id as string;
}

/** An application form: printed labels left of text fields, a checkbox with its caption on the right, a radio group, a dropdown. */
export async function formPdf(opts: { prefill?: boolean; flatten?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Application form', { x: 50, y: 740, size: 16, font });
  const labels: [string, string, number][] = [['Name:', 'f.name', 690], ['Date of birth:', 'f.dob', 660], ['City:', 'f.city', 630], ['Number of children:', 'f.kids', 600]];
  const form = doc.getForm();
  for (const [label, name, y] of labels) {
    page.drawText(label, { x: 50, y: y + 5, size: 11, font });
    const tf = form.createTextField(name);
    tf.addToPage(page, { x: 180, y, width: 220, height: 20, font });
    if (opts.prefill && name === 'f.city') tf.setText('Lisbon');
  }
  page.drawText('US citizen', { x: 75, y: 564, size: 11, font });
  const cb = form.createCheckBox('f.citizen');
  cb.addToPage(page, { x: 50, y: 560, width: 15, height: 15 });
  page.drawText('Plan:', { x: 50, y: 534, size: 11, font });
  const plan = form.createRadioGroup('f.plan');
  ['Basic', 'Gold'].forEach((p, k) => {
    plan.addOptionToPage(p, page, { x: 120 + k * 100, y: 530, width: 15, height: 15 });
    page.drawText(p, { x: 140 + k * 100, y: 534, size: 11, font });
  });
  page.drawText('Country:', { x: 50, y: 504, size: 11, font });
  const country = form.createDropdown('f.country');
  country.addOptions(['Greece', 'Portugal', 'Ukraine']);
  country.addToPage(page, { x: 180, y: 500, width: 150, height: 20, font });
  if (opts.prefill) country.select('Portugal');
  form.updateFieldAppearances(font);
  if (opts.flatten) form.flatten();
  return doc.save();
}

/** A printed form without fields: an underline after a label, a box, checkbox squares, a table with empty cells, a comb, a signature line. */
export async function printedFormPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Membership request', { x: 50, y: 740, size: 16, font });
  page.drawText('Full name', { x: 50, y: 694, size: 11, font });
  page.drawLine({ start: { x: 130, y: 692 }, end: { x: 400, y: 692 }, thickness: 0.8 });
  page.drawText('Email', { x: 50, y: 664, size: 11, font });
  page.drawRectangle({ x: 130, y: 658, width: 270, height: 20, borderWidth: 1, borderColor: rgb(0, 0, 0) });
  page.drawRectangle({ x: 50, y: 628, width: 12, height: 12, borderWidth: 1, borderColor: rgb(0, 0, 0) });
  page.drawText('Student', { x: 68, y: 630, size: 11, font });
  page.drawRectangle({ x: 150, y: 628, width: 12, height: 12, borderWidth: 1, borderColor: rgb(0, 0, 0) });
  page.drawText('Retired', { x: 168, y: 630, size: 11, font });
  // a table: a header row, then rows with an item and an empty quantity cell
  const rows = ['Item|Quantity', 'Apples|', 'Pears|'];
  rows.forEach((r, k) => {
    const top = 600 - k * 20;
    r.split('|').forEach((t, c) => {
      page.drawRectangle({ x: 50 + c * 120, y: top - 20, width: 120, height: 20, borderWidth: 1, borderColor: rgb(0, 0, 0) });
      if (t) page.drawText(t, { x: 55 + c * 120, y: top - 14, size: 10, font });
    });
  });
  // a comb: five cells, one digit each
  page.drawText('Postcode', { x: 50, y: 506, size: 11, font });
  for (let k = 0; k < 5; k++) page.drawRectangle({ x: 130 + k * 16, y: 500, width: 16, height: 18, borderWidth: 1, borderColor: rgb(0, 0, 0) });
  page.drawLine({ start: { x: 50, y: 460 }, end: { x: 250, y: 460 }, thickness: 0.8 });
  page.drawText('Signature', { x: 50, y: 448, size: 9, font });
  return doc.save();
}

/** The form field values of a PDF behind a URL, by field name. */
export async function readBack(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const doc = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
  const out: Record<string, unknown> = {};
  for (const f of doc.getForm().getFields()) {
    const any = f as any;
    out[f.getName()] = typeof any.getText === 'function' ? any.getText() : typeof any.isChecked === 'function' ? any.isChecked() : typeof any.getSelected === 'function' ? any.getSelected() : null;
  }
  return out;
}
