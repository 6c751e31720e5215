import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CheckBox, Document, HeadingLevel, Packer, PageBreak, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import iconv from 'iconv-lite';
import { isQuireError, pluginContext } from '@quire/core';
import type { ParsedDocument, ReaderPlugin } from '@quire/core';
import plugin, { createOfficeReader } from '@quire/plugin-reader-office';
import { corpusFiles, referenceText, stripMarkdown, wordF1 } from './helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-office-test-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const soffice = process.env.QUIRE_SOFFICE_PATH ?? 'soffice';
const reader = createOfficeReader({ options: { soffice }, shared: { 'limits.parseTimeoutMs': 120_000 } });
const opts = { ocr: { enabled: false, language: 'eng' } } as const;

async function read(name: string, format: string, bytes: Uint8Array | string, r: ReaderPlugin = reader): Promise<ParsedDocument> {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return r.read({ path: p, name, format, size: fs.statSync(p).size, documentId: 'doc-1' }, opts);
}

function checkSpans(doc: ParsedDocument): void {
  for (const b of doc.blocks) {
    assert.equal(doc.text.slice(b.span.start, b.span.end), b.text);
    assert.ok(doc.pages.some((p) => p.number === b.page), `block on page ${b.page} has its page`);
    assert.equal(b.bbox, null);
    assert.equal(b.confidence, 1);
  }
}

const cell = (text: string, o: { columnSpan?: number; rowSpan?: number } = {}) => new TableCell({ children: [new Paragraph(text)], ...o });

test('plugin manifest: reader "office" with its formats and options', async () => {
  assert.equal(plugin.kind, 'reader');
  assert.equal(plugin.name, 'office');
  assert.deepEqual(plugin.formats?.map((f) => f.format), ['docx', 'doc', 'rtf', 'txt', 'html']);
  assert.ok(plugin.formats?.every((f) => f.detect === 'builtin'));
  const r = await plugin.create(pluginContext(plugin, { options: { soffice }, dataDir: dir }));
  assert.equal(typeof r.read, 'function');
  assert.throws(() => pluginContext(plugin, { options: { soffice: '' } }), /reader:office: option "soffice"/);
  assert.throws(() => createOfficeReader({ options: { sofficeTimeoutMs: -1 } }), /reader:office: option "sofficeTimeoutMs"/);
});

