import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { PDFDocument, StandardFonts, PDFName, PDFHexString } from 'pdf-lib';
import { mergeOcrPages, ocrPendingOf, pluginContext } from '@quire/core';
import type { ParsedDocument, ReadOptions } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import popplerPlugin, { PopplerPdfReader, parseBboxLayout, decodeXml, lineText } from '@quire/plugin-reader-pdf-poppler';
import type { PopplerReaderOptions } from '@quire/plugin-reader-pdf-poppler';

const has = (cmd: string, arg: string) => {
  try {
    execFileSync(cmd, [arg], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const hasPoppler = has('pdftotext', '-v') && has('pdfinfo', '-v');
const hasTesseract = hasPoppler && has('pdftoppm', '-v') && has('tesseract', '--version');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-poppler-test-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const shared = { 'limits.parseTimeoutMs': 60_000, 'ocr.concurrency': 2 };
/** A poppler reader made as the registry makes it, with `ocr` as its OCR plugin. */
const poppler = (options: PopplerReaderOptions = {}, ocr?: unknown) =>
  popplerPlugin.create(pluginContext(popplerPlugin, { options: { processes: 2, ...options }, shared, dataDir: tmp, tryGet: ((k: string) => (k === 'ocr' ? ocr : undefined)) as never })) as unknown as PopplerPdfReader;

let n = 0;
async function save(doc: PDFDocument, name = 'doc.pdf', opts: { useObjectStreams?: boolean } = {}): Promise<string> {
  const p = path.join(tmp, `${n++}-${name}`);
  fs.writeFileSync(p, await doc.save(opts));
  return p;
}
const opts = (o: Partial<ReadOptions> = {}): ReadOptions => ({ ocr: { enabled: 'auto', language: 'eng' }, ...o });
const read = (r: PopplerPdfReader, p: string, o: Partial<ReadOptions> = {}): Promise<ParsedDocument> =>
  r.read({ path: p, name: path.basename(p), format: 'pdf', size: fs.statSync(p).size, documentId: 'doc-1' }, opts(o));


/** A scanned strip (1275 × 500 PNG): black lines of 44 px type on white, 80 px apart. */
async function scannedLines(lines: string[]): Promise<Buffer> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const c = createCanvas(1275, 500);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.font = '44px DejaVu Sans';
  lines.forEach((l, i) => g.fillText(l, 80, 120 + i * 80));
  return c.toBuffer('image/png');
}
test('the XHTML of pdftotext -bbox-layout: pages, blocks, lines, words with boxes, entities, metadata', () => {
  const xhtml = `<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>A &amp; B</title>
<meta name="Author" content="Jane &quot;J&quot; Doe"/>
</head><body><doc>
  <page width="612.000000" height="792.000000">
    <flow>
      <block xMin="50.000000" yMin="60.000000" xMax="200.000000" yMax="90.000000">
        <line xMin="50.000000" yMin="60.000000" xMax="200.000000" yMax="72.000000">
          <word xMin="50.000000" yMin="60.000000" xMax="80.000000" yMax="72.000000">Fish</word>
          <word xMin="84.000000" yMin="60.000000" xMax="100.000000" yMax="72.000000">&amp;</word>
          <word xMin="104.000000" yMin="60.000000" xMax="150.000000" yMax="72.000000">chips&#x2019;</word>
        </line>
        <line xMin="50.000000" yMin="76.000000" xMax="120.000000" yMax="90.000000">
          <word xMin="50.000000" yMin="76.000000" xMax="120.000000" yMax="90.000000">&lt;tag&gt;</word>
        </line>
      </block>
    </flow>
  </page>
  <page width="300.5" height="400">
  </page>
</doc></body></html>`;
  const d = parseBboxLayout(xhtml, 7);
  assert.deepEqual(d.meta, { Title: 'A & B', Author: 'Jane "J" Doe' });
  assert.deepEqual(d.pages.map((p) => [p.number, p.width, p.height, p.blocks.length]), [[7, 612, 792, 1], [8, 300.5, 400, 0]]);
  const b = d.pages[0]!.blocks[0]!;
  assert.deepEqual(b.bbox, { x: 50, y: 60, width: 150, height: 30 });
  assert.deepEqual(b.lines.map((l) => l.words.map((w) => w.text)), [['Fish', '&', 'chips\u2019'], ['<tag>']]);
  assert.deepEqual(b.lines[0]!.words[2]!.bbox, { x: 104, y: 60, width: 46, height: 12 });
  assert.equal(decodeXml('&#65;&#x42;&apos;'), "AB'");
});

test('right-to-left lines: words spelled in visual order are turned round and read from the right', () => {
  const w = (text: string, x: number) => ({ text, bbox: { x, y: 0, width: 10, height: 10 } });
  const line = (...words: ReturnType<typeof w>[]) => ({ bbox: { x: 0, y: 0, width: 100, height: 10 }, words });
  // logical: "تحسين البرمجة بلغة Python code" as -bbox-layout gives it (left to right, letters visual)
  assert.equal(lineText(line(w('Python', 10), w('code', 20), w('ةغلب', 30), w('ةجمربلا', 40), w('نيسحت', 50))), 'تحسين البرمجة بلغة Python code');
  assert.equal(lineText(line(w('plain', 0), w('text', 10))), 'plain text');
});

test('the plugin: a reader of pdf named pdf-poppler', () => {
  assert.equal(popplerPlugin.kind, 'reader');
  assert.equal(popplerPlugin.name, 'pdf-poppler');
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.quire, undefined, 'the manifest lives in the definition alone (kind and name above)');
  assert.deepEqual(popplerPlugin.formats?.map((f) => f.format), ['pdf']);
  assert.throws(() => poppler({ processes: 0 }), /reader:pdf-poppler: option "processes"/);
});

test('born-digital pages: text in reading order, page sizes, block boxes, list items, key-values, metadata', { skip: !hasPoppler }, async () => {
  const reader = poppler();
  assert.equal((await reader.health()).ok, true);
  const doc = await PDFDocument.create();
  doc.setTitle('Quarterly report');
  doc.setAuthor('Finance team');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const p1 = doc.addPage([612, 792]);
  p1.drawText('Quarterly figures for the northern region', { x: 60, y: 720, size: 12, font });
  p1.drawText('were reviewed by the board in March.', { x: 60, y: 706, size: 12, font });
  p1.drawText('Invoice number: 4711', { x: 60, y: 640, size: 12, font });
  p1.drawText('• first point of the list', { x: 60, y: 580, size: 12, font });
  doc.addPage([300, 400]).drawText('Second page text', { x: 40, y: 300, size: 12, font });
  const parsed = await read(reader, await save(doc));
  assert.equal(parsed.pages.length, 2);
  assert.deepEqual(parsed.pages.map((p) => [p.width, p.height, p.ocr, p.confidence]), [[612, 792, false, 1], [300, 400, false, 1]]);
  assert.match(parsed.text, /^Quarterly figures for the northern region were reviewed by the board in March\./);
  assert.ok(parsed.text.indexOf('4711') < parsed.text.indexOf('Second page text'));
  const first = parsed.blocks[0]!;
  assert.equal(first.type, 'paragraph');
  assert.equal(first.page, 1);
  // boxes in points from the top-left corner: the first line's baseline is 72 pt below the top
  assert.ok(first.bbox!.x > 59 && first.bbox!.x < 61 && first.bbox!.y > 55 && first.bbox!.y < 75, JSON.stringify(first.bbox));
  const kv = parsed.blocks.find((b) => b.type === 'key_value');
  assert.deepEqual([kv?.key, kv?.value], ['Invoice number', '4711']);
  assert.ok(parsed.blocks.some((b) => b.type === 'list_item' && /first point/.test(b.text)));
  assert.equal(parsed.blocks.at(-1)!.page, 2);
  for (const b of parsed.blocks) assert.equal(parsed.text.slice(b.span.start, b.span.end), b.text);
  assert.equal(parsed.metadata.title, 'Quarterly report');
  assert.equal(parsed.metadata.author, 'Finance team');
  assert.equal(parsed.metadata.numPages, 2);
  assert.ok(typeof parsed.metadata.creationDate === 'string' && !Number.isNaN(Date.parse(parsed.metadata.creationDate)));
});

test('long documents are read by several processes in page ranges, in order; maxPages reads the first pages', { skip: !hasPoppler }, async () => {
  const reader = poppler({ processes: 2 });
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 40; i++) doc.addPage([300, 400]).drawText(`This is page number ${i}`, { x: 40, y: 300, size: 12, font });
  const p = await save(doc, 'forty.pdf');
  const progress: number[] = [];
  const all = await read(reader, p, { onProgress: (f) => progress.push(f) });
  assert.deepEqual(all.blocks.map((b) => b.text), Array.from({ length: 40 }, (_, i) => `This is page number ${i + 1}`));
  assert.deepEqual(all.blocks.map((b) => b.page), Array.from({ length: 40 }, (_, i) => i + 1));
  assert.equal(progress.at(-1), 1);
  const two = await read(reader, p, { maxPages: 2 });
  assert.equal(two.text, 'This is page number 1\n\nThis is page number 2');
  assert.deepEqual([two.metadata.numPages, two.metadata.pagesExtracted, two.metadata.truncated], [40, 2, true]);
});

