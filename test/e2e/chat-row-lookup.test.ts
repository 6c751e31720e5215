import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Chat questions that look a cell up by another cell of its row, as one asks of a spreadsheet ("On Sheet Tides, what is
 * the low value in the row where day is 3?"): the cell of the column asked in the row picked, on the sheet named, as a
 * value cited at the table. Two sheets with the same columns and different cells: only the sheet the question names.
 */

async function workbook(): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  const a = wb.addWorksheet('Sheet1');
  a.addRow(['day', 'high', 'low']);
  for (let d = 1; d <= 6; d++) a.addRow([d, 400 + d * 7, 50 + d * 3]);
  const b = wb.addWorksheet('Sheet2');
  b.addRow(['day', 'high', 'low']);
  for (let d = 1; d <= 6; d++) b.addRow([d, 300 + d * 11, 20 + d * 5]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

describe('chat: a cell looked up by another cell of its row', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Tides', [['tides.xlsx', await workbook()]]);
  });

  after(async () => {
    await s?.close();
  });

  test('the cell of the column asked, in the row picked, on the sheet named', async () => {
    const a = await ask('On Sheet2 of the tides workbook, what is the low value in the row where day is 3?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^low \(day 3\): 35 \[1\]/, a.message);
    assert.ok(cites(a, 'tides.xlsx'), JSON.stringify(a.citations));
    const b = await ask("On Sheet1 of the tides workbook, what is 'high' in the row where 'day' is 5?");
    assert.match(b.message, /^high \(day 5\): 435 \[1\]/, b.message);
  });

  test('the same columns on two sheets and no sheet named, or a row no table has: no cell is chosen', async () => {
    const a = await ask('What is the low value in the row where day is 3?');
    assert.doesNotMatch(a.message, /^low \(day 3\)/, a.message);
    const b = await ask('On Sheet1 of the tides workbook, what is the low value in the row where day is 9?');
    assert.notEqual(b.answer_type, 'value', b.message);
  });
});
