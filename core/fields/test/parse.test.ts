import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNumber, parseDate, parseBoolean, normaliseValue, documentDateOrder, scanDates, scanTyped, fieldsFromDescription, PREBUILT_SCHEMAS } from '@quire/fields';

test('parseNumber: currency marks, both separator conventions, negatives, percentages', () => {
  const cases: [string, number | null][] = [
    ['$4.11', 4.11],
    ['€ 1.234,56', 1234.56],
    ['1,234.56', 1234.56],
    ['1.234.567,89', 1234567.89],
    ['1 234,56', 1234.56],
    ["CHF 1'234.50", 1234.5],
    ['(1,234.00)', -1234],
    ['-12.5', -12.5],
    ['12.50-', -12.5],
    ['€ -9,32', -9.32],
    ['21%', 21],
    ['USD 4.11', 4.11],
    ['4.11 EUR', 4.11],
    ['Rs 1939', 1939],
    ['RM9.00', 9],
    ['0,125', 0.125],
    ['abc', null],
    ['12 and 13', null],
    ['', null],
  ];
  for (const [s, want] of cases) assert.equal(parseNumber(s), want, s);
  // a lone "1,234" follows the document's decimal separator when known
  assert.equal(parseNumber('1,234'), 1234);
  assert.equal(parseNumber('1,234', { decimal: ',' }), 1.234);
  assert.equal(parseNumber('1.234', { decimal: '.' }), 1.234);
});

test('parseDate: numeric and textual forms in several languages to ISO', () => {
  const cases: [string, string | null][] = [
    ['2024-03-12', '2024-03-12'],
    ['2024-03-12T10:00:00Z', '2024-03-12'],
    ['13/02/2024', '2024-02-13'],
    ['02/13/2024', '2024-02-13'],
    ['12 March 2024', '2024-03-12'],
    ['Mar 12, 2024', '2024-03-12'],
    ['March 12th, 2024', '2024-03-12'],
    ['August 3 , 2014', '2014-08-03'],
    ['12-Mar-2024', '2024-03-12'],
    ['Tuesday, 12 March 2024', '2024-03-12'],
    ['7. Mai 2014', '2014-05-07'],
    ['3. März 2024', '2024-03-03'],
    ['1er janvier 2024', '2024-01-01'],
    ['15 février 2023', '2023-02-15'],
    ['19 april 2014', '2014-04-19'],
    ['31.12.17', '2017-12-31'],
    ['30/02/2024', null],
    ['not a date', null],
  ];
  for (const [s, want] of cases) assert.equal(parseDate(s), want, s);
  // ambiguous day/month: day first by default, month first on request
  assert.equal(parseDate('03/04/2024'), '2024-04-03');
  assert.equal(parseDate('03/04/2024', { order: 'MDY' }), '2024-03-04');
  // dotted dates are day first whatever the hint
  assert.equal(parseDate('03.04.2024', { order: 'MDY' }), '2024-04-03');
});

test('documentDateOrder: from unambiguous dates, then from currency and language hints', () => {
  assert.equal(documentDateOrder('Issued 12/25/2023, due 01/05/2024'), 'MDY');
  assert.equal(documentDateOrder('Issued 25/12/2023, due 05/01/2024'), 'DMY');
  assert.equal(documentDateOrder('Total $ 40.00 due 01/05/2024'), 'MDY');
  assert.equal(documentDateOrder('Total € 40,00 fällig 01/05/2024'), 'DMY');
  assert.equal(documentDateOrder('nothing here'), undefined);
});

test('parseBoolean: checkbox glyphs and words', () => {
  const cases: [string, boolean | null][] = [
    ['☒', true], ['☑', true], ['✓', true], ['✔', true], ['☐', false], ['✗', false],
    ['[x]', true], ['[ ]', false], ['Yes', true], ['no', false], ['TRUE', true], ['false', false], ['x', true], ['Ja', true], ['non', false],
    ['maybe', null], ['', null],
  ];
  for (const [s, want] of cases) assert.equal(parseBoolean(s), want, s);
});

test('scanTyped: numbers inside dates, times and codes are not amounts', () => {
  const found = scanTyped('Booking IBZY2087 at 10:30 on 31/12/2017 total 1.939,00', 'number');
  assert.deepEqual(found.map((m) => m.value), [1939]);
  const text = 'TOTAL AMOUNT DUE ON August 3 , 2014   $4.11';
  const m = scanTyped(text, 'number');
  assert.equal(m.length, 1);
  assert.equal(text.slice(m[0]!.start, m[0]!.end), '$4.11');
});

test('normaliseValue: comparable forms for ground truth', () => {
  assert.equal(normaliseValue('€ 717,97', 'number'), 717.97);
  assert.equal(normaliseValue(717.97, 'number'), 717.97);
  assert.equal(normaliseValue('19 april 2014', 'date'), '2014-04-19');
  assert.equal(normaliseValue('2014-04-19', 'date'), '2014-04-19');
  assert.equal(normaliseValue('  Amazon  Web Services, Inc. ', 'string'), normaliseValue('amazon web services, inc.', 'string'));
  assert.equal(normaliseValue('', 'string'), null);
  assert.equal(normaliseValue('Yes', 'boolean'), true);
  assert.deepEqual(
    normaliseValue([{ qty: '1', price: '3,89' }], { name: 'lines', type: 'array', items: { name: 'l', type: 'object', properties: { qty: { name: 'qty', type: 'number' }, price: { name: 'price', type: 'number' } } } }),
    [{ qty: 1, price: 3.89 }],
  );
});

