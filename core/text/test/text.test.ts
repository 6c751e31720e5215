import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeText, repairMojibake, KIND_TERMS, LanguageCounts, STOP_WORDS, foldsToItself, kindWords, labelWithoutColon, letterDigitRuns, questionPredicate, round, stem, termSet, unitsOf } from '@quire/text';

test('stem: plurals, -ing, -ed, -ies meet; numbers and short words stay', () => {
  assert.equal(stem('invoices'), stem('invoice'));
  assert.equal(stem('payments'), stem('payment'));
  assert.equal(stem('hired'), stem('hires'));
  assert.equal(stem('running'), 'run');
  assert.equal(stem('policies'), 'policy');
  assert.equal(stem('2024'), '2024');
  assert.equal(stem('bus'), 'bus');
});

test('stop words: function words only, in the tokenisers\' form', () => {
  for (const w of ['the', 'of', 'and', 'without', 'many', 'much', 'dont']) assert.ok(STOP_WORDS.has(w), w);
  for (const w of ['invoice', 'total', 'payment', 'date']) assert.ok(!STOP_WORDS.has(w), w);
  for (const w of STOP_WORDS) assert.match(w, /^[a-z]+$/, 'lower case letters only: the tokenisers never produce anything else');
});

test('round: 2 decimals by default, or as many as asked', () => {
  assert.equal(round(1.23456), 1.23);
  assert.equal(round(1.23456, 3), 1.235);
  assert.equal(round(0.123456, 4), 0.1235);
  assert.equal(round(-2.5), -2.5);
  assert.equal(round(12.345, 0), 12);
});

test('synonyms: question phrasing meets document phrasing, by stem, both ways', async () => {
  const { synonymsOf } = await import('@quire/text');
  assert.ok(synonymsOf(stem('argued')).includes(stem('behalf')));
  assert.ok(synonymsOf(stem('behalf')).includes(stem('argued')));
  assert.ok(synonymsOf(stem('price')).includes(stem('total')));
  assert.ok(synonymsOf(stem('lawyers')).includes(stem('attorney')));
  assert.ok(!synonymsOf(stem('price')).includes(stem('price')), 'a word is not its own synonym');
  assert.deepEqual(synonymsOf('zzzz'), []);
});

test('question words: framing words apart from the search side\'s stop words', async () => {
  const { QUESTION_WORDS } = await import('@quire/text');
  for (const w of ['tell', 'explain', 'please']) assert.ok(QUESTION_WORDS.has(w) && !STOP_WORDS.has(w), w);
});

test('letterDigitRuns: the same runs of letters and digits on the ASCII scan and the Unicode path', () => {
  assert.deepEqual(letterDigitRuns('Invoice No. INV-1001, total: 1,234.56 EUR'), ['Invoice', 'No', 'INV', '1001', 'total', '1', '234', '56', 'EUR']);
  assert.deepEqual(letterDigitRuns('Größe: 12 Stück — naïve'), ['Größe', '12', 'Stück', 'naïve']);
  assert.deepEqual(letterDigitRuns('  \t\n'), []);
  for (const t of ['a-b c_d 9x', 'tail9']) assert.deepEqual(letterDigitRuns(t), letterDigitRuns(`${t} é`).slice(0, -1));
});

test('letterDigitRuns splits by Unicode letters and digits, code point by code point, as the regex would; foldsToItself tells when folding changes nothing', () => {
  const regex = (t: string) => [...t.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]);
  const fold = (t: string) => t.normalize('NFKD').replace(/\p{M}+/gu, '');
  const pool = ['a', 'Z', '9', ' ', '-', '’', '•', '–', 'é', 'e\u0301', 'ß', 'ﬁ', 'ı', '한', 'ا', '中', '𝐀', '😀', '\ud800', '\udc00', '²', '½', 'ｆ', 'Å', '\u05b0', 'ि', '٣', '\u00a0'];
  let seed = 11;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  for (let k = 0; k < 5000; k++) {
    let s = '';
    for (let j = 1 + rnd(20); j > 0; j--) s += pool[rnd(pool.length)];
    assert.deepEqual(letterDigitRuns(s), regex(s), JSON.stringify(s));
    if (foldsToItself(s)) assert.equal(fold(s), s, JSON.stringify(s));
  }
  assert.deepEqual(letterDigitRuns('x𝐀y 😀 z9'), ['x𝐀y', 'z9']);
  assert.equal(foldsToItself('“Quoted” – a • list’s end'), true);
  assert.equal(foldsToItself('café'), false);
  assert.equal(foldsToItself('ﬁle'), false);
  assert.equal(foldsToItself('한국'), false);
});

test('a label printed without a colon: a label line when its value has the form the label names, else none', () => {
  const form = (t: string) => labelWithoutColon(t)?.form ?? null;
  assert.deepEqual(labelWithoutColon('IBAN DE30507500940000048567'), { label: 'IBAN', value: 'DE30507500940000048567', form: 'iban' });
  assert.equal(form('SWIFT HELADEF1GEL'), 'bic');
  assert.equal(form('Tel. +49 6051 916 44 10'), 'phone');
  assert.equal(form('USt-IdNr. DE 232 446 240'), 'code');
  assert.equal(form('Kto-Nr. 48567'), 'code');
  assert.equal(form('VAT No GB123456789'), 'code');
  assert.equal(form('Rechnungsdatum 07.05.2014'), 'date');
  assert.equal(form('E-Mail buchhaltung@qualityhosting.de'), 'email');
  assert.equal(form('Total 34,73 EUR'), 'amount');
  // a value of another form than the label names, words after the value, a sentence: none
  for (const t of ['Telefon Mo-Fr 9-17 Uhr', 'IBAN on request', 'BIC 12345678', 'Tel. +49 6051 916 44 10 or by e-mail', 'Fax the form to us by Friday', 'Registergericht Hanau | HRB 13302', `IBAN ${'DE3050750094'.repeat(12)}`])
    assert.equal(labelWithoutColon(t), null, t);
});

