/**
 * Generated PDFs with real-world page layouts: page furniture (a running head set close above the text,
 * a date line, "Page n of N" footers), a court transcript with a line-number gutter, and two columns of prose
 * around figures whose labels are drawn inside them, and a letter whose repeated footer carries its bank details.
 */
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

/** Body paragraphs of the notice, one per page: each is drawn over several lines. */
export const NOTICE_BODY = [
  ['The agency announces a public meeting of the advisory committee on', 'water quality standards for coastal regions and invites comments.'],
  ['Comments must be received by the date given above and should refer', 'to the docket number printed at the top of this notice.'],
  ['The committee will review the draft report prepared by the staff and', 'vote on its recommendations to the administrator.'],
  ['Persons who wish to speak at the meeting should contact the office', 'of the designated federal officer before the meeting.'],
];

/** The paragraph at the foot of each page, its last line just above the footer. */
export const FURTHER = [1, 2, 3, 4].map((i) => [`Further information on item ${'ABCD'[i - 1]} is available from the office of the committee`, `on request, in writing or by telephone, ${['today', 'this week', 'this month', 'this year'][i - 1]}.`]);

/**
 * A four-page notice: each page starts with a running head ("Federal Register / Vol. 85, No. 152 /
 * Thursday, August 6, 2020 / Notices" and the page number, 47611 + page) drawn right above the first line of
 * the text, as the Federal Register sets it, a date line under it, and ends with a "Page n of 4" footer
 * right under the last line.
 */
export async function noticePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  NOTICE_BODY.forEach((lines, i) => {
    const page = doc.addPage([612, 792]);
    page.drawText(`${47612 + i}`, { x: 72, y: 750, size: 9, font });
    page.drawText('Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Notices', { x: 150, y: 750, size: 9, font });
    page.drawText('Issued Thursday, August 6, 2020', { x: 72, y: 740, size: 9, font });
    lines.forEach((t, k) => page.drawText(t, { x: 72, y: 730 - k * 11, size: 10, font }));
    // a second paragraph mid-page, and one whose last line sits just above the footer
    page.drawText(`Section ${i + 1} of this notice sets out the matters the committee will take up.`, { x: 72, y: 500, size: 10, font });
    page.drawText(FURTHER[i]![0]!, { x: 72, y: 80, size: 10, font });
    page.drawText(FURTHER[i]![1]!, { x: 72, y: 69, size: 10, font });
    page.drawText(`Page ${i + 1} of 4`, { x: 280, y: 60, size: 9, font });
  });
  return doc.save();
}

/** The transcript's numbered lines of each page (a line may be empty); the sentence of lines 16-17 of page 1 runs over two lines. */
export const TRANSCRIPT_PAGES: string[][] = [
  [
    'IN THE SUPREME COURT OF THE UNITED STATES',
    '',
    'STATE OF CALIFORNIA, Petitioner, v. JOHN DOE, Respondent.',
    '',
    'Washington, D.C.',
    'Tuesday, March 3, 2015',
    '',
    'The above-entitled matter came on for oral',
    'argument before the Supreme Court of the United States',
    'at 10:04 a.m.',
    '',
    'APPEARANCES:',
    '',
    '',
    '',
    'STEVEN E. MERCER, ESQ., Deputy Attorney General, Los',
    'Angeles, Cal.; on behalf of the Petitioner.',
    '',
    'JANE ROE, ESQ., Sacramento, Cal.; on behalf of the',
    'Respondent.',
  ],
  [
    'PROCEEDINGS',
    '',
    'CHIEF JUSTICE ROBERTS: We will hear argument this',
    'morning in case 13-1175, California v. Doe.',
    '',
    'Mr. Mercer.',
    '',
    'ORAL ARGUMENT OF STEVEN E. MERCER',
    '',
    'ON BEHALF OF THE PETITIONER',
    '',
    'MR. MERCER: Mr. Chief Justice, and may it please',
    'the Court: the question in this case is whether the',
    'statute applies to records kept by a hotel.',
  ],
  [
    'JUSTICE GINSBURG: Does the record show how often',
    'the police asked to see the register?',
    '',
    'MR. MERCER: It does not, Your Honor, but the',
    'statute allows an inspection at any time.',
  ],
];

