import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Chat questions for what an abbreviation stands for ("What does AIS stand for in the harbour report?", "Which fee is coded
 * PLT in the tariff?"): the long form the document gives for it, before or inside a parenthesis, stated after it, or in the
 * next cell of its row, answered as a value cited at the chunk that defines it. An abbreviation no document defines, or one
 * two documents define differently when the question names neither, is not answered with a long form.
 */

const REPORT = [
  'Harbour traffic report for the year',
  '',
  'The port authority installed new automatic identification system (AIS) receivers on both breakwaters in March. Every vessel over 300 tonnes now reports its position every ten seconds, and the harbour master can follow arrivals from the control room.',
  '',
  'Pilot boarding times fell by a fifth after the receivers came into use. The night shift reported fewer missed calls, and the waiting area outside the northern breakwater was used on only four nights.',
  '',
  'Note: “nr” means not recorded, and tonnages are rounded to the nearest hundred.',
].join('\n');

const MEMO = [
  'Ferry timetable memo',
  '',
  'From June the Aldholm Island Service (AIS) runs four crossings a day to Skerra, weather permitting. Tickets are sold on board and at the kiosk on the quay.',
].join('\n');

const TARIFF = ['Code,Charge,Rate', 'PLT,Pilotage dues,410', 'BTH,Berth hire per day,95', 'TBC,Monday,0'].join('\n');

describe('chat: what an abbreviation stands for, as the document defines it', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Harbour', [
      ['harbour-report.txt', REPORT],
      ['ferry-memo.txt', MEMO],
      ['port-tariff.csv', TARIFF],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('the long form printed before the parenthesis, of the document the question names', async () => {
    const a = await ask('What does AIS stand for in the harbour traffic report?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^AIS: automatic identification system \[1\]/, a.message);
    assert.ok(cites(a, 'harbour-report.txt'), JSON.stringify(a.citations));
    const b = await ask('What does AIS stand for in the ferry timetable memo?');
    assert.match(b.message, /^AIS: Aldholm Island Service \[1\]/, b.message);
    assert.ok(cites(b, 'ferry-memo.txt'), JSON.stringify(b.citations));
  });

  test('two documents define it differently and the question names neither: no long form is chosen', async () => {
    const a = await ask('What does AIS stand for?');
    assert.doesNotMatch(a.message, /^AIS: /, a.message);
  });

  test('stated after it, or in the next cell of its row', async () => {
    const a = await ask('What does “nr” mean in the harbour traffic report?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^nr: not recorded \[1\]/, a.message);
    const b = await ask('Which charge is coded PLT in the port tariff?');
    assert.equal(b.answer_type, 'value', b.message);
    assert.match(b.message, /^PLT: Pilotage dues \[1\]/, b.message);
    assert.ok(cites(b, 'port-tariff.csv'), JSON.stringify(b.citations));
    // the other way round: the abbreviation of words the question gives
    const c = await ask('Which abbreviation does the port tariff use for berth hire per day?');
    assert.equal(c.answer_type, 'value', c.message);
    assert.match(c.message, /^Berth hire per day: BTH \[1\]/, c.message);
  });

  test('a word next to it that it does not abbreviate, or an abbreviation no document prints, is no answer', async () => {
    const a = await ask('What does TBC stand for in the port tariff?');
    assert.doesNotMatch(a.message, /^TBC: Monday/, a.message);
    const b = await ask('What does QXZ stand for in the harbour traffic report?');
    assert.notEqual(b.answer_type, 'value', b.message);
  });
});
