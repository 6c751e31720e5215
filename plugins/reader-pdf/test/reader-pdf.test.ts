import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { PDFDocument, StandardFonts, rgb, PDFName, PDFHexString } from 'pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import { ocrPendingOf, pluginContext } from '@quire/core';
import type { ParsedDocument, ReadOptions } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import type pdfPlugin from '@quire/plugin-reader-pdf';
import { PdfReader, unrotate } from '@quire/plugin-reader-pdf';
import { pdfReader } from './make-reader.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-test-'));
const hasTesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const shared = { 'limits.parseTimeoutMs': 60_000, 'ocr.concurrency': 2 };
const ocr = await ocrPlugin.create(pluginContext(ocrPlugin, { shared, dataDir: tmp }));
const reader = pdfReader({ workers: 2, prestart: true }, { ocr, shared });
const noOcrReader = pdfReader({ workers: 1 }, { shared });
after(async () => {
  await reader.close();
  await noOcrReader.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
async function save(doc: PDFDocument, name = 'doc.pdf', opts: { useObjectStreams?: boolean } = {}): Promise<string> {
  const p = path.join(tmp, `${n++}-${name}`);
  fs.writeFileSync(p, await doc.save(opts));
  return p;
}
const opts = (o: Partial<ReadOptions> = {}): ReadOptions => ({ ocr: { enabled: 'auto', language: 'eng' }, ...o });
const read = (p: string, o: Partial<ReadOptions> = {}, r: PdfReader = reader): Promise<ParsedDocument> =>
  r.read({ path: p, name: path.basename(p), format: 'pdf', size: fs.statSync(p).size, documentId: 'doc-1' }, opts(o));

const LEFT = ['Alpha one starts the left column here', 'and alpha two continues the same', 'paragraph in the left column until', 'alpha three ends the left column text.'];
const RIGHT = ['Beta one starts the right column here', 'and beta two continues the same', 'paragraph in the right column until', 'beta three ends the right column text.'];

test('two-column page: the title first, then the left column, then the right column', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([612, 792]);
  page.drawText('A Study of Two Columns', { x: 150, y: 720, size: 20, font: bold });
  LEFT.forEach((t, i) => page.drawText(t, { x: 50, y: 660 - i * 14, size: 10, font }));
  RIGHT.forEach((t, i) => page.drawText(t, { x: 320, y: 660 - i * 14, size: 10, font }));
  // a second paragraph in each column, aligned with each other
  page.drawText('Alpha second paragraph stays left.', { x: 50, y: 580, size: 10, font });
  page.drawText('Beta second paragraph stays right.', { x: 320, y: 580, size: 10, font });
  const parsed = await read(await save(doc, 'two-col.pdf'));
  const t = parsed.text;
  assert.ok(!t.includes('\f'));
  const pos = (s: string) => {
    const i = t.indexOf(s);
    assert.ok(i >= 0, `missing "${s}" in:\n${t}`);
    return i;
  };
  assert.ok(pos('A Study of Two Columns') < pos('Alpha one'));
  assert.ok(pos('alpha three ends') < pos('Alpha second paragraph'));
  assert.ok(pos('Alpha second paragraph') < pos('Beta one'), t);
  assert.ok(pos('beta three ends') < pos('Beta second paragraph'));
  // lines of a column paragraph are one block with spaces between words
  const para = parsed.blocks.find((b) => b.text.startsWith('Alpha one'))!;
  assert.equal(para.text, LEFT.join(' '));
  assert.equal(para.type, 'paragraph');
  assert.ok(para.bbox && para.bbox.x > 45 && para.bbox.x < 55 && para.bbox.width < 280, JSON.stringify(para.bbox));
  // spans point into the text
  for (const b of parsed.blocks) assert.equal(t.slice(b.span.start, b.span.end), b.text);
});

test('headings from font size and weight relative to the body, lists, key-values, metadata', async () => {
  const doc = await PDFDocument.create();
  doc.setTitle('Quarterly Report');
  doc.setAuthor('Jane Writer');
  doc.setCreationDate(new Date('2024-03-01T10:00:00Z'));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([612, 792]);
  let y = 740;
  const line = (text: string, size = 11, f = font, x = 60) => {
    page.drawText(text, { x, y, size, font: f });
    y -= size * 1.6;
  };
  line('Quarterly Report', 24, bold);
  y -= 10;
  line('The body text of the report is set in eleven point type and runs over', 11);
  line('several lines so that it is clearly the body size of this document.', 11);
  y -= 12;
  line('Results and Outlook', 16, bold);
  y -= 6;
  line('Revenue grew in every region and the outlook for the next year is good', 11);
  line('according to the people who wrote this paragraph of body text.', 11);
  y -= 12;
  line('Key figures', 11, bold);
  line('Invoice number: INV-2024-001', 11);
  line('Due date: 2024-04-01', 11);
  y -= 12;
  line('• First bullet item', 11);
  line('• Second bullet item', 11);
  line('1. Numbered item', 11);
  const parsed = await read(await save(doc, 'headings.pdf'));
  const by = (s: string) => parsed.blocks.find((b) => b.text.startsWith(s))!;
  assert.equal(by('Quarterly Report').type, 'heading');
  assert.equal(by('Quarterly Report').level, 1);
  assert.equal(by('Results and Outlook').type, 'heading');
  assert.equal(by('Results and Outlook').level, 2);
  assert.equal(by('Key figures').type, 'heading');
  assert.ok(by('Key figures').level! > 2);
  assert.equal(by('The body text').type, 'paragraph');
  const kv = by('Invoice number');
  assert.equal(kv.type, 'key_value');
  assert.equal(kv.key, 'Invoice number');
  assert.equal(kv.value, 'INV-2024-001');
  assert.equal(by('• First').type, 'list_item');
  assert.equal(by('1. Numbered').type, 'list_item');
  assert.match(parsed.text, /• First bullet item\n• Second bullet item\n1\. Numbered item/);
  assert.equal(parsed.metadata.title, 'Quarterly Report');
  assert.equal(parsed.metadata.author, 'Jane Writer');
  assert.equal(parsed.metadata.creationDate, '2024-03-01T10:00:00.000Z');
  assert.equal(parsed.pages[0]!.width, 612);
  assert.equal(parsed.pages[0]!.height, 792);
  assert.equal(parsed.pages[0]!.ocr, false);
});

test('a ruled table becomes cells with a header row and a merged cell', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([612, 792]);
  page.drawText('Sales by region', { x: 60, y: 720, size: 12, font });
  const xs = [60, 200, 320, 440];
  const ys = [700, 680, 660, 640, 620];
  const black = rgb(0, 0, 0);
  for (const y of ys) page.drawLine({ start: { x: xs[0]!, y }, end: { x: xs[3]!, y }, thickness: 0.8, color: black });
  for (const x of xs) {
    // the line between columns 2 and 3 is missing in the last row: a merged cell
    if (x === 320) {
      page.drawLine({ start: { x, y: 700 }, end: { x, y: 640 }, thickness: 0.8, color: black });
    } else page.drawLine({ start: { x, y: 700 }, end: { x, y: 620 }, thickness: 0.8, color: black });
  }
  const rows = [
    ['Region', 'Units', 'Revenue'],
    ['North', '120', '1,200.00'],
    ['South', '80', '800.00'],
    ['Total', 'All regions: 2,000.00', ''],
  ];
  rows.forEach((r, ri) =>
    r.forEach((t, ci) => {
      if (t) page.drawText(t, { x: xs[ci]! + 5, y: ys[ri]! - 14, size: 10, font: ri === 0 ? bold : font });
    }),
  );
  page.drawText('Text after the table.', { x: 60, y: 590, size: 10, font });
  const parsed = await read(await save(doc, 'table.pdf'));
  assert.equal(parsed.tables.length, 1, JSON.stringify(parsed.blocks.map((b) => b.text)));
  const t = parsed.tables[0]!;
  assert.equal(t.rows, 4);
  assert.equal(t.cols, 3);
  const cell = (r: number, c: number) => t.cells.find((x) => x.row === r && x.col === c);
  assert.equal(cell(0, 0)!.text, 'Region');
  assert.equal(cell(0, 2)!.text, 'Revenue');
  assert.equal(cell(1, 2)!.text, '1,200.00');
  assert.equal(cell(2, 0)!.text, 'South');
  assert.ok(cell(0, 0)!.header);
  assert.ok(!cell(1, 0)!.header);
  const merged = cell(3, 1)!;
  assert.equal(merged.colSpan, 2);
  assert.equal(merged.text, 'All regions: 2,000.00');
  assert.equal(t.page, 1);
  const tableBlock = parsed.blocks.find((b) => b.type === 'table')!;
  assert.equal(tableBlock.tableIndex, 0);
  assert.match(tableBlock.text, /\| Region \| Units \| Revenue \|/);
  // reading order: caption, table, text after
  assert.ok(parsed.text.indexOf('Sales by region') < parsed.text.indexOf('| Region'));
  assert.ok(parsed.text.indexOf('| Region') < parsed.text.indexOf('Text after the table.'));
  // table text is not repeated as paragraphs
  assert.equal(parsed.text.split('1,200.00').length, 2);
});

