import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentBuilder, bodyText, isAsideBlock } from '@quire/core';

const box = { x: 72, y: 72, width: 300, height: 12 };

test('the running text leaves out running heads, footers and the text inside figures, and keeps the rest in order', () => {
  const b = new DocumentBuilder('d', 'paper.pdf', 'pdf');
  b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addPage({ number: 2, width: 612, height: 792, ocr: false, confidence: 1 });
  b.addBlock({ type: 'header', text: 'Federal Register / Vol. 85', page: 1, bbox: box, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'The pipeline has four stages.', page: 1, bbox: box, confidence: 1 });
  b.addBlock({ type: 'caption', text: 'Figure 1: The stages', page: 1, bbox: box, confidence: 1 });
  b.addBlock({ type: 'footer', text: 'Page 1 of 2', page: 1, bbox: box, confidence: 1 });
  b.addBlock({ type: 'figure', text: 'Upload queue', page: 1, bbox: box, confidence: 1 });
  b.addBlock({ type: 'header', text: 'Federal Register / Vol. 85', page: 2, bbox: box, confidence: 1 });
  b.addBlock({ type: 'paragraph', text: 'A stage that fails is retried.', page: 2, bbox: box, confidence: 1 });
  const doc = b.build();
  assert.match(doc.text, /Upload queue/);
  assert.equal(bodyText(doc), 'The pipeline has four stages.\n\nFigure 1: The stages\n\nA stage that fails is retried.');
  assert.deepEqual(doc.blocks.filter(isAsideBlock).map((x) => x.type), ['header', 'footer', 'figure', 'header']);
  // nothing but furniture: the whole text is read
  const only = new DocumentBuilder('e', 'cover.pdf', 'pdf');
  only.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
  only.addBlock({ type: 'figure', text: 'Sensor north', page: 1, bbox: box, confidence: 1 });
  assert.equal(bodyText(only.build()), 'Sensor north');
});
