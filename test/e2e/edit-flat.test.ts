// Edit (spec §4.5) of flat forms over HTTP: a pdf-lib form flattened (its fields become drawn boxes and a
// checkbox square), a printed form of underlines, boxes and squares, and a PNG rendering of the flattened
// form (OCR words + the drawn lines in its pixels). Blanks are found with their labels, filled in place
// and verified (text layer, or OCR of the output image).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { formPdf, printedFormPdf, uploadDone } from './edit-fixtures.js';

/** A printed sign-up sheet: a table headed Name | Phone with four empty rows, none with a label of its own. */
async function signUpSheetPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Workshop sign-up sheet', { x: 50, y: 740, size: 16, font });
  for (let k = 0; k < 5; k++) {
    const top = 700 - k * 24;
    ['Name', 'Phone'].forEach((h, c) => {
      page.drawRectangle({ x: 50 + c * 200, y: top - 24, width: 200, height: 24, borderWidth: 1, borderColor: rgb(0, 0, 0) });
      if (k === 0) page.drawText(h, { x: 55 + c * 200, y: top - 16, size: 11, font });
    });
  }
  return doc.save();
}

const FORM_LABELS = ['Name', 'Date of birth', 'City', 'Number of children', 'US citizen', 'Plan', 'Country'];

