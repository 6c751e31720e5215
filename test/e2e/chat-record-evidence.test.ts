import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';
import { makePdf } from '../helpers/fixtures.js';

/**
 * What shows that a line of a form or a record answers a question whose words it does not repeat: its own label naming the
 * kind of thing asked for ("Boat class: Laser Dinghy" for "which boat class…"), and the question naming its document
 * ("on the harbour club form"), which the line need not say again. Over generated documents in one knowledge base, every
 * answer given (no confidence floor) as the answerer's rules are tested elsewhere.
 */

describe('chat: the evidence of a record line', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_CHAT_MIN_CONFIDENCE: '0' } });
    await chat.open(s, 'Harbour club', [
      ['harbour-club-form.pdf', await makePdf([{ heading: 'Membership application', lines: ['Skipper: Ingrid Solvang', 'Membership type: family', 'Boat class: Laser Dinghy', 'Mooring: Pier 4'] }])],
      ['sailing-notes.txt', 'Sailing notes\n\nThe club races on Thursday evenings from May to September. Beginners train in sheltered water near the slipway.\n\nEvery boat must carry a paddle and a bailer.\n'],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('a form line whose label names the kind of thing asked for answers it, though it says none of the question’s other words', async () => {
    const a = await ask('Which boat class was ticked on the harbour club form?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /Laser Dinghy/);
    assert.ok(cites(a, 'harbour-club-form.pdf'), a.message);
    // the other lines of the form are not the answer
    assert.doesNotMatch(a.message, /Pier 4|Family/);
  });

  test('the words that name the document count as said by its line: a value from the named form is confident (≥ 0.8)', async () => {
    const a = await ask('Who is the skipper on the harbour club form?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /Ingrid Solvang/);
    assert.ok(cites(a, 'harbour-club-form.pdf'), a.message);
    assert.ok(a.confidence >= 0.8, `confidence ${a.confidence}`);
  });
});
