import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numbersOf, parseJsonObject, quoteInText, unsupportedNumbers } from '@quire/text';

const SOURCE = 'The first ferry leaves Aldholm at 06:40 every weekday. The crossing to Skerra takes 35 minutes — weather permitting.';

test('quoteInText: verbatim after normalisation, a slip of up to 3 edits, never a changed word', () => {
  assert.ok(quoteInText(SOURCE, 'the crossing to SKERRA   takes 35 minutes - weather permitting'));
  assert.ok(quoteInText(SOURCE, 'The crossing to Skerar takes 35 minutes'), 'two letters transposed');
  assert.ok(!quoteInText(SOURCE, 'The crossing to Skerra never takes 35 minutes'));
  assert.ok(!quoteInText(SOURCE, 'The last ferry leaves Skerra at 23:00'));
  assert.ok(!quoteInText(SOURCE, 'Skera'), 'short quotes match exactly');
  assert.ok(!quoteInText(SOURCE, '   '));
});

test('numbersOf and unsupportedNumbers: digits alike whatever the separators', () => {
  assert.deepEqual(numbersOf('1,250.00 at 06:40'), ['125000', '6', '40']);
  assert.deepEqual(unsupportedNumbers('It costs 1 250.00 and leaves at 6:40 [1].'.replace(/\[\d+\]/g, ''), ['fare 1,250.00, departure 06:40']), []);
  assert.deepEqual(unsupportedNumbers('Founded in 1894.', ['Founded in 1893.']), ['1894']);
});

test('parseJsonObject: plain, fenced, wrapped in prose; else null', () => {
  assert.deepEqual(parseJsonObject('{"a":1}'), { a: 1 });
  assert.deepEqual(parseJsonObject('```json\n{"a":1}\n```'), { a: 1 });
  assert.deepEqual(parseJsonObject('Here it is: {"a":1} done'), { a: 1 });
  assert.equal(parseJsonObject('[1,2]'), null);
  assert.equal(parseJsonObject('The answer is 4.'), null);
});
