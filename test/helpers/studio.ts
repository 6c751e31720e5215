import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

/** An invoice-like page (labelled values, a heading, lines) and, after it, `extra` plain pages. */
export async function invoicePdf(extra = 0): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const first = pdf.addPage([612, 792]);
  first.drawText('Harbour Supplies Ltd', { x: 72, y: 720, size: 22, font: bold });
  const lines = ['Invoice number: INV-2041', 'Invoice date: 2026-03-14', 'Customer: Northwind Traders', '', 'Rope, 40 m coil            2 x 35.00', 'Lantern, brass              1 x 89.50', '', 'Total: 159.50'];
  lines.forEach((l, i) => first.drawText(l, { x: 72, y: 670 - i * 20, size: 12, font }));
  for (let i = 0; i < extra; i++) {
    const p = pdf.addPage([612, 792]);
    p.drawText(`Appendix page ${i + 2}`, { x: 72, y: 720, size: 18, font: bold });
    p.drawText(`Notes on the delivery schedule, part ${i + 1}.`, { x: 72, y: 680, size: 12, font });
    p.drawRectangle({ x: 72, y: 640, width: 200, height: 12, color: rgb(0.8, 0.1, 0.1) });
  }
  return pdf.save();
}