/**
 * A three-page court transcript: numbered lines 1-25 at the left margin on every page (double spaced,
 * numbers restarting per page), speaker turns indented, "Official - Subject to Final Review" at the top,
 * the page number at the top right and "Alderson Reporting Company" at the bottom of every page.
 */
export async function transcriptPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Courier);
  TRANSCRIPT_PAGES.forEach((lines, p) => {
    const page = doc.addPage([612, 792]);
    page.drawText('Official - Subject to Final Review', { x: 220, y: 755, size: 10, font });
    page.drawText(`${p + 1}`, { x: 530, y: 735, size: 12, font });
    for (let n = 1; n <= 25; n++) {
      const y = 710 - (n - 1) * 25;
      page.drawText(`${n}`, { x: n < 10 ? 60 : 53, y, size: 12, font });
      const t = lines[n - 1];
      // a speaker turn starts indented; the lines of a turn continue at the margin
      if (t) page.drawText(t, { x: /^[A-Z .]+:/.test(t) || n === 1 ? 130 : 95, y, size: 12, font });
    }
    page.drawText('Alderson Reporting Company', { x: 230, y: 40, size: 10, font });
  });
  return doc.save();
}

/** The two columns of the figure page, top to bottom: three paragraphs each (a paragraph's lines joined by a space). */
export const FIGURE_COLUMNS: string[][][] = [
  [
    ['The ingest service reads every uploaded file in a worker', 'process of its own, so that a slow or hostile document', 'never holds up the requests of other users.'],
    ['Figure 1 shows the path a document takes from the upload', 'to the index; each stage writes its state to the database', 'before the next one starts.'],
    ['A stage that fails is retried with a growing delay until', 'its attempts run out, and the document is then marked as', 'failed with the reason the stage gave.'],
  ],
  [
    ['Chunks are cut at headings and paragraph ends, so that a', 'passage quoted in an answer reads as the author wrote it', 'and carries the heading path it sits under.'],
    ['Vectors are written in batches sized by the time they hold', 'the event loop, which keeps the service answering while a', 'long report is being indexed.'],
    ['Search joins the keyword and vector results by their ranks', 'and returns each passage with its page and its box, which', 'the studio uses to highlight it.'],
  ],
];
/** The labels drawn inside the figure's boxes (none of them in the running text). */
export const FIGURE_LABELS = ['Upload queue', 'Parser worker pool', 'Chunker', 'Vector index', 'Retries with a growing delay until the attempts run out'];
export const FIGURE_CAPTION = 'Figure 1: Path of a document through the ingest service';
/** The paragraph under the figure, across the page. */
export const AFTER_FIGURE = ['The same path is taken by documents that arrive through a watched folder or a mail inbox; only the', 'first stage differs, as it reads the file from its source instead of from the upload.'];
/** The labels printed over the picture (an image, when one is given). */
export const PICTURE_LABELS = ['Sensor north', 'Sensor south'];

/**
 * One page: two columns of prose (FIGURE_COLUMNS), then across the page a drawn figure (a frame holding boxes
 * joined by lines, a label in each box, FIGURE_LABELS) with its caption under it, then a paragraph across the
 * page (AFTER_FIGURE). With `png`: a second page whose picture (the image) has PICTURE_LABELS printed over
 * it, beside a column of prose, and a heading set on a banner image (a backdrop: the heading stays text),
 * and a framed note without a figure caption (it stays text too).
 */
