import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A question that names a table's row by its label and asks for a share, a sum or a measure, without naming the column: the one
 * cell of that row that prints the asked type with its mark ("%", a currency, a unit) answers, with its row's label and its column's
 * header, cited at the table. A row with two such cells of other values, or a question for a count (tables print counts as bare
 * figures), is not answered by a cell chosen by its form. A question for one of a kind by its noun alone ("which observation
 * instrument …") is answered by the sentence that says that noun, though the thing is named in common words.
 */

const row = (cells: string[]) => new TableRow({ children: cells.map((c) => new TableCell({ children: [new Paragraph(c)] })) });

async function surveyDocx(): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph('Commuter rail survey, spring season. Each station was observed on twenty weekday mornings.'),
          new Table({
            rows: [
              row(['Station', 'Departures observed', 'Late departures', 'Punctuality', 'Mean wait']),
              row(['Northgate', '40', '6', '85.0%', '312 sec']),
              row(['Riverside', '36', '9', '75.0%', '448 sec']),
              row(['Eastfield', '22', '2', '90.9%', '205 sec']),
            ],
          }),
          new Paragraph('The mean wait counts from the scheduled departure to the moment the doors closed.'),
          new Paragraph('Observers tried counters, cameras and paper logs; handheld tally counters proved the most dependable observation instrument on crowded platforms.'),
          new Paragraph('Lines compared with the previous year:'),
          new Table({ rows: [row(['Line', 'Ridership share', 'Growth']), row(['Harbour line', '12.5%', '3.1%']), row(['Valley line', '8.0%', '-1.2%'])] }),
          new Paragraph('Cloud services billed for the survey period:'),
          new Table({ rows: [row(['Service', 'Charge']), row(['Archive cold storage', '$2.22']), row(['Compute instances', '$41.80'])] }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

describe("chat: a row's one cell of the asked type", () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Typed cells', [['rail-survey.docx', await surveyDocx()]]);
  });

  after(async () => {
    await s?.close();
  });

  test('a share: the one cell of the named row printed with "%"', async () => {
    const a = await ask('What percentage is reported for the Northgate station?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^Northgate \(Punctuality\): 85\.0% \[1\]/, a.message);
    assert.ok(cites(a, 'rail-survey.docx'), JSON.stringify(a.citations));
    assert.ok(a.confidence < 0.8, String(a.confidence));
  });

  test('a measure in the unit asked for: the one cell of the named row printed with it', async () => {
    const a = await ask('How many seconds did passengers at Riverside wait?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /Riverside \(Mean wait\): 448 sec/, a.message);
    assert.doesNotMatch(a.message, /75\.0%/, a.message);
  });

  test('a sum: the one cell of the named row printed with its currency', async () => {
    const a = await ask('What was charged for archive storage?');
    assert.match(a.message, /\$2\.22/, a.message);
    assert.doesNotMatch(a.message, /41\.80/, a.message);
    assert.ok(cites(a, 'rail-survey.docx'));
  });

  test('a row with two shares of other values is not answered by one of them chosen by its form', async () => {
    const a = await ask('What percentage is reported for the Harbour line?');
    // (a passage quoting the row may answer; a value of one of its shares alone may not)
    assert.ok(!(a.answer_type === 'value' && /: (?:12\.5|3\.1)% \[1\]$/.test(a.message.trim())), a.message);
  });

  test('a count is not chosen by its form: tables print counts as bare figures', async () => {
    const a = await ask('How many late departures were reported for Eastfield?');
    assert.doesNotMatch(a.message, /90\.9%|205 sec/, a.message);
  });

  test('one of a kind asked by its noun, named in common words: the sentence that says the noun, as a passage', async () => {
    const a = await ask('Which observation instrument proved the most dependable?');
    assert.equal(a.answer_type, 'passage', a.message);
    assert.match(a.message, /handheld tally counters/, a.message);
    assert.ok(cites(a, 'rail-survey.docx'));
  });
});
