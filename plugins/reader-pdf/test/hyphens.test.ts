import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { eachWord, joinBlockLines, keepHyphen, resolveHyphenBreaks } from '@quire/plugin-reader-pdf';
import { pdfReader } from './make-reader.js';
import type { PageResult } from '@quire/plugin-reader-pdf';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-hyphens-'));
const reader = pdfReader({ workers: 1 });
after(async () => {
  await reader.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const counts = (text: string) => {
  const m = new Map<string, number>();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? []) {
    m.set(w, (m.get(w) ?? 0) + 1);
    if (w.includes('-')) for (const p of w.split('-')) m.set(p, (m.get(p) ?? 0) + 1);
  }
  return m;
};

test('keepHyphen: the words of the document decide between a compound and a hyphenated word', () => {
  const doc = counts('The encoder and the ranking model. A cross-entropy loss. Information retrieval. Self attention.');
  assert.equal(keepHyphen('dual', 'encoder', doc), true, '"encoder" is a word of the document, "dualencoder" is not');
  assert.equal(keepHyphen('infor', 'mation', doc), false, 'no "mation": a word broken in two');
  assert.equal(keepHyphen('cross', 'entropy', doc), true, 'written with its hyphen elsewhere');
  assert.equal(keepHyphen('retriev', 'al', doc), false);
  assert.equal(keepHyphen('re', 'search', counts('search and research')), false, 'written joined elsewhere');
  assert.equal(keepHyphen('with', 'out', counts('out of the box')), false, 'a function word before the break');
  assert.equal(keepHyphen('be', 'come', counts('come along')), false);
  assert.equal(keepHyphen('state-of-the', 'art', counts('the art of it')), true, 'a compound going on');
  assert.equal(keepHyphen('self', 'attention', doc), true);
  assert.equal(keepHyphen('develop', 'ment', doc), false);
});

test('resolveHyphenBreaks settles every marked break in blocks and cells and leaves no marker', () => {
  const text = joinBlockLines(['A dual-', 'encoder reads the infor-', 'mation once.', 'The encoder is small.'], true);
  assert.ok(text.includes('\uffff'));
  assert.equal(joinBlockLines(['A dual-', 'encoder'], false), 'A dualencoder', 'unmarked: the hyphen goes (joinLines)');
  const page = {
    number: 1, width: 100, height: 100, needsOcr: false,
    elements: [
      { kind: 'text', type: 'paragraph', text, bbox: { x: 0, y: 0, width: 1, height: 1 }, lines: 4, size: 10, bold: false },
      { kind: 'text', type: 'key_value', text: 'Model: dual-\uffffencoder', key: 'Model', value: 'dual-\uffffencoder', bbox: { x: 0, y: 0, width: 1, height: 1 }, lines: 1, size: 10, bold: false },
    ],
  } as PageResult;
  assert.equal(resolveHyphenBreaks([page]), 4);
  const [p, kv] = page.elements as { text: string; value?: string }[];
  assert.equal(p!.text, 'A dual-encoder reads the information once. The encoder is small.');
  assert.equal(kv!.text, 'Model: dual-encoder');
  assert.equal(kv!.value, 'dual-encoder');
});

test('a PDF: compound words keep their hyphen at line breaks, hyphenated words are joined', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const lines = [
    'Retrieval with a dual-',
    'encoder model is fast. The infor-',
    'mation we store stays small, and the',
    'encoder runs once for each document.',
  ];
  lines.forEach((t, i) => page.drawText(t, { x: 72, y: 700 - i * 13, size: 10, font }));
  const more = ['We built a state-of-the-', 'art index after long re-', 'search on end-to-', 'end systems with COVID-', '19 data.'];
  more.forEach((t, i) => page.drawText(t, { x: 72, y: 620 - i * 13, size: 10, font }));
  const p = path.join(tmp, 'hyphens.pdf');
  fs.writeFileSync(p, await doc.save());
  const parsed = await reader.read({ path: p, name: 'hyphens.pdf', format: 'pdf', size: fs.statSync(p).size, documentId: 'h' }, { ocr: { enabled: false, language: 'eng' } });
  const t = parsed.text;
  assert.ok(t.includes('Retrieval with a dual-encoder model is fast. The information we store stays small, and the encoder runs once for each document.'), t);
  assert.ok(t.includes('We built a state-of-the-art index after long research on end-to-end systems with COVID-19 data.'), t);
  assert.ok(!t.includes('\uffff') && !parsed.blocks.some((b) => b.text.includes('\uffff')));
  for (const b of parsed.blocks) assert.equal(t.slice(b.span.start, b.span.end), b.text);
});

test('eachWord gives the words and compound parts the pattern of letters, digits and hyphens gives', () => {
  const regexWords = (s: string) => {
    const out: string[] = [];
    for (const [w] of s.matchAll(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu)) {
      out.push(w);
      if (w.includes('-')) out.push(...w.split('-'));
    }
    return out;
  };
  const scanned = (s: string) => {
    const out: string[] = [];
    eachWord(s, (w) => out.push(w));
    return out;
  };
  // letters and digits of several scripts and planes, hyphens, marks, surrogates alone and paired
  const alphabet = ['a', 'Z', '7', '-', '-', ' ', '.', "'", 'é', 'ß', 'ǅ', 'Ⅻ', '٣', '中', 'ж', '\u0301', '\u00ad', '\u2010', '𝐀', '😀', '\ud800', '\udc00', '\u2028', '_'];
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  for (let k = 0; k < 3000; k++) {
    let s = '';
    for (let i = rand(24); i > 0; i--) s += alphabet[rand(alphabet.length)];
    assert.deepEqual(scanned(s), regexWords(s), JSON.stringify(s));
  }
  assert.deepEqual(scanned('state-of-the-art end- to -end a--b -x- 𝐀𝐁-c'), regexWords('state-of-the-art end- to -end a--b -x- 𝐀𝐁-c'));
});
