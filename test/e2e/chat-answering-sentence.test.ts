import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Where the sentence that says the question best cannot answer it (no span of the asked type), the offline answerer looks
 * past it: the best whole sentence below it that holds the asked type and says the question's key term, from the same
 * document, quoted whole as a passage below 0.8, when no other sentence that could answer comes near it. A sentence with a
 * span of the asked type that does not say the key term is about something else: refused, as a question no sentence answers.
 */

const NOT_FOUND = "I could not find this in the knowledge base's sources.";

const REPORT = [
  'Vocational education and training in Norland',
  '',
  'Education providers in Norland are funded by the state according to their performance and the number of their students, and the funding of each provider is reviewed by the national board every spring.',
  '',
  'Performance-based funding was introduced in 2002 when education providers were granted separate state subsidies based on their results.',
  '',
  'The board publishes its review of the providers in a yearly report that municipalities and employers read closely.',
  '',
  'Apprenticeship contracts are signed between the student, the employer and the education provider, and they last from one to three years.',
].join('\n');

const TEAM = [
  'The survey team of the harbour office',
  '',
  'Marta Kowalski leads the survey team of the harbour office and writes its yearly reports on the moorings, the tides and the traffic of the eastern pier.',
  '',
  'Before joining the office she mapped the coastline of the northern islands for the national sea rescue service for eleven years.',
  '',
  'Marta can be reached at mkowalski@harbour-office.org for questions about the surveys.',
].join('\n');

const GUIDE = [
  'Harbour fittings maintenance guide',
  '',
  'Mooring cleats on the eastern pier are cast from marine bronze, galvanised iron or recycled nylon composite.',
  '',
  'Bollards are inspected twice a year by the harbour crew, who record any cracks in the logbook.',
  '',
  'Worn fenders are replaced before the winter storms, when boats press hardest against the piers.',
  '',
  'The harbour crew of the eastern pier was formed in 1994 by the port authority.',
].join('\n');

describe('chat: the sentence that can answer, past the one that says the question best', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Answering sentences', [
      ['norland-vet.txt', REPORT],
      ['harbour-guide.txt', GUIDE],
      ['survey-team.txt', TEAM],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('an e-mail address asked for: the sentence with the address, though another says more of the question', async () => {
    // (the sentence that says the question best, "Marta Kowalski leads the survey team …", holds no address; the one below
    // it names Marta and holds her address, an address of the web's kind)
    const a = await ask('At what e-mail address can Marta Kowalski be reached?');
    assert.equal(a.answer_type, 'passage', a.message);
    assert.equal(a.message, 'The documents say: “Marta can be reached at mkowalski@harbour-office.org for questions about the surveys.” [1]');
    assert.ok(cites(a, 'survey-team.txt'), a.message);
    assert.ok(a.confidence >= 0.6 && a.confidence < 0.8, `confidence ${a.confidence}`);
  });

  test('a year asked for: the sentence with the year that does not say the question\'s key term is about something else, refused', async () => {
    // (the sentence that says the question best, "… funded by the state according to their performance …", holds no year; the one
    // with the year does not say the question's key term, the national board: it may be the year of another beginning)
    const a = await ask('In what year did the national board of Norland begin to fund providers by how they perform?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.equal(a.message, NOT_FOUND);
  });

  test('a year asked for: the year of the crew that inspects the bollards is not the year of their first inspection, refused', async () => {
    // (the bollards are inspected by the crew, and the crew was formed in 1994: not the year the bollards were first inspected)
    const a = await ask('In what year were the bollards of the eastern pier first inspected by the harbour crew?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.equal(a.message, NOT_FOUND);
  });

  test('a question no sentence answers is refused', async () => {
    const a = await ask('In which year did Norland abolish tuition fees for adult students?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.equal(a.message, NOT_FOUND);
  });
});
