import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonPieces } from '../src/index.js';

const joined = (value: unknown, opts?: Parameters<typeof jsonPieces>[1]) => Buffer.concat([...jsonPieces(value, opts)]).toString('utf8');

test('jsonPieces writes the bytes of JSON.stringify, whatever the depth and the size of the pieces', () => {
  const values: unknown[] = [
    undefined,
    null,
    0,
    -0,
    'text',
    [],
    {},
    [undefined, () => 1, Symbol('s'), NaN, Infinity, null],
    { a: undefined, b: () => 1, c: Symbol('c'), d: 1, e: { f: [1, { g: new Date(0) }], h: undefined } },
    { date: new Date(5), map: new Map([[1, 2]]), bare: Object.assign(Object.create(null), { x: 1 }), boxed: new String('s') },
    { custom: { toJSON: () => ({ replaced: true }) }, nested: [[[[[1]]]]] },
    { s: 'é😀\u2028"\\\n\u0000', [Symbol('hidden')]: 1 },
  ];
  for (const v of values) {
    for (const depth of [0, 1, 2, 6]) {
      for (const pieceBytes of [1, 7, 1 << 20]) assert.equal(joined(v, { depth, pieceBytes }), JSON.stringify(v) ?? '', `depth ${depth}, pieces of ${pieceBytes}`);
    }
  }
});

test('a document of many pages comes in many pieces, none much larger than asked, with the same JSON', () => {
  // a parsed document's shape: pages with packed words, blocks, text outside Latin-1
  const doc = {
    id: 'd',
    pages: Array.from({ length: 500 }, (_, i) => ({ number: i + 1, width: 612, height: 792, wordBoxes: `w${i} 1 2 3 4;`.repeat(50) })),
    blocks: Array.from({ length: 2000 }, (_, i) => ({ text: `Block ${i} — ‘quoted’ 文字`, page: (i % 500) + 1, bbox: { x: 1, y: 2, width: 3, height: 4 }, type: 'paragraph' })),
    text: 'x'.repeat(100_000),
  };
  const pieces = [...jsonPieces(doc, { pieceBytes: 64 * 1024 })];
  assert.ok(pieces.length > 10, `${pieces.length} pieces`);
  // a piece ends once it may hold pieceBytes: the last member added (one page, one block) is all it can go over by
  for (const p of pieces.slice(0, -1)) assert.ok(p.length < 64 * 1024 + 110_000, `${p.length} bytes`);
  assert.equal(Buffer.concat(pieces).toString('utf8'), JSON.stringify(doc));
});
