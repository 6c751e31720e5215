// What the split pipeline calls (pdfRanges): no pdf-lib here, so that the service does not load pdf-lib (a
// third of a second of CPU at every start) for the isolate that copies the pages (pdf-worker.ts, pdf.ts).
import { runIsolated, siblingModule } from '@quire/core';

/**
 * Page ranges of a PDF as PDFs of their own, copied in an isolate with a heap and a time limit (pdf-worker.ts).
 * Null when pdf-lib cannot read the file at all (the caller keeps the whole file); running out of time or
 * memory is a permanent failure (UNPROCESSABLE).
 */
export async function pdfRanges(bytes: Uint8Array, ranges: { from: number; to: number; title?: string }[], limits: { timeoutMs: number; heapMb: number; signal?: AbortSignal }): Promise<{ files: Uint8Array[] } | { unreadable: string }> {
  return runIsolated(siblingModule(import.meta.url, 'pdf-worker'), { bytes, ranges }, { heapMb: limits.heapMb, timeoutMs: limits.timeoutMs, label: 'The PDF to split', signal: limits.signal });
}