describe('edit of flat forms over HTTP', () => {
  let s: TestServer;
  const upload = (name: string, bytes: Uint8Array) => uploadDone(s, name, bytes);
  let flatId = '';
  let files: http.Server;
  let filesUrl = '';

  before(async () => {
    const printed = await printedFormPdf();
    files = http.createServer((req, res) => {
      if (req.url !== '/printed.pdf') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.from(printed));
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    s = await startTestServer({ env: { QUIRE_ALLOWED_HOSTS: '127.0.0.1' } });
  });
  after(async () => {
    await s?.close();
    await new Promise((r) => files?.close(r));
  });

  test('a flattened form: boxes and the checkbox square found with labels, filled in place and verified', async () => {
    flatId = await upload('flat.pdf', await formPdf({ flatten: true }));
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: flatId } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const els = det.body.elements as any[];
    const found = FORM_LABELS.filter((w) => els.some((e) => e.label === w));
    assert.ok(found.length / FORM_LABELS.length >= 0.8, `found ${JSON.stringify(els.map((e) => [e.label, e.type]))}`);
    const by = (l: string) => els.find((e) => e.label === l);
    assert.equal(by('US citizen')?.type, 'checkbox', 'the flattened checkbox square is a checkbox');
    assert.equal(by('US citizen')?.checked, false);
    assert.equal(by('Date of birth')?.type, 'date_field');
    // the drawn box, not a guess: the name field's rectangle is at x 180..400, y 792-710-20..792-710
    const nb = by('Name').bbox;
    assert.ok(Math.abs(nb.x - 180) < 3 && Math.abs(nb.width - 220) < 4 && Math.abs(nb.y - 82) < 3 && Math.abs(nb.height - 20) < 4, JSON.stringify(nb));
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: { Name: 'Jane Doe', City: 'Oslo', 'Date of birth': '1990-04-04', 'US citizen': true, Country: 'Norway' }, verify: true, config: { fillSettings: { formattingColor: '#1f3a93' } } } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
    assert.equal(run.body.verification_result.checkedFields.length, 5);
    // detection of the output sees the square ticked
    const out = await s.json('/v1/documents', { method: 'POST', body: uploadForm('filled.pdf', new Uint8Array(await (await fetch(run.body.output_file_url)).arrayBuffer())) });
    await waitForStatus(s, `/v1/documents/${out.body.id}`);
    const again = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: out.body.id } });
    assert.equal((again.body.elements as any[]).find((e) => e.label === 'US citizen')?.checked, true, JSON.stringify(again.body.elements));
  });

  test('a printed form given as a URL: an underline, a box, two squares, empty table cells under their header, a comb and a signature line', async () => {
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { input: `${filesUrl}/printed.pdf` } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const id = (await s.json(`/api/edit/jobs/${det.body.job_id}`)).body.document_id as string;
    const doc = await s.json(`/v1/documents/${id}`);
    assert.equal(doc.body.name, 'printed.pdf', 'the URL became a document of the caller');
    const els = det.body.elements as any[];
    const t = Object.fromEntries(els.map((e) => [e.label, e.type]));
    assert.deepEqual(t, { 'Full name': 'text_field', Email: 'text_field', Student: 'checkbox', Retired: 'checkbox', 'Quantity (Apples)': 'number_field', 'Quantity (Pears)': 'number_field', Postcode: 'text_field', Signature: 'signature' }, JSON.stringify(els));
    const post = els.find((e) => e.label === 'Postcode');
    assert.equal(post.comb, true);
    assert.equal(post.max_length, 5);
    const noBoxes = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id, config: { include_checkboxes: false, include_signatures: false } } });
    assert.deepEqual((noBoxes.body.elements as any[]).map((e) => e.label).sort(), ['Email', 'Full name', 'Postcode', 'Quantity (Apples)', 'Quantity (Pears)']);
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: { 'Full name': 'Ana Lima', Email: 'ana@example.org', Retired: true, 'Quantity (Pears)': '12', Postcode: '40213' }, verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
    // HEIC is refused with a clear error (no decoder under a compatible licence)
    const heic = await s.json('/api/edit/detect', { method: 'POST', json: { input: `${filesUrl}/photo.heic` } });
    assert.equal(heic.status, 422, JSON.stringify(heic.body));
    assert.match(JSON.stringify(heic.body), /UNSUPPORTED_FORMAT.*HEIC/);
    // a URL to a private address outside the allowed hosts is refused
    const ssrf = await s.json('/api/edit/detect', { method: 'POST', json: { input: 'http://169.254.169.254/latest/meta-data' } });
    assert.equal(ssrf.status, 400, JSON.stringify(ssrf.body));
  });

  test('a table of empty rows without row labels: each blank named by its column and its row, filled by that name', async () => {
    const id = await upload('sign-up.pdf', await signUpSheetPdf());
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const els = det.body.elements as { id: string; label: string; type: string; bbox: { y: number } }[];
    const labels = els.map((e) => e.label).sort();
    assert.deepEqual(labels, ['Name (row 1)', 'Name (row 2)', 'Name (row 3)', 'Name (row 4)', 'Phone (row 1)', 'Phone (row 2)', 'Phone (row 3)', 'Phone (row 4)'], JSON.stringify(els));
    // row 1 is the top row: under the header
    const nameRows = els.filter((e) => e.label.startsWith('Name')).sort((a, b) => a.bbox.y - b.bbox.y);
    assert.deepEqual(nameRows.map((e) => e.label), ['Name (row 1)', 'Name (row 2)', 'Name (row 3)', 'Name (row 4)']);
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: { 'Name (row 3)': 'Ana Lima', 'Phone (row 3)': '555 0134' }, verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
    // written into the third row's boxes
    const filled = (run.body.filled_elements as { element_id: string }[]).map((f) => f.element_id).sort();
    const phoneRow3 = els.find((e) => e.label === 'Phone (row 3)')!;
    assert.deepEqual(filled, [nameRows[2]!.id, phoneRow3.id].sort(), JSON.stringify(run.body.filled_elements));
  });

  test('a PNG rendering of the flattened form: OCR words and drawn lines, filled at its resolution, verified by OCR', async () => {
    assert.ok(flatId, 'the flattened form was uploaded');
    const img = await fetch(`${s.url}/api/documents/${flatId}/pages/1/image?dpi=200`, { headers: { authorization: `Bearer ${s.key}` } });
    assert.equal(img.status, 200);
    const png = new Uint8Array(await img.arrayBuffer());
    const id = await upload('form.png', png);
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const els = det.body.elements as any[];
    const found = FORM_LABELS.filter((w) => els.some((e) => e.label === w));
    assert.ok(found.length / FORM_LABELS.length >= 0.8, `found ${JSON.stringify(els.map((e) => [e.label, e.type]))}`);
    assert.equal(els.find((e) => e.label === 'US citizen')?.type, 'checkbox');
    const run = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: { Name: 'Jane Doe', City: 'Oslo', 'US citizen': true }, verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const verification = run.body.verification_result;
    const out = await fetch(run.body.output_file_url);
    assert.equal(out.headers.get('content-type'), 'image/png');
    assert.equal(verification.pass, true, JSON.stringify(verification));
    const bytes = new Uint8Array(await out.arrayBuffer());
    // same pixel size as the upload (PNG IHDR width and height)
    const dv = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset);
    assert.deepEqual([dv(bytes).getUint32(16), dv(bytes).getUint32(20)], [dv(png).getUint32(16), dv(png).getUint32(20)]);
  });
});
