import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packWords, unpackWords } from '../src/index.js';

test('packWords / unpackWords: words and boxes round-trip at a tenth of a point; whitespace in a word is dropped, empty words left out', () => {
  const words = [
    { text: 'Invoice', bbox: { x: 72.04, y: 100.26, width: 40.5, height: 11 } },
    { text: 'INV-1001', bbox: { x: 118, y: 100.26, width: 44.44, height: 11 } },
    { text: 'Straße\t2', bbox: { x: -3.21, y: 0, width: 5, height: 7.75 } },
    { text: ' ', bbox: { x: 1, y: 1, width: 1, height: 1 } },
  ];
  const packed = packWords(words);
  assert.equal(packed.split('\n').length, 3);
  assert.deepEqual(unpackWords(packed), [
    { text: 'Invoice', bbox: { x: 72, y: 100.3, width: 40.5, height: 11 }, confidence: 1 },
    { text: 'INV-1001', bbox: { x: 118, y: 100.3, width: 44.4, height: 11 }, confidence: 1 },
    { text: 'Straße2', bbox: { x: -3.2, y: 0, width: 5, height: 7.8 }, confidence: 1 },
  ]);
  assert.deepEqual(unpackWords(undefined), []);
  assert.deepEqual(unpackWords(''), []);
});
