import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentBuilder, applyTitle, findTitle, plausibleTitle } from '@quire/core';
import type { BlockInput, ParsedDocument } from '@quire/core';

const W = 612;
const H = 792;
const BODY = 'The committee met on several occasions during the year to review the accounts, the budget and the plans of every department, and it reports its findings in the sections that follow.';

/** a block on a page: text, y, font size, and more */
function blk(text: string, y: number, size: number, more: Partial<BlockInput> = {}): BlockInput {
  const lines = text.split('\n').length;
  const width = Math.min(W - 144, text.length * size * 0.5);
  return { type: 'paragraph', text, page: 1, bbox: { x: more.bbox?.x ?? 72, y, width, height: size * 1.2 * lines }, confidence: 1, font: { size }, ...more };
}

function doc(blocks: BlockInput[], opts: { pages?: number; ocr?: boolean; title?: string; name?: string } = {}): ParsedDocument {
  const b = new DocumentBuilder('d', opts.name ?? 'file.pdf', 'pdf');
  for (let p = 1; p <= (opts.pages ?? 1); p++) b.addPage({ number: p, width: W, height: H, ocr: !!opts.ocr, confidence: 1 });
  if (opts.title !== undefined) b.metadata.title = opts.title;
  for (const x of blocks) b.addBlock(x);
  return b.build();
}

test('the title is the most prominent line at the top, not a table row set larger', () => {
  const d = doc([
    blk('| Forty-five percent of bachelor\'s degree recipients | 45% |', 60, 16, { type: 'table' }),
    blk('Annual Review of Student Outcomes', 110, 20, { font: { size: 20, bold: true } }),
    blk(BODY, 160, 10),
    blk(BODY, 240, 10),
  ]);
  const t = findTitle(d);
  assert.equal(t?.text, 'Annual Review of Student Outcomes');
  assert.equal(t?.page, 1);
  assert.ok(t!.confidence >= 0.5);
  assert.equal(d.metadata.title, 'Annual Review of Student Outcomes');
});

test('a table row with a pipe in a paragraph block, a running header and a footer sentence are never the title', () => {
  const d = doc([
    blk('Northwind Traders — Internal', 20, 9, { type: 'header' }),
    blk('| Forty-five percent of bachelor\'s degree recipients |', 70, 18),
    blk('Quarterly Operations Report', 120, 18, { font: { size: 18, bold: true } }),
    blk(BODY, 170, 10),
    blk('This report is confidential and intended for the named recipients only.', 760, 8, { type: 'footer' }),
  ]);
  assert.equal(findTitle(d)?.text, 'Quarterly Operations Report');
  // with no title line, the header, the pipe and the footer still give nothing
  const none = doc([
    blk('Northwind Traders — Internal', 20, 14, { type: 'header' }),
    blk('| Forty-five percent of bachelor\'s degree recipients |', 70, 18),
    blk(BODY, 170, 10),
    blk('This report is confidential and intended for the named recipients only.', 760, 14, { type: 'footer' }),
  ]);
  assert.equal(findTitle(none), null);
  assert.equal(none.metadata.title, undefined);
});

test('an address block, a phone line, a date, an amount and a Label: value line set large are no title', () => {
  const letter = doc([
    blk('Mrs Jane Doe', 60, 13),
    blk('221 Baker Street', 76, 13),
    blk('London NW1 6XE', 92, 13),
    blk('Tel: +44 20 7946 0958', 108, 13),
    blk('12 March 2024', 140, 13),
    blk('Total due: $1,250.00', 160, 13),
    blk('Invoice No: 2024-118', 180, 13),
    blk(BODY, 220, 10),
  ]);
  assert.equal(findTitle(letter), null);
  const withTitle = doc([
    blk('221 Baker Street', 60, 13),
    blk('London NW1 6XE', 76, 13),
    blk('Notice of Annual General Meeting', 120, 16, { font: { size: 16, bold: true } }),
    blk(BODY, 170, 10),
  ]);
  assert.equal(findTitle(withTitle)?.text, 'Notice of Annual General Meeting');
});

test('OCR noise is no title; OCR text is judged by its line height', () => {
  const noisy = doc([blk('~ ,; 1l | .. ii ~ 7 %', 40, 24, { confidence: 0.4 }), blk('_ asus', 80, 20, { confidence: 0.7 }), blk('x1 ;; 9 ,, 0o', 90, 20, { confidence: 0.8 }), blk(BODY, 150, 9)], { ocr: true });
  assert.equal(findTitle(noisy), null);
  // no font sizes at all: the line height says which line is larger
  const ocr = doc(
    [
      { type: 'paragraph', text: 'Minutes of the Board Meeting', page: 1, bbox: { x: 150, y: 60, width: 312, height: 24 }, confidence: 0.93 },
      { type: 'paragraph', text: BODY.replace(', and', ',\nand'), page: 1, bbox: { x: 72, y: 110, width: 468, height: 26 }, confidence: 0.91 },
      { type: 'paragraph', text: BODY.replace(', and', ',\nand'), page: 1, bbox: { x: 72, y: 150, width: 468, height: 26 }, confidence: 0.9 },
    ],
    { ocr: true },
  );
  assert.equal(findTitle(ocr)?.text, 'Minutes of the Board Meeting');
});