test('docx: headings with levels, lists, merged-cell table with header row, checkboxes, key/value, page breaks', async () => {
  const doc = new Document({
    creator: 'Quire Tests',
    title: 'Fixture',
    sections: [
      {
        children: [
          new Paragraph({ text: 'Annual Report', heading: HeadingLevel.HEADING_1 }),
          new Paragraph('The company grew steadily during the year.'),
          new Paragraph({ text: 'Highlights', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Revenue doubled', bullet: { level: 0 } }),
          new Paragraph({ text: 'New office opened', bullet: { level: 0 } }),
          new Paragraph('Invoice Number: INV-2024-001'),
          new Paragraph({ children: [new CheckBox({ checked: true }), new TextRun(' Approved')] }),
          new Paragraph({ children: [new CheckBox({ checked: false }), new TextRun(' Rejected')] }),
          new Table({
            rows: [
              new TableRow({ tableHeader: true, children: [cell('Region'), cell('Q1'), cell('Q2')] }),
              new TableRow({ children: [cell('North'), cell('Flat both quarters', { columnSpan: 2 })] }),
              new TableRow({ children: [cell('South', { rowSpan: 2 }), cell('10'), cell('12')] }),
              new TableRow({ children: [cell('11'), cell('13')] }),
            ],
          }),
          new Paragraph({ children: [new PageBreak()] }),
          new Paragraph({ text: 'Outlook', heading: HeadingLevel.HEADING_1 }),
          new Paragraph('Next year looks bright.'),
        ],
      },
    ],
  });
  const bytes = await Packer.toBuffer(doc);
  const t0 = performance.now();
  const parsed = await read('report.docx', 'docx', bytes);
  console.log(`docx fixture parsed in ${(performance.now() - t0).toFixed(0)} ms`);
  checkSpans(parsed);
  assert.equal(parsed.format, 'docx');
  assert.equal(parsed.metadata.author, 'Quire Tests');
  assert.equal(parsed.metadata.title, 'Fixture');
  const headings = parsed.blocks.filter((b) => b.type === 'heading').map((b) => [b.text, b.level, b.page]);
  assert.deepEqual(headings, [
    ['Annual Report', 1, 1],
    ['Highlights', 2, 1],
    ['Outlook', 1, 2],
  ]);
  assert.deepEqual(
    parsed.blocks.filter((b) => b.type === 'list_item').map((b) => b.text),
    ['- Revenue doubled', '- New office opened'],
  );
  const kv = parsed.blocks.find((b) => b.type === 'key_value');
  assert.equal(kv?.key, 'Invoice Number');
  assert.equal(kv?.value, 'INV-2024-001');
  assert.ok(parsed.text.includes('☒ Approved'), 'checked box');
  assert.ok(parsed.text.includes('☐ Rejected'), 'unchecked box');
  assert.equal(parsed.pages.length, 2);
  assert.equal(parsed.tables.length, 1);
  const t = parsed.tables[0]!;
  assert.equal(t.rows, 4);
  assert.equal(t.cols, 3);
  const flat = t.cells.find((c) => c.text === 'Flat both quarters')!;
  assert.deepEqual([flat.row, flat.col, flat.colSpan, flat.rowSpan], [1, 1, 2, 1]);
  const south = t.cells.find((c) => c.text === 'South')!;
  assert.deepEqual([south.row, south.col, south.rowSpan], [2, 0, 2]);
  assert.deepEqual(t.cells.find((c) => c.text === '11'), { row: 3, col: 1, rowSpan: 1, colSpan: 1, text: '11', header: false });
  assert.ok(t.cells.filter((c) => c.row === 0).every((c) => c.header), 'header row');
  assert.equal(t.page, 1);
  assert.ok(parsed.text.indexOf('| Region | Q1 | Q2 |') > parsed.text.indexOf('Highlights'));
});

test('docx: maxPages stops after the first pages', async () => {
  const doc = new Document({
    sections: [{ children: [new Paragraph('first page'), new Paragraph({ children: [new PageBreak()] }), new Paragraph('second page'), new Paragraph({ children: [new PageBreak()] }), new Paragraph('third page')] }],
  });
  const p = path.join(dir, 'pages.docx');
  fs.writeFileSync(p, await Packer.toBuffer(doc));
  const parsed = await reader.read({ path: p, name: 'pages.docx', format: 'docx', size: 1, documentId: 'd' }, { ...opts, maxPages: 2 });
  assert.equal(parsed.pages.length, 2);
  assert.ok(parsed.text.includes('second page'));
  assert.ok(!parsed.text.includes('third page'));
});

test('docx: corrupt, truncated and encrypted files fail with a clear PROCESSING_ERROR', async () => {
  const good = await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('hello')] }] }));
  const cases: [string, Uint8Array, RegExp][] = [
    ['garbage.docx', Buffer.from('this is not a zip at all'), /docx could not be read: /],
    ['truncated.docx', good.subarray(0, Math.floor(good.length / 2)), /docx could not be read: .*(corrupt|truncated)/],
    ['encrypted.docx', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]), /password-protected/],
    ['empty.docx', Buffer.alloc(0), /docx could not be read: the file is empty/],
  ];
  for (const [name, bytes, re] of cases) {
    await assert.rejects(read(name, 'docx', bytes), (e: unknown) => isQuireError(e) && e.code === 'PROCESSING_ERROR' && re.test(e.message), name);
  }
});

test('read: an aborted signal rejects without parsing', async () => {
  const p = path.join(dir, 'abort.txt');
  fs.writeFileSync(p, 'hello');
  const ac = new AbortController();
  ac.abort(new Error('cancelled by test'));
  await assert.rejects(reader.read({ path: p, name: 'abort.txt', format: 'txt', size: 5, documentId: 'd' }, { ...opts, signal: ac.signal }), /cancelled by test/);
});

test('txt: windows-1252 / latin1 text, markdown headings, lists, key/value lines, form-feed pages', async () => {
  const text = '# Menu Card\n\nCafé crème and crêpes for everyone.\nSecond line of the same paragraph.\n\n- Croissant\n- Pain au chocolat\n\nPrice: 4,50 €\nTable: 12\n\fSecond Page\n===========\n\nÜbersicht der Preise.\n';
  const parsed = await read('menu.txt', 'txt', iconv.encode(text, 'windows-1252'));
  checkSpans(parsed);
  assert.equal(parsed.metadata.encoding, 'windows-1252');
  assert.ok(parsed.text.includes('Café crème and crêpes'));
  assert.ok(parsed.text.includes('Übersicht'));
  assert.deepEqual(parsed.blocks.filter((b) => b.type === 'heading').map((b) => [b.text, b.level, b.page]), [
    ['Menu Card', 1, 1],
    ['Second Page', 1, 2],
  ]);
  assert.deepEqual(parsed.blocks.filter((b) => b.type === 'list_item').map((b) => b.text), ['- Croissant', '- Pain au chocolat']);
  assert.deepEqual(parsed.blocks.filter((b) => b.type === 'key_value').map((b) => [b.key, b.value]), [
    ['Price', '4,50 €'],
    ['Table', '12'],
  ]);
  assert.equal(parsed.pages.length, 2);
});

