// Scans made on the fly: printed lines drawn into an image, as a scanner gives them (no text layer).
import { createCanvas } from '@napi-rs/canvas';

/** A page of printed text as a PNG (what a scanner gives). */
export function scannedPng(lines: string[]): Buffer {
  const c = createCanvas(1000, 120 + lines.length * 100);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000';
  g.font = '40px DejaVu Sans';
  lines.forEach((l, i) => g.fillText(l, 60, 90 + i * 100));
  return c.toBuffer('image/png');
}
