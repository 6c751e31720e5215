import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STOP_WORDS, letterDigitRuns, round, stem } from '@quire/text';

test('stem: plurals, -ing, -ed, -ies meet; numbers and short words stay', () => {
  assert.equal(stem('invoices'), stem('invoice'));
  assert.equal(stem('payments'), stem('payment'));
  assert.equal(stem('hired'), stem('hires'));
  assert.equal(stem('running'), 'run');
  assert.equal(stem('policies'), 'policy');
  assert.equal(stem('2024'), '2024');
  assert.equal(stem('bus'), 'bus');
});

test('stop words: function words only, in the tokenisers\' form', () => {
  for (const w of ['the', 'of', 'and', 'without', 'many', 'much', 'dont']) assert.ok(STOP_WORDS.has(w), w);
  for (const w of ['invoice', 'total', 'payment', 'date']) assert.ok(!STOP_WORDS.has(w), w);
  for (const w of STOP_WORDS) assert.match(w, /^[a-z]+$/, 'lower case letters only: the tokenisers never produce anything else');
});

test('round: 2 decimals by default, or as many as asked', () => {
  assert.equal(round(1.23456), 1.23);
  assert.equal(round(1.23456, 3), 1.235);
  assert.equal(round(0.123456, 4), 0.1235);
  assert.equal(round(-2.5), -2.5);
  assert.equal(round(12.345, 0), 12);
});

test('synonyms: question phrasing meets document phrasing, by stem, both ways', async () => {
  const { synonymsOf } = await import('@quire/text');
  assert.ok(synonymsOf(stem('argued')).includes(stem('behalf')));
  assert.ok(synonymsOf(stem('behalf')).includes(stem('argued')));
  assert.ok(synonymsOf(stem('price')).includes(stem('total')));
  assert.ok(synonymsOf(stem('lawyers')).includes(stem('attorney')));
  assert.ok(!synonymsOf(stem('price')).includes(stem('price')), 'a word is not its own synonym');
  assert.deepEqual(synonymsOf('zzzz'), []);
});

test('question words: framing words apart from the search side\'s stop words', async () => {
  const { QUESTION_WORDS } = await import('@quire/text');
  for (const w of ['tell', 'explain', 'please']) assert.ok(QUESTION_WORDS.has(w) && !STOP_WORDS.has(w), w);
});

test('letterDigitRuns: the same runs of letters and digits on the ASCII scan and the Unicode path', () => {
  assert.deepEqual(letterDigitRuns('Invoice No. INV-1001, total: 1,234.56 EUR'), ['Invoice', 'No', 'INV', '1001', 'total', '1', '234', '56', 'EUR']);
  assert.deepEqual(letterDigitRuns('Größe: 12 Stück — naïve'), ['Größe', '12', 'Stück', 'naïve']);
  assert.deepEqual(letterDigitRuns('  \t\n'), []);
  for (const t of ['a-b c_d 9x', 'tail9']) assert.deepEqual(letterDigitRuns(t), letterDigitRuns(`${t} é`).slice(0, -1));
});
