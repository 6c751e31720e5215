import { test } from 'node:test';
import assert from 'node:assert/strict';
import { synonymWordsOf, stem } from '@quire/text';
import { amountsOf, asksForCompany, holdsCompany, totalLine } from '../src/answer-types.js';
import { subjectVerb, terms } from '@quire/text';

test('the verb of a question whose wh-word is its subject is the relation asked about', () => {
  assert.equal(subjectVerb('What joins the two halves of a self-locking nut?'), terms('joins')[0]);
  assert.equal(subjectVerb('Who invented the typewriter?'), terms('invented')[0]);
  assert.equal(subjectVerb('Who appoints the standing trustees?'), terms('appoints')[0]);
  // a copula, an auxiliary or a noun before the verb: no such verb
  assert.equal(subjectVerb('Who is the senior consultant?'), null);
  assert.equal(subjectVerb('What did Amazon charge for storage?'), null);
  assert.equal(subjectVerb('What materials are wing nuts made from?'), null);
  assert.equal(subjectVerb('When did the store open?'), null);
});

test('a "which company" question, and a company named by its legal form', () => {
  assert.equal(asksForCompany('Which company was billed by the provider?'), true);
  assert.equal(asksForCompany('What firm audited the accounts?'), true);
  assert.equal(asksForCompany('Which city is the plant in?'), false);
  assert.equal(holdsCompany('Bill to Address: ATTN: iViveLabs Limited'), true);
  assert.equal(holdsCompany('Sold by Orvella Trading GmbH, Berlin'), true);
  assert.equal(holdsCompany('Galaxy Gaming, Inc. (Exact name of registrant)'), true);
  // capitalised words without a legal form are no company by that evidence
  assert.equal(holdsCompany('Details are available on the Account Activity Page.'), false);
  // "co" or "group" as common words, not after a name
  assert.equal(holdsCompany('the group met with the co chair'), false);
});

test('synonym words as written, to search in the words a document may use', () => {
  const words = synonymWordsOf(stem('paid'));
  assert.ok(words.includes('due') && words.includes('total'));
  assert.ok(!words.includes('paid'));
  assert.deepEqual(synonymWordsOf(stem('xylophone')), []);
});

test('a line labelled as the total, and amounts compared however printed', () => {
  assert.equal(totalLine('Total for this invoice | $4.11'), true);
  assert.equal(totalLine('TOTAL AMOUNT DUE ON August 3, 2014 $4.11'), true);
  assert.equal(totalLine('Balance due: 12.00'), true);
  assert.equal(totalLine('Subtotal | $3.90'), false);
  assert.equal(totalLine('Sub-total 3.90'), false);
  assert.equal(totalLine('Charges | $1.87'), false);
  assert.deepEqual(amountsOf('Charges | $4.11'), amountsOf('Total: 4.11'));
  assert.deepEqual(amountsOf('€ 717,97 and $1,939'), ['71797', '1939']);
  assert.deepEqual(amountsOf('page 3 of 2014'), []);
});

test('a label ending in a colon takes no value from the line above it, and without a value holds no answer', async () => {
  const { ask, candidatesFor } = await import('../src/answer.js');
  const { terms: t } = await import('@quire/text');
  const q = 'Who waited on the table at the bistro?';
  const a = ask(q, new Map(t(q).map((x) => [x, 1])));
  const hit = { chunk_id: 'c1', document_id: 'd1', document_name: 'receipt.html', page: 1, score: 1, metadata: {}, content: 'Harbour Bistro Receipt\n\nDetails of the table service at the bistro:\n\nWaiter: Tomas Lindgren\n\nGuests: 4\n' };
  const cands = candidatesFor([hit], a);
  const typed = cands.filter((c) => c.typed).map((c) => c.unit.text);
  assert.ok(typed.includes('Waiter: Tomas Lindgren'), JSON.stringify(typed));
  assert.ok(!typed.some((x) => /service at the bistro:/.test(x)), JSON.stringify(typed));
});

