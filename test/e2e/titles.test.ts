import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Document titles through HTTP: the document JSON's metadata.title is the title on the first page when the
 * PDF's own title is a file name; a file of three documents splits into sections named by the title on each
 * one's first page (not the table row set larger above it, not the address of a letter); a report and a
 * summary made from a document are titled from the document's title, not its file name.
 */
const BODY = [
  'The harbour authority inspected every berth, crane and mooring line during the spring season and found',
  'the equipment in good order. Two cranes needed new cables, which were fitted within a week, and the',
  'night shift now works with brighter floodlights along the quay. Training for new crane drivers started',
  'in April and every driver passed the safety examination at the first attempt.',
];
const LETTER = [
  'We confirm that the greenhouse maintenance will be carried out every month from June onwards. Our',
  'gardeners will check the heating, the irrigation and the shade cloths, and they will replace broken',
  'panes of glass. The monthly fee covers labour and small parts; larger repairs are quoted separately',
  'and only done after your written approval. We look forward to working with you this season.',
];

function lines(page: PDFPage, font: PDFFont, text: string[], y: number, size = 11) {
  text.forEach((l, i) => page.drawText(l, { x: 72, y: y - i * size * 1.5, size, font }));
}

/** A report page: a statistics row in large type at the top, then the title, then body text (its own PDF title a Word file name). */
async function reportPdf(pdf: PDFDocument, fonts: { regular: PDFFont; bold: PDFFont }, pages = 1) {
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage([612, 792]);
    if (p === 0) {
      page.drawText('| 45% of berths | 12 cranes |', { x: 72, y: 740, size: 14, font: fonts.regular });
      page.drawText('Harbour Safety Review', { x: 72, y: 690, size: 24, font: fonts.bold });
      lines(page, fonts.regular, BODY, 650);
      lines(page, fonts.regular, BODY, 560);
    } else {
      lines(page, fonts.regular, BODY, 720);
      lines(page, fonts.regular, BODY, 630);
    }
    page.drawText(`Harbour authority, confidential. Page ${p + 1} of ${pages}`, { x: 72, y: 40, size: 8, font: fonts.regular });
  }
}

/** A letter page: the addressee's address first, then the subject in bold, then the letter. */
function letterPage(pdf: PDFDocument, fonts: { regular: PDFFont; bold: PDFFont }) {
  const page = pdf.addPage([595, 842]);
  lines(page, fonts.regular, ['Mr John Smith', '14 Garden Lane', 'Cambridge CB2 1TN', 'Tel: +44 1223 555 0199'], 780, 12);
  page.drawText('Greenhouse Maintenance Contract', { x: 72, y: 680, size: 16, font: fonts.bold });
  lines(page, fonts.regular, ['Dear Mr Smith,'], 640);
  lines(page, fonts.regular, LETTER, 610);
  lines(page, fonts.regular, ['Yours sincerely,', 'Green Fingers Ltd'], 520);
}

const SURVEY = [
  'The survey asked every graduate of the last three years about their first job, their salary and how well',
  'their studies prepared them for work. Most graduates found a job within six months, and those who took',
  'part in an internship found one sooner. The full tables by subject and by region follow on the next pages',
  'together with the questions as they were asked and the number of answers to each of them.',
];

/** A survey page: a statistics row in larger type than the title above it, then the title, then text. */
function surveyPage(pdf: PDFDocument, fonts: { regular: PDFFont; bold: PDFFont }) {
  const page = pdf.addPage([612, 792]);
  page.drawText("| Forty-five percent of bachelor's degree recipients | 45% |", { x: 72, y: 690, size: 18, font: fonts.regular });
  page.drawText('Graduate Outcomes Survey', { x: 72, y: 640, size: 16, font: fonts.bold });
  lines(page, fonts.regular, SURVEY, 600);
  lines(page, fonts.regular, SURVEY, 510);
  page.drawText('Office of Institutional Research. Page 1 of 1', { x: 72, y: 40, size: 8, font: fonts.regular });
}

async function make(build: (pdf: PDFDocument, fonts: { regular: PDFFont; bold: PDFFont }) => Promise<void> | void): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle('Microsoft Word - hsr_final_v3.docx');
  const fonts = { regular: await pdf.embedFont(StandardFonts.Helvetica), bold: await pdf.embedFont(StandardFonts.HelveticaBold) };
  await build(pdf, fonts);
  return pdf.save();
}

describe('document titles', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  async function upload(name: string, bytes: Uint8Array): Promise<string> {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    return up.body.id;
  }
  const finished = (id: string) =>
    until(`generation job ${id}`, async () => {
      const r = await s.json(`/api/generate/jobs/${id}`);
      return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
    }, 120_000);

  test('pdf-to-json: metadata.title is the title on the first page when the PDF title is a Word file name', async () => {
    const pdf = await make((d, f) => reportPdf(d, f));
    const js = await s.json('/api/pdf-to-json', { method: 'POST', body: uploadForm('hsr_final_v3.pdf', pdf) });
    assert.equal(js.status, 200, JSON.stringify(js.body));
    assert.equal(js.body.metadata.title, 'Harbour Safety Review');
  });

  test('a file of three documents: each section is named by the title on its first page', async () => {
    const pdf = await make(async (d, f) => {
      await reportPdf(d, f, 2);
      surveyPage(d, f);
      letterPage(d, f);
    });
    const id = await upload('scan-batch-0042.pdf', pdf);
    const analyze = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: id } });
    assert.equal(analyze.status, 200, JSON.stringify(analyze.body));
    const sections = analyze.body.suggested_sections as { name: string; page_start: number; page_end: number }[];
    assert.deepEqual(sections.map((x) => [x.page_start, x.page_end]), [[1, 2], [3, 3], [4, 4]], JSON.stringify(sections));
    assert.deepEqual(sections.map((x) => x.name), ['Harbour Safety Review', 'Graduate Outcomes Survey', 'Greenhouse Maintenance Contract']);
  });

  test('a report and a summary of a document are titled from its title, not its file name', async () => {
    const id = await upload('hsr_final_v3.pdf', await make((d, f) => reportPdf(d, f, 2)));
    const report = await s.json('/api/generate/reports', { method: 'POST', json: { source_document_ids: [id], config: { outputFormat: 'markdown', sections: ['Cranes'] } } });
    assert.equal(report.status, 202, JSON.stringify(report.body));
    const done = await finished(report.body.job_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.result.title, 'Report on Harbour Safety Review');
    const summary = await s.json('/api/generate/summaries', { method: 'POST', json: { source_document_ids: [id], config: { length: 'short', outputFormat: 'markdown' } } });
    assert.equal(summary.status, 202, JSON.stringify(summary.body));
    const sum = await finished(summary.body.job_id);
    assert.equal(sum.status, 'completed', JSON.stringify(sum));
    assert.equal(sum.result.title, 'Summary of Harbour Safety Review');
    // a title given with the request wins
    const named = await s.json('/api/generate/reports', { method: 'POST', json: { source_document_ids: [id], config: { title: 'Crane audit', outputFormat: 'markdown', sections: ['Cranes'] } } });
    assert.equal((await finished(named.body.job_id)).result.title, 'Crane audit');
  });
});
