import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answering, ask, attributeAsked, candidatesFor, elsewhere, extractiveConfidence, keyTerm, rivalDocument, typeMissingOnPoint } from '../src/answer.js';
import type { AnswerSource as SearchHit } from '@quire/core';
import { questionTerms, termSet } from '@quire/text';

const hit = (content: string, document_id = 'd1'): SearchHit => ({ chunk_id: `${document_id}:${content.length}`, document_id, document_name: 'notes.txt', page: 1, content, score: 0.9, metadata: { type: 'text', index: 0 } });
/** every term weighs 1 unless given */
const weightsOf = (q: string, w: Record<string, number> = {}) => new Map(questionTerms(q).map((t) => [t.term, w[t.term] ?? 1]));

test('the key term is the heaviest of the evidence terms that some document has', () => {
  const w = new Map([
    ['took', 4.2],
    ['manag', 3.3],
  ]);
  assert.equal(keyTerm(['took', 'manag'], w), 'took');
  const docs = new Map([['d1', { has: (t: string) => t === 'manag', names: () => false }]]);
  // a word no document has cannot be asked of a sentence: the sources may say it otherwise
  assert.equal(keyTerm(['took', 'manag'], w, docs), 'manag');
  assert.equal(keyTerm([], w), null);
});

test('a sentence without the key term answers with less confidence than one with it', () => {
  const q = 'Who took over from Mike Walker as Norwich manager?';
  const a = ask(q, weightsOf(q, { took: 4 }));
  const without = candidatesFor([hit('In July 1997, Norwich manager Mike Walker paid a fee to Wolves to sign Iwan Roberts.')], a);
  const withKey = candidatesFor([hit('In July 1998, Bruce Rioch took over from Mike Walker as Norwich manager.')], a);
  assert.equal(without[0]!.keyMissing, true);
  assert.equal(withKey[0]!.keyMissing, false);
  const c = (x: typeof without) => extractiveConfidence([x[0]!], [a], 1);
  assert.ok(c(without) < c(withKey), `${c(without)} < ${c(withKey)}`);
  // (the same sentence, were its key term there, would not lose it)
  assert.ok(c([{ ...without[0]!, keyMissing: false }]) > c(without));
});

test('a sentence that says too little of the question itself is not quoted, however much its chunk says', () => {
  const q = 'Which bird of prey can catch ducks while they fly?';
  const a = ask(q, weightsOf(q, { bird: 3, prey: 3, catch: 3, fly: 3, duck: 0.5 }));
  // the chunk has the question's words, the sentence only "ducks"
  const chunk = 'Birds of prey catch what they can. Ducks that fly are hard to catch.\n\nThe Ducks were coached by Emilio Estevez.';
  const cands = candidatesFor([hit(chunk)], a).filter((c) => c.unit.text.startsWith('The Ducks'));
  assert.equal(cands.length, 1);
  // it names someone, and its chunk says much of the question: only its own few words of the question keep it out
  assert.ok(cands[0]!.typed && cands[0]!.sentenceCoverage < 0.15, `${cands[0]!.sentenceCoverage}`);
  assert.deepEqual(answering(cands, a), []);
});

test('a typed answer without the key term is off the point when an untyped sentence with it says more of the question', () => {
  const q = 'To whom does the standing trustee owe a fiduciary duty?';
  const a = ask(q, weightsOf(q, { fiduciary: 5 }));
  const chunk = 'The standing trustee has a fiduciary duty to the bankruptcy estate.\n\nIf the standing trustee cannot perform the duties, the standing trustee must advise the United States Trustee.';
  const all = candidatesFor([hit(chunk)], a);
  const typed = answering(all, a);
  assert.equal(typed.length, 1);
  assert.match(typed[0]!.unit.text, /United States Trustee/);
  assert.equal(typeMissingOnPoint(typed[0]!, all), true);
  // without the sentence that has the key term, nothing shows the typed one off the point
  assert.equal(typeMissingOnPoint(typed[0]!, all.filter((c) => c.typed)), false);
});

test('the attribute a "what is the X of" question asks for; a label with its value may be two words', () => {
  assert.equal(attributeAsked('What is the BIC of the CCC Salzburg bank account?'), 'bic');
  assert.equal(attributeAsked("What is Galaxy Gaming's phone number?"), null);
  const q = 'What is the BIC of the club account?';
  const a = ask(q, weightsOf(q, { bic: 6 }));
  const cands = answering(candidatesFor([hit('Bank: Salzburger Sparkasse Bank AG\n\nBIC: SBGSAT2SXXX')], a), a);
  assert.equal(cands[0]?.unit.text, 'BIC: SBGSAT2SXXX');
  // the question's name that is the attribute asked for is its key term: the line with it has it
  assert.equal(cands[0]!.keyMissing, false);
});

test('the doer of a verb says the verb: "who managed" is answered by "… manager …"', () => {
  const q = 'Who managed Leicester when Roberts arrived there?';
  const a = ask(q, weightsOf(q));
  const cands = answering(candidatesFor([hit('Neil Warnock needed to sell players, and Leicester manager Brian Little took an interest in Roberts.')], a), a);
  assert.equal(cands.length, 1);
  // without the doer, nothing in the sentence says the relation asked about
  assert.equal(answering(candidatesFor([hit('Neil Warnock needed to sell players, and Leicester chairman Brian Little took an interest in Roberts.')], a), a).length, 0);
});

