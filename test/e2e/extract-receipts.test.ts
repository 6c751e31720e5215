import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** A till receipt as a PDF: shop name, the company that owns it, tax ID, items, total, rounding, final total. */
async function makeReceiptPdf(lines: string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Courier);
  const bold = await pdf.embedFont(StandardFonts.CourierBold);
  const page = pdf.addPage([300, 40 + lines.length * 16]);
  lines.forEach((l, i) => page.drawText(l, { x: 20, y: 20 + (lines.length - i) * 16, size: i === 0 ? 13 : 9, font: i === 0 ? bold : font }));
  return pdf.save();
}

describe('receipt extraction over HTTP', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('the shop name is the merchant, the "owned by" company the legal entity, the final total the total', async () => {
    const bytes = await makeReceiptPdf([
      'KEDAI RUNCIT MAJU JAYA',
      'Owned by MAJU JAYA HOLDINGS SDN BHD (123456-X)',
      'NO 12, JALAN BESAR, 43000 KAJANG',
      'GST ID : 000123456789',
      'TAX INVOICE',
      'Date: 12/03/2018 10:22',
      'BREAD                3.50',
      'MILK                 4.71',
      'Total                8.21',
      'Rounding Adj        -0.01',
      'Final Total          8.20',
      'CASH                10.00',
      'CHANGE               1.80',
    ]);
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('receipt.pdf', bytes) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    const fields = [
      { name: 'merchant', type: 'string', description: 'Merchant name' },
      { name: 'legal_entity', type: 'string' },
      { name: 'total', type: 'number' },
    ];
    const r = await s.json('/api/extract/run', { method: 'POST', json: { document_id: up.body.id, config: { fields } } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.merchant, 'KEDAI RUNCIT MAJU JAYA');
    assert.equal(r.body.data.legal_entity, 'MAJU JAYA HOLDINGS SDN BHD');
    assert.equal(r.body.data.total, 8.2);
  });
});