test('encrypted and corrupt files fail with clear errors; time limit and abort', { skip: !hasPoppler }, async () => {
  const reader = poppler();
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('secret', { x: 50, y: 700, size: 12, font });
  const plain = await save(doc, 'plain.pdf');
  const enc = doc.context.obj({ Filter: 'Standard', V: 1, R: 2, P: -44 });
  enc.set(PDFName.of('O'), PDFHexString.of('a'.repeat(64)));
  enc.set(PDFName.of('U'), PDFHexString.of('b'.repeat(64)));
  doc.context.trailerInfo.Encrypt = doc.context.register(enc);
  doc.context.trailerInfo.ID = doc.context.obj([PDFHexString.of('0123456789abcdef0123456789abcdef'), PDFHexString.of('0123456789abcdef0123456789abcdef')]);
  const encrypted = await save(doc, 'encrypted.pdf', { useObjectStreams: false });
  await assert.rejects(read(reader, encrypted), (e: any) => e.code === 'PROCESSING_ERROR' && e.message === 'PDF could not be read: the file is encrypted (password-protected)');

  const garbage = path.join(tmp, 'garbage.pdf');
  fs.writeFileSync(garbage, '%PDF-1.7\nthis is not really a pdf at all\n');
  await assert.rejects(read(reader, garbage), (e: any) => e.code === 'PROCESSING_ERROR' && e.message === 'PDF could not be read: the file is truncated or damaged');
  // a file cut short: the tools' error output is not passed on
  const whole = fs.readFileSync(plain);
  const cut = path.join(tmp, 'cut.pdf');
  fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  await read(reader, cut).then(
    (d) => assert.ok(d.pages.length >= 0),
    (e: any) => assert.ok(e.code === 'PROCESSING_ERROR' && e.message === 'PDF could not be read: the file is truncated or damaged', e.message),
  );
  const empty = path.join(tmp, 'empty.pdf');
  fs.writeFileSync(empty, '');
  await assert.rejects(read(reader, empty), (e: any) => e.code === 'PROCESSING_ERROR' && /^PDF could not be read: /.test(e.message));

  const quick = poppler({ timeoutMs: 1 });
  await assert.rejects(read(quick, plain), (e: any) => e.code === 'PROCESSING_ERROR' && /timed out/.test(e.message));
  const ac = new AbortController();
  ac.abort(new Error('cancelled by user'));
  await assert.rejects(read(reader, plain, { signal: ac.signal }), /cancelled by user/);

  const missing = poppler({ pdfinfo: path.join(tmp, 'no-such-pdfinfo'), pdftotext: path.join(tmp, 'no-such-pdftotext') });
  assert.equal((await missing.health()).ok, false);
  await assert.rejects(read(missing, plain), (e: any) => e.code === 'SERVICE_UNAVAILABLE');
  assert.equal((await read(reader, plain)).text, 'secret');
});

