import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A thing's number asked by the thing's name ("the receipt number", "which contract number") is a code to quote, whatever the
 * thing: the labelled code answers, its label's "No." saying "number", not a line of other figures (the shop's address and postcode). A record asked for by a date
 * written in words ("the receipt of 4 January 2018") is the one that prints that date in numbers ("04/01/2018"); a date no record
 * prints names none of them.
 */

const receipt = (date: string, number: string, item: string, total: string) =>
  [
    'HARBOUR HARDWARE SDN BHD',
    '12 Jalan Pelabuhan, 41000 Klang, Selangor',
    'CASH RECEIPT',
    `Date: ${date}`,
    `Receipt Number: ${number}`,
    'Item Qty Amount',
    `${item} 1 ${total}`,
    `Total: ${total}`,
    'Thank you, please come again.',
  ].join('\n');

const invoice = [
  'Northwind Hosting AG',
  'Invoice for the hosting of mailboxes, March 2012.',
  'Contract No. CON02858',
  'Customer: Ravel Labs GmbH, Hafenstrasse 4, 20457 Hamburg',
  'Mailbox plan 5 users, monthly fee 19.45 EUR.',
  'Total: 19.45 EUR',
].join('\n');

// (a tax invoice whose labels are printed abbreviated: "Doc No", "Amt", "Incl", "Excl")
const taxInvoice = [
  'SRI MURNI TRADING',
  'No. 8, Jalan Sutera 3, 81200 Johor Bahru',
  'TAX INVOICE',
  'Doc No: TI-0088412',
  'Inv Date: 02/03/2018',
  'Cashier: Aminah',
  'Rice 10kg 1 46.00',
  'Cooking oil 2L 1 4.00',
  'Total Amt Excl GST: 50.00',
  'GST 6%: 3.00',
  'Total Amt Incl GST: 53.00',
].join('\n');

describe("chat: a thing's number, and a record named by a date in words", () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Receipts and invoices', [
      ['receipt-0401.txt', receipt('04/01/2018', 'CS00012543', 'Spray paint', '14.84')],
      ['receipt-1301.txt', receipt('13/01/2018', 'CS00012610', 'Work gloves', '12.72')],
      ['hosting-invoice.txt', invoice],
      ['tax-invoice.txt', taxInvoice],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('a contract number: the code labelled "Contract No.", cited', async () => {
    const a = await ask('Which contract number appears on the Northwind Hosting invoice?');
    assert.match(a.message, /CON02858/, a.message);
    assert.ok(cites(a, 'hosting-invoice.txt'), JSON.stringify(a.citations));
  });

  test('the receipt of a date in words: the record that prints it in numbers answers; the other does not', async () => {
    const a = await ask('What is the receipt number of the Harbour Hardware receipt of 4 January 2018?');
    assert.match(a.message, /CS00012543/, a.message);
    assert.doesNotMatch(a.message, /CS00012610|41000/, a.message);
    assert.ok(cites(a, 'receipt-0401.txt'), JSON.stringify(a.citations));
    const b = await ask('What is the receipt number of the Harbour Hardware receipt of 13 January 2018?');
    assert.match(b.message, /CS00012610/, b.message);
    assert.doesNotMatch(b.message, /CS00012543/, b.message);
  });

  test('a date no record prints: neither record answers', async () => {
    const a = await ask('What is the receipt number of the Harbour Hardware receipt of 5 January 2018?');
    assert.doesNotMatch(a.message, /CS00012543|CS00012610/, a.message);
  });

  test('labels printed abbreviated: "Doc No" is the document number, "Incl" the total including the tax', async () => {
    const a = await ask('What is the document number of the Sri Murni Trading tax invoice?');
    assert.match(a.message, /TI-0088412/, a.message);
    assert.ok(cites(a, 'tax-invoice.txt'), JSON.stringify(a.citations));
    const b = await ask('What is the total amount including GST on the Sri Murni Trading tax invoice?');
    assert.match(b.message, /53\.00/, b.message);
    assert.doesNotMatch(b.message, /50\.00/, b.message);
  });
});
