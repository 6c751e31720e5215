import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isQuireError } from '@quire/core';
import { SofficeError, XmlScanError, assertNoDtd, childElements, convertWithSoffice, mainPartPath, openPackage, parseChart, parseRels, partText, relsOf, sofficeAvailable } from '@quire/office';
import { entityBomb, xlsx } from '../../../test/helpers/reader-harness.js';

test('OOXML packages: the main part from _rels/.rels, parts as text, relationships resolved against the part', async () => {
  const zip = openPackage(xlsx({ Data: '<worksheet/>' }), { label: 'xlsx' });
  const main = await mainPartPath(zip, 'fallback.xml');
  assert.equal(main, 'xl/workbook.xml');
  assert.equal(relsOf(main), 'xl/_rels/workbook.xml.rels');
  const rels = parseRels((await partText(zip, relsOf(main)))!, relsOf(main));
  assert.equal(rels.get('rId1')?.target, 'xl/worksheets/sheet1.xml');
  assert.match(rels.get('rId1')!.type, /\/worksheet$/);
  assert.equal(await partText(zip, 'missing.xml'), undefined);
  assert.equal(parseRels('<Relationship Id="x" Target="http://example.org" TargetMode="External"/>', 'a/_rels/b.xml.rels').size, 0);
});

test('XML parts that declare a DTD are refused; the element scanner refuses unbalanced markup', async () => {
  assert.throws(() => assertNoDtd(entityBomb('<a/>'), 'docx', 'word/document.xml'), (e: unknown) => isQuireError(e) && e.code === 'UNPROCESSABLE' && /word\/document\.xml declares a DTD/.test(e.message));
  assert.doesNotThrow(() => assertNoDtd('<?xml version="1.0"?><a>text</a>', 'docx', 'p.xml'));
  const zip = openPackage(xlsx({ Data: entityBomb('<worksheet/>') }), { label: 'xlsx' });
  await assert.rejects(partText(zip, 'xl/worksheets/sheet1.xml'), (e: unknown) => isQuireError(e) && e.code === 'UNPROCESSABLE');
  const names = [...childElements(Buffer.from('<r><a x=">"/><!-- c --><b>t</b></r>'), 3, 31)].map((e) => e.name);
  assert.deepEqual(names, ['a', 'b']);
  assert.throws(() => [...childElements(Buffer.from('<a><b></a>'), 0, 10)], XmlScanError);
});

test('charts: title, type and cached series; not a chart gives null', () => {
  const chart = `<c:chartSpace xmlns:c="c" xmlns:a="a"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Sales</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:lineChart><c:ser><c:tx><c:v>2024</c:v></c:tx><c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Q1</c:v></c:pt><c:pt idx="1"><c:v>Q2</c:v></c:pt></c:strCache></c:strRef></c:cat><c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>0.30000000000000004</c:v></c:pt><c:pt idx="1"><c:v>2</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser></c:lineChart></c:plotArea></c:chart></c:chartSpace>`;
  assert.deepEqual(parseChart(chart), { title: 'Sales', type: 'line', header: ['', '2024'], rows: [['Q1', '0.3'], ['Q2', '2']] });
  assert.equal(parseChart('<worksheet/>'), null);
});

test('LibreOffice: a missing binary is reported as missing', async () => {
  assert.deepEqual(await sofficeAvailable('/nonexistent/soffice'), { ok: false });
  await assert.rejects(convertWithSoffice({ soffice: '/nonexistent/soffice', input: import.meta.filename, inputExt: 'rtf', to: 'docx', timeoutMs: 10_000 }), (e: unknown) => e instanceof SofficeError && e.kind === 'missing');
});
