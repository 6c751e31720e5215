import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { DocumentBuilder, pluginContext, type ExtractionEvent, type FieldDefinition, type FieldResult, type ParsedDocument } from '@quire/core';
import { parseNumber, parseDate } from '@quire/fields';
import plugin, { createExtractor } from '@quire/plugin-extractor-layout';
import { invoiceDoc, labelAboveDoc, chunksOf, textDoc, box, wordsOf } from './docs.js';

const offline = createExtractor({ use: (() => undefined) as any });
const byField = (rs: FieldResult[]) => Object.fromEntries(rs.map((r) => [r.field, r]));
const LINE_ITEMS: FieldDefinition = {
  name: 'line_items',
  type: 'array',
  items: { name: 'item', type: 'object', properties: { description: { name: 'description', type: 'string' }, quantity: { name: 'quantity', type: 'number' }, unit_price: { name: 'unit_price', type: 'number' }, amount: { name: 'amount', type: 'number' } } },
};
const INVOICE_FIELDS: FieldDefinition[] = [
  { name: 'invoice_number', type: 'string' },
  { name: 'date', type: 'date', description: 'Invoice date' },
  { name: 'due_date', type: 'date' },
  { name: 'customer', type: 'string' },
  { name: 'currency', type: 'string' },
  { name: 'subtotal', type: 'number' },
  { name: 'tax', type: 'number' },
  { name: 'total', type: 'number' },
  { name: 'iban', type: 'string' },
  { name: 'email', type: 'string' },
  { name: 'order_number', type: 'string' },
];

/** Every evidence points exactly at its value: the span's text is the evidence text and reads as the value. */
function assertEvidence(doc: ParsedDocument, r: FieldResult, type: FieldDefinition['type']): void {
  const ev = r.evidence!;
  assert.ok(ev, `${r.field} has evidence`);
  assert.ok(ev.span, `${r.field} has a span`);
  assert.equal(doc.text.slice(ev.span!.start, ev.span!.end), ev.text, `${r.field}: span text`);
  assert.equal(ev.confidence, r.confidence);
  if (type === 'number') assert.equal(parseNumber(ev.text, { decimal: ',' }) ?? parseNumber(ev.text), r.value, `${r.field}: printed ${ev.text}`);
  if (type === 'date') assert.equal(parseDate(ev.text), r.value, `${r.field}: printed ${ev.text}`);
  if (type === 'string' && r.field !== 'iban') assert.equal(ev.text, r.value, `${r.field}: printed ${ev.text}`);
}

test('offline: invoice with "Label: value" lines gives typed values with exact evidence spans and chunk ids', async () => {
  const doc = invoiceDoc();
  const chunks = chunksOf(doc);
  const { data, fieldResults } = await offline.extract({ doc, chunks, fields: INVOICE_FIELDS });
  assert.deepEqual(data, {
    invoice_number: 'INV-2024-0042',
    date: '2024-03-12',
    due_date: '2024-04-11',
    customer: 'Globex GmbH',
    currency: 'EUR',
    subtotal: 1285.5,
    tax: 257.1,
    total: 1542.6,
    iban: 'DE89370400440532013000',
    email: 'billing@acme.example',
    order_number: 'PO-7781',
  });
  for (const r of fieldResults) {
    const f = INVOICE_FIELDS.find((x) => x.name === r.field)!;
    assertEvidence(doc, r, f.type);
    assert.equal(r.evidence!.page, 1);
    const chunk = chunks.find((c) => c.id === r.evidence!.chunk_id)!;
    assert.ok(chunk.span.start <= r.evidence!.span!.start && r.evidence!.span!.end <= chunk.span.end, `${r.field}: chunk contains the value`);
    assert.ok(r.confidence >= 0.7 && r.confidence < 1, `${r.field}: confidence ${r.confidence}`);
  }
  const rs = byField(fieldResults);
  assert.equal(rs.iban!.evidence!.text, 'DE89 3704 0044 0532 0130 00');
  assert.equal(rs.total!.evidence!.text, '€ 1.542,60');
});

test('offline: exact label scores above a synonym label, and confidence is not a constant', async () => {
  const exact = await offline.extract({ doc: textDoc('a', ['Invoice Number: 4471']), chunks: [], fields: [{ name: 'invoice_number', type: 'string' }] });
  const synonym = await offline.extract({ doc: textDoc('b', ['Inv No: 4471']), chunks: [], fields: [{ name: 'invoice_number', type: 'string' }] });
  const fuzzy = await offline.extract({ doc: textDoc('c', ['Invoise Number: 4471']), chunks: [], fields: [{ name: 'invoice_number', type: 'string' }] });
  const [e, s, z] = [exact, synonym, fuzzy].map((r) => r.fieldResults[0]!);
  assert.deepEqual([e.value, s.value, z.value], ['4471', '4471', '4471']);
  assert.ok(e.confidence >= 0.85, `exact ${e.confidence}`);
  assert.ok(s.confidence < e.confidence, `synonym ${s.confidence} < exact ${e.confidence}`);
  assert.ok(z.confidence < e.confidence, `fuzzy ${z.confidence} < exact ${e.confidence}`);
});

test('offline: label above value and label left of value with boxes and OCR words', async () => {
  const doc = labelAboveDoc();
  const { data, fieldResults } = await offline.extract({
    doc,
    chunks: [],
    fields: [{ name: 'invoice_number', type: 'string' }, { name: 'invoice_date', type: 'date' }, { name: 'customer', type: 'string' }, { name: 'total', type: 'number' }],
  });
  // 03/15/2024 can only be month first
  assert.deepEqual(data, { invoice_number: 'NW-5531', invoice_date: '2024-03-15', customer: 'Contoso Pharmacy', total: 2310.75 });
  const rs = byField(fieldResults);
  assert.deepEqual(rs.invoice_number!.evidence!.bbox, box(50, 114, 35, 10));
  assert.deepEqual(rs.invoice_date!.evidence!.bbox, box(300, 114, 50, 10));
  assert.deepEqual(rs.customer!.evidence!.bbox, box(200, 160, 80, 10));
  // "$ 2,310.75" is two OCR words; the box is their union
  assert.deepEqual(rs.total!.evidence!.bbox, box(300, 400, 50, 10));
  for (const r of fieldResults) assert.equal(doc.text.slice(r.evidence!.span!.start, r.evidence!.span!.end), r.evidence!.text);
});

