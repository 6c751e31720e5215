import { test } from 'node:test';
import assert from 'node:assert/strict';
import { abbreviationAsked, capitalsIn, definitionsOf, longFormEnd, shortFormAsked } from '@quire/text';

const longs = (short: string, text: string) => definitionsOf(short, text).map((d) => `${d.kind}: ${d.long}`);

test('longFormEnd: the abbreviation’s letters in order, read from the right, the first at the start of a word', () => {
  assert.equal(longFormEnd('MIPS', 'can be done using maximum inner product search'), 'maximum inner product search');
  assert.equal(longFormEnd('AMD', 'abattement pour mobilité durable'), 'abattement pour mobilité durable');
  assert.equal(longFormEnd('CIM', "crédit d'impôt monoparental"), "crédit d'impôt monoparental");
  assert.equal(longFormEnd('NUM', 'Numeric Response'), 'Numeric Response');
  // the first letter must begin a word: the a inside "harbour" begins none
  assert.equal(longFormEnd('AR', 'the harbour'), null);
  assert.equal(longFormEnd('HR', 'the hotel'), null);
  assert.equal(longFormEnd('XYZ', 'nothing of the kind'), null);
});

test('definitionsOf: before or inside a parenthesis, stated after it, or in the next or previous cell of its row', () => {
  assert.deepEqual(longs('MIPS', 'Retrieval is done with maximum inner product search (MIPS) algorithms.'), ['parenthesis: maximum inner product search']);
  assert.deepEqual(longs('MT/ST', 'The IBM MT/ST (Magnetic Tape/Selectric Typewriter): introduced in 1964.'), ['parenthesis: Magnetic Tape/Selectric Typewriter']);
  assert.deepEqual(longs('na', 'Note: “na” means not available, and the figures are rounded.'), ['stated: not available']);
  assert.deepEqual(longs('PLT', 'PLT: pilotage dues, charged per call'), ['stated: pilotage dues']);
  assert.deepEqual(longs('NUM', '| Abbreviation | Question Type |\n| --- | --- |\n| NUM | Numeric Response |\n| ESS | Essay |'), ['cell: Numeric Response']);
  // the cell before it, a row's enumerator aside
  assert.deepEqual(longs('CIM', "| 28 | G) crédit d'impôt monoparental | CIM |  | signature |"), ["cell: crédit d'impôt monoparental"]);
  // in capitals only where it is written in capitals
  assert.deepEqual(longs('DS', 'The ds (dépenses spéciales) column'), []);
});

test('definitionsOf: a word that merely sits next to an abbreviation is no definition of it', () => {
  // the next cell is a question, the previous one a number
  assert.deepEqual(longs('MA', '| MA | What C datatypes are 8 bits? | int |'), []);
  assert.deepEqual(longs('AMD', '| 16 | 2. déductions 5) | AMD |  | du au |'), []);
  assert.deepEqual(longs('TBC', '| TBC | Monday |'), []);
  // a parenthesis holding the abbreviation after words it does not abbreviate
  assert.deepEqual(longs('ICT', 'as the authors propose (ICT) later'), []);
  // more words than the abbreviation's letters allow
  assert.deepEqual(longs('AB', 'AB: a long list of words that goes on and on about boats'), []);
  assert.deepEqual(longs('X', 'X (Xylophone)'), [], 'one letter is no abbreviation');
});

test('abbreviationAsked: the abbreviation next to the words that ask what it stands for', () => {
  assert.equal(abbreviationAsked('What does the abbreviation MIPS mean?'), 'MIPS');
  assert.equal(abbreviationAsked('What do the letters MT/ST stand for in IBM’s 1964 machine?'), 'MT/ST');
  assert.equal(abbreviationAsked('On the Luxembourg wage certificate, which kind of deduction is abbreviated FO?'), 'FO');
  assert.equal(abbreviationAsked('Which question format is marked NUM in the Blackboard template?'), 'NUM');
  assert.equal(abbreviationAsked('What does the abbreviation "na" mean in the exhibit?'), 'na');
  assert.equal(abbreviationAsked('What is the meaning of the code PLT?'), 'PLT');
  assert.equal(abbreviationAsked('What does IBM sell?'), null);
  assert.equal(abbreviationAsked('Which abbreviation marks essay questions?'), null);
  assert.equal(abbreviationAsked('How many people dined at the celebration?'), null);
});

test('shortFormAsked: a question for the abbreviation of words it gives', () => {
  assert.ok(shortFormAsked('Which abbreviation marks essay questions?'));
  assert.ok(shortFormAsked('What is the acronym for the Aldholm Island Service?'));
  assert.ok(!shortFormAsked('What does the abbreviation MIPS mean?'));
  assert.ok(!shortFormAsked('Which questions are essays?'));
  assert.deepEqual(capitalsIn('The ESS and MC codes, not Essay; MT/ST and FIB_PLUS'), ['ESS', 'MC', 'MT/ST', 'FIB_PLUS']);
});