test('unitsOf: a label line without a colon is a unit of its own, neither joined to the long line before it nor cut at its dot', () => {
  const units = unitsOf('Nordwind Logistik GmbH - Speicherstadt 7 - 20457 Hamburg\nTel. +49 40 5550 1234\nUSt-IdNr. DE 287 654 321\nBIC INGDDEFFXXX').map((u) => u.text);
  assert.deepEqual(units, ['Nordwind Logistik GmbH - Speicherstadt 7 - 20457 Hamburg', 'Tel. +49 40 5550 1234', 'USt-IdNr. DE 287 654 321', 'BIC INGDDEFFXXX']);
});

test('a document described by its kind and language: the words of its file type, the language its script or function words name', () => {
  const language = (...texts: string[]) => {
    const c = new LanguageCounts();
    for (const t of texts) c.add(t);
    return [...c.terms()];
  };
  assert.deepEqual(language('국회입법조사처 이슈와 논점', 'COVID-19 관련 보험약관상 재해보험금 지급문제'), [...termSet('korean')]);
  assert.deepEqual(language('تحسين الإنتاجية وحل المشكلات من خلال البرمجة بلغة R و Python'), [...termSet('arabic')]);
  assert.deepEqual(language('Sehr geehrte Damen und Herren, die Lieferung der Regale erfolgt am Dienstag durch die Spedition.'), [...termSet('german')]);
  assert.deepEqual(language("Le certificat ne sert pas à la transmission des extraits de compte des salariés par les employeurs"), [...termSet('french')]);
  // the questions' own language describes no document; a text of names and figures has none
  assert.deepEqual(language('The duck is a bird of the family Anatidae, and it is seen on lakes and rivers.'), []);
  assert.deepEqual(language('SKU 4711 | 12.50 | EUR'), []);
  assert.deepEqual([...kindWords('docx')].sort(), [...termSet('word docx')].sort());
  assert.ok([...kindWords('rtf')].every((t) => KIND_TERMS.has(t)));
  assert.equal(kindWords('unknown').size, 0);
});

test('questionPredicate: the verb of the relation asked, or the noun a copula asks for', () => {
  assert.equal(questionPredicate('Who invented the typewriter?'), stem('invented'));
  assert.equal(questionPredicate('How many goals did Messi score in 2015?'), stem('score'));
  assert.equal(questionPredicate('How often does the harbour crew check the mooring sinkers?'), stem('check'));
  assert.equal(questionPredicate('When was the company founded?'), stem('founded'));
  assert.equal(questionPredicate('Where was she born?'), stem('born'));
  assert.equal(questionPredicate('What is the capital of France?'), stem('capital'));
  assert.equal(questionPredicate('What was the overall price of the hotel stay?'), stem('price'));
  assert.equal(questionPredicate('In which language were the invitations written?'), 'written');
  assert.equal(questionPredicate('Which firm employs Preston Lozano?'), stem('employs'));
  assert.equal(questionPredicate('Invoice total?'), null);
});

test('abbreviated words: a document\'s "Doc", "Amt", "Incl" are the words they stand for, in questions and passages alike', async () => {
  const { terms, questionTerms, ABBREVIATED_WORDS } = await import('@quire/text');
  assert.deepEqual(terms('Doc No: CS00012543'), [...terms('document'), 'cs00012543']);
  assert.deepEqual(terms('Total Amt Incl GST'), terms('total amount including GST'));
  assert.deepEqual(terms('Inv Date'), terms('invoice date'));
  // (an ambiguous abbreviation stays itself: "co" may be a company or Colorado, "reg" a registration or a till's register)
  assert.deepEqual(terms('Co Reg'), ['co', 'reg']);
  assert.deepEqual(questionTerms('Which doc no?').map((t) => t.term), terms('document'));
  // every abbreviation is shorter than its word and is one word, lower-cased
  for (const [short, long] of ABBREVIATED_WORDS) assert.ok(/^[a-z]+$/.test(short) && short.length < long.length && /^[a-z]+$/.test(long), short);
});

test('mojibake: UTF-8 read as Windows-1252 is repaired, legitimate Latin-1 text stays, and a hostile line is repaired only up to the budget', () => {
  assert.equal(repairMojibake('Price: Â£850,000 â€“ agreed'), 'Price: £850,000 – agreed');
  for (const legit of ['SÃO PAULO', 'Âge moyen', 'Größe', '¿Qué?', '€ 12,50', 'plain text']) assert.equal(repairMojibake(legit), legit);
  const decoded = decodeText(new TextEncoder().encode('caf\u00c3\u00a9 au lait\r\nsecond line'));
  assert.deepEqual(decoded, { text: 'café au lait\nsecond line', encoding: 'utf-8', repaired: true });
  assert.equal(decodeText(new TextEncoder().encode('café')).repaired, undefined);
  // one line of 600,000 characters of mojibake: the first 200,000 or so are repaired, the rest copied as decoded
  const hostile = repairMojibake('Ã©'.repeat(300_000));
  const repaired = hostile.indexOf('Ã©');
  assert.ok(repaired > 50_000 && repaired < 150_000, `repair stopped at ${repaired}`);
  assert.equal(hostile.slice(0, repaired), 'é'.repeat(repaired));
  assert.equal(hostile.length, repaired + (300_000 - repaired) * 2);
});