test('a page without text is drawn and OCRed, or reported when OCR is disabled or unavailable', { skip: !hasPoppler }, async () => {
  // a page with a drawing and no text layer
  const scan = await PDFDocument.create();
  scan.addPage([612, 792]).drawRectangle({ x: 60, y: 600, width: 200, height: 40 });
  const blank = await save(scan, 'blank.pdf');
  const noOcr = poppler();
  const unavailable = await read(noOcr, blank);
  assert.equal(unavailable.text, '');
  assert.deepEqual(unavailable.issues.map((i) => [i.code, i.stage, i.page]), [['OCR_UNAVAILABLE', 'ocr', 1]]);
  const disabled = await read(noOcr, blank, { ocr: { enabled: false, language: 'eng' } });
  assert.deepEqual(disabled.issues.map((i) => i.code), ['OCR_DISABLED']);
  if (!hasTesseract) return;
  const img = await PDFDocument.create();
  const png = await img.embedPng(await scannedLines(['Scanned invoice page', 'Invoice number: 4711']));
  img.addPage([612, 792]).drawImage(png, { x: 0, y: 792 - 240, width: 612, height: 240 });
  const ocr = await ocrPlugin.create(pluginContext(ocrPlugin, { shared, dataDir: tmp }));
  const reader = poppler({}, ocr);
  const parsed = await read(reader, await save(img, 'scan.pdf'));
  assert.equal(parsed.pages[0]!.ocr, true);
  assert.match(parsed.text, /Scanned invoice page/);
  const kv = parsed.blocks.find((b) => b.type === 'key_value');
  assert.equal(kv?.value, '4711');
  assert.ok(kv!.bbox!.y > 30 && kv!.bbox!.y < 240, JSON.stringify(kv!.bbox));
  assert.ok(parsed.pages[0]!.words!.some((w) => w.text === 'Scanned'));
  assert.deepEqual(parsed.issues, []);
  // the pipeline's read stage defers OCR to the ocr stage: the page is listed, not OCRed
  const deferred = await read(reader, await save(img, 'scan-deferred.pdf'), { ocr: { enabled: 'auto', language: 'eng', defer: true } });
  assert.deepEqual(ocrPendingOf(deferred), [1]);
  assert.equal(deferred.pages[0]!.ocr, false);
  assert.equal(deferred.text, '');
});

