/**
 * Hostile inputs over HTTP for the work that parses a file or renders a template outside the readers: the
 * editor's pdf-lib (detect, run), the copy of a split's page ranges with pdf-lib, and handlebars templates of
 * generation. Each runs in an isolate with a heap and a time limit (core's runIsolated), so each hostile input
 * below ends its request or job with a clear, permanent error (422 UNPROCESSABLE) and /healthz, asked while the
 * work runs, answers before the work is over (the API's event loop is free meanwhile).
 *
 * The files are made here as raw bytes: a PDF whose body holds 150,000 small dictionaries (pdf-lib's load of them
 * needs more than 160 MB of heap, well past the isolates' 128 MB: the editor's isolate is refused; the split's page
 * copy is refused too, or fits where it is given more; PDFium, within the reader's own limits, reads it), a
 * PDF whose page tree and field tree are cycles, and one whose cross-reference table is cut short. (Without their
 * fourth entry the dictionaries took just under 128 MB in an isolate that loads only what it uses: the fixture
 * stays clear of the limit.)
 * The server's limits are set low (a 128 MB heap per isolate, a 20 s time limit) so that the suite stays fast; the
 * time limit also bounds PDFium's read of the 150,000-object PDF at upload, which ran past a 6 s limit on a loaded
 * 2-core machine (load 10–15), so it is not set lower there. The templates run on a server of their own with a
 * 5 s limit: a template without end spends its whole limit of one core before it is stopped, and nothing else
 * there needs more (two small text files).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const HEAP_MB = 128;
const LIMITS = { QUIRE_PARSE_TIMEOUT_S: '20', QUIRE_READER_HEAP_MB: String(HEAP_MB) };
/** the time limit of the template cases (their own server) */
const TEMPLATE_LIMIT_S = 5;

