/**
 * Filling blanks of flat pages: the value is drawn inside the blank's box, sized to fit, in the requested
 * colour. PDFs through pdf-lib (the Unicode font embedded); images through @napi-rs/canvas at the image's
 * own resolution (the layout's page size maps onto the pixels), written back in the image's format.
 */
import { GlobalFonts, createCanvas, loadImage } from '@napi-rs/canvas';
import { rgb } from 'pdf-lib';
import type { PDFDocument } from 'pdf-lib';
import type { EditFillValue, EditLayout } from '@quire/core';
import { DEFAULT_FONT, embedFont, parseColor } from './acroform.js';
import { formatValue } from './format.js';

const MIN_SIZE = 5;

/** The largest size (≤ 12 pt, ≤ 75% of the box height) at which `width(text, size)` fits the box. */
function fitSize(text: string, box: { width: number; height: number }, width: (t: string, s: number) => number): number {
  let size = Math.min(12, Math.max(MIN_SIZE, box.height * 0.75));
  while (size > MIN_SIZE && width(text, size) > box.width - 4) size -= 0.5;
  return size;
}

/**
 * The ring of a flat radio's chosen option (its mark is drawn there); undefined for other elements, null when
 * the value names none of its options.
 */
function ringOf(el: EditFillValue['element'], value: unknown): { x: number; y: number; width: number; height: number } | null | undefined {
  if (el.type !== 'radio' || !el.option_boxes?.length || !el.options) return undefined;
  const k = el.options.indexOf(String(value));
  return k >= 0 ? el.option_boxes[k] ?? null : null;
}

export async function drawOnPdf(doc: PDFDocument, values: EditFillValue[], opts: { color?: string; fontPath?: string; raw?: Set<string> }): Promise<{ warnings: string[]; applied: { id: string; value: string }[] }> {
  const { font, unicode } = await embedFont(doc, opts.fontPath);
  const [cr, cg, cb] = parseColor(opts.color) ?? [0, 0, 0];
  const warnings: string[] = [];
  const applied: { id: string; value: string }[] = [];
  const pages = doc.getPages();
  for (const { element: el, value } of values) {
    const page = pages[el.page - 1];
    if (!page) {
      warnings.push(`${el.label || el.id}: page ${el.page} is not in the document`);
      continue;
    }
    const fmt = formatValue(el, value, opts.raw?.has(el.id));
    if (fmt.warning) warnings.push(fmt.warning);
    const ring = ringOf(el, fmt.value);
    if (ring === null) {
      warnings.push(`${el.label || el.id}: "${String(fmt.value)}" is not one of ${(el.options ?? []).join(', ')}`);
      continue;
    }
    if (ring) {
      // a flat radio: a filled dot in the middle of the option's ring
      const mb = page.getMediaBox();
      page.drawCircle({ x: mb.x + ring.x + ring.width / 2, y: mb.y + page.getHeight() - (ring.y + ring.height / 2), size: Math.min(ring.width, ring.height) * 0.28, color: rgb(cr, cg, cb) });
      applied.push({ id: el.id, value: String(fmt.value) });
      continue;
    }
    let t = el.type === 'checkbox' ? (fmt.value === true ? (unicode ? '✓' : 'X') : '') : Array.isArray(fmt.value) ? fmt.value.join(', ') : String(fmt.value);
    if (!t) {
      applied.push({ id: el.id, value: String(fmt.value) });
      continue;
    }
    if (!unicode) t = t.replace(/[^\u0000-\u00ff]/g, '?');
    const mb = page.getMediaBox();
    const yBottom = mb.y + page.getHeight() - (el.bbox.y + el.bbox.height);
    if (el.comb && el.max_length && el.type !== 'checkbox') {
      // one character centred in each cell of the comb
      const cell = el.bbox.width / el.max_length;
      const chars = [...t].slice(0, el.max_length);
      const size = Math.min(12, el.bbox.height * 0.7, ...chars.map((c) => fitSize(c, { width: cell + 2, height: el.bbox.height }, (s, z) => font.widthOfTextAtSize(s, z))));
      chars.forEach((c, k) => page.drawText(c, { x: mb.x + el.bbox.x + cell * k + (cell - font.widthOfTextAtSize(c, size)) / 2, y: yBottom + (el.bbox.height - size) / 2 + size * 0.22, size, font, color: rgb(cr, cg, cb) }));
      applied.push({ id: el.id, value: chars.join('') });
      continue;
    }
    const size = fitSize(t, el.bbox, (s, z) => font.widthOfTextAtSize(s, z));
    const x = el.type === 'checkbox' ? mb.x + el.bbox.x + (el.bbox.width - font.widthOfTextAtSize(t, size)) / 2 : mb.x + el.bbox.x + 2;
    page.drawText(t, { x, y: yBottom + (el.bbox.height - size) / 2 + size * 0.22, size, font, color: rgb(cr, cg, cb) });
    applied.push({ id: el.id, value: el.type === 'checkbox' ? String(fmt.value) : t });
  }
  return { warnings, applied };
}

let fontFamily: string | null | undefined;
function canvasFont(path = DEFAULT_FONT): string {
  if (fontFamily === undefined) fontFamily = GlobalFonts.registerFromPath(path, 'QuireEditSans') ? 'QuireEditSans' : null;
  return fontFamily ? `"${fontFamily}"` : 'sans-serif';
}

