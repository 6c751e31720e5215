import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A year alone in brackets after a name is the year of a cited work ("the Harbour Survey Technical Report (2010)"), not the
 * date a "when" question asks for. Over a generated document, every answer given (no confidence floor), so that a refusal
 * is the answerer's own.
 */

describe('chat: the year of a citation is no date', () => {
  let s: TestServer;
  let kb = '';

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
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('survey-methods.txt', text) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Survey' } })).body.knowledge_base.id;
    const batch = await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: [up.body.id] } });
    assert.equal(batch.body.added.length, 1);
  });

  after(async () => {
    await s?.close();
  });

  const ask = async (message: string) => {
    const r = await s.json('/api/chat', { method: 'POST', json: { message, knowledge_base_id: kb } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };

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
