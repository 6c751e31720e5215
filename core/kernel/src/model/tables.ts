import type { Table, TableCell } from './content.js';

/**
 * Cell text grid (rows x cols). A merged cell's text fills every position it covers, as a reader of the
 * markdown or JSON would see it on the page (the HTML rendering keeps the spans instead).
 */
export function tableGrid(table: Table): string[][] {
  const grid: string[][] = Array.from({ length: table.rows }, () => Array.from({ length: table.cols }, () => ''));
  for (const c of table.cells) {
    for (let r = c.row; r < Math.min(table.rows, c.row + Math.max(1, c.rowSpan)); r++) {
      for (let k = c.col; k < Math.min(table.cols, c.col + Math.max(1, c.colSpan)); k++) grid[r]![k] = c.text;
    }
  }
  return grid;
}

/** Leading rows whose cells are all header cells. */
export function headerRowCount(table: Table): number {
  let n = 0;
  for (let r = 0; r < table.rows; r++) {
    const cells = table.cells.filter((c) => c.row === r);
    if (cells.length && cells.every((c) => c.header)) n++;
    else break;
  }
  return n;
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ').trim();

/** GitHub-flavoured markdown. The first row is the header row (markdown needs one). */
export function tableToMarkdown(table: Table): string {
  const grid = tableGrid(table);
  if (!grid.length) return '';
  const lines: string[] = [];
  const [head, ...body] = grid;
  lines.push(`| ${head!.map(mdCell).join(' | ')} |`);
  lines.push(`| ${head!.map(() => '---').join(' | ')} |`);
  for (const row of body) lines.push(`| ${row.map(mdCell).join(' | ')} |`);
  return lines.join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** HTML with rowspan/colspan for merged cells and <th> for header cells; a caption as the table's `<caption>`. */
export function tableToHtml(table: Table, caption?: string): string {
  const byRow = new Map<number, TableCell[]>();
  for (const c of table.cells) {
    const list = byRow.get(c.row) ?? [];
    list.push(c);
    byRow.set(c.row, list);
  }
  const heads = headerRowCount(table);
  const rows: string[] = [];
  for (let r = 0; r < table.rows; r++) {
    const cells = (byRow.get(r) ?? []).sort((a, b) => a.col - b.col);
    const tds = cells.map((c) => {
      const tag = c.header || r < heads ? 'th' : 'td';
      const span = `${c.rowSpan > 1 ? ` rowspan="${c.rowSpan}"` : ''}${c.colSpan > 1 ? ` colspan="${c.colSpan}"` : ''}`;
      return `<${tag}${span}>${esc(c.text)}</${tag}>`;
    });
    rows.push(`<tr>${tds.join('')}</tr>`);
  }
  return `<table>${caption ? `<caption>${esc(caption)}</caption>` : ''}${rows.join('')}</table>`;
}

/** JSON: header names and rows as objects when there is a header row, else arrays. */
export function tableToJson(table: Table): { headers: string[]; rows: (Record<string, string> | string[])[]; cells: TableCell[] } {
  const grid = tableGrid(table);
  const heads = Math.max(1, headerRowCount(table));
  const headers = grid.length ? grid[heads - 1]!.map((h, i) => h.trim() || `column_${i + 1}`) : [];
  const unique = headers.map((h, i) => (headers.indexOf(h) === i ? h : `${h}_${i + 1}`));
  const rows = grid.slice(heads).map((row) => Object.fromEntries(unique.map((h, i) => [h, row[i] ?? ''])));
  return { headers: unique, rows, cells: table.cells };
}

export function renderTable(table: Table, format: 'markdown' | 'html' | 'json', caption?: string): string {
  if (format === 'html') return tableToHtml(table, caption);
  if (format === 'json') return JSON.stringify(caption ? { caption, ...tableToJson(table) } : tableToJson(table));
  return caption ? `${caption}\n\n${tableToMarkdown(table)}` : tableToMarkdown(table);
}
