import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import { makePdf } from '../helpers/fixtures.js';
import { makeTempDir, removeTempDir, startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Generation keeps what a user writes and corrects (issue 31): inline Markdown (bold, italic, code, links
 * with their URL) and line breaks survive into docx (word/document.xml runs, hyperlinks) and pdf (text
 * and fonts); a report from an extraction opens with a cited narrative of its corrected values and keeps
 * long values out of table cells; a short summary is shorter than a long one and leads with the sentence
 * that carries the key figures; summaries are titled from the document, not the file name.
 */
const CHROMIUM = process.env.QUIRE_CHROMIUM_PATH ?? '/usr/bin/chromium';
const has = (bin: string, args: string[]) => {
  try {
    execFileSync(bin, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const pdfSkip = !fs.existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM}` : !has('pdftotext', ['-v']) || !has('pdffonts', ['-v']) ? 'pdftotext/pdffonts (poppler-utils) are not installed' : false;

const URL_ = 'https://portal.example.com/invoices/INV-7731';
/** one paragraph of lines (soft breaks), bold, italic, code and a link, then a list with a bold item */
const RICH = `# Payment note {{invoice_number}}

Supplier: **ACME Supplies Ltd**
Invoice date: *{{date}}*
Total: \`{{total}}\`

Pay through [the supplier portal](${URL_}) before the due date.

- **Approved** by finance
- Filed under {{invoice_number}}

## Amounts of \`{{invoice_number}}\`

| Item | Amount |
|---|---|
| **Grand total** | {{total}} |
`;

/** A loan survey over three pages: one sentence carries the key figures among sentences that carry none. */
const SURVEY_PAGES = [
  {
    heading: 'Student Loan Survey',
    lines: [
      'The survey asked graduates about the loans they took to pay for their studies.',
      'Many graduates said that the loans shaped the choices they made after leaving university.',
      'Some graduates said that they would choose a different course of study today.',
      'Most graduates said that they talked with their families before taking a loan.',
      'The answers were collected online and by telephone during the autumn months.',
    ],
  },
  {
    heading: 'Findings',
    lines: [
      'Forty-five percent of graduates (45%) still owe money, with an average balance of $33,200.',
      'Graduates who studied part time said that they often worked alongside their courses.',
      'Several graduates said that the repayment rules were hard to understand at first.',
      'Graduates in the capital said that rents made repayments harder for them.',
      'Many graduates said that they would like more advice before they borrow again.',
    ],
  },
  {
    heading: 'Next steps',
    lines: [
      'The authors suggest that universities give clearer advice about loans to new students.',
      'They also suggest that lenders explain the repayment rules in plain language.',
      'A second survey is planned to follow the same graduates over the coming years.',
      'The authors thank every graduate who took the time to answer the questions.',
    ],
  },
];

describe('generation keeps rich text, corrections and lengths', () => {
  let s: TestServer;
  let invoiceId = '';
  let extractionId = '';
  const tmp = makeTempDir('generate-rich');

  before(async () => {
    s = await startTestServer();
    const invoice = await makePdf([{ heading: 'INVOICE', lines: ['ACME Supplies Ltd', 'Invoice Number: INV-7731', 'Date: 2024-03-05', 'Bill To: Globex Corporation', '', 'Subtotal: $1,000.00', 'Tax: $234.50', 'Total: $1,234.50'] }]);
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('invoice-7731.pdf', invoice) });
    invoiceId = up.body.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${invoiceId}`)).status, 'completed');
    const x = await s.json('/api/extract/run', { method: 'POST', json: { document_id: invoiceId, schema_id: 'invoice', include_citations: true } });
    assert.equal(x.status, 200, JSON.stringify(x.body));
    extractionId = x.body.extraction_id;
    assert.equal(x.body.data.total, 1234.5);
  });
  after(async () => {
    await s?.close();
    removeTempDir(tmp);
  });

  async function download(url: string): Promise<Buffer> {
    const res = await fetch(url);
    assert.equal(res.status, 200, `download ${url}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
  const run = async (format: string) => {
    const r = await s.json('/api/generate/run', { method: 'POST', json: { template_prompt: RICH, output_format: format, source_extraction_id: extractionId, source_document_ids: [invoiceId] } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return download(r.body.output_file_url);
  };
  const finished = (id: string) =>
    until(`generation job ${id}`, async () => {
      const r = await s.json(`/api/generate/jobs/${id}`);
      return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
    }, 120_000);
  const mdTree = (md: string) => fromMarkdown(md, { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] }) as any;
  const textOf = (n: any): string => (typeof n.value === 'string' ? n.value : (n.children ?? []).map(textOf).join(''));

  test('docx: bold, italic and code are run properties, the link a hyperlink to its URL, the lines separate', async () => {
    const files = unzipSync(new Uint8Array(await run('docx')));
    const xml = strFromU8(files['word/document.xml']!);
    const rels = strFromU8(files['word/_rels/document.xml.rels']!);
    const runOf = (text: string) => {
      const at = xml.indexOf(`>${text}</w:t>`);
      assert.ok(at > 0, `a run holds "${text}"`);
      return xml.slice(xml.lastIndexOf('<w:r>', at), at);
    };
    assert.match(runOf('ACME Supplies Ltd'), /<w:b\/>/, 'bold');
    assert.match(runOf('2024-03-05'), /<w:i\/>/, 'italic');
    assert.match(runOf('1234.5'), /Courier New/, 'code in a monospace font');
    assert.match(runOf('Approved'), /<w:b\/>/, 'bold in a list item');
    assert.match(runOf('Grand total'), /<w:b\/>/, 'bold in a table cell');
    assert.match(runOf('INV-7731'), /Courier New/, 'code in a heading');
    assert.doesNotMatch(runOf('Supplier: '), /<w:b\/>/, 'the label is not bold');
    // the link: a w:hyperlink whose relationship targets the URL, around the link's text
    const link = /<w:hyperlink [^>]*r:id="([^"]+)"[^>]*>(.*?)<\/w:hyperlink>/s.exec(xml);
    assert.ok(link, 'a hyperlink');
    assert.match(link![2]!, /the supplier portal/);
    assert.match(rels, new RegExp(`Id="${link![1]}"[^>]*Target="${URL_.replace(/[.]/g, '\\.')}"|Target="${URL_.replace(/[.]/g, '\\.')}"[^>]*Id="${link![1]}"`));
    // the three lines of one paragraph: a break before "Invoice date" and before "Total"
    const para = xml.slice(xml.lastIndexOf('<w:p>', xml.indexOf('>Supplier: <')), xml.indexOf('</w:p>', xml.indexOf('>Supplier: <')));
    assert.match(para, /ACME Supplies Ltd<\/w:t>.*<w:br\/>.*Invoice date: .*2024-03-05<\/w:t>.*<w:br\/>.*Total: /s);
  });

  test('markdown and html: the same formatting', async () => {
    const md = (await run('markdown')).toString('utf8');
    const para = mdTree(md).children.find((n: any) => n.type === 'paragraph' && textOf(n).startsWith('Supplier'));
    assert.deepEqual(para.children.map((c: any) => c.type), ['text', 'strong', 'break', 'text', 'emphasis', 'break', 'text', 'inlineCode']);
    assert.match(md, new RegExp(`\\[the supplier portal\\]\\(${URL_.replace(/[.]/g, '\\.')}\\)`));
    assert.match(md, /^## Amounts of `INV-7731`$/m);
    assert.match(md, /^\| \*\*Grand total\*\* +\| 1234\.5 +\|$/m);
    const html = (await run('html')).toString('utf8');
    assert.match(html, /Supplier: <strong>ACME Supplies Ltd<\/strong><br>Invoice date: <em>2024-03-05<\/em><br>Total: <code>1234\.5<\/code>/);
    assert.match(html, new RegExp(`<a href="${URL_.replace(/[.]/g, '\\.')}">the supplier portal</a>`));
    assert.match(html, /<h2>Amounts of <code>INV-7731<\/code><\/h2>/);
    assert.match(html, /<td><strong>Grand total<\/strong><\/td><td>1234\.5<\/td>/);
  });

  test('pdf: the lines are separate lines, the link shows its URL, bold and italic are bold and italic fonts', { skip: pdfSkip }, async () => {
    const file = path.join(tmp, 'rich.pdf');
    fs.writeFileSync(file, await run('pdf'));
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    const lines = text.split('\n').map((l) => l.trim());
    assert.ok(lines.includes('Supplier: ACME Supplies Ltd'), text);
    assert.ok(lines.includes('Invoice date: 2024-03-05'), text);
    assert.ok(lines.includes('Total: 1234.5'), text);
    assert.match(text.replace(/\s+/g, ' '), new RegExp(`the supplier portal \\(${URL_.replace(/[.]/g, '\\.')}\\)`));
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
    assert.match(fonts, /Bold/, fonts);
    assert.match(fonts, /Oblique|Italic/, fonts);
  });

  test('a report from an extraction: a cited narrative of the corrected values; a long value is wrapped outside the table', async () => {
    const address = `Unit 4, ${'Riverside Industrial Estate, North Harbour Road, '.repeat(5)}Portsmouth PO6 3EN, United Kingdom`;
    assert.ok(address.length > 250);
    let r = await s.json('/api/extract/corrections', { method: 'POST', json: { extraction_id: extractionId, field_id: 'total', corrected_value: 1299.99 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    r = await s.json('/api/extract/corrections', { method: 'POST', json: { extraction_id: extractionId, field_id: 'vendor_address', corrected_value: address } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    r = await s.json('/api/generate/reports', { method: 'POST', json: { source_extraction_ids: [extractionId], config: { title: 'Invoice report', outputFormat: 'markdown', sections: ['Amounts'] } } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const done = await finished(r.body.job_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const md = (await download(done.result.file_url)).toString('utf8');
    const tree = mdTree(md);
    const h2 = tree.children.filter((n: any) => n.type === 'heading' && n.depth === 2).map(textOf);
    assert.equal(h2[0], 'Overview', 'the report opens with its narrative');
    const overview = tree.children.slice(tree.children.findIndex((n: any) => textOf(n) === 'Overview') + 1, tree.children.findIndex((n: any) => textOf(n) === 'Amounts')).map(textOf).join('\n');
    assert.match(overview, /What: Invoice INV-7731/);
    assert.match(overview, /How much: .*total 1299\.99 USD \(corrected\)/);
    assert.match(overview, /When: .*2024-03-05/);
    assert.doesNotMatch(md, /1234\.5(?!0)/, 'the original total appears nowhere');
    // the narrative cites the evidence of its values: chunks of the invoice
    const cited = [...overview.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    assert.ok(cited.length >= 2, overview);
    for (const n of cited) assert.equal(done.result.citations.find((c: any) => c.n === n)?.document_id, invoiceId);
    // no cell holds a long value; the address is there whole, outside the table
    const cells = tree.children.filter((n: any) => n.type === 'table').flatMap((t: any) => t.children.flatMap((row: any) => row.children.map(textOf)));
    assert.ok(cells.length > 4);
    const longest = Math.max(...cells.map((c: string) => c.length));
    assert.ok(longest <= 110, `longest cell: ${longest} characters`);
    const paragraphs = tree.children.filter((n: any) => n.type === 'paragraph').map(textOf);
    assert.ok(paragraphs.some((p: string) => p.startsWith('vendor_address:') && p.replace(/\s+/g, ' ').includes(address.replace(/\s+/g, ' ').trim())), 'the whole address follows the table');
  });

  test('summaries of a three-page survey: short is shorter than long and leads with the key figures; titled from the document', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('scan_0042_final-v2.pdf', await makePdf(SURVEY_PAGES)) });
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    const out: Record<string, { chars: number; sentences: string[]; title: string }> = {};
    for (const length of ['short', 'long'] as const) {
      const r = await s.json('/api/generate/summaries', { method: 'POST', json: { source_document_ids: [up.body.id], config: { outputFormat: 'markdown', length } } });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const done = await finished(r.body.job_id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const sentences = (done.result.sentences as { text: string }[]).map((x) => x.text);
      out[length] = { chars: sentences.join(' ').length, sentences, title: done.result.title };
    }
    assert.ok(out.short!.chars < out.long!.chars, `short ${out.short!.chars} < long ${out.long!.chars} characters`);
    assert.ok(out.short!.sentences.length < out.long!.sentences.length);
    assert.ok(out.short!.sentences.some((x) => x.includes('$33,200') && x.includes('45%')), `the short summary has the key figures: ${out.short!.sentences.join(' | ')} (long: ${out.long!.sentences.join(' | ')})`);
    for (const length of ['short', 'long']) assert.doesNotMatch(out[length]!.title, /scan_0042|final-v2/, `the ${length} summary's title is not the file name`);
  });

  test('a template updated without output_format keeps its format', async () => {
    const r = await s.json('/api/generate/templates', { method: 'POST', json: { name: 'Rich note', template_prompt: RICH, output_format: 'docx' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const put = await s.json(`/api/generate/templates/${r.body.template.id}`, { method: 'PUT', json: { name: 'Rich note v2' } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.template.output_format, 'docx');
    assert.equal((await s.json(`/api/generate/templates/${r.body.template.id}`)).body.template.output_format, 'docx');
  });

  test('a summary of an invoice with its extraction: short shorter than long, no file name in the title', async () => {
    const sizes: Record<string, number> = {};
    for (const length of ['short', 'long'] as const) {
      const r = await s.json('/api/generate/summaries', { method: 'POST', json: { source_extraction_id: extractionId, config: { outputFormat: 'markdown', length } } });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const done = await finished(r.body.job_id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const md = (await download(done.result.file_url)).toString('utf8');
      sizes[length] = md.length;
      assert.doesNotMatch(done.result.title, /invoice-7731/);
      // every source listed is cited in the text
      const body = md.slice(0, md.indexOf('## Sources'));
      for (const c of done.result.citations) assert.ok(body.includes(`[${c.n}]`), `${length}: source ${c.n} is cited in the text`);
    }
    assert.ok(sizes.short! < sizes.long!, `short ${sizes.short} < long ${sizes.long}`);
  });
});
