// The ocr stage OCRs only the pages the read stage left (a reader's ocrPages: those pages drawn and read) and
// merges them into the layout it stored: the text layer of the other pages is not read again. Agentic OCR
// (ocr.agentic) reads those pages twice, keeps the better reading of each line, says which pages it changed
// and is charged 3.0 a page (spec §8.3). Embedded server, generated PDFs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import { signUpUser } from '../helpers/accounts.js';
import type { TestServer } from '../helpers/server.js';
import { hasTesseract } from '../helpers/reader-harness.js';
import { scannedPng } from '../helpers/scans.js';
import type { ParsedDocument, ReaderPlugin } from '@quire/core';

const TEXT_LINES = ['Harbour dues for March', 'Berth 12 paid in full'];
const SCAN_LINES = ['DELIVERY NOTE 4471', 'Received by Marta'];
const squash = (t: string) => String(t).replace(/\s+/g, '');

/** Page 1: a text layer; page 2: a scanned image and no text; page 3: a text layer. `withScan` false: page 1 alone. */
async function mixedPdf(withScan = true): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const text = pdf.addPage([612, 792]);
  text.drawText('Port office', { x: 72, y: 720, size: 20, font });
  TEXT_LINES.forEach((l, i) => text.drawText(l, { x: 72, y: 680 - i * 18, size: 11, font }));
  if (withScan) {
    const png = await pdf.embedPng(scannedPng(SCAN_LINES));
    const page = pdf.addPage([png.width * 0.3, png.height * 0.3]);
    page.drawImage(png, { x: 0, y: 0, width: png.width * 0.3, height: png.height * 0.3 });
    pdf.addPage([612, 792]).drawText('Tide tables follow overleaf', { x: 72, y: 700, size: 11, font });
  }
  return pdf.save();
}

