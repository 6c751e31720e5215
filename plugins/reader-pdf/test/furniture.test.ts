import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import { pluginContext } from '@quire/core';
import type { ParsedDocument } from '@quire/core';
import { chunkDocument } from '@quire/plugin-chunker-default';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import { pdfReader } from './make-reader.js';
import { hasTesseract } from '../../../test/helpers/reader-harness.js';
import { FURTHER, NOTICE_BODY, noticePdf, transcriptPdf } from '../../../test/helpers/layout-pdfs.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-furniture-'));
const shared = { 'limits.parseTimeoutMs': 60_000, 'ocr.concurrency': 2 };
const reader = pdfReader({ workers: 1 }, { shared });
const ocrReader = hasTesseract ? pdfReader({ workers: 1 }, { shared, ocr: await ocrPlugin.create(pluginContext(ocrPlugin, { shared, dataDir: tmp })) }) : null;
after(async () => {
  await reader.close();
  await ocrReader?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
async function read(bytes: Uint8Array, r = reader): Promise<ParsedDocument> {
  const p = path.join(tmp, `${n++}.pdf`);
  fs.writeFileSync(p, bytes);
  return r.read({ path: p, name: path.basename(p), format: 'pdf', size: bytes.length, documentId: 'doc-1' }, { ocr: { enabled: r !== reader ? 'auto' : false, language: 'eng' } });
}
const body = (d: ParsedDocument) => d.blocks.filter((b) => b.type !== 'header' && b.type !== 'footer');
/** the chunks of the body, and the text of the furniture chunks (the running heads and footers that carry facts, once, after the body) */
const bodyChunks = (chunks: ReturnType<typeof chunkDocument>) => chunks.filter((c) => c.metadata.role !== 'furniture');
const furnitureText = (chunks: ReturnType<typeof chunkDocument>) => chunks.filter((c) => c.metadata.role === 'furniture').map((c) => c.content).join('\n');
const count = (text: string, s: string) => text.split(s).length - 1;

test('a running head, a date line and "Page n of 4" set close to the text are header and footer blocks, left out of the body\'s chunks', async () => {
  const d = await read(await noticePdf());
  const headers = d.blocks.filter((b) => b.type === 'header').map((b) => `${b.page}:${b.text}`);
  const footers = d.blocks.filter((b) => b.type === 'footer').map((b) => `${b.page}:${b.text}`);
  for (let p = 1; p <= 4; p++) {
    assert.ok(headers.includes(`${p}:Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Notices`), headers.join('\n'));
    assert.ok(headers.includes(`${p}:${47611 + p}`), headers.join('\n'));
    assert.ok(headers.includes(`${p}:Issued Thursday, August 6, 2020`), headers.join('\n'));
    assert.ok(footers.includes(`${p}:Page ${p} of 4`), footers.join('\n'));
  }
  assert.equal(headers.length, 12);
  assert.equal(footers.length, 4);
  // the text under the head and over the footer is whole paragraphs, without the furniture
  for (const [i, lines] of NOTICE_BODY.entries()) {
    assert.ok(body(d).some((b) => b.page === i + 1 && b.type === 'paragraph' && b.text === lines.join(' ')), `page ${i + 1}:\n${body(d).map((b) => b.text).join('\n')}`);
    assert.ok(body(d).some((b) => b.page === i + 1 && b.text === FURTHER[i]!.join(' ')), `page ${i + 1}:\n${body(d).map((b) => b.text).join('\n')}`);
  }
  // kept in the document (its text, and its blocks' spans)
  assert.match(d.text, /Page 3 of 4/);
  for (const b of d.blocks) assert.equal(d.text.slice(b.span.start, b.span.end), b.text);
  const chunks = chunkDocument(d, { max_chunk_size: 2000 });
  assert.ok(bodyChunks(chunks).length >= 1);
  for (const c of bodyChunks(chunks)) assert.doesNotMatch(c.content, /Vol\. 85|August 6, 2020|Page \d of 4|4761\d/, c.content);
  assert.match(bodyChunks(chunks).map((c) => c.content).join('\n'), /water quality standards for coastal regions/);
  // the running head and the date line carry facts: once each, after the body; the page numbers and "Page n of 4" in no chunk
  const furniture = furnitureText(chunks);
  assert.equal(count(furniture, 'Federal Register / Vol. 85, No. 152'), 1, furniture);
  assert.equal(count(furniture, 'Issued Thursday, August 6, 2020'), 1, furniture);
  assert.doesNotMatch(furniture, /Page \d of 4|4761\d/, furniture);
  assert.ok(chunks.findIndex((c) => c.metadata.role === 'furniture') > chunks.findLastIndex((c) => c.metadata.role !== 'furniture'));
});

test('a court transcript: the line numbers are left out and a sentence over two numbered lines is read whole', async () => {
  const d = await read(await transcriptPdf());
  const whole = 'STEVEN E. MERCER, ESQ., Deputy Attorney General, Los Angeles, Cal.; on behalf of the Petitioner.';
  assert.ok(d.blocks.some((b) => b.page === 1 && b.text === whole), d.blocks.map((b) => `${b.type}: ${b.text}`).join('\n'));
  assert.ok(d.blocks.some((b) => b.page === 2 && b.text === 'MR. MERCER: Mr. Chief Justice, and may it please the Court: the question in this case is whether the statute applies to records kept by a hotel.'));
  // an indented speaker turn starts a new paragraph
  assert.ok(d.blocks.some((b) => b.page === 3 && b.text === 'MR. MERCER: It does not, Your Honor, but the statute allows an inspection at any time.'));
  // no line number is left in the text (the numbers 1-25 of each page)
  assert.doesNotMatch(d.text, /(^|\s)(1[0-9]|2[0-5])\s+[A-Z]/m);
  assert.doesNotMatch(d.text, /\b16 STEVEN|\b17 Angeles/);
  // the furniture of the transcript's pages
  assert.deepEqual(d.blocks.filter((b) => b.type === 'footer').map((b) => b.text), ['Alderson Reporting Company', 'Alderson Reporting Company', 'Alderson Reporting Company']);
  assert.deepEqual(d.blocks.filter((b) => b.type === 'header').map((b) => b.text), ['Official - Subject to Final Review', '1', 'Official - Subject to Final Review', '2', 'Official - Subject to Final Review', '3']);
  // the first line of the first page, near the top but seen once, is body text
  assert.ok(body(d).some((b) => b.page === 1 && b.text === 'IN THE SUPREME COURT OF THE UNITED STATES'));
  const chunks = chunkDocument(d, { max_chunk_size: 4000 });
  assert.ok(bodyChunks(chunks).some((c) => c.content.includes(whole)));
  for (const c of bodyChunks(chunks)) assert.doesNotMatch(c.content, /Alderson|Official - Subject/);
  // the reporter's footer and the running head carry words: once each in the furniture, the page numbers not
  const furniture = furnitureText(chunks);
  assert.equal(count(furniture, 'Official - Subject to Final Review'), 1, furniture);
  assert.equal(count(furniture, 'Alderson Reporting Company'), 1, furniture);
  assert.doesNotMatch(furniture, /^\d+$/m, furniture);
});

test('lines near the top seen on one page only (a first line, a year like a page number), or repeated mid-page, are untouched body text', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 4; i++) {
    const page = doc.addPage([612, 792]);
    // a different first line on every page, set as a running head would be
    page.drawText(`Chapter ${['one', 'two', 'three', 'four'][i - 1]} begins with its own words here`, { x: 72, y: 750, size: 10, font });
    // the year on the cover, alone at the top like a page number, once
    if (i === 1) page.drawText('2024', { x: 500, y: 770, size: 10, font });
    page.drawText('ACME Annual Report', { x: 72, y: 400, size: 10, font });
    page.drawText(`The body of page ${i} carries text that differs on every page.`, { x: 72, y: 380, size: 10, font });
  }
  const d = await read(await doc.save());
  assert.equal(d.blocks.filter((b) => b.type === 'header' || b.type === 'footer').length, 0, d.blocks.map((b) => `${b.type}: ${b.text}`).join('\n'));
  assert.ok(d.blocks.some((b) => b.page === 1 && b.text === 'Chapter one begins with its own words here'));
  assert.equal(d.blocks.find((b) => b.text === '2024')?.type, 'paragraph');
  assert.equal(d.blocks.filter((b) => b.text.startsWith('ACME Annual Report')).length, 4);
});

