/**
 * The `editor` plugin for PDFs and images. AcroForm PDFs: fields read and set with pdf-lib. Flat PDFs and
 * images: blanks found in the parsed layout (words of the text layer or of OCR, which the engine passes
 * in), values drawn into their boxes. The original file is only read; fill returns new bytes.
 */
import fs from 'node:fs/promises';
import { SHARED_DEFAULTS, definePlugin, errors, runIsolated, siblingModule, z } from '@quire/core';
import type { EditElement, EditorPlugin } from '@quire/core';
import { unicodeFont } from './font.js';
import type { EditorRequest } from './worker.js';

export { formatDate, formatValue, truthy } from './format.js';
export { detectBlanks } from './blanks.js';
export { nearestLabel, refineTextType, humanName } from './labels.js';

const IMAGE_FORMATS = ['png', 'jpg', 'jpeg'];
/** pages of a flat PDF whose drawn geometry is read at most (each is rendered once) */
const MAX_GEOMETRY_PAGES = 50;
/** pages of a flat PDF also read at twice the resolution for small shapes (thin grey squares, rings) */
const MAX_FINE_PAGES = 10;
const FINE_DPI = 288;

export interface EditorOptions {
  /** TrueType font embedded to draw values (any script it covers shows) */
  fontPath?: string;
  /** largest file read, bytes */
  maxBytes: number;
  /** time limit of one step on a file (load, detect, fill, read back), ms; default: the shared parse time limit */
  timeoutMs?: number;
  /** heap limit of the isolate that does it, MB; default: the shared reader heap limit */
  heapMb?: number;
}

export function createEditor(o: EditorOptions): EditorPlugin {
  const size = async (path: string) => {
    const st = await fs.stat(path);
    if (st.size > o.maxBytes) throw errors.tooLarge(o.maxBytes);
  };
  const read = async (path: string) => {
    await size(path);
    return fs.readFile(path);
  };
  // every parse of the file (pdf-lib, image decoding) runs in an isolate with a heap and a time limit:
  // a hostile file costs that process (a 422), never the host's event loop or memory
  const isolated = <T>(req: EditorRequest, signal?: AbortSignal) =>
    runIsolated<T>(siblingModule(import.meta.url, 'worker'), req, { heapMb: o.heapMb ?? SHARED_DEFAULTS['limits.readerHeapMb'], timeoutMs: o.timeoutMs ?? SHARED_DEFAULTS['limits.parseTimeoutMs'], label: 'The file to edit', signal });
  return {
    formats: ['pdf', ...IMAGE_FORMATS],
    async detect(path, opts) {
      if (opts.format === 'pdf') {
        await size(path);
        const fields = await isolated<EditElement[]>({ op: 'fields', path, opts: { layout: opts.layout, include_checkboxes: opts.include_checkboxes, include_signatures: opts.include_signatures } }, opts.signal);
        if (fields.length) return fields;
      }
      if (!opts.layout) return [];
      // the drawn geometry of flat pages: an image is its own page 1; a PDF page is drawn by the host
      const pages: Extract<EditorRequest, { op: 'blanks' }>['pages'] = [];
      if (IMAGE_FORMATS.includes(opts.format)) {
        const p = opts.layout.pages[0];
        // an image's layout is in pixels: its scale in points is guessed from a letter or A4 page's width
        if (p) pages.push({ number: p.number, png: await read(path), width: p.width, height: p.height, unit: Math.max(1, p.width / 612) });
      } else if (opts.format === 'pdf' && opts.renderPage) {
        for (const [k, p] of opts.layout.pages.slice(0, MAX_GEOMETRY_PAGES).entries()) {
          opts.signal?.throwIfAborted();
          const png = await opts.renderPage(p.number).catch(() => null);
          if (!png) continue;
          // the first pages again at 288 dpi: a thin grey square of 7 pt is a line of one light pixel at 144
          const fine = k < MAX_FINE_PAGES ? await opts.renderPage(p.number, FINE_DPI).catch(() => null) : null;
          pages.push({ number: p.number, png, width: p.width, height: p.height, ...(fine ? { fine } : {}) });
        }
      }
      return isolated<EditElement[]>({ op: 'blanks', layout: opts.layout, opts: { include_checkboxes: opts.include_checkboxes, include_signatures: opts.include_signatures }, pages }, opts.signal);
    },
    async fill(path, values, opts) {
      if (opts.format !== 'pdf' && !IMAGE_FORMATS.includes(opts.format)) throw errors.unsupported(`Editing supports PDF and image files, not ${opts.format}`);
      await size(path);
      const r = await isolated<{ bytes: Uint8Array; mime: string; warnings: string[]; applied: { id: string; value: string }[] }>({ op: 'fill', path, format: opts.format, values, flatten: opts.flatten, color: opts.color, layout: opts.layout, fontPath: o.fontPath });
      return { ...r, bytes: Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength) };
    },
    async cropImage(path, opts) {
      if (!IMAGE_FORMATS.includes(opts.format)) throw errors.unsupported(`Boxes are cut out of images only, not ${opts.format}`);
      await size(path);
      const png = await isolated<Uint8Array>({ op: 'crop', path, layout: opts.layout, bbox: opts.bbox });
      return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
    },
    async readValues(path, opts) {
      if (opts.format !== 'pdf') return {};
      await size(path);
      return isolated({ op: 'values', path });
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
    timeoutMs: z.number().int().positive().optional(),
    heapMb: z.number().int().min(64).optional(),
  }),
  shared: ['limits.parseTimeoutMs', 'limits.readerHeapMb'],
  create(ctx) {
    const o = ctx.options as EditorOptions;
    // a context made by hand (a bench, a test) may carry no shared settings: createEditor falls back to their defaults
    return createEditor({ ...o, timeoutMs: o.timeoutMs ?? ctx.shared?.['limits.parseTimeoutMs'], heapMb: o.heapMb ?? ctx.shared?.['limits.readerHeapMb'] });
  },
});
