// A filled-in PDF form through the HTTP API: every value is read back. The API exposes a document's text
// and chunks (/v1/documents/:id/content) and, for a PDF converted at once, its blocks with their key/value
// pairs and its form fields (/api/pdf-to-json, metadata.formFields).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, PDFName, PDFNumber, PDFString, StandardFonts } from 'pdf-lib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** A prefilled application form: text, checkbox, radio group, dropdown and multi-line text fields, with printed labels. */
async function formPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Membership application', { x: 50, y: 740, size: 16, font });
  page.drawText('Name:', { x: 50, y: 656, size: 11, font });
  page.drawText('I agree to the terms', { x: 75, y: 604, size: 11, font });
  ['Basic', 'Premium', 'Gold'].forEach((p, k) => page.drawText(p, { x: 75 + k * 120, y: 584, size: 11, font }));
  page.drawText('Country:', { x: 50, y: 556, size: 11, font });
  page.drawText('Remarks:', { x: 50, y: 500, size: 11, font });
  const form = doc.getForm();
  const name = form.createTextField('applicant.name');
  name.addToPage(page, { x: 100, y: 650, width: 200, height: 20, font });
  name.setText('Marguerite Okonkwo');
  const agree = form.createCheckBox('applicant.agree');
  agree.addToPage(page, { x: 50, y: 600, width: 15, height: 15 });
  agree.check();
  const plan = form.createRadioGroup('applicant.plan');
  ['Basic', 'Premium', 'Gold'].forEach((p, k) => plan.addOptionToPage(p, page, { x: 55 + k * 120, y: 580, width: 15, height: 15 }));
  plan.select('Premium');
  const country = form.createDropdown('applicant.country');
  country.addOptions(['Austria', 'Portugal', 'Norway']);
  country.addToPage(page, { x: 110, y: 550, width: 150, height: 20, font });
  country.select('Portugal');
  const remarks = form.createTextField('applicant.remarks');
  remarks.enableMultiline();
  remarks.addToPage(page, { x: 50, y: 420, width: 300, height: 70, font });
  remarks.setText('Prefers evening sessions\nAllergic to peanuts');
  form.updateFieldAppearances(font);
  return doc.save();
}

/**
 * A survey as real forms store it, where a form's values are not plain strings: a multi-choice list with two
 * options chosen, written as an array of names holding export values (`databases` = /sqlServer /postgres,
 * shown "SQL Server", "PostgreSQL"); a dropdown whose value is the export value 2 of "Young Abraham Lincoln
 * (Ranger Ed)"; a list whose choice is only in /I (indices 1 and 2); a multi-line comment held in a text
 * stream with CR line ends.
 */
async function surveyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Film club survey', { x: 50, y: 740, size: 16, font });
  page.drawText('Databases you use:', { x: 50, y: 680, size: 11, font });
  page.drawText('Favourite film:', { x: 50, y: 560, size: 11, font });
  page.drawText('Days free:', { x: 330, y: 680, size: 11, font });
  page.drawText('Comments:', { x: 50, y: 500, size: 11, font });
  const form = doc.getForm();
  const ctx = doc.context;
  const pairs = (xs: [string, string][]) => ctx.obj(xs.map(([v, label]) => [PDFString.of(v), PDFString.of(label)]));
  const db = form.createOptionList('survey.databases');
  db.addOptions(['-']);
  db.enableMultiselect();
  db.addToPage(page, { x: 50, y: 590, width: 150, height: 80, font });
  db.acroField.dict.set(PDFName.of('Opt'), pairs([['mySql', 'MySQL'], ['sqlServer', 'SQL Server'], ['oracle', 'Oracle'], ['postgres', 'PostgreSQL']]));
  db.acroField.dict.set(PDFName.of('V'), ctx.obj([PDFName.of('sqlServer'), PDFName.of('postgres')]));
  const days = form.createOptionList('survey.days');
  days.addOptions(['Monday', 'Tuesday', 'Wednesday', 'Thursday']);
  days.enableMultiselect();
  days.addToPage(page, { x: 330, y: 590, width: 150, height: 80, font });
  days.acroField.dict.set(PDFName.of('I'), ctx.obj([PDFNumber.of(1), PDFNumber.of(2)]));
  const film = form.createDropdown('survey.film');
  film.addOptions(['-']);
  film.addToPage(page, { x: 150, y: 555, width: 250, height: 20, font });
  film.acroField.dict.set(PDFName.of('Opt'), pairs([['1', 'Casablanca (Curtiz)'], ['2', 'Young Abraham Lincoln (Ranger Ed)'], ['3', 'Metropolis (Lang)']]));
  film.acroField.dict.set(PDFName.of('V'), PDFName.of('2'));
  const comments = form.createTextField('survey.comments');
  comments.enableMultiline();
  comments.addToPage(page, { x: 130, y: 430, width: 400, height: 80, font });
  comments.acroField.dict.set(PDFName.of('V'), ctx.stream('Screenings on Fridays suit me\rPlease add subtitles'));
  return doc.save({ updateFieldAppearances: false });
}

