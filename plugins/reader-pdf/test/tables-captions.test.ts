import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import type { ParsedDocument } from '@quire/core';
import { pdfReader } from './make-reader.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-captions-'));
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const usFile = path.join(corpus, 'files/tabula__us-012.pdf');
const hasUs012 = fs.existsSync(usFile);

const reader = pdfReader({ workers: 1 });
after(async () => {
  await reader.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const read = (p: string): Promise<ParsedDocument> =>
  reader.read({ path: p, name: path.basename(p), format: 'pdf', size: fs.statSync(p).size, documentId: path.basename(p) }, { ocr: { enabled: false, language: 'eng' } });

const CAPTION = 'Table 3: Regional sales by quarter (in units)';
const NOTE = 'Note: figures are provisional; source: regional offices.';

/**
 * A caption line, a ruled 3x5 grid and a note line. `framed`: a box around all three whose sides are the
 * grid's outer rules (an exhibit frame, as in government reports), drawn as one closed path.
 */
async function captionedTable(framed: boolean): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([612, 792]);
  const x0 = 100, colW = 120, rowH = 20, cols = 3, rows = 5, top = 650;
  page.drawText(CAPTION, { x: x0 + 4, y: top + 12, size: 11, font: bold });
  const data = [['Region', 'Q1', 'Q2'], ['North', '120', '135'], ['South', '98', '101'], ['East', '143', '150'], ['West', '87', '92']];
  for (let r = 0; r <= rows; r++) page.drawLine({ start: { x: x0, y: top - r * rowH }, end: { x: x0 + cols * colW, y: top - r * rowH }, thickness: 0.8, color: rgb(0, 0, 0) });
  for (let c = 0; c <= cols; c++) page.drawLine({ start: { x: x0 + c * colW, y: top }, end: { x: x0 + c * colW, y: top - rows * rowH }, thickness: 0.8, color: rgb(0, 0, 0) });
  data.forEach((row, r) => row.forEach((t, c) => page.drawText(t, { x: x0 + c * colW + 6, y: top - (r + 1) * rowH + 6, size: 10, font: r === 0 ? bold : font })));
  page.drawText(NOTE, { x: x0 + 4, y: top - rows * rowH - 18, size: 9, font });
  if (framed) page.drawRectangle({ x: x0, y: top - rows * rowH - 30, width: cols * colW, height: rows * rowH + 60, borderColor: rgb(0.2, 0.4, 0.8), borderWidth: 1.5 });
  page.drawText('Body text after the table continues here with a normal paragraph of words.', { x: 72, y: 400, size: 10, font });
  const p = path.join(tmp, `captioned-${framed ? 'framed' : 'open'}.pdf`);
  fs.writeFileSync(p, await doc.save());
  return p;
}

function assertCaptionAndNoteOutside(doc: ParsedDocument) {
  assert.equal(doc.tables.length, 1, JSON.stringify(doc.tables.map((t) => t.cells.map((c) => c.text))));
  const t = doc.tables[0]!;
  assert.equal(t.rows, 5);
  assert.equal(t.cols, 3);
  const texts = t.cells.map((c) => c.text);
  assert.ok(!texts.some((x) => x.includes('Regional sales') || x.includes('provisional')), `caption or note inside the table: ${JSON.stringify(texts)}`);
  assert.deepEqual(t.cells.filter((c) => c.row === 0).map((c) => c.text), ['Region', 'Q1', 'Q2']);
  assert.ok(t.cells.filter((c) => c.row === 0).every((c) => c.header), 'the first row of the table is its header');
  // the caption and the note are blocks of their own, once, around the table, and not label-value pairs
  const caption = doc.blocks.find((b) => b.text === CAPTION);
  const note = doc.blocks.find((b) => b.text === NOTE);
  assert.ok(caption && note, doc.blocks.map((b) => `${b.type}: ${b.text}`).join('\n'));
  assert.ok(['caption', 'paragraph', 'heading'].includes(caption.type), caption.type);
  assert.equal(note.type, 'paragraph');
  const table = doc.blocks.find((b) => b.type === 'table')!;
  assert.ok(caption.span.end <= table.span.start && table.span.end <= note.span.start, 'caption, table, note in reading order');
  assert.equal(doc.text.split('Regional sales').length - 1, 1, 'the caption is in the text once');
  assert.equal(doc.text.split('provisional').length - 1, 1, 'the note is in the text once');
}

test('a caption above a ruled table and a note below it stay paragraphs (open grid)', async () => {
  assertCaptionAndNoteOutside(await read(await captionedTable(false)));
});

test('a frame around caption, table and note does not make them table rows spanning every column', async () => {
  assertCaptionAndNoteOutside(await read(await captionedTable(true)));
});

test('corpus: tabula us-012 keeps the exhibit title and the notes out of the table', { skip: !hasUs012 && 'no ../shared/corpus here' }, async () => {
  const doc = await read(usFile);
  assert.equal(doc.tables.length, 1);
  const t = doc.tables[0]!;
  const texts = t.cells.map((c) => c.text);
  assert.ok(!texts.some((x) => /Exhibit B\.4|means not available|SSI-NCLB/.test(x)), `title or notes inside the table: ${JSON.stringify(texts.slice(0, 8))}`);
  assert.ok(!t.cells.some((c) => c.colSpan === t.cols), 'no row is one cell across the table');
  assert.ok(t.rows >= 20 && t.cols === 6, `${t.rows}x${t.cols}`);
  assert.ok(t.cells.some((c) => c.row === 0 && c.header && /AYP Based on 2003/.test(c.text)));
  assert.ok(doc.blocks.some((b) => b.type !== 'table' && /^Exhibit B\.4/.test(b.text)));
  assert.ok(doc.blocks.some((b) => b.type === 'paragraph' && /^Note: “na” means not available/.test(b.text)));
  assert.ok(doc.blocks.some((b) => b.type === 'paragraph' && /Source: SSI-NCLB Accountability Interviews/.test(b.text)));
  assert.equal(doc.text.split('Exhibit B.4').length - 1, 1);
});