test('a table from aligned columns without rules', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const rows = [
    ['Item', 'Qty', 'Price', 'Amount'],
    ['Widget', '2', '10.00', '20.00'],
    ['Gadget', '1', '15.50', '15.50'],
    ['Gizmo', '4', '2.25', '9.00'],
  ];
  rows.forEach((r, ri) => r.forEach((t, ci) => page.drawText(t, { x: 60 + ci * 110, y: 700 - ri * 16, size: 10, font })));
  const parsed = await read(await save(doc, 'aligned.pdf'));
  assert.equal(parsed.tables.length, 1, parsed.text);
  const t = parsed.tables[0]!;
  assert.equal(t.rows, 4);
  assert.equal(t.cols, 4);
  assert.equal(t.cells.find((c) => c.row === 2 && c.col === 2)!.text, '15.50');
  assert.ok(t.cells.find((c) => c.row === 0 && c.col === 0)!.header);
});

test('a table with horizontal rules only (top, header, bottom): header row and close columns', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Table 2. Results of the three models on the test set.', { x: 100, y: 720, size: 10, font });
  const line = (y: number) => page.drawLine({ start: { x: 100, y }, end: { x: 420, y }, thickness: 0.6, color: rgb(0, 0, 0) });
  line(710);
  line(690);
  line(620);
  const xs = [105, 230, 290, 350];
  const rows = [
    ['Model name', 'Acc.', 'F1', 'Time (s)'],
    ['Small baseline', '0.812', '0.790', '1.2'],
    ['Medium', '0.871', '0.860', '2.5'],
    ['Large model', '0.902', '0.899', '7.9'],
  ];
  rows.forEach((r, ri) => r.forEach((t, ci) => page.drawText(t, { x: xs[ci]!, y: ri === 0 ? 696 : 675 - (ri - 1) * 18, size: 9, font })));
  page.drawText('A paragraph after the table.', { x: 100, y: 590, size: 10, font });
  const parsed = await read(await save(doc, 'booktabs.pdf'));
  assert.equal(parsed.tables.length, 1, parsed.text);
  const t = parsed.tables[0]!;
  assert.equal(t.rows, 4);
  assert.equal(t.cols, 4);
  const cell = (r: number, c: number) => t.cells.find((x) => x.row === r && x.col === c)!;
  assert.equal(cell(0, 0).text, 'Model name');
  assert.ok(cell(0, 3).header);
  assert.equal(cell(1, 0).text, 'Small baseline');
  assert.equal(cell(3, 2).text, '0.899');
  assert.ok(!cell(2, 1).header);
  assert.equal(parsed.blocks.find((b) => b.text.startsWith('Table 2.'))!.type, 'caption');
});

