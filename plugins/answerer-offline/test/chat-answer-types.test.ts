import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerTypeOf, holdsType, oneOfAKindAsked, printsTypeMark, questionWords } from '../src/answer-types.js';
import { questionTerms } from '@quire/text';

const holds = (question: string, text: string, common?: Set<string>) => {
  const type = answerTypeOf(question);
  assert.ok(type, `no type for ${question}`);
  return holdsType(text, type, questionWords(question), new Set(questionTerms(question).map((t) => t.term)), common);
};

test('question type → answer type', () => {
  assert.equal(answerTypeOf('Who argued on behalf of the petitioner?'), 'person');
  assert.equal(answerTypeOf('To whom is the invoice addressed?'), 'person');
  assert.equal(answerTypeOf('When was the bridge opened?'), 'date');
  assert.equal(answerTypeOf('In what year did the mill close?'), 'year');
  assert.equal(answerTypeOf('On what day of the week does the market open?'), 'weekday');
  assert.equal(answerTypeOf('Which section of the code sets out the duties?'), 'number');
  assert.equal(answerTypeOf('What is the total amount due?'), 'money');
  assert.equal(answerTypeOf('How much does a ticket cost?'), 'money');
  assert.equal(answerTypeOf('How much faster is the new engine?'), 'amount');
  assert.equal(answerTypeOf('How many rooms does the hotel have?'), 'number');
  assert.equal(answerTypeOf('What percentage of votes did she get?'), 'percent');
  assert.equal(answerTypeOf('Where is the company based?'), 'place');
  assert.equal(answerTypeOf('In which city is the plant?'), 'place');
  assert.equal(answerTypeOf('Which vendor supplied the pumps?'), 'person');
  assert.equal(answerTypeOf('What is a drake?'), null);
  assert.equal(answerTypeOf('What telephone number gives more information?'), 'identifier');
  assert.equal(answerTypeOf('What is the IBAN of the club?'), 'identifier');
  assert.equal(answerTypeOf('What number of rooms does the hotel have?'), 'number');
  // any thing's number names it: a code to quote ("the contract number", "the receipt number of the shop's receipt"), not a count
  assert.equal(answerTypeOf('Which contract number appears on the invoice?'), 'identifier');
  assert.equal(answerTypeOf("What is the receipt number of the hardware shop's receipt?"), 'identifier');
  assert.equal(answerTypeOf('What is the docket no. of the appeal?'), 'identifier');
  assert.notEqual(answerTypeOf('What is the total number of rooms in the hotel?'), 'identifier');
  assert.notEqual(answerTypeOf('What was the average number of guests a night?'), 'identifier');
  assert.notEqual(answerTypeOf('In which states did no district go over the cap?'), 'identifier');
  assert.equal(answerTypeOf('What were the sales of the coffee division?'), 'amount');
  // a mark on a scale is a number
  assert.equal(answerTypeOf('What inspection score did Rotterdam get?'), 'number');
  assert.equal(answerTypeOf('Which rating did the hotel receive?'), 'number');
  assert.equal(answerTypeOf('Why did the ferry stop running?'), null);
});

test('a sentence holds the asked-for type only with a value the question does not already name', () => {
  // the label without its value holds no amount; with it, it does
  assert.equal(holds('What is the total amount due?', 'TOTAL AMOUNT DUE ON August 3 , 2014'), false);
  assert.equal(holds('What is the total amount due?', 'TOTAL AMOUNT DUE ON August 3 , 2014 $4.11'), true);
  assert.equal(holds('How much did the repair cost?', 'The repair cost 1.250,00 EUR.'), true);
  assert.equal(holds('When was the bridge opened?', 'The bridge was opened on 12 March 1931.'), true);
  assert.equal(holds('When was the bridge opened?', 'The bridge was opened with a parade.'), false);
  assert.equal(holds('When did the shop open in 1990?', 'The shop opened in 1990.'), false);
  assert.equal(holds('When is the invoice dated?', 'Factuurdatum: 19 april 2014'), true);
  assert.equal(holds('How many caps did he win?', 'He won fifteen caps for Wales.'), true);
  assert.equal(holds('How many caps did he win?', 'He won caps for Wales.'), false);
  assert.equal(holds('What percentage of the vote did she get?', 'She won 54% of the vote.'), true);
  assert.equal(holds('What percentage of the vote did she get?', 'She won most of the vote.'), false);
});

