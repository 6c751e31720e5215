import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import mammoth from 'mammoth';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import { pluginContext } from '@quire/core';
import type { GeneratedDocumentModel, GeneratorPlugin } from '@quire/core';
import def from '../src/index.js';

/** The writers on a fixed model: html and markdown equal their golden files; docx has real structure; hostile text stays text. */
const FIXTURES = path.join(import.meta.dirname, 'fixtures');

const MODEL: GeneratedDocumentModel = {
  title: 'Quarterly report Q3',
  citations: [
    { n: 1, document_id: 'd1', document_name: 'review.pdf', chunk_id: 'c-1', page: 2, quote: 'Revenue grew by 18 percent.' },
    { n: 2, document_id: 'd1', document_name: 'review.pdf', chunk_id: 'c-2', page: 3 },
  ],
  blocks: [
    { type: 'quote', text: 'Request: summarise the quarter' },
    { type: 'heading', level: 2, text: 'Revenue' },
    { type: 'paragraph', text: 'Revenue grew by 18 percent.', citations: [1] },
    { type: 'paragraph', text: 'Supplier: ACME Ltd\nTotal: 21.5 see portal', inlines: [{ text: 'Supplier: ' }, { text: 'ACME Ltd', bold: true }, { text: '\nTotal: ' }, { text: '21.5', code: true }, { text: ' see ' }, { text: 'portal', italic: true, href: 'https://example.com/p' }] },
    { type: 'table', caption: 'Totals', header: ['Region', 'Revenue'], rows: [['North', '12.5'], ['South', '9.0']], cellInlines: [[null, null], [[{ text: 'North', bold: true }], null], [null, null]] },
    { type: 'heading', level: 3, text: 'Notes' },
    { type: 'list', ordered: true, items: [{ text: 'First note' }, { text: 'Second note', citations: [2] }] },
    { type: 'list', ordered: false, items: [{ text: 'A bullet' }] },
    { type: 'code', text: 'total = 21.5', language: 'text' },
    { type: 'rule' },
  ],
};

async function writer(): Promise<GeneratorPlugin> {
  return (await def.create(pluginContext(def, {}) as never)) as GeneratorPlugin;
}

function golden(name: string, actual: string): void {
  const file = path.join(FIXTURES, name);
  if (process.env.UPDATE_GOLDEN) fs.writeFileSync(file, actual);
  assert.equal(actual, fs.readFileSync(file, 'utf8'), `${name} equals its golden file`);
}

test('html and markdown of a fixed model equal their golden files', async () => {
  const g = await writer();
  assert.deepEqual(g.formats, ['html', 'markdown', 'docx']);
  const html = await g.generate({ format: 'html', document: MODEL });
  assert.equal(html.extension, 'html');
  golden('report.golden.html', html.bytes.toString('utf8'));
  const md = await g.generate({ format: 'markdown', document: MODEL });
  assert.equal(md.extension, 'md');
  golden('report.golden.md', md.bytes.toString('utf8'));
});

test('docx: headings, a table with its header row, numbered and bulleted lists, citations', async () => {
  const g = await writer();
  const out = await g.generate({ format: 'docx', document: MODEL });
  assert.equal(out.bytes.subarray(0, 2).toString(), 'PK');
  const html = (await mammoth.convertToHtml({ buffer: out.bytes })).value;
  assert.match(html, /^<h1>Quarterly report Q3<\/h1>/);
  assert.match(html, /<h2>Revenue<\/h2>/);
  assert.match(html, /<h3>Notes<\/h3>/);
  // inline formatting: bold, a line break, a link to its URL
  assert.ok(html.includes('<p>Supplier: <strong>ACME Ltd</strong><br />Total: 21.5 see <a href="https://example.com/p"><em>portal</em></a></p>'), html);
  assert.match(html, /<table><thead><tr><th><p><strong>Region<\/strong><\/p><\/th><th><p><strong>Revenue<\/strong><\/p><\/th><\/tr><\/thead><tbody><tr><td><p><strong>North<\/strong><\/p><\/td><td><p>12\.5<\/p><\/td><\/tr>/);
  assert.match(html, /<ol><li>First note<\/li><li>Second note<sup>\[2\]<\/sup><\/li><\/ol>/);
  assert.match(html, /<ul><li>A bullet<\/li><\/ul>/);
  assert.match(html, /<h2>Sources<\/h2><ol><li>review\.pdf, page 2 \(chunk c-1\): “Revenue grew by 18 percent\.”<\/li>/);
});

test('text that looks like markup stays text in every format', async () => {
  const g = await writer();
  const hostile: GeneratedDocumentModel = {
    title: '<script>alert(1)</script>',
    citations: [],
    blocks: [
      { type: 'paragraph', text: '# not a heading *not emphasis* [link](http://x) <img src=x onerror=alert(1)>' },
      { type: 'table', header: ['a|b'], rows: [['1 | 2\nthree']] },
    ],
  };
  const html = (await g.generate({ format: 'html', document: hostile })).bytes.toString('utf8');
  assert.doesNotMatch(html, /<script>|<img/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  const md = (await g.generate({ format: 'markdown', document: hostile })).bytes.toString('utf8');
  const tree = fromMarkdown(md, { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] }) as any;
  const kinds = tree.children.map((n: any) => n.type);
  assert.deepEqual(kinds, ['heading', 'paragraph', 'table']);
  const para = tree.children[1];
  assert.deepEqual(para.children.map((c: any) => c.type), ['text'], 'no emphasis, link or html in the paragraph');
  const cells = tree.children[2].children.map((r: any) => r.children.map((c: any) => c.children.map((x: any) => x.value).join('')));
  assert.deepEqual(cells, [['a|b'], ['1 | 2 three']]);
  await assert.rejects(g.generate({ format: 'xlsx', document: hostile }), /does not write xlsx/);
});