test('running headers and footers repeated across pages', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 3; i++) {
    const page = doc.addPage([612, 792]);
    page.drawText('ACME Corp Annual Report', { x: 60, y: 760, size: 9, font });
    page.drawText(`Body text of page ${i} that is different on every page number ${i * 7}.`, { x: 60, y: 600, size: 11, font });
    page.drawText(`Page ${i} of 3`, { x: 280, y: 30, size: 9, font });
  }
  const parsed = await read(await save(doc, 'running.pdf'));
  assert.equal(parsed.pages.length, 3);
  const headers = parsed.blocks.filter((b) => b.type === 'header');
  const footers = parsed.blocks.filter((b) => b.type === 'footer');
  assert.equal(headers.length, 3);
  assert.equal(footers.length, 3);
  assert.equal(footers[2]!.text, 'Page 3 of 3');
  assert.equal(parsed.blocks.filter((b) => b.type === 'paragraph').length, 3);
});

test('maxPages reads only the first pages; pages spread over workers stay in order', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 12; i++) doc.addPage([300, 400]).drawText(`This is page number ${i}`, { x: 40, y: 300, size: 12, font });
  const p = await save(doc, 'twelve.pdf');
  const all = await read(p);
  assert.equal(all.pages.length, 12);
  assert.deepEqual(all.blocks.map((b) => b.page), Array.from({ length: 12 }, (_, i) => i + 1));
  assert.deepEqual(all.blocks.map((b) => b.text), Array.from({ length: 12 }, (_, i) => `This is page number ${i + 1}`));
  const two = await read(p, { maxPages: 2 });
  assert.equal(two.pages.length, 2);
  assert.equal(two.text, 'This is page number 1\n\nThis is page number 2');
  assert.equal(two.metadata.numPages, 12);
  assert.equal(two.metadata.truncated, true);
});

