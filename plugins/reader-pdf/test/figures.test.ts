import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import type { ParsedDocument } from '@quire/core';
import { chunkDocument } from '@quire/plugin-chunker-default';
import { pdfReader } from './make-reader.js';
import { AFTER_FIGURE, FIGURE_CAPTION, FIGURE_COLUMNS, FIGURE_LABELS, PICTURE_LABELS, figurePdf } from '../../../test/helpers/layout-pdfs.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-figures-'));
const reader = pdfReader({ workers: 1 }, { shared: { 'limits.parseTimeoutMs': 60_000 } });
after(async () => {
  await reader.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A picture: a sky over a field, with a sun (any image will do: what counts is where it is drawn). */
function picture(): Uint8Array {
  const c = createCanvas(400, 300);
  const g = c.getContext('2d');
  g.fillStyle = '#9cc8f0';
  g.fillRect(0, 0, 400, 180);
  g.fillStyle = '#6a9a4a';
  g.fillRect(0, 180, 400, 120);
  g.fillStyle = '#f0d040';
  g.beginPath();
  g.arc(300, 70, 30, 0, Math.PI * 2);
  g.fill();
  return c.toBuffer('image/png');
}

async function read(bytes: Uint8Array): Promise<ParsedDocument> {
  const p = path.join(tmp, `figures-${Math.random().toString(36).slice(2)}.pdf`);
  fs.writeFileSync(p, bytes);
  return reader.read({ path: p, name: path.basename(p), format: 'pdf', size: bytes.length, documentId: 'doc-1' }, { ocr: { enabled: false, language: 'eng' } });
}
const doc = await read(await figurePdf(picture()));
const chunks = chunkDocument(doc, { max_chunk_size: 4000 }).map((c) => c.content).join('\n');
const show = () => doc.blocks.map((b) => `${b.page} ${b.type}: ${b.text}`).join('\n');

test('the labels drawn inside a captioned figure are figure blocks: kept in the document, left out of the chunks', () => {
  for (const label of FIGURE_LABELS) {
    const b = doc.blocks.find((x) => x.page === 1 && x.text.includes(label));
    assert.ok(b, `${label}\n${show()}`);
    assert.equal(b.type, 'figure', `${label}\n${show()}`);
    assert.ok(b.bbox, label);
    assert.ok(!chunks.includes(label), `${label} in the chunks:\n${chunks}`);
  }
  assert.match(doc.text, /Parser worker pool/);
  for (const b of doc.blocks) assert.equal(doc.text.slice(b.span.start, b.span.end), b.text);
  // the caption is running text
  assert.ok(doc.blocks.some((b) => b.type === 'caption' && b.text === FIGURE_CAPTION), show());
  assert.ok(chunks.includes(FIGURE_CAPTION), chunks);
});

test('two columns around a figure read column by column, the paragraph under the figure after them, unbroken by its labels', () => {
  const paragraphs = [...FIGURE_COLUMNS.flat(), AFTER_FIGURE].map((lines) => lines.join(' '));
  let at = -1;
  for (const p of paragraphs) {
    const i = chunks.indexOf(p);
    assert.ok(i > at, `"${p}" out of order or missing:\n${chunks}`);
    at = i;
  }
  // the running text of the page's blocks, figures aside, is the same order; the figure's text comes after it
  const page1 = doc.blocks.filter((b) => b.page === 1);
  const firstFigure = page1.findIndex((b) => b.type === 'figure');
  assert.ok(page1.slice(firstFigure).every((b) => b.type === 'figure'), show());
  // a sentence that opens with "Figure 1 shows" is no caption
  assert.ok(doc.blocks.some((b) => b.type === 'paragraph' && b.text.startsWith('Figure 1 shows the path')), show());
});

test('labels printed over a picture are figure text; a heading on a banner image and a framed note without a caption stay running text', () => {
  for (const label of PICTURE_LABELS) {
    const b = doc.blocks.find((x) => x.page === 2 && x.text.includes(label));
    assert.equal(b?.type, 'figure', `${label}\n${show()}`);
    assert.ok(!chunks.includes(label), chunks);
  }
  const heading = doc.blocks.find((b) => b.page === 2 && b.text === '2 Field measurements');
  assert.ok(heading && heading.type !== 'figure', show());
  assert.ok(chunks.includes('2 Field measurements'), chunks);
  const note = doc.blocks.filter((b) => b.page === 2 && /readings are taken at noon|Calibrate both sensors/.test(b.text));
  assert.ok(note.length && note.every((b) => b.type !== 'figure'), show());
  assert.match(chunks, /Note: readings are taken at noon\.\s+Calibrate both sensors first\./);
  // the prose beside the picture is whole
  for (const para of FIGURE_COLUMNS[0]!) assert.ok(chunks.split(para.join(' ')).length >= 3, `${para.join(' ')}\n${chunks}`);
});
