import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentBuilder, pluginContext } from '@quire/core';
import type { ParsedDocument } from '@quire/core';
import plugin, { detectSections, pageFeatures, pageNumberIn, pageType, readInstructions, scoreBoundaries } from '@quire/plugin-splitter-default';

interface PageSpec {
  top?: string;
  heading?: string;
  body: string[];
  footer?: string;
  width?: number;
}

/** A parsed document of pages: an optional letterhead line and heading at the top, body lines, a footer. */
function doc(pages: PageSpec[]): ParsedDocument {
  const b = new DocumentBuilder('d', 'd.pdf', 'pdf');
  pages.forEach((p, i) => {
    const n = i + 1;
    b.addPage({ number: n, width: p.width ?? 612, height: 792, ocr: false, confidence: 1 });
    let y = 60;
    if (p.top) b.addBlock({ type: 'paragraph', text: p.top, page: n, bbox: { x: 72, y: (y += 14), width: 300, height: 12 }, confidence: 1, font: { size: 10 } });
    if (p.heading) b.addBlock({ type: 'heading', level: 1, text: p.heading, page: n, bbox: { x: 72, y: (y += 30), width: 300, height: 24 }, confidence: 1, font: { size: 20, bold: true } });
    for (const line of p.body) b.addBlock({ type: 'paragraph', text: line, page: n, bbox: { x: 72, y: (y += 40), width: 460, height: 36 }, confidence: 1, font: { size: 10 } });
    if (p.footer) b.addBlock({ type: 'footer', text: p.footer, page: n, bbox: { x: 280, y: 760, width: 60, height: 10 }, confidence: 1, font: { size: 8 } });
  });
  return b.build();
}

const shipping = (n: number) => [`Container ${n} left the Rotterdam terminal on schedule; the vessel carried steel coils, timber and spare parts for the port cranes.`, 'Customs cleared the cargo manifest and the harbour master confirmed the berth for unloading at dawn.'];
const botany = (n: number) => [`Orchid ${n} flowered in the greenhouse after the humidity was raised; petals, sepals and roots were photographed.`, 'Seedlings of ferns and mosses grew under shade cloth while the gardeners measured leaf growth weekly.'];

test('page numbers are read from footers and headers', () => {
  assert.deepEqual(pageNumberIn('Page 2 of 5', false), { n: 2, of: 5 });
  assert.deepEqual(pageNumberIn('Seite 1 von 3', false), { n: 1, of: 3 });
  assert.deepEqual(pageNumberIn('3/7', false), { n: 3, of: 7 });
  assert.deepEqual(pageNumberIn('- 4 -', true), { n: 4, of: null });
  assert.equal(pageNumberIn('- 4 -', false), null);
  assert.equal(pageNumberIn('Total 42 items in 3 boxes shipped to the warehouse on Monday morning', true), null);
});

test('document types come from the words that name them', () => {
  assert.equal(pageType('TAX INVOICE\nInvoice No: 123', 'Invoice No 123 Bill To ACME Subtotal 10 VAT 2 Amount due 12'), 'invoice');
  assert.equal(pageType('Dear Mr Smith,', 'Dear Mr Smith, thank you for your letter. Yours sincerely, Anna'), 'letter');
  assert.equal(pageType('Notes', 'the weather was fine and we walked along the river to the old mill'), null);
});

test('a numbering restart, a new title and a topic shift start a document; continued numbering and a shared footer do not', () => {
  const d = doc([
    { heading: 'Port operations report', body: shipping(1), footer: 'Page 1 of 3' },
    { body: shipping(2), footer: 'Page 2 of 3' },
    { body: shipping(3), footer: 'Page 3 of 3' },
    { heading: 'Greenhouse diary', body: botany(1), footer: 'Page 1 of 2' },
    { body: botany(2), footer: 'Page 2 of 2' },
  ]);
  const s = detectSections(d);
  assert.deepEqual(s.map((x) => [x.page_start, x.page_end]), [[1, 3], [4, 5]]);
  assert.match(s[1]!.reason, /page numbering restarts/);
  assert.match(s[1]!.reason, /title at the top/);
  assert.ok(s[1]!.signals!.includes('topic_shift'));
  assert.equal(s[1]!.name, 'Greenhouse diary');
  assert.ok(s.every((x) => x.confidence > 0.5 && x.confidence < 1));
});

