import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A year alone in brackets after a name is the year of a cited work ("the Harbour Survey Technical Report (2010)"), not the
 * date a "when" question asks for. Over a generated document, every answer given (no confidence floor), so that a refusal
 * is the answerer's own.
 */

describe('chat: the year of a citation is no date', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask } = chat;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_CHAT_MIN_CONFIDENCE: '0' } });
    const text = [
      'Harbour survey methods',
      '',
      'The sampling rules of the harbour survey are described in the Harbour Survey Technical Report (2010) in detail.',
      '',
      'The old lighthouse at the harbour mouth was built in 1887.',
      '',
    ].join('\n');
    await chat.open(s, 'Survey', [['survey-methods.txt', text]]);
  });

  after(async () => {
    await s?.close();
  });

  test('a sentence whose only year is a cited report’s does not answer "when"', async () => {
    const a = await ask('When did the sampling of the harbour survey start?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.doesNotMatch(a.message, /2010/);
  });

  test('a year the sentence states is still a date', async () => {
    const a = await ask('When was the old lighthouse built?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /1887/);
  });
});
