import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { AFTER_FIGURE, FIGURE_CAPTION, FIGURE_COLUMNS, FIGURE_LABELS, LETTER_FOOTER, LETTER_IBAN, figurePdf, letterPdf, noticePdf, transcriptPdf } from '../helpers/layout-pdfs.js';

/** Reading real page layouts over HTTP: page furniture, line-number gutters and figures, as the chunks show them. */
describe('page furniture, line-number gutters and figures, upload → chunks', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const parse = async (name: string, bytes: Uint8Array) => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const content = await s.json(`/v1/documents/${up.body.id}/content?response=full`);
    assert.equal(content.status, 200);
    return { id: up.body.id as string, ...(content.body as { text: string; chunks: { id: string; index: number; page: number; content: string; type: string; role?: string }[] }) };
  };
  /** the body's chunks, and the chunks of the furniture that carries words (after them, marked) */
  const parts = (chunks: { content: string; role?: string }[]) => {
    const furniture = chunks.filter((x) => x.role === 'furniture');
    assert.deepEqual(chunks.slice(chunks.length - furniture.length), furniture, 'the furniture chunks come after the body');
    return { body: chunks.filter((x) => x.role === undefined).map((x) => x.content).join('\n'), furniture: furniture.map((x) => x.content).join('\n') };
  };

  test('running heads, a date line and page numbers stay in the text but not in the body chunks; the heads once after them, page numbers nowhere', async () => {
    const c = await parse('notice.pdf', await noticePdf());
    assert.match(c.text, /Federal Register \/ Vol\. 85, No\. 152/);
    assert.ok(c.chunks.length >= 1);
    const { body, furniture } = parts(c.chunks);
    assert.match(body, /The agency announces a public meeting of the advisory committee on water quality standards/);
    assert.doesNotMatch(body, /Vol\. 85|Thursday, August 6, 2020|Page \d of 4|4761\d/);
    assert.equal(furniture.split('Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Notices').length, 2, furniture);
    assert.equal(furniture.split('Issued Thursday, August 6, 2020').length, 2, furniture);
    assert.doesNotMatch(furniture, /Page \d of 4|4761\d/);
  });

  test('a transcript is chunked without its line numbers, a sentence over two numbered lines whole', async () => {
    const c = await parse('transcript.pdf', await transcriptPdf());
    const { body, furniture } = parts(c.chunks);
    assert.match(body, /STEVEN E\. MERCER, ESQ\., Deputy Attorney General, Los Angeles, Cal\.; on behalf of the Petitioner\./);
    assert.doesNotMatch(body, /\b(1[0-9]|2[0-5]) [A-Z]|Alderson Reporting Company|Official - Subject to Final Review/);
    // the running footers, once, after the body
    assert.equal(furniture, 'Official - Subject to Final Review\nAlderson Reporting Company');
  });

  test('the labels inside a figure stay in the text but not in the chunks; the columns around it read in order', async () => {
    const c = await parse('figure.pdf', await figurePdf());
    for (const label of FIGURE_LABELS) assert.ok(c.text.includes(label), label);
    const all = c.chunks.map((x) => x.content).join('\n');
    for (const label of FIGURE_LABELS) assert.ok(!all.includes(label), `${label} in the chunks:\n${all}`);
    let at = -1;
    for (const p of [...FIGURE_COLUMNS.flat(), [FIGURE_CAPTION], AFTER_FIGURE].map((lines) => lines.join(' '))) {
      const i = all.indexOf(p);
      assert.ok(i > at, `"${p}" out of order or missing:\n${all}`);
      at = i;
    }
  });

  test('a template reading the text of documents gets their running text: no running heads, footers or figure labels', async () => {
    const notice = await parse('notice.pdf', await noticePdf());
    const figure = await parse('figure.pdf', await figurePdf());
    const r = await s.json('/api/generate/run', { method: 'POST', json: { template_prompt: '# Texts\n\n{{#each documents}}{{text}}\n\n{{/each}}', output_format: 'markdown', source_document_ids: [notice.id, figure.id] } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const gen = await waitForStatus(s, `/v1/documents/${r.body.generated_document_id}`);
    assert.equal(gen.status, 'completed', JSON.stringify(gen));
    const out = (await s.json(`/v1/documents/${r.body.generated_document_id}/content`)).body.text as string;
    assert.match(out, /water quality standards for coastal regions/);
    assert.match(out, /The ingest service reads every uploaded file/);
    assert.doesNotMatch(out, /Vol\. 85|Page \d of 4|Issued Thursday/);
    for (const label of FIGURE_LABELS) assert.ok(!out.includes(label), `${label} in:\n${out}`);
  });

  test('the Markdown of a page with a figure reads its prose and caption without the labels inside the figure', async () => {
    const r = await s.json('/api/pdf-to-markdown', { method: 'POST', body: uploadForm('figure.pdf', await figurePdf()) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const md = r.body.markdown as string;
    assert.ok(md.includes(FIGURE_COLUMNS[1]![2]!.join(' ')), md);
    assert.ok(md.includes(FIGURE_CAPTION), md);
    for (const label of FIGURE_LABELS) assert.ok(!md.includes(label), `${label} in:\n${md}`);
  });

  test('a footer that carries facts (bank details) is in one chunk marked furniture after the body chunks; its page numbers in none; a search for the IBAN finds it', async () => {
    const { text, chunks } = await parse('letter.pdf', await letterPdf());
    // the document's text keeps the footer of every page
    assert.equal(text.split(LETTER_IBAN).length, 4, text);

    const holding = chunks.filter((c) => c.content.includes(LETTER_IBAN));
    assert.equal(holding.length, 1, JSON.stringify(chunks, null, 1));
    const f = holding[0]!;
    assert.equal(f.role, 'furniture');
    assert.equal(f.type, 'text');
    assert.equal(f.page, 1, 'the first occurrence');
    for (const line of LETTER_FOOTER) assert.ok(f.content.includes(line), `${line} in ${f.content}`);
    const body = chunks.filter((c) => c.role === undefined);
    assert.ok(body.length >= 1);
    assert.ok(body.every((c) => c.index < f.index), 'after the body chunks');
    assert.match(body.map((c) => c.content).join('\n'), /Thank you for your order[\s\S]*seven days/);
    assert.ok(body.every((c) => !LETTER_FOOTER.some((line) => c.content.includes(line))), 'the body chunks hold no footer');
    assert.ok(chunks.every((c) => !/Seite \d von 3/.test(c.content)), 'the page numbers are in no chunk');

    const found = await s.json('/v1/search', { method: 'POST', json: { query: `IBAN ${LETTER_IBAN}`, limit: 3 } });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.data[0]?.chunk_id, f.id, JSON.stringify(found.body.data));

    // the parse result marks it too
    const parsed = await s.json('/api/parse', { method: 'POST', body: uploadForm('letter.pdf', await letterPdf()) });
    assert.equal(parsed.status, 200, JSON.stringify(parsed.body));
    const pc = parsed.body.result.chunks as { content: string; metadata: { type: string; role?: string } }[];
    assert.deepEqual(pc.filter((c) => c.content.includes(LETTER_IBAN)).map((c) => c.metadata), [{ type: 'text', confidence: 1, role: 'furniture' }]);
    assert.equal(pc.at(-1)!.metadata.role, 'furniture');
  });
});
