import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';
import { makePdf } from '../helpers/fixtures.js';

/**
 * The three kinds of offline chat answer (answer_type): a `value` (one sentence or one table cell of the asked type),
 * a `passage` ("The documents say: …", whole sentences, joined across line breaks and a line-number gutter) and `none`
 * (the refusal), over generated documents in one knowledge base.
 */

const NOT_FOUND = "I could not find this in the knowledge base's sources.";

/** a table of measures by school year: the answer is one cell, with its row and its column */
async function borrowingDocx(): Promise<Buffer> {
  const row = (cells: string[]) => new TableRow({ children: cells.map((c) => new TableCell({ children: [new Paragraph(c)] })) });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Student borrowing at Vantaa College', heading: HeadingLevel.HEADING_1 }),
          new Paragraph('The table below compares undergraduate borrowing in two school years.'),
          new Table({
            rows: [
              row(['Measure', '2011–12', '2015–16']),
              row(['Percent who borrowed', '41%', '45%']),
              row(['Average amount borrowed', '$11,200', '$12,400']),
              row(['Students enrolled', '18,300', '19,950']),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

describe('chat answer types: value, passage, none', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    // a Dutch invoice: its labels are not the question's words
    const invoice = await makePdf([{ heading: 'Brandt Installatietechniek B.V.', lines: ['Factuurnummer: INV-2024-0871', 'Factuurdatum: 12 februari 2024', 'Omschrijving: onderhoud cv-ketel', 'Totaal te betalen: EUR 1.245,50'] }]);
    // a notice with a line-number gutter: its sentences run across numbered lines
    const notice = await makePdf([
      {
        heading: 'Kestrel Bay Harbour Notice',
        lines: [
          '1   The Kestrel Bay lighthouse was first lit on 3 August 1874 by the keeper Ansel Brook.',
          '2   The harbour board decided that the northern footbridge',
          '3   will close for structural repairs from the first of May',
          '4   until the end of the summer season.',
          '5   Boats moored at the northern quay must use the',
          '6   southern slipway while the works are carried out.',
        ],
      },
    ]);
    await chat.open(s, 'Answer types', [
      ['factuur-brandt.pdf', invoice],
      ['kestrel-notice.pdf', notice],
      ['borrowing.docx', await borrowingDocx()],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('a typed question is answered by a value: one sentence of the asked type, cited, confident', async () => {
    const a = await ask('On what date was the Kestrel Bay lighthouse first lit?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /3 August 1874/);
    assert.ok(cites(a, 'kestrel-notice.pdf'), a.message);
    assert.ok(a.confidence >= 0.6, String(a.confidence));
    // the gutter's line number is no part of the quoted sentence
    assert.doesNotMatch(a.message, /^\s*1\s/);
  });

  test('a label in the document’s language counts as the question’s words: the invoice number of a Dutch invoice', async () => {
    const a = await ask('What is the invoice number of the Brandt invoice?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /INV-2024-0871/);
    assert.ok(cites(a, 'factuur-brandt.pdf'), a.message);
  });

  test('a question no sentence gives a value for is answered by a passage quoting the whole sentence across its numbered lines', async () => {
    const a = await ask('What did the harbour board decide about the northern footbridge?');
    assert.equal(a.answer_type, 'passage', a.message);
    assert.match(a.message, /^The documents say: /);
    const flat = a.message.replace(/\s+/g, ' ');
    assert.ok(flat.includes('The harbour board decided that the northern footbridge will close for structural repairs from the first of May until the end of the summer season.'), flat);
    // no gutter numbers inside the quoted sentence
    assert.doesNotMatch(flat, /footbridge \d|May \d/);
    assert.ok(cites(a, 'kestrel-notice.pdf'), a.message);
    assert.ok(a.confidence < 0.8, `a passage's confidence is the retrieval's: ${a.confidence}`);
  });

  test('a table answer is ONE cell with its row label and column header, never the row', async () => {
    const a = await ask('What percent of students borrowed in 2015–16?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /Percent who borrowed \(2015–16\): 45%/);
    assert.ok(cites(a, 'borrowing.docx'), a.message);
    // not the row of cells, not the other year's value
    assert.doesNotMatch(a.message, /\|/);
    assert.doesNotMatch(a.message, /41%/);
    const amount = await ask('What was the average amount borrowed in 2011–12?');
    assert.notEqual(amount.answer_type, 'none', amount.message);
    assert.doesNotMatch(amount.message, /\|/);
    assert.doesNotMatch(amount.message, /\$12,400/);
    if (amount.answer_type === 'value') assert.match(amount.message, /Average amount borrowed \(2011–12\): \$11,200/);
  });

  test('a table row of several cells is never the answer, whatever is asked of it', async () => {
    for (const q of ['How many students were enrolled?', 'What are the borrowing figures?', 'What percent borrowed?']) {
      const a = await ask(q);
      assert.doesNotMatch(a.message, /\d[%\d,]*\s*\|\s*\$?\d/, `${q}: ${a.message}`);
    }
  });

  test('a row whose cells the question does not tell apart is quoted as a passage, each cell under its column header', async () => {
    const a = await ask('How many students were enrolled?');
    assert.equal(a.answer_type, 'passage', a.message);
    assert.match(a.message, /Students enrolled \(2011–12\): 18,300/);
    assert.match(a.message, /Students enrolled \(2015–16\): 19,950/);
    assert.ok(cites(a, 'borrowing.docx'), a.message);
  });

  test('a question the documents do not touch is refused: answer_type none, no citations', async () => {
    const a = await ask('Who won the 1998 chess olympiad in Elista?');
    assert.equal(a.answer_type, 'none');
    assert.equal(a.message, NOT_FOUND);
    assert.deepEqual(a.citations, []);
    assert.ok(a.confidence < 0.5);
  });

  test('document-level questions answer from the title and the first section', async () => {
    const title = await ask('What is the title of the borrowing document?');
    assert.equal(title.answer_type, 'value', title.message);
    assert.match(title.message, /Student borrowing at Vantaa College/);
    assert.ok(cites(title, 'borrowing.docx'));
    const about = await ask('What is the Kestrel notice about?');
    assert.equal(about.answer_type, 'passage', about.message);
    assert.match(about.message, /^The documents say: /);
    assert.ok(cites(about, 'kestrel-notice.pdf'), about.message);
  });

  test('the stream’s complete event and the embed and OpenAI-compatible answers carry answer_type', async () => {
    const res = await s.api('/api/chat', { method: 'POST', json: { message: 'On what date was the Kestrel Bay lighthouse first lit?', knowledge_base_id: chat.kb, stream: true } });
    assert.equal(res.status, 200);
    const events = (await res.text())
      .split('\n\n')
      .map((e) => e.split('\n').find((l) => l.startsWith('data: ')))
      .filter((l): l is string => !!l)
      .map((l) => JSON.parse(l.slice(6)));
    const complete = events.find((e) => e.type === 'complete');
    assert.ok(complete, JSON.stringify(events));
    assert.equal(complete.result.answer_type, 'value');
    const embed = await s.json('/api/v1/embed', { method: 'POST', json: { action: 'chat', chat: { message: 'Who won the 1998 chess olympiad in Elista?', knowledge_base_id: chat.kb } } });
    assert.equal(embed.status, 200, JSON.stringify(embed.body));
    assert.equal(embed.body.data.answer_type, 'none');
    const completion = await s.json('/v1/chat/completions', { method: 'POST', json: { model: `kb:${chat.kb}`, messages: [{ role: 'user', content: 'What did the harbour board decide about the northern footbridge?' }] } });
    assert.equal(completion.status, 200, JSON.stringify(completion.body));
    assert.equal(completion.body.answer_type, 'passage');
  });
});
