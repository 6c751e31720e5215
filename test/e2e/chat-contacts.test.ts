import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Chat questions for a contact detail or a bank identifier of what a document is about ("What is the IBAN of the Skerra
 * Rowing Club?"): read by its form from the document that holds every name of the question, where no sentence answers
 * better; its only such value, or the one whose line says the question's other words; a website is the site its addresses
 * share. Two values nothing tells apart: no answer. A town ("In which town is the Skerra Rowing Club based?") is the one its
 * postal address prints with its postcode, on the line that names what the question asks about.
 */

const CLUB = [
  'Skerra Rowing Club membership form',
  '',
  'Membership runs from January to December. The yearly fee is 60 euros, and 30 euros for pupils and students.',
  '',
  'Please pay the fee by bank transfer and write your membership number in the payment reference.',
  '',
  'Account holder: Skerra Rowing Club',
  'IBAN: GB82 WEST 1234 5698 7654 32',
  'BIC: WESTGB2L',
  '',
  'Questions about training go to coach@skerra-rowing.org; everything else to the secretary.',
  'Secretary: secretary@skerra-rowing.org',
  'Fax 071 841 22 90',
  '',
  'Rules: https://skerra-rowing.org/rules.pdf · Boat bookings: https://skerra-rowing.org/boats.html',
  '',
  'Skerra Rowing Club · Harbour Road 12 · 9400 Rorschach',
].join('\n');

const FERRY = [
  'Aldholm ferry office',
  '',
  'Tickets are sold on board and at the kiosk on the quay. Lost property is kept for a month.',
  '',
  'Write to office@aldholm-ferries.eu or to kiosk@aldholm-ferries.eu.',
  '',
  'Aldholm Ferries Ltd, Quay Street 4, 2501 Biel',
  'Printed by Lakeside Print, 3012 CN Rotterdam',
].join('\n');

describe('chat: a contact detail, a bank identifier or a town by its form', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Clubs', [
      ['rowing-club.txt', CLUB],
      ['ferry-office.txt', FERRY],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('the IBAN and the BIC of the document the question names', async () => {
    const a = await ask('What is the IBAN of the Skerra Rowing Club?');
    assert.match(a.message, /GB82 WEST 1234 5698 7654 32/, a.message);
    assert.ok(cites(a, 'rowing-club.txt'), JSON.stringify(a.citations));
    const b = await ask('What is the BIC of the Skerra Rowing Club’s bank?');
    assert.match(b.message, /WESTGB2L/, b.message);
  });

  test('a fax number answers a question for a fax number, and no other', async () => {
    const a = await ask('What is the fax number of the Skerra Rowing Club?');
    assert.match(a.message, /071 841 22 90/, a.message);
    const b = await ask('What is the telephone number of the Skerra Rowing Club?');
    assert.doesNotMatch(b.message, /071 841 22 90/, b.message);
  });

  test('of several e-mail addresses, the one whose line says the question’s words; a website is the site its addresses share', async () => {
    const a = await ask('Which e-mail address answers questions about training at the Skerra Rowing Club?');
    assert.match(a.message, /coach@skerra-rowing\.org/, a.message);
    assert.doesNotMatch(a.message, /secretary@/, a.message);
    const b = await ask('What website does the Skerra Rowing Club have?');
    assert.equal(b.answer_type, 'value', b.message);
    assert.match(b.message, /^Web: skerra-rowing\.org \[1\]/, b.message);
  });

  test('two addresses nothing in the question tells apart: neither is chosen', async () => {
    const a = await ask('What e-mail address does the Aldholm ferry office have?');
    assert.notEqual(a.answer_type, 'value', a.message);
  });

  test('the town of the postal address printed by the name the question gives', async () => {
    const a = await ask('In which town is the Skerra Rowing Club based?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^Rorschach \(9400\) \[1\]/, a.message);
    assert.ok(cites(a, 'rowing-club.txt'), JSON.stringify(a.citations));
    // two towns in one document: the one on the line of the name asked about
    const b = await ask('Where is Aldholm Ferries Ltd located?');
    assert.match(b.message, /Biel/, b.message);
    assert.doesNotMatch(b.message, /Rotterdam/, b.message);
  });
});
