import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const IBAN = 'DE89 3704 0044 0532 0130 00';
const FOOTER = [
  'Nordlicht Handels GmbH - Hafenstrasse 12 - 20457 Hamburg',
  'Amtsgericht Hamburg HRB 123456 - USt-IdNr. DE 123 456 789',
  `Commerzbank Hamburg - IBAN ${IBAN} - BIC COBADEFFXXX`,
];
const BODY = [
  ['Thank you for your order of the twelfth of March. We deliver the shelving units', 'in two parts: the frames next week and the boards a week later.'],
  ['The boards are cut to the lengths you gave us; the offcuts are recycled unless', 'you ask for them to be delivered with the boards.'],
  ['Please check the delivery on arrival and tell us of any damage within', 'seven days, so that the carrier can be held to account.'],
];

/** A three-page letter: body text on each page, and the same three-line footer with the company's register and bank details, beside "Seite n von 3". */
async function letterPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  BODY.forEach((lines, i) => {
    const page = doc.addPage([595, 842]);
    lines.forEach((t, k) => page.drawText(t, { x: 60, y: 760 - k * 14, size: 11, font }));
    page.drawText(`Item ${i + 1} of the order is described on this page and priced in the enclosed list.`, { x: 60, y: 600, size: 11, font });
    FOOTER.forEach((t, k) => page.drawText(t, { x: 60, y: 60 - k * 10, size: 8, font }));
    page.drawText(`Seite ${i + 1} von 3`, { x: 480, y: 60, size: 8, font });
  });
  return doc.save();
}

/** Repeated page furniture that carries facts (a footer with the bank details): once in the chunks, marked, after the body; found by search. */
describe('page furniture with facts, upload → chunks → search', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('the footer is in one chunk marked furniture after the body chunks; its page numbers in none; a search for the IBAN finds it', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('letter.pdf', await letterPdf()) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const content = await s.json(`/v1/documents/${up.body.id}/content?response=full`);
    assert.equal(content.status, 200);
    const { text, chunks } = content.body as { text: string; chunks: { id: string; index: number; page: number; content: string; type: string; role?: string }[] };
    // the document's text keeps the footer of every page
    assert.equal(text.split(IBAN).length, 4, text);

    const holding = chunks.filter((c) => c.content.includes(IBAN));
    assert.equal(holding.length, 1, JSON.stringify(chunks, null, 1));
    const f = holding[0]!;
    assert.equal(f.role, 'furniture');
    assert.equal(f.type, 'text');
    assert.equal(f.page, 1, 'the first occurrence');
    for (const line of FOOTER) assert.ok(f.content.includes(line), `${line} in ${f.content}`);
    const body = chunks.filter((c) => c.role === undefined);
    assert.ok(body.length >= 1);
    assert.ok(body.every((c) => c.index < f.index), 'after the body chunks');
    assert.match(body.map((c) => c.content).join('\n'), /Thank you for your order[\s\S]*seven days/);
    assert.ok(body.every((c) => !FOOTER.some((line) => c.content.includes(line))), 'the body chunks hold no footer');
    assert.ok(chunks.every((c) => !/Seite \d von 3/.test(c.content)), 'the page numbers are in no chunk');

    const found = await s.json('/v1/search', { method: 'POST', json: { query: `IBAN ${IBAN}`, limit: 3 } });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.data[0]?.chunk_id, f.id, JSON.stringify(found.body.data));

    // the parse result marks it too
    const parsed = await s.json('/api/parse', { method: 'POST', body: uploadForm('letter.pdf', await letterPdf()) });
    assert.equal(parsed.status, 200, JSON.stringify(parsed.body));
    const pc = parsed.body.result.chunks as { content: string; metadata: { type: string; role?: string } }[];
    assert.deepEqual(pc.filter((c) => c.content.includes(IBAN)).map((c) => c.metadata), [{ type: 'text', confidence: 1, role: 'furniture' }]);
    assert.equal(pc.at(-1)!.metadata.role, 'furniture');
  });
});
