import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Parser } from 'htmlparser2';
import mammoth from 'mammoth';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import { createKey, findOrCreateUser } from '@quire/server';
import { makePdf } from '../helpers/fixtures.js';
import { corpusRoot } from '../helpers/corpus.js';
import { makeTempDir, removeTempDir, startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Generation (spec §4.6) through HTTP: templates and instructions over an invoice's extraction in every
 * format (values checked in the pdf with pdftotext, the docx with mammoth, the html and markdown parsed),
 * a generated pdf uploaded back, reports with citations to real chunks, extractive summaries of each
 * length, a golden file, the job states, templates CRUD and ownership (pdf without Chromium: generate-llm.test.ts, whose service has none).
 */
const CHROMIUM = process.env.QUIRE_CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
const hasPdftotext = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const GOLDEN = path.resolve(import.meta.dirname, '../fixtures/generate/invoice-template.golden.md');

const INVOICE_TEMPLATE = `# Invoice {{invoice_number}}

Issued {{date}}; reference {{default no_such_field "(none)"}}.

## Amounts

| Field | Value |
|---|---|
| Invoice number | {{invoice_number}} |
| Total | {{total}} |

## Source

- Document: {{document.name}}
- Pages: {{document.pages}}
`;

/** a report about a company, long enough for every summary length (plain sentences in paragraphs) */
const REPORT_TEXT = [
  'Northwind Annual Review',
  '',
  'Revenue grew by 18 percent in the year, reaching 42 million euros across the three regions. The growth came mostly from the new subscription plans that were introduced in the spring. Subscription revenue now makes up more than half of all revenue for the first time.',
  '',
  'The northern region recorded the strongest revenue growth of all regions. Sales in the southern region stayed flat because two large customers delayed their orders. The western region opened a new office in Porto that serves customers in Portugal and Spain.',
  '',
  'Operating costs rose by 9 percent, mainly because of higher energy prices and new hires. The company hired 64 new employees, most of them engineers and support staff. Staff turnover fell to 7 percent, the lowest level in five years.',
  '',
  'The main risks for the coming year are supply chain delays and currency fluctuations. A delay at the chip supplier could hold back hardware deliveries for up to two months. The treasury team hedges about 60 percent of the exposure to the US dollar.',
  '',
  'Customer satisfaction improved to a score of 8.4 out of 10 in the annual survey. Customers praised the faster support response times and the new self-service portal. The number of support tickets per customer fell by a quarter.',
  '',
  'The board proposes a dividend of 1.20 euros per share for the year. The company plans to invest 6 million euros in research and development next year. New products for the logistics market are expected to launch in the autumn.',
  '',
  'The sustainability programme cut carbon emissions by 12 percent compared with the previous year. All offices now use electricity from renewable sources. The company aims to reach net zero emissions in its own operations by 2030.',
  '',
  'The data centre migration finished three weeks ahead of schedule. Moving to the new data centre lowered hosting costs by 15 percent. The migration also improved the availability of the customer platform to 99.95 percent.',
].join('\n');

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

describe('generation', () => {
  let s: TestServer;
  let otherKey = '';
  let invoiceId = '';
  let reportId = '';
  let extractionId = '';
  let data: Record<string, unknown> = {};
  let reportText = '';
  const tmp = makeTempDir('generate');

  before(async () => {
    s = await startTestServer();
    const other = await findOrCreateUser(s.runtime.store, 'other-generate@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
    const invoice = await makePdf([{ heading: 'INVOICE', lines: ['ACME Supplies Ltd', 'Invoice Number: INV-7731', 'Date: 2024-03-05', 'Bill To: Globex Corporation', '', 'Subtotal: $1,000.00', 'Tax: $234.50', 'Total: $1,234.50'] }]);
    const up1 = await s.json('/v1/documents', { method: 'POST', body: uploadForm('invoice-7731.pdf', invoice) });
    const up2 = await s.json('/v1/documents', { method: 'POST', body: uploadForm('northwind-review.txt', REPORT_TEXT) });
    invoiceId = up1.body.id;
    reportId = up2.body.id;
    for (const id of [invoiceId, reportId]) assert.equal((await waitForStatus(s, `/v1/documents/${id}`)).status, 'completed');
    reportText = (await s.json(`/v1/documents/${reportId}/content`)).body.text;
    const x = await s.json('/api/extract/run', { method: 'POST', json: { document_id: invoiceId, schema_id: 'invoice', include_citations: true } });
    assert.equal(x.status, 200, JSON.stringify(x.body));
    extractionId = x.body.extraction_id;
    data = x.body.data;
    assert.equal(data.invoice_number, 'INV-7731');
    assert.equal(data.total, 1234.5);
  });
  after(async () => {
    await s?.close();
    removeTempDir(tmp);
  });

  async function run(body: Record<string, unknown>, key?: string) {
    return s.json('/api/generate/run', { method: 'POST', json: body, key });
  }
  async function download(url: string): Promise<{ bytes: Buffer; type: string; disposition: string }> {
    const res = await fetch(url);
    assert.equal(res.status, 200, `download ${url}: ${res.status}`);
    return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') ?? '', disposition: res.headers.get('content-disposition') ?? '' };
  }
  const job = (id: string, key?: string) => s.json(`/api/generate/jobs/${id}`, { key });
  const finished = (id: string) => until(`generation job ${id}`, async () => {
    const r = await job(id);
    return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
  }, 120_000);
  const mdTree = (md: string) => fromMarkdown(md, { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] }) as any;
  const textOf = (n: any): string => (typeof n.value === 'string' ? n.value : (n.children ?? []).map(textOf).join(''));

  /** Well-formed html: every element closed explicitly (none implied by the parser), and its text. */
  function parseHtml(html: string) {
    const open: string[] = [];
    const implied: string[] = [];
    let text = '';
    const tags: string[] = [];
    const VOID = new Set(['meta', 'br', 'hr', 'img', 'link', 'input']);
    // the text of the body, a space between elements (as a reader of the page sees it)
    const p = new Parser(
      {
        onopentag(name) {
          tags.push(name);
          if (!VOID.has(name)) open.push(name);
          text += ' ';
        },
        onclosetag(name, isImplied) {
          if (VOID.has(name)) return;
          if (isImplied) implied.push(name);
          open.pop();
          text += ' ';
        },
        ontext(t) {
          if (open.includes('body')) text += t;
        },
      },
      { decodeEntities: true, recognizeSelfClosing: true },
    );
    p.write(html);
    p.end();
    return { implied, unclosed: open, text, tags };
  }

  test('a handlebars template over an extraction: html, markdown and docx carry the invoice values as structure; 1.0 credit each', async () => {
    const before = (await s.json('/api/user/credits')).body.usage_summary.generate;
    const values = ['INV-7731', '1234.5'];
    // html: self-contained, well-formed, with print CSS; the values in the title and the table
    let r = await run({ template_prompt: INVOICE_TEMPLATE, output_format: 'html', source_extraction_id: extractionId, source_document_ids: [invoiceId], document_name: 'invoice-summary' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    assert.equal(r.body.format, 'html');
    assert.match(r.body.generated_document_id, /^[0-9a-f-]{36}$/);
    let file = await download(r.body.output_file_url);
    assert.match(file.type, /text\/html/);
    assert.match(file.disposition, /attachment; filename="invoice-summary.html"/);
    const html = file.bytes.toString('utf8');
    const parsed = parseHtml(html);
    assert.deepEqual(parsed.implied, [], 'no element closed implicitly');
    assert.deepEqual(parsed.unclosed, []);
    assert.ok(html.startsWith('<!doctype html>'));
    assert.match(html, /@media print/);
    assert.doesNotMatch(html, /<script|<link|src=|https?:\/\//i, 'no scripts or external resources');
    assert.ok(parsed.tags.includes('table') && parsed.tags.includes('h2'));
    for (const v of values) assert.ok(parsed.text.includes(v), `html has ${v}`);
    assert.match(parsed.text, /Invoice INV-7731/);
    // the generated document is a document of the caller: processed and searchable like an upload
    const gen = await waitForStatus(s, `/v1/documents/${r.body.generated_document_id}`);
    assert.equal(gen.status, 'completed');
    assert.match((await s.json(`/v1/documents/${r.body.generated_document_id}/content`)).body.text, /INV-7731/);

    // markdown: CommonMark with a GFM table holding the values
    r = await run({ template_prompt: INVOICE_TEMPLATE, output_format: 'markdown', source_extraction_id: extractionId, source_document_ids: [invoiceId] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    file = await download(r.body.output_file_url);
    const md = file.bytes.toString('utf8');
    const tree = mdTree(md);
    assert.equal(tree.children[0].type, 'heading');
    assert.equal(textOf(tree.children[0]), 'Invoice INV-7731');
    const table = tree.children.find((n: any) => n.type === 'table');
    assert.ok(table, 'markdown has a table');
    const cells = table.children.map((row: any) => row.children.map(textOf));
    assert.deepEqual(cells[1], ['Invoice number', 'INV-7731']);
    assert.deepEqual(cells[2], ['Total', '1234.5']);
    fs.writeFileSync(path.join(tmp, 'out.md'), md);
    if (process.env.UPDATE_GOLDEN) fs.writeFileSync(GOLDEN, md);
    assert.equal(md, fs.readFileSync(GOLDEN, 'utf8'), 'the template output equals the golden file');

    // docx: real headings and a real table (mammoth sees them)
    r = await run({ template_prompt: INVOICE_TEMPLATE, output_format: 'docx', source_extraction_id: extractionId, source_document_ids: [invoiceId] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    file = await download(r.body.output_file_url);
    const docxHtml = (await mammoth.convertToHtml({ buffer: file.bytes })).value;
    assert.match(docxHtml, /<h1>Invoice INV-7731<\/h1>/);
    assert.match(docxHtml, /<h2>Amounts<\/h2>/);
    assert.match(docxHtml, /<table>.*<td><p>Total<\/p><\/td><td><p>1234\.5<\/p><\/td>.*<\/table>/s);
    assert.match(docxHtml, /<ul><li>Document: invoice-7731\.pdf<\/li>/);

    const credits = (await s.json('/api/user/credits')).body.usage_summary.generate;
    assert.equal(credits - before, 3, 'three documents, 1.0 credit each');
  });

  test('pdf: the invoice values are in the text (pdftotext); the pdf uploaded back parses to the same text', { skip: !hasChromium ? `no Chromium at ${CHROMIUM}` : !hasPdftotext ? 'pdftotext (poppler-utils) is not installed' : false }, async () => {
    const r = await run({ template_prompt: INVOICE_TEMPLATE, output_format: 'pdf', source_extraction_id: extractionId, source_document_ids: [invoiceId] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const file = await download(r.body.output_file_url);
    assert.equal(file.bytes.subarray(0, 5).toString(), '%PDF-');
    const pdfPath = path.join(tmp, 'invoice.pdf');
    fs.writeFileSync(pdfPath, file.bytes);
    const text = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' });
    for (const v of ['Invoice INV-7731', 'INV-7731', '1234.5', 'invoice-7731.pdf']) assert.ok(text.includes(v), `pdf text has ${v}`);
    // uploaded back, the pdf parses to the text of the html it was printed from
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('roundtrip.pdf', file.bytes) });
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    const back = norm((await s.json(`/v1/documents/${up.body.id}/content`)).body.text);
    const html = (await run({ template_prompt: INVOICE_TEMPLATE, output_format: 'html', source_extraction_id: extractionId, source_document_ids: [invoiceId] })).body;
    const expected = norm(parseHtml((await download(html.output_file_url)).bytes.toString('utf8')).text);
    // the parsed text gives tables as markdown: their pipes and separator rows are markup, not words
    const words = (t: string) => t.split(' ').filter((w) => w && !/^[|:-]+$/.test(w));
    const want = words(expected);
    const got = new Map<string, number>();
    for (const w of words(back)) got.set(w, (got.get(w) ?? 0) + 1);
    const missing = want.filter((w) => !(got.get(w)! > 0 && got.set(w, got.get(w)! - 1)));
    assert.deepEqual(missing, [], 'every word of the document is in the parsed pdf');
    assert.equal(words(back).length, want.length, `and nothing else: ${back}`);
  });

  test('a plain instruction offline: a structured document of the sources (extracted fields table, passages), nothing invented', async () => {
    const r = await run({ template_prompt: 'Prepare a payment summary of this invoice for the finance team', output_format: 'markdown', source_extraction_id: extractionId, source_document_ids: [invoiceId, reportId], settings: { title: 'Payment summary' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const md = (await download(r.body.output_file_url)).bytes.toString('utf8');
    const tree = mdTree(md);
    assert.equal(textOf(tree.children[0]), 'Payment summary');
    const headings = tree.children.filter((n: any) => n.type === 'heading').map(textOf);
    assert.ok(headings.includes('Extracted fields'), headings.join(' | '));
    assert.ok(headings.includes('invoice-7731.pdf') && headings.includes('northwind-review.txt'));
    const table = tree.children.find((n: any) => n.type === 'table');
    const rows = table.children.map((row: any) => row.children.map(textOf));
    assert.deepEqual(rows[0], ['Field', 'Value', 'Confidence', 'Source']);
    const byField = new Map(rows.slice(1).map((c: string[]) => [c[0], c[1]]));
    assert.equal(byField.get('invoice_number'), 'INV-7731');
    assert.equal(byField.get('total'), '1234.5');
    // every passage quoted from the report is a sentence of it
    const items = tree.children.filter((n: any) => n.type === 'list').flatMap((l: any) => l.children.map(textOf));
    const quoted = items.filter((t: string) => /\[\d+\]$/.test(t)).map((t: string) => t.replace(/\s*\[\d+\]$/, ''));
    assert.ok(quoted.length >= 3, `passages: ${quoted.length}`);
    for (const q of quoted) if (!q.includes('INV-7731')) assert.ok(norm(reportText).includes(norm(q)), `"${q}" is in the source`);
  });

  test('the job: states of the spec, progress, result with a signed file URL; async run answers 202', async () => {
    const r = await run({ template_prompt: INVOICE_TEMPLATE, output_format: 'html', source_extraction_id: extractionId, async: true });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.status, 'pending');
    const seen = new Set<string>();
    const done = await until('job done', async () => {
      const j = (await job(r.body.job_id)).body;
      seen.add(j.status);
      return j.status === 'completed' || j.status === 'failed' ? j : null;
    }, 60_000, 5);
    for (const st of seen) assert.ok(['pending', 'generating', 'formatting', 'uploading', 'completed'].includes(st), st);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.progress, 100);
    assert.equal(done.result.document_id, r.body.generated_document_id);
    assert.ok(done.result.file_size > 500);
    assert.ok(done.completed_at && done.created_at);
    const file = await download(done.result.file_url);
    assert.equal(file.bytes.length, done.result.file_size);
    // the link is signed: changed, it is refused
    const bad = await fetch(done.result.file_url.replace(/sig=[0-9a-f]{4}/, 'sig=0000'));
    assert.equal(bad.status, 401);
  });

  test('reports: one section per requested name, each citing real chunks of the sources', async () => {
    const sections = ['Revenue growth', 'Risks', 'Staffing and employees'];
    const r = await s.json('/api/generate/reports', { method: 'POST', json: { source_document_ids: [reportId], config: { title: 'Northwind report', outputFormat: 'markdown', sections } } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.status, 'pending');
    const done = await finished(r.body.job_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.result.sections.map((x: any) => x.name), sections);
    const chunks = new Set(((await s.json(`/v1/documents/${reportId}/content?response=chunks`)).body.chunks as { id: string }[]).map((c) => c.id));
    const byN = new Map(done.result.citations.map((c: any) => [c.n, c]));
    for (const sec of done.result.sections) {
      assert.ok(sec.citations.length > 0, `section ${sec.name} cites something`);
      for (const n of sec.citations) {
        const c: any = byN.get(n);
        assert.ok(chunks.has(c.chunk_id), `citation ${n} of ${sec.name} is a chunk of the source`);
        assert.equal(c.document_id, reportId);
        assert.ok(norm(reportText).includes(norm(c.quote.replace(/…$/, ''))), 'the quote is in the source');
      }
    }
    const md = (await download(done.result.file_url)).bytes.toString('utf8');
    const tree = mdTree(md);
    assert.equal(textOf(tree.children[0]), 'Northwind report');
    const h2 = tree.children.filter((n: any) => n.type === 'heading' && n.depth === 2).map(textOf);
    assert.deepEqual(h2, [...sections, 'Sources']);
    // the section about revenue quotes the revenue sentence
    const revenue = md.slice(md.indexOf('## Revenue growth'), md.indexOf('## Risks'));
    assert.match(revenue, /Revenue grew by 18 percent/);
    assert.match(md.slice(md.indexOf('## Risks'), md.indexOf('## Staffing')), /risks for the coming year/);
  });

  test('summaries: short 1–2, medium 3–5, long more paragraphs; every sentence is a sentence of the source, in order, cited', async () => {
    const counts: Record<string, number> = {};
    for (const length of ['short', 'medium', 'long'] as const) {
      const r = await s.json('/api/generate/summaries', { method: 'POST', json: { source_document_ids: [reportId], config: { outputFormat: 'markdown', length } } });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const done = await finished(r.body.job_id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const sentences = done.result.sentences as { text: string; paragraph: number; chunk_id: string }[];
      const paragraphs = new Set(sentences.map((x) => x.paragraph)).size;
      counts[length] = paragraphs;
      let last = -1;
      const source = norm(reportText);
      for (const x of sentences) {
        const at = source.indexOf(norm(x.text));
        assert.ok(at >= 0, `"${x.text}" is in the source`);
        assert.ok(at > last, 'sentences keep their order');
        last = at;
        assert.ok(x.chunk_id);
      }
      // the file has the same paragraphs
      const md = (await download(done.result.file_url)).bytes.toString('utf8');
      const body = mdTree(md).children.filter((n: any) => n.type === 'paragraph');
      assert.equal(body.length, paragraphs);
    }
    assert.ok(counts.short! >= 1 && counts.short! <= 2, `short: ${counts.short}`);
    assert.ok(counts.medium! >= 3 && counts.medium! <= 5, `medium: ${counts.medium}`);
    assert.ok(counts.long! > 5, `long: ${counts.long}`);
  });

  test('a template that fails when rendered fails the job with VALIDATION_ERROR and costs nothing; a huge template is refused', async () => {
    const before = (await s.json('/api/user/credits')).body.usage_summary.generate;
    const r = await run({ template_prompt: '# Report\n\n{{#each documents}}{{log "written to the log"}}{{/each}}', output_format: 'html', source_document_ids: [reportId] });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    assert.match(r.body.error.message, /template could not be rendered/);
    assert.equal((await s.json('/api/user/credits')).body.usage_summary.generate, before);
    const huge = await run({ template_prompt: `{{x}}${'a'.repeat(200_001)}`, output_format: 'html' });
    assert.equal(huge.status, 400);
  });

  test('corpus invoices: every value of the extraction is in the generated html, markdown, docx and pdf', { skip: corpusRoot() ? false : 'no corpus (QUIRE_CORPUS)' }, async () => {
    const root = corpusRoot()!;
    const template = '# {{document.name}}\n\n{{#each extraction.fields}}\n- {{field}}: {{value}}\n{{/each}}\n';
    for (const name of ['invoice2data__AmazonWebServices.pdf', 'invoice2data__QualityHosting.pdf']) {
      const file = path.join(root, 'files', name);
      if (!fs.existsSync(file)) continue;
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, fs.readFileSync(file)) });
      assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
      const x = await s.json('/api/extract/run', { method: 'POST', json: { document_id: up.body.id, schema_id: 'invoice' } });
      assert.equal(x.status, 200, JSON.stringify(x.body));
      const values = Object.values(x.body.data as Record<string, unknown>).filter((v) => typeof v === 'string' || typeof v === 'number').map((v) => norm(String(v)));
      assert.ok(values.length >= 3, `${name}: ${values.length} values extracted`);
      const texts: Record<string, string> = {};
      for (const format of ['html', 'markdown', 'docx', ...(hasChromium && hasPdftotext ? ['pdf'] : [])]) {
        const r = await run({ template_prompt: template, output_format: format, source_extraction_id: x.body.extraction_id, source_document_ids: [up.body.id] });
        assert.equal(r.status, 200, `${name} ${format}: ${JSON.stringify(r.body)}`);
        const bytes = (await download(r.body.output_file_url)).bytes;
        if (format === 'html') texts[format] = parseHtml(bytes.toString('utf8')).text;
        else if (format === 'markdown') texts[format] = textOf(mdTree(bytes.toString('utf8')));
        else if (format === 'docx') texts[format] = (await mammoth.extractRawText({ buffer: bytes })).value;
        else texts[format] = execFileSync('pdftotext', ['-', '-'], { input: bytes, encoding: 'utf8' });
      }
      for (const [format, text] of Object.entries(texts)) for (const v of values) assert.ok(norm(text).includes(v), `${name} ${format} has "${v}"`);
    }
  });

  test('templates: CRUD, validation, run with template_id; someone else\'s template and job are 404', async () => {
    let r = await s.json('/api/generate/templates', { method: 'POST', json: { name: 'Invoice card', template_prompt: INVOICE_TEMPLATE, output_format: 'markdown', settings: { style: 'plain' } } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const t = r.body.template;
    assert.equal(t.name, 'Invoice card');
    assert.equal(t.is_shared, false);
    assert.ok(t.created_at);
    assert.equal((await s.json('/api/generate/templates', { method: 'POST', json: { name: 'bad', template_prompt: '# {{#each}}', output_format: 'html' } })).status, 400);
    assert.equal((await s.json('/api/generate/templates', { method: 'POST', json: { name: 'bad', template_prompt: 'x', output_format: 'pptx' } })).status, 400);
    assert.equal((await s.json('/api/generate/templates', { method: 'POST', json: { name: 'shared', template_prompt: 'x', output_format: 'html', is_shared: true } })).status, 400, 'is_shared needs an organization');
    assert.ok((await s.json('/api/generate/templates')).body.templates.some((x: any) => x.id === t.id));
    r = await s.json(`/api/generate/templates/${t.id}`, { method: 'PUT', json: { name: 'Invoice card v2' } });
    assert.equal(r.status, 200);
    assert.equal(r.body.template.name, 'Invoice card v2');
    assert.equal((await s.json(`/api/generate/templates/${t.id}`)).body.template.template_prompt, INVOICE_TEMPLATE.trim());
    // run with the saved template
    r = await run({ template_id: t.id, output_format: 'markdown', source_extraction_id: extractionId, source_document_ids: [invoiceId] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match((await download(r.body.output_file_url)).bytes.toString('utf8'), /^# Invoice INV-7731/);
    // the other user sees none of it
    assert.equal((await s.json(`/api/generate/templates/${t.id}`, { key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/generate/templates/${t.id}`, { method: 'PUT', json: { name: 'x' }, key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/generate/templates/${t.id}`, { method: 'DELETE', key: otherKey })).status, 404);
    assert.ok(!(await s.json('/api/generate/templates', { key: otherKey })).body.templates.some((x: any) => x.id === t.id));
    assert.equal((await job(r.body.job_id, otherKey)).status, 404);
    assert.equal((await run({ template_id: t.id, output_format: 'html' }, otherKey)).status, 404);
    assert.equal((await run({ template_prompt: 'x', output_format: 'html', source_extraction_id: extractionId }, otherKey)).status, 404);
    assert.equal((await run({ template_prompt: 'x', output_format: 'html', source_document_ids: [invoiceId] }, otherKey)).status, 404);
    assert.equal((await s.json('/api/generate/reports', { method: 'POST', json: { source_document_ids: [reportId], config: { sections: ['a'] } }, key: otherKey })).status, 404);
    // validation of requests
    assert.equal((await run({ output_format: 'html' })).status, 400, 'template_prompt is required without template_id');
    assert.equal((await run({ template_prompt: 'x', output_format: 'odt' })).status, 400);
    assert.equal((await s.json('/api/generate/summaries', { method: 'POST', json: { config: { length: 'short' } } })).status, 400, 'a summary needs sources');
    assert.equal((await s.json('/api/generate/jobs/00000000-0000-4000-8000-000000000000')).status, 404);
    r = await s.json(`/api/generate/templates/${t.id}`, { method: 'DELETE' });
    assert.equal(r.status, 200);
    assert.equal((await s.json(`/api/generate/templates/${t.id}`)).status, 404);
  });

});