/** A raw PDF: one page with one text field (a widget named "name"), then `body` objects, then the trailer. */
function rawPdf(body: string[], opts: { cyclic?: boolean; xref?: 'truncated' } = {}): Buffer {
  const objs = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>\nendobj\n',
    // a cycle: the page tree lists itself among its kids, the field is its own parent and kid
    opts.cyclic ? '2 0 obj\n<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>\nendobj\n' : '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n',
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] /Contents 5 0 R >>\nendobj\n',
    `4 0 obj\n<< /FT /Tx /T (name) /Type /Annot /Subtype /Widget /Rect [100 700 300 720] /P 3 0 R${opts.cyclic ? ' /Parent 4 0 R /Kids [4 0 R]' : ''} >>\nendobj\n`,
    '5 0 obj\n<< /Length 44 >>\nstream\nBT /F1 12 Tf 100 740 Td (Name of applicant) Tj ET\nendstream\nendobj\n',
    ...body,
  ];
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const o of objs) {
    offsets.push(out.length);
    out += o;
  }
  const xrefAt = out.length;
  const rows = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`);
  if (opts.xref === 'truncated') out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${rows.slice(0, 2).join('')}00000`;
  else out += `trailer\n<< /Root 1 0 R /Size ${objs.length + 1} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** 150,000 small dictionaries that refer to each other (~12 MB): pdf-lib needs more than 160 MB of heap to load them. */
function manyObjectsPdf(): Buffer {
  const body: string[] = [];
  for (let i = 6; i < 150_006; i++) body.push(`${i} 0 obj\n<< /A [${i} 0 R ${i + 1} 0 R] /B (x${i}) /C ${i} /D [0 0] >>\nendobj\n`);
  return rawPdf(body);
}

const uploadTo = async (s: TestServer, name: string, bytes: Uint8Array, type = 'application/pdf') => {
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes, {}, type) });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  return { id: up.body.id as string, doc: await waitForStatus(s, `/v1/documents/${up.body.id}`) };
};

/**
 * Runs `work` while asking the server's /healthz every 50 ms; returns its answer and how many /healthz
 * answers came before the work was over (every one of them a 200).
 */
async function duringWork<T>(s: TestServer, work: () => Promise<T>): Promise<{ result: T; health: number }> {
  let over = false;
  let health = 0;
  const sampler = (async () => {
    while (!over) {
      const r = await fetch(`${s.url}/healthz`);
      await r.arrayBuffer();
      assert.equal(r.status, 200);
      if (!over) health++;
      // a pause between checks: back-to-back requests would spend a core of their own on the loaded machine
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    return { result: await work(), health };
  } finally {
    over = true;
    await sampler;
  }
}

/** A clear, permanent refusal: 422 UNPROCESSABLE, a message that names the limit, no raw JavaScript error. */
function refused(r: { status: number; body: any }, pattern: RegExp): void {
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'UNPROCESSABLE');
  assert.match(r.body.error.message, pattern);
  assert.doesNotMatch(r.body.error.message, /at .*\.(ts|js):\d+|TypeError|undefined/);
}

describe('hostile inputs to edit and split over HTTP', () => {
  let s: TestServer;
  /** the PDF of 150,000 objects, uploaded once (edit and split) */
  let many = '';

  before(async () => {
    s = await startTestServer({ env: LIMITS });
    const { id, doc } = await uploadTo(s, 'many-objects.pdf', manyObjectsPdf());
    assert.equal(doc.status, 'completed', 'PDFium reads it');
    many = id;
  });
  after(async () => {
    await s?.close();
  });

  test('edit detect and edit run: a PDF of 150,000 objects ends in its isolate (memory), the API answers meanwhile', async () => {
    const id = many;
    const det = await duringWork(s, () => s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } }));
    refused(det.result, new RegExp(`more memory than its limit \\(${HEAP_MB} MB\\)|within 20 s`));
    assert.ok(det.health >= 1, '/healthz answered while the PDF was being loaded');
    const run = await duringWork(s, () => s.json('/api/edit/run', { method: 'POST', json: { document_id: id, mappings: [{ elementId: 'name', value: 'Ana' }] } }));
    refused(run.result, new RegExp(`more memory than its limit \\(${HEAP_MB} MB\\)|within 20 s`));
    assert.ok(run.health >= 1, '/healthz answered while the PDF was being loaded');
    // the service is still whole: a plain health check and a listing answer
    assert.equal((await s.json('/v1/documents')).status, 200);
  });

  test('edit: a cyclic page and field tree is answered without its fields or refused, never a 500; a truncated cross-reference table is refused by the reader and read or refused by the editor', async () => {
    const cyc = await uploadTo(s, 'cyclic.pdf', rawPdf([], { cyclic: true }));
    assert.equal(cyc.doc.status, 'completed', JSON.stringify(cyc.doc));
    const c = await duringWork(s, () => s.json('/api/edit/detect', { method: 'POST', json: { document_id: cyc.id } }));
    // pdf-lib's walk of the cycles overflows its stack in the isolate: the form reads as having no fields (the
    // page's blanks come from the layout) or the file is refused; never a 500 or a hung request
    if (c.result.status === 422) refused(c.result, /could not be processed|cannot be read/);
    else {
      assert.equal(c.result.status, 200, JSON.stringify(c.result.body));
      assert.ok(!c.result.body.elements.some((e: any) => e.source === 'acroform'), JSON.stringify(c.result.body));
    }
    const fill = await s.json('/api/edit/run', { method: 'POST', json: { document_id: cyc.id, mappings: [{ elementId: 'name', value: 'Ana' }] } });
    assert.ok(fill.status === 200 || fill.status === 422 || fill.status === 400, JSON.stringify(fill.body));
    if (fill.status !== 200) assert.doesNotMatch(fill.body.error.message, /at .*\.(ts|js):\d+|TypeError/);
    const cut = await uploadTo(s, 'truncated-xref.pdf', rawPdf([], { xref: 'truncated' }));
    // PDFium refuses a file that ends inside its table (no trailer), with a clear message
    assert.equal(cut.doc.status, 'failed', JSON.stringify(cut.doc));
    assert.match(cut.doc.error, /truncated or damaged/);
    // the editor's pdf-lib reads its objects without the table: the field is found, or the file is refused cleanly
    const r = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: cut.id } });
    if (r.status === 200) assert.deepEqual(r.body.elements.map((e: any) => e.id), ['name']);
    else {
      assert.ok(r.status >= 400 && r.status < 500, JSON.stringify(r.body));
      assert.doesNotMatch(r.body.error.message, /at .*\.(ts|js):\d+|TypeError/);
    }
  });

  test('split run: copying the pages of a PDF of 150,000 objects runs in its isolate: split, or refused (422) at its memory or time limit, never a 500', async () => {
    const run = await duringWork(s, () => s.json('/api/split/run', { method: 'POST', json: { document_id: many } }));
    // pdf-lib loads the whole file to copy the page: past the isolate's heap limit here; with more heap it copies
    // the page in some seconds of one core, and may reach the time limit on a loaded machine; either way the job
    // ends with a clear outcome
    if (run.result.status === 422) refused(run.result, new RegExp(`The PDF to split needs more memory than its limit \\(${HEAP_MB} MB\\)|The PDF to split could not be processed within 20 s`));
    else {
      assert.equal(run.result.status, 200, JSON.stringify(run.result.body));
      assert.equal(run.result.body.status, 'completed', JSON.stringify(run.result.body));
      assert.deepEqual(run.result.body.sections.map((x: any) => [x.page_start, x.page_end]), [[1, 1]]);
    }
    assert.ok(run.health >= 1, '/healthz answered while the pages were being copied');
  });
});

describe('hostile templates of generation over HTTP', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { ...LIMITS, QUIRE_PARSE_TIMEOUT_S: String(TEMPLATE_LIMIT_S) } });
  });
  after(async () => {
    await s?.close();
  });

  test('generate: a template that loops without end is stopped at its time limit, one that builds too much is refused', async () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `word${i}`).join(' ');
    const a = await uploadTo(s, 'a.txt', Buffer.from(`Source A\n\n${words}\n`), 'text/plain');
    const b = await uploadTo(s, 'b.txt', Buffer.from(`Source B\n\n${words}\n`), 'text/plain');
    const ids = [a.id, b.id];
    // 2^26 iterations of nested loops (no output): minutes of rendering on one core
    const loop = `# Loop\n\n${'{{#each @root.documents}}'.repeat(26)}{{/each}}${'{{/each}}'.repeat(25)}`;
    const slow = await duringWork(s, () => s.json('/api/generate/run', { method: 'POST', json: { template_prompt: loop, output_format: 'markdown', source_document_ids: ids } }));
    refused(slow.result, new RegExp(`The template could not be processed within ${TEMPLATE_LIMIT_S} s`));
    assert.ok(slow.health >= 1, '/healthz answered while the template was being rendered');
    // each document's text 2^9 times over: ~100 MB of markdown, past the heap or the 5,000,000-character limit
    const big = `# Big\n\n${'{{#each @root.documents}}'.repeat(9)}{{text}}${'{{/each}}'.repeat(9)}`;
    const huge = await duringWork(s, () => s.json('/api/generate/run', { method: 'POST', json: { template_prompt: big, output_format: 'markdown', source_document_ids: ids } }));
    refused(huge.result, new RegExp(`larger than 5000000 characters|The template needs more memory than its limit|within ${TEMPLATE_LIMIT_S} s`));
    assert.ok(huge.health >= 1, '/healthz answered while the template was being rendered');
  });
});