test('two pages: a line repeated exactly, and page numbers, are furniture; lines that match only with digits masked are not', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) {
    const page = doc.addPage([612, 792]);
    page.drawText('Confidential draft', { x: 72, y: 755, size: 9, font });
    page.drawText(`Invoice 10${i}4 issued to customer 77${i}`, { x: 320, y: 755, size: 9, font });
    page.drawText(`Text of page ${i} in the middle of the page, which stays body text.`, { x: 72, y: 400, size: 10, font });
    page.drawText(`- ${i} -`, { x: 300, y: 40, size: 9, font });
  }
  const d = await read(await doc.save());
  assert.deepEqual(d.blocks.filter((b) => b.type === 'header').map((b) => b.text), ['Confidential draft', 'Confidential draft']);
  assert.deepEqual(d.blocks.filter((b) => b.type === 'footer').map((b) => b.text), ['- 1 -', '- 2 -']);
  assert.equal(body(d).filter((b) => b.text.startsWith('Invoice 10')).length, 2);
});

test('six pages of a book: alternating footers, the page number beside a chapter title that changes, are footer blocks left out of the body\'s chunks', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const chapters = ['Chapter 1. Getting started', 'Chapter 2. Planning the work', 'Chapter 3. Reviewing results'];
  const printed = [7, 8, 13, 14, 21, 22];
  for (let i = 0; i < 6; i++) {
    const page = doc.addPage([612, 792]);
    for (let l = 0; l < 20; l++) page.drawText(`Body line ${l + 1} of page ${i + 1}, running text that the reader keeps in the chunks.`, { x: 72, y: 700 - l * 14, size: 10, font });
    if (i % 2 === 0) {
      // right-hand page: chapter title, then the number at the outer edge
      page.drawText(chapters[i / 2]!, { x: 330, y: 36, size: 8, font });
      page.drawText(String(printed[i]), { x: 530, y: 36, size: 9, font });
    } else {
      page.drawText(String(printed[i]), { x: 72, y: 36, size: 9, font });
      page.drawText('Field Manual of Survey Practice', { x: 100, y: 36, size: 8, font });
    }
  }
  const d = await read(await doc.save());
  const footers = d.blocks.filter((b) => b.type === 'footer').map((b) => b.text).join(' | ');
  for (const t of [...chapters, 'Field Manual of Survey Practice', ...printed.map(String)]) assert.ok(footers.includes(t), footers);
  const all = chunkDocument(d, { max_chunk_size: 4000 });
  const chunks = bodyChunks(all).map((c) => c.content).join('\n');
  assert.ok(chunks.includes('Body line 20 of page 6'));
  for (const t of [...chapters, 'Field Manual']) assert.ok(!chunks.includes(t), t);
  // the chapter titles and the book's title, once each after the body (a title's line is kept whole, a page number set in
  // it included: "8 Field Manual …"); a page number alone is no line of it
  const furniture = furnitureText(all);
  for (const t of [...chapters, 'Field Manual of Survey Practice']) assert.equal(count(furniture, t), 1, furniture);
  assert.doesNotMatch(furniture, /^\d+$/m, furniture);
});