/** Word boxes of a text layer: lower-case words whose letters are `aspect` times their height wide. */
function wordBoxes(aspect: number): string {
  const words = 'harbour vessels carried steel coils timber spare parts cranes customs cleared cargo manifest master confirmed berth unloading dawn'.split(' ');
  return words.map((w, i) => `${72 + (i % 6) * 70} ${100 + Math.floor(i / 6) * 14} ${(w.length * 10 * aspect).toFixed(1)} 10 ${w}`).join('\n');
}

test('a change of body font (letter widths in the word boxes) is a signal; the same font at another size is not', () => {
  const d = doc([{ body: shipping(1) }, { body: shipping(2) }, { body: shipping(3) }, { body: shipping(4) }]);
  const aspects = [0.45, 0.45, 0.58, 0.58];
  d.pages.forEach((p, i) => (p.wordBoxes = wordBoxes(aspects[i]!)));
  const f = pageFeatures(d);
  assert.ok(Math.abs(f[0]!.fontAspect! - 0.45) < 0.01);
  const sc = scoreBoundaries(f);
  assert.deepEqual(sc.map((b) => b.signals.includes('font_change')), [false, true, false]);
  // scanned pages have no text-layer font to compare
  d.pages[2]!.ocr = true;
  assert.equal(pageFeatures(d)[2]!.fontAspect, null);
});

test('a numbered section heading counts against a boundary only when the numbered headings before lead to it', () => {
  const page = (heading: string) => ({ heading, body: shipping(1) });
  const d = doc([page('4 Cargo handling'), page('4.2 Cranes'), page('5.1 Berths'), page('5.1 Tides')]);
  d.blocks.forEach((b) => b.type === 'heading' && (b.level = 3));
  const f = pageFeatures(d);
  assert.deepEqual(f.map((p) => p.sectionNumbers), [[4], [4], [5], [5]]);
  const sc = scoreBoundaries(f);
  assert.ok(sc[0]!.signals.includes('inner_heading') && sc[1]!.signals.includes('inner_heading'));
  // a page that opens with "5.1" after pages without numbered headings may be another document's inner page
  const e = doc([{ body: botany(1) }, { body: botany(2) }, page('5.1 Berths')]);
  const se = scoreBoundaries(pageFeatures(e));
  assert.ok(!se[1]!.signals.includes('inner_heading'));
});

test('page numbers further on count as one document only when printed alike', () => {
  const d = doc([{ body: shipping(1), footer: 'Page 12' }, { body: shipping(2), footer: 'Page 13' }, { body: shipping(3), footer: '200' }, { body: shipping(4), footer: '230' }]);
  const sc = scoreBoundaries(pageFeatures(d));
  assert.ok(sc[0]!.signals.includes('numbering_continues'));
  assert.ok(!sc[1]!.signals.includes('numbering_increases'));
  assert.ok(sc[2]!.signals.includes('numbering_increases'));
});

test('a sentence runs on over the page break; a form label at the foot of a page does not', () => {
  const d = doc([{ body: [...shipping(1), 'and the vessel was then loaded with'] }, { body: ['timber and steel coils for the cranes of the port.', ...shipping(2)] }, { body: ['Applicant name'] }, { body: ['under the excise act of the state, this return is due monthly.', ...botany(1)] }]);
  const sc = scoreBoundaries(pageFeatures(d));
  assert.ok(sc[0]!.signals.includes('runs_on'));
  assert.ok(!sc[2]!.signals.includes('runs_on'));
  // sign-offs in other languages end a page too
  assert.ok(pageFeatures(doc([{ body: ['Mit freundlichen Grüßen'] }, { body: ['Unterschrift'] }]))!.every((p) => p.closing));
});

