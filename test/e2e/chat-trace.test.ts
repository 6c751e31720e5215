import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * The offline answerer's trace (plugin option `trace` of answerer:offline, opt-in): each answer appends a line of JSON to the
 * file named, with the rule that answered and the quoted sentences' signals (retrieval rank and score, coverages, the key
 * term's place, the rivals' scores, whether the sentence states the relation asked). The chat response itself carries none of it.
 */

const NOTES = [
  'Harbour maintenance notes',
  '',
  'The harbour crew checks the mooring sinkers every March with the help of two divers.',
  '',
  'Each visitor mooring has a yellow buoy and a concrete sinker on the sea bed.',
].join('\n');

describe('chat: the offline answerer traces its answers when asked to', () => {
  let s: TestServer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-trace-'));
  const file = path.join(dir, 'trace.jsonl');
  const chat = suiteKnowledgeBase();

  before(async () => {
    s = await startTestServer({ env: { QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'reader:pdf': { prestart: false }, 'answerer:offline': { trace: file } }) } });
    await chat.open(s, 'Traced answers', [['harbour-notes.txt', NOTES]]);
  });

  after(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('each answer appends its trace: the rule that answered and the quoted sentence signals', async () => {
    const a = await chat.ask('How often does the harbour crew check the mooring sinkers?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.ok(a.message.includes('every March'), a.message);
    assert.equal(a.trace, undefined);
    const refused = await chat.ask('Who designed the lighthouse lantern?');
    assert.equal(refused.answer_type, 'none', refused.message);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    const [t, none] = lines;
    assert.equal(t.question, 'How often does the harbour crew check the mooring sinkers?');
    assert.equal(t.answer_type, a.answer_type);
    assert.equal(t.confidence, a.confidence);
    assert.ok(typeof t.via === 'string' && t.via !== 'none', t.via);
    assert.equal(t.quoted.length, 1, JSON.stringify(t.quoted));
    const q = t.quoted[0];
    assert.ok(q.text.includes('every March'), q.text);
    assert.equal(q.hitRank, 0);
    assert.equal(q.topDocument, true);
    assert.equal(q.keyPlace, 'quote');
    assert.ok(q.sentenceCoverage > 0 && q.sentenceCoverage <= 1, JSON.stringify(q));
    // the relation asked (its predicate, "check", and argument), stated by the quoted line in one clause, close together
    assert.equal(t.predicate, 'check');
    assert.ok(t.argument && t.argument !== 'check', JSON.stringify(t));
    assert.equal(q.relation, 'close', JSON.stringify(q));
    assert.equal(q.sameClause, true);
    assert.equal(none.predicate, 'design');
    assert.match(none.via, /^none/);
    assert.deepEqual(none.quoted, []);
  });
});
