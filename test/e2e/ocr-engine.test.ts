// QUIRE_OCR_ENGINE=ppocr: images are read over HTTP by the PP-OCR plugin (in the reader isolate, on its thread).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCanvas } from '@napi-rs/canvas';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer({ env: { QUIRE_OCR_ENGINE: 'ppocr' } });
});
after(async () => {
  await s?.close();
});

function page(): Buffer {
  const c = createCanvas(1000, 360);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.font = '40px DejaVu Sans';
  g.fillText('DELIVERY NOTE 4471', 60, 90);
  g.fillText('Boxes shipped', 60, 190);
  g.fillText('12', 880, 190);
  g.fillText('Received by Marta', 60, 290);
  return c.toBuffer('image/png');
}

test('with QUIRE_OCR_ENGINE=ppocr the ocr plugin is PP-OCR and an image is read by it', async () => {
  const ready = await s.json('/readyz');
  assert.ok(ready.body.plugins.some((p: { plugin: string; ok: boolean }) => p.plugin === 'ocr:ppocr' && p.ok), JSON.stringify(ready.body.plugins));
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('note.png', page(), {}, 'image/png') });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const content = await s.json(`/v1/documents/${up.body.id}/content`);
  const text = String(content.body.text ?? '');
  // in order; spaces aside (the model sometimes leaves one out)
  assert.match(text.replace(/\s+/g, ''), /DELIVERYNOTE4471.*Boxesshipped12.*ReceivedbyMarta/s, JSON.stringify(text));
});
