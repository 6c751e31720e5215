import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import XLSX from 'xlsx';
import iconv from 'iconv-lite';
import { isQuireError, tableGrid } from '@quire/core';
import type { ParsedDocument, ReaderPlugin } from '@quire/core';
import plugin, { canonicalNumber, createSheetReader, isDateFormat, sniffDelimiter } from '@quire/plugin-reader-sheet';
import { corpusFiles, referenceText, stripMarkdown, wordF1 } from './helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sheet-test-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const reader = createSheetReader();
const opts = { ocr: { enabled: false, language: 'eng' } } as const;

async function read(name: string, format: string, bytes: Uint8Array | string, r: ReaderPlugin = reader): Promise<ParsedDocument> {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return r.read({ path: p, name, format, size: fs.statSync(p).size, documentId: 'doc-1' }, opts);
}

function checkSpans(doc: ParsedDocument): void {
  for (const b of doc.blocks) {
    assert.equal(doc.text.slice(b.span.start, b.span.end), b.text);
    assert.ok(doc.pages.some((p) => p.number === b.page));
  }
}

test('plugin manifest and helpers', async () => {
  assert.equal(plugin.name, 'sheet');
  assert.deepEqual(plugin.formats?.map((f) => f.format), ['csv', 'xlsx', 'xls', 'xlsm', 'xltx', 'xltm', 'qpw']);
  assert.throws(() => createSheetReader({ options: { maxTableRows: 0 } }), /reader:sheet: option "maxTableRows"/);
  assert.throws(() => createSheetReader({ options: { maxCell: 5 } as never }), /reader:sheet: unknown option "maxCell"/);
  assert.equal(canonicalNumber(0.1 + 0.2), '0.3');
  assert.equal(canonicalNumber(1234567), '1234567');
  assert.equal(canonicalNumber(-0.000125), '-0.000125');
  assert.ok(isDateFormat('yyyy-mm-dd') && isDateFormat('d/m/yy h:mm') && isDateFormat('[$-409]mmmm d, yyyy'));
  assert.ok(!isDateFormat('0.00%') && !isDateFormat('General') && !isDateFormat('#,##0.00 "days"'));
  assert.equal(sniffDelimiter('a;b;c\n1;2;3\n4;5;6\n'), ';');
  assert.equal(sniffDelimiter('a\tb, c\n1\t2, 3\n'), '\t');
  assert.equal(sniffDelimiter('"x,y"|b\n1|2\n'), '|');
});

test('xlsx: two sheets, merged title as heading, header row, cached formula values, ISO dates, merged cells as spans', async () => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sales');
  ws.mergeCells('A1:D1');
  ws.getCell('A1').value = 'Quarterly Sales Report';
  ws.addRow([]);
  ws.getRow(3).values = ['Region', 'Units', 'Price', 'Date'];
  ws.getRow(4).values = ['North', 10, 0.1, new Date(Date.UTC(2024, 0, 15))];
  ws.getRow(5).values = ['South', 20, 0.2, new Date(Date.UTC(2024, 1, 29, 13, 45, 0))];
  ws.getCell('D4').numFmt = 'yyyy-mm-dd';
  ws.getCell('D5').numFmt = 'yyyy-mm-dd hh:mm';
  ws.getCell('B6').value = { formula: 'SUM(B4:B5)', result: 30 };
  ws.getCell('C6').value = { formula: 'C4+C5', result: 0.1 + 0.2 };
  ws.getCell('A6').value = 'Total';
  ws.mergeCells('A7:B7');
  ws.getCell('A7').value = 'Merged note';
  ws.getCell('C7').value = 1;
  const notes = wb.addWorksheet('Notes');
  notes.getCell('A1').value = 'Owner';
  notes.getCell('B1').value = 'Finance';
  notes.getCell('A2').value = 'Reviewed';
  notes.getCell('B2').value = true;
  const parsed = await read('sales.xlsx', 'xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  checkSpans(parsed);
  assert.deepEqual(parsed.pages.map((p) => [p.number, p.name]), [
    [1, 'Sales'],
    [2, 'Notes'],
  ]);
  assert.deepEqual(parsed.blocks.filter((b) => b.type === 'heading').map((b) => [b.text, b.level, b.page]), [
    ['Sales', 1, 1],
    ['Quarterly Sales Report', 2, 1],
    ['Notes', 1, 2],
  ]);
  assert.equal(parsed.tables.length, 2);
  const t = parsed.tables[0]!;
  assert.equal(t.page, 1);
  assert.deepEqual(tableGrid(t), [
    ['Region', 'Units', 'Price', 'Date'],
    ['North', '10', '0.1', '2024-01-15'],
    ['South', '20', '0.2', '2024-02-29T13:45:00'],
    ['Total', '30', '0.3', ''],
    ['Merged note', 'Merged note', '1', ''],
  ]);
  assert.ok(t.cells.filter((c) => c.row === 0).every((c) => c.header));
  assert.ok(t.cells.filter((c) => c.row > 0).every((c) => !c.header));
  const merged = t.cells.find((c) => c.text === 'Merged note')!;
  assert.equal(merged.colSpan, 2);
  assert.deepEqual(tableGrid(parsed.tables[1]!), [
    ['Owner', 'Finance'],
    ['Reviewed', 'TRUE'],
  ]);
  assert.equal(parsed.tables[1]!.page, 2);
  assert.ok(parsed.text.includes('| Region | Units | Price | Date |'));
});

