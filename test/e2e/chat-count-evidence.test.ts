import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * What shows that a sentence answers a "how many <noun>" question, not merely holds some number: a number next to the
 * counted noun ("412 patrols") or said of it ("the number of fines … was 38"), not a percentage of it, an age or a
 * duration nearby. Over a generated document, every answer given (no confidence floor), so that a refusal is the
 * answerer's own.
 */

describe('chat: the evidence of a count and of a quoted value', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask } = chat;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_CHAT_MIN_CONFIDENCE: '0' } });
    await chat.open(s, 'Harbour', [[
      'harbour-police-report.txt',
      [
        'Harbour police annual report',
        '',
        'In 2019 the harbour police recorded a 57 percent increase in arrests compared with the year before.',
        '',
        'On 3 May 2019 a 34-year-old officer stopped a smuggling boat near the pier, arresting several people after a chase of 96 minutes.',
        '',
        'The harbour police ran 412 patrols in 2019, most of them at night.',
        '',
        'The number of mooring fines issued by the harbour police in 2019 was 38.',
        '',
      ].join('\n'),
    ]]);
  });

  after(async () => {
    await s?.close();
  });

  test('a "how many" question is answered by a number next to the counted noun', async () => {
    const a = await ask('How many patrols did the harbour police run in 2019?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /412 patrols/);
  });

  test('a count said of the counted noun ("the number of … was 38") answers', async () => {
    const a = await ask('How many mooring fines did the harbour police issue in 2019?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /\b38\b/);
  });

  test('a percentage of the counted thing, an age or a duration beside it is no count: refused, not quoted', async () => {
    const a = await ask('How many arrests did the harbour police make in 2019?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.doesNotMatch(a.message, /57 percent|34-year-old|96 minutes/);
  });
});
