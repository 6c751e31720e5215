import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A born-digital PDF: a heading and body lines on each page. */
export async function makePdf(pages: { heading: string; lines: string[] }[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle('Fixture report');
  pdf.setAuthor('Quire tests');
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  for (const p of pages) {
    const page = pdf.addPage([612, 792]);
    page.drawText(p.heading, { x: 72, y: 720, size: 20, font: bold });
    p.lines.forEach((line, i) => page.drawText(line, { x: 72, y: 680 - i * 18, size: 11, font }));
  }
  return pdf.save();
}

export async function makeDocx(): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Annual Safety Review', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun('The warehouse recorded zero incidents during the spring quarter.')] }),
          new Paragraph({ text: 'Inspections', heading: HeadingLevel.HEADING_2 }),
          new Table({
            rows: [
              new TableRow({ children: [new TableCell({ children: [new Paragraph('Site')] }), new TableCell({ children: [new Paragraph('Score')] })] }),
              new TableRow({ children: [new TableCell({ children: [new Paragraph('Rotterdam')] }), new TableCell({ children: [new Paragraph('97')] })] }),
              new TableRow({ children: [new TableCell({ children: [new Paragraph('Antwerp')] }), new TableCell({ children: [new Paragraph('91')] })] }),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

export async function makeXlsx(): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  const s = wb.addWorksheet('Budget');
  s.addRow(['Department', 'Amount', 'Approved']);
  s.addRow(['Engineering', 125000, new Date(Date.UTC(2024, 2, 15))]);
  s.addRow(['Marketing', 48000, new Date(Date.UTC(2024, 3, 1))]);
  s.addRow(['Total', { formula: 'B2+B3', result: 173000 }]);
  const t = wb.addWorksheet('Staff');
  t.addRow(['Name', 'Role']);
  t.addRow(['Ada', 'Engineer']);
  return Buffer.from(await wb.xlsx.writeBuffer());
}
