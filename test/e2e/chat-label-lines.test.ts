import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Labels printed without a colon, as footers and letterheads print them ("IBAN DE44…", "BIC INGDDEFFXXX", "Tel. +49 …"): a
 * label followed by a value whose form fits it is a label line, and the question that names the label gets its value alone;
 * a label the question names whose value is of another form ("Telefon Mo–Fr 9–17 Uhr") gives none.
 */

const IBAN = 'DE44500105175407324931';
const FOOTER = ['Nordwind Logistik GmbH - Speicherstadt 7 - 20457 Hamburg', 'Tel. +49 40 5550 1234', 'Fax +49 40 5550 1299', `IBAN ${IBAN}`, 'BIC INGDDEFFXXX', 'USt-IdNr. DE 287 654 321'];
const BODY = [
  ['Thank you for choosing us for the transport of your furniture to Bremen. The lorry', 'arrives at your address on the morning of the agreed day, between eight and ten.'],
  ['Our drivers carry the pieces to the rooms you name and take the packing material back', 'with them; assembly is not part of the order unless you booked it separately.'],
];
/** the footer of a second company, whose line labelled as its telephone holds office hours, not a number; a fax number beside it */
const HOURS_FOOTER = ['Seeblick Ferienwohnungen, Konstanz', 'Telefon Mo-Fr 9-17 Uhr', 'Fax 07531 918 22', 'www.seeblick-konstanz.example'];
const HOURS_BODY = [
  ['Your holiday flat by the lake is booked for the first week of August. The keys', 'wait for you in the box beside the front door; the code comes by text message.'],
  ['Towels and bed linen are in the cupboard of the hall; please leave them in the', 'bathroom on the day you go, and close the windows before you leave.'],
];

/** A two-page letter: body text on each page, the same footer on both, one fact a line. */
async function letter(body: string[][], footer: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  body.forEach((lines) => {
    const page = doc.addPage([595, 842]);
    lines.forEach((t, k) => page.drawText(t, { x: 60, y: 760 - k * 14, size: 11, font }));
    footer.forEach((t, k) => page.drawText(t, { x: 60, y: 70 - k * 10, size: 8, font }));
  });
  return doc.save();
}

describe('chat: labels printed without a colon (footers, letterheads)', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Letters', [
      ['nordwind.pdf', await letter(BODY, FOOTER)],
      ['seeblick.pdf', await letter(HOURS_BODY, HOURS_FOOTER)],
    ]);
  });

  after(async () => {
    await s?.close();
  });

  test('"IBAN DE44…" answers the IBAN, alone, as a value', async () => {
    const a = await ask('What is the IBAN of Nordwind Logistik?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.ok(a.message.includes(`IBAN ${IBAN}`), a.message);
    assert.doesNotMatch(a.message, /INGDDEFFXXX|5550/);
    assert.ok(cites(a, 'nordwind.pdf'), a.message);
  });

  test('"BIC INGDDEFFXXX" answers the BIC, alone', async () => {
    const a = await ask('What is the BIC of Nordwind Logistik?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /BIC INGDDEFFXXX/);
    assert.ok(!a.message.includes(IBAN), a.message);
    assert.ok(cites(a, 'nordwind.pdf'), a.message);
  });

  test('"Tel. +49 …" answers the telephone number, not the fax beside it', async () => {
    const a = await ask('What is the telephone number of Nordwind Logistik?');
    assert.equal(a.answer_type, 'value', a.message);
    assert.match(a.message, /\+49 40 5550 1234/);
    assert.doesNotMatch(a.message, /1299|DE 287/);
    assert.ok(cites(a, 'nordwind.pdf'), a.message);
  });

  test('a label the question names whose value is of another form ("Telefon Mo-Fr 9-17 Uhr"): no number given, not the fax number', async () => {
    const a = await ask('What is the telephone number of Seeblick Ferienwohnungen?');
    assert.equal(a.answer_type, 'none', a.message);
    assert.doesNotMatch(a.message, /07531|918 22|5550/);
  });
});
