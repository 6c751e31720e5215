/**
 * The `editor` plugin for PDFs and images. AcroForm PDFs: fields read and set with pdf-lib. Flat PDFs and
 * images: blanks found in the parsed layout (words of the text layer or of OCR, which the engine passes
 * in), values drawn into their boxes. The original file is only read; fill returns new bytes.
 */
import fs from 'node:fs/promises';
import { definePlugin, errors, z } from '@quire/core';
import type { EditorPlugin } from '@quire/core';
import { detectFields, fillFields, loadPdf, readFieldValues, unicodeFont } from './acroform.js';
import { detectBlanks } from './blanks.js';
import { pageGeometry } from './geometry.js';
import type { PageGeometry } from './geometry.js';
import { cropImage, drawOnImage, drawOnPdf } from './draw.js';

export { formatDate, formatValue, truthy } from './format.js';
export { detectBlanks } from './blanks.js';
export { nearestLabel, refineTextType, humanName } from './labels.js';

const IMAGE_FORMATS = ['png', 'jpg', 'jpeg'];
/** pages of a flat PDF whose drawn geometry is read at most (each is rendered once) */
const MAX_GEOMETRY_PAGES = 50;

export interface EditorOptions {
  /** TrueType font embedded to draw values (any script it covers shows) */
  fontPath?: string;
  /** largest file read, bytes */
  maxBytes: number;
}

export function createEditor(o: EditorOptions): EditorPlugin {
  const read = async (path: string) => {
    const st = await fs.stat(path);
    if (st.size > o.maxBytes) throw errors.tooLarge(o.maxBytes);
    return fs.readFile(path);
  };
  return {
    formats: ['pdf', ...IMAGE_FORMATS],
    async detect(path, opts) {
      if (opts.format === 'pdf') {
        const doc = await loadPdf(await read(path));
        const fields = detectFields(doc, opts);
        if (fields.length) return fields;
      }
      if (!opts.layout) return [];
      // the drawn geometry of flat pages: an image is its own page 1; a PDF page is drawn by the host
      const geometry = new Map<number, PageGeometry>();
      if (IMAGE_FORMATS.includes(opts.format)) {
        const p = opts.layout.pages[0];
        // an image's layout is in pixels: its scale in points is guessed from a letter or A4 page's width
        const unit = p ? Math.max(1, p.width / 612) : 1;
        const g = p ? await pageGeometry(await read(path), p.width, p.height, unit) : null;
        if (g && p) geometry.set(p.number, { ...g, unit });
      } else if (opts.format === 'pdf' && opts.renderPage) {
        for (const p of opts.layout.pages.slice(0, MAX_GEOMETRY_PAGES)) {
          opts.signal?.throwIfAborted();
          const png = await opts.renderPage(p.number).catch(() => null);
          const g = png ? await pageGeometry(png, p.width, p.height) : null;
          if (g) geometry.set(p.number, g);
        }
      }
      return detectBlanks(opts.layout, opts, geometry);
    },
    async fill(path, values, opts) {
      const bytes = await read(path);
      const raw = new Set<string>();
      if (opts.format === 'pdf') {
        const doc = await loadPdf(bytes);
        const fields = values.filter((v) => v.element.source === 'acroform');
        const blanks = values.filter((v) => v.element.source !== 'acroform');
        const a = fields.length ? await fillFields(doc, fields, { flatten: opts.flatten, color: opts.color, fontPath: o.fontPath, raw }) : { warnings: [], applied: [] };
        const b = blanks.length ? await drawOnPdf(doc, blanks, { color: opts.color, fontPath: o.fontPath, raw }) : { warnings: [], applied: [] };
        if (!fields.length && opts.flatten) {
          try {
            doc.getForm().flatten();
          } catch {
            /* no form */
          }
        }
        const out = await doc.save({ updateFieldAppearances: false });
        return { bytes: Buffer.from(out), mime: 'application/pdf', warnings: [...a.warnings, ...b.warnings], applied: [...a.applied, ...b.applied] };
      }
      if (IMAGE_FORMATS.includes(opts.format)) return drawOnImage(bytes, opts.format, values, opts.layout, { color: opts.color, fontPath: o.fontPath, raw });
      throw errors.unsupported(`Editing supports PDF and image files, not ${opts.format}`);
    },
    async cropImage(path, opts) {
      if (!IMAGE_FORMATS.includes(opts.format)) throw errors.unsupported(`Boxes are cut out of images only, not ${opts.format}`);
      return cropImage(await read(path), opts.layout, opts.bbox);
    },
    async readValues(path, opts) {
      if (opts.format !== 'pdf') return {};
      return readFieldValues(await loadPdf(await read(path)));
    },
    async health() {
      return unicodeFont(o.fontPath) ? { ok: true } : { ok: true, message: `Unicode font ${o.fontPath ?? 'DejaVu Sans'} not found: values outside Latin-1 are drawn in Helvetica and may not show` };
    },
  };
}

export default definePlugin({
  kind: 'editor',
  name: 'pdf',
  core: '^1',
  description: 'Detects and fills forms: AcroForm fields of PDFs through pdf-lib, blanks of flat PDFs and images from the parsed layout.',
  options: z.strictObject({
    fontPath: z.string().min(1).optional(),
    maxBytes: z.number().int().positive().default(100 * 1024 * 1024),
  }),
  create(ctx) {
    return createEditor(ctx.options as EditorOptions);
  },
});
