/**
 * Generated PDFs with real-world page layouts: page furniture (a running head set close above the text,
 * a date line, "Page n of N" footers) and a court transcript with a line-number gutter.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';

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
