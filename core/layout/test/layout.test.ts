import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { detectRules, isListItem, joinLines, ocrLinesToBlocks, parseKeyValue } from '@quire/layout';
import { ruledTablePng } from '../../../test/helpers/reader-harness.js';

test('text helpers: key-value, list items, hyphen joins', () => {
  assert.deepEqual(parseKeyValue('Invoice number: 12345'), { key: 'Invoice number', value: '12345' });
  assert.equal(parseKeyValue('Meeting at 10:30 today'), null);
  assert.equal(parseKeyValue('see https://example.org'), null);
  assert.equal(parseKeyValue('This sentence is long enough to not be a label at all: really'), null);
  assert.ok(isListItem('• first'));
  assert.ok(isListItem('2) second'));
  assert.ok(isListItem('a. third'));
  assert.ok(!isListItem('2023 was a year'));
  assert.equal(joinLines(['a docu-', 'ment here']), 'a document here');
  assert.equal(joinLines(['self-', 'Employed']), 'self-Employed');
  assert.equal(joinLines(['one', 'two']), 'one two');
});

test('ocrLinesToBlocks: paragraphs by gaps, key-values, points', () => {
  const L = (text: string, y: number, x = 100) => ({ text, bbox: { x, y, width: 600, height: 30 }, confidence: 0.9 });
  const blocks = ocrLinesToBlocks([L('First line of a', 100), L('paragraph here.', 140), L('Second paragraph.', 260), L('Total: 42.00', 330)], { page: 1, scale: 0.5 });
  assert.deepEqual(blocks.map((b) => b.type), ['paragraph', 'paragraph', 'key_value']);
  assert.equal(blocks[0]!.text, 'First line of a paragraph here.');
  assert.deepEqual(blocks[0]!.bbox, { x: 50, y: 50, width: 300, height: 35 });
  assert.equal(blocks[2]!.key, 'Total');
});

test('ocrLinesToBlocks: an amount alone on its line stays however low its confidence; short unsure specks go', () => {
  const L = (text: string, y: number, confidence: number, x = 100) => ({ text, bbox: { x, y, width: 80, height: 30 }, confidence });
  const blocks = ocrLinesToBlocks([L('8.70', 100, 0.2, 500), L('-0.01', 140, 0.1, 500), L('1,234.50', 180, 0.15, 500), L('ii', 300, 0.2), L('a1', 340, 0.1), L('8', 380, 0.1)], { page: 1, scale: 1 });
  const text = blocks.map((b) => b.text).join('\n');
  assert.match(text, /8\.70/);
  assert.match(text, /-0\.01/);
  assert.match(text, /1,234\.50/);
  assert.doesNotMatch(text, /ii|a1|^8$/m);
});

test('detectRules finds the borders of a drawn grid and not the text', async () => {
  const img = await loadImage(await ruledTablePng());
  const c = createCanvas(img.width, img.height);
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const rules = detectRules({ data: g.getImageData(0, 0, img.width, img.height).data, width: img.width, height: img.height });
  const h = rules.filter((r) => r.y0 === r.y1 && r.x1 - r.x0 > 700);
  const v = rules.filter((r) => r.x0 === r.x1 && r.y1 - r.y0 > 200);
  assert.equal(h.length, 4);
  assert.equal(v.length, 4);
  assert.ok(Math.abs(h[0]!.y0 - 50) <= 1.5);
});
