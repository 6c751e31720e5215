import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Where no single value can be told, the offline answerer quotes the sentence that answers, whole and cited, as a
 * `passage` ("The documents say: …"), when retrieval is confident in it; never a row of table cells or a sentence that
 * only restates the question; and refuses (`none`) when nothing relevant is found.
 */

const NOT_FOUND = "I could not find this in the knowledge base's sources.";

async function guideDocx(): Promise<Buffer> {
  const row = (cells: string[]) => new TableRow({ children: cells.map((c) => new TableCell({ children: [new Paragraph(c)] })) });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Harbour fittings maintenance guide', heading: HeadingLevel.HEADING_1 }),
          new Paragraph('This guide describes the fittings used along the piers of Kestrel Bay and how the harbour crew looks after them.'),
          new Paragraph({ text: 'Cleats and bollards', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('Mooring cleats on the eastern pier are cast from marine bronze, galvanised iron or recycled nylon composite.'),
          new Paragraph('Bollards are inspected twice a year by the harbour crew, who record any cracks in the logbook.'),
          new Paragraph({ text: 'Fenders', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('Worn fenders are replaced before the winter storms, when boats press hardest against the piers.'),
          new Paragraph('The fender store also keeps spare chains, shackles and a pump for the slipway.'),
          new Paragraph({ text: 'Instruments', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('Tidewatch records the height of every tide at the harbour mouth and warns the crew before a storm surge.'),
          new Paragraph({ text: 'Visitors', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('While your boat is moored at the visitor pontoon, you can relax and look around the harbour.'),
          new Table({
            rows: [row(['Fitting', 'Pier', 'Inspections', 'Crew']), row(['Cleat', 'East', '2', 'Marsh']), row(['Bollard', 'West', '4', 'Okafor']), row(['Fender', 'North', '6', 'Lindqvist'])],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

describe('chat: a cited passage instead of a refusal', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Evidence passages', [['harbour-guide.docx', await guideDocx()]]);
  });

  after(async () => {
    await s?.close();
  });

  test('a question no value answers is answered by the whole sentence that says it, cited, as a passage below 0.8', async () => {
    for (const [q, said] of [['What materials are the mooring cleats made from?', 'Mooring cleats on the eastern pier are cast from marine bronze, galvanised iron or recycled nylon composite.']]) {
      const a = await ask(q);
      assert.equal(a.answer_type, 'passage', `${q}: ${a.message}`);
      assert.equal(a.message, `The documents say: “${said}” [1]`);
      assert.ok(cites(a, 'harbour-guide.docx'), a.message);
      assert.equal(a.citations.length, 1);
      assert.ok(a.confidence >= 0.6 && a.confidence < 0.8, `${q}: ${a.confidence}`);
    }
  });

  test('a question for one of a kind whose sentence names it at its start, not as a name, is answered by that sentence', async () => {
    // ("which program …" asks for a name; "Tidewatch", the sentence's first word, is not told from any capitalised first word)
    const a = await ask('Which program records the tide heights at the harbour mouth?');
    assert.equal(a.answer_type, 'passage', a.message);
    assert.equal(a.message, 'The documents say: “Tidewatch records the height of every tide at the harbour mouth and warns the crew before a storm surge.” [1]');
    assert.ok(a.confidence >= 0.6 && a.confidence < 0.8, String(a.confidence));
    // (a kind the documents do not speak of is still refused)
    const none = await ask('Which satellite measures the sea ice in the Arctic?');
    assert.equal(none.answer_type, 'none', none.message);
  });

  test('a row of table cells is never quoted as the answer', async () => {
    for (const q of ['Which crew member inspects the fenders?', 'How many inspections does the west pier bollard get?', 'Which pier has the cleat?']) {
      const a = await ask(q);
      // (one cell with its row label and column header may answer; several cells of a row never)
      assert.doesNotMatch(a.message, /\|/, `${q}: ${a.message}`);
      assert.ok((a.message.match(/\(\w+\): /g) ?? []).length <= 1, `${q}: ${a.message}`);
    }
  });

  test('a sentence that only says the question back is no answer: refused', async () => {
    const a = await ask('Besides relaxing and looking around the harbour, what else can you do while your boat is moored at the visitor pontoon?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.equal(a.message, NOT_FOUND);
  });

  test('a question that asks for a type of answer is not answered by a passage without one', async () => {
    // (a date is asked; the sentence says when in words of a season, no date)
    const a = await ask('On what date are worn fenders replaced?');
    assert.equal(a.answer_type, 'none', a.message);
  });

  test('a question nothing in the documents is about is refused: none, no citations', async () => {
    const a = await ask('Who won the 1998 chess olympiad in Elista?');
    assert.equal(a.answer_type, 'none');
    assert.equal(a.message, NOT_FOUND);
    assert.deepEqual(a.citations, []);
  });
});
