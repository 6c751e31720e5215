import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A "what share …" question quoted a passage of percentages whose sentences do not say the question's key term: shares of
 * something else ("28 percent worked on the quays" for "what share … were female"). Over generated documents in one
 * knowledge base, every answer given (no confidence floor), so that a refusal is the answerer's own.
 */

describe('chat: the evidence of a share', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask } = chat;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_CHAT_MIN_CONFIDENCE: '0' } });
    await chat.open(s, 'Harbour staff', [
      [
        'quay-report.txt',
        ['Harbour volunteers', '', 'Of the harbour volunteers, 28 percent worked on the quays in the spring.', '', 'Of the harbour volunteers, 27 percent worked in the parks in the summer.', ''].join('\n'),
      ],
      // ("female" said elsewhere, in a sentence without a share: the question's key term, which the shares above do not say)
      ['staff-desk.txt', ['Staff desk', '', 'Female and male staff wear the same uniform at the front desk.', '', 'Volunteers bring their own clothes to the harbour.', ''].join('\n')],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('shares of something else, quoted without the key term of the question, are refused', async () => {
    const a = await ask('What share of the harbour volunteers were female?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.doesNotMatch(a.message, /28 percent|27 percent/);
  });

  test('a share whose sentence says the key term is still given', async () => {
    const a = await ask('What share of the harbour volunteers worked on the quays?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /28 percent/);
  });
});
