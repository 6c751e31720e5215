import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { columnPage, sentences } from '../helpers/column-pdfs.js';
import type { ColumnPageSpec } from '../helpers/column-pdfs.js';

/**
 * Reading order of multi-column pages over HTTP: justified columns set close together (gutters of about an
 * em), read column by column, each sentence whole; full-width titles, tables and boxes in their place.
 */
describe('multi-column reading order, upload → text', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const parse = async (name: string, spec: ColumnPageSpec) => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, await columnPage(spec)) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const content = await s.json(`/v1/documents/${up.body.id}/content?response=full`);
    assert.equal(content.status, 200);
    return (content.body as { text: string }).text.replace(/\s+/g, ' ');
  };

  /** Every sentence once, whole, and in the order given (column by column, band by band): returns their positions. */
  const assertInOrder = (text: string, ordered: string[]) => {
    const pos = ordered.map((x) => text.indexOf(x));
    const broken = ordered.filter((_, i) => pos[i]! < 0);
    assert.deepEqual(broken, [], `sentences not whole in:\n${text}`);
    for (let i = 1; i < pos.length; i++) assert.ok(pos[i]! > pos[i - 1]!, `"${ordered[i - 1]}" should come before "${ordered[i]}" in:\n${text}`);
    return pos;
  };

  const cols = (tag: string, counts: number[], seed: number) => counts.map((n, c) => sentences(`${tag}${'abc'[c]}`, n, seed + c));

  test('three justified columns with 12 pt gutters: title and abstract first, a ruled table across the columns between the bands, the footnote last', async () => {
    const top = cols('up', [5, 5, 4], 1);
    const bottom = cols('down', [4, 4, 3], 11);
    const abstract = sentences('summary', 2, 40).join(' ');
    const footnote = sentences('note', 1, 50)[0]!;
    const text = await parse('three-columns.pdf', {
      title: 'Airworthiness Directives; Example Aircraft Company Model A Airplanes',
      abstract,
      top,
      table: [['Model', 'Serial number', 'Effective date', 'Status'], ['A-100', '1001', 'June 2020', 'Open'], ['B-200', '2002', 'July 2021', 'Closed']],
      bottom,
      footnote,
      size: 11,
      gutter: 12,
      justify: true,
    });
    const pos = assertInOrder(text, [abstract, ...top.flat(), ...bottom.flat(), footnote]);
    assert.ok(text.indexOf('Airworthiness Directives') < pos[0]!, 'the title first');
    const table = text.indexOf('B-200');
    assert.ok(table > pos[top.flat().length]! && table < pos[top.flat().length + 1]!, 'the table between the columns above it and those below it');
  });

  test('three columns of 8 pt type with 8 pt gutters and a framed box across them mid-page', async () => {
    const top = cols('first', [6, 6, 6], 21);
    const bottom = cols('second', [4, 4, 4], 31);
    const box = sentences('boxed', 2, 60).join(' ');
    const text = await parse('dense-notice.pdf', { title: 'Notice of proposed rulemaking', top, box, bottom, size: 8, gutter: 8, justify: true });
    const pos = assertInOrder(text, [...top.flat(), box, ...bottom.flat()]);
    assert.ok(pos.length > 0);
  });

  test('two columns of unequal length, 10 pt type 10 pt apart (a LaTeX two-column page): the short column after the long one', async () => {
    const left = sentences('left', 4, 71);
    const right = sentences('right', 12, 72);
    assertInOrder(await parse('two-columns.pdf', { top: [left, right], size: 10, gutter: 10, justify: true }), [...left, ...right]);
    const long = sentences('long', 12, 73);
    const short = sentences('short', 3, 74);
    assertInOrder(await parse('two-columns-2.pdf', { title: 'A paper title over both columns', top: [long, short], size: 9, gutter: 9, justify: true }), [...long, ...short]);
  });
});
