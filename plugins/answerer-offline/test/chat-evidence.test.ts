import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerTypeOf, holdsType, questionWords } from '../src/answer-types.js';
import { kindTerms, questionTerms, terms, unitsOf } from '@quire/text';

const holds = (question: string, text: string, common?: Set<string>) => holdsType(text, answerTypeOf(question)!, questionWords(question), new Set(questionTerms(question).map((t) => t.term)), common);

test('the kind of thing a which/what question asks for is the phrase up to its verb', () => {
  assert.deepEqual(kindTerms('Which word processor was favoured by lawyers?'), terms('word processor'));
  assert.deepEqual(kindTerms('What materials are wing nuts made from?'), terms('materials'));
  assert.deepEqual(kindTerms('In which city is the plant?'), terms('city'));
  // no verb within three words: only the first word is the kind
  assert.deepEqual(kindTerms('Which act took daily case administration away?'), terms('act'));
  assert.deepEqual(kindTerms('Who founded the observatory?'), []);
  // "what is the X of …" asks for X's value, which a sentence that answers names
  assert.deepEqual(kindTerms('What is the IBAN of the club account?'), []);
  assert.deepEqual(kindTerms('What was the price of the ticket?'), []);
});

test('the numbers of an ordered list printed on lines of their own are no units', () => {
  const units = unitsOf('Receipt details:\n\n1\n\nVenue: Harbour Grill\n\n2\n\nWaiter: Tomas Lindgren\n\n3\n\nParty size: 4\n').map((u) => u.text);
  assert.deepEqual(units, ['Receipt details:', 'Venue: Harbour Grill', 'Waiter: Tomas Lindgren', 'Party size: 4']);
  // a number that is not part of a numbered sequence stays
  assert.ok(unitsOf('TOTAL DUE\n\n42\n').some((u) => u.text === '42'));
});

test('capitalised words that are no names: abbreviations of words at hand, formula symbols, two-letter abbreviations, titles', () => {
  const common = new Set(['dense', 'passage', 'retrieval', 'open', 'domain', 'question', 'answering', 'accuracy', 'encoder']);
  const q = 'Who built the retrieval system?';
  // "(DPR)" abbreviates the words before it; "EP(·)" is a symbol
  assert.equal(holds(q, 'Our dense passage retriever (DPR) uses a dense encoder EP(·) for every passage.', common), false);
  // an abbreviation of a name the sentence spells out is that name: the question's own here
  assert.equal(holds('Which company was billed by Amazon Web Services?', 'Greetings from Amazon Web Services about your use of AWS services.', common), false);
  assert.equal(holds(q, 'The final QA accuracy improved on every benchmark.', common), false);
  // a title in capitals tells nothing: its words are common words
  assert.equal(holds(q, 'Dense Passage Retrieval for Open-Domain Question Answering', common), false);
  // names still count
  assert.equal(holds(q, 'The system was built by Vladimir Karpukhin and his colleagues.', common), true);
  assert.equal(holds(q, 'It was designed at the Orvella Institute in 2019.', common), true);
  assert.equal(holds('Which company made the encoder?', 'The encoder was made by IBM in 1935.', common), true);
});