test('offline: label-above in a text-only layout uses character columns', async () => {
  const doc = textDoc('cols', ['Check In                Check Out             Rooms\n31/12/2017              01/01/2018            1']);
  const { data } = await offline.extract({ doc, chunks: [], fields: [{ name: 'check_in', type: 'date' }, { name: 'check_out', type: 'date' }, { name: 'rooms', type: 'number' }] });
  assert.deepEqual(data, { check_in: '2017-12-31', check_out: '2018-01-01', rooms: 1 });
});

test('offline: line-item table becomes an array of objects; table header and row lookups', async () => {
  const doc = invoiceDoc();
  const { data, fieldResults } = await offline.extract({ doc, chunks: [], fields: [LINE_ITEMS] });
  assert.deepEqual(data.line_items, [
    { description: 'Widget, blue', quantity: 2, unit_price: 10, amount: 20 },
    { description: 'Gadget', quantity: 1, unit_price: 1250.5, amount: 1250.5 },
    { description: 'Service fee', quantity: 3, unit_price: 5, amount: 15 },
  ]);
  const ev = fieldResults[0]!.evidence!;
  assert.equal(doc.text.slice(ev.span!.start, ev.span!.end), ev.text);
  assert.ok(ev.text.startsWith('Widget, blue') && ev.text.endsWith('€ 15,00'), ev.text);
  assert.ok(fieldResults[0]!.confidence > 0.7);

  // a summary table: the row header names the field, the value is in the same row
  const b = new DocumentBuilder('t2', 't2.pdf', 'pdf');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  const cells = [
    ['Reference', 'Policy holder'],
    ['PX-9912', 'Jane Roe'],
  ].flatMap((row, r) => row.map((text, c) => ({ row: r, col: c, rowSpan: 1, colSpan: 1, text, header: r === 0, bbox: box(50 + c * 200, 100 + r * 20, 180, 18) })));
  b.addTable({ page: 1, bbox: box(50, 100, 380, 40), rows: 2, cols: 2, cells, confidence: 1 });
  b.addTable({
    page: 1, bbox: null, rows: 2, cols: 2, confidence: 1,
    cells: [['Premium', '€ 310,00'], ['Excess', '€ 150,00']].flatMap((row, r) => row.map((text, c) => ({ row: r, col: c, rowSpan: 1, colSpan: 1, text }))),
  });
  const d2 = b.build();
  const r2 = await offline.extract({ doc: d2, chunks: [], fields: [{ name: 'reference', type: 'string' }, { name: 'policy_holder', type: 'string' }, { name: 'excess', type: 'number' }] });
  assert.deepEqual(r2.data, { reference: 'PX-9912', policy_holder: 'Jane Roe', excess: 150 });
  const ref = byField(r2.fieldResults).reference!.evidence!;
  assert.deepEqual(ref.bbox, box(50, 120, 180, 18));
  assert.equal(d2.text.slice(ref.span!.start, ref.span!.end), 'PX-9912');
});

test('offline: line items printed as aligned text (no table) are cut into the header columns', async () => {
  // character columns in a text-only document
  const text = textDoc('aligned', [
    [
      'Pos  Description                   Qty    Unit price     Amount',
      '1    Consulting, March             10       120.00     1,200.00',
      '     on-site workshop',
      '2    Travel expenses                1       310.50       310.50',
      '',
      'Total                                                  1,510.50',
    ].join('\n'),
  ]);
  const r1 = await offline.extract({ doc: text, chunks: [], fields: [LINE_ITEMS] });
  assert.deepEqual(r1.data.line_items, [
    { description: 'Consulting, March\non-site workshop', quantity: 10, unit_price: 120, amount: 1200 },
    { description: 'Travel expenses', quantity: 1, unit_price: 310.5, amount: 310.5 },
  ]);
  // separate positioned blocks, as a PDF reader gives them: header cells and values share rows by their top edge
  const b = new DocumentBuilder('blocks', 'blocks.pdf', 'pdf');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  const put = (t: string, x: number, y: number, h = 8) => b.addBlock({ type: 'paragraph', text: t, page: 1, bbox: box(x, y, t.length * 4, h), confidence: 1 });
  put('Menge', 60, 100);
  put('Beschreibung', 120, 100);
  put('Einzelpreis netto', 400, 100, 17); // wraps onto two lines
  put('Betrag', 500, 100);
  put('2', 64, 130);
  put('Webhosting Paket M', 120, 130);
  put('Laufzeit 05/2014', 120, 142);
  put('4,50', 410, 130);
  put('9,00', 505, 130);
  put('1', 64, 160);
  put('Domain .de', 120, 160);
  put('0,99', 410, 160);
  put('0,99', 505, 160);
  put('Gesamtbetrag 9,99', 380, 200);
  const blocks = b.build();
  const r2 = await offline.extract({ doc: blocks, chunks: [], fields: [LINE_ITEMS] });
  assert.deepEqual(r2.data.line_items, [
    { description: 'Webhosting Paket M\nLaufzeit 05/2014', quantity: 2, unit_price: 4.5, amount: 9 },
    { description: 'Domain .de', quantity: 1, unit_price: 0.99, amount: 0.99 },
  ]);
  const ev = r2.fieldResults[0]!.evidence!;
  assert.equal(blocks.text.slice(ev.span!.start, ev.span!.end), ev.text);
  assert.ok(r2.fieldResults[0]!.confidence > 0.3 && r2.fieldResults[0]!.confidence < 0.9);
});