test('txt: UTF-16 with BOM and UTF-8 with BOM', async () => {
  const u16 = await read('u16.txt', 'txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße aus Köln\n\nZweiter Absatz', 'utf16le')]));
  assert.equal(u16.metadata.encoding, 'utf-16le');
  assert.deepEqual(u16.blocks.map((b) => b.text), ['Grüße aus Köln', 'Zweiter Absatz']);
  const u8 = await read('u8.txt', 'txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('naïve – ok')]));
  assert.equal(u8.text, 'naïve – ok');
});

test('txt and html: mojibake repaired (UTF-8 once read as Windows-1252 and saved again), good text left as it is', async () => {
  // what a page copied from the web looks like when its UTF-8 was decoded as Windows-1252 (or Latin-1) before it was saved
  const twice = (s: string) => Buffer.from(iconv.decode(Buffer.from(s, 'utf8'), 'windows-1252'), 'utf8');
  const latin = (s: string) => Buffer.from(iconv.decode(Buffer.from(s, 'utf8'), 'latin1'), 'utf8');
  const good = 'SÃO PAULO office. Âge moyen: 42 ans. Größe naïve café, ¿Qué? 10 € × 3 ± 2 °.';
  const parsed = await read('scraped.txt', 'txt', Buffer.concat([twice('In July 1997 Norwich paid £850,000 for him; he didn’t score.\n\n'), latin('1991–92 season\n\n2005 → Cambridge United (loan)\n\n'), Buffer.from(good)]));
  assert.equal(parsed.metadata.encodingRepaired, true);
  assert.ok(parsed.text.includes('paid £850,000 for him; he didn’t score.'), parsed.text);
  assert.ok(parsed.text.includes('1991–92 season'), parsed.text);
  assert.ok(parsed.text.includes('2005 → Cambridge United (loan)'), parsed.text);
  assert.ok(parsed.text.includes(good), 'good text is unchanged');
  assert.ok(!/[ÂÃâ][\u0080-\u00bf€™]/.test(parsed.text), parsed.text);
  checkSpans(parsed);
  const clean = await read('clean.txt', 'txt', Buffer.from(good));
  assert.equal(clean.text, good);
  assert.equal(clean.metadata.encodingRepaired, undefined);
  const html = await read('scraped.html', 'html', twice('<html><head><meta charset="utf-8"><title>Café – menu</title></head><body><p>Crème brûlée: €7.50</p></body></html>'));
  assert.equal(html.metadata.title, 'Café – menu');
  assert.ok(html.text.includes('Crème brûlée: €7.50'), html.text);
  assert.equal(html.metadata.encodingRepaired, true);
});

test('html: readable text only, headings, lists, table with spans, definition list, charset from meta', async () => {
  const html = `<!doctype html><html><head><meta charset="iso-8859-1"><title>Caf\xe9 page</title><style>.x{color:red}</style>
  <script>var secret = "do not index me";</script></head><body>
  <nav><a href="/">Home</a> | <a href="/about">About navigation</a></nav>
  <h1>Caf\xe9 Report</h1><p>Intro   text
  across lines.</p><noscript>Enable JavaScript</noscript>
  <h3>Items</h3><ul><li>Alpha</li><li>Beta<ol><li>Nested one</li></ol></li></ul>
  <table><caption>Table 1: Sales</caption><thead><tr><th>Name</th><th>Q1</th><th>Q2</th></tr></thead>
  <tbody><tr><td rowspan="2">Widget</td><td colspan="2">12</td></tr><tr><td>5</td><td>7</td></tr></tbody></table>
  <dl><dt>Author</dt><dd>Ann Smith</dd><dt>Year</dt><dd>2024</dd></dl>
  <div style="display:none">hidden text</div>
  </body></html>`;
  const parsed = await read('page.html', 'html', iconv.encode(html, 'latin1'));
  checkSpans(parsed);
  assert.equal(parsed.metadata.title, 'Café page');
  for (const banned of ['secret', 'do not index', 'Enable JavaScript', 'navigation', 'hidden text', 'color:red']) assert.ok(!parsed.text.includes(banned), banned);
  assert.deepEqual(parsed.blocks.filter((b) => b.type === 'heading').map((b) => [b.text, b.level]), [
    ['Café Report', 1],
    ['Items', 3],
  ]);
  assert.ok(parsed.blocks.some((b) => b.type === 'paragraph' && b.text === 'Intro text across lines.'));
  assert.deepEqual(parsed.blocks.filter((b) => b.type === 'list_item').map((b) => [b.text, b.level]), [
    ['- Alpha', 1],
    ['- Beta', 1],
    ['1. Nested one', 2],
  ]);
  assert.ok(parsed.blocks.some((b) => b.type === 'caption' && b.text === 'Table 1: Sales'));
  const t = parsed.tables[0]!;
  assert.equal(t.title, 'Table 1: Sales');
  assert.deepEqual([t.rows, t.cols], [3, 3]);
  assert.deepEqual(t.cells.find((c) => c.text === 'Widget'), { row: 1, col: 0, rowSpan: 2, colSpan: 1, text: 'Widget', header: false });
  assert.deepEqual(t.cells.find((c) => c.text === '12')!.colSpan, 2);
  assert.deepEqual(t.cells.find((c) => c.text === '5')!.col, 1);
  assert.ok(t.cells.filter((c) => c.row === 0).every((c) => c.header));
  assert.deepEqual(parsed.blocks.filter((b) => b.type === 'key_value').map((b) => [b.key, b.value]), [
    ['Author', 'Ann Smith'],
    ['Year', '2024'],
  ]);
});