/** Draws the values onto an image; `layout` gives the page size the boxes are in. */
export async function drawOnImage(bytes: Buffer, format: string, values: EditFillValue[], layout: EditLayout | undefined, opts: { color?: string; fontPath?: string; raw?: Set<string> }): Promise<{ bytes: Buffer; mime: string; warnings: string[]; applied: { id: string; value: string }[] }> {
  const img = await loadImage(bytes);
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const page = layout?.pages[0];
  const sx = page ? img.width / page.width : 1;
  const sy = page ? img.height / page.height : 1;
  // pixels per point: an image's layout is in pixels, its size in points guessed from a letter or A4 width
  const ptPx = Math.max(1, (page?.width ?? img.width) / 612) * sx;
  const family = canvasFont(opts.fontPath);
  const c = parseColor(opts.color) ?? [0, 0, 0];
  ctx.fillStyle = `rgb(${c.map((v) => Math.round(v * 255)).join(',')})`;
  ctx.textBaseline = 'middle';
  const warnings: string[] = [];
  const applied: { id: string; value: string }[] = [];
  for (const { element: el, value } of values) {
    const fmt = formatValue(el, value, opts.raw?.has(el.id));
    if (fmt.warning) warnings.push(fmt.warning);
    const ring = ringOf(el, fmt.value);
    if (ring === null) {
      warnings.push(`${el.label || el.id}: "${String(fmt.value)}" is not one of ${(el.options ?? []).join(', ')}`);
      continue;
    }
    if (ring) {
      ctx.beginPath();
      ctx.arc((ring.x + ring.width / 2) * sx, (ring.y + ring.height / 2) * sy, Math.min(ring.width * sx, ring.height * sy) * 0.28, 0, 2 * Math.PI);
      ctx.fill();
      applied.push({ id: el.id, value: String(fmt.value) });
      continue;
    }
    const t = el.type === 'checkbox' ? (fmt.value === true ? '✓' : '') : Array.isArray(fmt.value) ? fmt.value.join(', ') : String(fmt.value);
    applied.push({ id: el.id, value: el.type === 'checkbox' ? String(fmt.value) : t });
    if (!t) continue;
    const box = { x: el.bbox.x * sx, y: el.bbox.y * sy, width: el.bbox.width * sx, height: el.bbox.height * sy };
    if (el.type === 'checkbox') {
      // a cross of two strokes over the square's middle: plain ink that a re-reading of the square sees
      const m = Math.min(box.width, box.height) * 0.2;
      ctx.strokeStyle = ctx.fillStyle;
      ctx.lineWidth = Math.max(2, Math.min(box.width, box.height) / 8);
      ctx.beginPath();
      ctx.moveTo(box.x + m, box.y + m);
      ctx.lineTo(box.x + box.width - m, box.y + box.height - m);
      ctx.moveTo(box.x + box.width - m, box.y + m);
      ctx.lineTo(box.x + m, box.y + box.height - m);
      ctx.stroke();
      continue;
    }
    if (el.comb && el.max_length) {
      // one character centred in each cell of the comb
      const cell = box.width / el.max_length;
      const px = Math.max(MIN_SIZE, Math.min(box.height * 0.7, 12 * ptPx, cell * 1.2));
      ctx.font = `${px}px ${family}`;
      [...t].slice(0, el.max_length).forEach((c, k) => ctx.fillText(c, box.x + cell * k + (cell - ctx.measureText(c).width) / 2, box.y + box.height / 2));
      continue;
    }
    // 12 pt at the page's scale at most, 75% of the box height, smaller until it fits the box
    let px = Math.max(MIN_SIZE, Math.min(box.height * 0.75, 12 * ptPx));
    ctx.font = `${px}px ${family}`;
    const pad = Math.max(2 * ptPx, box.height * 0.2);
    while (px > MIN_SIZE && ctx.measureText(t).width > box.width - 2 * pad) {
      px = Math.max(MIN_SIZE, px - 0.5);
      ctx.font = `${px}px ${family}`;
    }
    ctx.fillText(t, box.x + pad, box.y + box.height / 2);
  }
  const jpeg = format === 'jpg' || format === 'jpeg';
  const out = jpeg ? await canvas.encode('jpeg', 95) : await canvas.encode('png');
  return { bytes: out, mime: jpeg ? 'image/jpeg' : 'image/png', warnings, applied };
}

/** A box of an image (layout units) cut out on a white margin, as PNG: what OCR of one filled box reads. */
export async function cropImage(bytes: Buffer, layout: EditLayout | undefined, bbox: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
  const img = await loadImage(bytes);
  const page = layout?.pages[0];
  const sx = page ? img.width / page.width : 1;
  const sy = page ? img.height / page.height : 1;
  // inside the frame: a few pixels in from the box's edges, so its lines are not read as letters
  const inset = Math.max(3, Math.round(bbox.height * sy * 0.08));
  const x = Math.max(0, Math.round(bbox.x * sx) + inset), y = Math.max(0, Math.round(bbox.y * sy) + inset);
  const w = Math.max(1, Math.min(img.width - x, Math.round(bbox.width * sx) - 2 * inset)), h = Math.max(1, Math.min(img.height - y, Math.round(bbox.height * sy) - 2 * inset));
  const margin = Math.max(10, Math.round(h / 2));
  const canvas = createCanvas(w + 2 * margin, h + 2 * margin);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(img, x, y, w, h, margin, margin, w, h);
  return canvas.encode('png');
}
