/** docx readers against hostile files: zip bombs, entity bombs, over-long documents, damaged packages. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOfficeReader } from '@quire/plugin-reader-office';
import { DOC_HEAD, DOC_TAIL, MB, W_NS, docx, entityBomb, isCode, measure, para, readInChild, repeated, zipParts, readerHarness } from '../../../test/helpers/reader-harness.js';

const reader = createOfficeReader();
const { save, read } = readerHarness('office', reader);
const SRC = new URL('../src/index.ts', import.meta.url).pathname;

/** The bomb that killed the service: ~600 KB of docx whose word/document.xml inflates to 200 MB of paragraphs. */
const BOMB_PARAGRAPH = '<w:p><w:r><w:t>lorem ipsum dolor sit amet</w:t></w:r></w:p>';

test('docx zip bomb (600 KB → 200 MB of document.xml): refused in seconds with little memory, at the page limit', async () => {
  const bomb = docx(repeated(DOC_HEAD, BOMB_PARAGRAPH, 200 * MB, DOC_TAIL));
  assert.ok(bomb.length < 1.5 * MB, `bomb is ${bomb.length} bytes`);
  const file = save('bomb.docx', bomb);
  // in a fresh process, so the peak RSS is the read's own (before: heap out of memory at 4.5 GB after ~50 s)
  const r = await readInChild(SRC, 'createOfficeReader', file, 'docx', {});
  console.log(`200 MB docx bomb, default limits: ${r.code} in ${r.ms} ms, peak RSS ${r.maxRssMb} MB: ${r.message}`);
  assert.equal(r.ok, false);
  assert.equal(r.code, 'UNPROCESSABLE');
  assert.match(r.message!, /^docx exceeds 5,000 pages \(at least [\d,]+ pages of text\)$/);
  assert.ok(r.ms < 60_000, `${r.ms} ms`);
  assert.ok(r.maxRssMb < 450, `peak RSS ${r.maxRssMb} MB`);
});

test('docx zip bomb with a lower decompressed-size limit: refused at the zip cap, naming it', async () => {
  const bomb = docx(repeated(DOC_HEAD, BOMB_PARAGRAPH, 64 * MB, DOC_TAIL));
  const m = await measure(() => read('bomb64.docx', bomb, { limits: { decompressedBytes: 32 * MB } }));
  assert.ok(isCode('UNPROCESSABLE', /^docx: decompressed size exceeds 16 MB for one part \("word\/document\.xml"\)$/)(m.error), String(m.error));
  assert.ok(m.ms < 30_000, `${m.ms} ms`);
  // zeros in a part the reader never needs are not inflated at all
  const withMedia = docx(DOC_HEAD + para('real text') + DOC_TAIL, { 'word/media/image1.png': new Uint8Array(128 * MB) });
  const doc = await read('media-bomb.docx', withMedia, { limits: { decompressedBytes: 8 * MB } });
  assert.match(doc.text, /real text/);
});

test('entity bomb (billion laughs) in document.xml or in the core properties: refused before any parser sees it', async () => {
  const lol = entityBomb(`<w:document ${W_NS}><w:body>${para('&lol9;')}</w:body></w:document>`);
  const m = await measure(() => read('lol.docx', docx(lol)));
  assert.ok(isCode('UNPROCESSABLE', /^docx: the XML part word\/document\.xml declares a DTD/)(m.error), String(m.error));
  assert.ok(m.ms < 30_000);
  const core = entityBomb('<cp:coreProperties xmlns:cp="x" xmlns:dc="y"><dc:title>&lol9;</dc:title></cp:coreProperties>');
  await assert.rejects(read('lol-core.docx', docx(DOC_HEAD + para('hello') + DOC_TAIL, { 'docProps/core.xml': core })), isCode('UNPROCESSABLE', /docProps\/core\.xml declares a DTD/));
});

test('the page limit counts text (5,000 characters a page) and explicit page breaks', async () => {
  const text = Array.from({ length: 40 }, (_, i) => para(`${'word '.repeat(100)}${i}`)).join(''); // ~20,000 characters
  await assert.rejects(read('long.docx', docx(DOC_HEAD + text + DOC_TAIL), { limits: { pages: 3 } }), isCode('UNPROCESSABLE', /^docx exceeds 3 pages \(at least 5 pages of text\)$/));
  assert.equal((await read('long-ok.docx', docx(DOC_HEAD + text + DOC_TAIL), { limits: { pages: 5 } })).pages.length, 1);
  const breaks = Array.from({ length: 6 }, (_, i) => para(`page ${i + 1}`) + '<w:p><w:r><w:br w:type="page"/></w:r></w:p>').join('');
  await assert.rejects(read('breaks.docx', docx(DOC_HEAD + breaks + DOC_TAIL), { limits: { pages: 4 } }), isCode('UNPROCESSABLE', /exceeds 4 pages/));
});

