import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Chat questions about what a form ticks ("Which services were ticked on the berth request?"): the options its checkboxes
 * mark, in the group the question's words name, as a value cited at the chunk; those left unticked when the question asks
 * what was not chosen. A box before each option and a box after each are both read.
 */

const REQUEST = [
  'Berth request form',
  '',
  'Vessel: MV Skerra Light',
  '',
  'Services requested: ☒ Fresh water ☐ Shore power ☒ Waste collection ☐ Bunkering',
  '',
  'Crew changes at this call: Yes ☐ No ☒',
  '',
  'Signed by the master on arrival.',
].join('\n');

const NOTICE = ['Harbour notice', '', 'The northern slipway is closed for repairs until the end of the summer season. Boats must use the southern slipway.'].join('\n');

describe('chat: the options a form ticks', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Berths', [
      ['berth-request.txt', REQUEST],
      ['harbour-notice.txt', NOTICE],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('the ticked options of the group the question names, and the unticked ones when it asks what was not chosen', async () => {
    const a = await ask('Which services were ticked on the berth request form?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^Ticked: Fresh water; Waste collection \[1\]/, a.message);
    assert.ok(cites(a, 'berth-request.txt'), JSON.stringify(a.citations));
    const b = await ask('Which services were not selected on the berth request form?');
    assert.match(b.message, /^Not ticked: Shore power; Bunkering \[1\]/, b.message);
  });

  test('a box after each option', async () => {
    const a = await ask('Which box is ticked for crew changes on the berth request form?');
    assert.match(a.message, /^Ticked: No \[1\]/, a.message);
  });

  test('a question about a selection no form shows is not answered with boxes', async () => {
    const a = await ask('Which slipway was selected for the summer repairs?');
    assert.doesNotMatch(a.message, /Ticked/, a.message);
  });
});