test('offline: line items in a ruled table cut in two, the second part headerless with merged cells, and on the next page', async () => {
  // the shape a reader gives when a note line between rows breaks the ruling: the item table ends early, the
  // rest is another table whose first row is taken for a header and whose first cell spans description,
  // quantity and unit price; a last column split in two (VAT rate | amount); totals and payments after the items
  const b = new DocumentBuilder('split', 'split.pdf', 'pdf');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  b.addPage({ number: 2, width: 595, height: 842, ocr: false, confidence: 1 });
  const xs = [45, 275, 391, 460, 549];
  type C = { text: string; x0: number; x1: number };
  const table = (page: number, y: number, rows: C[][], header: boolean) => {
    const cols = rows[0]!.length;
    b.addTable({
      page, bbox: box(45, y, 504, rows.length * 15), rows: rows.length, cols, confidence: 0.8,
      cells: rows.flatMap((row, r) => row.map((c, col) => ({ row: r, col, rowSpan: 1, colSpan: 1, text: c.text, header: r === 0 && header, bbox: box(c.x0, y + r * 15, c.x1 - c.x0, 11) }))),
    });
  };
  const four = (...t: string[]): C[] => t.map((text, i) => ({ text, x0: xs[i]!, x1: xs[i + 1]! }));
  const three = (a: string, vat: string, amount: string): C[] => [{ text: a, x0: 45, x1: 468 }, { text: vat, x0: 468, x1: 503 }, { text: amount, x0: 503, x1: 549 }];
  b.addBlock({ type: 'heading', text: 'INVOICE', page: 1, bbox: box(45, 40, 100, 20), confidence: 1 });
  table(1, 248, [four('Article', 'Qty', 'Price each', 'Amount incl. VAT'), four('Tablet 10 inch, silver', '1', '€ 399,00', '21% € 399,00'), four('Copy levy €3.50', '1', '', '21% € 4,24')], true);
  b.addBlock({ type: 'key_value', text: 'Serial number: SN-42-0042', page: 1, bbox: box(56, 296, 110, 10), confidence: 1 });
  table(1, 310, [
    three('Leather cover 10 inch, black 1 € 69,99', '21%', '€ 69,99'),
    three('Game console XL 2 € 189,00', '21%', '€ 378,00'),
    three('Power adapter', '', ''),
  ], true);
  table(2, 60, [
    three('Racing game 1 € 44,99', '21%', '€ 44,99'),
    three('Excl. VAT € 735,42 Subtotal', '', '€ 889,86'),
    three('VAT 21% € 154,44', '', ''),
    three('Total', '', '€ 889,86'),
    three('Card payment on 21 April 2015', '', '€ 889,86'),
  ], false);
  const doc = b.build();
  const { data, fieldResults } = await offline.extract({ doc, chunks: [], fields: [LINE_ITEMS] });
  assert.deepEqual(data.line_items, [
    { description: 'Tablet 10 inch, silver', quantity: 1, unit_price: 399, amount: 399 },
    { description: 'Copy levy €3.50', quantity: 1, unit_price: null, amount: 4.24 },
    { description: 'Leather cover 10 inch, black', quantity: 1, unit_price: 69.99, amount: 69.99 },
    { description: 'Game console XL\nPower adapter', quantity: 2, unit_price: 189, amount: 378 },
    { description: 'Racing game', quantity: 1, unit_price: 44.99, amount: 44.99 },
  ]);
  const r = fieldResults[0]!;
  assert.equal(doc.text.slice(r.evidence!.span!.start, r.evidence!.span!.end), r.evidence!.text);
  assert.ok(r.confidence > 0.3 && r.confidence < 1, String(r.confidence));

  // a table further down that does not line up with the items is not joined
  const b2 = new DocumentBuilder('apart', 'apart.pdf', 'pdf');
  b2.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  const cells = (y: number, rows: C[][], header: boolean) => rows.flatMap((row, r) => row.map((c, col) => ({ row: r, col, rowSpan: 1, colSpan: 1, text: c.text, header: r === 0 && header, bbox: box(c.x0, y + r * 15, c.x1 - c.x0, 11) })));
  b2.addTable({ page: 1, bbox: box(45, 248, 504, 30), rows: 2, cols: 4, confidence: 0.8, cells: cells(248, [four('Article', 'Qty', 'Price each', 'Amount'), four('Tablet', '1', '€ 399,00', '€ 399,00')], true) });
  b2.addTable({ page: 1, bbox: box(45, 500, 300, 15), rows: 1, cols: 2, confidence: 0.8, cells: cells(500, [[{ text: 'Bank transfer 14 days', x0: 45, x1: 200 }, { text: '€ 12,00', x0: 200, x1: 300 }]], false) });
  const apart = await offline.extract({ doc: b2.build(), chunks: [], fields: [LINE_ITEMS] });
  assert.deepEqual(apart.data.line_items, [{ description: 'Tablet', quantity: 1, unit_price: 399, amount: 399 }]);
});

test('offline: aligned line items where the reader joined a right-aligned quantity to its description', async () => {
  const b = new DocumentBuilder('joined', 'joined.pdf', 'pdf');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  const put = (t: string, x: number, y: number, h = 8) => b.addBlock({ type: 'paragraph', text: t, page: 1, bbox: box(x, y, t.length * 4, h), confidence: 1 });
  put('Pos.', 66, 100);
  put('Qty', 126, 100);
  put('Description', 150, 100);
  put('Unit price', 470, 100);
  put('Amount', 530, 100);
  put('1', 79, 130);
  put('1 Mailbox Standard 2010', 134, 130); // "1" ends under "Qty", the rest is the description
  put('Base fee per unit', 150, 142);
  put('3,89', 480, 130);
  put('3,89', 540, 130);
  put('2', 79, 160);
  put('12 Backup storage 50 GB', 130, 160);
  put('0,50', 480, 160);
  put('6,00', 540, 160);
  put('Total EUR 9,89', 440, 200);
  const doc = b.build();
  const { data, fieldResults } = await offline.extract({ doc, chunks: [], fields: [LINE_ITEMS] });
  assert.deepEqual(data.line_items, [
    { description: 'Mailbox Standard 2010\nBase fee per unit', quantity: 1, unit_price: 3.89, amount: 3.89 },
    { description: 'Backup storage 50 GB', quantity: 12, unit_price: 0.5, amount: 6 },
  ]);
  const ev = fieldResults[0]!.evidence!;
  assert.equal(doc.text.slice(ev.span!.start, ev.span!.end), ev.text);
});