test('names: proper names and label values, not capitalised common words or sentence starts', () => {
  const common = new Set(['invoice', 'account', 'exact', 'receipt']);
  assert.equal(holds('Who argued for the petitioner?', 'ARGUMENT OF Jane Holloway, ON BEHALF OF THE PETITIONER', common), true);
  assert.equal(holds('Who was the guest?', 'Guest Name: Sanjay', common), true);
  assert.equal(holds('Who is the consultant?', 'Jim Bainbridge is a senior consultant.', common), true);
  assert.equal(holds('Who was the guest?', 'The guest paid in cash.', common), false);
  assert.equal(holds('Which company was billed?', 'Invoice Account number: 296664039561', common), false);
  assert.equal(holds('Where is Galaxy Gaming based?', 'Galaxy Gaming, Inc. (Exact name of issuer)', common), false);
});

test('an identifier: digits in groups or a code of capitals and digits, not a year or a short count', () => {
  const q = 'What is the phone number of the office?';
  assert.equal(holds(q, 'For more information call 1-866-330-3304.'), true);
  assert.equal(holds(q, 'IBAN: AT92 2040 4000 4096 8679'), true);
  assert.equal(holds(q, 'Booking ID IBZY2087'), true);
  assert.equal(holds(q, 'The office opened in 2001 with 12 staff.'), false);
  assert.equal(holds(q, 'The fee is $12,500.00 a year.'), false);
  // (capitals joined by underscores name a system value or a setting; the question's own is not new, nor a word in capitals alone)
  const v = 'Which function usage ID governs access through the application server?';
  assert.equal(holds(v, '2.1.2 Toolbox application server access: QIBM_DB_ZDA'), true);
  assert.equal(holds('What function usage ID does QIBM_DB_ZDA stand beside?', 'Access is governed by QIBM_DB_ZDA.'), false);
  assert.equal(holds(v, 'The ACCESS to the SERVER is logged.'), false);
});

test('a name joined of several words is new unless all its parts are the question\'s', () => {
  assert.equal(holds('Which word processor did lawyers favour?', 'Processors for legal professionals, like WordPerfect, offered redlining.'), true);
  assert.equal(holds('Which word processor did lawyers favour?', 'Lawyers liked the processors for their Word-Processor features.'), false);
});

test('a date with the time glued to its year, as OCR reads a receipt, is a date', () => {
  assert.equal(holds('On what date was the modelling clay bought?', 'Date: 25/12/20188:13:39 PM'), true);
  assert.equal(holds('On what date was the modelling clay bought?', 'Ref 25/12/201883 PM'), false);
});

test('a date of the grain asked for; a web address for where something is published; a name with a slash', () => {
  assert.equal(holds('On what day of the week does the market open?', 'Today is Wednesday, said the prince.'), true);
  assert.equal(holds('On what day of the week does the market open?', 'It was in July, 1805.'), false);
  assert.equal(holds('In what year did the mill close?', 'The mill closed on 3 August.'), false);
  assert.equal(holds('In what year did the mill close?', 'The mill closed in 1931.'), true);
  assert.equal(holds('Where was the code released?', 'The code has been released at https://github.com/example/tool.'), true);
  assert.equal(holds('For which operating system was the editor written?', 'Developed for the CP/M operating system, the editor sold well.', new Set(['developed'])), true);
});

test('in German text a capital marks a noun: a name only as a label value, a word with a capital inside, or an abbreviation', () => {
  const q = 'To whom is the invoice addressed?';
  assert.equal(holds(q, 'Für Rückfragen wenden Sie sich bitte per E-Mail an die Buchhaltung unter der Angabe Ihrer Kundennummer.'), false);
  assert.equal(holds(q, 'Die Rechnung geht an QualityHosting und wird per Lastschrift bezahlt.'), true);
  assert.equal(holds(q, 'Kunde: Orvella und die Partner der Firma'), true);
});

test('"what does X stand for": the words the abbreviation is made of, or a label with its value', () => {
  const q = 'What does the abbreviation MIPS mean?';
  assert.equal(answerTypeOf(q), 'expansion');
  assert.equal(answerTypeOf('What does RCAC stand for?'), 'expansion');
  assert.equal(holds(q, 'Search is done with maximum inner product search (MIPS) algorithms.'), true);
  assert.equal(holds(q, 'MIPS | Maximum inner product search'), true);
  assert.equal(holds(q, 'The MIPS algorithms are fast.'), false);
  assert.equal(holds(q, 'It uses many index pages (MIPS) here.'), false);
});