test('a caption in brackets under a value is joined to it, cell by cell in a table', async () => {
  const { unitsOf } = await import('@quire/text');
  const texts = unitsOf('Orvella Mining Corp.\n\n(Exact name of registrant as specified in its charter)\n\n| Delaware |  | 12-3456789 |\n| --- | --- | --- |\n| (State of incorporation) |  | (Employer Identification No.) |\n').map((u) => u.text);
  assert.deepEqual(texts, ['Orvella Mining Corp. (Exact name of registrant as specified in its charter)', 'Delaware (State of incorporation) | 12-3456789 (Employer Identification No.)']);
  // a bracketed remark after a sentence is left alone when it is not a caption of a short value
  const prose = unitsOf('The mill closed in 1931 after a long decline that the town never recovered from in the decades that followed.\n\n(See the appendix.)\n').map((u) => u.text);
  assert.equal(prose.length, 2);
});

test('a cell merged across columns is quoted once', async () => {
  const { unitsOf } = await import('@quire/text');
  const rows = unitsOf('| Office | Office | Phone |\n| --- | --- | --- |\n| 12 Harbour Road, Leith | 12 Harbour Road, Leith | 555-0100 |\n').map((u) => u.text);
  assert.deepEqual(rows, ['Office | Phone', '12 Harbour Road, Leith | 555-0100']);
});

test('a table whose first row is a title of mostly blank cells: the row under it heads the columns too', async () => {
  const { unitsOf } = await import('@quire/text');
  const units = unitsOf('| In millions of CHF |  |  | January–June 2023 |\n| --- | --- | --- | --- |\n|  | Sales | Profit | Staff |\n| Coffee | 3128 | 678 | 12 |\n');
  const row = units.find((u) => u.text.startsWith('Coffee'));
  assert.ok(row?.context?.includes('Sales') && row.context.includes('January–June 2023'), JSON.stringify(row));
});

test('a line that ends on "like" or "including" continues after a blank line', async () => {
  const { unitsOf } = await import('@quire/text');
  const texts = unitsOf('• Legal processors: tools made for legal professionals, like\n\nWordPerfect, offered redlining and comparison.\n').map((u) => u.text);
  assert.deepEqual(texts, ['Legal processors: tools made for legal professionals, like WordPerfect, offered redlining and comparison.']);
});

test('what "how tall / long / far" asks for meets the noun a document uses', () => {
  assert.ok(synonymWordsOf(stem('tall')).includes('height'));
  assert.ok(synonymWordsOf(stem('height')).includes('tall'));
  assert.ok(synonymWordsOf(stem('far')).includes('distance'));
});

test('a noun in -ie and its plural in -ies are one term', () => {
  assert.deepEqual(terms('calorie'), terms('calories'));
  assert.deepEqual(terms('movie'), terms('movies'));
  assert.deepEqual(terms('policy'), terms('policies'));
});

test('"kinds of", "sorts of" frame a question, in the plural as in the singular', async () => {
  const { kindTerms, questionTerms } = await import('@quire/text');
  assert.deepEqual(kindTerms('Which kinds of leaves can a duck eat?'), terms('leaves'));
  assert.ok(!questionTerms('What sorts of nuts are there?').some((t) => t.term === terms('sorts')[0]));
});

test('"how many people" meets the people a document counts (guests, attendees, participants)', () => {
  assert.ok(synonymWordsOf(stem('people')).includes('guest'));
  assert.ok(synonymWordsOf(stem('guests')).includes('people'));
  assert.ok(synonymWordsOf(stem('people')).includes('participant'));
});

test('English question words meet the German, Dutch and French words of forms and invoices', () => {
  assert.ok(synonymWordsOf(stem('membership')).includes('mitgliedschaft'));
  assert.ok(synonymWordsOf(stem('annual')).includes('jahr'));
  assert.ok(synonymWordsOf(stem('customer')).includes('kunde'));
  assert.ok(synonymWordsOf(stem('account')).includes('rekening'));
  // (written as terms are: without diacritics)
  assert.ok(synonymWordsOf(stem('quantity')).includes('quantite'));
});

