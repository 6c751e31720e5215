/**
 * Docx writer: the model with Word's own structures (built with the `docx` package): Heading styles (the
 * title is Heading 1, as the html's h1), real tables with a repeated header row, bulleted and numbered lists (each numbered list restarts
 * at 1), citation markers as superscript, the text's inline formatting as run properties (bold, italics,
 * code in a monospace font) and its links as real hyperlinks; line breaks stay line breaks. Nothing is html
 * pasted into a document.
 */
import { AlignmentType, BorderStyle, Document, ExternalHyperlink, HeadingLevel, LevelFormat, Packer, Paragraph, ShadingType, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
import { cellInlinesOf, inlinesOf, safeHref, sourcesSection } from '@quire/core';
import type { GeneratedBlock, GeneratedDocumentModel, GeneratedText } from '@quire/core';

const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6] as const;
const NUMBERED = 'quire-numbered';
const border = { style: BorderStyle.SINGLE, size: 4, color: '999999' };
const borders = { top: border, bottom: border, left: border, right: border };

/** Runs of one line-broken text: its lines, a break before each but the first. */
const lineRuns = (text: string, props: { bold?: boolean; italics?: boolean; font?: string; style?: string } = {}) => text.split('\n').map((line, i) => new TextRun({ text: line, break: i ? 1 : 0, ...props }));

/** Runs of a text: its inlines (bold, italics, code, links), its line breaks and its citation markers. */
function runs(t: GeneratedText, base: { bold?: boolean } = {}): (TextRun | ExternalHyperlink)[] {
  const out: (TextRun | ExternalHyperlink)[] = [];
  for (const r of inlinesOf(t)) {
    const href = safeHref(r.href);
    const props = { ...(r.bold || base.bold ? { bold: true } : {}), ...(r.italic ? { italics: true } : {}), ...(r.code ? { font: 'Courier New' } : {}), ...(href ? { style: 'Hyperlink' } : {}) };
    if (href) out.push(new ExternalHyperlink({ link: href, children: lineRuns(r.text, props) }));
    else out.push(...lineRuns(r.text, props));
  }
  for (const n of t.citations ?? []) out.push(new TextRun({ text: `[${n}]`, superScript: true }));
  return out;
}

function table(b: Extract<GeneratedBlock, { type: 'table' }>): Table {
  const cols = Math.max(b.header.length, ...b.rows.map((r) => r.length), 1);
  const off = b.header.length ? 1 : 0;
  const row = (cells: string[], at: number, header: boolean) =>
    new TableRow({
      ...(header ? { tableHeader: true } : {}),
      children: Array.from({ length: cols }, (_, i) => new TableCell({ borders, shading: header ? { type: ShadingType.CLEAR, color: 'auto', fill: 'EEEEEE' } : undefined, children: [new Paragraph({ children: runs({ text: cells[i] ?? '', inlines: cellInlinesOf(b, at, i) }, { bold: header }) })] })),
    });
  return new Table({ width: { size: 100, type: WidthType.PERCENTAGE }, rows: [...(b.header.length ? [row(b.header, 0, true)] : []), ...b.rows.map((r, i) => row(r, i + off, false))] });
}

export async function renderDocx(model: GeneratedDocumentModel): Promise<Buffer> {
  const children: (Paragraph | Table)[] = [new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun(model.title)] })];
  let lists = 0;
  for (const b of [...model.blocks, ...sourcesSection(model)]) {
    switch (b.type) {
      case 'heading':
        children.push(new Paragraph({ heading: HEADINGS[b.level - 1], children: runs(b) }));
        break;
      case 'paragraph':
        children.push(new Paragraph({ children: runs(b), spacing: { after: 120 } }));
        break;
      case 'quote':
        children.push(new Paragraph({ style: 'IntenseQuote', children: runs(b) }));
        break;
      case 'list': {
        const instance = lists++;
        for (const it of b.items) children.push(new Paragraph({ children: runs(it), ...(b.ordered ? { numbering: { reference: NUMBERED, level: 0, instance } } : { bullet: { level: 0 } }) }));
        break;
      }
      case 'table':
        if (b.caption) children.push(new Paragraph({ children: [new TextRun({ text: b.caption, bold: true })] }));
        children.push(table(b));
        children.push(new Paragraph({ children: [] }));
        break;
      case 'code':
        for (const line of b.text.split('\n')) children.push(new Paragraph({ children: [new TextRun({ text: line, font: 'Courier New', size: 19 })] }));
        break;
      case 'rule':
        children.push(new Paragraph({ border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: '999999', space: 1 } }, children: [] }));
        break;
    }
  }
  const doc = new Document({
    creator: 'Quire',
    title: model.title,
    numbering: { config: [{ reference: NUMBERED, levels: [{ level: 0, format: LevelFormat.DECIMAL, text: '%1.', alignment: AlignmentType.START, style: { paragraph: { indent: { left: 720, hanging: 360 } } } }] }] },
    sections: [{ children }],
  });
  return Packer.toBuffer(doc);
}
