import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A question's key term (its rarest word that shows a sentence answers it) may be one the answering document never writes:
 * it says the same in other words ("with a brass latch" for what is added), and only another document has the word. The
 * offline answerer quotes such a sentence, whole and cited, as a `passage` below 0.8, when it says at least half of the
 * question itself. Nor is the key term missing from a sentence that refers back ("These oysters …") to the sentence before it,
 * which says it. A sentence without the key term that says less of the question is still no answer.
 */

async function guideDocx(): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'North basin shellfish notes', heading: HeadingLevel.HEADING_1 }),
          new Paragraph('Oysters are farmed on long ropes in the sheltered north basin of Kestrel Bay.'),
          new Paragraph('A spat is a young oyster that has just settled on a rope or a shell, and in the trade a farmed oyster of market size is sometimes called a half-shell.'),
          new Paragraph({ text: 'Outer banks', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('Wild oysters are dredged from the outer banks of the bay every winter by two licensed boats.'),
          new Paragraph('These oysters may be contaminated by pollutants such as mercury and arsenic, and are tested before sale.'),
          new Paragraph('Dredged shells are returned to the banks to help new oysters settle.'),
          new Paragraph({ text: 'Cleats', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('Most cleats on the pontoon are cast from marine bronze.'),
          new Paragraph('The locking cleat is a standard cleat with a brass latch across its horns, so that a line cannot slip off.'),
          new Paragraph({ text: 'Moorings', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('Each visitor mooring has a yellow buoy and a concrete sinker on the sea bed.'),
          new Paragraph('The harbour crew checks the sinkers every March with the help of two divers.'),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

/** another document, that says the question's other words in sentences of its own */
const FERRY = [
  'Kestrel Bay ferry timetable',
  '',
  'The morning ferry can carry forty cars and three hundred passengers across the bay.',
  '',
  'Fresh fish and farmed mussels are sold at the ferry terminal kiosk on Saturdays.',
  '',
  'The term of the kiosk lease is ten years, and a second counter was added to the kiosk in spring.',
  '',
  'Seals hunted in the outer bay may carry parasites, the ferry crew warns.',
].join('\n');

describe('chat: a sentence that says the question without its key term', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Paraphrased key terms', [
      ['shellfish-notes.docx', await guideDocx()],
      ['ferry.txt', FERRY],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('the sentence that says most of the question, though not its key term, is quoted, cited, as a passage below 0.8', async () => {
    // ("added" and "term" are said by the ferry note only: the answering sentences say them otherwise, or not at all)
    for (const [q, said] of [
      ['What is added to a standard cleat to make a locking cleat?', 'a brass latch across its horns'],
      ['What is the term for a young oyster?', 'A spat is a young oyster'],
    ]) {
      const a = await ask(q);
      assert.equal(a.answer_type, 'passage', `${q}: ${a.message}`);
      assert.ok(a.message.startsWith('The documents say: “'), a.message);
      assert.ok(a.message.includes(said!), `${q}: ${a.message}`);
      assert.ok(cites(a, 'shellfish-notes.docx'), a.message);
      assert.ok(!cites(a, 'ferry.txt'), a.message);
      assert.ok(a.confidence >= 0.6 && a.confidence < 0.8, `${q}: ${a.confidence}`);
    }
  });

  test('a sentence that refers back to the one before it, which says the key term, answers as a passage of both', async () => {
    // ("These oysters may be contaminated …" after "Wild oysters are dredged …": the document writes "dredged" elsewhere too)
    const a = await ask('What pollutants may dredged oysters carry?');
    assert.equal(a.answer_type, 'passage', a.message);
    assert.match(a.message, /Wild oysters are dredged .*mercury and arsenic/);
    assert.ok(cites(a, 'shellfish-notes.docx'), a.message);
    assert.ok(!cites(a, 'ferry.txt'), a.message);
    assert.ok(a.confidence >= 0.6 && a.confidence < 0.8, String(a.confidence));
  });

  test('a sentence without the key term that says less than half of the question is no answer', async () => {
    const a = await ask('How often do divers inspect the ferry terminal piles?');
    assert.equal(a.answer_type, 'none', a.message);
  });
});
