/**
 * The editor's work on untrusted files, run in an isolate of its own (core's runIsolated: a child process with
 * a heap limit and a time limit), never on the host's event loop: loading a PDF with pdf-lib (whose parser
 * follows whatever object graph the file declares), reading and setting its fields, drawing values into flat
 * pages and images, and the blanks of flat pages with the drawn geometry of their rendered images. One request per isolate.
 */
import fs from 'node:fs/promises';
import { serveIsolated } from '@quire/core/isolate';
import type { BBox, EditFillValue, EditLayout } from '@quire/core';
import type { DetectOptions } from './acroform.js';
import type { PageGeometry } from './geometry.js';

export type EditorRequest =
  | { op: 'fields'; path: string; opts: DetectOptions }
  /** blanks of flat pages from the layout and the drawn geometry of the rendered pages (a PageGeometry holds a function: it stays here) */
  | { op: 'blanks'; layout: EditLayout; opts: DetectOptions; pages: { number: number; png: Uint8Array; width: number; height: number; unit?: number; /** the page at a higher resolution, for small shapes */ fine?: Uint8Array }[] }
  | { op: 'fill'; path: string; format: string; values: EditFillValue[]; flatten?: boolean; color?: string; layout?: EditLayout; fontPath?: string }
  | { op: 'values'; path: string }
  | { op: 'crop'; path: string; layout?: EditLayout; bbox: BBox };

// each operation loads only the modules it needs (the image library is the largest): the process starts for
// one request, and its start is most of what a small request costs
async function handle(req: EditorRequest): Promise<unknown> {
  const { detectFields, fillFields, loadPdf, readFieldValues } = await import('./acroform.js');
  switch (req.op) {
    case 'fields':
      return detectFields(await loadPdf(await fs.readFile(req.path)), req.opts);
    case 'values':
      return readFieldValues(await loadPdf(await fs.readFile(req.path)));
    case 'blanks': {
      const { detectBlanks } = await import('./blanks.js');
      const { pageGeometry } = await import('./geometry.js');
      const geometry = new Map<number, PageGeometry>();
      for (const p of req.pages) {
        const g = await pageGeometry(Buffer.from(p.png), p.width, p.height, p.unit, p.fine ? Buffer.from(p.fine) : undefined);
        if (g) geometry.set(p.number, p.unit ? { ...g, unit: p.unit } : g);
      }
      return detectBlanks(req.layout, req.opts, geometry);
    }
    case 'crop':
      return (await import('./draw.js')).cropImage(await fs.readFile(req.path), req.layout, req.bbox);
    case 'fill': {
      const { drawOnImage, drawOnPdf } = await import('./draw.js');
      const bytes = await fs.readFile(req.path);
      const raw = new Set<string>();
      if (req.format !== 'pdf') return drawOnImage(bytes, req.format, req.values, req.layout, { color: req.color, fontPath: req.fontPath, raw });
      const doc = await loadPdf(bytes);
      const fields = req.values.filter((v) => v.element.source === 'acroform');
      const blanks = req.values.filter((v) => v.element.source !== 'acroform');
      const a = fields.length ? await fillFields(doc, fields, { flatten: req.flatten, color: req.color, fontPath: req.fontPath, raw }) : { warnings: [], applied: [] };
      const b = blanks.length ? await drawOnPdf(doc, blanks, { color: req.color, fontPath: req.fontPath, raw }) : { warnings: [], applied: [] };
      if (!fields.length && req.flatten) {
        try {
          doc.getForm().flatten();
        } catch {
          /* no form */
        }
      }
      const out = await doc.save({ updateFieldAppearances: false });
      return { bytes: out, mime: 'application/pdf', warnings: [...a.warnings, ...b.warnings], applied: [...a.applied, ...b.applied] };
    }
  }
}

serveIsolated(handle);
