// Forms the edit tests build with pdf-lib, and reading a filled file back.
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { StubAnswer } from '../helpers/llm-stub.js';

/**
 * Uploads a file as the bootstrap user (into an organization when given, through /api/upload) and waits until
 * it is processed; its document id.
 */
export async function uploadDone(s: TestServer, name: string, bytes: Uint8Array, organization?: string): Promise<string> {
  const up = organization
    ? await s.json('/api/upload', { method: 'POST', body: uploadForm(name, bytes, { organization_id: organization }) })
    : await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes) });
  // /v1/documents answers 201 Created, /api/upload 200 with the queued document
  assert.equal(up.status, organization ? 200 : 201, JSON.stringify(up.body));
  const id = (up.body.document?.id ?? up.body.id) as string;
  const done = await waitForStatus(s, `/v1/documents/${id}`);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return id;
}

/**
 * A stand-in model for the form-filling prompt: it reads the elements the engine lists and maps
 * "goes by <Name>" and "lives in <City>" of the instructions to the elements labelled Name and City.
 * Instructions containing "Explode" get HTTP 500 (the engine then reads them offline).
 */
export function fillAnswer(user: string): StubAnswer {
  if (/Explode/.test(user)) return { status: 500, message: 'model crashed' };
  const fills: { elementId: string; value: string; reasoning: string }[] = [];
  const m = /Elements:\n(.*)\n\nInstructions:\n([\s\S]*)$/.exec(user);
  if (m) {
    const els = JSON.parse(m[1]!) as { id: string; label: string }[];
    const name = /goes by ([A-Z]\w+ [A-Z]\w+)/.exec(m[2]!)?.[1];
    const city = /lives in ([A-Z]\w+)/.exec(m[2]!)?.[1];
    const by = (l: string) => els.find((e) => e.label === l)?.id;
    if (name && by('Name')) fills.push({ elementId: by('Name')!, value: name, reasoning: 'the applicant goes by this name' });
    if (city && by('City')) fills.push({ elementId: by('City')!, value: city, reasoning: 'where the applicant lives' });
  }
  return JSON.stringify({ fills });
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