test('an answer from a document the search put far behind another is no answer, unless the question names that document', () => {
  const q = 'Which company owns the trademark on the character sheet?';
  const a = ask(q, weightsOf(q));
  const sheet = { ...hit('CHARACTER NAME\n\nCLASS & LEVEL\n\nPLAYER NAME', 'sheet'), score: 1 };
  const wiki = { ...hit('Wikipedia is a registered trademark of the Wikimedia Foundation, Inc., a non-profit organization.', 'wiki'), score: 0.3 };
  const c = answering(candidatesFor([sheet, wiki], a), a)[0]!;
  assert.equal(c.hit.document_id, 'wiki');
  assert.equal(elsewhere(c, [sheet, wiki]), true);
  assert.equal(elsewhere(c, [sheet, wiki], (id) => id === 'wiki'), false);
  // a hit of the other document nearly as good: the search does not tell
  const near = { ...wiki, score: 0.7 };
  assert.equal(elsewhere({ ...c, hit: near }, [sheet, near]), false);
  // the best hit's own document
  assert.equal(elsewhere(c, [{ ...wiki, score: 1 }]), false);
  // a best hit from a document without the question's names does not count
  assert.equal(elsewhere(c, [sheet, wiki], undefined, (id) => id !== 'sheet'), false);
});

test('a table row answers "which city / company" only when its header or its cells name the kind', () => {
  const q = 'In which city is the Lakeside resort?';
  const a = ask(q, weightsOf(q));
  const table = (header: string) => `| ${header} | Check In | Rooms |\n| --- | --- | --- |\n| Lakeside Resort Nanganallur | 31/12/2017 | 1 |\n`;
  assert.deepEqual(answering(candidatesFor([hit(table('Hotel'))], a), a), []);
  assert.equal(answering(candidatesFor([hit(table('City'))], a), a).length, 1);
  // a date shows its kind by its form: "what date" needs no column named date
  const d = ask('On what date did the guest leave the Lakeside resort?', weightsOf('On what date did the guest leave the Lakeside resort?'));
  assert.ok(candidatesFor([hit('| Hotel | Check In | Check Out |\n| --- | --- | --- |\n| Lakeside Resort | 31/12/2017 | 01/01/2018 |\n')], d).some((c) => c.unit.kind === 'row'));
});

test('an answer whose sentence says little of the question is no answer when another document answers about as well', () => {
  const q = 'In what year was the character sheet copyrighted?';
  const a = ask(q, weightsOf(q));
  // the sheet has the question's subject, another document a copyright line with a year: neither says the question
  const sheet = hit('# CHARACTER SHEET\n\nCopyright 2009 Wizards, free for personal use.', 'sheet');
  const other = hit('Published in 2014. © Copyright IBM Corp. 2014.', 'ibm');
  const both = answering(candidatesFor([other, sheet], a), a);
  assert.ok(both.length >= 2 && new Set(both.map((c) => c.hit.document_id)).size === 2, JSON.stringify(both.map((c) => c.unit.text)));
  assert.ok(both[0]!.sentenceCoverage < 0.5, `${both[0]!.sentenceCoverage}`);
  assert.equal(rivalDocument(both), true);
  // one document alone: nothing competes
  assert.equal(rivalDocument(both.filter((c) => c.hit.document_id === both[0]!.hit.document_id)), false);
  // a sentence that says the question itself is not open, whatever else answers
  const says = answering(candidatesFor([hit('The character sheet was copyrighted in 2009.', 'sheet'), other], a), a);
  assert.ok(says[0]!.sentenceCoverage >= 0.5, `${says[0]!.sentenceCoverage}`);
  assert.equal(rivalDocument(says), false);
});

test("a table's header row heads the rows below it: it is not a label quoted with the first row as its value", () => {
  const q = 'What inspection score did Rotterdam get?';
  const a = ask(q, weightsOf(q));
  const cands = candidatesFor([hit('| Site | Score |\n|---|---|\n| Rotterdam | 97 |\n| Antwerp | 88 |')], a);
  const best = answering(cands, a)[0]!;
  // the row alone, its header counted as its words ("score")
  assert.equal(best.unit.text, 'Rotterdam | 97');
  assert.equal(best.unit.context, 'Site | Score');
  assert.ok(best.typed);
  assert.ok(!cands.some((c) => c.unit.text.startsWith('Site | Score Rotterdam')), cands.map((c) => c.unit.text).join(' / '));
});

test('a date asked in words is found where it is printed in numbers; a date no passage prints names none', () => {
  const receipt = (date: string, number: string) => `HARBOUR HARDWARE SDN BHD\n12 Jalan Pelabuhan, 41000 Klang\nDate: ${date}\nReceipt Number: ${number}\nTotal: 14.84`;
  const chunks = [hit(receipt('04/01/2018', 'CS00012543'), 'd1'), hit(receipt('13/01/2018', 'CS00012610'), 'd2'), hit('Opening hours from 2 January 2018: 9 am to 6 pm.', 'd3')];
  const docs = new Map(chunks.map((h) => [h.document_id, { has: (t: string) => termSet(h.content).has(t), names: () => false }]));
  const from = (q: string) => new Set(candidatesFor(chunks.slice(0, 2), ask(q, weightsOf(q)), docs).map((c) => c.hit.document_id));
  assert.deepEqual([...from('What is the receipt number of the Harbour Hardware receipt of 4 January 2018?')], ['d1']);
  assert.deepEqual([...from('What is the receipt number of the Harbour Hardware receipt of 13 January 2018?')], ['d2']);
  assert.deepEqual([...from('What is the receipt number of the Harbour Hardware receipt of 5 January 2018?')], []);
});
