import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Chat questions for the total or the date of one receipt, named by the shop printed at its top ("How much was the bill at
 * Restoran Seri Melati?"): no line of the receipt says the question's words, so the answerer alone refuses or quotes
 * another line; the extractor's total or date of that receipt, cited where the receipt prints it, is the answer. A question for another
 * line (GST, change) or with a date or amount the receipt does not have is not answered with the total. An identifier asked
 * by its label (the invoice number) is the named receipt's.
 */

const NOT_FOUND = "I could not find this in the knowledge base's sources.";

/** a thermal receipt: the shop's name and address at the top, items with their amounts at the right, the total below */
async function receipt(header: string[], date: string, items: [string, string][], total: string, tail: [string, string][], opts: { unlabelled?: boolean; footer?: string; rows?: [string, string][]; totalLabel?: string } = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Courier);
  const bold = await pdf.embedFont(StandardFonts.CourierBold);
  const page = pdf.addPage([260, 520]);
  let y = 490;
  const line = (text: string, f = font) => {
    page.drawText(text, { x: 130 - f.widthOfTextAtSize(text, 9) / 2, y, size: 9, font: f });
    y -= 13;
  };
  const row = (label: string, amount: string, f = font) => {
    page.drawText(label, { x: 14, y, size: 9, font: f });
    page.drawText(amount, { x: 246 - f.widthOfTextAtSize(amount, 9), y, size: 9, font: f });
    y -= 13;
  };
  line(header[0]!, bold);
  for (const h of header.slice(1)) line(h);
  y -= 8;
  if (opts.unlabelled) row(`${date} 12:41`, 'Cashier: AMIRA');
  else {
    row(`Date: ${date}`, 'Time: 12:41');
    row('Cashier: AMIRA', 'Table: 7');
  }
  for (const [label, value] of opts.rows ?? []) row(label, value);
  y -= 8;
  for (const [label, amount] of items) row(label, amount);
  y -= 8;
  row(opts.totalLabel ?? 'TOTAL', total, bold);
  for (const [label, amount] of tail) row(label, amount);
  y -= 8;
  if (opts.footer) line(opts.footer);
  line('THANK YOU, PLEASE COME AGAIN');
  return pdf.save();
}

