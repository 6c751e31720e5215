import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellAnswer, documentAspect, isFragment } from '../src/answer-shape.js';
import { labelConcepts, labelExpansion, lineNumberGutter, terms, unitsOf } from '@quire/text';

test('fragments are never answers: a row of several cells, a bare number, a cut or broken-off sentence', () => {
  const u = (text: string, kind: 'sentence' | 'row' = 'sentence', cut?: 'start' | 'end') => ({ text, start: 0, kind, ...(cut ? { cut } : {}) });
  assert.ok(isFragment(u('Percent who | Average | Amount borrowed', 'row')));
  assert.ok(isFragment(u('13')));
  assert.ok(isFragment(u('argument before the Supreme Court of the United States')));
  assert.ok(isFragment(u('The ferry line opened in', 'sentence')));
  assert.ok(isFragment(u('The ferry line opened in 1956 and', 'sentence')));
  assert.ok(isFragment(u('The ferry line opened in 1956.', 'sentence', 'end')));
  assert.ok(!isFragment(u('The ferry line opened in 1956.')));
  assert.ok(!isFragment(u('Invoice date: 14 March 2023')));
  assert.ok(!isFragment(u('Total | $4.11', 'row')));
});

test('a table answer is one cell with its row label and column header', () => {
  const row = { text: 'Percent who borrowed | 41% | 45%', start: 0, kind: 'row' as const, context: 'Measure | 2011–12 | 2015–16' };
  const holds = (c: string) => /%/.test(c);
  const number = (c: string) => /^\d+$/.test(c);
  const asked = (q: string) => (h: string) => terms(h).filter((t) => terms(q).includes(t)).length;
  assert.equal(cellAnswer(row, holds, asked('What percent borrowed in 2015–16?')), 'Percent who borrowed (2015–16): 45%');
  assert.equal(cellAnswer(row, holds, asked('What percent borrowed in 2011–12?')), 'Percent who borrowed (2011–12): 41%');
  // nothing tells the two cells apart: no answer
  assert.equal(cellAnswer(row, holds, asked('What percent borrowed?')), null);
  assert.equal(cellAnswer({ text: 'Total | $4.11', start: 0, kind: 'row' }, (c) => /\$/.test(c), () => 0), 'Total: $4.11');
  // a title row above the header: the row under it heads the columns
  const sales = unitsOf('| In millions of CHF |  |  | January–June 2023 |\n| --- | --- | --- | --- |\n|  | Sales | Profit | Costs |\n| Water | 1706 | 187 | 57 |')[2]!;
  assert.equal(cellAnswer(sales, number, asked('What did water sales amount to?')), 'Water (Sales): 1706');
  // a title row with several periods: the row under it, whose corner is blank, heads the columns
  const impairment = unitsOf('| In millions of CHF |  | January–June 2023 |  | January–June 2022 |\n| --- | --- | --- | --- | --- |\n|  | Goodwill | Intangibles | Goodwill | Intangibles |\n| Total | -16 | -55 | 0 | -599 |')[2]!;
  assert.deepEqual(impairment.columns, ['', 'Goodwill', 'Intangibles', 'Goodwill', 'Intangibles']);
  assert.equal(cellAnswer(impairment, (c) => /\d/.test(c), asked('What were the total sales from January to June 2023?')), null);
  // a header of another width tells no column: several values, none chosen
  assert.equal(cellAnswer({ text: 'PetCare | 0 | -15', start: 0, kind: 'row', context: 'In millions of CHF | January–June 2023' }, (c) => /\d/.test(c), asked('What did PetCare sell in January–June 2023?')), null);
  // a header without the corner cell, or with a title row above, is aligned on the right
  const ducks = unitsOf('|  | Freshwater Ducks | Saltwater Ducks |\n| --- | --- | --- |\n| 2019 | 120 | 80 |')[1]!;
  assert.equal(cellAnswer(ducks, number, asked('How many saltwater ducks were seen in 2019?')), '2019 (Saltwater Ducks): 80');
  // the row's label is the value asked for: quoted with the cell the question gives
  const year = unitsOf('| Year | Freshwater Ducks |\n| --- | --- |\n| 2020 | 135 |')[1]!;
  assert.equal(cellAnswer(year, (c) => /^(?:19|20)\d\d$/.test(c), () => 0, (c) => c === '135'), '2020 (Freshwater Ducks): 135');
  // a row labelled by a bare index: labelled by the cells the question names
  const customer = unitsOf('| Index | First Name | Last Name | Company |\n| --- | --- | --- | --- |\n| 1 | Sheryl | Baxter | Rasmussen Group |')[1]!;
  const words = new Set(['which', 'company', 'does', 'sheryl', 'baxter', 'work', 'for']);
  assert.equal(cellAnswer(customer, (c) => /^\p{Lu}/u.test(c), asked('Which company does Sheryl Baxter work for?'), (c) => c.toLowerCase().split(/\s+/).every((w) => words.has(w))), 'Sheryl Baxter (Company): Rasmussen Group');
  // cells that are fields of their own: the one whose label the question says
  const office = { text: 'Corporate Office: 9th floor, Sec-69, Gurgaon | Phone: 080 100 444 66 | Email: contact@example.com', start: 0, kind: 'row' as const };
  assert.equal(cellAnswer(office, () => true, asked('Where is the corporate office?')), 'Corporate Office: 9th floor, Sec-69, Gurgaon');
});

test('a line-number gutter is no part of the text: the sentence runs on across the numbered lines', () => {
  const text = '12 The harbour board decided that the northern\n13 footbridge will close for repairs until the end\n14 of the summer season.\n15 Boats must use the southern slipway.';
  assert.equal(lineNumberGutter(text.split('\n')).size, 4);
  const units = unitsOf(text).map((u) => u.text);
  assert.deepEqual(units, ['The harbour board decided that the northern footbridge will close for repairs until the end of the summer season.', 'Boats must use the southern slipway.']);
  // amounts or years that happen to begin lines are no gutter
  assert.equal(lineNumberGutter(['2019 revenue grew', 'A note', '2021 revenue fell', 'Another note', 'More text', 'Yet more']).size, 0);
});

test('business labels of other languages count as the English words; a question searches for them', () => {
  assert.deepEqual(labelConcepts('Factuurnummer: 2023-0412'), ['invoice_number']);
  assert.deepEqual(labelConcepts('Rechnungsnummer 4711'), ['invoice_number']);
  assert.deepEqual(labelConcepts('N° de facture : F-118'), ['invoice_number']);
  assert.deepEqual(labelConcepts('Numero fattura 77'), ['invoice_number']);
  for (const t of terms('invoice number')) assert.ok(terms('Factuurnummer: 2023-0412').includes(t), t);
  assert.ok(labelExpansion('What is the invoice number?').includes('factuurnummer'));
  assert.ok(terms('Fälligkeitsdatum: 1. März').includes(terms('due')[0]!));
});

test('document-level questions', () => {
  assert.equal(documentAspect('What is the title of this report?'), 'title');
  assert.equal(documentAspect('Who wrote the document?'), 'author');
  assert.equal(documentAspect('When was the letter written?'), 'date');
  assert.equal(documentAspect('What is the Kestrel notice about?'), 'about');
  assert.equal(documentAspect('What is the title of the Word document that tests table layouts?'), 'title');
  assert.equal(documentAspect('When was the lighthouse first lit?'), null);
  assert.equal(documentAspect('Who argued for the respondent?'), null);
  // a document the question describes further is not this one
  assert.equal(documentAspect('What was the title of the book Roberts wrote about his final season?'), null);
  assert.equal(documentAspect('What is the name of the author of the report?'), null);
});