test('a back cover before a page says the document before has ended', () => {
  const d = doc([{ heading: 'Port operations', body: shipping(1) }, { heading: 'Back cover', body: ['Port operations handbook, second edition.'] }, { body: botany(1) }]);
  const f = pageFeatures(d);
  assert.deepEqual(f.map((p) => p.backMatter), [false, true, false]);
  assert.ok(scoreBoundaries(f)[1]!.signals.includes('back_matter_before'));
});

test('one document stays one section, saying so', () => {
  const s = detectSections(doc([1, 2, 3].map((n) => ({ body: shipping(n), footer: `Page ${n} of 3` }))));
  assert.deepEqual(s.map((x) => [x.page_start, x.page_end]), [[1, 3]]);
  assert.match(s[0]!.reason, /one document/);
});

test('a blank page separates and belongs to no section', () => {
  const s = detectSections(doc([{ heading: 'Port operations report', body: shipping(1) }, { body: [] }, { heading: 'Greenhouse diary', body: botany(1) }]));
  assert.deepEqual(s.map((x) => [x.page_start, x.page_end]), [[1, 1], [3, 3]]);
  assert.match(s[1]!.reason, /blank separator/);
});

test('instructions and minSectionPages are honoured', () => {
  const pages = [1, 2, 3, 4, 5, 6].map((n) => ({ heading: n % 2 ? `Report ${n}` : undefined, body: n % 2 ? shipping(n) : botany(n) }));
  assert.deepEqual(readInstructions('please split every 2 pages'), { everyPages: 2 });
  assert.deepEqual(readInstructions('one section per page'), { everyPages: 1 });
  assert.equal(readInstructions('split into 3 sections').sections, 3);
  assert.deepEqual(readInstructions('start a new section at "Report"').startsWith, ['report']);
  assert.deepEqual(detectSections(doc(pages), { instructions: 'every 2 pages' }).map((x) => x.page_start), [1, 3, 5]);
  assert.deepEqual(detectSections(doc(pages), { instructions: 'a new section starts at "Report"' }).map((x) => x.page_start), [1, 3, 5]);
  assert.equal(detectSections(doc(pages), { instructions: 'split into 2 documents' }).length, 2);
  for (const s of detectSections(doc(pages), { minSectionPages: 3 })) assert.ok(s.page_end - s.page_start + 1 >= 3);
});

test('the plugin loads through its definition', async () => {
  const splitter = await plugin.create(pluginContext(plugin, { options: {} }));
  const s = await splitter.detect(doc([{ body: shipping(1) }]), {});
  assert.equal(s.length, 1);
});

test('a section is named by the title on its first page: never a table row set larger, an address or a footer', () => {
  const b = new DocumentBuilder('d', 'd.pdf', 'pdf');
  const para = (page: number, text: string, y: number, size = 10, more: object = {}) => b.addBlock({ type: 'paragraph', text, page, bbox: { x: 72, y, width: 460, height: size * 1.3 }, confidence: 1, font: { size }, ...more });
  for (let n = 1; n <= 4; n++) b.addPage({ number: n, width: 612, height: 792, ocr: false, confidence: 1 });
  // page 1: a statistics table row in large type above the report's title
  b.addTable({ page: 1, bbox: { x: 72, y: 50, width: 460, height: 24 }, rows: 1, cols: 2, cells: [{ row: 0, col: 0, rowSpan: 1, colSpan: 1, text: "Forty-five percent of bachelor's degree recipients" }, { row: 0, col: 1, rowSpan: 1, colSpan: 1, text: '45%' }], confidence: 0.9 });
  para(1, 'Port Operations Report', 100, 20, { font: { size: 20, bold: true } });
  for (let i = 0; i < 3; i++) para(1, shipping(i).join(' '), 150 + i * 60);
  para(2, shipping(4).join(' '), 80);
  b.addBlock({ type: 'footer', text: 'Port Authority of Rotterdam, confidential', page: 2, bbox: { x: 72, y: 760, width: 300, height: 10 }, confidence: 1, font: { size: 8 } });
  // page 3: a letter: the addressee's address first, then the subject in bold
  para(3, 'Mr John Smith', 60, 12);
  para(3, '14 Garden Lane', 76, 12);
  para(3, 'Cambridge CB2 1TN', 92, 12);
  para(3, 'Greenhouse Maintenance Contract', 130, 16, { font: { size: 16, bold: true } });
  for (let i = 0; i < 3; i++) para(3, botany(i).join(' '), 170 + i * 60);
  para(4, botany(5).join(' '), 80);
  const d = b.build();
  const s = detectSections(d, { instructions: 'split into 2 documents' });
  assert.deepEqual(s.map((x) => [x.page_start, x.page_end]), [[1, 2], [3, 4]]);
  assert.deepEqual(s.map((x) => x.name), ['Port Operations Report', 'Greenhouse Maintenance Contract']);
});

