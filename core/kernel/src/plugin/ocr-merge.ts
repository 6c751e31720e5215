import { DocumentBuilder } from '../model/builder.js';
import type { Block, DocIssue, ParsedDocument } from '../model/content.js';
import { AGENTIC_KEY, OCR_PENDING_KEY } from './kinds.js';
import type { AgenticOcrReport } from './kinds.js';

/**
 * The stored document of a deferred read (`ocr.defer`) with the pages a reader OCRed afterwards
 * (ReaderPlugin.ocrPages) merged in: each OCRed page replaces the stored page of its number (its size,
 * confidence, OCR words) and its blocks and tables take that page's place in the reading order, between the
 * blocks of the pages before and after it. The other pages keep their blocks, tables, word boxes and the
 * separators between their blocks as they were read; the text and every span are rebuilt. Issues of both
 * are kept, the OCR engines named by both are listed, `ocrPending` is dropped, the OCR's `agentic` report
 * is kept and so is what else its metadata says that the stored one does not.
 */
export function mergeOcrPages(stored: ParsedDocument, ocred: ParsedDocument): ParsedDocument {
  const byNumber = new Map(ocred.pages.map((p) => [p.number, p] as const));
  const builder = new DocumentBuilder(stored.id, stored.name, stored.format);
  const { [OCR_PENDING_KEY]: _pending, ...metadata } = stored.metadata as Record<string, unknown>;
  const engines = new Set(
    [metadata.ocrEngine, ocred.metadata.ocrEngine]
      .filter((e): e is string => typeof e === 'string' && !!e)
      .flatMap((e) => e.split(','))
      .filter(Boolean),
  );
  if (engines.size) metadata.ocrEngine = [...engines].sort().join(',');
  const agentic = ocred.metadata[AGENTIC_KEY] as AgenticOcrReport | undefined;
  if (agentic) metadata[AGENTIC_KEY] = agentic;
  // what the OCR learnt of the document that the deferred read did not say (an image enlarged for OCR: ocrUpscale)
  for (const [k, v] of Object.entries(ocred.metadata)) if (!(k in metadata) && k !== OCR_PENDING_KEY) metadata[k] = v;
  builder.metadata = metadata as ParsedDocument['metadata'];
  for (const p of stored.pages) builder.addPage(byNumber.get(p.number) ?? p);

  /** appends a block of `doc` (a table block with its table) after `separator` */
  const add = (doc: ParsedDocument, b: Block, separator: string) => {
    if (b.type === 'table' && b.tableIndex !== undefined && doc.tables[b.tableIndex]) {
      builder.addTable(doc.tables[b.tableIndex]!);
      return;
    }
    const { span: _span, tableIndex: _t, ...input } = b;
    builder.addBlock(input, separator);
  };
  /** the blocks of `doc` on page `page`, each after the separator it had in `doc` (a page begins after a blank line) */
  const addPage = (doc: ParsedDocument, blocks: Block[]) => {
    let prev: Block | null = null;
    for (const b of blocks) {
      add(doc, b, prev ? doc.text.slice(prev.span.end, b.span.start) || '\n\n' : '\n\n');
      prev = b;
    }
  };
  const ocredBlocks = new Map<number, Block[]>();
  for (const b of ocred.blocks) {
    if (!byNumber.has(b.page)) continue;
    const list = ocredBlocks.get(b.page) ?? [];
    list.push(b);
    ocredBlocks.set(b.page, list);
  }
  const pending = [...ocredBlocks.keys()].sort((a, b) => a - b);
  const flushUpTo = (page: number) => {
    while (pending.length && pending[0]! <= page) addPage(ocred, ocredBlocks.get(pending.shift()!)!);
  };
  let prev: Block | null = null;
  for (const b of stored.blocks) {
    // a page that was OCRed is the OCR's: whatever the deferred read had of it goes
    if (byNumber.has(b.page)) continue;
    if (pending.length && pending[0]! <= b.page) {
      flushUpTo(b.page);
      prev = null;
    }
    add(stored, b, prev ? stored.text.slice(prev.span.end, b.span.start) || '\n\n' : '\n\n');
    prev = b;
  }
  flushUpTo(Infinity);
  const issues: DocIssue[] = [...stored.issues, ...ocred.issues];
  for (const i of issues) builder.issue(i);
  return builder.build();
}
