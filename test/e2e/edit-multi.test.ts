// Edit over HTTP of "check all that apply" groups: checkboxes named alike whose caption lets several be
// ticked are one multi-choice field (type checkbox, multi, the captions as options), filled with several
// options by mapping and by instruction, read back and verified as a set; a group whose caption asks for
// one stays a single choice. A value naming an option the group lacks is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { readBack, uploadDone } from './edit-fixtures.js';

const DATABASES = ['SQL Server', 'Oracle', 'PostgreSQL', 'MySQL', 'SQLite'];
const SIZE = ['Small', 'Medium', 'Large'];

/** A survey: a five-box "check all that apply" group (db[0] … db[4]) and a three-box "check one" group under one parent. */
async function surveyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  page.drawText('Technology survey', { x: 60, y: 740, size: 16, font });
  page.drawText('Company:', { x: 60, y: 705, size: 11, font });
  form.createTextField('company').addToPage(page, { x: 160, y: 700, width: 250, height: 20, font });
  page.drawText('Databases you use (check all that apply)', { x: 60, y: 665, size: 11, font });
  DATABASES.forEach((caption, k) => {
    const y = 640 - k * 22;
    form.createCheckBox(`db[${k}]`).addToPage(page, { x: 80, y, width: 12, height: 12 });
    page.drawText(caption, { x: 100, y: y + 2, size: 10, font });
  });
  page.drawText('Team size (check one)', { x: 60, y: 510, size: 11, font });
  SIZE.forEach((caption, k) => {
    const x = 80 + k * 130;
    form.createCheckBox(`size.${caption.toLowerCase()}`).addToPage(page, { x, y: 485, width: 12, height: 12 });
    page.drawText(caption, { x: x + 18, y: 487, size: 10, font });
  });
  form.updateFieldAppearances(font);
  return doc.save();
}

describe('edit: "check all that apply" groups as multi-choice fields over HTTP', () => {
  let s: TestServer;
  let docId = '';
  let detected: { job_id: string; elements: any[] };

  // one detection, its job reused by every run (the runs fill from the elements it found)
  before(async () => {
    s = await startTestServer();
    docId = await uploadDone(s, 'survey.pdf', await surveyPdf());
    const r = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: docId } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    detected = r.body;
  });
  after(async () => {
    await s?.close();
  });

  test('a group captioned "check all that apply" is one multi field; one captioned "check one" a single choice', async () => {
    const els = detected.elements;
    const db = els.find((e) => e.id === 'db');
    assert.ok(db, JSON.stringify(els.map((e) => e.id)));
    assert.equal(db.type, 'checkbox');
    assert.equal(db.multi, true);
    assert.deepEqual(db.option_labels, DATABASES);
    const size = els.find((e) => e.id === 'size');
    assert.ok(size);
    assert.equal(size.type, 'radio');
    assert.equal(size.multi, undefined);
    assert.ok(!els.some((e) => /^db\[|^size\./.test(e.id)), JSON.stringify(els.map((e) => e.id)));
  });

  test('filled with several options by mapping: those boxes ticked, the others cleared, verified as a set', async () => {
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: detected.job_id, mappings: [{ elementId: 'db', value: ['PostgreSQL', 'SQL Server'] }, { elementId: 'size', value: 'Medium' }], verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const v = await readBack(run.body.output_file_url);
    assert.deepEqual([0, 1, 2, 3, 4].map((k) => v[`db[${k}]`]), [true, false, true, false, false]);
    assert.deepEqual(['small', 'medium', 'large'].map((k) => v[`size.${k}`]), [false, true, false]);
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
  });

  test('filled by instruction: "databases: SQL Server and Oracle" ticks both', async () => {
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: detected.job_id, instructions: 'Company: Acme. Databases: SQL Server and Oracle.', verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const v = await readBack(run.body.output_file_url);
    assert.equal(v.company, 'Acme');
    assert.deepEqual([0, 1, 2, 3, 4].map((k) => v[`db[${k}]`]), [true, true, false, false, false]);
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));

    const ticks = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: detected.job_id, instructions: 'Check MySQL and SQLite.', verify: true } });
    assert.equal(ticks.status, 200, JSON.stringify(ticks.body));
    const t = await readBack(ticks.body.output_file_url);
    assert.deepEqual([0, 1, 2, 3, 4].map((k) => t[`db[${k}]`]), [false, false, false, true, true]);
    assert.equal(ticks.body.verification_result.pass, true, JSON.stringify(ticks.body.verification_result));
  });

  test('a value naming an option the group does not have is refused with a warning, nothing ticked', async () => {
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: detected.job_id, mappings: [{ elementId: 'db', value: 'Oracle, DB2' }], verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const v = await readBack(run.body.output_file_url);
    assert.deepEqual([0, 1, 2, 3, 4].map((k) => v[`db[${k}]`]), [false, false, false, false, false]);
    assert.equal(run.body.verification_result.pass, false, JSON.stringify(run.body.verification_result));
  });
});
