/**
 * Copies page ranges of a PDF into PDFs of their own (pdf.ts) in an isolate of its own (core's runIsolated: a
 * child process with a heap limit and a time limit): pdf-lib's parser follows whatever object graph the file
 * declares, so the parent is never loaded on the API's event loop.
 */
import { serveIsolated } from '@quire/core/isolate';
import { loadPdf, pdfPages } from './pdf.js';

export interface SplitPdfRequest {
  bytes: Uint8Array;
  ranges: { from: number; to: number; title?: string }[];
}

serveIsolated(async (req: SplitPdfRequest) => {
  let doc;
  try {
    doc = await loadPdf(req.bytes);
  } catch (e) {
    // a file pdf-lib cannot read at all: the caller keeps the whole file for each child
    return { unreadable: (e as Error).message };
  }
  const out: Uint8Array[] = [];
  for (const r of req.ranges) out.push(await pdfPages(doc, r.from, r.to, r.title));
  return { files: out };
});