export async function figurePdf(png?: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([612, 792]);
  FIGURE_COLUMNS.forEach((col, c) => {
    let y = 740;
    for (const para of col) {
      for (const line of para) {
        page.drawText(line, { x: c ? 320 : 60, y, size: 9, font });
        y -= 11;
      }
      y -= 9;
    }
  });
  // the figure: a frame, four boxes joined by lines, a label in each box, one long label under them
  page.drawRectangle({ x: 60, y: 330, width: 492, height: 150, borderColor: rgb(0, 0, 0), borderWidth: 1 });
  const boxes = [[80, 420], [200, 420], [330, 420], [450, 420]] as const;
  boxes.forEach(([x, y], i) => {
    page.drawRectangle({ x, y, width: 90, height: 36, color: rgb(0.85, 0.9, 1), borderColor: rgb(0.2, 0.2, 0.5), borderWidth: 1 });
    page.drawText(FIGURE_LABELS[i]!, { x: x + 6, y: y + 14, size: 8, font: bold });
    if (i) page.drawLine({ start: { x: boxes[i - 1]![0] + 90, y: y + 18 }, end: { x, y: y + 18 }, thickness: 1 });
  });
  page.drawLine({ start: { x: 125, y: 420 }, end: { x: 125, y: 370 }, thickness: 1 });
  page.drawText(FIGURE_LABELS[4]!, { x: 130, y: 360, size: 8, font });
  page.drawText(FIGURE_CAPTION, { x: 60, y: 316, size: 8, font });
  AFTER_FIGURE.forEach((line, k) => page.drawText(line, { x: 60, y: 290 - k * 11, size: 9, font }));
  if (png) {
    const image = await doc.embedPng(png);
    const p2 = doc.addPage([612, 792]);
    // a heading on a banner (an image barely taller than its line)
    p2.drawImage(image, { x: 60, y: 730, width: 240, height: 24 });
    p2.drawText('2 Field measurements', { x: 66, y: 737, size: 12, font: bold });
    FIGURE_COLUMNS[0]!.forEach((para, k) => para.forEach((line, j) => p2.drawText(line, { x: 60, y: 700 - k * 45 - j * 11, size: 9, font })));
    // a picture with labels printed over it
    p2.drawImage(image, { x: 320, y: 520, width: 230, height: 180 });
    p2.drawText(PICTURE_LABELS[0]!, { x: 340, y: 670, size: 8, font: bold });
    p2.drawText(PICTURE_LABELS[1]!, { x: 450, y: 540, size: 8, font: bold });
    // a framed note, no figure: its text is running text
    p2.drawRectangle({ x: 60, y: 420, width: 240, height: 60, borderColor: rgb(0, 0, 0), borderWidth: 1 });
    p2.drawText('Note: readings are taken at noon.', { x: 70, y: 455, size: 9, font });
    p2.drawText('Calibrate both sensors first.', { x: 70, y: 440, size: 9, font });
  }
  return doc.save();
}

export const LETTER_IBAN = 'DE89 3704 0044 0532 0130 00';
export const LETTER_FOOTER = [
  'Nordlicht Handels GmbH - Hafenstrasse 12 - 20457 Hamburg',
  'Amtsgericht Hamburg HRB 123456 - USt-IdNr. DE 123 456 789',
  `Commerzbank Hamburg - IBAN ${LETTER_IBAN} - BIC COBADEFFXXX`,
];
const LETTER_BODY = [
  ['Thank you for your order of the twelfth of March. We deliver the shelving units', 'in two parts: the frames next week and the boards a week later.'],
  ['The boards are cut to the lengths you gave us; the offcuts are recycled unless', 'you ask for them to be delivered with the boards.'],
  ['Please check the delivery on arrival and tell us of any damage within', 'seven days, so that the carrier can be held to account.'],
];

/** A three-page letter: body text on each page, and the same three-line footer with the company's register and bank details, beside "Seite n von 3". */
export async function letterPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  LETTER_BODY.forEach((lines, i) => {
    const page = doc.addPage([595, 842]);
    lines.forEach((t, k) => page.drawText(t, { x: 60, y: 760 - k * 14, size: 11, font }));
    page.drawText(`Item ${i + 1} of the order is described on this page and priced in the enclosed list.`, { x: 60, y: 600, size: 11, font });
    LETTER_FOOTER.forEach((t, k) => page.drawText(t, { x: 60, y: 60 - k * 10, size: 8, font }));
    page.drawText(`Seite ${i + 1} von 3`, { x: 480, y: 60, size: 8, font });
  });
  return doc.save();
}