test('offline: a field the document does not have is null with confidence 0 and no evidence', async () => {
  const { data, fieldResults } = await offline.extract({ doc: invoiceDoc(), chunks: [], fields: [{ name: 'shipping_date', type: 'date' }, { name: 'tracking_code', type: 'string' }] });
  assert.deepEqual(data, { shipping_date: null, tracking_code: null });
  for (const r of fieldResults) assert.deepEqual([r.value, r.confidence, r.evidence], [null, 0, null]);
});

test('offline: conflicting candidates lower the confidence', async () => {
  const field: FieldDefinition[] = [{ name: 'total', type: 'number' }];
  const one = await offline.extract({ doc: textDoc('one', ['Total: 100.00']), chunks: [], fields: field });
  const two = await offline.extract({ doc: textDoc('two', ['Total: 100.00', 'Total: 120.00']), chunks: [], fields: field });
  const same = await offline.extract({ doc: textDoc('same', ['Total: 100.00', 'Total: 100.00']), chunks: [], fields: field });
  const [c1, c2, c3] = [one, two, same].map((r) => r.fieldResults[0]!.confidence);
  assert.ok(c2 < c1 * 0.8, `conflict ${c2} vs single ${c1}`);
  assert.ok(c3 >= c1, `agreement ${c3} vs single ${c1}`);
});

test('offline: dates and numbers in several formats, day/month order from the document', async () => {
  const doc = textDoc('fmt', [
    'Order date: 7. Mai 2014',
    'Delivery date: Mar 12, 2024',
    'Payment date: 2024-03-15',
    'Issue date: 05/04/2024',
    'Reminder date: 28/04/2024',
    'Net amount: 1.234,56 EUR',
    'Discount: (12.00)',
    'Deposit: USD 1,000',
  ]);
  const { data } = await offline.extract({
    doc,
    chunks: [],
    fields: [
      { name: 'order_date', type: 'date' },
      { name: 'delivery_date', type: 'date' },
      { name: 'payment_date', type: 'date' },
      { name: 'issue_date', type: 'date' },
      { name: 'net_amount', type: 'number' },
      { name: 'discount', type: 'number' },
      { name: 'deposit', type: 'number' },
    ],
  });
  // 28/04/2024 shows the document writes day first, so 05/04/2024 is 5 April
  assert.deepEqual(data, { order_date: '2014-05-07', delivery_date: '2024-03-12', payment_date: '2024-03-15', issue_date: '2024-04-05', net_amount: 1234.56, discount: -12, deposit: 1000 });
});

test('offline: booleans from checkboxes and yes/no', async () => {
  const doc = textDoc('bool', ['☒ Paid', '☐ Shipped', 'Signed: Yes', 'Gift wrap [ ]']);
  const { data, fieldResults } = await offline.extract({
    doc,
    chunks: [],
    fields: [{ name: 'paid', type: 'boolean' }, { name: 'shipped', type: 'boolean' }, { name: 'signed', type: 'boolean' }, { name: 'gift_wrap', type: 'boolean' }],
  });
  assert.deepEqual(data, { paid: true, shipped: false, signed: true, gift_wrap: false });
  const rs = byField(fieldResults);
  assert.equal(rs.paid!.evidence!.text, '☒');
  assert.equal(rs.signed!.evidence!.text, 'Yes');
});

test('offline: object fields by property, arrays of strings from a list', async () => {
  const b = new DocumentBuilder('cv', 'cv.docx', 'docx');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Name: Ada Lovelace\nEmail: ada@example.org\nPhone: +44 20 7946 0958', page: 1, bbox: null, confidence: 1 });
  b.addBlock({ type: 'heading', text: 'Skills', page: 1, bbox: null, confidence: 1, level: 2 });
  for (const s of ['Mathematics', 'Analytical engines', 'Technical writing']) b.addBlock({ type: 'list_item', text: s, page: 1, bbox: null, confidence: 1 }, '\n');
  const doc = b.build();
  const { data, fieldResults } = await offline.extract({
    doc,
    chunks: [],
    fields: [
      { name: 'contact', type: 'object', properties: { name: { name: 'name', type: 'string' }, email: { name: 'email', type: 'string' }, phone: { name: 'phone', type: 'string' } } },
      { name: 'skills', type: 'array', items: { name: 'skill', type: 'string' } },
    ],
  });
  assert.deepEqual(data.contact, { name: 'Ada Lovelace', email: 'ada@example.org', phone: '+44 20 7946 0958' });
  assert.deepEqual(data.skills, ['Mathematics', 'Analytical engines', 'Technical writing']);
  const skills = byField(fieldResults).skills!.evidence!;
  assert.equal(skills.text, 'Mathematics\nAnalytical engines\nTechnical writing');
});

test('offline: key_value blocks are read with their key', async () => {
  const b = new DocumentBuilder('kv', 'kv.html', 'html');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  b.addBlock({ type: 'key_value', text: 'Policy number: ZX-001-77', key: 'Policy number', value: 'ZX-001-77', page: 1, bbox: box(40, 40, 200, 12), confidence: 1 });
  const doc = b.build();
  const { fieldResults } = await offline.extract({ doc, chunks: [], fields: [{ name: 'policy_number', type: 'string' }] });
  assert.equal(fieldResults[0]!.value, 'ZX-001-77');
  assert.equal(fieldResults[0]!.evidence!.text, 'ZX-001-77');
  assert.deepEqual(fieldResults[0]!.evidence!.bbox, box(40, 40, 200, 12));
});