test('a long document is converted in pieces: same text as a short one, notes kept, tables split by rows, memory bounded', async () => {
  // 3 MB of XML: paragraphs with footnote references, a 1.5 MB table, headings
  const notes: string[] = [];
  const body: string[] = [];
  for (let i = 1; i <= 15_000; i++) {
    if (i % 5000 === 1) body.push(`<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Part ${Math.ceil(i / 5000)}</w:t></w:r></w:p>`);
    let p = `<w:p><w:r><w:t xml:space="preserve">Paragraph ${i} of the long document, with ordinary words in it. </w:t></w:r>`;
    if (i % 1000 === 0) {
      p += `<w:r><w:footnoteReference w:id="${i / 1000}"/></w:r>`;
      notes.push(`<w:footnote w:id="${i / 1000}"><w:p><w:r><w:t>Note ${i / 1000} about paragraph ${i}.</w:t></w:r></w:p></w:footnote>`);
    }
    body.push(p + '</w:p>');
    if (i === 7_500) {
      const rows = Array.from({ length: 12_000 }, (_, r) => `<w:tr><w:tc><w:p><w:r><w:t>r${r}</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>value ${r}</w:t></w:r></w:p></w:tc></w:tr>`);
      body.push(`<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>${rows.join('')}</w:tbl>`);
    }
  }
  const documentXml = DOC_HEAD + body.join('') + DOC_TAIL;
  assert.ok(documentXml.length > 3 * MB, `${documentXml.length} bytes`);
  const footnotes = `<?xml version="1.0" encoding="UTF-8"?><w:footnotes ${W_NS}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>${notes.join('')}</w:footnotes>`;
  const rels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>`;
  const file = save('long-pieces.docx', docx(documentXml, { 'word/footnotes.xml': footnotes, 'word/_rels/document.xml.rels': rels }));
  // within a 160 MB heap (one mammoth pass over all of it runs out of heap there)
  const r = await readInChild(SRC, 'createOfficeReader', file, 'docx', {}, 160);
  console.log(`${(documentXml.length / MB).toFixed(1)} MB of document XML in a 160 MB heap: ${r.ms} ms, peak RSS ${r.maxRssMb} MB, ${r.blocks} blocks, ${r.tables} tables`);
  assert.ok(r.ok, r.message);
  const doc = await reader.read({ path: file, name: 'long.docx', format: 'docx', size: 1, documentId: 'd' }, { ocr: { enabled: false, language: 'eng' } });
  const paragraphs = doc.blocks.filter((b) => /^Paragraph \d+ of the long document/.test(b.text));
  assert.equal(paragraphs.length, 15_000);
  assert.deepEqual(
    paragraphs.slice(0, 3).map((b) => b.text.replace(/\s+$/, '')),
    ['Paragraph 1 of the long document, with ordinary words in it.', 'Paragraph 2 of the long document, with ordinary words in it.', 'Paragraph 3 of the long document, with ordinary words in it.'],
  );
  assert.deepEqual(doc.blocks.filter((b) => b.type === 'heading').map((b) => b.text), ['Part 1', 'Part 2', 'Part 3']);
  for (let n = 1; n <= 15; n++) assert.ok(doc.text.includes(`Note ${n} about paragraph ${n * 1000}.`), `footnote ${n}`);
  const cells = doc.tables.flatMap((t) => t.cells.filter((c) => c.col === 0).map((c) => c.text));
  assert.equal(cells.length, 12_000);
  assert.equal(cells[11_999], 'r11999');
  assert.ok(doc.tables.length > 1, 'the 1.5 MB table is split between rows');
});

test('damaged packages fail with a clear message naming the format, never a library internal', async () => {
  const cases: [string, Uint8Array, string, RegExp][] = [
    ['no-document.docx', zipParts({ '[Content_Types].xml': '<Types/>', 'word/other.xml': '<x/>' }), 'PROCESSING_ERROR', /^docx could not be read: the file is damaged or not a Word document \(word\/document\.xml is missing\)$/],
    ['broken-xml.docx', docx(DOC_HEAD + '<w:p><w:r><w:t>unclosed'), 'PROCESSING_ERROR', /^docx could not be read: the file is damaged \(malformed XML: /],
    ['no-body.docx', docx(`<w:document ${W_NS}><w:other/></w:document>`), 'PROCESSING_ERROR', /the document part has no body/],
    ['not-xml.docx', docx(Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x02])), 'PROCESSING_ERROR', /^docx could not be read: the file is damaged or not a Word document/],
    ['huge-paragraph.docx', docx(DOC_HEAD + `<w:p><w:r><w:t>${'x'.repeat(5 * MB)}</w:t></w:r></w:p>` + DOC_TAIL), 'UNPROCESSABLE', /^docx: one paragraph of the document takes 5 MB of XML, more than the 4 MB that can be read$/],
  ];
  for (const [name, bytes, code, re] of cases) {
    await assert.rejects(read(name, bytes), (e: unknown) => isCode(code, re)(e) && !/undefined|Cannot read/.test((e as Error).message), name);
  }
});

test('abort stops a long conversion between pieces', async () => {
  const body = Array.from({ length: 40_000 }, (_, i) => para(`Paragraph ${i} with a few words.`)).join('');
  const bytes = docx(DOC_HEAD + body + DOC_TAIL);
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('time limit')), 300);
  const m = await measure(() => read('abort.docx', bytes, { signal: ac.signal }));
  assert.match(String(m.error), /time limit/);
  assert.ok(m.ms < 30_000, `${m.ms} ms`);
});