test('scanned pages: the running head and page footers read by OCR are header and footer blocks', { skip: !hasTesseract }, async () => {
  const doc = await PDFDocument.create();
  const bodies = ['The harbour opened a new quay for ferries this spring.', 'Cargo volumes rose by a fifth over the previous year.', 'A second crane is planned for the northern basin.'];
  for (const [i, body] of bodies.entries()) {
    // a page scanned at 150 dpi: the head at the top, the text in the middle, the footer at the bottom
    const c = createCanvas(1275, 1650);
    const g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, c.width, c.height);
    g.fillStyle = '#000';
    g.font = '36px DejaVu Sans';
    g.fillText('Harbour Board Quarterly Review', 150, 110);
    g.font = '40px DejaVu Sans';
    g.fillText(body, 150, 800);
    g.font = '36px DejaVu Sans';
    g.fillText(`Page ${i + 1} of 3`, 540, 1580);
    const png = await doc.embedPng(c.toBuffer('image/png'));
    doc.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
  }
  const d = await read(await doc.save(), ocrReader!);
  assert.ok(d.pages.every((p) => p.ocr));
  const of = (type: string) => d.blocks.filter((b) => b.type === type).map((b) => `${b.page}:${b.text}`);
  assert.deepEqual(of('header'), [1, 2, 3].map((p) => `${p}:Harbour Board Quarterly Review`), d.blocks.map((b) => `${b.type}: ${b.text}`).join('\n'));
  assert.deepEqual(of('footer'), [1, 2, 3].map((p) => `${p}:Page ${p} of 3`));
  assert.ok(bodies.every((t, i) => d.blocks.some((b) => b.page === i + 1 && b.type === 'paragraph' && b.text === t)));
});