test('the noun after which/what ends at the verb; a question that begins with who asks for a name', () => {
  // "times" is the subject of the clause, not the thing asked for
  assert.equal(answerTypeOf('Which processor were the inference times measured on?'), 'person');
  assert.equal(answerTypeOf('What day was the ship launched?'), 'date');
  // a clause of time does not make a who-question a when-question
  assert.equal(answerTypeOf('Who managed the club when he arrived there?'), 'person');
  assert.equal(answerTypeOf('To whom was the letter sent when the office closed?'), 'person');
  assert.equal(answerTypeOf('When did the manager who signed him leave?'), 'date');
});

test('a decimal amount is no time of day; a time is', () => {
  assert.equal(holds('When was the invoice issued?', 'Total for this invoice | $4.11'), false);
  assert.equal(holds('When was the invoice issued?', 'Balance 12.50'), false);
  assert.equal(holds('When does the train leave?', 'The train leaves at 06:40.'), true);
  assert.equal(holds('When does the train leave?', 'The train leaves at 9.15 pm.'), true);
});

test('the head of two type nouns in a row decides; a deadline is a date; a web page is an address', () => {
  assert.equal(answerTypeOf('What were the total sales from January to June?'), 'amount');
  assert.equal(answerTypeOf('What is the total amount due?'), 'money');
  assert.equal(answerTypeOf('What is the deadline for filing the return?'), 'date');
  assert.equal(answerTypeOf('Which web page lists the accepted ways to pay?'), 'web');
  assert.equal(holds('Which web page lists the accepted ways to pay?', 'For the payment methods, go to canada.ca/payments.'), true);
  assert.equal(holds('Which web page lists the accepted ways to pay?', 'For the payment methods, see the payments page.'), false);
});

test('a year that belongs to a name is no date', () => {
  assert.equal(holds('What is the deadline for filing the return?', 'Duty and Information Return under the Excise Act, 2001'), false);
  assert.equal(holds('When was the return introduced?', 'In 2001, the return was introduced.'), true);
  assert.equal(holds('When was the return introduced?', 'The return was introduced in July, 2001.'), true);
});

test('how tall / far / long asks for a quantity with its unit', () => {
  assert.equal(answerTypeOf('How tall is the striker?'), 'measure');
  assert.equal(answerTypeOf('How many goals did he score?'), 'number');
  assert.equal(holds('How tall is the striker?', 'Height 6 ft 3 in (1.91 m)'), true);
  // a page number or a year is no height
  assert.equal(holds('How tall is the striker?', 'Roberts 2004, p. 126 Roberts, Iwan (26 October 2017).'), false);
  assert.equal(holds('How long does the partnership last?', 'The partnership usually lasts one year.'), true);
  assert.equal(holds('How far is the station?', 'The station is 12km away.'), true);
  assert.equal(holds('How far is the station?', 'The station is number 12 in the list.'), false);
});

test('how big / large may be a count; how high / long may be money, a share or a size', () => {
  assert.equal(answerTypeOf('How large is the training set?'), 'number');
  assert.equal(holds('How large is the training set?', 'The training set holds 58,880 questions.'), true);
  assert.equal(holds('How high is the annual fee?', 'The annual fee is $30.'), true);
  assert.equal(holds('How high is the tax rate?', 'The tax rate is 21 %.'), true);
  assert.equal(holds('How long is the report?', 'The report runs to 300 pages.'), true);
});

test('a name with digits in it names a thing, not a place', () => {
  const common = new Set(['our', 'dense', 'retriever', 'outperforms', 'strong', 'system']);
  assert.equal(holds('Where was the code published?', 'Our dense retriever outperforms a strong Lucene-BM25 system.', common), false);
  // the place of an address that has digits elsewhere still counts
  assert.equal(holds('In which city is the office?', 'Uferweg 40-42, D-63571 Gelnhausen', common), true);
  // (a person or an organisation may have digits in its name)
  assert.equal(holds('Which system did the retriever beat?', 'Our dense retriever outperforms a strong Lucene-BM25 system.', common), true);
});