test('words of the document\'s own name are no evidence that one of its sentences answers', async () => {
  const { ask, candidatesFor } = await import('../src/answer.js');
  const { terms: t } = await import('@quire/text');
  const q = 'Which Gundam was picked on the fancy fields form?';
  const a = ask(q, new Map(t(q).map((x) => [x, 1])));
  const hit = { chunk_id: 'c1', document_id: 'd1', document_name: 'fancy_fields.pdf', page: 1, score: 1, metadata: {}, content: 'This is a PDF with fancy fields!\n' };
  const docTerms = new Map([['d1', { has: (x: string) => ['fanci', 'fancy', 'field', 'pdf', 'gundam', 'pick'].includes(x), names: (x: string) => t('fancy fields').includes(x) }]]);
  assert.deepEqual(candidatesFor([hit], a, docTerms).map((c) => c.unit.text), []);
});

test('a question that names a document by a phrase of its name is answered from that document only', async () => {
  const { ask, candidatesFor } = await import('../src/answer.js');
  const { terms: t } = await import('@quire/text');
  const q = 'What birth date was filled in on the sample form?';
  const a = ask(q, new Map(t(q).map((x) => [x, 1])));
  const bio = { chunk_id: 'c1', document_id: 'd1', document_name: 'footballer.txt', page: 1, score: 1, metadata: {}, content: 'Iwan Roberts (born 26 June 1968) is a former footballer who filled in on the form sheet.\n' };
  const form = { chunk_id: 'c2', document_id: 'd2', document_name: 'sample_form.pdf', page: 1, score: 0.5, metadata: {}, content: 'The birth date filled in: 08/29/2020\n' };
  const docTerms = new Map([
    ['d1', { has: (x: string) => t(bio.content).includes(x), names: (x: string) => t('footballer').includes(x) }],
    ['d2', { has: (x: string) => t(form.content).includes(x), names: (x: string) => t('sample form').includes(x) }],
  ]);
  const docs = new Set(candidatesFor([bio, form], a, docTerms).map((c) => c.hit.document_id));
  assert.deepEqual([...docs], ['d2']);
});

test('a name of the question that the document writes in its own language counts as there ("VAT" / "BTW")', async () => {
  const { ask, candidatesFor } = await import('../src/answer.js');
  const { terms: t } = await import('@quire/text');
  const q = 'How much VAT is on the Coolblue bill?';
  const a = ask(q, new Map(t(q).map((x) => [x, 1])));
  const hit = { chunk_id: 'c1', document_id: 'd1', document_name: 'coolblue.pdf', page: 1, score: 1, metadata: {}, content: 'Coolblue factuur\n\nBTW 21% bedrag € 124,61\n' };
  const docTerms = new Map([
    ['d1', { has: (x: string) => t(hit.content).includes(x), names: (x: string) => t('coolblue').includes(x) }],
    ['d2', { has: (x: string) => t('US sales tax, VAT and GST').includes(x), names: () => false }],
  ]);
  const texts = candidatesFor([hit], a, docTerms).filter((c) => c.typed).map((c) => c.unit.text);
  assert.ok(texts.some((x) => x.includes('124,61')), JSON.stringify(texts));
});

test('a word of the question begins a compound of the document ("order" / "Orderdatum")', async () => {
  const { ask, candidatesFor } = await import('../src/answer.js');
  const { terms: t } = await import('@quire/text');
  const q = 'On what day was the order placed?';
  const a = ask(q, new Map(t(q).map((x) => [x, 1])));
  const hit = { chunk_id: 'c1', document_id: 'd1', document_name: 'factuur.pdf', page: 1, score: 1, metadata: {}, content: 'Factuurnummer: 993548900\n\nOrderdatum: 18 april 2014\n' };
  const texts = candidatesFor([hit], a).filter((c) => c.typed).map((c) => c.unit.text);
  assert.ok(texts.includes('Orderdatum: 18 april 2014'), JSON.stringify(texts));
});