const hasSoffice = spawnSync(soffice, ['--version'], { timeout: 20000 }).status === 0;

test('rtf: converted by LibreOffice, headings and tables survive', { skip: !hasSoffice && 'soffice not installed' }, async () => {
  const rtf = String.raw`{\rtf1\ansi\deff0
{\pard \outlinelevel0 \b \fs36 Quarterly Summary\par}
{\pard Sales rose in every region.\par}
{\trowd\cellx3000\cellx6000
\pard\intbl Region\cell Total\cell\row
\pard\intbl North\cell 42\cell\row
}
}`;
  const t0 = performance.now();
  const parsed = await read('summary.rtf', 'rtf', rtf);
  console.log(`rtf fixture parsed (LibreOffice) in ${(performance.now() - t0).toFixed(0)} ms`);
  checkSpans(parsed);
  assert.equal(parsed.format, 'rtf');
  assert.deepEqual(parsed.blocks.find((b) => b.type === 'heading')?.text, 'Quarterly Summary');
  assert.ok(parsed.text.includes('Sales rose in every region.'));
  assert.equal(parsed.tables.length, 1);
  assert.ok(parsed.tables[0]!.cells.some((c) => c.text === '42'));
  await assert.rejects(read('bad.rtf', 'rtf', 'not rtf at all'), /rtf could not be read: .*RTF header/);
});

test('rtf: a missing soffice gives the install hint', async () => {
  const r = createOfficeReader({ options: { soffice: '/nonexistent/soffice' } });
  await assert.rejects(read('x.rtf', 'rtf', '{\\rtf1 hi}', r), /rtf needs LibreOffice \(soffice\)/);
  const h = await r.health!();
  assert.equal(h.ok, true);
  assert.match(h.message!, /rtf needs LibreOffice/);
});

const corpus = corpusFiles(['docx', 'doc', 'rtf', 'txt', 'html']);
test('corpus: every docx/doc/rtf/txt/html file parses; word F1 ≥ 0.9 against the reference text', { skip: !corpus && 'corpus not present' }, async () => {
  const { root, files } = corpus!;
  assert.ok(files.length > 0);
  for (const f of files) {
    const p = path.join(root, f.path);
    const t0 = performance.now();
    const doc = await reader.read({ path: p, name: f.id, format: f.format, size: fs.statSync(p).size, documentId: f.id }, opts);
    const ms = performance.now() - t0;
    checkSpans(doc);
    assert.ok(doc.pages.length >= 1, f.id);
    assert.ok(doc.text.length > 0, `${f.id} has text`);
    const ref = referenceText(root, f);
    const score = ref ? wordF1(stripMarkdown(doc.text), stripMarkdown(ref)) : null;
    console.log(`${f.id}: ${ms.toFixed(0)} ms, ${doc.pages.length} page(s), ${doc.blocks.length} blocks, ${doc.tables.length} tables${score ? `, F1 ${score.f1.toFixed(3)} (P ${score.precision.toFixed(3)} R ${score.recall.toFixed(3)})` : ''}`);
    if (score) assert.ok(score.f1 >= 0.9, `${f.id}: F1 ${score.f1.toFixed(3)} < 0.9`);
    if (/table/i.test(f.category ?? '') || (f.tables ?? 0) > 0) assert.ok(doc.tables.length > 0, `${f.id} yields tables`);
  }
});