describe('PDF forms over HTTP', () => {
  let s: TestServer;
  let pdf: Uint8Array;

  before(async () => {
    s = await startTestServer();
    pdf = await formPdf();
  });
  after(async () => {
    await s?.close();
  });

  test('upload a filled-in form: its values are in the content text and the chunks', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('application.pdf', pdf) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.pages, 1);
    const content = await s.json(`/v1/documents/${up.body.id}/content?response=full`);
    assert.equal(content.status, 200);
    const text: string = content.body.text;
    assert.ok(text.includes('Membership application'), text);
    for (const v of ['Marguerite Okonkwo', 'Portugal', 'Prefers evening sessions', 'Allergic to peanuts']) assert.ok(text.includes(v), `${v} in:\n${text}`);
    assert.match(text, /Name:?\s*Marguerite Okonkwo/, 'the name next to its label');
    assert.equal(text.split('\u2612').length - 1, 1, 'the ticked box: ☒');
    assert.equal(text.split('\u25c9').length - 1, 1, 'the chosen radio button: ◉');
    assert.ok(!text.includes('Austria') && !text.includes('Norway'), 'options not chosen are not in the text');
    const chunked = (content.body.chunks as { content: string }[]).map((c) => c.content).join('\n');
    for (const v of ['Marguerite Okonkwo', 'Portugal', 'Allergic to peanuts']) assert.ok(chunked.includes(v), `${v} in the chunks`);
    // the filled-in fields as one table chunk as well, each value next to its field's name (the page text has them next to
    // the printed labels; a form that prints a value away from its label has them together only there)
    const forms = (content.body.chunks as { content: string; page: number }[]).filter((c) => c.content.startsWith('| Field | Value |'));
    assert.equal(forms.length, 1, chunked);
    assert.equal(forms[0]!.page, 1);
    const rows = forms[0]!.content.split('\n').slice(2);
    assert.deepEqual(rows, ['| Name | Marguerite Okonkwo |', '| Agree | Yes |', '| Plan | Premium |', '| Country | Portugal |', '| Remarks | Prefers evening sessions Allergic to peanuts |']);
  });

  test('/api/pdf-to-json: the name field is a key/value block, every value in the blocks', async () => {
    const js = await s.json('/api/pdf-to-json', { method: 'POST', body: uploadForm('application.pdf', pdf) });
    assert.equal(js.status, 200, JSON.stringify(js.body));
    const blocks = js.body.pages.flatMap((p: { blocks: { type: string; content: string; metadata: { key?: string; value?: string } }[] }) => p.blocks);
    const all = blocks.map((b: { content: string }) => b.content).join('\n');
    for (const v of ['Marguerite Okonkwo', 'Portugal', 'Prefers evening sessions', 'Allergic to peanuts', '\u2612', '\u25c9']) assert.ok(all.includes(v), `${v} in:\n${all}`);
    const name = blocks.find((b: { content: string }) => b.content.includes('Marguerite Okonkwo'));
    assert.equal(name.type, 'key_value', JSON.stringify(name));
    assert.deepEqual({ key: name.metadata.key, value: name.metadata.value }, { key: 'Name', value: 'Marguerite Okonkwo' });
    assert.equal(js.body.metadata.numPages, 1);
    // every field with its type, value and options, on page 1 inside the page
    const fields = js.body.metadata.formFields as { name: string; type: string; value: unknown; options?: string[]; page: number; bbox: { x: number; y: number; width: number; height: number } }[];
    const byName = new Map(fields.map((f) => [f.name, f]));
    assert.deepEqual(
      [...byName.keys()].sort(),
      ['applicant.agree', 'applicant.country', 'applicant.name', 'applicant.plan', 'applicant.remarks'],
    );
    assert.deepEqual([byName.get('applicant.name')!.type, byName.get('applicant.name')!.value], ['text', 'Marguerite Okonkwo']);
    assert.deepEqual([byName.get('applicant.agree')!.type, byName.get('applicant.agree')!.value], ['checkbox', true]);
    assert.equal(byName.get('applicant.plan')!.type, 'radio');
    assert.equal(byName.get('applicant.plan')!.value, 'Premium');
    assert.deepEqual(byName.get('applicant.plan')!.options, ['Basic', 'Premium', 'Gold']);
    assert.equal(byName.get('applicant.country')!.type, 'dropdown');
    assert.deepEqual(byName.get('applicant.country')!.value, ['Portugal']);
    assert.deepEqual(byName.get('applicant.country')!.options, ['Austria', 'Portugal', 'Norway']);
    assert.equal(byName.get('applicant.remarks')!.value, 'Prefers evening sessions\nAllergic to peanuts');
    for (const f of fields) {
      assert.equal(f.page, 1, f.name);
      assert.ok(f.bbox.x >= 0 && f.bbox.y >= 0 && f.bbox.x + f.bbox.width <= 612 && f.bbox.y + f.bbox.height <= 792, `${f.name} ${JSON.stringify(f.bbox)}`);
    }
    // the name field sits where pdf-lib put it: x 100, 20 high, its top 792 - 670 = 122 from the top
    const nb = byName.get('applicant.name')!.bbox;
    assert.ok(Math.abs(nb.x - 100) < 2 && Math.abs(nb.y - 122) < 2 && Math.abs(nb.height - 20) < 2, JSON.stringify(nb));
  });

  test('values held as export values, names, indices and streams: every chosen label and every line in the content, the fields table and edit detection', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('survey.pdf', await surveyPdf()) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const content = await s.json(`/v1/documents/${up.body.id}/content?response=full`);
    const text: string = content.body.text;
    for (const v of ['SQL Server', 'PostgreSQL', 'Young Abraham Lincoln (Ranger Ed)', 'Tuesday', 'Wednesday', 'Screenings on Fridays suit me', 'Please add subtitles']) assert.ok(text.includes(v), `${v} in:\n${text}`);
    for (const v of ['MySQL', 'Oracle', 'Casablanca', 'Metropolis', 'Monday', 'Thursday']) assert.ok(!text.includes(v), `${v} is not chosen:\n${text}`);
    const table = (content.body.chunks as { content: string }[]).find((c) => c.content.startsWith('| Field | Value |'));
    assert.ok(table, JSON.stringify(content.body.chunks));
    const rows = table.content.split('\n').slice(2).sort();
    assert.deepEqual(rows, ['| Comments | Screenings on Fridays suit me Please add subtitles |', '| Databases | SQL Server, PostgreSQL |', '| Days | Tuesday, Wednesday |', '| Film | Young Abraham Lincoln (Ranger Ed) |']);

    const js = await s.json('/api/pdf-to-json', { method: 'POST', body: uploadForm('survey.pdf', await surveyPdf()) });
    assert.equal(js.status, 200, JSON.stringify(js.body));
    const fields = new Map((js.body.metadata.formFields as { name: string; value: unknown }[]).map((f) => [f.name, f.value]));
    assert.deepEqual(fields.get('survey.databases'), ['SQL Server', 'PostgreSQL']);
    assert.deepEqual(fields.get('survey.days'), ['Tuesday', 'Wednesday']);
    assert.deepEqual(fields.get('survey.film'), ['Young Abraham Lincoln (Ranger Ed)']);
    assert.equal(fields.get('survey.comments'), 'Screenings on Fridays suit me\nPlease add subtitles');

    // the editor's detection gives the same current values
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: up.body.id } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const el = new Map((det.body.elements as { id: string; current_value: string }[]).map((e) => [e.id, e.current_value]));
    assert.equal(el.get('survey.databases'), 'SQL Server, PostgreSQL');
    assert.equal(el.get('survey.days'), 'Tuesday, Wednesday');
    assert.equal(el.get('survey.film'), 'Young Abraham Lincoln (Ranger Ed)');
    assert.equal(el.get('survey.comments'), 'Screenings on Fridays suit me\nPlease add subtitles');
  });
});
