import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { askChat, knowledgeBaseOf } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * The offline answerer gives no value that merely has the asked type somewhere in a line that does not answer: a code of
 * letters and digits is no one's name, a place in prose is the one a word of place introduces, a year that belongs to a
 * name counts nothing, a capital that begins a label's phrase is no name, a percentage the question names does not make
 * it ask for one, a line that says the question only by its names answers nothing of it, a cell answers under the column
 * the question names; a passage, which quotes, never reaches 0.8, nor does a name, a place or a thing in a sentence (its
 * form checks nothing): only a value whose form is checked (a date, a sum, a count …) or whose label names what is asked.
 */

const CUSTOMERS = [
  'Index,Customer Id,First Name,Last Name,Company,City,Country,Phone 1,Email',
  '1,A81Cf42bdE7a9Fc,Odile,Marchetti,Brandvold Group,North Aldenby,Chile,229.077.5154,omarchetti@brandvold.info',
  '2,3Fa9c71B2EEBD40,Tomas,"Reyes, Dr",Kvist-Okafor,East Harlowmere,Djibouti,5153435776,treyes@kvist.com',
  '3,9B02e4C77aDf1e6,Ingrid,Sola,Ferreira-Lund,Westcombe,Antigua and Barbuda,+1-539-402-0259,isola@ferreira.com',
  '4,7Dab3FE19c2b8d4,Wilma,Oduya,"Halvorsen, Pike and Mbeki",Grantsville,Dominican Republic,001-808-617-6467,woduya@halvorsen.org',
].join('\n');

const BIOGRAPHY = [
  'Maren Holt Lindqvist (born 3 May 1971) is a Norwegian former professional cyclist who raced from 1990 to 2004 for a number of teams and the Norway national team.',
  'She won eleven stages of national tours over her career and retired after the 2004 season.',
  'The cycling team she rode for has had its head office in Drammen since the club was founded.',
].join('\n\n');

const HARBOUR_RULES = [
  'Harbour fee rules',
  '',
  'Every district files the harbour fee return form under the Harbours Act, 2009 each quarter.',
  '',
  'Exceptions to the cap were granted to eleven harbours by the port authority in 2019.',
  '',
  'The 5 percent cap applies to the fees of every harbour district along the coast.',
].join('\n');

const RECEIPT = ['Receipt details for table service:', 'Restaurant: Kestrel Grill', 'Server: Ottilie Brandt', 'Order items: Itemized list of products ordered with quantities.', 'Total: 48.50 EUR'].join('\n');

const PHARMACY = [
  'KESTREL HAPPY PHARMACY PLT (LLP0007299-LGN) NO 12 GF.JALAN MAMANDA5, 68000 AMPANG, SELANGOR.',
  'PARACETAMOL 500MG 1 X 6.50 6.50',
  'TOTAL RM 6.50',
].join('\n');

describe('chat: no value from a line that does not answer, no passage at 0.8', () => {
  let s: TestServer;
  // the knowledge base of every document below, and each document's id by its file name
  let base = { kb: '', ids: {} as Record<string, string> };
  before(async () => {
    s = await startTestServer();
    base = await knowledgeBaseOf(s, 'Never mislead', [
      ['customers.csv', CUSTOMERS],
      ['lindqvist.txt', BIOGRAPHY],
      ['harbour-rules.txt', HARBOUR_RULES],
      ['grill-receipt.txt', RECEIPT],
      ['pharmacy-receipt.txt', PHARMACY],
    ]);
  });
  const ask = (message: string) => askChat(s, base.kb, message);

  after(async () => {
    await s?.close();
  });

  test('a code of letters and digits is no one’s name: not the answer to which customer', async () => {
    const a = await ask('Which customer works for Halvorsen, Pike and Mbeki?');
    // (the code may be quoted only with the customer's name, in a passage of the whole row)
    assert.ok(!/7Dab3FE19c2b8d4/.test(a.message) || (a.answer_type === 'passage' && /Oduya/.test(a.message)), a.message);
  });

  test('a cell answers under the column the question names: the company, not the country', async () => {
    const a = await ask('Which company is Ingrid Sola with?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /Ferreira-Lund/);
    if (a.answer_type === 'value') assert.doesNotMatch(a.message, /Antigua/);
  });

  test('a passage quotes and does not tell which of its words is the answer: its confidence stays below 0.8', async () => {
    const a = await ask('Which country is the customer Tomas Reyes in?');
    if (a.answer_type === 'passage') assert.ok(a.confidence < 0.8, `${a.message}: ${a.confidence}`);
    if (a.answer_type !== 'none') assert.match(a.message, /Djibouti/);
  });

  test('in prose a place is the one a word of place introduces: a sentence that names none is no answer to where', async () => {
    const born = await ask('Where was Maren Lindqvist born?');
    assert.equal(born.answer_type, 'none', born.message);
    const office = await ask('Where is the head office of the cycling team?');
    assert.notEqual(office.answer_type, 'none', office.message);
    assert.match(office.message, /Drammen/);
    assert.ok(office.citations.some((c: any) => c.document_id === base.ids['lindqvist.txt']), office.message);
  });

  test('a place in a sentence is told by the words around it alone, its form checks nothing: below 0.8', async () => {
    const office = await ask('Where is the head office of the cycling team?');
    assert.match(office.message, /Drammen/);
    assert.ok(office.confidence < 0.8, `${office.answer_type} ${office.message}: ${office.confidence}`);
  });

  test('a percentage the question names does not make it ask for one: how many is a count', async () => {
    const a = await ask('How many harbours were granted exceptions to the 5 percent cap in 2019?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /eleven harbours/);
    assert.doesNotMatch(a.message, /applies to the fees/);
  });

  test('the year of a name ("the Harbours Act, 2009") counts nothing: not the number asked for', async () => {
    const a = await ask('What is the number of the harbour fee return form?');
    assert.doesNotMatch(a.message, /Act, 2009/, a.message);
  });

  test('a line that says the question only by its names ("KESTREL HAPPY PHARMACY PLT …") says not who the cashier was', async () => {
    const a = await ask('Who was the cashier at Kestrel Happy Pharmacy?');
    assert.equal(a.answer_type, 'none', a.message);
  });

  test('a capital that begins a label’s phrase is no name: "Order items: Itemized list …" names no item', async () => {
    const a = await ask('Which items were ordered at the restaurant?');
    assert.doesNotMatch(a.message, /Itemized list/, a.message);
  });
});