test('encrypted and corrupt files fail with clear errors; a tiny time limit times out', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('secret', { x: 50, y: 700, size: 12, font });
  // a standard security handler whose user password is not empty
  const enc = doc.context.obj({ Filter: 'Standard', V: 1, R: 2, P: -44 });
  enc.set(PDFName.of('O'), PDFHexString.of('a'.repeat(64)));
  enc.set(PDFName.of('U'), PDFHexString.of('b'.repeat(64)));
  doc.context.trailerInfo.Encrypt = doc.context.register(enc);
  doc.context.trailerInfo.ID = doc.context.obj([PDFHexString.of('0123456789abcdef0123456789abcdef'), PDFHexString.of('0123456789abcdef0123456789abcdef')]);
  const encrypted = await save(doc, 'encrypted.pdf', { useObjectStreams: false });
  await assert.rejects(read(encrypted), (e: any) => e.code === 'PROCESSING_ERROR' && e.message === 'PDF could not be read: the file is encrypted (password-protected)');

  const garbage = path.join(tmp, 'garbage.pdf');
  fs.writeFileSync(garbage, '%PDF-1.7\nthis is not really a pdf at all\n');
  await assert.rejects(read(garbage), (e: any) => e.code === 'PROCESSING_ERROR' && /^PDF could not be read: /.test(e.message));

  const empty = path.join(tmp, 'empty.pdf');
  fs.writeFileSync(empty, '');
  await assert.rejects(read(empty), (e: any) => e.code === 'PROCESSING_ERROR' && /^PDF could not be read: /.test(e.message));

  // truncated: either a clear error or what could be recovered, never a hang
  const good = fs.readFileSync(await save(doc, 'good.pdf'));
  const truncated = path.join(tmp, 'truncated.pdf');
  fs.writeFileSync(truncated, good.subarray(0, Math.floor(good.length / 3)));
  await read(truncated).then(
    (d) => assert.ok(d.pages.length >= 0),
    (e: any) => assert.equal(e.code, 'PROCESSING_ERROR'),
  );

  const quick = pdfReader({ workers: 1, timeoutMs: 1 }, { shared });
  try {
    await assert.rejects(read(await save(doc, 'slow.pdf'), {}, quick), (e: any) => e.code === 'PROCESSING_ERROR' && /timed out/.test(e.message));
  } finally {
    await quick.close();
  }
  const ac = new AbortController();
  ac.abort(new Error('cancelled by user'));
  await assert.rejects(read(await save(doc, 'aborted.pdf'), { signal: ac.signal }), /cancelled by user/);
  // the pool still works after aborts and timeouts
  const ok = await read(await save(doc, 'after.pdf'), { ocr: { enabled: false, language: 'eng' } }).catch((e) => e);
  assert.ok(ok instanceof Error || ok.pages.length === 1);
});

