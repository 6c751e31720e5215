/**
 * A page range of a parsed document as a parsed document of its own (pages renumbered from 1): what a child
 * document of a split holds. Its text is the parent's text of those pages, character for character.
 */
import type { Block, ParsedDocument } from '@quire/core';

export function sliceParsed(doc: ParsedDocument, from: number, to: number, meta: { id: string; name: string; format: string }): ParsedDocument {
  const shift = from - 1;
  const inRange = (page: number) => page >= from && page <= to;
  const tableMap = new Map<number, number>();
  const tables = doc.tables.flatMap((t, i) => {
    if (!inRange(t.page)) return [];
    tableMap.set(i, tableMap.size);
    return [{ ...t, page: t.page - shift }];
  });
  const picked = doc.blocks.filter((b) => inRange(b.page));
  // the parent's text from the first to the last block of the range, when the range is one stretch of it
  // (reading order runs page by page); else the blocks' texts joined as a reader joins them
  const contiguous = picked.length > 0 && doc.blocks.filter((b) => b.span.start >= picked[0]!.span.start && b.span.end <= picked[picked.length - 1]!.span.end).every((b) => inRange(b.page));
  let text = '';
  const blocks: Block[] = [];
  if (contiguous) {
    const base = picked[0]!.span.start;
    text = doc.text.slice(base, picked[picked.length - 1]!.span.end);
    for (const b of picked) blocks.push(moved(b, shift, b.span.start - base, tableMap));
  } else {
    for (const b of picked) {
      if (text) text += '\n\n';
      const start = text.length;
      text += doc.text.slice(b.span.start, b.span.end);
      blocks.push({ ...moved(b, shift, start, tableMap), span: { start, end: text.length } });
    }
  }
  return {
    id: meta.id,
    name: meta.name,
    format: meta.format,
    pages: doc.pages.filter((p) => inRange(p.number)).map((p) => ({ ...p, number: p.number - shift })),
    blocks,
    tables,
    text,
    metadata: { ...doc.metadata, split_from: doc.id, page_offset: shift },
    issues: doc.issues.filter((i) => i.page === undefined || inRange(i.page)).map((i) => (i.page === undefined ? i : { ...i, page: i.page - shift })),
  };
}

function moved(b: Block, shift: number, start: number, tableMap: Map<number, number>): Block {
  const out: Block = { ...b, page: b.page - shift, span: { start, end: start + (b.span.end - b.span.start) } };
  if (b.tableIndex !== undefined) {
    const t = tableMap.get(b.tableIndex);
    if (t === undefined) delete out.tableIndex;
    else out.tableIndex = t;
  }
  return out;
}
