/** The sheet reader against hostile files: zip bombs, entity bombs, too many cells or sheets, CPU bombs in the layout. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import XLSX from 'xlsx';
import { tableGrid } from '@quire/core';
import { createSheetReader } from '@quire/plugin-reader-sheet';
import { MB, SHEET_HEAD, SHEET_TAIL, S_NS, entityBomb, isCode, measure, readInChild, repeated, xlsx, zipParts, readerHarness } from '../../../test/helpers/reader-harness.js';

const reader = createSheetReader();
const { save, read } = readerHarness('sheet', reader);
const SRC = new URL('../src/index.ts', import.meta.url).pathname;

const rowsXml = (n: number, cell: (r: number) => string) => {
  const out: string[] = [];
  for (let r = 1; r <= n; r++) out.push(`<row r="${r}">${cell(r)}</row>`);
  return SHEET_HEAD + out.join('') + SHEET_TAIL;
};

test('xlsx zip bomb (600 KB → 200 MB of worksheet XML): refused at the cell limit while inflating', async () => {
  const bomb = xlsx({ Bomb: repeated(SHEET_HEAD, '<row r="1"><c t="inlineStr"><is><t>aaaaaaaaaaaaaaaa</t></is></c></row>', 200 * MB, SHEET_TAIL) });
  assert.ok(bomb.length < 1.5 * MB, `${bomb.length} bytes`);
  // before: "xlsx could not be read: Cannot read properties of undefined (reading 'length')"
  const r = await readInChild(SRC, 'createSheetReader', save('bomb.xlsx', bomb), 'xlsx', { limits: { cells: 200_000 } });
  console.log(`200 MB xlsx bomb: ${r.code} in ${r.ms} ms, peak RSS ${r.maxRssMb} MB: ${r.message}`);
  assert.equal(r.code, 'UNPROCESSABLE');
  assert.equal(r.message, 'xlsx exceeds 200,000 cells');
  // the time is printed above, not asserted (it depends on the machine's load; bench/ holds speed targets);
  // the peak memory shows the part was not inflated whole before the refusal
  assert.ok(r.maxRssMb < 400, `peak RSS ${r.maxRssMb} MB`);
  // with a lower decompressed-size limit: refused at the zip cap
  await assert.rejects(read('bomb-small.xlsx', bomb, { limits: { decompressedBytes: 16 * MB } }), isCode('UNPROCESSABLE', /^xlsx: decompressed size exceeds 8 MB for one part \("xl\/worksheets\/sheet1\.xml"\)$/));
  // a bomb in a part that is not read (media) is never inflated
  const media = xlsx({ S: rowsXml(2, (r) => `<c r="A${r}"><v>${r}</v></c>`) }, { 'xl/media/image1.png': new Uint8Array(128 * MB) });
  assert.deepEqual(tableGrid((await read('media.xlsx', media, { limits: { decompressedBytes: 4 * MB } })).tables[0]!), [['1'], ['2']]);
});

test('many rows: the cell limit is counted while reading (refused early); a sheet under it reads whole', async () => {
  const sheet = rowsXml(50_000, (r) => `<c r="A${r}"><v>${r}</v></c><c r="B${r}" t="inlineStr"><is><t>row ${r}</t></is></c>`);
  const bytes = xlsx({ Rows: sheet });
  const m = await measure(() => read('rows.xlsx', bytes, { limits: { cells: 10_000 } }));
  assert.ok(isCode('UNPROCESSABLE', /^xlsx exceeds 10,000 cells$/)(m.error), String(m.error));
  const whole = await measure(() => read('rows-ok.xlsx', bytes, { limits: { cells: 100_000 } }));
  assert.ok(whole.result, String(whole.error));
  console.log(`50,000-row sheet: refused at 10,000 cells in ${m.ms.toFixed(0)} ms, read whole in ${whole.ms.toFixed(0)} ms`);
  assert.equal(whole.result!.tables.reduce((n, t) => n + t.cells.length, 0), 100_000);
  // csv and legacy xls count the same way
  const csv = Array.from({ length: 5000 }, (_, i) => `${i},value ${i},x`).join('\n');
  await assert.rejects(read('rows.csv', csv, { limits: { cells: 1000 } }), isCode('UNPROCESSABLE', /^csv exceeds 1,000 cells$/));
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(Array.from({ length: 3000 }, (_, i) => [i, `v${i}`])), 'S');
  const xls = XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
  await assert.rejects(read('rows.xls', xls, { limits: { cells: 1000 } }), isCode('UNPROCESSABLE', /^xls exceeds 1,000 cells$/));
  assert.equal((await read('rows-ok.xls', xls, { limits: { cells: 6000 } })).pages.length, 1);
});

test('a shared-strings table larger than the cell limit is refused before the sheets are read', async () => {
  const si = Array.from({ length: 3000 }, (_, i) => `<si><t>s${i}</t></si>`).join('');
  const bytes = xlsx({ S: rowsXml(1, () => '<c r="A1" t="s"><v>0</v></c>') }, { 'xl/sharedStrings.xml': `<sst ${S_NS}>${si}</sst>` });
  await assert.rejects(read('sst.xlsx', bytes, { limits: { cells: 1000 } }), isCode('UNPROCESSABLE', /^xlsx exceeds 1,000 cells \(its shared-strings table alone has more strings\)$/));
});

test('entity bomb (billion laughs) in a worksheet or the shared strings: refused', async () => {
  const sheet = entityBomb(`<worksheet ${S_NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData></worksheet>`);
  await assert.rejects(read('lol.xlsx', xlsx({ S: sheet })), isCode('UNPROCESSABLE', /^xlsx: the XML part xl\/worksheets\/sheet1\.xml declares a DTD/));
  const sst = entityBomb(`<sst ${S_NS}><si><t>&lol9;</t></si></sst>`);
  await assert.rejects(read('lol-sst.xlsx', xlsx({ S: rowsXml(1, () => '<c r="A1" t="s"><v>0</v></c>') }, { 'xl/sharedStrings.xml': sst })), isCode('UNPROCESSABLE', /sharedStrings\.xml declares a DTD/));
});

test('XML on saxes: entities decoded once, CDATA as text, a DOCTYPE past the first 64 KB, unknown entities and overlong tags refused', async () => {
  // "&amp;lt;" is the text "&lt;" (decoded once), in shared and inline strings alike; _xHHHH_ escapes are OOXML's own
  const sst = `<sst ${S_NS}><si><t>&amp;lt; a &lt;b&gt; _x0041_</t></si><si><r><t><![CDATA[<raw> &amp;]]></t></r><rPh><t>no</t></rPh></si></sst>`;
  const cells = '<c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>&amp;lt;&amp;amp;<![CDATA[ & <x>]]></t></is></c><c r="D1" t="str"><v>&amp;quot;</v></c>';
  const doc = await read('entities.xlsx', xlsx({ S: rowsXml(1, () => cells) }, { 'xl/sharedStrings.xml': sst }));
  assert.deepEqual(tableGrid(doc.tables[0]!), [['&lt; a <b> A', '<raw> &amp;', '&lt;&amp; & <x>', '&quot;']]);
  const damaged = (re: RegExp) => (e: unknown) => isCode('PROCESSING_ERROR', re)(e) && !/undefined/.test((e as Error).message);
  // a DOCTYPE or <!ENTITY after 2 MB of comments escapes the check of the first inflated chunk: saxes refuses it
  const pad = `<!--${'x'.repeat(50_000)}-->`.repeat(40);
  const late = `<?xml version="1.0"?>${pad}<!DOCTYPE worksheet [<!ENTITY a "b">]>${rowsXml(1, () => '<c r="A1"><v>1</v></c>').replace(/^<\?xml[^>]*>/, '')}`;
  await assert.rejects(read('late-dtd.xlsx', xlsx({ S: late })), damaged(/^xlsx could not be read: the file is damaged \(malformed XML: a DTD or markup declaration/));
  await assert.rejects(read('decl.xlsx', xlsx({ S: rowsXml(1, () => `${pad}<!ENTITY a "b"><c r="A1"><v>1</v></c>`) })), damaged(/malformed XML: a DTD or markup declaration/));
  // entities other than the predefined five
  await assert.rejects(read('entity.xlsx', xlsx({ S: rowsXml(1, () => '<c r="A1" t="inlineStr"><is><t>&nbsp;</t></is></c>') })), damaged(/malformed XML: an unknown entity reference/));
  await assert.rejects(read('entity-sst.xlsx', xlsx({ S: rowsXml(1, () => '<c r="A1" t="s"><v>0</v></c>') }, { 'xl/sharedStrings.xml': `<sst ${S_NS}><si><t>&lol;</t></si></sst>` })), damaged(/malformed XML: an unknown entity reference/));
  // a start tag (here one attribute) of 2 MB: refused at 1 MB without an event
  const long = xlsx({ S: rowsXml(1, () => `<c r="A1" x="${'y'.repeat(2 * MB)}"><v>1</v></c>`) });
  await assert.rejects(read('long-tag.xlsx', long), damaged(/malformed XML: a tag or text longer than 1 MB/));
});

test('more sheets than the page limit: refused', async () => {
  const sheets: Record<string, string> = {};
  for (let i = 1; i <= 6; i++) sheets[`S${i}`] = rowsXml(1, () => `<c r="A1"><v>${i}</v></c>`);
  await assert.rejects(read('sheets.xlsx', xlsx(sheets), { limits: { pages: 5 } }), isCode('UNPROCESSABLE', /^xlsx exceeds 5 pages \(it has 6 sheets\)$/));
  assert.equal((await read('sheets-ok.xlsx', xlsx(sheets), { limits: { pages: 6 } })).pages.length, 6);
});

test('layout CPU bombs: a long diagonal, scattered cells and huge merges lay out in bounded time and text', async () => {
  // a diagonal is one connected block 16,000 columns wide: as one grid it would be 16,000 × 16,000 positions
  const diagonal = xlsx({ D: rowsXml(16_000, (r) => `<c r="${col(r)}${r}"><v>${r}</v></c>`) });
  const d = await measure(() => read('diagonal.xlsx', diagonal));
  assert.ok(d.result, String(d.error));
  assert.ok(d.ms < 60_000, `${d.ms} ms`);
  assert.ok(d.result!.text.length < 2 * MB, `${d.result!.text.length} characters`);
  assert.ok(d.result!.text.includes('16000'));
  // cells two apart in both directions: every cell its own block (joining blocks is quadratic)
  const scattered = xlsx({ S: rowsXml(3000, (r) => (r % 2 ? Array.from({ length: 10 }, (_, i) => `<c r="${col(i * 2 + 1)}${r}"><v>${r * 100 + i}</v></c>`).join('') : '')) });
  const s = await measure(() => read('scattered.xlsx', scattered));
  assert.ok(s.result, String(s.error));
  assert.ok(s.ms < 60_000, `${s.ms} ms`);
  // 20,000 merged ranges of 1000 × 1000 cells
  const merges = Array.from({ length: 20_000 }, (_, i) => `<mergeCell ref="A${i + 1}:ALL${i + 1000}"/>`).join('');
  const merged = xlsx({ M: `${SHEET_HEAD}${Array.from({ length: 20_000 }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i}</v></c></row>`).join('')}</sheetData><mergeCells>${merges}</mergeCells></worksheet>` });
  const mm = await measure(() => read('merges.xlsx', merged));
  assert.ok(mm.result, String(mm.error));
  assert.ok(mm.ms < 60_000, `${mm.ms} ms`);
  console.log(`layout bombs: diagonal ${d.ms.toFixed(0)} ms, scattered ${s.ms.toFixed(0)} ms, merges ${mm.ms.toFixed(0)} ms`);
});

test('csv in any script: UTF-8 Arabic + Chinese and UTF-16 with a BOM read correctly', async () => {
  const rows = ['id,name_ar,name_zh,city'];
  for (let i = 0; i < 250; i++) rows.push(`${i},محمد عبد الله ${i},张伟${i}号,الرياض / 北京`);
  const text = rows.join('\n') + '\n';
  for (const [name, bytes, encoding] of [
    ['utf8.csv', Buffer.from(text), 'utf-8'],
    ['utf16le.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), 'utf-16le'],
    ['utf16be.csv', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]), 'utf-16be'],
  ] as const) {
    const doc = await read(name, bytes);
    assert.equal(doc.metadata.encoding, encoding, name);
    const grid = doc.tables.flatMap((t, i) => tableGrid(t).slice(i ? 1 : 0));
    assert.equal(grid.length, 251, name);
    assert.deepEqual(grid[0], ['id', 'name_ar', 'name_zh', 'city'], name);
    assert.deepEqual(grid[250], ['249', 'محمد عبد الله 249', '张伟249号', 'الرياض / 北京'], name);
  }
});

test('damaged workbooks fail with a clear message naming the format, never a library internal', async () => {
  const cases: [string, Uint8Array, RegExp][] = [
    ['no-workbook.xlsx', zipParts({ '[Content_Types].xml': '<Types/>', 'xl/worksheets/sheet1.xml': rowsXml(1, () => '') }), /^xlsx could not be read: the file is damaged or not an Excel workbook \(xl\/workbook\.xml is missing\)$/],
    ['broken-sheet.xlsx', xlsx({ S: SHEET_HEAD + '<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2" t="s' }), /^xlsx could not be read: the file is damaged \(malformed XML: /],
    ['not-zip.xlsx', Buffer.from('PK\u0003\u0004 but nothing else of a zip'), /^xlsx could not be read: the file is corrupt or truncated/],
  ];
  for (const [name, bytes, re] of cases) {
    await assert.rejects(read(name, bytes), (e: unknown) => isCode('PROCESSING_ERROR', re)(e) && !/undefined|Cannot read/.test((e as Error).message), name);
  }
});

/** 1 → A, 27 → AA */
function col(n: number): string {
  let s = '';
  for (let x = n; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(65 + ((x - 1) % 26)) + s;
  return s;
}