test('a section without a title is named by its type and pages, not by a table row or an address', () => {
  const b = new DocumentBuilder('d', 'd.pdf', 'pdf');
  b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: "| Forty-five percent of bachelor's degree recipients | 45% |", page: 1, bbox: { x: 72, y: 90, width: 460, height: 14 }, confidence: 1, font: { size: 10 } });
  b.addBlock({ type: 'paragraph', text: shipping(1).join(' '), page: 1, bbox: { x: 72, y: 120, width: 460, height: 40 }, confidence: 1, font: { size: 10 } });
  assert.equal(detectSections(b.build())[0]!.name, 'Section (page 1)');
  const c = new DocumentBuilder('d', 'd.pdf', 'pdf');
  c.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  c.addBlock({ type: 'paragraph', text: 'QualityHosting AG - Uferweg 40-42 - D-63571 Gelnhausen', page: 1, bbox: { x: 72, y: 90, width: 460, height: 14 }, confidence: 1, font: { size: 10 } });
  c.addBlock({ type: 'paragraph', text: shipping(1).join(' '), page: 1, bbox: { x: 72, y: 120, width: 460, height: 40 }, confidence: 1, font: { size: 10 } });
  assert.equal(detectSections(c.build())[0]!.name, 'Section (page 1)');
  // a letter that opens with the addressee's address (one block) is not named by the addressee
  const l = new DocumentBuilder('d', 'd.pdf', 'pdf');
  l.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  l.addBlock({ type: 'paragraph', text: 'Mr John Smith\n14 Garden Lane\nCambridge CB2 1TN', page: 1, bbox: { x: 72, y: 90, width: 200, height: 40 }, confidence: 1, font: { size: 10 } });
  l.addBlock({ type: 'paragraph', text: 'Dear Mr Smith, ' + botany(1).join(' ') + ' Yours sincerely, Anna', page: 1, bbox: { x: 72, y: 150, width: 460, height: 60 }, confidence: 1, font: { size: 10 } });
  assert.doesNotMatch(detectSections(l.build())[0]!.name, /Smith|Garden/);
  // a name scrawled in lower case at the top of a scanned receipt, larger than its text, names nothing
  const r = new DocumentBuilder('d', 'd.pdf', 'pdf');
  r.addPage({ number: 1, width: 220, height: 480, ocr: true, confidence: 0.8 });
  r.addBlock({ type: 'heading', level: 2, text: 'tan woon yann', page: 1, bbox: { x: 36, y: 15, width: 118, height: 15 }, confidence: 0.92, font: { size: 15 } });
  r.addBlock({ type: 'paragraph', text: 'BOOK TA.K SDN BHD 598, JALAN SAGU 18\nTAMAN DAYA, 81100 JOHOR BAHRU', page: 1, bbox: { x: 35, y: 46, width: 167, height: 20 }, confidence: 0.7, font: { size: 8 } });
  r.addBlock({ type: 'paragraph', text: 'KF MODELLING CLAY KIDDY FISH 1 PC 9.00', page: 1, bbox: { x: 15, y: 280, width: 190, height: 8 }, confidence: 0.8, font: { size: 8 } });
  assert.doesNotMatch(detectSections(r.build())[0]!.name, /yann/);
});
