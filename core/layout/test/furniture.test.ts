import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFurniture, findLineNumberGutter, layoutOcrPage, markOcrFurniture } from '@quire/layout';
import type { FurnitureCandidate, Line, OcrElement, TextItem } from '@quire/layout';

const H = 792;
const cand = (page: number, text: string, y: number): FurnitureCandidate => ({ page, text, bbox: { x: 72, y, width: 200, height: 10 }, pageHeight: H });
const texts = (s: Set<FurnitureCandidate>) => [...s].map((c) => `${c.page}:${c.text}`).sort();

test('findFurniture: lines repeated near the top or bottom with digits masked, at a similar height', () => {
  const cs = [1, 2, 3, 4, 5].flatMap((p) => [
    cand(p, `Page ${p} of 5`, 760),
    cand(p, 'Thursday, August 6, 2020', 30),
    // a first line different on every page, at the top
    cand(p, `Section ${'ABCDE'[p - 1]} begins here`, 50),
  ]);
  // the same line on two pages, at heights far apart
  cs.push(cand(2, 'Annual report', 40), cand(4, 'Annual report', 70));
  // the same masked text, but far from where it is on the other pages
  cs.push(cand(3, 'Page 3 of 5', 730));
  // in the body of the page: never a candidate
  cs.push(cand(1, 'Mid-page line', 400), cand(2, 'Mid-page line', 400), cand(3, 'Mid-page line', 400));
  const found = findFurniture(cs, 5);
  assert.deepEqual(texts(found), [1, 2, 3, 4, 5].flatMap((p) => [`${p}:Page ${p} of 5`, `${p}:Thursday, August 6, 2020`]).sort());
});

test('findFurniture: two pages need exact repeats or page numbers; one page has none; page numbers in any form need two pages', () => {
  const two = [cand(1, 'Confidential', 30), cand(2, 'Confidential', 30), cand(1, 'Invoice 1014', 45), cand(2, 'Invoice 2024', 45), cand(1, '- 1 -', 770), cand(2, '- 2 -', 770)];
  assert.deepEqual(texts(findFurniture(two, 2)), ['1:- 1 -', '1:Confidential', '2:- 2 -', '2:Confidential']);
  assert.equal(findFurniture([cand(1, 'Page 1 of 1', 770), cand(1, 'iii', 775)], 1).size, 0);
  // ten pages: roman and arabic page numbers on four of them are still page numbers; a lone year once is not
  const ten = [cand(1, 'iii', 770), cand(2, 'xi', 770), cand(5, '1', 770), cand(9, '11', 770), cand(3, '2024', 30)];
  assert.deepEqual(texts(findFurniture(ten, 10)), ['1:iii', '2:xi', '5:1', '9:11']);
});

test('findFurniture: footers that carry the page number beside a chapter title that changes, on mirrored left and right pages', () => {
  const titles = ['Introduction', 'Introduction', 'Methods of the survey', 'Methods of the survey', 'Results', 'Results', 'Discussion', 'Discussion'];
  // right-hand pages end with the number, left-hand pages start with it; page numbers as printed in a sampled book
  const printed = [3, 4, 9, 12, 15, 20, 31, 32];
  const cs = titles.map((t, i) => cand(i + 1, i % 2 === 0 ? `Chapter ${Math.ceil((i + 1) / 2)}. ${t} ${printed[i]}` : `${printed[i]} Handbook of field practice`, 770));
  // footnotes above the footer, numbered too, and a line of a table ending in a number that does not rise
  cs.push(cand(3, '1 See the annex for the full list of sites.', 735), cand(5, '2 Measured at noon.', 735));
  cs.push(...[2, 4, 6].map((p, i) => cand(p, `Total of the column ${[40, 12, 7][i]}`, 745)));
  const found = texts(findFurniture(cs, 8));
  assert.deepEqual(found, cs.slice(0, 8).map((c) => `${c.page}:${c.text}`).sort());
});

test('findFurniture: the words on the row of a page number are furniture with it, whatever their text', () => {
  const at = (page: number, text: string, x: number, width: number): FurnitureCandidate => ({ page, text, bbox: { x, y: 755, width, height: 9 }, pageHeight: H });
  const cs = [
    at(1, '© Copyright Example Corp. 2014. All rights reserved.', 64, 190),
    at(1, 'iii', 538, 8),
    at(2, 'Chapter 2. Roles and duties', 355, 165),
    at(2, '11', 536, 11),
    at(3, 'Chapter 3. Access control', 345, 176),
    at(3, '15', 536, 11),
    // below the text on a page without a page number: not furniture
    at(4, 'A closing remark on its own', 64, 190),
  ];
  assert.deepEqual(texts(findFurniture(cs, 4)), ['1:iii', '1:© Copyright Example Corp. 2014. All rights reserved.', '2:11', '2:Chapter 2. Roles and duties', '3:15', '3:Chapter 3. Access control']);
});

