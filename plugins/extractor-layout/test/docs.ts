/** Small documents built with DocumentBuilder for the extractor tests. */
import { DocumentBuilder, type BBox, type ParsedDocument, type Word, type Chunk } from '@quire/core';

export const box = (x: number, y: number, width: number, height: number): BBox => ({ x, y, width, height });

/** An invoice printed as text lines ("Label: value"), a line-item table and totals; no boxes. */
export function invoiceDoc(): ParsedDocument {
  const b = new DocumentBuilder('inv-1', 'invoice.pdf', 'pdf');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  const p = (text: string, type: 'paragraph' | 'heading' = 'paragraph') => b.addBlock({ type, text, page: 1, bbox: null, confidence: 1 });
  p('ACME Trading Ltd.', 'heading');
  p('12 Harbour Road, Bristol BS1 4DJ\nVAT Reg No: GB 123 4567 89\nEmail: billing@acme.example');
  p('INVOICE', 'heading');
  p('Invoice No: INV-2024-0042\nInvoice Date: 12 March 2024\nDue Date: 11/04/2024\nPO Number: PO-7781');
  p('Bill To: Globex GmbH\nCurrency: EUR');
  b.addTable({
    page: 1, bbox: null, rows: 4, cols: 4, confidence: 1,
    cells: [
      ['Description', 'Qty', 'Unit Price', 'Amount'],
      ['Widget, blue', '2', '€ 10,00', '€ 20,00'],
      ['Gadget', '1', '€ 1.250,50', '€ 1.250,50'],
      ['Service fee', '3', '€ 5,00', '€ 15,00'],
    ].flatMap((row, r) => row.map((text, c) => ({ row: r, col: c, rowSpan: 1, colSpan: 1, text, header: r === 0 }))),
  });
  p('Subtotal: € 1.285,50\nVAT 20%: € 257,10\nTotal amount due: € 1.542,60');
  p('IBAN: DE89 3704 0044 0532 0130 00\nPayment terms: 30 days net');
  return b.build();
}

/** Words of a line laid out left to right from x with a fixed advance per character. */
export function wordsOf(text: string, x: number, y: number, h = 10, adv = 5, confidence = 0.95): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(/\S+/g)) out.push({ text: m[0], bbox: box(x + m.index! * adv, y, m[0].length * adv, h), confidence });
  return out;
}

/**
 * A scanned form: labels above values in two columns, a label left of its value with whitespace,
 * each line its own block with a box, OCR words on the page.
 */
export function labelAboveDoc(): ParsedDocument {
  const b = new DocumentBuilder('form-1', 'form.png', 'png');
  const words: Word[] = [];
  const line = (text: string, x: number, y: number) => {
    const w = wordsOf(text, x, y);
    words.push(...w);
    b.addBlock({ type: 'paragraph', text, page: 1, bbox: box(x, y, text.length * 5, 10), confidence: 0.95 }, '\n');
  };
  line('Northwind Supplies GmbH', 50, 40);
  line('Invoice Number', 50, 100);
  line('Invoice Date', 300, 100);
  line('NW-5531', 50, 114);
  line('03/15/2024', 300, 114);
  line('Customer', 50, 160);
  line('Contoso Pharmacy', 200, 160);
  line('Grand Total', 50, 400);
  line('$ 2,310.75', 300, 400);
  b.addPage({ number: 1, width: 612, height: 792, ocr: true, confidence: 0.95, words });
  return b.build();
}

/** Chunks that cover the document in two halves at a block boundary. */
export function chunksOf(doc: ParsedDocument): Chunk[] {
  const mid = doc.blocks[Math.floor(doc.blocks.length / 2)]!.span.start;
  return [
    { id: `${doc.id}-c0`, index: 0, page: 1, content: doc.text.slice(0, mid), bbox: null, span: { start: 0, end: mid }, metadata: { type: 'text', confidence: 1 } },
    { id: `${doc.id}-c1`, index: 1, page: 1, content: doc.text.slice(mid), bbox: null, span: { start: mid, end: doc.text.length }, metadata: { type: 'text', confidence: 1 } },
  ];
}

export function textDoc(id: string, lines: string[]): ParsedDocument {
  const b = new DocumentBuilder(id, `${id}.txt`, 'txt');
  b.addPage({ number: 1, width: 595, height: 842, ocr: false, confidence: 1 });
  for (const l of lines) b.addBlock({ type: 'paragraph', text: l, page: 1, bbox: null, confidence: 1 });
  return b.build();
}
