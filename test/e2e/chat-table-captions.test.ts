import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A table's numbered caption printed above it ("Table 3 - European ABCP issuance") is read with the table: its chunk starts
 * with the caption (so a search for the caption's words finds the rows), and a question that names the table by its caption,
 * a row by its label and a column by its header is answered by the one cell where they meet, cited at the table. Two tables
 * of the same shape are told apart by their captions alone.
 */

const row = (cells: string[]) => new TableRow({ children: cells.map((c) => new TableCell({ children: [new Paragraph(c)] })) });

/** a report whose tables are named only by their captions: the text around them says nothing of their figures */
async function reportDocx(): Promise<Buffer> {
  const years = (base: number) => ['2004', '2005', '2006', '2007'].map((y, i) => {
    const q = [1, 2, 3, 4].map((k) => Math.round((base + i * 17.3 + k * 3.1) * 10) / 10);
    return row([y, ...q.map(String), (Math.round(q.reduce((a, b) => a + b, 0) * 10) / 10).toString()]);
  });
  const header = row(['', 'Q1', 'Q2', 'Q3', 'Q4', 'Total']);
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph('Conduits had large holdings that declined sharply, and investors stopped rolling over their paper.'),
          new Paragraph('Table 3 - European ABCP issuance'),
          new Table({ rows: [header, ...years(30)] }),
          new Paragraph('Source: market data, compiled by the secretariat.'),
          new Paragraph('Table 4 - American ABCP issuance'),
          new Table({ rows: [row(['', 'Q1', 'Q2', 'Q3', 'Q4', 'Total']), ...years(110)] }),
          new Paragraph('Retailers set higher margins on their own products than on other brands.'),
          new Paragraph('Table 8.12 - Own brand shares (food only) for leading retailers, 1996'),
          new Table({ rows: [row(['Names', 'Own brands market share', 'Number of items']), row(['Franprix', '28.0', 'n.a.']), row(['Casino', '24.8', '1800']), row(['Géant', '20.0', '1800'])] }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

describe("chat: a table's caption names its cells", () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Captions', [['abcp-report.docx', await reportDocx()]]);
  });

  after(async () => {
    await s?.close();
  });

  test("the table chunk starts with its caption, and the caption left the text's chunk", async () => {
    const res = await s.json(`/v1/documents/${chat.ids['abcp-report.docx']}/content?response=chunks`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const chunks = res.body.chunks as { content: string }[];
    const tables = chunks.filter((c) => /\n\| --- \|/.test(c.content));
    assert.deepEqual(tables.map((c) => c.content.split('\n')[0]), ['Table 3 - European ABCP issuance', 'Table 4 - American ABCP issuance', 'Table 8.12 - Own brand shares (food only) for leading retailers, 1996']);
    const all = chunks.map((c) => c.content).join('\n');
    assert.equal(all.split('Table 3 - European ABCP issuance').length, 2, 'the caption is in one chunk');
  });

  test('the cell where the row and the column the question names meet, in the table its caption names', async () => {
    // European 2007: 30 + 3 × 17.3 + (3.1, 6.2, 9.3, 12.4) → 85.0 + 88.1 + 91.2 + 94.3 = 358.6
    const a = await ask('What was the total European ABCP issuance in 2007?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^2007 \(Total\): 358\.6 \[1\]/, a.message);
    assert.ok(cites(a, 'abcp-report.docx'), JSON.stringify(a.citations));
    // American 2007: 110 + 51.9 + … → 165.0 + 168.1 + 171.2 + 174.3 = 678.6
    const b = await ask('What was the total American ABCP issuance in 2007?');
    assert.match(b.message, /^2007 \(Total\): 678\.6 \[1\]/, b.message);
  });

  test("a share printed as a bare figure under a share's column answers a question for a share", async () => {
    const a = await ask('What own-brand market share did Franprix have?');
    assert.match(a.message, /Franprix \(Own brands market share\): 28\.0/, a.message);
    assert.ok(cites(a, 'abcp-report.docx'));
  });
});