test('agentic: regions, per-region extraction, merge and validation emit events and check totals', async () => {
  const doc = invoiceDoc();
  const fields = [...INVOICE_FIELDS, LINE_ITEMS];
  const events: ExtractionEvent[] = [];
  const normal = await offline.extract({ doc, chunks: [], fields });
  const agentic = await offline.extract({ doc, chunks: [], fields, settings: { agenticExtractionMode: true }, onEvent: (e) => events.push(e) });
  assert.deepEqual(agentic.data, normal.data);
  const progress = events.filter((e) => e.type === 'progress').map((e) => (e as { progress: number }).progress);
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'progress only grows');
  assert.equal(progress.at(-1), 100);
  const chunkDone = events.filter((e) => e.type === 'chunk_done');
  assert.ok(chunkDone.length >= 3, `one chunk_done per region (${chunkDone.length})`);
  const regions = chunkDone.map((e) => ((e as any).partial_data as { region: string }).region);
  assert.ok(regions.includes('table') && regions.includes('totals') && regions.includes('header'), regions.join(','));
  const extracted = events.filter((e) => e.type === 'field_extracted');
  assert.deepEqual(extracted.map((e) => (e as any).field.fieldName), fields.map((f) => f.name));
  // 1285.50 + 257.10 = 1542.60 and the rows add up to the subtotal: confidence goes up, not down
  const [n, a] = [byField(normal.fieldResults), byField(agentic.fieldResults)];
  for (const k of ['subtotal', 'tax', 'total', 'line_items']) assert.ok(a[k]!.confidence > n[k]!.confidence, `${k}: ${a[k]!.confidence} > ${n[k]!.confidence}`);

  // numbers that do not add up lower the confidence of all three
  const bad = textDoc('bad', ['Invoice No: 1', 'Subtotal: 100.00', 'Tax: 20.00', 'Total: 150.00']);
  const f3: FieldDefinition[] = [{ name: 'subtotal', type: 'number' }, { name: 'tax', type: 'number' }, { name: 'total', type: 'number' }];
  const bn = byField((await offline.extract({ doc: bad, chunks: [], fields: f3 })).fieldResults);
  const ba = byField((await offline.extract({ doc: bad, chunks: [], fields: f3, settings: { agenticExtractionMode: true } })).fieldResults);
  for (const k of ['subtotal', 'tax', 'total']) assert.ok(ba[k]!.confidence < bn[k]!.confidence * 0.8, `${k}: ${ba[k]!.confidence} vs ${bn[k]!.confidence}`);
});

test('agentic: merge prefers the combination where subtotal + tax = total', async () => {
  // two "Total" lines; only one is consistent with subtotal and tax
  const doc = textDoc('merge', ['Subtotal: 80.00', 'Tax: 16.00', 'Total: 69.00', 'Total: 96.00']);
  const fields: FieldDefinition[] = [{ name: 'subtotal', type: 'number' }, { name: 'tax', type: 'number' }, { name: 'total', type: 'number' }];
  const r = await offline.extract({ doc, chunks: [], fields, settings: { agenticExtractionMode: true } });
  assert.equal(r.data.total, 96);
});

test('abort: an aborted signal stops with an AbortError', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(offline.extract({ doc: invoiceDoc(), chunks: [], fields: INVOICE_FIELDS, signal: ac.signal }), (e: Error) => e.name === 'AbortError');
  const ac2 = new AbortController();
  let n = 0;
  await assert.rejects(
    offline.extract({ doc: invoiceDoc(), chunks: [], fields: INVOICE_FIELDS, settings: { agenticExtractionMode: true }, signal: ac2.signal, onEvent: (e) => e.type === 'chunk_done' && ++n === 2 && ac2.abort() }),
    (e: Error) => e.name === 'AbortError',
  );
});

test('invalid field definitions are a validation error', async () => {
  await assert.rejects(offline.extract({ doc: invoiceDoc(), chunks: [], fields: [{ name: 'x', type: 'money' as any }] }), /type must be one of/);
  await assert.rejects(offline.extract({ doc: invoiceDoc(), chunks: [], fields: [{ name: 'x', type: 'string' }, { name: 'x', type: 'number' }] }), /used twice/);
});

test('suggestFields: key-values and tables with names, inferred types and reasons', async () => {
  const fields = await offline.suggestFields!(invoiceDoc());
  const by = Object.fromEntries(fields.map((f) => [f.name, f]));
  assert.equal(by.invoice_number?.type, 'string');
  assert.equal(by.date?.type, 'date');
  assert.equal(by.due_date?.type, 'date');
  assert.equal(by.total?.type, 'number');
  assert.equal(by.iban?.type, 'string');
  assert.match(by.invoice_number!.suggestionReason, /label "Invoice No" on page 1/);
  const table = fields.find((f) => f.type === 'array')!;
  assert.equal(table.name, 'line_items');
  assert.deepEqual(Object.fromEntries(Object.entries(table.items!.properties!).map(([k, v]) => [k, v.type])), { description: 'string', qty: 'number', unit_price: 'number', amount: 'number' });
  assert.match(table.suggestionReason, /table on page 1 with 3 rows/);
});

test('plugin: definePlugin manifest and create() with a context', async () => {
  assert.equal(plugin.kind, 'extractor');
  assert.equal(plugin.name, 'layout');
  const ctx = pluginContext(plugin, { dataDir: os.tmpdir() });
  const ex = await plugin.create(ctx);
  const r = await ex.extract({ doc: textDoc('p', ['Total: $ 12.00']), chunks: [], fields: [{ name: 'total', type: 'number' }] });
  assert.equal(r.data.total, 12);
  assert.deepEqual(await ex.health!(), { ok: true, message: 'layout extraction (offline)' });
  void wordsOf;
});

/** One paragraph whose lines are the given lines (a plain-text document read without key-value detection). */
function plainDoc(id: string, lines: string[]): ParsedDocument {
  const b = new DocumentBuilder(id, `${id}.txt`, 'txt');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: lines.join('\n'), page: 1, bbox: null, confidence: 1 });
  return b.build();
}
const run = async (doc: ParsedDocument, fields: FieldDefinition[]) => {
  const r = await offline.extract({ doc, chunks: [], fields });
  return { data: r.data, conf: Object.fromEntries(r.fieldResults.map((f) => [f.field, f.confidence])) };
};
const TOTAL: FieldDefinition = { name: 'total', type: 'number' };