test('how long may be answered by a span of years', () => {
  assert.equal(holds('How long did he play for the club?', 'He played for the club from 1997 to 2004.'), true);
  assert.equal(holds('How long did he play for the club?', 'Years 1986–1990 Watford 63 (9)'), true);
  assert.equal(holds('How long has she led the firm?', 'She has led the firm since 2015.'), true);
  assert.equal(holds('How long did he play for the club?', 'He played for the club in 1997.'), false);
  // a span the question already gives is no answer
  assert.equal(holds('How long did he play between 1997 and 2004?', 'He played from 1997 to 2004.'), false);
});

test('a span of years answers how long, not how tall', () => {
  assert.equal(holds('How tall is the striker?', 'He played as a forward from 1986 to 2005.'), false);
});

test('"how many <unit>" asks for a quantity in that unit; a percentage is no count', () => {
  assert.equal(answerTypeOf('How many weeks does a customer have to object?'), 'measure');
  assert.equal(holds('How many weeks does a customer have to object?', 'Within this period a fee of 15,00 EUR is charged.'), false);
  assert.equal(holds('How many weeks does a customer have to object?', 'You may object within 4 weeks of the charge.'), true);
  assert.equal(holds('How many weeks does a customer have to object?', 'You may object within 8 days of the charge.'), false);
  assert.equal(holds('How many years did he play for the club?', 'He played there from 1997 to 2004.'), true);
  assert.equal(holds('How many districts received exceptions?', 'State granted exceptions to districts to exceed 1% cap'), false);
  assert.equal(holds('How many districts received exceptions?', 'State granted exceptions to 53 districts'), true);
});

test('a unit as tables abbreviate it is the unit asked for, singular or plural', () => {
  assert.equal(holds('How many seconds did the test take?', 'Blind | 1199 sec, n=1'), true);
  assert.equal(holds('How many minutes does the ride take?', 'Ride: 45 min'), true);
  assert.equal(holds('How many minutes does the ride take?', 'Ride: 1 minute'), true);
  assert.equal(holds('How many hours does the ride take?', 'Ride: 3 hrs'), true);
  assert.equal(holds('How many inches of rain fell?', 'Rain: 2 inches'), true);
  assert.equal(holds('How many seconds did the test take?', 'Ride: 45 min'), false);
});

test("a table's cell prints the asked type with its mark: a share its %, a sum its currency, a measure its unit", () => {
  const marked = (question: string, cell: string) => printsTypeMark(cell, answerTypeOf(question)!, questionWords(question), new Set(questionTerms(question).map((t) => t.term)));
  assert.equal(marked('What percentage is reported for the blind group?', '34.5%, n=1'), true);
  assert.equal(marked('What percentage is reported for the blind group?', '34.5'), false);
  assert.equal(marked('What did the storage cost?', '$2.22'), true);
  assert.equal(marked('What did the storage cost?', '2.22'), false);
  assert.equal(marked('How long did the group need?', '1416 sec, n=3'), true);
  assert.equal(marked('How long did the group need?', '95.4%, n=3'), false);
  assert.equal(marked('How many voters took part?', '48'), false);
});

test('"what does the <noun> X mean": an expansion, whose label value begins with the abbreviation\'s first letter', () => {
  const q = 'What does the deduction code AMD mean on the certificate?';
  assert.equal(answerTypeOf(q), 'expansion');
  assert.equal(holds(q, '16 | 2. déductions | AMD | du au'), false);
  assert.equal(holds(q, 'AMD | abattement pour mobilité durable'), true);
});

test('one of a kind asked by its noun alone is a name by default, told apart from who and from nouns of a type', () => {
  assert.equal(answerTypeOf('Which credit derivative instrument is by far the most significant by volume?'), 'person');
  assert.equal(oneOfAKindAsked('Which credit derivative instrument is by far the most significant by volume?'), true);
  assert.equal(oneOfAKindAsked('In which questionnaires are pictorial response scales often used?'), true);
  assert.equal(oneOfAKindAsked('Who founded the company?'), false);
  assert.equal(oneOfAKindAsked('Which company built the bridge?'), false);
  assert.equal(oneOfAKindAsked('Which city hosted the fair?'), false);
  assert.equal(oneOfAKindAsked('What is the capital of France?'), false);
});
