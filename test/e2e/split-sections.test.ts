import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const TYPES = ['invoice', 'receipt', 'form', 'letter', 'report', 'statement', 'contract', 'article', 'other'];

/**
 * A letter, a two-page invoice whose second page prints the letterhead, a title and the invoice number
 * again (and "Page 2 / 2", the first page being unnumbered; the first page ends with a total carried
 * forward), and a report with a table row and a footer notice, joined in one PDF.
 */
async function fixture(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const helv = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const times = await pdf.embedFont(StandardFonts.TimesRoman);
  const timesBold = await pdf.embedFont(StandardFonts.TimesRomanBold);
  type Page = ReturnType<typeof pdf.addPage>;
  const lines = (page: Page, from: number, text: string[], font = helv, size = 10, x = 72) => text.forEach((t, i) => page.drawText(t, { x, y: from - i * size * 1.5, size, font }));

  const letter = pdf.addPage([612, 792]);
  lines(letter, 740, ['Harbour Consulting Ltd', '7 Quay Street, Bristol BS1 4DJ', 'Tel: +44 117 496 0000'], times, 11);
  letter.drawText('Renewal of the maintenance contract', { x: 72, y: 640, size: 16, font: timesBold });
  lines(letter, 600, ['Dear Ms Alvarez,', '', 'Thank you for the meeting last week. We are pleased to confirm the renewal of the', 'maintenance of your cooling plant for another year on the terms we discussed, with a visit', 'every quarter and an engineer on call for breakdowns.', '', 'Yours sincerely,', '', 'Harriet Nolan'], times, 11);

  const head = (page: Page, title: string) => {
    lines(page, 750, ['Northwind Supplies Ltd', '48 Mill Lane, Leeds LS1 5AA', 'Tel: +44 113 496 0101  www.northwind.example'], helv, 9);
    page.drawText(title, { x: 360, y: 735, size: 24, font: bold });
    lines(page, 680, ['Invoice no. NW-48213', 'Invoice date: 2024-10-02', 'Bill to: Initech Systems'], helv, 10);
  };
  const inv1 = pdf.addPage([612, 792]);
  head(inv1, 'INVOICE');
  lines(inv1, 600, ['Qty  Description                         Unit price   Amount', '4    Stepper motor NEMA 17                  18.50        74.00', '10   Timing belt GT2 2m                      6.20        62.00', '2    Aluminium extrusion 2040 1m            11.90        23.80', '', 'Total carried forward: 159.80'], helv, 10);
  const inv2 = pdf.addPage([612, 792]);
  head(inv2, 'INVOICE (continued)');
  lines(inv2, 600, ['Qty  Description                         Unit price   Amount', '6    Linear rail MGN12 400mm                24.00       144.00', '1    Controller board 32-bit                39.00        39.00', '', 'Subtotal: 342.80', 'VAT 20%: 68.56', 'Total amount due: GBP 411.36', 'Thank you for your business.'], helv, 10);
  inv2.drawText('Page 2 / 2', { x: 290, y: 30, size: 8, font: helv });

  const report = pdf.addPage([612, 792]);
  report.drawText('| Forty-five percent | of respondents | 2023 |', { x: 72, y: 770, size: 8, font: helv });
  report.drawText('Annual Safety Report', { x: 72, y: 700, size: 20, font: bold });
  lines(report, 650, ['1 Introduction', '', 'This report summarises the results of the safety inspections of the three warehouses in', 'the past year. Section 2 presents the method, section 3 the results by site and section 4', 'the conclusion and recommendations of the safety committee.', '', 'Figure 1 shows the incidents by month; table 2 lists the inspections and their findings.', 'Results improved in every quarter and no incident caused lost working time.'], times, 11);
  report.drawText('This report is confidential and intended for the members of the board only.', { x: 72, y: 40, size: 8, font: helv });
  return pdf.save();
}

describe('split sections over HTTP: continuation pages, document types, names from the title finder', () => {
  let s: TestServer;
  let docId: string;

  before(async () => {
    s = await startTestServer();
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('bundle.pdf', await fixture()) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    docId = up.body.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${docId}`)).status, 'completed');
  });
  after(async () => {
    await s?.close();
  });

  test('analyze: the invoice\'s second page stays with its first; every section has a type and a confidence; names are titles', async () => {
    const a = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: docId } });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const sections = a.body.suggested_sections as any[];
    assert.deepEqual(sections.map((x) => [x.page_start, x.page_end]), [[1, 1], [2, 3], [4, 4]], JSON.stringify(sections, null, 1));
    assert.deepEqual(sections.map((x) => x.document_type), ['letter', 'invoice', 'report']);
    for (const x of sections) {
      assert.ok(TYPES.includes(x.document_type), x.document_type);
      assert.ok(typeof x.document_type_confidence === 'number' && x.document_type_confidence > 0 && x.document_type_confidence <= 1, JSON.stringify(x));
    }
    // the continuation is said in the reason of the section that keeps the page
    assert.match(sections[1].reason, /page 3: .*(x of n|document number)/);
    assert.equal(sections[0].name, 'Renewal of the maintenance contract');
    // the invoice's title: its heading or its number line, as the title finder finds it
    assert.match(sections[1].name, /^(INVOICE|Invoice no\. NW-48213)$/);
    assert.equal(sections[2].name, 'Annual Safety Report');
  });

  test('run: sections carry the type and its confidence; the child of the invoice has both of its pages', async () => {
    const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: docId, config: { method: 'ai' } } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const sections = run.body.sections as any[];
    assert.deepEqual(sections.map((x) => [x.page_start, x.page_end, x.document_type]), [
      [1, 1, 'letter'],
      [2, 3, 'invoice'],
      [4, 4, 'report'],
    ]);
    assert.equal(sections[0].name, 'Renewal of the maintenance contract');
    assert.match(sections[1].name, /^(INVOICE|Invoice no\. NW-48213)$/);
    assert.equal(sections[2].name, 'Annual Safety Report');
    for (const x of sections) assert.ok(x.document_type_confidence > 0 && x.document_type_confidence <= 1);
    const invoice = await s.json(`/v1/documents/${sections[1].document_id}`);
    assert.equal(invoice.body.pages, 2);
    const listed = await s.json(`/api/documents/${docId}/sections`);
    assert.deepEqual(listed.body.sections.map((x: any) => [x.sectionName, x.metadata.document_type, x.metadata.document_type_confidence]), sections.map((x) => [x.name, x.document_type, x.document_type_confidence]));
    // "3 sections" asked: a continuation page is never picked to make up the number
    const four = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: docId, config: { instructions: 'split into 4 sections' } } });
    assert.equal(four.status, 200, JSON.stringify(four.body));
    assert.ok(!four.body.suggested_sections.some((x: any) => x.page_start === 3), JSON.stringify(four.body.suggested_sections));
  });
});