test('xlsx: a long table is split into tables of at most 200 rows that repeat the header; maxPages limits sheets', async () => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Big');
  ws.addRow(['id', 'name']);
  for (let i = 1; i <= 450; i++) ws.addRow([i, `item ${i}`]);
  wb.addWorksheet('Second').addRow(['x', 'y']);
  const p = path.join(dir, 'big.xlsx');
  fs.writeFileSync(p, new Uint8Array(await wb.xlsx.writeBuffer()));
  const t0 = performance.now();
  const parsed = await reader.read({ path: p, name: 'big.xlsx', format: 'xlsx', size: 1, documentId: 'd' }, { ...opts, maxPages: 1 });
  console.log(`450-row xlsx parsed in ${(performance.now() - t0).toFixed(0)} ms`);
  assert.equal(parsed.pages.length, 1);
  assert.deepEqual(parsed.tables.map((t) => t.rows), [200, 200, 53]);
  for (const t of parsed.tables) {
    assert.deepEqual(tableGrid(t)[0], ['id', 'name']);
    assert.equal(t.page, 1);
  }
  assert.deepEqual(tableGrid(parsed.tables[2]!).at(-1), ['450', 'item 450']);
});

test('xlsx: values, dates and cached formula results in tab order, read while the sheet inflates', async () => {
  const wb = new ExcelJS.Workbook();
  const a = wb.addWorksheet('First');
  a.addRow(['Name', 'When', 'Amount']);
  a.addRow(['x', new Date(Date.UTC(2023, 11, 31)), 1.5]);
  a.getCell('B2').numFmt = 'dd/mm/yyyy';
  a.getCell('C3').value = { formula: 'C2*2', result: 3 };
  wb.addWorksheet('Second').addRow(['only', 'text']);
  const parsed = await read('stream.xlsx', 'xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  assert.deepEqual(parsed.issues, []);
  assert.deepEqual(parsed.pages.map((p) => p.name), ['First', 'Second']);
  assert.deepEqual(tableGrid(parsed.tables[0]!), [
    ['Name', 'When', 'Amount'],
    ['x', '2023-12-31', '1.5'],
    ['', '', '3'],
  ]);
});

test('xlsx from other writers: namespace prefixes, rich-text and phonetic shared strings, inline strings, t="d", errors, 1904 dates, cells without a reference', async () => {
  const X = 'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><x:worksheet ${X}><x:sheetData>
    <x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c><x:c r="C1" t="inlineStr"><x:is><x:t xml:space="preserve"> Inline &amp; text </x:t></x:is></x:c></x:row>
    <x:row r="2"><x:c r="A2" s="1"><x:v>0</x:v></x:c><x:c r="B2" t="d"><x:v>2024-03-05T10:20:30Z</x:v></x:c><x:c r="C2" t="e"><x:v>#DIV/0!</x:v></x:c></x:row>
    <x:row><x:c><x:v>1.5</x:v></x:c><x:c t="b"><x:v>1</x:v></x:c><x:c t="str"><x:f>A3&amp;"x"</x:f><x:v>1.5x</x:v></x:c></x:row>
  </x:sheetData></x:worksheet>`;
  const sst = `<?xml version="1.0" encoding="UTF-8"?><x:sst ${X}><x:si><x:r><x:t>Rich </x:t></x:r><x:r><x:rPr><x:b/></x:rPr><x:t>text</x:t></x:r></x:si><x:si><x:t>東京</x:t><x:rPh sb="0" eb="2"><x:t>トウキョウ</x:t></x:rPh></x:si></x:sst>`;
  const styles = `<?xml version="1.0" encoding="UTF-8"?><x:styleSheet ${X}><x:cellXfs count="2"><x:xf numFmtId="0"/><x:xf numFmtId="14" applyNumberFormat="1"/></x:cellXfs></x:styleSheet>`;
  const wb = `<?xml version="1.0" encoding="UTF-8"?><x:workbook ${X} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><x:workbookPr date1904="1"/><x:sheets><x:sheet name="Data &amp; more" sheetId="7" r:id="rId1"/></x:sheets></x:workbook>`;
  const rels = (list: [string, string][]) => `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list.map(([id, t], i) => `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${t}" Target="${['sheets/data.xml', 'strings.xml', 'styles.xml'][i]}"/>`).join('')}</Relationships>`;
  const { zipParts } = await import('../../../test/helpers/reader-harness.js');
  const bytes = zipParts({
    '[Content_Types].xml': '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    '_rels/.rels': '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/book/wb.xml"/></Relationships>',
    'book/wb.xml': wb,
    'book/_rels/wb.xml.rels': rels([['rId1', 'worksheet'], ['rId2', 'sharedStrings'], ['rId3', 'styles']]),
    'book/sheets/data.xml': sheet,
    'book/strings.xml': sst,
    'book/styles.xml': styles,
  });
  const parsed = await read('other.xlsx', 'xlsx', bytes);
  assert.deepEqual(parsed.pages.map((p) => p.name), ['Data & more']);
  assert.deepEqual(tableGrid(parsed.tables[0]!), [
    ['Rich text', '東京', 'Inline & text'],
    ['1904-01-01', '2024-03-05T10:20:30', '#DIV/0!'],
    ['1.5', 'TRUE', '1.5x'],
  ]);
});

test('xlsx: the cell cap truncates and records an issue', async () => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('S');
  for (let i = 0; i < 50; i++) ws.addRow([`r${i}`, i]);
  const parsed = await read('cap.xlsx', 'xlsx', new Uint8Array(await wb.xlsx.writeBuffer()), createSheetReader({ options: { maxCells: 30 } }));
  assert.equal(parsed.issues[0]?.code, 'cell_limit');
  assert.equal(parsed.tables.reduce((n, t) => n + t.cells.length, 0), 30);
});

test('xls (legacy, SheetJS): values, dates and merges', async () => {
  const ws = XLSX.utils.aoa_to_sheet([['Inventory'], [], ['Item', 'Count', 'Checked'], ['Bolts', 120, 45306], ['Nuts', 80.5, 45307]]);
  ws['C4']!.z = 'yyyy-mm-dd';
  ws['C5']!.z = 'yyyy-mm-dd';
  ws['!merges'] = [{ s: { r: 0, c: 0 }, e: { r: 0, c: 2 } }];
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Stock');
  const bytes = XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
  const parsed = await read('stock.xls', 'xls', bytes);
  checkSpans(parsed);
  assert.equal(parsed.pages[0]!.name, 'Stock');
  assert.ok(parsed.blocks.some((b) => b.type === 'heading' && b.text === 'Inventory' && b.level === 2));
  assert.deepEqual(tableGrid(parsed.tables[0]!), [
    ['Item', 'Count', 'Checked'],
    ['Bolts', '120', '2024-01-15'],
    ['Nuts', '80.5', '2024-01-16'],
  ]);
});

test('xls: the SheetJS worker is ended at its time limit and on abort', async () => {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['a', 1]]), 'S');
  const bytes = XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
  await assert.rejects(read('slow.xls', 'xls', bytes, createSheetReader({ options: { legacyTimeoutMs: 1 } })), /xls could not be read: reading took longer than/);
  const p = path.join(dir, 'abort.xls');
  fs.writeFileSync(p, bytes);
  const ac = new AbortController();
  const pending = reader.read({ path: p, name: 'abort.xls', format: 'xls', size: bytes.length, documentId: 'd' }, { ...opts, signal: ac.signal });
  setTimeout(() => ac.abort(new Error('job cancelled')), 5);
  await assert.rejects(pending, /job cancelled/);
});

test('csv: semicolon-delimited latin1 file with quotes', async () => {
  const csv = 'Name;Stadt;Betrag\n"Müller, Hans";Köln;12,50\nJosé;"São ""Paulo""";7\n\n';
  const parsed = await read('data.csv', 'csv', iconv.encode(csv, 'latin1'));
  checkSpans(parsed);
  assert.equal(parsed.metadata.delimiter, ';');
  assert.equal(parsed.metadata.encoding, 'windows-1252');
  assert.equal(parsed.pages.length, 1);
  assert.deepEqual(tableGrid(parsed.tables[0]!), [
    ['Name', 'Stadt', 'Betrag'],
    ['Müller, Hans', 'Köln', '12,50'],
    ['José', 'São "Paulo"', '7'],
  ]);
  assert.ok(parsed.tables[0]!.cells.filter((c) => c.row === 0).every((c) => c.header));
});

test('csv: cells saved after their UTF-8 was read as Windows-1252 (mojibake) are repaired; Latin-1 text that only looks like it is kept', async () => {
  // a sheet exported from a tool that had decoded UTF-8 as Windows-1252: "£" became "Â£", "–" became "â€“"
  const twice = (s: string) => iconv.decode(Buffer.from(s, 'utf8'), 'windows-1252');
  const good = ['SÃO PAULO', 'Âge moyen', 'Größe', '¿Qué?'];
  const csv = `Item,Price,Season,Note\n${twice('Transfer fee,"£850,000",1991–92,didn’t score')}\n${good.join(',')}\n`;
  const parsed = await read('fees.csv', 'csv', Buffer.from(csv, 'utf8'));
  checkSpans(parsed);
  assert.equal(parsed.metadata.encoding, 'utf-8');
  assert.equal(parsed.metadata.encodingRepaired, true);
  const grid = tableGrid(parsed.tables[0]!);
  assert.deepEqual(grid[1], ['Transfer fee', '£850,000', '1991–92', 'didn’t score']);
  assert.deepEqual(grid[2], good, 'text that is not mojibake stays as it is');
  const clean = await read('clean.csv', 'csv', Buffer.from(`A,B,C,D\n${good.join(',')}\n`, 'utf8'));
  assert.equal(clean.metadata.encodingRepaired, undefined);
  assert.deepEqual(tableGrid(clean.tables[0]!)[1], good);
});

test('broken files fail with a clear PROCESSING_ERROR', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('A').addRow(['x']);
  const good = new Uint8Array(await wb.xlsx.writeBuffer());
  const cases: [string, string, Uint8Array | string, RegExp][] = [
    ['trunc.xlsx', 'xlsx', good.subarray(0, 300), /xlsx could not be read: /],
    ['enc.xlsx', 'xlsx', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600)]), /password-protected/],
    ['junk.xls', 'xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 1, 2, 3]), /xls could not be read: /],
    ['empty.csv', 'csv', '', /csv could not be read: the file is empty/],
  ];
  for (const [name, format, bytes, re] of cases) {
    await assert.rejects(read(name, format, bytes), (e: unknown) => isQuireError(e) && e.code === 'PROCESSING_ERROR' && re.test(e.message), name);
  }
});

const corpus = corpusFiles(['csv', 'xlsx', 'xls', 'xlsm', 'xltx', 'xltm', 'qpw']);
test('corpus: every csv/xlsx/xls file parses into tables; word F1 ≥ 0.9 against the reference', { skip: !corpus && 'corpus not present' }, async () => {
  const { root, files } = corpus!;
  assert.ok(files.length > 0);
  for (const f of files) {
    const p = path.join(root, f.path);
    const t0 = performance.now();
    const doc = await reader.read({ path: p, name: f.id, format: f.format, size: fs.statSync(p).size, documentId: f.id }, opts);
    const ms = performance.now() - t0;
    checkSpans(doc);
    assert.ok(doc.tables.length > 0, `${f.id} yields tables`);
    if (Array.isArray((f as { sheets?: string[] }).sheets)) assert.deepEqual(doc.pages.map((pg) => pg.name), (f as { sheets?: string[] }).sheets);
    const ref = referenceText(root, f);
    const score = ref ? wordF1(stripMarkdown(doc.text), stripMarkdown(ref)) : null;
    console.log(`${f.id}: ${ms.toFixed(0)} ms, ${doc.pages.length} sheet(s), ${doc.tables.length} tables${score ? `, F1 ${score.f1.toFixed(3)} (P ${score.precision.toFixed(3)} R ${score.recall.toFixed(3)})` : ''}`);
    if (score) assert.ok(score.f1 >= 0.9, `${f.id}: F1 ${score.f1.toFixed(3)} < 0.9`);
  }
});