test('a title set on two lines is one title; the title of a later page is found with { page }', () => {
  const d = doc(
    [
      blk('Row and Column Access Control', 100, 24, { font: { size: 24, bold: true } }),
      blk('Support in the Database', 130, 24, { font: { size: 24, bold: true } }),
      blk(BODY, 200, 10),
      blk('Purchase Agreement', 80, 18, { page: 2, font: { size: 18, bold: true } }),
      blk(BODY, 130, 10, { page: 2 }),
    ],
    { pages: 2 },
  );
  assert.equal(findTitle(d)?.text, 'Row and Column Access Control Support in the Database');
  assert.equal(findTitle(d, { page: 2 })?.text, 'Purchase Agreement');
  // the title's blocks became level-1 headings
  assert.deepEqual(d.blocks.slice(0, 2).map((b) => [b.type, b.level]), [['heading', 1], ['heading', 1]]);
});

test('titles with a year, a colon, a quarter or letters that could be numerals are titles', () => {
  for (const title of ['2023 Annual Report', 'Project Phoenix: Final Report', 'CIVIL PROCEDURE RULES', 'Q3 2024 Results', 'Chapter 4: 12 Months Later']) {
    const d = doc([blk(title, 100, 20, { font: { size: 20, bold: true } }), blk(BODY, 160, 10)]);
    assert.equal(findTitle(d)?.text, title);
  }
  // the same lines at the body size, as labels, are not
  assert.equal(findTitle(doc([blk('Project: Phoenix', 100, 10), blk('Guest Name: Sanjay', 116, 13), blk(BODY, 160, 10)])), null);
});

test('on a cover page the title may stand in the middle of the page', () => {
  const d = doc([blk('Northwind Traders', 60, 11), blk('Strategy 2030', 380, 30, { font: { size: 30, bold: true } }), blk('Board of Directors, March', 430, 14), blk('Confidential', 740, 9)]);
  assert.equal(findTitle(d)?.text, 'Strategy 2030');
  // on a page of running text the same line is too low to be the title
  assert.equal(findTitle(doc([blk(BODY, 60, 10), blk('Strategy 2030', 380, 30, { font: { size: 30, bold: true } }), blk(BODY, 430, 10)])), null);
});

test('the column heads of a table that was not found as one are no title', () => {
  const heads = ['Pos.', 'Quantity', 'Description', 'Discount %', 'Price'].map((t, i) => blk(t, 300, 9, { type: 'heading', level: 1, bbox: { x: 66 + i * 95, y: 300, width: 60, height: 9 }, font: { size: 9, bold: true } }));
  const rows = [1, 2, 3].map((r) => blk(`${r}  Hosting package ${r}  12.00`, 300 + r * 14, 9));
  assert.equal(findTitle(doc([blk('Globex Ltd - 1 Main Street - Springfield', 120, 7), ...heads, ...rows])), null);
});

test('a section heading after the body text is no title; a body-size page gives none', () => {
  const d = doc([blk(BODY, 60, 10), blk('3 Results and Discussion', 150, 13, { type: 'heading', level: 2, font: { size: 13, bold: true } }), blk(BODY, 180, 10)]);
  assert.equal(findTitle(d), null);
  assert.equal(findTitle(doc([blk('Some text here', 60, 10), blk(BODY, 80, 10)])), null);
});

test('the file\'s own title is kept when it is a real one, replaced when it is a file name or a placeholder', () => {
  const blocks = [blk('Quarterly Operations Report', 100, 20, { font: { size: 20, bold: true } }), blk(BODY, 160, 10)];
  assert.equal(doc(blocks, { title: 'Microsoft Word - report.docx' }).metadata.title, 'Quarterly Operations Report');
  assert.equal(doc(blocks, { title: 'untitled' }).metadata.title, 'Quarterly Operations Report');
  assert.equal(doc(blocks, { title: 'C:\\Users\\me\\Documents\\q3.pdf' }).metadata.title, 'Quarterly Operations Report');
  assert.equal(doc(blocks, { title: '20240312' }).metadata.title, 'Quarterly Operations Report');
  assert.equal(doc(blocks, { title: 'q3_report_final', name: 'q3_report_final.pdf' }).metadata.title, 'Quarterly Operations Report');
  assert.equal(doc(blocks, { title: 'Operations Report, Third Quarter 2024' }).metadata.title, 'Operations Report, Third Quarter 2024');
  // a placeholder and no title on the page: no title at all rather than the placeholder
  assert.equal(doc([blk(BODY, 60, 10)], { title: 'Microsoft Word - x.docx' }).metadata.title, undefined);
  for (const bad of ['', '  ', 'Untitled-1', 'Document1', 'Presentation2', 'scan_0001.tif', '/tmp/out/report.pdf', '2024-03-12', 'Layout 1']) assert.equal(plausibleTitle(bad), false, bad);
  for (const good of ['Annual Report 2023', 'Antrag auf Mitgliedschaft', 'تحسين الإنتاجية']) assert.equal(plausibleTitle(good), true, good);
  // applyTitle on a document built by hand (readers go through DocumentBuilder.build, which applies it)
  const raw: ParsedDocument = { ...doc(blocks), metadata: { title: 'Microsoft Word - a.doc' } };
  assert.equal(applyTitle(raw)?.text, 'Quarterly Operations Report');
  assert.equal(raw.metadata.title, 'Quarterly Operations Report');
});

test('a flow document without positions or sizes: only a heading that opens it is its title', () => {
  const flow = (blocks: BlockInput[]) => doc(blocks.map((b) => ({ ...b, bbox: null, font: undefined })));
  assert.equal(findTitle(flow([blk('Staff handbook', 0, 10, { type: 'heading', level: 2 }), blk(BODY, 0, 10)]))?.text, 'Staff handbook');
  assert.equal(findTitle(flow([blk('CHAPTER 1', 0, 10), blk(BODY, 0, 10)])), null);
});
