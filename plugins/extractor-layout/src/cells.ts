/** Table helpers: header rows and the spans of cells in doc.text. */
import type { Block, Span, Table } from '@quire/core';
import { headerRowCount, tableGrid } from '@quire/core';

export { headerRowCount };

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ').trim();

/**
 * Spans of a table's cells in doc.text. Table blocks hold the markdown rendering (core's tableToMarkdown);
 * when the block text is exactly that, offsets are computed; otherwise each cell text is searched in order.
 */
export function cellSpansOf(text: string, block: Block, table: Table): Map<string, Span> {
  const spans = new Map<string, Span>();
  const grid = tableGrid(table);
  const blockText = text.slice(block.span.start, block.span.end);
  const lines: string[] = [];
  grid.forEach((row, r) => {
    lines.push(`| ${row.map(mdCell).join(' | ')} |`);
    if (r === 0) lines.push(`| ${row.map(() => '---').join(' | ')} |`);
  });
  if (lines.join('\n') === blockText) {
    let off = block.span.start;
    lines.forEach((line, li) => {
      if (li === 1) {
        off += line.length + 1;
        return;
      }
      const r = li === 0 ? 0 : li - 1;
      let col = off + 2;
      grid[r]!.forEach((cell, c) => {
        const t = mdCell(cell);
        spans.set(`${r},${c}`, { start: col, end: col + t.length });
        col += t.length + 3;
      });
      off += line.length + 1;
    });
    return spans;
  }
  let cursor = block.span.start;
  for (let r = 0; r < grid.length; r++) {
    for (let c = 0; c < grid[r]!.length; c++) {
      const t = mdCell(grid[r]![c]!);
      if (!t) continue;
      const at = text.indexOf(t, cursor);
      if (at < 0 || at >= block.span.end) continue;
      spans.set(`${r},${c}`, { start: at, end: at + t.length });
      cursor = at + t.length;
    }
  }
  return spans;
}