test('total: the amount labelled total, not an item count, subtotal, tax, cash tendered or change', async () => {
  const a = await run(textDoc('t1', ['Invoice No: 881', 'Total items: 42', 'Subtotal: 264.00', 'Tax: 15.84', 'Total: 279.84']), [TOTAL]);
  assert.equal(a.data.total, 279.84);
  const b = await run(textDoc('t2', ['Subtotal: $24.99', 'Shipping: $5.00', 'Total: $29.99']), [TOTAL]);
  assert.equal(b.data.total, 29.99);
  const c = await run(textDoc('t2b', ['Total: $29.99', 'Sub Total 24.99']), [TOTAL]);
  assert.equal(c.data.total, 29.99);
  // a receipt: quantity line, totals excluding and including tax, cash and change, a tax summary row
  const r = await run(plainDoc('t3', ['Total Qty: 3', 'Total Sales (Excluding GST) : 28.00', 'Total GST : 1.68', 'Rounding : 0.00', 'Total Sales (Inclusive of GST) : 29.68', 'CASH : 50.00', 'Change : 20.32', 'GST SUMMARY', 'Tax Code % Amt Tax', 'SR 6 28.00 1.68', 'Total : 28.00 1.68']), [TOTAL]);
  assert.equal(r.data.total, 29.68);
});

test('total: the rounded total when the receipt prints one or its rounding adjustment', async () => {
  // printed under the adjustment with a plain label
  const a = await run(plainDoc('r1', ['Total RM Incl. of GST 14.64', 'Rounding Adj 0.01', 'Total RM 14.65', 'Cash 50.00', 'Change 35.35']), [TOTAL]);
  assert.equal(a.data.total, 14.65);
  // "Total After Adj" is the rounded total even when the label also names the tax
  const b = await run(plainDoc('r2', ['Total Sales Incl GST 88.97', 'Rounding Adj -0.02', 'Total After Adj Incl GST 88.95', 'CASH 100.00']), [TOTAL]);
  assert.equal(b.data.total, 88.95);
  // the rounded-total line lost: the total plus the adjustment (its sign read from cash rounding to 0.05)
  const c = await run(plainDoc('r3', ['Total (Inclusive of GST): 48.16', 'Rounding Adj: -0.01', 'CASH : 50.00', 'CHANGE : 1.85']), [TOTAL]);
  assert.equal(c.data.total, 48.15);
  const d = await run(plainDoc('r4', ['Total (Inclusive of GST): 65.53', 'Rounding Adj: 0.02']), [TOTAL]);
  assert.equal(d.data.total, 65.55);
  assert.ok(d.conf.total! < 0.8, `a computed total is not given as certain (${d.conf.total})`);
  // a zero adjustment changes nothing, and a tax-summary "Total" further down stays a summary row
  const e = await run(plainDoc('r5', ['Total Sales (Excluding GST) : 120.00', 'TotalGST : 7.20', 'Rounding : 0.00', 'Total Sales (Inclusive of GST) : 127.20', 'CASH : 150.00', 'Change : 22.80', 'GST Summary', 'Total : 120.00']), [TOTAL]);
  assert.equal(e.data.total, 127.2);
});

test('total: a currency-prefixed amount whose decimal point OCR lost ("RM8 60", "RM3O 00")', async () => {
  const a = await run(plainDoc('s1', ['Sub Total = RM8.60', 'Total Sales Incl GST @ 6% RM8 60', 'Cash 8.60 Tendered 9.00 Change 0.40']), [TOTAL]);
  assert.equal(a.data.total, 8.6);
  const b = await run(plainDoc('s2', ['Item RM12.50', 'Item RM17.50', 'TOTAL RM3O 00']), [TOTAL]);
  assert.equal(b.data.total, 30);
});

test('total: a plain-text invoice gives its total; no total label gives null', async () => {
  const doc = plainDoc('t4', ['INVOICE', 'Acme Supplies Ltd', 'Invoice #: A-1001', 'Date: 2024-03-15', '', 'Widget x 2        20.00', 'Gadget x 1        15.50', '', 'Subtotal          35.50', 'VAT 20%            7.10', 'TOTAL DUE     EUR 42.60']);
  const r = await run(doc, [TOTAL, { name: 'invoice_number', type: 'string' }, { name: 'date', type: 'date' }]);
  assert.equal(r.data.total, 42.6);
  assert.equal(r.data.invoice_number, 'A-1001');
  assert.equal(r.data.date, '2024-03-15');
  const none = await run(plainDoc('t5', ['Meeting notes', 'We bought 3 chairs for the office.', 'Next meeting on Monday.']), [TOTAL]);
  assert.equal(none.data.total, null);
  assert.equal(none.conf.total, 0);
});

test('total: confidence falls when two totals compete, and rises with the receipt arithmetic', async () => {
  const one = await run(textDoc('c1', ['Item A 20.00', 'Item B 30.00', 'Total: 50.00']), [TOTAL]);
  const two = await run(textDoc('c2', ['Item A 20.00', 'Total: 50.00', 'Item B 10.00', 'Total: 60.00']), [TOTAL]);
  assert.equal(one.data.total, 50);
  assert.equal(two.data.total, 60);
  assert.ok(two.conf.total! < one.conf.total!, `${two.conf.total} < ${one.conf.total}`);
  const checked = await run(textDoc('c3', ['Item A 20.00', 'Item B 30.00', 'Total: 50.00', 'Cash: 100.00', 'Change: 50.00']), [TOTAL]);
  assert.ok(checked.conf.total! > one.conf.total!, `${checked.conf.total} > ${one.conf.total}`);
});

test('total: cash tendered less the change when the printed total is unreadable, never above a legible total', async () => {
  // the total's label is unreadable: 50.00 − 20.01, given below certainty (derived, not printed)
  const a = await run(plainDoc('k1', ['KEDAI MAKAN', 'NASI LEMAK 12.00', 'TEH TARIK 17.99', '~ ,. 29.99', 'CASH 50.00', 'CHANGE 20.01']), [TOTAL]);
  assert.equal(a.data.total, 29.99);
  assert.ok(a.conf.total! > 0 && a.conf.total! < 0.8, `derived total confidence ${a.conf.total}`);
  // nothing printed where the total was
  const b = await run(plainDoc('k2', ['KEDAI MAKAN', 'NASI LEMAK 12.00', 'TEH TARIK 17.99', 'CASH 50.00', 'CHANGE 20.01']), [TOTAL]);
  assert.equal(b.data.total, 29.99);
  assert.ok(b.conf.total! < 0.8, `derived total confidence ${b.conf.total}`);
  // a legible grand total wins over tendered − change
  const c = await run(plainDoc('k3', ['KEDAI MAKAN', 'NASI LEMAK 12.00', 'TEH TARIK 15.50', 'GRAND TOTAL 27.50', 'CASH 50.00', 'CHANGE 20.01']), [TOTAL]);
  assert.equal(c.data.total, 27.5);
  // a printed total larger than the cash that was paid with change back is a misreading
  const d = await run(plainDoc('k4', ['KEDAI MAKAN', 'PLASTER 3.70', 'Total Sales (Inclusive GST) 93.70', 'CASH 10.00', 'CHANGE 6.30']), [TOTAL]);
  assert.equal(d.data.total, 3.7);
  assert.ok(d.conf.total! < 0.8, `derived total confidence ${d.conf.total}`);
});