const item = (str: string, x: number, top: number, size = 12): TextItem => ({ str, x, top, bottom: top + size, baseline: top + size * 0.8, width: str.length * size * 0.6, size, bold: false, rtl: false });
const line = (items: TextItem[]): Line => ({ x0: Math.min(...items.map((i) => i.x)), x1: Math.max(...items.map((i) => i.x + i.width)), top: items[0]!.top, bottom: items[0]!.bottom, items, size: 12 });

test('findLineNumberGutter: consecutive numbers at the left margin, one per line, at a regular pitch', () => {
  const lines = Array.from({ length: 12 }, (_, i) => line(i === 4 ? [item(`${i + 1}`, 50, 80 + i * 24)] : [item(`${i + 1}`, 50, 80 + i * 24), item(`Text of numbered line ${i + 1}`, 90, 80 + i * 24)]));
  const g = findLineNumberGutter(lines);
  assert.ok(g);
  assert.equal(g.numbers.size, 12);
  assert.equal(g.pitch, 24);
  // numbers that do not count up by one (a column of amounts, a numbered list by twos) are no gutter
  const amounts = Array.from({ length: 8 }, (_, i) => line([item(`${(i + 1) * 10}`, 50, 80 + i * 24), item('Item of a table', 90, 80 + i * 24)]));
  assert.equal(findLineNumberGutter(amounts), null);
  // the row numbers of a table: short cells split by wide gaps beside them
  const table = Array.from({ length: 8 }, (_, i) => line([item(`${i + 1}`, 50, 80 + i * 24), item(`Part ${i}`, 90, 80 + i * 24), item('4', 250, 80 + i * 24), item('12.50', 350, 80 + i * 24)]));
  assert.equal(findLineNumberGutter(table), null);
  // a few numbered lines among many others are no gutter either
  const few = [...lines.slice(0, 5), ...Array.from({ length: 12 }, (_, i) => line([item('Plain running text on a line', 90, 400 + i * 14)]))];
  assert.equal(findLineNumberGutter(few), null);
});

test('layoutOcrPage: a line-number gutter read by OCR is left out and its lines join into sentences', () => {
  const rows: [number, string][] = [[14, 'APPEARANCES:'], [15, ''], [16, 'STEVEN E. MERCER, ESQ., Deputy Attorney General, Los'], [17, 'Angeles, Cal.; on behalf of the Petitioner.'], [18, ''], [19, 'JANE ROE, ESQ., Sacramento, Cal.; on behalf of the'], [20, 'Respondent.']];
  // pixels at 144 dpi (scale 0.5): numbers at x=100, text at x=200, a line every 50 px
  const lines = rows.map(([n, t], i) => {
    const y = 200 + i * 50;
    const words = [{ text: `${n}`, bbox: { x: 100, y, width: 30, height: 24 }, confidence: 0.95 }];
    let x = t === 'APPEARANCES:' ? 260 : 200;
    for (const w of t.split(' ').filter(Boolean)) {
      words.push({ text: w, bbox: { x, y, width: w.length * 14, height: 24 }, confidence: 0.95 });
      x += w.length * 14 + 14;
    }
    return { text: words.map((w) => w.text).join(' '), bbox: { x: 100, y, width: x - 100, height: 24 }, confidence: 0.95, words };
  });
  const blocks = layoutOcrPage(lines, { page: 1, scale: 0.5 }).map((e) => (e.kind === 'block' ? e.block.text : ''));
  assert.deepEqual(blocks, ['APPEARANCES:', 'STEVEN E. MERCER, ESQ., Deputy Attorney General, Los Angeles, Cal.; on behalf of the Petitioner.', 'JANE ROE, ESQ., Sacramento, Cal.; on behalf of the Respondent.']);
});

test('markOcrFurniture: the running head and page numbers of a multi-page scan are typed header and footer', () => {
  const block = (page: number, text: string, y: number): OcrElement => ({ kind: 'block', block: { type: 'paragraph', text, page, bbox: { x: 72, y, width: 300, height: 14 }, confidence: 0.9 } });
  const pages = [1, 2, 3].map((n) => ({ number: n, height: H, elements: [block(n, 'Harbour Board Quarterly Review', 30), block(n, `Body text of page ${n}, different on each.`, 300), block(n, `Page ${n} of 3`, 760)] }));
  // a scan of one page: nothing repeats
  const single = [{ number: 1, height: H, elements: [block(1, 'Harbour Board Quarterly Review', 30), block(1, 'Page 1 of 1', 760)] }];
  markOcrFurniture(pages);
  markOcrFurniture(single);
  assert.deepEqual(pages.map((p) => p.elements.map((e) => (e.kind === 'block' ? e.block.type : 'table'))), [1, 2, 3].map(() => ['header', 'paragraph', 'footer']));
  assert.deepEqual(single[0]!.elements.map((e) => (e.kind === 'block' ? e.block.type : 'table')), ['paragraph', 'paragraph']);
});