test('the reader runs its work in processes (isolated) and fails a document over the page limit at once', { skip: !hasPoppler }, async () => {
  const reader = poppler();
  assert.equal(reader.isolated, true);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < 6; i++) doc.addPage().drawText(`page ${i + 1}`, { x: 50, y: 700, size: 12, font });
  const file = await save(doc, 'six.pdf');
  await assert.rejects(read(reader, file, { limits: { pages: 5 } }), (e: any) => e.code === 'UNPROCESSABLE' && e.message === 'PDF could not be read: the document has 6 pages; the limit is 5');
  assert.equal((await read(reader, file, { limits: { pages: 5 }, maxPages: 3 })).pages.length, 3);
});

test('renderPage: a page drawn as a colour PNG at the asked resolution, fewer dots over maxPixels; a page not there is refused', { skip: !hasTesseract && 'needs pdftoppm' }, async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage([612, 792]).drawText('Page image', { x: 72, y: 700, size: 24, font });
  const file = await save(pdf, 'image.pdf');
  const r = poppler();
  const input = { path: file, name: 'image.pdf', format: 'pdf', size: fs.statSync(file).size, documentId: 'doc-1' };
  const page = await r.renderPage(input, 1, { dpi: 72, maxPixels: 10_000_000 });
  assert.deepEqual([page.width, page.height], [612, 792]);
  assert.equal(page.png.subarray(1, 4).toString('latin1'), 'PNG');
  assert.equal(page.png.readUInt8(25), 2, 'RGB');
  const small = await r.renderPage(input, 1, { dpi: 300, maxPixels: 612 * 792 });
  assert.ok(small.width * small.height <= 612 * 792 && small.width >= 600, `${small.width}x${small.height}`);
  await assert.rejects(r.renderPage(input, 2, { dpi: 72, maxPixels: 10_000_000 }), /not in the document/);
});

test('ocrPages: only the pages a deferred read left are drawn and OCRed, and merge into the stored read in their place', { skip: !hasTesseract && 'needs pdftoppm and tesseract' }, async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText('First page of the born-digital text', { x: 50, y: 700, size: 14, font });
  const png = await doc.embedPng(await scannedLines(['Delivery note 4471', 'Received by Marta']));
  doc.addPage([612, 792]).drawImage(png, { x: 0, y: 792 - 240, width: 612, height: 240 });
  doc.addPage([612, 792]).drawText('Third page closes the report', { x: 50, y: 700, size: 14, font });
  const file = await save(doc, 'mixed.pdf');
  const ocr = await ocrPlugin.create(pluginContext(ocrPlugin, { shared, dataDir: tmp }));
  const reader = poppler({}, ocr);
  const input = { path: file, name: 'mixed.pdf', format: 'pdf', size: fs.statSync(file).size, documentId: 'doc-1' };
  const deferred = await reader.read(input, opts({ ocr: { enabled: 'auto', language: 'eng', defer: true } }));
  assert.deepEqual(ocrPendingOf(deferred), [2]);
  assert.equal(typeof reader.ocrPages, 'function', 'the poppler reader OCRs the pending pages alone');
  const ocred = await reader.ocrPages!(input, [2], opts());
  assert.deepEqual(ocred.pages.map((p) => [p.number, p.ocr]), [[2, true]]);
  assert.match(ocred.text, /Delivery note 4471/);
  assert.ok(!/First page|Third page/.test(ocred.text), ocred.text);
  assert.ok(ocred.pages[0]!.width > 0 && ocred.pages[0]!.words!.some((w) => w.text === 'Delivery'));
  const merged = mergeOcrPages(deferred, ocred);
  assert.deepEqual(ocrPendingOf(merged), []);
  assert.deepEqual(merged.pages.map((p) => p.ocr), [false, true, false]);
  assert.match(merged.text, /First page of the born-digital text[^]*Delivery note 4471[^]*Third page closes the report/);
  // the same text as one read with OCR in it
  const whole = await reader.read(input, opts());
  assert.equal(merged.text, whole.text);
  // OCR disabled: the page is reported, not OCRed
  const off = await reader.ocrPages!(input, [2], opts({ ocr: { enabled: false, language: 'eng' } }));
  assert.deepEqual(off.issues.map((i) => [i.code, i.page]), [['OCR_DISABLED', 2]]);
});