describe('chat: a receipt’s total, date or identifier from the extractor, where it is sure of it', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    const melati = await receipt(
      ['RESTORAN SERI MELATI', 'SRI MELATI FOOD SDN BHD (775812-K)', 'NO 14 JALAN BUNGA RAYA', '43000 KAJANG SELANGOR', 'GST REG NO: 001234567890'],
      '14/03/2018',
      [
        ['NASI LEMAK AYAM 2 x 8.50', '17.00'],
        ['TEH TARIK 2 x 2.80', '5.60'],
        ['ROTI CANAI 1 x 1.80', '1.80'],
        ['GST 6%', '1.46'],
      ],
      '25.86',
      [
        ['CASH', '50.00'],
        ['CHANGE', '24.14'],
      ],
      { rows: [['Invoice No: SM-004417', '']] },
    );
    const hardware = await receipt(
      ['KEDAI PERKAKAS TEGUH JAYA', 'NO 3 JALAN PASAR', '41200 KLANG SELANGOR'],
      '21/01/2018',
      [
        ['PAINT BRUSH 2 INCH 3 x 4.20', '12.60'],
        ['MASKING TAPE 1 x 3.90', '3.90'],
      ],
      '16.50',
      [
        ['CASH', '20.00'],
        ['CHANGE', '3.50'],
      ],
      { rows: [['Invoice No: TJ-88120', ''], ['Order date: 10/01/2018', '']] },
    );
    // the date printed with no label (the extractor is unsure of it): the only date of one receipt, one of two on the other
    const sinar = await receipt(['KEDAI RUNCIT SINAR PAGI', 'NO 8 JALAN MAWAR', '47000 SUNGAI BULOH'], '05/02/2018', [['GULA 1KG 1 x 2.90', '2.90'], ['MINYAK 2KG 1 x 9.80', '9.80']], '12.70', [['CASH', '20.00'], ['CHANGE', '7.30']], { unlabelled: true });
    const cahaya = await receipt(['KEDAI BUKU CAHAYA', 'NO 21 JALAN MELOR', '68000 AMPANG'], '12/02/2018', [['BUKU LATIHAN 3 x 2.50', '7.50'], ['PENSEL 2B 4 x 0.60', '2.40']], '9.90', [['CASH', '10.00'], ['CHANGE', '0.10']], {
      unlabelled: true,
      footer: 'EXCHANGE BY 19/02/2018 WITH RECEIPT',
    });
    // the total under a weak label ("AMOUNT"), printed again as the card payment
    const senja = await receipt(['KEDAI KOPI SENJA', 'NO 2 JALAN PERDANA', '53100 GOMBAK'], '09/03/2018', [['KOPI O 2 x 1.60', '3.20'], ['ROTI BAKAR 1 x 3.50', '3.50']], '6.70', [['VISA CARD', '6.70']], { totalLabel: 'AMOUNT' });
    await chat.open(s, 'Receipts', [
      ['senja.pdf', senja],
      ['sinar-pagi.pdf', sinar],
      ['cahaya.pdf', cahaya],
      ['melati.pdf', melati],
      ['teguh-jaya.pdf', hardware],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('the total of the receipt the question names by its shop is a value, cited at the receipt', async () => {
    for (const q of ['How much was the bill at Restoran Seri Melati?', 'What did the Seri Melati receipt come to in total?']) {
      const a = await ask(q);
      assert.equal(a.answer_type, 'value', `${q}: ${a.message}`);
      assert.match(a.message, /25\.86/, q);
      assert.ok(cites(a, 'melati.pdf'), `${q}: ${JSON.stringify(a.citations)}`);
      assert.ok(a.confidence >= 0.8, `${q}: ${a.confidence}`);
    }
    const b = await ask('How much did the customer pay at Kedai Perkakas Teguh Jaya?');
    assert.match(b.message, /16\.50/, b.message);
    assert.ok(cites(b, 'teguh-jaya.pdf'), JSON.stringify(b.citations));
  });

  test('the date of the receipt is the date as it prints it; an amount in the question must be the receipt’s total', async () => {
    const a = await ask('On what date was the purchase at Kedai Perkakas Teguh Jaya made?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /21\/01\/2018/);
    assert.ok(cites(a, 'teguh-jaya.pdf'));
    // a question about the order: the order date the record prints apart from its own, never the record's date
    const order = await ask('On what date was the Teguh Jaya order placed?');
    assert.equal(order.answer_type, 'value', order.message);
    assert.match(order.message, /10\/01\/2018/, order.message);
    assert.doesNotMatch(order.message, /21\/01\/2018/, order.message);
    const other = await ask('On what date was the 99.99 purchase at Kedai Perkakas Teguh Jaya made?');
    assert.doesNotMatch(other.message, /21\/01\/2018/, other.message);
  });

  test('a date asked by a thing bought is the date of the one receipt that prints it; its price is not the total', async () => {
    const a = await ask('On what date was the masking tape bought?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^Date: 21\/01\/2018 \[1\]/, a.message);
    assert.ok(cites(a, 'teguh-jaya.pdf'), JSON.stringify(a.citations));
    const b = await ask('On what date was the roti bakar bought?');
    assert.match(b.message, /^Date: 09\/03\/2018 \[1\]/, b.message);
    // a thing no receipt prints names none of them
    const c = await ask('On what date was the garden hose bought?');
    assert.doesNotMatch(c.message, /^Date: /, c.message);
    // the price of a thing bought is its line's, never the receipt's total
    const d = await ask('How much did the masking tape cost?');
    assert.doesNotMatch(d.message, /16\.50/, d.message);
  });

  test('the price of a thing bought at the named shop is the amount its line prints; a quantity’s line or a thing not printed is not read', async () => {
    for (const [q, price, file] of [
      ['How much did the masking tape cost at Kedai Perkakas Teguh Jaya?', /3\.90/, 'teguh-jaya.pdf'],
      ['What did the Roti Bakar cost at Kedai Kopi Senja?', /3\.50/, 'senja.pdf'],
      ['What did Restoran Seri Melati charge for the Roti Canai?', /1\.80/, 'melati.pdf'],
    ] as const) {
      const a = await ask(q);
      assert.equal(a.answer_type, 'value', `${q}: ${a.message}`);
      assert.match(a.message, price, `${q}: ${a.message}`);
      assert.ok(cites(a, file), `${q}: ${JSON.stringify(a.citations)}`);
    }
    // three brushes at 4.20, 12.60 in all: which of the two is asked is not known
    const brush = await ask('How much did the paint brush cost at Kedai Perkakas Teguh Jaya?');
    assert.doesNotMatch(brush.message, /^Price: /, brush.message);
    const hose = await ask('How much did the garden hose cost at Kedai Perkakas Teguh Jaya?');
    assert.doesNotMatch(hose.message, /^Price: |16\.50/, hose.message);
  });

  test('a total the receipt prints twice is its total, however weak its label', async () => {
    const a = await ask('How much was the bill at Kedai Kopi Senja?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^Total: 6\.70 \[1\]/, a.message);
    assert.ok(cites(a, 'senja.pdf'), JSON.stringify(a.citations));
    assert.ok(a.confidence >= 0.8, `${a.confidence}`);
  });

  test('a date printed with no label is the receipt’s date when it is the only date the receipt prints', async () => {
    const a = await ask('On what date was the Sinar Pagi receipt issued?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /05\/02\/2018/);
    assert.ok(cites(a, 'sinar-pagi.pdf'), JSON.stringify(a.citations));
    assert.ok(a.confidence >= 0.8, `${a.confidence}`);
    // two dates printed: which one is the receipt's is the extractor's guess, not answered as a value
    const b = await ask('On what date was the Cahaya receipt issued?');
    assert.doesNotMatch(b.message, /Date: 12\/02\/2018/, b.message);
  });

  test('an identifier asked by its label is the one the named receipt prints under that label', async () => {
    const a = await ask('What is the invoice number of the Restoran Seri Melati receipt?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^Invoice number: SM-004417 \[1\]/, a.message);
    assert.ok(cites(a, 'melati.pdf'), JSON.stringify(a.citations));
    const b = await ask('What invoice number does the Teguh Jaya receipt show?');
    assert.match(b.message, /TJ-88120/, b.message);
    assert.doesNotMatch(b.message, /SM-004417/, b.message);
    assert.ok(cites(b, 'teguh-jaya.pdf'), JSON.stringify(b.citations));
    const c = await ask('What is the number of the Teguh Jaya receipt?');
    assert.equal(c.answer_type, 'value', c.message);
    assert.match(c.message, /TJ-88120/, c.message);
    // a date in the question must be the receipt's (the answerer may still quote the line; the value is not asserted)
    const dated = await ask('What is the invoice number of the Seri Melati receipt of 14 March 2018?');
    assert.match(dated.message, /SM-004417/, dated.message);
    const otherDay = await ask('What is the invoice number of the Seri Melati receipt of 15 March 2018?');
    assert.doesNotMatch(otherDay.message, /^Invoice number: SM-004417/, otherDay.message);
  });

  test('a person asked by the role the receipt prints as a label is the name printed after it', async () => {
    const a = await ask('Who was the cashier at Kedai Runcit Sinar Pagi?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /^Cashier: AMIRA \[1\]/, a.message);
    assert.ok(cites(a, 'sinar-pagi.pdf'), JSON.stringify(a.citations));
    assert.ok(a.confidence < 0.8, `where the name ends is read by rule (${a.confidence})`);
    // a role no receipt prints as a label is not answered from it
    const b = await ask('Who was the manager at Kedai Runcit Sinar Pagi?');
    assert.doesNotMatch(b.message, /AMIRA/, b.message);
  });

  test('an amount or a rate asked by a label the receipt prints (change, cash, GST) is the one printed after it', async () => {
    const a = await ask('How much change did the customer get back at Kedai Runcit Sinar Pagi?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /7\.30/, a.message);
    assert.doesNotMatch(a.message, /12\.70/, a.message);
    assert.ok(cites(a, 'sinar-pagi.pdf'), JSON.stringify(a.citations));
    // a tax's rate: the percentage printed after its label
    const rate = await ask('What GST rate was charged on the Restoran Seri Melati bill?');
    assert.match(rate.message, /6%/, rate.message);
    assert.ok(cites(rate, 'melati.pdf'), JSON.stringify(rate.citations));
    const b = await ask('How much cash was paid at Kedai Runcit Sinar Pagi?');
    assert.match(b.message, /20\.00/, b.message);
    assert.ok(cites(b, 'sinar-pagi.pdf'), JSON.stringify(b.citations));
  });

  test('another line asked for, or a date the receipt does not have, is not answered with the total', async () => {
    const gst = await ask('How much GST was charged at Restoran Seri Melati?');
    assert.doesNotMatch(gst.message, /25\.86/, gst.message);
    const change = await ask('How much change did the customer get at Restoran Seri Melati?');
    assert.doesNotMatch(change.message, /25\.86/, change.message);
    const wrongDay = await ask('How much was paid at Restoran Seri Melati on 20 April 2019?');
    assert.equal(wrongDay.message, NOT_FOUND, wrongDay.message);
  });

  test('a shop no receipt is from is not answered', async () => {
    const a = await ask('How much was the bill at Restoran Bukit Bintang?');
    assert.equal(a.message, NOT_FOUND, a.message);
  });
});
