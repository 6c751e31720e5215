import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { PluginRegistry, isQuireError, pluginContext } from '@quire/core';
import type { OcrPlugin, OcrResult } from '@quire/core';
import plugin, { MAX_SKEW, alignSequences, characters, ctcDecode, ctcWords, dbBoxes, glyphWidth, groupLines, spacedBox, splitWords, dropSpecks, voteChars } from '@quire/plugin-ocr-ppocr';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-ppocr-'));
const opened: OcrPlugin[] = [];
after(async () => {
  await Promise.all(opened.map((p) => p.close?.()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The plugin as the registry makes it (options checked by its schema). */
async function make(options: Record<string, unknown> = {}): Promise<OcrPlugin> {
  const p = (await plugin.create(pluginContext(plugin, { options, dataDir: tmp }))) as OcrPlugin;
  opened.push(p);
  return p;
}

/** A receipt-like page: a heading, items with their amounts at the right edge, a total. */
function receipt(file: string): string {
  const c = createCanvas(900, 420);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.font = '36px DejaVu Sans';
  g.fillText('GREEN LEAF CAFE', 60, 70);
  const rows: [string, string][] = [
    ['Coffee', '3.50'],
    ['Bagel', '4.25'],
    ['TOTAL', '7.75'],
  ];
  rows.forEach(([item, amount], i) => {
    const y = 170 + i * 80;
    g.fillText(item, 60, y);
    g.fillText(amount, 840 - g.measureText(amount).width, y);
  });
  const p = path.join(tmp, file);
  fs.writeFileSync(p, c.toBuffer('image/png'));
  return p;
}

const word = (r: OcrResult, text: string) => r.words.find((w) => w.text === text);

test('reads the lines of a rendered receipt in order, with amounts on the right and boxes in image pixels', async () => {
  const ocr = await make();
  const r = await ocr.recognize(receipt('receipt.png'), { language: 'eng' });
  assert.equal(r.width, 900);
  assert.equal(r.height, 420);
  assert.deepEqual(
    r.lines.map((l) => l.text),
    ['GREEN LEAF CAFE', 'Coffee 3.50', 'Bagel 4.25', 'TOTAL 7.75'],
  );
  assert.equal(r.text, 'GREEN LEAF CAFE\nCoffee 3.50\nBagel 4.25\nTOTAL 7.75');
  // lines from top to bottom, each box inside the image around where the text was drawn
  const tops = r.lines.map((l) => l.bbox.y);
  assert.deepEqual([...tops].sort((a, b) => a - b), tops);
  for (const l of r.lines) {
    assert.ok(l.bbox.x >= 0 && l.bbox.y >= 0 && l.bbox.x + l.bbox.width <= 900 && l.bbox.y + l.bbox.height <= 420, JSON.stringify(l.bbox));
    assert.ok(l.confidence > 0.5 && l.confidence <= 1);
  }
  // the amounts are words of their own at the right edge, the items at the left
  for (const [item, amount, baseline] of [['Coffee', '3.50', 170], ['Bagel', '4.25', 250], ['TOTAL', '7.75', 330]] as const) {
    const a = word(r, amount)!;
    const i = word(r, item)!;
    assert.ok(a && i, `${item} ${amount}`);
    assert.ok(a.bbox.x > 700 && a.bbox.x + a.bbox.width <= 900, `${amount} at ${JSON.stringify(a.bbox)}`);
    assert.ok(i.bbox.x < 150, `${item} at ${JSON.stringify(i.bbox)}`);
    for (const w of [a, i]) assert.ok(w.bbox.y < baseline && w.bbox.y + w.bbox.height > baseline - 20, `${w.text} at ${JSON.stringify(w.bbox)}`);
  }
  assert.equal(r.words.length, 9);
  assert.ok(r.confidence > 0.8);
});

test('a skewed line is read along its direction', async () => {
  const c = createCanvas(1000, 300);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.font = '34px DejaVu Sans';
  g.translate(60, 120);
  g.rotate((4 * Math.PI) / 180);
  g.fillText('PAYMENT RECEIVED WITH THANKS 2024', 0, 0);
  const file = path.join(tmp, 'skewed.png');
  fs.writeFileSync(file, c.toBuffer('image/png'));
  const r = await (await make()).recognize(file, { language: 'eng' });
  // one line, every character in order (the model often leaves out the spaces of long lines)
  assert.equal(r.lines.length, 1);
  assert.equal(r.text.replace(/\s+/g, ''), 'PAYMENTRECEIVEDWITHTHANKS2024');
  // the text rises about 4° over its width: the line's level box spans the slope
  const box = r.lines[0]!.bbox;
  assert.ok(box.height > 34 + box.width * Math.sin((4 * Math.PI) / 180) * 0.8, JSON.stringify(box));
});

test('languages: the ones the models read; another is refused clearly', async () => {
  const ocr = await make();
  assert.deepEqual(await ocr.languages(), ['chi_sim', 'chi_tra', 'eng']);
  await assert.rejects(ocr.recognize(receipt('lang.png'), { language: 'deu' }), (e: unknown) => isQuireError(e) && e.code === 'VALIDATION_ERROR' && /deu/.test(e.message) && /eng/.test(e.message));
  await assert.rejects(ocr.recognize(receipt('lang2.png'), { language: 'eng+rus' }), (e: unknown) => isQuireError(e) && e.code === 'VALIDATION_ERROR' && /rus/.test(e.message));
});

test('a missing or corrupt model fails every image clearly and permanently, and health says why', async () => {
  const broken = path.join(tmp, 'broken.onnx');
  fs.writeFileSync(broken, 'not a model');
  for (const [detModel, what] of [[path.join(tmp, 'missing.onnx'), 'missing.onnx'], [broken, 'broken.onnx']] as const) {
    const ocr = await make({ detModel });
    const check = (e: unknown) => {
      assert.ok(isQuireError(e), String(e));
      assert.equal(e.code, 'SERVICE_UNAVAILABLE');
      assert.equal((e as { retryable?: boolean }).retryable, false);
      assert.match(e.message, new RegExp(`detection model .*${what}`));
      return true;
    };
    await assert.rejects(ocr.recognize(receipt(`m-${what}.png`), { language: 'eng' }), check);
    const h = await ocr.health!();
    assert.equal(h.ok, false);
    assert.match(h.message!, new RegExp(what));
  }
  const badDict = await make({ dictionary: path.join(tmp, 'missing-keys.txt') });
  await assert.rejects(badDict.recognize(receipt('d.png'), { language: 'eng' }), (e: unknown) => isQuireError(e) && e.code === 'SERVICE_UNAVAILABLE' && /dictionary/.test(e.message));
});

test('a corrupt or missing image fails that image only, as a permanent error', async () => {
  const ocr = await make();
  const bad = path.join(tmp, 'bad.png');
  fs.writeFileSync(bad, Buffer.from('\x89PNG\r\n\x1a\n this is not really a png'));
  await assert.rejects(ocr.recognize(bad, { language: 'eng' }), (e: unknown) => isQuireError(e) && e.code === 'UNPROCESSABLE' && /cannot be decoded/.test(e.message));
  await assert.rejects(ocr.recognize(path.join(tmp, 'nope.png'), { language: 'eng' }), (e: unknown) => isQuireError(e) && e.code === 'PROCESSING_ERROR' && /ENOENT/.test(e.message));
  // a TIFF (which the canvas may crash the process on) is refused before decoding, marked for another engine
  const tif = path.join(tmp, 'scan.tif');
  fs.writeFileSync(tif, Buffer.concat([Buffer.from('II*\0\x08\0\0\0', 'latin1'), Buffer.alloc(64)]));
  await assert.rejects(ocr.recognize(tif, { language: 'eng' }), (e: unknown) => isQuireError(e) && e.code === 'UNPROCESSABLE' && (e.details as { undecodable?: boolean }).undecodable === true);
  // the engine goes on
  const r = await ocr.recognize(receipt('after.png'), { language: 'eng' });
  assert.match(r.text, /TOTAL 7\.75/);
  assert.deepEqual(await ocr.health!(), { ok: true, message: (await ocr.health!()).message });
});

test('an aborted recognition rejects with the reason', async () => {
  const ocr = await make();
  const ac = new AbortController();
  const p = ocr.recognize(receipt('abort.png'), { language: 'eng', signal: ac.signal });
  ac.abort(new Error('stop now'));
  await assert.rejects(p, /stop now/);
});

test('loads through the plugin API and becomes the active ocr plugin when selected', async () => {
  const registry = new PluginRegistry({ dataDir: tmp, selected: { ocr: 'ppocr' } });
  const def = await registry.load('@quire/plugin-ocr-ppocr');
  assert.equal(def.kind, 'ocr');
  assert.equal(def.name, 'ppocr');
  await registry.start();
  try {
    const ocr = registry.get('ocr');
    assert.deepEqual(await ocr.languages(), ['chi_sim', 'chi_tra', 'eng']);
    assert.equal((await ocr.health!()).ok, true);
  } finally {
    await registry.close();
  }
  assert.throws(() => pluginContext(plugin, { options: { threads: 0 } }), /invalid options of plugin ocr:ppocr: option "threads"/);
});

test('dbBoxes: components above the threshold, a skewed bar along its direction, faint blobs dropped', () => {
  const w = 200;
  const h = 100;
  const prob = new Float32Array(w * h);
  // a bar 120 × 8 turned by 5°, probability 0.9
  const a = (5 * Math.PI) / 180;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const u = (x - 100) * Math.cos(a) + (y - 40) * Math.sin(a);
      const v = -(x - 100) * Math.sin(a) + (y - 40) * Math.cos(a);
      if (Math.abs(u) < 60 && Math.abs(v) < 4) prob[y * w + x] = 0.9;
    }
  // a faint blob (mean below the box threshold)
  for (let y = 80; y < 90; y++) for (let x = 10; x < 20; x++) prob[y * w + x] = 0.35;
  const boxes = dbBoxes(prob, w, h);
  assert.equal(boxes.length, 1);
  const b = boxes[0]!;
  assert.ok(Math.abs(b.angle - a) < 0.02, `angle ${b.angle}`);
  assert.ok(Math.abs(b.cx - 100) < 1.5 && Math.abs(b.cy - 40) < 1.5, `${b.cx},${b.cy}`);
  assert.ok(b.score > 0.7 && b.score <= 0.9, `score ${b.score}`);
  // grown by the unclip distance: about 121 × 9 pixels → d = 121 × 9 × 1.5 / 260 ≈ 6.3 on each side
  assert.ok(Math.abs(b.width - 133.6) < 3 && Math.abs(b.height - 21.6) < 3, `${b.width} × ${b.height}`);
  assert.ok(MAX_SKEW < Math.PI / 4);
});

test('ctcDecode merges repeats and drops blanks; groupLines orders lines and splits words proportionally', () => {
  const chars = characters('a\nb\nc\n');
  assert.deepEqual(chars, ['', 'a', 'b', 'c', ' ']);
  // steps: a a _ a b ' ' c  → "aab c"
  const seq = [1, 1, 0, 1, 2, 4, 3];
  const probs = new Float32Array(seq.length * 5);
  seq.forEach((c, t) => (probs[t * 5 + c] = 0.8));
  seq.forEach((c, t) => {
    for (let k = 0; k < 5; k++) if (k !== c) probs[t * 5 + k] = 0.05;
  });
  const d = ctcDecode(probs, 0, seq.length, 5, chars);
  assert.equal(d.text, 'aab c');
  assert.ok(Math.abs(d.confidence - 0.8) < 1e-6);

  const lines = groupLines([
    { text: '12.00', bbox: { x: 700, y: 102, width: 80, height: 30 }, confidence: 0.9 },
    { text: 'TOTAL DUE', bbox: { x: 50, y: 100, width: 180, height: 30 }, confidence: 0.8 },
    { text: 'Shop', bbox: { x: 50, y: 20, width: 100, height: 30 }, confidence: 1 },
  ]);
  assert.deepEqual(lines.map((l) => l.text), ['Shop', 'TOTAL DUE 12.00']);
  assert.deepEqual(lines[1]!.words.map((w) => [w.text, w.bbox.x, w.bbox.width]), [['TOTAL', 50, 100], ['DUE', 170, 60], ['12.00', 700, 80]]);
  assert.deepEqual(lines[1]!.bbox, { x: 50, y: 100, width: 730, height: 32 });
  assert.deepEqual(splitWords({ text: '', bbox: { x: 0, y: 0, width: 10, height: 10 }, confidence: 1 }), []);
});

/**
 * A recogniser's output for a line laid out in steps: each character `width` steps wide, then `gap` blank
 * steps (a string's characters one after the other; a number in the layout is that many extra blank steps).
 */
function ctcOutput(dictionary: string, layout: (string | number | { space: number })[], width = 1, gap = 2): { probs: Float32Array; steps: number; classes: number; chars: string[] } {
  const chars = characters(dictionary);
  const seq: number[] = [];
  const spaceAt = new Map<number, number>();
  for (const part of layout) {
    if (typeof part === 'object') {
      // a blank step on which the space came second
      spaceAt.set(seq.length, part.space);
      seq.push(0);
      continue;
    }
    if (typeof part === 'number') {
      for (let i = 0; i < part; i++) seq.push(0);
      continue;
    }
    for (const ch of part) {
      const c = chars.indexOf(ch);
      assert.ok(c > 0, `${ch} in the dictionary`);
      for (let i = 0; i < width; i++) seq.push(c);
      for (let i = 0; i < gap; i++) seq.push(0);
    }
  }
  const classes = chars.length;
  const probs = new Float32Array(seq.length * classes).fill(0.01);
  seq.forEach((c, t) => (probs[t * classes + c] = 0.9));
  for (const [t, p] of spaceAt) probs[t * classes + classes - 1] = p;
  return { probs, steps: seq.length, classes, chars };
}
const DICT = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,/:-()&', '中', '文'].join('\n');
const words = (layout: (string | number | { space: number })[], width = 1, gap = 2) => {
  const o = ctcOutput(DICT, layout, width, gap);
  return ctcWords(ctcDecode(o.probs, 0, o.steps, o.classes, o.chars).chars).map((w) => w.text);
};

test('ctcWords: a space where the recogniser left a gap clearly wider than the line\'s gaps between characters', () => {
  // "GIN KEE" read without its space, the gap between N and K three steps wider than the others
  assert.deepEqual(words(['GIN', 3, 'KEE']), ['GIN', 'KEE']);
  assert.deepEqual(words(['SYARIKAT', 3, 'PERNIAGAAN', 4, 'GIN', 3, 'KEE']), ['SYARIKAT', 'PERNIAGAAN', 'GIN', 'KEE']);
  // wider glyphs (runs of 2 steps) with the same layout
  assert.deepEqual(words(['GIN', 3, 'KEE'], 2, 2), ['GIN', 'KEE']);
  // after punctuation: "NO 290,JALAN" → "NO 290, JALAN"
  assert.deepEqual(words(['NO', 3, '290,', 3, 'JALAN']), ['NO', '290,', 'JALAN']);
  // a comma before a letter ends a word even without a gap; before a digit it joins a number
  assert.deepEqual(words(['53200,KUALA']), ['53200,', 'KUALA']);
  assert.deepEqual(words(['1,200']), ['1,200']);
  // an even line stays one word; a gap a little wider than the others (a narrow glyph) does not split
  assert.deepEqual(words(['GINKEE']), ['GINKEE']);
  assert.deepEqual(words(['GIN', 1, 'KEE']), ['GINKEE']);
  // the spaces the recogniser read are kept
  assert.deepEqual(words(['GIN KEE']), ['GIN', 'KEE']);
  // a space that came close on a blank step between two letters, with no wider gap
  assert.deepEqual(words(['GIN', { space: 0.4 }, 'KEE'], 1, 1), ['GIN', 'KEE']);
  assert.deepEqual(words(['GIN', { space: 0.02 }, 'KEE'], 1, 1), ['GINKEE']);
  assert.deepEqual(words(['12.', { space: 0.4 }, '50'], 1, 1), ['12.50']);
});

/**
 * Characters of proportional type as the recogniser places them: each glyph's centre, with the glyph laid
 * out at its Helvetica advance (`em` units an em, a space 278 thousandths), `round` the step positions are
 * rounded to (0: exact).
 */
function typeset(text: string, em = 1000, round = 0) {
  const out: { text: string; start: number; end: number }[] = [];
  let x = 0;
  for (const ch of text) {
    const w = ((glyphWidth(ch) ?? 556) / 1000) * em;
    let c = x + w / 2;
    if (round) c = Math.round(c / round) * round;
    if (ch !== ' ') out.push({ text: ch, start: c - 0.1 * em, end: c + 0.1 * em });
    x += w;
  }
  return out;
}
const joined = (chars: { text: string; start: number; end: number; space?: number }[]) => ctcWords(chars).map((w) => w.text).join(' ');

test('ctcWords: on proportional type a wide letter is no gap, a space is', () => {
  assert.equal(glyphWidth('m'), 833);
  assert.equal(glyphWidth('i'), 222);
  assert.equal(glyphWidth('中'), undefined);
  // read without spaces: the distances on either side of m, W or D are wider than the box's typical one
  assert.equal(joined(typeset('document')), 'document');
  assert.equal(joined(typeset('William filled')), 'William filled');
  assert.equal(joined(typeset('illuminating')), 'illuminating');
  assert.equal(joined(typeset('Milling William')), 'Milling William');
  assert.equal(joined(typeset('Shell Malaysia')), 'Shell Malaysia');
  assert.equal(joined(typeset('will it fill')), 'will it fill');
  // at the recogniser's resolution (about six steps an em, each centre on a whole step), where the rule of
  // equal advances alone reads "docu ment" and "S hell M ala ysia"
  assert.equal(joined(typeset('document', 6, 1)), 'document');
  assert.equal(joined(typeset('Shell Malaysia', 6, 1)), 'Shell Malaysia');
  assert.equal(ctcWords(typeset('Shell Malaysia', 6, 1), undefined, undefined, { metrics: 'mono' }).map((w) => w.text).join(' '), 'S hell M ala ysia');
  // monospaced type is not misread for proportional: a narrow letter's pitch is no gap, a space is
  const mono = (text: string) => [...text].flatMap((ch, i) => (ch === ' ' ? [] : [{ text: ch, start: i * 6, end: i * 6 + 1 }]));
  assert.equal(joined(mono('SHELL MALAYSIA')), 'SHELL MALAYSIA');
  assert.equal(joined(mono('Jalan Ilmu 1')), 'Jalan Ilmu 1');
  assert.equal(joined(mono('Total Incl GST')), 'Total Incl GST');
});

test('ctcWords: a page line as the recogniser placed it reads "PDF document", not "P DF docu m ent"', () => {
  // docling's ocr_test.pdf drawn at 300 dpi: the characters of its first line (positions in thousandths of the box)
  const line: [string, number, number][] = [['D',8,15],['o',38,46],['c',69,77],['l',85,92],['i',100,115],['n',123,131],['g',146,154],[' ',169,177],['b',185,192],['u',215,223],['n',238,246],['d',269,277],['l',292,300],['e',308,315],['s',338,346],[' ',354,369],['P',369,377],['D',408,415],['F',438,446],[' ',454,469],['d',477,485],['o',500,508],['c',531,538],['u',554,562],['m',592,600],['e',631,638],['n',654,662],['t',677,685],[' ',692,708],['c',708,715],['o',738,746],['n',762,769],['v',792,800],['e',815,823],['r',838,846],['s',854,862],['i',877,885],['o',892,900],['n',923,931],[' ',938,954],['t',954,962],['o',977,985]];
  const chars = line.map(([text, start, end]) => ({ text, start: start / 1000, end: end / 1000 }));
  assert.equal(joined(chars), 'Docling bundles PDF document conversion to');
  // the rule of equal advances alone split it
  assert.equal(ctcWords(chars, undefined, undefined, { metrics: 'mono' }).map((w) => w.text).join(' '), 'Docling bundles P DF docu m ent conversion to');
});

test('ctcWords: never inside a number or a date, never between characters of other scripts, not on too few characters', () => {
  assert.deepEqual(words(['12.', 4, '50']), ['12.50']);
  assert.deepEqual(words(['12', 4, '.50']), ['12.50']);
  assert.deepEqual(words(['02/', 4, '12/', 4, '2017']), ['02/12/2017']);
  assert.deepEqual(words(['10:', 4, '25']), ['10:25']);
  // a word and a number are split, as are two whole numbers
  assert.deepEqual(words(['SR', 4, '12.50']), ['SR', '12.50']);
  assert.deepEqual(words(['2', 4, '150']), ['2', '150']);
  // Chinese characters are read with their own spacing
  assert.deepEqual(words(['中', 4, '文中文']), ['中文中文']);
  // two characters give no typical gap
  assert.deepEqual(words(['A', 6, 'B']), ['AB']);
});

test('ctcWords: an opening bracket or an ampersand begins a word where the gap or the space class says so', () => {
  // "THE STORE(MALAYSIA)", "MR. D.I.Y.(M)", "FLORIST& HANDICRAFT" read without their spaces
  assert.deepEqual(words(['STORE', { space: 0.4 }, '(MALAYSIA)'], 1, 1), ['STORE', '(MALAYSIA)']);
  assert.deepEqual(words(['D.I.Y.', { space: 0.4 }, '(M)', { space: 0.4 }, 'SDN'], 1, 1), ['D.I.Y.', '(M)', 'SDN']);
  assert.deepEqual(words(['FLORIST', 3, '& HANDICRAFT']), ['FLORIST', '&', 'HANDICRAFT']);
  // no sign of a space: one word, as before ("(M)" after "CO." printed tight stays so)
  assert.deepEqual(words(['CO.(M)']), ['CO.(M)']);
  assert.deepEqual(words(['A&B']), ['A&B']);
  // never between two opening signs
  assert.deepEqual(words(['X', { space: 0.4 }, '(', { space: 0.4 }, '(Y'], 1, 1), ['X', '((Y']);
});

test('spacedBox: in Latin text, full-width signs become ASCII and 0 / 1 between letters become O / l; codes and Chinese stay as read', () => {
  const box = (s: string) => spacedBox({ bbox: { x: 0, y: 0, width: 100, height: 20 }, confidence: 0.9, chars: [...s].map((ch, i) => ({ text: ch, start: i, end: i + 0.5 })) }).text;
  assert.equal(box('KMF F00DICI0US SDN BHD'), 'KMF FOODICIOUS SDN BHD');
  assert.equal(box("KING'S CONFECTI0NERY"), "KING'S CONFECTIONERY");
  assert.equal(box('L0T 12'), 'LOT 12');
  assert.equal(box('Ja1an Peta1ing'), 'Jalan Petaling');
  assert.equal(box('g00d'), 'good');
  assert.equal(box('THE STORE (8199K）'), 'THE STORE (8199K)');
  assert.equal(box('GST ID No.： 0014'), 'GST ID No.: 0014');
  // digits at a word's edge or next to other digits: codes, numbers, dates
  assert.equal(box('CS01 T13 N0 Leve1 B10A 1851-B A101'), 'CS01 T13 N0 Leve1 B10A 1851-B A101');
  assert.equal(box('12.50 02/12/2017'), '12.50 02/12/2017');
  // a box with Chinese keeps its full-width signs
  assert.equal(box('中文（A0B）'), '中文（A0B）');
});

test('ctcWords on decoded boxes gives the text and real word boxes: x from the characters\' positions', () => {
  // GREEN at 0..0.5 of the box, CAFE at 0.7..1 (a box 200 px wide from x 100)
  const at = (s: string, x0: number, pitch: number) => [...s].map((ch, i) => ({ text: ch, start: x0 + i * pitch, end: x0 + i * pitch + pitch / 2 }));
  const r = spacedBox({ bbox: { x: 100, y: 10, width: 200, height: 30 }, confidence: 0.9, chars: [...at('GREEN', 0, 0.1), ...at('CAFE', 0.7, 0.075)] });
  assert.equal(r.text, 'GREEN CAFE');
  const [line] = groupLines([r]);
  assert.equal(line!.text, 'GREEN CAFE');
  assert.deepEqual(line!.words.map((w) => [w.text, w.bbox.x, w.bbox.width]), [['GREEN', 100, 90], ['CAFE', 240, 53]]);
  // the proportional split would put CAFE at 100 + 200 × 6 / 10 = 220, 80 wide
  assert.deepEqual(splitWords({ text: 'GREEN CAFE', bbox: r.bbox, confidence: 0.9 }).map((w) => [w.bbox.x, w.bbox.width]), [[100, 100], [220, 80]]);
});

test('dropSpecks: a punctuation mark read with a low probability is a speck and goes, unless it joins digits', () => {
  const chars = (s: string, p: Record<number, number> = {}) => [...s].map((ch, i) => ({ text: ch, start: i / s.length, end: (i + 0.5) / s.length, p: p[i] ?? 0.95 }));
  const text = (c: ReturnType<typeof chars>) => spacedBox({ bbox: { x: 0, y: 0, width: 100, height: 20 }, confidence: 0.9, chars: c }).text;
  // the comma after ELECTRICAL read at 0.38: not on the receipt
  assert.equal(text(chars('KHE ELECTRICAL, TRADING', { 14: 0.38 })), 'KHE ELECTRICAL TRADING');
  // the same comma read with confidence stays; so does a doubtful decimal point or date sign between digits
  assert.equal(text(chars('KHE ELECTRICAL, TRADING')), 'KHE ELECTRICAL, TRADING');
  assert.equal(text(chars('TOTAL 12.50 02/12/2017', { 8: 0.3, 14: 0.3 })), 'TOTAL 12.50 02/12/2017');
  // letters and digits are never dropped, however doubtful; nor are marks without a probability
  assert.deepEqual(dropSpecks(chars('A.1', { 0: 0.1, 1: 0.1, 2: 0.1 })).map((c) => c.text), ['A', '1']);
  assert.deepEqual(dropSpecks([{ text: ',', start: 0, end: 1 }]).map((c) => c.text), [',']);
});

test('a box read again at other widths keeps its text and its words in place', async () => {
  const file = receipt('retry.png');
  const plain = await (await make({ retryBelow: 0 })).recognize(file, { language: 'eng' });
  // every box read again (each character counts as doubtful): the most confident reading, positions unchanged
  const again = await (await make({ retryBelow: 1 })).recognize(file, { language: 'eng' });
  assert.equal(again.text, plain.text);
  assert.equal(again.words.length, plain.words.length);
  again.words.forEach((w, i) => {
    const p = plain.words[i]!;
    assert.ok(Math.abs(w.bbox.x - p.bbox.x) <= 12 && Math.abs(w.bbox.x + w.bbox.width - (p.bbox.x + p.bbox.width)) <= 12, `${w.text}: ${JSON.stringify(w.bbox)} against ${JSON.stringify(p.bbox)}`);
  });
  assert.ok(again.confidence >= plain.confidence - 1e-9);
  assert.throws(() => pluginContext(plugin, { options: { retryBelow: 2 } }), /invalid options of plugin ocr:ppocr: option "retryBelow"/);
});

test('voteChars: each letter as most readings of the box have it, insertions by majority, places and spaces kept', () => {
  const chars = (s: string, p: Record<number, number> = {}) => [...s].map((ch, i) => ({ text: ch, start: i / s.length, end: (i + 0.8) / s.length, p: p[i] ?? 0.95 }));
  const read = (s: string) => [...s];
  const text = (c: { text: string }[]) => c.map((x) => x.text).join('');
  // a misread letter: the two other readings agree on the print ("HARDWAPE" → "HARDWARE"), in its place
  const voted = voteChars(chars('HARDWAPE'), [read('HARDWARE'), read('HAROWARE')]);
  assert.equal(text(voted), 'HARDWARE');
  assert.deepEqual([voted[6]!.start, voted[6]!.end], [chars('HARDWAPE')[6]!.start, chars('HARDWAPE')[6]!.end]);
  // a letter the first reading lost, and one it added, when two of three readings say so
  assert.equal(text(voteChars(chars('SDN BD'), [read('SDN BHD'), read('SDNBHD')])), 'SDN BHD');
  assert.equal(text(voteChars(chars('MR. D.I.YY'), [read('MR. D.I.Y'), read('MR D.I.Y')])), 'MR. D.I.Y');
  // one dissenting reading changes nothing; nor do two that disagree with each other
  assert.equal(text(voteChars(chars('AEON CO'), [read('AEON C0'), read('AEON CO')])), 'AEON CO');
  assert.equal(text(voteChars(chars('AEON CO'), [read('AE0N CO'), read('AEQN CO')])), 'AEON CO');
  // a tie between the first reading and another: kept, unless the first reading's own probability is under tieBelow
  assert.equal(text(voteChars(chars('GIANT'), [read('GlANT')])), 'GIANT');
  assert.equal(text(voteChars(chars('GIANT', { 1: 0.5 }), [read('GlANT')], { tieBelow: 0.9 })), 'GlANT');
  assert.equal(text(voteChars(chars('GIANT', { 1: 0.95 }), [read('GlANT')], { tieBelow: 0.9 })), 'GIANT');
  // the first reading's spaces stay where they were; the other readings' spaces do not count
  assert.equal(text(voteChars(chars('SYARIKAT  PERNIAGAAN'), [read('SYARIKATPERNIAGAAN'), read('SYARIKAT PERNIAGAAN')])), 'SYARIKAT  PERNIAGAAN');
  // punctuation stays as first read (a doubtful mark is judged by its probability), a letter never becomes a digit
  assert.equal(text(voteChars(chars('KHE ELECTRICAL, TRADING'), [read('KHE ELECTRICAL. TRADING'), read('KHE ELECTRICAL. TRADING')])), 'KHE ELECTRICAL, TRADING');
  assert.equal(text(voteChars(chars('Health And'), [read('Health.And'), read('Health.And')])), 'Health And');
  assert.equal(text(voteChars(chars('URBAN IDEA'), [read('URBAN 1DEA'), read('URBAN 1DEA')])), 'URBAN IDEA');
  assert.equal(text(voteChars(chars('TEL 03-6258'), [read('TEL 03-6256'), read('TEL 03-6256')])), 'TEL 03-6256');
  // no other reading: as read
  assert.equal(text(voteChars(chars('AB'), [])), 'AB');
  assert.deepEqual(alignSequences(read('ABC'), read('AXC')), [[0, 0], [1, 1], [2, 2]]);
  assert.deepEqual(alignSequences(read('ABC'), read('AC')), [[0, 0], [1, -1], [2, 1]]);
  assert.deepEqual(alignSequences(read('AC'), read('ABC')), [[0, 0], [-1, 1], [1, 2]]);
});

test('voteLines: the top lines read again and voted on keep their text and their words in place', async () => {
  const file = receipt('vote.png');
  const plain = await (await make({ voteLines: 0 })).recognize(file, { language: 'eng' });
  const voted = await (await make({ voteLines: 2 })).recognize(file, { language: 'eng' });
  assert.equal(voted.text, plain.text);
  assert.deepEqual(
    voted.words.map((w) => [w.text, w.bbox]),
    plain.words.map((w) => [w.text, w.bbox]),
  );
  assert.throws(() => pluginContext(plugin, { options: { voteLines: -1 } }), /invalid options of plugin ocr:ppocr: option "voteLines"/);
});
