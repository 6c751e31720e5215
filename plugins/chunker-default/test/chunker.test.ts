import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentBuilder, QuireError, renderTable, tableToMarkdown } from '@quire/core';
import type { Chunk, ChunkOptions, ParsedDocument, Table, TableCell } from '@quire/core';
import plugin, { chunkDocument, sentenceStarts } from '@quire/plugin-chunker-default';

const box = (x: number, y: number, w: number, h: number) => ({ x, y, width: w, height: h });

function table(rows: string[][], page = 2, headerRow = true): Table {
  const cells: TableCell[] = [];
  rows.forEach((r, ri) => r.forEach((text, ci) => cells.push({ row: ri, col: ci, rowSpan: 1, colSpan: 1, text, header: headerRow && ri === 0, bbox: box(50 + ci * 100, 100 + ri * 20, 100, 20) })));
  return { page, bbox: box(50, 100, rows[0]!.length * 100, rows.length * 20), rows: rows.length, cols: rows[0]!.length, cells, confidence: 0.97 };
}

const sentence = (i: number) => `Sentence number ${i} talks about the quarterly figures of the northern division in detail.`;

/** Three pages: headings, paragraphs, a list, a small and a big table, running footers, an OCR page. */
function sampleDoc(): ParsedDocument {
  const b = new DocumentBuilder('doc-1', 'report.pdf', 'pdf');
  b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addPage({ number: 2, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addPage({ number: 3, width: 612, height: 792, ocr: true, confidence: 0.8 });
  b.addBlock({ type: 'heading', level: 1, text: 'Annual Report', page: 1, bbox: box(50, 40, 300, 30), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'This report covers the fiscal year. It was prepared by the finance team.', page: 1, bbox: box(50, 80, 500, 30), confidence: 1 });
  b.addBlock({ type: 'heading', level: 2, text: 'Revenue', page: 1, bbox: box(50, 120, 200, 20), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: Array.from({ length: 12 }, (_, i) => sentence(i)).join(' '), page: 1, bbox: box(50, 150, 500, 300), confidence: 1 });
  b.addBlock({ type: 'list_item', text: '- North: up 4%', page: 1, bbox: box(60, 460, 200, 12), confidence: 1 });
  b.addBlock({ type: 'list_item', text: '- South: down 2%', page: 1, bbox: box(60, 474, 200, 12), confidence: 1 }, '\n');
  b.addBlock({ type: 'footer', text: 'Page 1 of 3', page: 1, bbox: box(280, 760, 60, 10), confidence: 1 });
  b.addBlock({ type: 'heading', level: 2, text: 'Tables', page: 2, bbox: box(50, 40, 200, 20), confidence: 1 });
  b.addTable(table([['Region', 'Q1', 'Q2'], ['North', '10', '12'], ['South', '8', '7']]));
  b.addTable(table([['Item', 'Description', 'Amount'], ...Array.from({ length: 40 }, (_, i) => [`item-${i}`, `Description of line item ${i} with some words`, `${i * 10}.00`])]));
  b.addBlock({ type: 'footer', text: 'Page 2 of 3', page: 2, bbox: box(280, 760, 60, 10), confidence: 1 });
  b.addBlock({ type: 'heading', level: 1, text: 'Appendix', page: 3, bbox: box(50, 40, 200, 20), confidence: 0.9 });
  b.addBlock({ type: 'paragraph', text: 'Scanned notes were added. The ink was faded.', page: 3, bbox: box(50, 70, 400, 20), confidence: 0.7 });
  b.addBlock({ type: 'paragraph', text: 'Signatures follow below.', page: 3, bbox: box(50, 100, 300, 20), confidence: 0.6 });
  return b.build();
}

const opts = (o: Partial<ChunkOptions> = {}): ChunkOptions => ({ strategy: 'semantic', max_chunk_size: 400, overlap: 100, table_output_format: 'markdown', ...o });

function checkCommon(doc: ParsedDocument, chunks: Chunk[], max: number) {
  assert.ok(chunks.length > 0);
  chunks.forEach((c, i) => {
    assert.equal(c.index, i);
    assert.equal(c.id, `${doc.id}:${i}`);
    assert.ok(c.span.start >= 0 && c.span.end <= doc.text.length && c.span.start < c.span.end, `span of ${c.id}`);
    assert.ok(c.metadata.confidence > 0 && c.metadata.confidence <= 1);
    assert.ok(c.metadata.pages!.includes(c.page));
    if (c.metadata.type === 'text') {
      assert.equal(c.content, doc.text.slice(c.span.start, c.span.end).trim(), `content of ${c.id} is its span`);
      assert.ok(c.content.length <= max, `${c.id} is ${c.content.length} > ${max}`);
    }
  });
}

test('semantic: spans, headings, whole small table, big table split by rows with the header repeated', () => {
  const doc = sampleDoc();
  const chunks = plugin.create({} as never).chunk(doc, opts());
  checkCommon(doc, chunks, 400);

  // every chunk carrying a heading path; chunks start at headings
  const revenue = chunks.filter((c) => c.metadata.heading === 'Annual Report > Revenue');
  assert.ok(revenue.length >= 2, 'the long Revenue section spans several chunks');
  const revHeading = doc.blocks.find((b) => b.text === 'Revenue')!;
  assert.ok(chunks.some((c) => c.span.start === revHeading.span.start), 'a chunk starts at the Revenue heading');
  assert.equal(chunks[0]!.metadata.heading, 'Annual Report');
  const appendix = chunks.find((c) => c.content.startsWith('Appendix'))!;
  assert.equal(appendix.metadata.heading, 'Appendix', 'a level-1 heading resets the path');

  // small table: whole, rendered, span of the table block
  const tables = chunks.filter((c) => c.metadata.type === 'table');
  const small = tables[0]!;
  assert.equal(small.content, renderTable(doc.tables[0]!, 'markdown'));
  const smallBlock = doc.blocks.find((b) => b.type === 'table' && b.tableIndex === 0)!;
  assert.deepEqual(small.span, smallBlock.span);
  assert.equal(small.metadata.confidence, 0.97);
  assert.equal(small.metadata.heading, 'Annual Report > Tables');
  assert.equal(small.page, 2);

  // big table: several pieces, each fits, each starts with the header row, every body row exactly once
  const big = tables.slice(1);
  assert.ok(big.length >= 3, `big table split into ${big.length}`);
  const seen: string[] = [];
  for (const t of big) {
    assert.ok(t.content.length <= 400);
    assert.ok(t.content.startsWith('| Item | Description | Amount |\n| --- | --- | --- |'), 'header repeated');
    seen.push(...t.content.split('\n').slice(2).map((l) => l.split(' | ')[0]!.replace('| ', '')));
    assert.ok(t.bbox && t.bbox.height < doc.tables[1]!.bbox!.height, 'piece bbox covers its rows only');
  }
  assert.deepEqual(seen, Array.from({ length: 40 }, (_, i) => `item-${i}`));

  // footers are in no chunk
  assert.ok(!chunks.some((c) => c.content.includes('Page 1 of 3')));
  // list items stay together
  assert.ok(chunks.some((c) => c.content.includes('- North: up 4%\n- South: down 2%')));
});

test('semantic: an over-long paragraph splits at sentence boundaries, with whole-sentence overlap', () => {
  const doc = sampleDoc();
  const chunks = chunkDocument(doc, opts({ max_chunk_size: 300, overlap: 100 }));
  checkCommon(doc, chunks, 300);
  const para = doc.blocks.find((b) => b.text.startsWith('Sentence number 0'))!;
  const inPara = chunks.filter((c) => c.span.start >= para.span.start - 10 && c.span.end <= para.span.end && c.metadata.type === 'text');
  assert.ok(inPara.length >= 4);
  const sentenceEnds = new Set(sentenceStarts(para.text).map((s) => para.span.start + s));
  for (const c of inPara) {
    assert.match(c.content, /\.$/, 'ends at a sentence end');
    const heading = doc.blocks.find((b) => b.text === 'Revenue')!;
    assert.ok(c.span.start === heading.span.start || sentenceEnds.has(c.span.start), `starts at a sentence start: ${c.content.slice(0, 30)}`);
  }
  for (let i = 1; i < inPara.length; i++) {
    const ov = inPara[i - 1]!.span.end - inPara[i]!.span.start;
    assert.ok(ov > 0 && ov <= 100, `overlap ${ov} in (0, 100]`);
  }
  const none = chunkDocument(doc, opts({ max_chunk_size: 300, overlap: 0 }));
  for (let i = 1; i < none.length; i++) if (none[i]!.metadata.type === 'text' && none[i - 1]!.metadata.type === 'text') assert.ok(none[i]!.span.start >= none[i - 1]!.span.end);
});

test('semantic: a sentence longer than the limit splits at word boundaries', () => {
  const b = new DocumentBuilder('d2', 'x.txt', 'txt');
  b.addPage({ number: 1, width: 1, height: 1, ocr: false, confidence: 1 });
  const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
  b.addBlock({ type: 'paragraph', text: words.join(' '), page: 1, bbox: null, confidence: 1 });
  const doc = b.build();
  const chunks = chunkDocument(doc, opts({ max_chunk_size: 100, overlap: 0 }));
  checkCommon(doc, chunks, 100);
  assert.deepEqual(chunks.flatMap((c) => c.content.split(' ')), words, 'no word is cut');
  assert.equal(chunks[0]!.bbox, null);
});

test('semantic: confidence and bbox are derived from the covered blocks', () => {
  const doc = sampleDoc();
  const chunks = chunkDocument(doc, opts({ max_chunk_size: 1000 }));
  const appendix = chunks.find((c) => c.content.startsWith('Appendix'))!;
  const blocks = doc.blocks.filter((b) => b.page === 3);
  const len = (t: string) => t.length;
  const expected = blocks.reduce((s, b) => s + b.confidence * len(b.text), 0) / blocks.reduce((s, b) => s + len(b.text), 0);
  assert.ok(Math.abs(appendix.metadata.confidence - expected) < 1e-3, `${appendix.metadata.confidence} ≈ ${expected}`);
  assert.ok(appendix.metadata.confidence < 0.8);
  assert.deepEqual(appendix.bbox, { x: 50, y: 40, width: 400, height: 80 });
  const first = chunks[0]!;
  assert.equal(first.metadata.confidence, 1);
  assert.deepEqual(first.metadata.pages, [1]);
});

test('semantic: tables in html and json, and a table larger than the limit in json still splits', () => {
  const doc = sampleDoc();
  for (const fmt of ['html', 'json'] as const) {
    const chunks = chunkDocument(doc, opts({ table_output_format: fmt, max_chunk_size: 2000 }));
    const t = chunks.filter((c) => c.metadata.type === 'table');
    assert.equal(t[0]!.content, renderTable(doc.tables[0]!, fmt));
    assert.ok(t.length >= 2);
    for (const c of t) assert.ok(c.content.length <= 2000);
    if (fmt === 'json') {
      const rows = t.slice(1).flatMap((c) => (JSON.parse(c.content) as { rows: Record<string, string>[] }).rows.map((r) => r.Item));
      assert.deepEqual(rows, Array.from({ length: 40 }, (_, i) => `item-${i}`));
    } else for (const c of t) assert.match(c.content, /^<table><tr><th>Item|^<table><tr><th>Region/);
  }
});

test('fixed: windows at word boundaries with the overlap respected, running footers left out', () => {
  const doc = sampleDoc();
  const chunks = chunkDocument(doc, opts({ strategy: 'fixed', max_chunk_size: 200, overlap: 50 }));
  checkCommon(doc, chunks, 200);
  const ws = (c: string | undefined) => c === undefined || /\s/.test(c);
  const footers = doc.blocks.filter((b) => b.type === 'footer');
  assert.equal(footers.length, 2);
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    assert.ok(ws(doc.text[c.span.start - 1]), 'starts at a word start');
    assert.ok(ws(doc.text[c.span.end]), 'ends at a word end');
    assert.ok(footers.every((f) => f.span.end <= c.span.start || f.span.start >= c.span.end), `${c.id} takes in no footer`);
    if (i > 0) {
      const ov = chunks[i - 1]!.span.end - c.span.start;
      // windows overlap, except across a footer: the next one starts after it
      const across = footers.some((f) => f.span.start >= chunks[i - 1]!.span.end && f.span.end <= c.span.start);
      assert.ok(across ? ov < 0 : ov > 0 && ov <= 50, `overlap ${ov}`);
    }
  }
  assert.equal(chunks[chunks.length - 1]!.span.end, doc.text.trimEnd().length, 'covers the end');
  const noOverlap = chunkDocument(doc, opts({ strategy: 'fixed', max_chunk_size: 200, overlap: 0 }));
  const body = footers.reduceRight((t, f) => t.slice(0, f.span.start) + t.slice(f.span.end), doc.text);
  assert.equal(noOverlap.map((c) => c.content).join(' ').replace(/\s+/g, ' '), body.replace(/\s+/g, ' '), 'nothing lost but the footers, nothing repeated');
});

test('page: one chunk per page, tables as text, running footers left out', () => {
  const doc = sampleDoc();
  const chunks = chunkDocument(doc, opts({ strategy: 'page' }));
  assert.deepEqual(chunks.map((c) => c.page), [1, 2, 3]);
  for (const c of chunks) {
    assert.equal(c.content, doc.text.slice(c.span.start, c.span.end));
    assert.deepEqual(c.metadata.pages, [c.page]);
    assert.doesNotMatch(c.content, /Page \d of 3/);
  }
  assert.match(chunks[0]!.content, /South: down 2%$/);
  assert.ok(chunks[1]!.content.includes(tableToMarkdown(doc.tables[0]!)));
  assert.ok(chunks[2]!.metadata.confidence < 0.8);
  assert.equal(chunks[2]!.metadata.heading, 'Appendix');
});

test('options are validated and errors name the option', () => {
  const doc = sampleDoc();
  const bad: [Partial<ChunkOptions>, string][] = [
    [{ max_chunk_size: 99 }, 'max_chunk_size'],
    [{ max_chunk_size: 100_001 }, 'max_chunk_size'],
    [{ max_chunk_size: 500.5 }, 'max_chunk_size'],
    [{ max_chunk_size: 400, overlap: 201 }, 'overlap'],
    [{ overlap: -1 }, 'overlap'],
    [{ strategy: 'words' as never }, 'strategy'],
    [{ table_output_format: 'csv' as never }, 'table_output_format'],
  ];
  for (const [o, name] of bad) {
    assert.throws(() => chunkDocument(doc, { ...opts(), ...o }), (e: unknown) => {
      assert.ok(e instanceof QuireError);
      assert.equal(e.code, 'VALIDATION_ERROR');
      assert.match(e.message, new RegExp(name));
      assert.equal((e.details as { option: string }).option, name);
      return true;
    });
  }
  assert.doesNotThrow(() => chunkDocument(doc, { max_chunk_size: 100 } as ChunkOptions), 'omitted overlap defaults within max/2');
});

test('sentence boundaries skip abbreviations, initials and decimals', () => {
  const t = 'Dr. Smith paid 3.5 million, approx. five times more. J. Doe agreed! Then e.g. this. Next line\nnew line';
  const starts = sentenceStarts(t).map((i) => t.slice(i, i + 6));
  assert.deepEqual(starts, ['J. Doe', 'Then e', 'Next l', 'new li']);
});

test('a document without blocks is chunked from its text; an empty one gives no chunks', () => {
  const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join(' ');
  const doc: ParsedDocument = { id: 'raw', name: 'r', format: 'txt', pages: [{ number: 1, width: 1, height: 1, ocr: false, confidence: 1 }], blocks: [], tables: [], text, metadata: {}, issues: [] };
  const chunks = chunkDocument(doc, opts({ max_chunk_size: 500 }));
  checkCommon(doc, chunks, 500);
  assert.ok(chunks.length >= 5);
  assert.deepEqual(chunkDocument({ ...doc, text: '  ' }, opts()), []);
});

test('a chunk that spans pages lists every page and a box on each, so citations can point at the right page', () => {
  // a paragraph at the foot of page 1 continues at the top of page 2; both fit one chunk
  const b = new DocumentBuilder('span', 'span.pdf', 'pdf');
  b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addPage({ number: 2, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addPage({ number: 3, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'The merger closed in March after the regulators agreed.', page: 1, bbox: box(50, 700, 500, 40), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Its cost was 4.2 million, paid in cash.', page: 2, bbox: box(60, 50, 480, 20), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Integration follows in the next year.', page: 2, bbox: box(60, 80, 400, 20), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Staff numbers stay the same.', page: 3, bbox: box(70, 40, 300, 20), confidence: 1 });
  const doc = b.build();
  for (const strategy of ['semantic', 'fixed'] as const) {
    const chunks = chunkDocument(doc, opts({ strategy, max_chunk_size: 1000, overlap: 0 }));
    assert.equal(chunks.length, 1, strategy);
    const c = chunks[0]!;
    // first page and its box stay where they were (compatibility)
    assert.equal(c.page, 1);
    assert.deepEqual(c.bbox, box(50, 700, 500, 40));
    assert.deepEqual(c.metadata.pages, [1, 2, 3]);
    assert.deepEqual(c.metadata.boxes, [
      { page: 1, bbox: box(50, 700, 500, 40) },
      { page: 2, bbox: box(60, 50, 480, 50) },
      { page: 3, bbox: box(70, 40, 300, 20) },
    ], strategy);
  }
  // a chunk on one page needs no list of boxes
  const small = chunkDocument(doc, opts({ max_chunk_size: 100, overlap: 0 }));
  for (const c of small) if (c.metadata.pages!.length === 1) assert.equal(c.metadata.boxes, undefined);
  // the page strategy never spans pages
  for (const c of chunkDocument(doc, opts({ strategy: 'page' }))) assert.equal(c.metadata.boxes, undefined);
});

test('form fields: a Field | Value table a page after the text chunks, readable labels, only filled-in visible fields', () => {
  const b = new DocumentBuilder('form-1', 'form.pdf', 'pdf');
  b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addPage({ number: 2, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Application for membership. Please fill in every field.', page: 1, bbox: box(50, 40, 400, 20), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Qux Baz 08/29/2020', page: 1, bbox: box(50, 80, 400, 20), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Signature and date.', page: 2, bbox: box(50, 40, 400, 20), confidence: 1 });
  const field = (name: string, type: string, value: unknown, page = 1, extra: object = {}) => ({ name, type, value, page, bbox: box(100, 80 + page, 120, 18), ...extra });
  b.metadata.form_fields = [
    field('Emergency_Contact', 'text', 'Qux Baz'),
    field('topmostSubform[0].Page1[0].BirthDate[0]', 'text', '08/29/2020'),
    field('topmostSubform[0].Page1[0].f1_01[0]', 'text', 'a value with no readable name'),
    field('Text7', 'text', 'also unnamed'),
    field('applicant.agree', 'checkbox', true),
    field('applicant.newsletter', 'checkbox', false),
    field('applicant.plan', 'radio', '/Premium'),
    field('applicant.country', 'dropdown', ['Portugal']),
    field('applicant.middleName', 'text', null),
    field('applicant.secret', 'text', 'hidden value', 1, { hidden: true }),
    field('Submit', 'button', null),
    field('EMPLOYEE SIGNATURE', 'signature', null, 2),
    field('Remarks', 'text', `Prefers evening sessions ${'and more words '.repeat(40)}`, 2),
  ];
  const doc = b.build();
  const chunks = chunkDocument(doc, opts({ max_chunk_size: 1000 }));
  checkCommon(doc, chunks, 1000);
  const forms = chunks.filter((c) => c.metadata.heading === 'Form fields');
  assert.deepEqual(forms.map((c) => [c.page, c.metadata.type, c.index]), [[1, 'table', chunks.length - 2], [2, 'table', chunks.length - 1]]);
  assert.equal(forms[0]!.content, [
    '| Field | Value |', '| --- | --- |', '| Emergency Contact | Qux Baz |', '| Birth Date | 08/29/2020 |', '| Agree | Yes |', '| Plan | Premium |', '| Country | Portugal |',
  ].join('\n'));
  assert.deepEqual(forms[0]!.bbox, box(100, 81, 120, 18), 'the union of its fields\' boxes');
  // a long value is cut at a word boundary; the second page's table has only what that page holds
  const remarks = forms[1]!.content.split('\n')[2]!;
  assert.match(remarks, /^\| Remarks \| Prefers evening sessions (and more words )+and…? ?\|$|^\| Remarks \| Prefers evening sessions .*… \|$/);
  assert.ok(remarks.length < 340, remarks);
  // the text chunks are what they were without the fields; fixed and page chunks have no form table
  const plain = chunkDocument({ ...doc, metadata: { ...doc.metadata, form_fields: undefined } }, opts({ max_chunk_size: 1000 }));
  assert.deepEqual(chunks.slice(0, plain.length), plain);
  for (const strategy of ['fixed', 'page'] as const) assert.ok(!chunkDocument(doc, opts({ strategy, max_chunk_size: 1000 })).some((c) => c.metadata.heading === 'Form fields'), strategy);
});

test('form fields: a form of thousands of fields gives at most 400 rows a page and 4,000 in all', () => {
  const b = new DocumentBuilder('form-2', 'big-form.pdf', 'pdf');
  for (let p = 1; p <= 12; p++) {
    b.addPage({ number: p, width: 612, height: 792, ocr: false, confidence: 1 });
    b.addBlock({ type: 'paragraph', text: `Page ${p} of the return.`, page: p, bbox: box(50, 40, 300, 20), confidence: 1 });
  }
  b.metadata.form_fields = Array.from({ length: 12 * 600 }, (_, i) => ({ name: `Line_${i}_Amount`, type: 'text', value: String(i), page: 1 + Math.floor(i / 600), bbox: box(300, 40, 80, 12) }));
  const doc = b.build();
  const chunks = chunkDocument(doc, opts({ max_chunk_size: 4000 }));
  checkCommon(doc, chunks, 4000);
  const forms = chunks.filter((c) => c.metadata.heading === 'Form fields');
  const rowsOf = (page: number) => forms.filter((c) => c.page === page).reduce((n, c) => n + c.content.split('\n').length - 2, 0);
  assert.equal(rowsOf(1), 400);
  assert.equal([...new Set(forms.map((c) => c.page))].reduce((n, p) => n + rowsOf(p), 0), 4000);
  assert.deepEqual([...new Set(forms.map((c) => c.page))], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  // each piece repeats the header and stays within the size; every page's span is that page's text
  for (const c of forms) {
    assert.ok(c.content.startsWith('| Field | Value |\n| --- | --- |\n') && c.content.length <= 4000, c.content.slice(0, 80));
    assert.ok(doc.text.slice(c.span.start, c.span.end).includes(`Page ${c.page} of the return.`));
  }
});

test('the text inside figures (figure blocks) is left out of the chunks of every strategy, as running heads and footers are', () => {
  const b = new DocumentBuilder('doc-1', 'paper.pdf', 'pdf');
  b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addPage({ number: 2, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'The pipeline has four stages. Each writes its state before the next one starts.', page: 1, bbox: box(50, 80, 500, 30), confidence: 1 });
  b.addBlock({ type: 'caption', text: 'Figure 1: The stages of the pipeline', page: 1, bbox: box(50, 400, 300, 10), confidence: 1 });
  b.addBlock({ type: 'figure', text: 'Upload queue', page: 1, bbox: box(80, 200, 90, 20), confidence: 1 });
  b.addBlock({ type: 'figure', text: 'Parser worker pool', page: 1, bbox: box(200, 200, 90, 20), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'A stage that fails is retried with a growing delay.', page: 2, bbox: box(50, 80, 500, 30), confidence: 1 });
  const doc = b.build();
  for (const strategy of ['semantic', 'fixed', 'page'] as const) {
    const chunks = chunkDocument(doc, opts({ strategy }));
    const all = chunks.map((c) => c.content).join('\n');
    assert.doesNotMatch(all, /Upload queue|Parser worker pool/, strategy);
    assert.match(all, /four stages[\s\S]*Figure 1: The stages of the pipeline[\s\S]*retried with a growing delay/, strategy);
  }
  // a document of figures alone keeps them (nothing else to chunk)
  const only = new DocumentBuilder('doc-2', 'chart.pdf', 'pdf');
  only.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  only.addBlock({ type: 'figure', text: 'Sensor north', page: 1, bbox: box(80, 200, 90, 20), confidence: 1 });
  assert.match(chunkDocument(only.build(), opts()).map((c) => c.content).join('\n'), /Sensor north/);
});

/**
 * Three pages of a letter: body paragraphs, a running head (the company's name, too short to be a fact), a
 * footer of three lines carrying the company's register and bank details, a page label, and a running title
 * that repeats the body's heading.
 */
function letterDoc(): ParsedDocument {
  const b = new DocumentBuilder('doc-9', 'letter.pdf', 'pdf');
  for (let p = 1; p <= 3; p++) {
    b.addPage({ number: p, width: 595, height: 842, ocr: false, confidence: 1 });
    b.addBlock({ type: 'header', text: 'Nordlicht GmbH', page: p, bbox: box(50, 20, 120, 10), confidence: 1 });
    if (p > 1) b.addBlock({ type: 'header', text: `${p} Terms of delivery`, page: p, bbox: box(400, 20, 120, 10), confidence: 1 });
    if (p === 1) b.addBlock({ type: 'heading', level: 1, text: 'Terms of delivery', page: 1, bbox: box(50, 60, 300, 20), confidence: 1 });
    b.addBlock({ type: 'paragraph', text: `Paragraph ${p}: ${sentence(p)} ${sentence(p + 10)}`, page: p, bbox: box(50, 100, 500, 60), confidence: 1 });
    b.addBlock({ type: 'footer', text: 'Nordlicht GmbH · Hafenstraße 12 · 20457 Hamburg', page: p, bbox: box(50, 780, 300, 8), confidence: 1 });
    b.addBlock({ type: 'footer', text: 'Amtsgericht Hamburg HRB 123456 · USt-IdNr. DE 123 456 789', page: p, bbox: box(50, 790, 300, 8), confidence: 1 }, '\n');
    b.addBlock({ type: 'footer', text: `Seite ${p} von 3`, page: p, bbox: box(450, 790, 60, 8), confidence: 1 }, '\n');
    b.addBlock({ type: 'footer', text: 'IBAN DE89 3704 0044 0532 0130 00', page: p, bbox: box(50, 800, 300, 8), confidence: 1 }, '\n');
  }
  return b.build();
}

test('furniture that carries facts: its distinct lines once, marked, after the body chunks, in every strategy', () => {
  const doc = letterDoc();
  for (const strategy of ['semantic', 'fixed', 'page'] as const) {
    const chunks = chunkDocument(doc, opts({ strategy, max_chunk_size: 400, overlap: strategy === 'fixed' ? 50 : 100 }));
    const furniture = chunks.filter((c) => c.metadata.role === 'furniture');
    assert.equal(furniture.length, 1, strategy);
    const f = furniture[0]!;
    assert.equal(f.index, chunks.length - 1, `${strategy}: after the body`);
    assert.ok(chunks.slice(0, -1).every((c) => c.metadata.role === undefined), strategy);
    // the first occurrence's lines, page and box; the page label and the short running head are left out
    assert.equal(f.content, 'Nordlicht GmbH · Hafenstraße 12 · 20457 Hamburg\nAmtsgericht Hamburg HRB 123456 · USt-IdNr. DE 123 456 789\nIBAN DE89 3704 0044 0532 0130 00', strategy);
    assert.equal(f.page, 1);
    assert.deepEqual(f.metadata.pages, [1]);
    assert.deepEqual(f.bbox, box(50, 780, 300, 28));
    assert.equal(f.metadata.type, 'text');
    assert.equal(f.metadata.heading, undefined, 'a page edge belongs to no section');
    assert.ok(f.span.start >= doc.blocks.find((b) => b.type === 'footer')!.span.start && f.span.end <= doc.text.length);
    // the body's chunks hold no furniture, and the IBAN, the page labels and the running title appear nowhere else
    const all = chunks.map((c) => c.content).join('\n');
    assert.equal(all.split('IBAN DE89').length, 2, strategy);
    assert.doesNotMatch(all, /Seite \d von 3|\d Terms of delivery/, strategy);
    assert.ok(chunks.slice(0, -1).every((c) => !c.content.includes('Hafenstraße')), strategy);
  }
});

test('furniture: page labels, short or letterless lines and running titles the body holds give no chunk; a document of furniture alone is its own body', () => {
  const b = new DocumentBuilder('doc-10', 'report.pdf', 'pdf');
  for (let p = 1; p <= 4; p++) {
    b.addPage({ number: p, width: 612, height: 792, ocr: false, confidence: 1 });
    b.addBlock({ type: 'header', text: 'Annual Report 2024 of the Northern Division', page: p, bbox: box(50, 20, 300, 10), confidence: 1 });
    if (p === 1) b.addBlock({ type: 'heading', level: 1, text: 'Annual Report 2024 of the Northern Division', page: 1, bbox: box(50, 60, 400, 20), confidence: 1 });
    b.addBlock({ type: 'paragraph', text: sentence(p), page: p, bbox: box(50, 100, 500, 30), confidence: 1 });
    b.addBlock({ type: 'footer', text: 'Confidential', page: p, bbox: box(50, 770, 100, 8), confidence: 1 });
    b.addBlock({ type: 'footer', text: `Page ${p} of 4`, page: p, bbox: box(280, 770, 60, 8), confidence: 1 }, '\n');
    b.addBlock({ type: 'footer', text: ['i', 'ii', 'iii', 'iv'][p - 1]!, page: p, bbox: box(550, 770, 20, 8), confidence: 1 }, '\n');
    b.addBlock({ type: 'footer', text: `- ${p} -`, page: p, bbox: box(300, 780, 20, 8), confidence: 1 }, '\n');
    b.addBlock({ type: 'footer', text: '2024-12-31 / 07:00', page: p, bbox: box(300, 790, 20, 8), confidence: 1 }, '\n');
  }
  const doc = b.build();
  for (const strategy of ['semantic', 'fixed', 'page'] as const) {
    const chunks = chunkDocument(doc, opts({ strategy }));
    assert.ok(chunks.every((c) => c.metadata.role === undefined), strategy);
    assert.doesNotMatch(chunks.map((c) => c.content).join('\n'), /Confidential|Page \d of 4|- \d -|2024-12-31/, strategy);
  }
  const only = new DocumentBuilder('doc-11', 'cover.pdf', 'pdf');
  only.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  only.addBlock({ type: 'footer', text: 'Nordlicht GmbH · IBAN DE89 3704 0044 0532 0130 00', page: 1, bbox: box(50, 780, 300, 8), confidence: 1 });
  const alone = chunkDocument(only.build(), opts());
  assert.equal(alone.length, 1);
  assert.equal(alone[0]!.metadata.role, undefined);
});

test('furniture: a page number printed in a running line is left out when it follows the page order; a number that stays the same is kept', () => {
  const b = new DocumentBuilder('doc-13', 'manual.pdf', 'pdf');
  for (let p = 1; p <= 3; p++) {
    b.addPage({ number: p, width: 612, height: 792, ocr: false, confidence: 1 });
    // the printed page number runs 7 ahead of the file's page; the running title is nowhere in the body
    b.addBlock({ type: 'header', text: `${p + 7} Field Manual of Survey Practice`, page: p, bbox: box(50, 20, 300, 10), confidence: 1 });
    b.addBlock({ type: 'paragraph', text: sentence(p), page: p, bbox: box(50, 100, 500, 30), confidence: 1 });
    b.addBlock({ type: 'footer', text: `Survey Office Nord · Kto-Nr. 48567`, page: p, bbox: box(50, 770, 300, 8), confidence: 1 });
    // printed once: nothing tells its number from a fact
    if (p === 1) b.addBlock({ type: 'footer', text: 'Revision of the manual 12', page: p, bbox: box(50, 780, 300, 8), confidence: 1 }, '\n');
  }
  const doc = b.build();
  for (const strategy of ['semantic', 'fixed', 'page'] as const) {
    const chunks = chunkDocument(doc, opts({ strategy }));
    checkCommon(doc, chunks, 1000);
    const furniture = chunks.filter((c) => c.metadata.role === 'furniture').map((c) => c.content);
    assert.deepEqual(furniture, ['Field Manual of Survey Practice', 'Survey Office Nord · Kto-Nr. 48567\nRevision of the manual 12'], strategy);
  }
});

test('furniture: a footer longer than the chunk size is packed line by line, each piece within the size', () => {
  const b = new DocumentBuilder('doc-12', 'invoice.pdf', 'pdf');
  const lines = Array.from({ length: 12 }, (_, i) => `Branch office ${String.fromCharCode(65 + i)} · Harbour street ${i + 1} · phone +49 40 555 01${i}`);
  for (let p = 1; p <= 2; p++) {
    b.addPage({ number: p, width: 612, height: 792, ocr: false, confidence: 1 });
    b.addBlock({ type: 'paragraph', text: sentence(p), page: p, bbox: box(50, 100, 500, 30), confidence: 1 });
    lines.forEach((l, i) => b.addBlock({ type: 'footer', text: l, page: p, bbox: box(50, 700 + i * 8, 300, 8), confidence: 1 }, '\n'));
  }
  const doc = b.build();
  const chunks = chunkDocument(doc, opts({ max_chunk_size: 200 }));
  checkCommon(doc, chunks, 200);
  const furniture = chunks.filter((c) => c.metadata.role === 'furniture');
  assert.ok(furniture.length > 1);
  assert.deepEqual(furniture.flatMap((c) => c.content.split('\n')), lines, 'every line once, in order');
  assert.ok(furniture.every((c) => c.page === 1));
  assert.deepEqual(chunks.slice(-furniture.length), furniture, 'after the body');
});

test("a table's numbered caption printed above it moves into the table's chunks (every format and piece); a sentence naming the table stays", () => {
  const build = (caption: string, type: 'paragraph' | 'caption' = 'paragraph') => {
    const b = new DocumentBuilder('doc-cap', 'report.pdf', 'pdf');
    b.addPage({ number: 2, width: 612, height: 792, ocr: false, confidence: 1 });
    b.addBlock({ type: 'paragraph', text: 'Issuance fell sharply after the summer. Investors stopped rolling over paper.', page: 2, bbox: box(50, 40, 500, 30), confidence: 1 });
    b.addBlock({ type, text: caption, page: 2, bbox: box(50, 80, 300, 12), confidence: 1 });
    b.addTable(table([['Year', 'Q1', 'Total'], ...Array.from({ length: 30 }, (_, i) => [`${1990 + i}`, `${i}.5`, `${i * 4}.0`])]));
    return b.build();
  };
  const doc = build('Table 3 - European ABCP issuance');
  const chunks = chunkDocument(doc, opts());
  checkCommon(doc, chunks, 400);
  const text = chunks.filter((c) => c.metadata.type === 'text');
  const tables = chunks.filter((c) => c.metadata.type === 'table');
  assert.equal(text.length, 1);
  assert.equal(text[0]!.content, 'Issuance fell sharply after the summer. Investors stopped rolling over paper.', 'the caption left the text chunk');
  assert.ok(tables.length >= 2, 'the table is split into pieces');
  for (const t of tables) {
    assert.ok(t.content.startsWith('Table 3 - European ABCP issuance\n\n| Year | Q1 | Total |'), t.content.slice(0, 60));
    assert.equal(t.metadata.caption, 'Table 3 - European ABCP issuance');
  }
  assert.equal(tables[0]!.span.start, doc.text.indexOf('Table 3'), "the first piece's span starts at the caption");
  assert.equal(tables[0]!.bbox!.y, 80, "the first piece's box takes the caption in");
  const html = chunkDocument(doc, opts({ table_output_format: 'html' })).find((c) => c.metadata.type === 'table')!;
  assert.ok(html.content.startsWith('<table><caption>Table 3 - European ABCP issuance</caption><tr>'), html.content.slice(0, 80));
  const json = chunkDocument(doc, opts({ table_output_format: 'json', max_chunk_size: 100_000 })).find((c) => c.metadata.type === 'table')!;
  assert.equal(JSON.parse(json.content).caption, 'Table 3 - European ABCP issuance');
  assert.equal(JSON.parse(json.content).rows.length, 30);
  // other captions: numbered otherwise, a caption block; not a sentence that names the table, nor a figure's caption
  for (const [caption, type, moves] of [
    ['Table 3.3: Frequency of substance abuse by type of substance', 'paragraph', true],
    ['TABLE 1. Selected characteristics of householders in inadequate housing', 'paragraph', true],
    ['Tabelle 2 Umsatz nach Regionen', 'paragraph', true],
    ['Recommended sample sizes by design effect', 'caption', true],
    ['Table 8.13 illustrates the development of own brand market shares:', 'paragraph', false],
    ['Tables are listed in the appendix.', 'paragraph', false],
    ['Figure 2: Issuance by quarter', 'caption', false],
  ] as const) {
    const d = build(caption, type);
    const cs = chunkDocument(d, opts({ max_chunk_size: 100_000 }));
    const t = cs.find((c) => c.metadata.type === 'table')!;
    assert.equal(t.content.startsWith(`${caption}\n\n|`), moves, caption);
    assert.equal(cs.filter((c) => c.metadata.type === 'text').some((c) => c.content.includes(caption)), !moves, caption);
    assert.equal(cs.map((c) => c.content).join('\n').split(caption).length, 2, `${caption}: once`);
  }
  // a caption alone in its chunk (the text before it filled the previous one) leaves no empty chunk behind
  const b = new DocumentBuilder('doc-cap2', 'report.pdf', 'pdf');
  b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: Array.from({ length: 3 }, (_, i) => sentence(i)).join(' '), page: 1, bbox: box(50, 40, 500, 80), confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'Table 4 - Regional results', page: 1, bbox: box(50, 130, 300, 12), confidence: 1 });
  b.addTable(table([['Region', 'Q1'], ['North', '10']], 1));
  const cs = chunkDocument(b.build(), opts({ max_chunk_size: 280 }));
  assert.deepEqual(cs.map((c) => c.metadata.type), ['text', 'table']);
  assert.ok(cs[1]!.content.startsWith('Table 4 - Regional results\n\n| Region | Q1 |'));
});
