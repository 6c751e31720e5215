import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { PNG } from 'pngjs';
import { createKey, findOrCreateUser } from '@quire/server';
import { makePdf, makeXlsx } from '../helpers/fixtures.js';
import { errorBody } from '../helpers/assertions.js';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import type { Receiver } from '../helpers/receiver.js';

/**
 * Split (spec §4.7) through HTTP: a PDF joined from three different documents made here (a letter, a
 * two-page invoice with an image, a three-page report with a form field) splits back at its true boundaries
 * with method ai, into PDF children that keep text, image and form field and whose text is the parent's text
 * of their pages; page and manual methods; validation; jobid:// reuse without a new parse; labels; the
 * document's sections; configs; a batch of 50 with one signed webhook per job and 51 refused; split events
 * to a subscription; someone else's resources are 404. Corpus combinations: test/e2e/split-corpus.test.ts.
 */

/** A small PNG (a coloured block), so that the invoice carries an image XObject. */
function logoPng(): Buffer {
  const png = new PNG({ width: 24, height: 12 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([30, 90, 160, 255], i);
  return PNG.sync.write(png);
}

/** Three different documents in one PDF: letter (p1), invoice (p2-3), report (p4-6). */
async function joinedFixture(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const times = await pdf.embedFont(StandardFonts.TimesRoman);
  const timesBold = await pdf.embedFont(StandardFonts.TimesRomanBold);
  const helv = await pdf.embedFont(StandardFonts.Helvetica);
  const helvBold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const courier = await pdf.embedFont(StandardFonts.Courier);
  const courierBold = await pdf.embedFont(StandardFonts.CourierBold);
  const lines = (page: ReturnType<typeof pdf.addPage>, from: number, text: string[], font: typeof times, size: number, x = 72) => text.forEach((t, i) => page.drawText(t, { x, y: from - i * size * 1.5, size, font }));

  // a letter, A4, Times
  const letter = pdf.addPage([595, 842]);
  lines(letter, 790, ['Northwind Traders Ltd', '12 Harbour Road, Bristol BS1 4DJ', 'Tel: +44 117 496 0000  www.northwind.example'], timesBold, 12);
  lines(letter, 690, ['Dear Ms Alvarez,', '', 'Thank you for visiting our showroom last week. As promised, we enclose the brochure of the', 'garden furniture collection and the schedule of our spring open days in the harbour warehouse.', 'Our carpenters will gladly measure your terrace and advise on teak or oak benches, tables and', 'parasols before the summer season begins.', '', 'Yours sincerely,', '', 'Harriet Nolan, Sales Manager'], times, 12);

  // an invoice, Letter size, Helvetica, two pages numbered "Page n of 2", with a logo image
  const logo = await pdf.embedPng(logoPng());
  const inv1 = pdf.addPage([612, 792]);
  inv1.drawImage(logo, { x: 72, y: 730, width: 48, height: 24 });
  inv1.drawText('INVOICE', { x: 400, y: 735, size: 22, font: helvBold });
  lines(inv1, 690, ['Globex Components GmbH', 'Invoice Number: GX-2024-0917', 'Invoice Date: 2024-09-17', 'Bill To: Initech Systems', '', 'Qty  Description                         Unit Price   Amount', '4    Stepper motor NEMA 17                  18.50        74.00', '10   Timing belt GT2 2m                      6.20        62.00', '2    Aluminium extrusion 2040 1m            11.90        23.80'], helv, 10);
  inv1.drawText('Page 1 of 2', { x: 280, y: 40, size: 8, font: helv });
  const inv2 = pdf.addPage([612, 792]);
  lines(inv2, 720, ['Qty  Description                         Unit Price   Amount', '6    Linear rail MGN12 400mm                24.00       144.00', '1    Controller board 32-bit                39.00        39.00', '', 'Subtotal: 342.80', 'VAT 19%: 65.13', 'Total Amount Due: EUR 407.93', 'Payment terms: 30 days, IBAN DE44 5001 0517 5407 3249 31'], helv, 10);
  inv2.drawText('Page 2 of 2', { x: 280, y: 40, size: 8, font: helv });

  // a report, A4 landscape-free portrait in Courier, three numbered pages, a form field on its second page
  const report = ['Quarterly Safety Report', 'Warehouse inspections recorded two minor incidents in the loading bay during July.', 'Forklift drivers completed refresher training and the racking was re-certified.'];
  const r1 = pdf.addPage([595, 842]);
  r1.drawText(report[0]!, { x: 60, y: 780, size: 18, font: courierBold });
  lines(r1, 740, [report[1]!, report[2]!, 'Fire drills were held in every shift; evacuation took four minutes.', 'Inspectors checked extinguishers, exits and first aid kits on all floors.'], courier, 9, 60);
  r1.drawText('1', { x: 297, y: 30, size: 9, font: courier });
  const r2 = pdf.addPage([595, 842]);
  lines(r2, 780, ['Incident log: loading bay, July. Two minor incidents: a pallet fell from a', 'forklift and a driver slipped on a wet floor near the dock doors. Inspectors', 'asked for anti-slip mats and a second convex mirror at the racking corner.', 'Inspector signature:'], courier, 9, 60);
  const form = pdf.getForm();
  const field = form.createTextField('inspector.name');
  field.setText('R. Okafor');
  field.addToPage(r2, { x: 200, y: 700, width: 180, height: 18 });
  r2.drawText('2', { x: 297, y: 30, size: 9, font: courier });
  const r3 = pdf.addPage([595, 842]);
  lines(r3, 780, ['Training: forklift drivers and warehouse staff completed refresher courses on', 'racking loads, dock safety and fire drills. Next inspection of the loading bay', 'and racking is planned for October, with extinguishers and first aid kits.'], courier, 9, 60);
  r3.drawText('3', { x: 297, y: 30, size: 9, font: courier });
  return pdf.save();
}

describe('split', () => {
  let s: TestServer;
  let rx: Receiver;
  let otherKey = '';
  let joinedId = '';
  let fiveId = '';

  async function upload(name: string, bytes: Uint8Array | string, key?: string): Promise<string> {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes), key });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    return up.body.id;
  }
  const processed = async (id: string) => {
    const d = await waitForStatus(s, `/v1/documents/${id}`);
    assert.equal(d.status, 'completed', JSON.stringify(d));
    return d;
  };
  const text = async (id: string) => (await s.json(`/v1/documents/${id}/content?response=text`)).body.text as string;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_WEBHOOK_RETRY_DELAYS_S: '0.2,0.2,0.2,0.2' } });
    rx = await startReceiver();
    const other = await findOrCreateUser(s.runtime.store, 'other-split@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
    joinedId = await upload('joined.pdf', await joinedFixture());
    fiveId = await upload('five.pdf', await makePdf([1, 2, 3, 4, 5].map((n) => ({ heading: `Chapter ${n}`, lines: [`Body text of page ${n} about shipping containers.`] }))));
    await processed(joinedId);
    await processed(fiveId);
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  test('ai: the joined letter, invoice and report split back at pages 2 and 4; children are PDFs of their pages with text, image and form field', async () => {
    const analyze = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: joinedId } });
    assert.equal(analyze.status, 200, JSON.stringify(analyze.body));
    assert.equal(analyze.body.total_pages, 6);
    assert.deepEqual(analyze.body.suggested_sections.map((x: any) => [x.page_start, x.page_end]), [[1, 1], [2, 3], [4, 6]], JSON.stringify(analyze.body.suggested_sections));
    assert.equal(analyze.body.recommended_splits, 2);
    for (const x of analyze.body.suggested_sections) {
      assert.ok(x.confidence > 0 && x.confidence <= 1, `confidence ${x.confidence}`);
      assert.ok(typeof x.reason === 'string' && x.reason.length > 0);
    }
    assert.match(analyze.body.suggested_sections[1].reason, /paper size|letterhead|type|topic|title|numbering/);
    assert.equal(analyze.body.suggested_sections[1].document_type, 'invoice');

    const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: joinedId, config: { method: 'ai' } } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.success, true);
    const sections = run.body.sections as any[];
    assert.deepEqual(sections.map((x) => [x.page_start, x.page_end, x.section_type]), [[1, 1, 'detected'], [2, 3, 'detected'], [4, 6, 'detected']]);
    // children: documents of their own, processed, PDFs of exactly their pages
    const parentText = await text(joinedId);
    const childTexts: string[] = [];
    for (const sec of sections) {
      const child = await processed(sec.document_id);
      assert.equal(child.file_type, 'pdf');
      assert.equal(child.pages, sec.page_end - sec.page_start + 1);
      const t = await text(sec.document_id);
      assert.ok(t.length > 20 && parentText.includes(t), `child text is the parent's text of pages ${sec.page_start}-${sec.page_end}`);
      childTexts.push(t);
      const row = await s.runtime.store.repo('documents').get(sec.document_id);
      const pdf = await PDFDocument.load(await s.runtime.storage.get(row!.storage_key));
      assert.equal(pdf.getPageCount(), child.pages);
    }
    assert.equal(childTexts.join('\n\n'), parentText, 'the children together are the parent, page for page');
    assert.match(childTexts[1]!, /GX-2024-0917/);
    assert.match(childTexts[2]!, /Quarterly Safety Report/);
    // the invoice child keeps its image, the report child its filled form field
    const invoice = await PDFDocument.load(await s.runtime.storage.get((await s.runtime.store.repo('documents').get(sections[1].document_id))!.storage_key));
    const xobjects = invoice.getPage(0).node.Resources()?.lookup((await import('pdf-lib')).PDFName.of('XObject'));
    assert.ok(xobjects && String(xobjects).includes('/'), 'the logo image is still on the invoice page');
    const report = await PDFDocument.load(await s.runtime.storage.get((await s.runtime.store.repo('documents').get(sections[2].document_id))!.storage_key));
    assert.equal(report.getForm().getTextField('inspector.name').getText(), 'R. Okafor');
    // children are searchable like uploads
    const found = await s.json('/v1/search', { method: 'POST', json: { query: 'stepper motor timing belt invoice', limit: 10 } });
    assert.ok(found.body.data.some((h: any) => h.document_id === sections[1].document_id), JSON.stringify(found.body.data.map((h: any) => h.document_name)));

    // results, and the document's sections (camelCase)
    const res = await s.json(`/api/split/results/${run.body.job_id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'completed');
    assert.equal(res.body.source_document_id, joinedId);
    assert.deepEqual(res.body.sections.map((x: any) => x.document_id), sections.map((x) => x.document_id));
    assert.ok(res.body.created_at && res.body.completed_at);
    const docSections = await s.json(`/api/documents/${joinedId}/sections`);
    assert.equal(docSections.status, 200);
    assert.equal(docSections.body.documentId, joinedId);
    assert.equal(docSections.body.documentName, 'joined.pdf');
    assert.equal(docSections.body.totalSections, 3);
    assert.equal(docSections.body.hasSections, true);
    const first = docSections.body.sections[1];
    assert.deepEqual(Object.keys(first).sort(), ['childDocumentId', 'childDocumentName', 'childDocumentStatus', 'confidence', 'id', 'label', 'metadata', 'pageCount', 'pageEnd', 'pageStart', 'sectionName', 'sectionType'].sort());
    assert.equal(first.pageCount, 2);
    assert.equal(first.childDocumentStatus, 'completed');
    assert.equal(first.childDocumentId, sections[1].document_id);
    const none = await s.json(`/api/documents/${fiveId}/sections`);
    assert.deepEqual([none.body.totalSections, none.body.hasSections], [0, false]);

    // labels: at most 64 characters, a non-empty section name
    const id = sections[1].id;
    const long = await s.json(`/api/split/sections/${id}`, { method: 'PATCH', json: { label: 'x'.repeat(65) } });
    assert.equal(long.status, 400);
    errorBody(long.body, 'VALIDATION_ERROR');
    const empty = await s.json(`/api/split/sections/${id}`, { method: 'PATCH', json: { section_name: '  ' } });
    assert.equal(empty.status, 400);
    errorBody(empty.body, 'VALIDATION_ERROR');
    const ok = await s.json(`/api/split/sections/${id}`, { method: 'PATCH', json: { label: 'x'.repeat(64), section_name: 'Globex invoice' } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual([ok.body.section.label, ok.body.section.section_name, ok.body.section.page_start, ok.body.section.document_id], ['x'.repeat(64), 'Globex invoice', 2, sections[1].document_id]);
    assert.equal((await s.json(`/api/documents/${joinedId}/sections`)).body.sections[1].sectionName, 'Globex invoice');

    // someone else's job, section and document are not there for them
    assert.equal((await s.json(`/api/split/results/${run.body.job_id}`, { key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/split/sections/${id}`, { method: 'PATCH', json: { label: 'mine' }, key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/documents/${joinedId}/sections`, { key: otherKey })).status, 404);
    assert.equal((await s.json('/api/split/run', { method: 'POST', json: { document_id: joinedId }, key: otherKey })).status, 404);
  });

  test('page and manual split exactly; manual sections are checked', async () => {
    const parsedBefore = (await s.json('/api/user/credits')).body.usage_summary.parse;
    const page = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'page', settings: { pagesPerSection: 2 } } } });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.deepEqual(page.body.sections.map((x: any) => [x.page_start, x.page_end, x.section_type]), [[1, 2, 'page'], [3, 4, 'page'], [5, 5, 'page']]);
    const pages = await Promise.all(page.body.sections.map((x: any) => processed(x.document_id)));
    assert.deepEqual(pages.map((d) => d.pages), [2, 2, 1]);
    // the children's content is the parent's, already read and paid: they are not charged as parses again
    assert.equal((await s.json('/api/user/credits')).body.usage_summary.parse, parsedBefore);
    assert.match(await text(page.body.sections[2].document_id), /Chapter 5/);
    assert.doesNotMatch(await text(page.body.sections[2].document_id), /Chapter 4/);

    const manual = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, sections: [{ name: 'Intro', page_start: 1, page_end: 1 }, { name: 'Rest', page_start: 2, page_end: 5 }] } });
    assert.equal(manual.status, 200, JSON.stringify(manual.body));
    assert.deepEqual(manual.body.sections.map((x: any) => [x.name, x.page_start, x.page_end, x.section_type, x.confidence]), [['Intro', 1, 1, 'custom', 1], ['Rest', 2, 5, 'custom', 1]]);
    const rest = await text(manual.body.sections[1].document_id);
    assert.match(rest, /Chapter 2[\s\S]*Chapter 5/);
    assert.doesNotMatch(rest, /Chapter 1\b/);

    for (const [sections, what] of [
      [[{ page_start: 1, page_end: 3 }, { page_start: 3, page_end: 5 }], 'overlap'],
      [[{ page_start: 4, page_end: 6 }], 'beyond'],
      [[{ page_start: 3, page_end: 2 }], 'after'],
    ] as const) {
      const bad = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'manual' }, sections } });
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      errorBody(bad.body, 'VALIDATION_ERROR');
      assert.match(bad.body.error.message, new RegExp(what));
    }
    const overlapAllowed = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'manual', settings: { allowOverlap: true } }, sections: [{ page_start: 1, page_end: 3 }, { page_start: 3, page_end: 5 }] } });
    assert.equal(overlapAllowed.status, 200, JSON.stringify(overlapAllowed.body));
    // overlapping sections cannot multiply what a document takes in storage: their pages together are at most
    // twice the document's (10 here), and a split makes at most 200 sections
    const whole = { page_start: 1, page_end: 5 };
    const twice = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'manual', settings: { allowOverlap: true } }, sections: [whole, whole] } });
    assert.equal(twice.status, 200, JSON.stringify(twice.body));
    for (const body of [
      { config: { method: 'manual', settings: { allowOverlap: true } }, sections: [whole, whole, { page_start: 1, page_end: 1 }] },
      { config: { method: 'ai' }, skip_analysis: true, sections: [whole, whole, whole] },
    ]) {
      const amplified = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, ...body } });
      assert.equal(amplified.status, 400, JSON.stringify(amplified.body));
      errorBody(amplified.body, 'VALIDATION_ERROR');
      assert.match(amplified.body.error.message, /at most 10 \(2 × its pages\)/);
    }
    const many = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'manual', settings: { allowOverlap: true } }, sections: Array.from({ length: 201 }, () => ({ page_start: 1, page_end: 1 })) } });
    assert.equal(many.status, 400, JSON.stringify(many.body).slice(0, 500));
    errorBody(many.body, 'VALIDATION_ERROR');
    assert.match(JSON.stringify(many.body.error), /at most 200 sections/);
    // skip_analysis: the given sections as they are, whatever the method
    const skipped = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'ai' }, skip_analysis: true, sections: [{ name: 'All', page_start: 1, page_end: 5 }] } });
    assert.deepEqual(skipped.body.sections.map((x: any) => [x.name, x.page_start, x.page_end, x.section_type]), [['All', 1, 5, 'custom']]);
    // instructions and minSectionPages reach the detector
    const every2 = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: fiveId, config: { instructions: 'split every 2 pages' } } });
    assert.deepEqual(every2.body.suggested_sections.map((x: any) => x.page_start), [1, 3, 5]);
    assert.match(every2.body.suggested_sections[1].reason, /instructed/);
    const longer = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: joinedId, config: { settings: { minSectionPages: 2 } } } });
    assert.ok(longer.body.suggested_sections.every((x: any) => x.page_end - x.page_start + 1 >= 2), JSON.stringify(longer.body.suggested_sections));
    const noSections = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'manual' } } });
    assert.equal(noSections.status, 400);
    const both = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, input: `svc://${fiveId}` } });
    assert.equal(both.status, 400);
  });

  test('another format: each section carries the page range of the parsed content (a workbook, a sheet a page)', async () => {
    const id = await upload('budget.xlsx', await makeXlsx());
    const parent = await processed(id);
    assert.equal(parent.pages, 2);
    const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: id, config: { method: 'page' } } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(run.body.sections.map((x: any) => [x.page_start, x.page_end]), [[1, 1], [2, 2]]);
    const staff = run.body.sections[1];
    assert.deepEqual(staff.metadata.page_range, { start: 2, end: 2 });
    assert.equal(staff.metadata.child_file, 'parent_file');
    const child = await processed(staff.document_id);
    assert.deepEqual([child.file_type, child.pages], ['xlsx', 1]);
    const t = await text(staff.document_id);
    assert.match(t, /Ada/);
    assert.doesNotMatch(t, /Engineering/);
    assert.ok((await text(id)).includes(t));
  });

  test('jobid:// reuses a finished parse without parsing again; svc:// input; async run calls its webhook_url, signed', async () => {
    const parse = await s.json('/api/parse/async', { method: 'POST', json: { input: `svc://${fiveId}` } });
    assert.equal(parse.status, 202);
    assert.equal((await waitForStatus(s, `/api/jobs/${parse.body.job_id}`)).status, 'completed');
    const parsesBefore = await s.runtime.store.repo('jobs').count({ type: 'parse' });
    const reads = await s.runtime.store.repo('job_stages').count({ stage: 'ingest.read' });
    const viaJob = await s.json('/api/split/run', { method: 'POST', json: { input: `jobid://${parse.body.job_id}`, config: { method: 'page', settings: { pages_per_section: 5 } } } });
    assert.equal(viaJob.status, 200, JSON.stringify(viaJob.body));
    assert.deepEqual(viaJob.body.sections.map((x: any) => [x.page_start, x.page_end]), [[1, 5]]);
    assert.equal(viaJob.body.source_document_id, fiveId);
    assert.equal(await s.runtime.store.repo('jobs').count({ type: 'parse' }), parsesBefore, 'no new parse');
    assert.equal(await s.runtime.store.repo('job_stages').count({ stage: 'ingest.read' }), reads, 'nothing read again');

    const hook = `${rx.base}/split-hook`;
    const run = await s.json('/api/split/run', { method: 'POST', json: { input: `svc://${joinedId}`, webhook_url: hook } });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    assert.equal(run.body.status, 'pending');
    const [hit] = await until('the split webhook', () => (rx.hits('/split-hook').length ? rx.hits('/split-hook') : null), 60_000);
    const payload = JSON.parse(hit!.body);
    assert.deepEqual(Object.keys(payload).sort(), ['document_id', 'event', 'job_id', 'results_url', 'sections_summary', 'status', 'timestamp']);
    assert.equal(payload.event, 'split.completed');
    assert.equal(payload.job_id, run.body.job_id);
    assert.equal(payload.document_id, joinedId);
    assert.equal(payload.status, 'completed');
    assert.match(payload.results_url, new RegExp(`/api/split/results/${run.body.job_id}$`));
    assert.deepEqual(payload.sections_summary.map((x: any) => [x.page_start, x.page_end, x.type]), [[1, 1, 'detected'], [2, 3, 'detected'], [4, 6, 'detected']]);
    assert.ok(payload.sections_summary.every((x: any) => x.section_id && x.name));
    const { body: sec } = await s.json('/api/webhooks/callback-secret');
    assert.equal(hit!.headers['x-svc-signature'], `sha256=${createHmac('sha256', sec.secret).update(hit!.body).digest('hex')}`);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.hits('/split-hook').length, 1, 'once per job');
  });

  test('a URL input becomes a document and is split; a URL that cannot be fetched gives split.failed', async () => {
    const bytes = await makePdf([{ heading: 'Tide tables', lines: ['High water at 06:12 in Brest.'] }, { heading: 'Harbour dues', lines: ['Mooring costs 14 euros a night.'] }]);
    const files = http.createServer((req, res) => {
      if (req.url === '/tides.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.from(bytes));
      else res.writeHead(404).end('missing');
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    try {
      const run = await s.json('/api/split/run', { method: 'POST', json: { input: `${base}/tides.pdf`, config: { method: 'page' } } });
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal(run.body.sections.length, 2);
      const parent = await processed(run.body.source_document_id);
      assert.equal(parent.name, 'tides.pdf');
      assert.match(await text(run.body.sections[1].document_id), /Harbour dues/);
      const hook = `${rx.base}/failed-hook`;
      const bad = await s.json('/api/split/run', { method: 'POST', json: { input: `${base}/gone.pdf`, webhook_url: hook } });
      assert.equal(bad.status, 202);
      const [hit] = await until('split.failed', () => (rx.hits('/failed-hook').length ? rx.hits('/failed-hook') : null), 60_000);
      const payload = JSON.parse(hit!.body);
      assert.deepEqual([payload.event, payload.status, payload.job_id], ['split.failed', 'failed', bad.body.job_id]);
      assert.ok(typeof payload.error === 'string' && payload.error.length > 0);
      assert.deepEqual(payload.sections_summary, []);
      const res = await s.json(`/api/split/results/${bad.body.job_id}`);
      assert.equal(res.body.status, 'failed');
    } finally {
      await new Promise<void>((r) => files.close(() => r()));
    }
  });

  test('without webhook_url, split events go to the subscribed webhooks, unwrapped', async () => {
    const sub = await s.json('/api/webhooks', { method: 'POST', json: { url: `${rx.base}/subscribed`, events: ['split.completed', 'split.failed'] } });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config: { method: 'page' } } });
    assert.equal(run.status, 200);
    const [hit] = await until('the subscribed webhook', () => (rx.hits('/subscribed').length ? rx.hits('/subscribed') : null), 30_000);
    const payload = JSON.parse(hit!.body);
    assert.equal(payload.event, 'split.completed');
    assert.equal(payload.job_id, run.body.job_id);
    assert.equal(payload.data, undefined, 'not wrapped in the envelope');
    assert.equal(payload.sections_summary.length, 5);
    assert.equal(hit!.headers['x-svc-signature'], `sha256=${createHmac('sha256', sub.body.secret ?? sub.body.webhook?.secret).update(hit!.body).digest('hex')}`);
    await s.json(`/api/webhooks/${sub.body.webhook_id ?? sub.body.id ?? sub.body.webhook?.id}`, { method: 'DELETE' });
  });

  test('configs: CRUD, merged under the inline config, private to their owner', async () => {
    const made = await s.json('/api/split/configs', { method: 'POST', json: { name: 'Two pages', description: 'pairs', settings: { method: 'page', pages_per_section: 2, preserve_headers: true } } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.config.id;
    assert.equal(made.body.config.settings.pages_per_section, 2);
    const list = await s.json('/api/split/configs');
    assert.ok(list.body.configs.some((c: any) => c.id === id));
    const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config_id: id } });
    assert.deepEqual(run.body.sections.map((x: any) => [x.page_start, x.page_end]), [[1, 2], [3, 4], [5, 5]]);
    const inline = await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config_id: id, config: { settings: { pagesPerSection: 5 } } } });
    assert.deepEqual(inline.body.sections.map((x: any) => [x.page_start, x.page_end]), [[1, 5]], 'the inline config wins');
    const patched = await s.json(`/api/split/configs/${id}`, { method: 'PATCH', json: { name: 'Pairs' } });
    assert.equal(patched.body.config.name, 'Pairs');
    assert.equal(patched.body.config.settings.method, 'page');
    assert.equal((await s.json(`/api/split/configs/${id}`, { key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/split/configs/${id}`, { method: 'DELETE', key: otherKey })).status, 404);
    assert.equal((await s.json('/api/split/run', { method: 'POST', json: { document_id: fiveId, config_id: id }, key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/split/configs/${id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await s.json(`/api/split/configs/${id}`)).status, 404);
    const bad = await s.json('/api/split/configs', { method: 'POST', json: { name: 'x', settings: { method: 'manual' } } });
    assert.equal(bad.status, 400);
  });

  test('a batch of 50 runs with one webhook per job; 51 documents are refused', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i += 10) ids.push(...(await Promise.all([...Array(10).keys()].map((k) => upload(`memo-${i + k}.txt`, `Memo ${i + k}\n\nThe delivery of crate ${i + k} is booked for Tuesday.`)))));
    const tooMany = await s.json('/api/split/batch', { method: 'POST', json: { document_ids: ids.slice(0, 40), input: ids.slice(0, 11).map((id) => `svc://${id}`) } });
    assert.equal(tooMany.status, 400, JSON.stringify(tooMany.body));
    errorBody(tooMany.body, 'VALIDATION_ERROR');
    assert.match(tooMany.body.error.message, /50/);
    const hook = `${rx.base}/batch-hook`;
    const batch = await s.json('/api/split/batch', { method: 'POST', json: { document_ids: ids.slice(0, 30), input: ids.slice(30).map((id) => `svc://${id}`), config: { method: 'page' }, webhook_url: hook } });
    assert.equal(batch.status, 202, JSON.stringify(batch.body));
    assert.equal(batch.body.total_count, 50);
    const done = await until('the batch to complete', async () => {
      const b = await s.json(`/api/split/batch/${batch.body.batch_id}`);
      return b.body.status === 'completed' ? b.body : null;
    }, 120_000, 250);
    assert.equal(done.jobs.length, 50);
    assert.ok(done.jobs.every((j: any) => j.status === 'completed' && j.error === null), JSON.stringify(done.jobs.filter((j: any) => j.status !== 'completed')));
    assert.deepEqual(done.jobs.map((j: any) => j.document_id), ids);
    await until('50 webhooks', () => rx.hits('/batch-hook').length >= 50, 60_000);
    await new Promise((r) => setTimeout(r, 300));
    const hits = rx.hits('/batch-hook').map((h) => JSON.parse(h.body));
    assert.equal(hits.length, 50);
    assert.deepEqual(new Set(hits.map((h) => h.job_id)), new Set(done.jobs.map((j: any) => j.id)), 'one webhook per job');
    assert.ok(hits.every((h) => h.event === 'split.completed' && h.sections_summary.length === 1));
    assert.equal((await s.json(`/api/split/batch/${batch.body.batch_id}`, { key: otherKey })).status, 404);
    const unknown = await s.json('/api/split/batch', { method: 'POST', json: { document_ids: [ids[0]], input: ['svc://00000000-0000-4000-8000-000000000000'] } });
    assert.equal(unknown.status, 404);
  });
});