test('fieldsFromDescription: listed items become typed fields', () => {
  const fields = fieldsFromDescription('Extract the invoice number, the total amount and the due date');
  assert.deepEqual(fields.map((f) => [f.name, f.type]), [['invoice_number', 'string'], ['total_amount', 'number'], ['due_date', 'date']]);
  const more = fieldsFromDescription('Please get: vendor name; whether the invoice is paid; number of items; the line items; issue date');
  const byName = Object.fromEntries(more.map((f) => [f.name, f]));
  assert.equal(byName.vendor_name?.type, 'string');
  assert.equal(byName.is_paid?.type, 'boolean');
  assert.equal(byName.number_of_items?.type, 'number');
  assert.equal(byName.line_items?.type, 'array');
  assert.equal(byName.line_items?.items?.type, 'object');
  assert.equal(byName.issue_date?.type, 'date');
  const asked = fieldsFromDescription('I need the invoice number and the total amount');
  assert.deepEqual(asked.map((f) => f.name), ['invoice_number', 'total_amount']);
});

test('PREBUILT_SCHEMAS: every category has schemas with unique, typed fields', () => {
  for (const cat of ['invoice', 'contract', 'resume', 'form', 'financial']) {
    const list = PREBUILT_SCHEMAS.filter((s) => s.category === cat);
    assert.ok(list.length >= 1, cat);
    for (const s of list) {
      assert.ok(s.id && s.name && s.description && s.fields.length >= 5, s.id);
      const names = s.fields.map((f) => f.name);
      assert.equal(new Set(names).size, names.length, s.id);
      for (const f of s.fields) assert.ok(['string', 'number', 'boolean', 'date', 'array', 'object'].includes(f.type));
    }
  }
  assert.equal(new Set(PREBUILT_SCHEMAS.map((s) => s.id)).size, PREBUILT_SCHEMAS.length);
});

test('dates in the common printed forms, and identifiers keep their full printed token', () => {
  const forms: [string, string][] = [
    ['25/12/2018', '2018-12-25'],
    ['18-11-18', '2018-11-18'],
    ['Jan 1, 2022', '2022-01-01'],
    ['2015.07.02', '2015-07-02'],
    ['12 MAR 2018', '2018-03-12'],
    ['30 DEC 17', '2017-12-30'],
    ['25 Mar 2018 9:27PM', '2018-03-25'],
  ];
  for (const [printed, iso] of forms) assert.equal(scanDates(`Date: ${printed}`, { order: 'DMY' })[0]?.iso, iso, printed);
  const id = (s: string) => scanTyped(s, 'string', { format: 'id' })[0]?.value;
  assert.equal(id('# invoice_number_1'), 'invoice_number_1');
  assert.equal(id('#BLR_WFLD20151000982590'), '#BLR_WFLD20151000982590');
  assert.equal(id('INV-2024-001'), 'INV-2024-001');
});

test('compact dates: year first, and day first as some tills print them, the latter at lower quality', () => {
  assert.deepEqual(scanDates('00440010036 25032018 13:11:54 0003').map((d) => [d.iso, d.quality]), [['2018-03-25', 0.6]]);
  assert.equal(scanDates('20180325')[0]?.iso, '2018-03-25');
  assert.equal(scanDates('20180325')[0]?.quality, 0.8);
  // not a date: impossible days or months, other centuries, longer digit runs
  for (const t of ['32032018', '25132018', '25031850', '125032018', '2503201899']) assert.deepEqual(scanDates(t), [], t);
  // amounts and numbers next to a compact date are still numbers
  assert.deepEqual(scanTyped('25032018 Total 41.45', 'number').map((m) => m.value), [41.45]);
});

test('a date with the time glued to it (the space lost by OCR) is read with its own year, not the hour as one', () => {
  assert.deepEqual(scanDates('11/02/1819:21 Slip No.: 6030098553').map((d) => [d.iso, d.start, d.end]), [['2018-02-11', 0, 8]]);
  assert.deepEqual(scanDates('11/02/201812:30').map((d) => [d.iso, d.end]), [['2018-02-11', 10]]);
  // (an hour of one digit glued to a four-digit year: "25/12/2018 8:13:39 PM" read as "25/12/20188:13:39 PM")
  assert.deepEqual(scanDates('Date: 25/12/20188:13:39 PM').map((d) => [d.iso, d.end]), [['2018-12-25', 16]]);
  // a four-digit year with the time after a space, and longer digit runs, as before
  assert.equal(scanDates('11/02/2018 12:30')[0]?.iso, '2018-02-11');
  assert.deepEqual(scanDates('11/02/18123'), []);
});

test('documentDateOrder: a "$" without cents (OCR of an S) is no sign of US dates', () => {
  assert.equal(documentDateOrder('Jalan $821/39, 47400 Petaling Jaya  10/03/2018'), undefined);
  assert.equal(documentDateOrder('Total $ 12.50  10/03/2018'), 'MDY');
});