/** A PDF page that is only an image of text (a scan), optionally upside down. */
async function scannedPdf(lines: string[], upsideDown = false): Promise<string> {
  const c = createCanvas(1275, 500);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  if (upsideDown) {
    g.translate(c.width, c.height);
    g.rotate(Math.PI);
  }
  g.fillStyle = '#000';
  g.font = '44px DejaVu Sans';
  lines.forEach((l, i) => g.fillText(l, 80, 120 + i * 80));
  const doc = await PDFDocument.create();
  const png = await doc.embedPng(c.toBuffer('image/png'));
  const page = doc.addPage([612, 792]);
  page.drawImage(png, { x: 0, y: 792 - 240, width: 612, height: 240 });
  return save(doc, 'scan.pdf');
}

test('a page without a text layer is OCRed (or reported when OCR is unavailable or disabled)', { skip: !hasTesseract }, async () => {
  const p = await scannedPdf(['Scanned invoice page', 'Invoice number: 4711', 'Thank you for your business']);
  const parsed = await read(p);
  assert.equal(parsed.pages[0]!.ocr, true);
  assert.match(parsed.text, /Scanned invoice page/);
  assert.match(parsed.text, /4711/);
  assert.ok(parsed.pages[0]!.confidence > 0.6 && parsed.pages[0]!.confidence <= 1);
  const kv = parsed.blocks.find((b) => b.type === 'key_value');
  assert.equal(kv?.value, '4711');
  // boxes in points on the page (the text sits in the top third)
  assert.ok(kv!.bbox!.y > 30 && kv!.bbox!.y < 240, JSON.stringify(kv!.bbox));
  assert.ok(parsed.pages[0]!.words!.some((w) => w.text === 'Scanned'));

  // an upside-down scan is turned upright; its boxes stay in the page's frame
  const turned = await read(await scannedPdf(['Upside down scanned page', 'Reference: ZX-42'], true));
  assert.match(turned.text, /Upside down scanned page/);
  const ref = turned.blocks.find((b) => b.type === 'key_value')!;
  assert.equal(ref.value, 'ZX-42');
  // drawn upside down near the bottom of the 240 pt image band, i.e. near its top edge on the page
  assert.ok(ref.bbox!.y < 240 && ref.bbox!.x > 200, JSON.stringify(ref.bbox));

  const unavailable = await read(p, {}, noOcrReader);
  assert.equal(unavailable.text, '');
  assert.deepEqual(unavailable.issues.map((i) => [i.code, i.stage, i.page]), [['OCR_UNAVAILABLE', 'ocr', 1]]);
  const disabled = await read(p, { ocr: { enabled: false, language: 'eng' } });
  assert.equal(disabled.issues[0]!.code, 'OCR_DISABLED');
  // the pipeline's read stage defers OCR to the ocr stage: the page is listed, not OCRed
  const deferred = await read(p, { ocr: { enabled: 'auto', language: 'eng', defer: true } });
  assert.deepEqual(ocrPendingOf(deferred), [1]);
  assert.equal(deferred.text, '');
  assert.equal(deferred.pages[0]!.ocr, false);
  assert.equal(deferred.metadata.ocrEngine, undefined);
  // without OCR to defer to, the read says so itself
  assert.deepEqual(ocrPendingOf(await read(p, { ocr: { enabled: 'auto', language: 'eng', defer: true } }, noOcrReader)), []);
});

test('unrotate maps boxes read on a turned page image back to the page', () => {
  const b = { x: 10, y: 20, width: 30, height: 40 };
  assert.deepEqual(unrotate(b, 0, 600, 800), b);
  assert.deepEqual(unrotate(b, 180, 600, 800), { x: 560, y: 740, width: 30, height: 40 });
  // turned 90 degrees clockwise the image is 800 wide and 600 high
  assert.deepEqual(unrotate(b, 90, 600, 800), { x: 20, y: 760, width: 40, height: 30 });
  assert.deepEqual(unrotate(b, 270, 600, 800), { x: 540, y: 10, width: 40, height: 30 });
});

test('a built plugin (dist) starts its worker from .js', { skip: !fs.existsSync(new URL('../dist/pdfium-worker.js', import.meta.url)) }, async () => {
  const { default: built } = (await import(new URL('../dist/index.js', import.meta.url).href)) as { default: typeof pdfPlugin };
  const r = pdfReader({ workers: 1 }, { shared, plugin: built });
  try {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage().drawText('from dist', { x: 50, y: 700, size: 12, font });
    const parsed = await read(await save(doc, 'dist.pdf'), {}, r);
    assert.equal(parsed.text, 'from dist');
  } finally {
    await r.close();
  }
});

