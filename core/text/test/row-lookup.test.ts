import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellKey, rowLookupAsked } from '@quire/text';

test('rowLookupAsked: the column asked, the column and value that pick the row, the sheet named', () => {
  assert.deepEqual(rowLookupAsked('On Sheet2, what is the col-4 value in the row where col-1 is 8?'), { column: 'col-4', keyColumn: 'col-1', key: '8', sheet: 'Sheet2' });
  assert.deepEqual(rowLookupAsked("What is 'third' in the row where 'first' is 6?"), { column: 'third', keyColumn: 'first', key: '6', sheet: null });
  assert.deepEqual(rowLookupAsked('What is the population in the row where the state is Ohio?'), { column: 'population', keyColumn: 'state', key: 'Ohio', sheet: null });
  assert.equal(rowLookupAsked('What is the capital of France?'), null);
  assert.equal(rowLookupAsked('Which row holds the largest value?'), null);
  assert.equal(cellKey(' “Col-1” '), 'col-1');
});
