import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';
import type { ParsedDocument, Table } from '@quire/core';
import { pdfReader } from './make-reader.js';

/**
 * A table is only a table when its cells line up in rows and columns: ruling lines, or consistent column
 * gaps over several rows of short cells. Prose columns and invoice headers are not; a table found in parts
 * (a gap inside it) is one, two tables with a caption between them stay two.
 */

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-grid-'));
const reader = pdfReader({ workers: 1 });
after(async () => {
  await reader.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const read = (p: string): Promise<ParsedDocument> =>
  reader.read({ path: p, name: path.basename(p), format: 'pdf', size: fs.statSync(p).size, documentId: path.basename(p) }, { ocr: { enabled: false, language: 'eng' } });

async function makePdf(name: string, draw: (page: PDFPage, font: PDFFont, bold: PDFFont) => void): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  draw(doc.addPage([612, 792]), font, bold);
  const p = path.join(tmp, `${name}.pdf`);
  fs.writeFileSync(p, await doc.save());
  return p;
}

const grid = (t: Table) => {
  const rows: string[][] = Array.from({ length: t.rows }, () => Array.from({ length: t.cols }, () => ''));
  for (const c of t.cells) rows[c.row]![c.col] = c.text;
  return rows;
};
const show = (doc: ParsedDocument) => JSON.stringify(doc.tables.map((t) => [t.confidence, ...grid(t)]));

/** Right-aligned numbers in columns ending at `rights`, a label at `x0`; `top` is the first baseline. */
function drawRows(page: PDFPage, font: PDFFont, rows: string[][], x0: number, rights: number[], top: number, pitch: number, size = 10) {
  rows.forEach((row, r) => {
    const y = top - r * pitch;
    page.drawText(row[0]!, { x: x0, y, size, font });
    row.slice(1).forEach((v, k) => page.drawText(v, { x: rights[k]! - font.widthOfTextAtSize(v, size), y, size, font }));
  });
}

const WORDS = 'the committee reviewed the annual statements of each regional office and found that the reported figures agreed with the ledgers kept at the central archive while a small number of late entries were carried over into the following period for review by the auditors'.split(' ');

test('three columns of justified prose are no table', async () => {
  const p = await makePdf('prose', (page, font) => {
    const size = 9.5, width = 160, xs = [50, 226, 402];
    let w = 0;
    for (const x0 of xs) {
      for (let line = 0; line < 48; line++) {
        const y = 740 - line * 12;
        const words: string[] = [];
        while (true) {
          const next = WORDS[w % WORDS.length]!;
          const test = [...words, next].join(' ');
          if (words.length && font.widthOfTextAtSize(test, size) > width) break;
          words.push(next);
          w++;
        }
        // justified: the spare width shared out between the words
        const spare = width - font.widthOfTextAtSize(words.join(''), size);
        const gap = spare / Math.max(1, words.length - 1);
        let x = x0;
        for (const word of words) {
          page.drawText(word, { x, y, size, font });
          x += font.widthOfTextAtSize(word, size) + gap;
        }
      }
    }
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 0, show(doc));
});

test('an invoice header (address blocks side by side, label: value lines) is no table; its line items are', async () => {
  const p = await makePdf('invoice', (page, font, bold) => {
    page.drawText('INVOICE', { x: 50, y: 740, size: 18, font: bold });
    ['Northwind Supplies Ltd', '12 Harbour Road', 'Bristol BS1 4QA', 'United Kingdom', 'VAT: GB123456789'].forEach((t, i) => page.drawText(t, { x: 50, y: 700 - i * 13, size: 10, font }));
    ['Invoice No: 2024-0117', 'Date: 12 March 2024', 'Customer ID: C-5521', 'Due date: 11 April 2024', 'Terms: 30 days'].forEach((t, i) => page.drawText(t, { x: 380, y: 700 - i * 13, size: 10, font }));
    page.drawText('Bill to:', { x: 50, y: 620, size: 10, font: bold });
    page.drawText('Ship to:', { x: 300, y: 620, size: 10, font: bold });
    ['Contoso Trading GmbH', 'Attn: Accounts Payable', 'Lindenstrasse 44', '10969 Berlin, Germany'].forEach((t, i) => page.drawText(t, { x: 50, y: 606 - i * 13, size: 10, font }));
    ['Contoso Trading GmbH', 'Warehouse 3, Gate B', 'Hafenweg 7', '20457 Hamburg, Germany'].forEach((t, i) => page.drawText(t, { x: 300, y: 606 - i * 13, size: 10, font }));
    // the line items
    page.drawText('Description', { x: 50, y: 520, size: 10, font: bold });
    [['Qty', 330], ['Unit price', 430], ['Amount', 540]].forEach(([t, r]) => page.drawText(t as string, { x: (r as number) - bold.widthOfTextAtSize(t as string, 10), y: 520, size: 10, font: bold }));
    drawRows(page, font, [['Copier paper A4, 80 g', '40', '4.20', '168.00'], ['Toner cartridge, black', '6', '61.50', '369.00'], ['Stapler, heavy duty', '3', '18.90', '56.70'], ['Archive boxes', '25', '2.10', '52.50']], 50, [330, 430, 540], 502, 16);
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  const texts = t.cells.map((c) => c.text).join(' | ');
  assert.ok(!/Harbour|Invoice No|Bill to|Lindenstrasse|Hamburg/.test(texts), `header text in the table: ${texts}`);
  assert.equal(t.cols, 4, show(doc));
  assert.equal(t.rows, 5, show(doc));
});

test('an invoice header drawn in boxes (address blocks and label: value runs in framed cells) is no table', async () => {
  const p = await makePdf('invoice-boxed', (page, font, bold) => {
    const line = (ax: number, ay: number, bx: number, by: number) => page.drawLine({ start: { x: ax, y: ay }, end: { x: bx, y: by }, thickness: 0.8, color: rgb(0, 0, 0) });
    // two boxes side by side over two bands: seller | invoice details, bill to | ship to
    for (const y of [720, 640, 560]) line(50, y, 560, y);
    for (const x of [50, 305, 560]) line(x, 720, x, 560);
    ['Northwind Supplies Ltd', '12 Harbour Road, Bristol BS1 4QA', 'United Kingdom', 'VAT: GB123456789'].forEach((t, i) => page.drawText(t, { x: 56, y: 706 - i * 13, size: 10, font: i ? font : bold }));
    ['Invoice No: 2024-0117', 'Date: 12 March 2024', 'Customer ID: C-5521', 'Due date: 11 April 2024'].forEach((t, i) => page.drawText(t, { x: 311, y: 706 - i * 13, size: 10, font }));
    ['Bill to: Contoso Trading GmbH', 'Attn: Accounts Payable', 'Lindenstrasse 44', '10969 Berlin, Germany'].forEach((t, i) => page.drawText(t, { x: 56, y: 626 - i * 13, size: 10, font }));
    ['Ship to: Contoso Trading GmbH', 'Warehouse 3, Gate B', 'Hafenweg 7', '20457 Hamburg, Germany'].forEach((t, i) => page.drawText(t, { x: 311, y: 626 - i * 13, size: 10, font }));
    page.drawText('Thank you for your order. Payment is due within thirty days of the invoice date.', { x: 50, y: 520, size: 10, font });
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 0, show(doc));
  assert.match(doc.text, /Invoice No: 2024-0117/);
  assert.match(doc.text, /Lindenstrasse 44/);
});

test('an unruled table of numbers with steady column gaps is one table of its rows and columns; the note under it is not a row', async () => {
  const p = await makePdf('unruled', (page, font, bold) => {
    page.drawText('Sales grew in every region over the period, as the figures below show.', { x: 72, y: 700, size: 10, font });
    const rights = [260, 340, 420, 500];
    page.drawText('Region', { x: 72, y: 660, size: 10, font: bold });
    ['2019', '2020', '2021', '2022'].forEach((t, k) => page.drawText(t, { x: rights[k]! - bold.widthOfTextAtSize(t, 10), y: 660, size: 10, font: bold }));
    drawRows(page, font, [['North', '1,204', '1,310', '1,388', '1,452'], ['South', '982', '1,015', '1,102', '1,160'], ['East', '1,431', '1,502', '1,577', '1,601'], ['West', '877', '902', '954', '1,010'], ['Central', '1,120', '1,180', '1,230', '1,297'], ['Total', '5,614', '5,909', '6,251', '6,520']], 72, rights, 644, 14);
    page.drawText('(*)', { x: 72, y: 550, size: 8, font });
    page.drawText('Provisional figures for 2022, subject to revision.', { x: 100, y: 550, size: 8, font });
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const g = grid(doc.tables[0]!);
  assert.equal(g.length, 7, show(doc));
  assert.equal(g[0]!.length, 5, show(doc));
  assert.deepEqual(g[0], ['Region', '2019', '2020', '2021', '2022']);
  assert.deepEqual(g[6], ['Total', '5,614', '5,909', '6,251', '6,520']);
  assert.ok(!JSON.stringify(g).includes('Provisional'), show(doc));
});

test('a ruled table (frame, column rules, a header rule, body rows without rules) is one table of its text rows', async () => {
  const p = await makePdf('ruled', (page, font, bold) => {
    const x0 = 100, xs = [100, 230, 330, 430], x1 = 520, top = 640, headBottom = 620, bottom = 500;
    const line = (ax: number, ay: number, bx: number, by: number) => page.drawLine({ start: { x: ax, y: ay }, end: { x: bx, y: by }, thickness: 0.8, color: rgb(0, 0, 0) });
    line(x0, top, x1, top);
    line(x0, headBottom, x1, headBottom);
    line(x0, bottom, x1, bottom);
    for (const x of [...xs, x1]) line(x, top, x, bottom);
    ['Country', 'Fund A', 'Fund B', 'Total'].forEach((t, k) => page.drawText(t, { x: xs[k]! + 5, y: 626, size: 10, font: bold }));
    const body = [['Austria', '2.3', '3.2', '5.5'], ['Belgium', '0.21', '0', '0.21'], ['Croatia', '8.8', '13.4', '22.2'], ['Denmark', '1.1', '1.9', '3.0'], ['Estonia', '8.6', '11.2', '19.8'], ['Finland', '1.5', '2.4', '3.9'], ['Greece', '2.3', '3.4', '5.7']];
    body.forEach((row, r) => row.forEach((t, k) => page.drawText(t, { x: xs[k]! + 5, y: 606 - r * 14, size: 10, font })));
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  const g = grid(t);
  assert.equal(t.cols, 4, show(doc));
  assert.equal(t.rows, 8, show(doc));
  assert.deepEqual(g[3], ['Croatia', '8.8', '13.4', '22.2']);
  assert.ok(t.cells.filter((c) => c.row === 0).every((c) => c.header), 'the first row is the header');
});

const rowsA = [['Site', 'Staff', 'Cost'], ['Leeds', '41', '1,200'], ['York', '17', '640'], ['Hull', '23', '815'], ['Derby', '30', '1,020']];

test('two tables stacked with a caption between them stay two', async () => {
  const p = await makePdf('two-tables', (page, font) => {
    page.drawText('Table 1: Staff by site', { x: 72, y: 720, size: 10, font });
    drawRows(page, font, rowsA, 72, [300, 420], 700, 14);
    page.drawText('Table 2: Staff by site, previous year', { x: 72, y: 610, size: 10, font });
    drawRows(page, font, [['Site', 'Staff', 'Cost'], ['Leeds', '39', '1,150'], ['York', '18', '655'], ['Hull', '21', '790'], ['Derby', '28', '990']], 72, [300, 420], 590, 14);
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 2, show(doc));
  for (const t of doc.tables) assert.equal(t.rows, 5, show(doc));
  assert.ok(!doc.tables.some((t) => t.cells.some((c) => /Table \d/.test(c.text))), show(doc));
});

test('a table that goes on after a gap inside the page over the same columns stays one', async () => {
  const p = await makePdf('gap-table', (page, font) => {
    page.drawText('Table 1: Staff by site', { x: 72, y: 720, size: 10, font });
    drawRows(page, font, rowsA, 72, [300, 420], 700, 14);
    // a gap of two lines, then more rows in the same columns
    drawRows(page, font, [['Bath', '12', '410'], ['Wells', '9', '305'], ['Ripon', '14', '470'], ['Ely', '8', '260']], 72, [300, 420], 700 - 5 * 14 - 30, 14);
    page.drawText('The sites are listed by region and then by size of their staff.', { x: 72, y: 480, size: 10, font });
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const g = grid(doc.tables[0]!);
  assert.equal(g.length, 9, show(doc));
  assert.deepEqual(g[8], ['Ely', '8', '260']);
});

test('a fully ruled table with cells spanning columns (a header group) and rows (a first-column group) keeps its grid and every cell', async () => {
  const p = await makePdf('spans', (page, font, bold) => {
    const xs = [80, 150, 240, 330, 420, 510], ys = [700, 680, 660, 640, 620, 600, 580, 560, 540];
    const line = (ax: number, ay: number, bx: number, by: number) => page.drawLine({ start: { x: ax, y: ay }, end: { x: bx, y: by }, thickness: 0.8, color: rgb(0, 0, 0) });
    const rowSpans = new Map([[4, 5], [6, 7]]); // first-column cells over rows 4-5 and 6-7 (no rule inside them)
    ys.forEach((y, r) => {
      // a horizontal rule under each row, except inside the first-column groups and the header groups' span
      const inGroup = [...rowSpans].some(([a, b]) => r > a && r <= b);
      line(inGroup ? xs[1]! : xs[0]!, y, xs[5]!, y);
    });
    xs.forEach((x, c) => {
      // the header groups span columns 1-2 and 3-4: no rule between them in the first row
      if (c === 2 || c === 4) line(x, ys[1]!, x, ys[8]!);
      else line(x, ys[0]!, x, ys[8]!);
    });
    page.drawText('Class one', { x: 160, y: 686, size: 10, font: bold });
    page.drawText('Class two', { x: 340, y: 686, size: 10, font: bold });
    ['A', 'B', 'A', 'B'].forEach((t, k) => page.drawText(t, { x: xs[k + 1]! + 5, y: 666, size: 10, font: bold }));
    const values = [['True', 'False', 'True', 'False'], ['False', 'True', 'True', 'False'], ['True', 'True', 'False', 'False'], ['False', 'False', 'True', 'True'], ['True', 'False', 'False', 'True'], ['False', 'True', 'False', 'True']];
    values.forEach((row, r) => row.forEach((t, k) => page.drawText(t, { x: xs[k + 1]! + 5, y: 646 - r * 20, size: 10, font })));
    page.drawText('R1', { x: 85, y: 646, size: 10, font });
    page.drawText('R2', { x: 85, y: 616, size: 10, font });
    page.drawText('R3', { x: 85, y: 576, size: 10, font });
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  const text = (s: string) => t.cells.find((c) => c.text === s);
  assert.equal(text('Class one')?.colSpan, 2, show(doc));
  assert.equal(text('R2')?.rowSpan, 2, show(doc));
  assert.equal(text('R3')?.rowSpan, 2, show(doc));
  assert.equal(t.cells.filter((c) => c.text === 'True' || c.text === 'False').length, 24, show(doc));
});

// ---------- typewritten tables ----------

async function makePdfFont(name: string, fontName: StandardFonts, draw: (page: PDFPage, font: PDFFont) => void): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(fontName);
  draw(doc.addPage([612, 792]), font);
  const p = path.join(tmp, `${name}.pdf`);
  fs.writeFileSync(p, await doc.save());
  return p;
}

/**
 * A typewritten table in a fixed-pitch font, as lines of text: a group label over the value columns, a
 * header line, a line of dashes, then labels with dot leaders and values set flush right in columns one
 * space apart where they are widest. `top` is the first baseline.
 */
function typedTable(page: PDFPage, font: PDFFont, top: number, heads: string[], body: [string, number[]][], labels = 22) {
  const size = 12, pitch = font.widthOfTextAtSize('0', size), lead = 12.7;
  const pad = (s: string, n: number) => ' '.repeat(Math.max(0, n - s.length)) + s;
  const lines = [
    `${' '.repeat(37)}Group effect`,
    `   Proportion${' '.repeat(labels - 12)}${heads.map((h) => pad(h, 6)).join('')}`,
    '-'.repeat(65),
    ...body.map(([label, vals]) => `${label} ${'.'.repeat(labels - label.length)}${vals.map((v) => pad(v.toLocaleString('en-US'), 6)).join('')}`),
  ];
  lines.forEach((l, i) => {
    // each run of non-blanks drawn at its column, as a typewriter's text is laid out
    for (const m of l.matchAll(/\S+/g)) page.drawText(m[0], { x: 72 + m.index! * pitch, y: top - i * lead, size, font });
  });
}

const typedBody = (k: number): [string, number[]][] =>
  ['0.99', '0.95', '0.90', '0.85', '0.80', '0.75', '0.56-0.74', '0.50'].map((label, r) => [label, [1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6].map((f) => Math.round((r === 0 ? 800 : r === 1 ? 160 : 90 - r * 6) * f * k))]);

test('a typewritten table (fixed pitch, dot leaders, a line of dashes, columns one space apart) is one table of its columns', async () => {
  const p = await makePdfFont('typed', StandardFonts.Courier, (page, font) => {
    page.drawText('Table 1. Sample sizes by design effect', { x: 72, y: 720, size: 12, font });
    typedTable(page, font, 690, ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6'], typedBody(1));
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const g = grid(doc.tables[0]!);
  assert.equal(doc.tables[0]!.cols, 8, show(doc));
  // the group label heads the value columns; the dashes are no row; a leader is no part of its label
  assert.ok(doc.tables[0]!.cells.some((c) => c.text === 'Group effect' && c.header && c.col > 0), show(doc));
  assert.ok(g.some((r) => r.join('|') === 'Proportion|1.0|1.1|1.2|1.3|1.4|1.5|1.6'), show(doc));
  assert.ok(g.some((r) => r.join('|') === '0.99|800|880|960|1,040|1,120|1,200|1,280'), show(doc));
  assert.ok(g.some((r) => r.join('|') === '0.56-0.74|54|59|65|70|76|81|86'), show(doc));
  assert.ok(!doc.tables[0]!.cells.some((c) => /---|\.\.\./.test(c.text)), show(doc));
});

test('two typewritten tables one under the other, a blank line apart, with columns of their own, stay two', async () => {
  const p = await makePdfFont('typed-two', StandardFonts.Courier, (page, font) => {
    typedTable(page, font, 720, ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6'], typedBody(1));
    // the second one's columns sit elsewhere: shorter leaders, other values
    typedTable(page, font, 720 - 12 * 12.7, ['1.7', '1.8', '1.9', '2.0', '2.5', '3.0', '3.5'], typedBody(1.7), 19);
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 2, show(doc));
  for (const t of doc.tables) assert.equal(t.cols, 8, show(doc));
  // each whole: its group label, its header, its eight rows (the leader ends the label even a space from the values)
  for (const t of doc.tables) assert.equal(t.rows, 10, show(doc));
  assert.ok(grid(doc.tables[1]!).some((r) => r.join('|') === '0.99|1,360|1,496|1,632|1,768|1,904|2,040|2,176'), show(doc));
});

// ---------- tables between horizontal rules ----------

const hline = (page: PDFPage, x0: number, x1: number, y: number) => page.drawLine({ start: { x: x0, y }, end: { x: x1, y }, thickness: 0.6, color: rgb(0, 0, 0) });
/** The table's box in PDF space (y up): [x0, bottom, x1, top] (a ruled table's box is its text's). */
const pdfBox = (t: Table) => [t.bbox!.x, 792 - t.bbox!.y - t.bbox!.height, t.bbox!.x + t.bbox!.width, 792 - t.bbox!.y];

test('a table between horizontal rules drawn in pieces (one per column) is read between them, its group label a header', async () => {
  const p = await makePdf('pieced-rules', (page, font) => {
    const xs = [60, 160, 215, 270, 325, 380];
    // each rule drawn as one short segment per column
    const rule = (y: number, from = 0) => xs.slice(from).forEach((x, k) => hline(page, x, xs[from + k + 1] ?? 435, y));
    rule(700);
    page.drawText('Actual', { x: 240, y: 688, size: 9, font });
    rule(684, 1);
    page.drawText('Region', { x: 62, y: 672, size: 9, font });
    ['2019', '2020', '2021', '2022', '2023'].forEach((t, k) => page.drawText(t, { x: xs[k + 1]! + 53 - font.widthOfTextAtSize(t, 9), y: 672, size: 9, font }));
    rule(666);
    const body = [['North', '1,204', '1,310', '1,388', '1,452', '1,470'], ['South', '982', '1,015', '1,102', '1,160', '1,201'], ['East', '1,431', '1,502', '1,577', '1,601', '1,650'], ['West', '877', '902', '954', '1,010', '1,044']];
    body.forEach((row, r) => {
      page.drawText(row[0]!, { x: 62, y: 654 - r * 12, size: 9, font });
      row.slice(1).forEach((v, k) => page.drawText(v, { x: xs[k + 1]! + 53 - font.widthOfTextAtSize(v, 9), y: 654 - r * 12, size: 9, font }));
    });
    rule(600);
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  assert.ok(t.cells.some((c) => /Actual/.test(c.text) && c.header), show(doc));
  assert.ok(grid(t).some((r) => r.join('|') === 'East|1,431|1,502|1,577|1,601|1,650'), show(doc));
});

test('a table as long as the page between its rules is one table bounded by them', async () => {
  const p = await makePdf('long-ruled', (page, font) => {
    hline(page, 50, 560, 770);
    page.drawText('State', { x: 52, y: 758, size: 9, font });
    ['2019', '2020', '2021'].forEach((t, k) => page.drawText(t, { x: 300 + k * 100 - font.widthOfTextAtSize(t, 9), y: 758, size: 9, font }));
    hline(page, 50, 560, 752);
    for (let r = 0; r < 58; r++) {
      const y = 740 - r * 12;
      page.drawText(`District ${r + 1}`, { x: 52, y, size: 9, font });
      [r * 13 + 100, r * 17 + 200, r * 19 + 300].forEach((v, k) => page.drawText(String(v), { x: 300 + k * 100 - font.widthOfTextAtSize(String(v), 9), y, size: 9, font }));
    }
    hline(page, 50, 560, 40);
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  assert.equal(t.rows, 59);
  assert.equal(t.cols, 4);
  assert.ok(t.cells.filter((c) => c.row === 0).every((c) => c.header), show(doc));
  const [, bottom, , top] = pdfBox(t);
  assert.ok(top > 758 && bottom < 60, `box ${pdfBox(t)}`);
});

test('columns of wide numbers set flush right, closer together than half an em, are columns', async () => {
  const p = await makePdf('close-numbers', (page, font) => {
    const size = 9, rights = [165, 210, 254, 299, 343, 388];
    page.drawText('Enrolment by region, all years', { x: 36, y: 740, size: 10, font });
    const rows = ['United States', 'Northeast', 'Midwest', 'South', 'West', 'Pacific', 'Mountain'];
    rows.forEach((label, r) => {
      const y = 720 - r * 10.7;
      page.drawText(label, { x: 36, y, size, font });
      rights.forEach((x, k) => {
        const v = (2753438 + r * 104717 + k * 45812).toLocaleString('en-US');
        page.drawText(v, { x: x - font.widthOfTextAtSize(v, size), y, size, font });
      });
    });
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  assert.equal(t.cols, 7, show(doc));
  assert.equal(grid(t)[0]![2], (2753438 + 45812).toLocaleString('en-US'), show(doc));
});

/** Justified lines of prose in a column from `x0`, `width` wide, from baseline `top` down, `n` lines. */
function proseColumn(page: PDFPage, font: PDFFont, x0: number, width: number, top: number, n: number, start: number): number {
  const size = 9.5;
  let w = start;
  for (let line = 0; line < n; line++) {
    const words: string[] = [];
    while (true) {
      const next = WORDS[w % WORDS.length]!;
      if (words.length && font.widthOfTextAtSize([...words, next].join(' '), size) > width) break;
      words.push(next);
      w++;
    }
    const gap = (width - font.widthOfTextAtSize(words.join(''), size)) / Math.max(1, words.length - 1);
    let x = x0;
    for (const word of words) {
      page.drawText(word, { x, y: top - line * 12, size, font });
      x += font.widthOfTextAtSize(word, size) + gap;
    }
  }
  return w;
}

test('two columns of prose down the page between full-width rules (a running head in rules, a foot rule) are no table', async () => {
  const p = await makePdf('ruled-prose', (page, font) => {
    // a running head between rules, two columns of prose down the page, a foot rule far below
    hline(page, 50, 562, 775);
    page.drawText('Annual review of the regional offices', { x: 50, y: 765, size: 9, font });
    hline(page, 50, 562, 760);
    hline(page, 50, 562, 756);
    const w = proseColumn(page, font, 50, 240, 740, 54, 0);
    proseColumn(page, font, 322, 240, 740, 54, w);
    hline(page, 50, 562, 80);
    // a small table under it (the page's rules are read where its text may hold a table)
    drawRows(page, font, [['Site', 'Staff', 'Cost'], ['Leeds', '41', '1,200'], ['York', '17', '640'], ['Hull', '23', '815']], 72, [300, 420], 66, 12, 8);
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  assert.ok(!doc.tables[0]!.cells.some((c) => /committee|auditors|ledgers/.test(c.text)), show(doc));
});

test('a caption numbered as in an appendix ("Table A-2.") between the rules of a page band and a table drawn in pieces is no part of the table', async () => {
  const p = await makePdf('appendix-caption', (page, font, bold) => {
    const line = (ax: number, ay: number, bx: number, by: number) => page.drawLine({ start: { x: ax, y: ay }, end: { x: bx, y: by }, thickness: 0.8, color: rgb(0, 0, 0) });
    // a framed band at the top of the page, as wide as the table
    line(54, 765, 576, 765);
    line(54, 744, 576, 744);
    line(54, 765, 54, 744);
    line(576, 765, 576, 744);
    page.drawText('HIGHLIGHTS FROM THE SURVEY', { x: 60, y: 750, size: 10, font });
    page.drawText('APPENDIX A', { x: 480, y: 750, size: 12, font: bold });
    page.drawText('Table A-2. Total number of schools and students, by system', { x: 54, y: 712, size: 10, font: bold });
    // the table's rules drawn in pieces, one per column
    const rule = (y: number) => [54, 200, 310, 410, 510, 576].forEach((x, k, xs) => k + 1 < xs.length && line(x, y, xs[k + 1]!, y));
    rule(700);
    page.drawText('Sampled', { x: 330, y: 690, size: 8, font });
    page.drawText('System', { x: 56, y: 678, size: 8, font });
    ['Schools', 'Eligible', 'Students'].forEach((t, k) => page.drawText(t, { x: 300 + k * 100 - font.widthOfTextAtSize(t, 8), y: 678, size: 8, font }));
    rule(672);
    [['Alberta', '150', '147', '3,789'], ['Ontario', '200', '191', '4,561'], ['Quebec', '200', '197', '4,244'], ['Malta', '99', '95', '3,548']].forEach((row, r) => {
      page.drawText(row[0]!, { x: 56, y: 660 - r * 10, size: 8, font });
      row.slice(1).forEach((v, k) => page.drawText(v, { x: 300 + k * 100 - font.widthOfTextAtSize(v, 8), y: 660 - r * 10, size: 8, font }));
    });
    rule(620);
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  assert.ok(!t.cells.some((c) => /Table A-2|HIGHLIGHTS|APPENDIX/.test(c.text)), show(doc));
  assert.ok(t.cells.some((c) => /Sampled/.test(c.text) && c.header), show(doc));
  assert.ok(grid(t).some((r) => r.join('|') === 'Ontario|200|191|4,561'), show(doc));
});

test('paragraphs between a table drawn with rules in pieces and a foot rule of the same width are no rows of it', async () => {
  const p = await makePdf('items-foot-rule', (page, font, bold) => {
    const rule = (y: number) => [54, 86, 144, 410, 464, 510, 572].forEach((x, k, xs) => k + 1 < xs.length && hline(page, x, xs[k + 1]!, y));
    rule(460);
    ['Pos.', 'Qty', 'Description', 'Price', 'Amount'].forEach((t, k) => page.drawText(t, { x: [60, 100, 148, 470, 520][k]!, y: 446, size: 8, font: bold }));
    rule(430);
    [['1', '2', 'Managed hosting, standard plan', '3,89', '7,78'], ['2', '1', 'Backup storage, 50 GB', '4,50', '4,50'], ['3', '1', 'Support hours', '26,95', '26,95']].forEach((row, r) =>
      row.forEach((t, k) => page.drawText(t, { x: [60, 100, 148, 470, 520][k]!, y: 416 - r * 12, size: 8, font })),
    );
    rule(370);
    page.drawText('Payment', { x: 54, y: 340, size: 9, font: bold });
    page.drawText('Bank transfer', { x: 200, y: 340, size: 9, font: bold });
    const para = ['For questions about this invoice please write to the accounts department quoting your customer', 'number and the invoice number, and we will answer within two working days of your message.', 'Objections to the charges must be raised in writing within four weeks of the invoice date, after', 'which the charges count as accepted; we will point this out again in the next invoice we send.'];
    para.forEach((t, i) => page.drawText(t, { x: 54, y: 300 - i * 11, size: 9, font }));
    hline(page, 54, 572, 60);
    page.drawText('Example Hosting Ltd, 1 Harbour Road, Bristol', { x: 54, y: 48, size: 7, font });
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 1, show(doc));
  const t = doc.tables[0]!;
  assert.ok(!t.cells.some((c) => /questions|Objections|Bank transfer/.test(c.text)), show(doc));
  assert.ok(grid(t).some((r) => r.join('|') === '2|1|Backup storage, 50 GB|4,50|4,50'), show(doc));
});

test('bars of a bar chart with their values beside them are a chart, no table', async () => {
  const p = await makePdf('bar-chart', (page, font) => {
    page.drawText('Figure 2. Prevalence by age group (in percent)', { x: 60, y: 740, size: 10, font });
    const groups: [string, number[]][] = [['Under 15', [8.4, 4.2, 0.5]], ['15 to 24', [10.2, 5.3, 1.4]], ['55 to 64', [28.7, 20.4, 6.0]], ['65 to 69', [35.0, 24.7, 6.9]], ['80 and over', [70.5, 55.8, 30.2]]];
    groups.forEach(([label, values], g) => {
      const top = 710 - g * 60;
      page.drawText(label, { x: 60, y: top - 22, size: 8, font });
      values.forEach((v, k) => {
        // three bars touching one another, each with its value past its end
        const y = top - (k + 1) * 12;
        page.drawRectangle({ x: 120, y, width: v * 4, height: 12, color: rgb(0.6, 0.5, 0.8), borderColor: rgb(0.2, 0.1, 0.3), borderWidth: 0.5 });
        page.drawText(v.toFixed(1), { x: 120 + v * 4 + 3, y: y + 3, size: 8, font });
      });
    });
  });
  const doc = await read(p);
  assert.equal(doc.tables.length, 0, show(doc));
  assert.match(doc.text, /28\.7/);
});