test('the plugin starts its parse threads when it is created', () => {
  const pool = (reader as unknown as { pool: { threads: number } | null }).pool;
  assert.equal(pool?.threads, 2);
});

test('table-likeness (whether ruling lines are read): tables yes; bullet lists and two text columns no', async () => {
  const { mayHaveTable } = await import('../src/layout.js');
  type Item = Parameters<typeof mayHaveTable>[0][number];
  const item = (str: string, x: number, baseline: number, size = 10): Item => ({ str, x, top: baseline - size * 0.8, bottom: baseline + size * 0.2, baseline, width: str.length * size * 0.5, size, bold: false, italic: false, rtl: false });
  const table: Item[] = [];
  ['Region', 'North', 'South', 'East', 'West'].forEach((r, i) => table.push(item(r, 60, 100 + i * 14), item(String(100 + i), 200, 100 + i * 14), item(`${i}.5 %`, 300, 100 + i * 14)));
  assert.equal(mayHaveTable(table), true);
  const bullets: Item[] = [];
  for (let i = 0; i < 6; i++) bullets.push(item('•', 60, 100 + i * 14), item(`Item ${i} of the list, a line of plain running text that goes on`, 80, 100 + i * 14));
  for (let i = 0; i < 4; i++) bullets.push(item(`${i + 1}.`, 60, 200 + i * 14), item(`Numbered step ${i} told in a sentence of several words`, 80, 200 + i * 14));
  assert.equal(mayHaveTable(bullets), false);
  const columns: Item[] = [];
  for (let i = 0; i < 12; i++) {
    // running text in two columns; every third line of the right column ends a paragraph (short)
    columns.push(item('the left column carries running text in words', 50, 100 + i * 12));
    columns.push(item(i % 3 === 2 ? 'ends here.' : 'the right column carries more running text too', 320, 100 + i * 12));
  }
  assert.equal(mayHaveTable(columns), false);
});

test('PDFium worker: the document information (dates as ISO 8601, UTF-16 titles) and the form kind', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText('Information of the document.', { x: 72, y: 700, size: 12, font });
  doc.setTitle('Rapport annuel – été 2024');
  doc.setAuthor('Ana Núñez');
  doc.setSubject('Subject line');
  doc.setCreator('Creator app');
  doc.setProducer('Producer lib');
  doc.setCreationDate(new Date('2024-03-05T10:20:30Z'));
  doc.setModificationDate(new Date('2024-04-06T11:21:31Z'));
  const parsed = await read(await save(doc, 'info.pdf'), {}, noOcrReader);
  const m = parsed.metadata as Record<string, unknown>;
  assert.equal(m.title, 'Rapport annuel – été 2024');
  assert.equal(m.author, 'Ana Núñez');
  assert.equal(m.subject, 'Subject line');
  assert.equal(m.creator, 'Creator app');
  assert.equal(m.producer, 'Producer lib');
  assert.equal(m.creationDate, '2024-03-05T10:20:30.000Z');
  assert.equal(m.modificationDate, '2024-04-06T11:21:31.000Z');
  assert.equal(m.form, 'none');
});

test('PDFium worker: a page turned by /Rotate reads in the turned page (text upright in the view), its size swapped', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([792, 612]);
  // drawn turned 90° in page space, upright once the page is shown turned by /Rotate 90
  page.setRotation({ type: 'degrees' as never, angle: 90 } as never);
  const lines = ['The first line of the turned page.', 'The second line follows it below.'];
  lines.forEach((l, i) => page.drawText(l, { x: 100 + i * 20, y: 100, size: 12, font, rotate: { type: 'degrees' as never, angle: 90 } as never }));
  const parsed = await read(await save(doc, 'rotate-90.pdf'), {}, noOcrReader);
  assert.equal(parsed.text, lines.join(' '));
  const box = parsed.blocks[0]!.bbox!;
  assert.ok(box.width > box.height, JSON.stringify(box));
});