test('date: the date under the date label, not under another label', async () => {
  const r = await run(textDoc('d1', ['Invoice No: 77', 'Due Date: 2024-03-18', 'Invoice Date: 2024-03-15', 'Total: 10.00']), [{ name: 'date', type: 'date', description: 'Invoice date' }]);
  assert.equal(r.data.date, '2024-03-15');
});

test('identifier: the full printed token ("# invoice_number_1", "#BLR_WFLD20151000982590")', async () => {
  const r = await run(textDoc('i1', ['Invoice # invoice_number_1', 'Date: 2024-01-02']), [{ name: 'invoice_number', type: 'string' }]);
  assert.equal(r.data.invoice_number, 'invoice_number_1');
  const b = await run(textDoc('i2', ['Booking ID: #BLR_WFLD20151000982590']), [{ name: 'booking_id', type: 'string' }]);
  assert.equal(b.data.booking_id, '#BLR_WFLD20151000982590');
});

test('issuer: the top-most name line, not the address, phone or registration number', async () => {
  const company: FieldDefinition = { name: 'company', type: 'string', description: 'Company name' };
  const a = await run(plainDoc('s1', ['SANYU STATIONERY SHOP', 'NO. 31G&33G, JALAN SETIA INDAH X ,U13/X', '40170 SETIA ALAM', 'Mobile /Whatsapps : +6012-918 7937', 'Tel: +603-3362 4137', 'GST Reg No: 001531760640', 'TAX INVOICE', 'Total: 12.00']), [company]);
  assert.equal(a.data.company, 'SANYU STATIONERY SHOP');
  const b = await run(plainDoc('s2', ['TAX INVOICE', 'LIM SENG THO HARDWARE TRADING', 'No 7, Simpang Off Batu Village', 'Company Reg No. (002231061-T)', 'Total: 7.00']), [company]);
  assert.equal(b.data.company, 'LIM SENG THO HARDWARE TRADING');
  // a legal form printed on the line below the name joins it; the registration number is cut off
  const c = await run(plainDoc('s3', ['POPULAR BOOK', 'CO. (M) SDN BHD (113825-W)', 'No 8, Jalan 7/118B, 56000 Kuala Lumpur']), [company]);
  assert.equal(c.data.company, 'POPULAR BOOK CO. (M) SDN BHD');
  // a brand or shop name above the registered company: the registered name (its legal form) is the issuer
  const e = await run(plainDoc('s5', ['KIKU JAPANESE RESTAURANT', 'TK DIVISION KITCHEN SDN BHD 1202152-P', '19-1, JALAN MALINJA 2, 53100 SETAPAK', 'Total: 12.00']), [company]);
  assert.equal(e.data.company, 'TK DIVISION KITCHEN SDN BHD');
  // nothing that reads as a name: null, not a guess
  const d = await run(plainDoc('s4', ['12/03/2018 10:22', 'Tel: 03-1234 5678', '53000 KUALA LUMPUR']), [company]);
  assert.equal(d.data.company, null);
});

test('total: the cash-rounded total printed below the unrounded one, the amount paid by card, a total below its own line amount', async () => {
  // the rounding adjustment's cents lost by OCR; the rounded amount under "Rounding" is the total, not the grand total above it
  const a = await run(plainDoc('g1', ['Total Sales (Inclusive GST) RM 45.34', 'Rounding Adjustment RM 01', 'Rounding RM 45.35', 'CASH RM 50.00']), [TOTAL]);
  assert.equal(a.data.total, 45.35);
  // the total's amount lost with its line; the card is charged the exact total (no change given), loyalty points are no total
  const b = await run(plainDoc('g2', ['PETROL 30.00', 'SNACK 11.95', 'TOTAL AMOUNT PAYABLE', 'RN 41.95% EDC MASTER RM 41.95', 'AWARD Balance 412']), [TOTAL]);
  assert.equal(b.data.total, 41.95);
  assert.ok(b.conf.total! < 0.8, `a card payment is a weak total (${b.conf.total})`);
  // with change given, cash is not the total
  const c = await run(plainDoc('g3', ['PETROL 30.00', 'CASH RM 50.00', 'CHANGE RM 8.05', 'VISA RM 41.95']), [TOTAL]);
  assert.equal(c.data.total, 41.95);
  // printed totals below a line amount above them are misread; the cash arithmetic gives the total
  const d = await run(plainDoc('g4', ['NON STICK PAN 1 25.40', 'SPATULA 1 10.40', 'TOTAL SALES INCLUSIVE GST 5.50', 'TOTAL PAYABLE AMOUNT 5.90', 'CASH 50.00', 'CHANGE 14.20']), [TOTAL]);
  assert.equal(d.data.total, 35.8);
  assert.ok(d.conf.total! < 0.8, `derived total confidence ${d.conf.total}`);
});