describe('the ocr stage merges the OCRed pages into the stored layout', { skip: hasTesseract ? false : 'tesseract is not installed' }, () => {
  let s: TestServer;
  let reads: { read: number; ocrPages: number[][] };
  before(async () => {
    s = await startTestServer();
    // what the PDF reader is asked to do (the plugin API: the registry's reader of pdf)
    const reader = s.runtime.registry.readerFor('pdf').instance as ReaderPlugin;
    const read = reader.read.bind(reader);
    const ocrPages = reader.ocrPages?.bind(reader);
    reads = { read: 0, ocrPages: [] };
    reader.read = (input, options) => {
      reads.read++;
      return read(input, options);
    };
    if (ocrPages)
      reader.ocrPages = (input, pages, options) => {
        reads.ocrPages.push([...pages]);
        return ocrPages(input, pages, options);
      };
  });
  after(async () => {
    await s?.close();
  });

  const upload = async (name: string, bytes: Uint8Array) => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes, {}, 'application/pdf') });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const doc = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
    assert.equal(doc.status, 'completed', JSON.stringify(doc));
    const content = (await s.json(`/v1/documents/${up.body.id}/content?response=full`)).body;
    const stored = JSON.parse((await s.runtime.storage.get(`content/${up.body.id}.json`)).toString('utf8')) as ParsedDocument;
    return { content, stored };
  };

  test('only the image page is OCRed; the text page is read once and keeps its words, blocks and chunks', async () => {
    const textOnly = await upload('text.pdf', await mixedPdf(false));
    reads = { read: 0, ocrPages: [] };
    const { content, stored } = await upload('mixed.pdf', await mixedPdf());
    assert.equal(reads.read, 1, 'the document is read once (the read stage); the ocr stage does not read it again');
    assert.deepEqual(reads.ocrPages, [[2]], 'the ocr stage OCRs page 2 alone');
    // page 1: as a read of the text page alone gives it
    assert.equal(stored.pages.length, 3);
    assert.deepEqual(stored.pages[0], textOnly.stored.pages[0]);
    assert.deepEqual(
      stored.blocks.filter((b) => b.page === 1).map(({ span: _s, ...b }) => b),
      textOnly.stored.blocks.map(({ span: _s, ...b }) => b),
    );
    // the chunk that begins on page 1 begins with the text page's text, at the same box
    const [first] = content.chunks as { page: number; content: string; bbox: unknown }[];
    const [alone] = textOnly.content.chunks as { page: number; content: string; bbox: unknown }[];
    assert.equal(first!.page, 1);
    assert.ok(first!.content.startsWith(alone!.content), JSON.stringify([first!.content, alone!.content]));
    assert.deepEqual(first!.bbox, alone!.bbox);
    // page 2: OCR words in page coordinates, after page 1 in the reading order
    const p2 = stored.pages[1]!;
    assert.equal(p2.ocr, true);
    assert.ok(p2.words?.length, 'page 2 has its OCR words');
    for (const w of p2.words!) assert.ok(w.bbox.x >= 0 && w.bbox.y >= 0 && w.bbox.x + w.bbox.width <= p2.width + 1 && w.bbox.y + w.bbox.height <= p2.height + 1, JSON.stringify(w));
    assert.match(squash(content.text), /Berth12paidinfull.*DELIVERYNOTE4471.*ReceivedbyMarta.*Tidetablesfollowoverleaf/s, content.text);
    assert.deepEqual([...new Set(stored.blocks.map((b) => b.page))], [1, 2, 3], 'the blocks are in page order');
    assert.equal(stored.pages[2]!.ocr, false);
    assert.ok(content.ocr_engine, 'the OCR engine is named');
    assert.ok(!('ocrPending' in stored.metadata), 'nothing is left pending');
    for (const b of stored.blocks) assert.equal(stored.text.slice(b.span.start, b.span.end), b.text, 'every span points at its block');
  });

  test('agentic OCR reads the image page twice, lists the pages it read and changed, and is charged 3.0 a page', async () => {
    const { key } = await signUpUser(s, 'agentic-ocr@example.com');
    const before = (await s.json('/api/user/credits', { key })).body;
    reads = { read: 0, ocrPages: [] };
    const r = await s.json('/api/parse', { method: 'POST', body: uploadForm('mixed.pdf', await mixedPdf(), { config: JSON.stringify({ ocr: { agentic: true } }) }), key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.usage, { num_pages: 3, credits: 9 });
    const after = (await s.json('/api/user/credits', { key })).body;
    assert.equal(Math.round((after.credits_used - before.credits_used) * 100) / 100, 9);
    const agentic = r.body.result.agentic;
    assert.ok(agentic, JSON.stringify(r.body.result).slice(0, 300));
    assert.deepEqual(agentic.pages_read, [2], 'the image page alone was OCRed (twice)');
    assert.ok(Array.isArray(agentic.pages_changed) && agentic.pages_changed.every((p: number) => p === 2), JSON.stringify(agentic));
    assert.equal(typeof agentic.lines_changed, 'number');
    assert.equal(agentic.pages_changed.length > 0, agentic.lines_changed > 0);
    const text = (r.body.result.chunks as { content: string }[]).map((c) => c.content).join('\n');
    assert.match(squash(text), /DELIVERYNOTE4471/, text);
    // a standard parse of the same file: 1.5 a page, no agentic report
    const plain = await s.json('/api/parse', { method: 'POST', body: uploadForm('mixed.pdf', await mixedPdf()), key });
    assert.deepEqual(plain.body.usage, { num_pages: 3, credits: 4.5 });
    assert.equal(plain.body.result.agentic, undefined);
  });

  test('agentic OCR of an image (in a reader isolate) reads it a second time enlarged', async () => {
    const { key } = await signUpUser(s, 'agentic-image@example.com');
    const r = await s.json('/api/parse', { method: 'POST', body: uploadForm('note.png', scannedPng(SCAN_LINES), { config: JSON.stringify({ ocr: { agentic: true } }) }, 'image/png'), key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.usage, { num_pages: 1, credits: 3 });
    assert.deepEqual(r.body.result.agentic.pages_read, [1]);
    const text = (r.body.result.chunks as { content: string }[]).map((c) => c.content).join('\n');
    assert.match(squash(text), /DELIVERYNOTE4471.*ReceivedbyMarta/s, text);
  });
});
