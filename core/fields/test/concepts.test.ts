import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONCEPTS, coerceValue, conceptOf, conceptsOfPhrase, conceptsOfWords, snakeCase, tokenize, words } from '@quire/fields';

test('conceptOf: by the field name, a label inside it, then the description', () => {
  assert.equal(conceptOf({ name: 'invoice_number', type: 'string' })?.id, 'invoice_number');
  assert.equal(conceptOf({ name: 'invoiceTotal', type: 'number' })?.id, 'total');
  assert.equal(conceptOf({ name: 'total_amount_due', type: 'number' })?.id, 'total');
  assert.equal(conceptOf({ name: 'x1', type: 'string', description: 'Seller company' })?.id, 'vendor');
  assert.equal(conceptOf({ name: 'favourite_colour', type: 'string' }), undefined);
  assert.ok(CONCEPTS.every((c) => c.labels.length > 0));
});

test('label tokens and phrases: "No."/"#" read as number, accents folded', () => {
  assert.deepEqual(words('Invoice No.'), ['invoice', 'number']);
  assert.deepEqual(tokenize('Rechnungs-Nr #').map((t) => t.t), ['rechnungs', 'number', 'number']);
  assert.deepEqual(conceptsOfPhrase('Due Date'), ['due_date']);
  assert.deepEqual(conceptsOfWords(words('Fälligkeitsdatum')), ['due_date']);
  assert.deepEqual(conceptsOfWords(['no', 'such', 'label']), []);
});

test('snakeCase: field names from printed labels', () => {
  assert.equal(snakeCase('Invoice No.'), 'invoice_no');
  assert.equal(snakeCase('Total (incl. VAT)'), 'total_incl_vat');
  assert.equal(snakeCase('Order #'), 'order_number');
  assert.equal(snakeCase('2024 revenue'), 'field_2024_revenue');
  assert.equal(snakeCase('***'), 'field');
});

test('coerceValue: loosely typed answers to the field type, clean or read out of text', () => {
  assert.deepEqual(coerceValue('1.234,56', { name: 'total', type: 'number' }), { value: 1234.56, clean: true });
  assert.deepEqual(coerceValue('about 42 EUR', { name: 'total', type: 'number' }), { value: 42, clean: false });
  assert.deepEqual(coerceValue('March 3, 2024', { name: 'date', type: 'date' }), { value: '2024-03-03', clean: true });
  assert.deepEqual(coerceValue('yes', { name: 'signed', type: 'boolean' }), { value: true, clean: true });
  assert.deepEqual(coerceValue(['a', 2], { name: 'tags', type: 'array', items: { name: 'tag', type: 'string' } }), { value: ['a', '2'], clean: true });
  assert.deepEqual(coerceValue('', { name: 'x', type: 'string' }), { value: null, clean: true });
});

test('the lexicon: one source of labels in other languages for chat and the field concepts', async () => {
  const { LEXICON, lexiconIn } = await import('@quire/fields');
  assert.ok(LEXICON.some((e) => e.id === 'invoice_number' && e.labels.nl?.includes('factuurnummer')));
  // its labels join the concept each entry names
  assert.deepEqual(conceptsOfPhrase('Te betalen'), ['total']);
  assert.deepEqual(conceptsOfPhrase('Jumlah'), ['total']);
  assert.deepEqual(conceptsOfPhrase('Owned by'), ['legal_entity']);
  assert.deepEqual(conceptsOfPhrase('Dimiliki oleh'), ['legal_entity']);
  assert.equal(conceptOf({ name: 'legal_entity', type: 'string' })?.id, 'legal_entity');
  assert.equal(conceptOf({ name: 'company', type: 'string' })?.id, 'vendor');
  // which total a label announces
  assert.ok(lexiconIn(words('Totaal te betalen')).some((e) => e.kind === 'grand'));
  assert.ok(lexiconIn(words('Final Total')).some((e) => e.kind === 'grand'));
  assert.ok(lexiconIn(words('Sous-total')).some((e) => e.kind === 'subtotal'));
});