test('date: a date OCR glued to its label or split after a separator', async () => {
  const DATE: FieldDefinition = { name: 'date', type: 'date' };
  const a = await run(plainDoc('dd1', ['KING CONFECTIONERY', 'Tax Invoice Inv No KSB80051978 Dater11/03/18 21:30', 'Total 25.15']), [DATE]);
  assert.equal(a.data.date, '2018-03-11');
  const b = await run(plainDoc('dd2', ['HARDWARE SDN BHD', 'TOTAL RM 38.80', '- 28-03- 18 18:05 SH01 ZJ42']), [DATE]);
  assert.equal(b.data.date, '2018-03-28');
  // an address ("JLN 1/50") and amounts stay what they are
  const c = await run(plainDoc('dd3', ['NO 1, JLN 1/50', 'TOTAL 12.30 15.00']), [DATE]);
  assert.equal(c.data.date, null);
  // a 0 read as 6 or 8 where the printed day or month cannot be one, the separators of a ten-digit run read as 7 or 1
  const d = await run(plainDoc('dd4', ['HARDWARE TRADING', 'Date 69/02/2018 11:40 Cashier # LST', 'Total 7.00']), [DATE]);
  assert.equal(d.data.date, '2018-02-09');
  const e = await run(plainDoc('dd5', ['BOOK CO', '61/03/18 12:36 Slip No.: 070058756', 'Total RM 4.00']), [DATE]);
  assert.equal(e.data.date, '2018-03-01');
  const f = await run(plainDoc('dd6', ['KEDAI PAPAN', 'Doc No C800010930 Date: 1770372018', 'Total 174.90']), [DATE]);
  assert.equal(f.data.date, '2018-03-17');
  assert.ok(f.conf.date! < 0.8, `a repaired date is read with less certainty (${f.conf.date})`);
  // a phone number, an invoice number or a day and month both over 31 stay what they are
  const g = await run(plainDoc('dd7', ['TEL 0176057770', 'Inv 2017032019', 'Ref 66/88/2018', 'Total 3.00']), [DATE]);
  assert.equal(g.data.date, null);
});

test('receipt: the shop name at the top is the merchant, the "owned by" company its legal entity', async () => {
  const fields: FieldDefinition[] = [{ name: 'company', type: 'string', description: 'Company name' }, { name: 'legal_entity', type: 'string' }];
  const a = await run(plainDoc('o1', ['KEDAI RUNCIT MAJU JAYA', 'Owned by MAJU JAYA HOLDINGS SDN BHD (123456-X)', 'NO 12, JALAN BESAR, 43000 KAJANG', 'GST ID : 000123456789', 'TAX INVOICE', 'Total 8.20']), fields);
  assert.equal(a.data.company, 'KEDAI RUNCIT MAJU JAYA');
  assert.equal(a.data.legal_entity, 'MAJU JAYA HOLDINGS SDN BHD');
  // the label on its own line, the registered name on the next; the name does not join the shop name
  const b = await run(plainDoc('o2', ['SUNRISE BAKERY', 'OPERATED BY:', 'GOLDEN GRAIN SDN BHD', 'Tel: 03-1234 5678', 'Total 12.35']), fields);
  assert.equal(b.data.company, 'SUNRISE BAKERY');
  assert.equal(b.data.legal_entity, 'GOLDEN GRAIN SDN BHD');
  // another language through the lexicon
  const c = await run(plainDoc('o3', ['WARUNG SEDAP', 'Dimiliki oleh SEDAP MAKAN ENTERPRISE', 'Jumlah 5.00']), fields);
  assert.equal(c.data.company, 'WARUNG SEDAP');
  assert.equal(c.data.legal_entity, 'SEDAP MAKAN ENTERPRISE');
  // an OCR near miss of the label ("Owncd")
  const e = await run(plainDoc('o5', ['KEDAI BUKU CERIA', '(Owncd by CERIA BOOKS SDN BHD)', 'Total 5.00']), fields);
  assert.equal(e.data.company, 'KEDAI BUKU CERIA');
  assert.equal(e.data.legal_entity, 'CERIA BOOKS SDN BHD');
  // a word near a one-word label is no label ("MILK" is not "milik"): the line below it stays a name
  const f = await run(plainDoc('o6', ['MILK', 'SUSU SEGAR ENTERPRISE', 'Total 5.00']), fields);
  assert.equal(f.data.company, 'SUSU SEGAR ENTERPRISE');
  // no owner label: no legal entity made up
  const d = await run(plainDoc('o4', ['CAFE LUNA', 'Total 7.70']), fields);
  assert.equal(d.data.legal_entity, null);
});

test('receipt total: the final payable amount after rounding and discounts, never digits of an ID or phone line', async () => {
  // rounding line after the total, then the final total
  const a = await run(plainDoc('f1', ['BREAD 3.50', 'MILK 4.71', 'Total 8.21', 'Rounding Adj -0.01', 'Final Total 8.20', 'CASH 10.00', 'CHANGE 1.80']), [TOTAL]);
  assert.equal(a.data.total, 8.2);
  // a discount after the total
  const b = await run(plainDoc('f2', ['CAFE LUNA', 'Total 8.21', 'Discount 0.50', 'Final Total 7.71', 'GST ID No 000658952704']), [TOTAL]);
  assert.equal(b.data.total, 7.71);
  // a total label whose amount is missing: the GST ID or phone number below it is no amount
  for (const [i, line] of ['GST ID: 000658952704', 'GST REG NO: 000658952704', 'Tel 0312345678', 'Company No. 1234567'].entries()) {
    const r = await run(plainDoc(`f3${i}`, ['SHOP', 'TOTAL', line, 'Thank you']), [TOTAL]);
    assert.equal(r.data.total, null, line);
  }
  const c = await run(plainDoc('f4', ['SHOP', 'GST ID: 000658952704', 'TOTAL : 8.70', 'Tel: 03-1234 5678']), [TOTAL]);
  assert.equal(c.data.total, 8.7);
  // the total before cash rounding printed as "Total:" above the rounded one, and a tax summary's total row below
  const g = await run(plainDoc('f7', ['Subtotal 87.80', 'Total: 102.39', 'Total 102.40', 'GST Summary Amount Tax', 'Total 96.60 5.79']), [TOTAL]);
  assert.equal(g.data.total, 102.4);
  // labels of other languages through the lexicon
  const d = await run(plainDoc('f5', ['PASAR MINI', 'Jumlah kecil 10.00', 'Jumlah perlu dibayar 10.60', 'Tunai 20.00']), [TOTAL]);
  assert.equal(d.data.total, 10.6);
  const e = await run(plainDoc('f6', ['WINKEL', 'Subtotaal 10,00', 'BTW 2,10', 'Te betalen 12,10']), [TOTAL]);
  assert.equal(e.data.total, 12.1);
});
