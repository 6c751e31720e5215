import { renderTable, tableToHtml, tableToJson, tableToMarkdown } from '@quire/core';
import type { BBox, ParsedDocument } from '@quire/core';
import { round } from '@quire/text';

/**
 * Markdown of a parsed document: headings, lists, key-values, tables, paragraphs in reading order. Page
 * furniture and the text inside figures are left out (the JSON keeps them), as the chunks leave them out.
 */
export function toMarkdown(doc: ParsedDocument): string {
  const out: string[] = [];
  for (const b of doc.blocks) {
    switch (b.type) {
      case 'heading':
        out.push(`${'#'.repeat(Math.min(6, Math.max(1, b.level ?? 2)))} ${b.text.replace(/\s+/g, ' ')}`);
        break;
      case 'list_item':
        out.push(/^([-*•·]|\d+[.)])\s/.test(b.text) ? b.text.replace(/^[•·]\s*/, '- ') : `- ${b.text}`);
        break;
      case 'key_value':
        out.push(b.key !== undefined ? `**${b.key.trim()}**: ${(b.value ?? '').trim()}` : b.text);
        break;
      case 'table':
        out.push(b.tableIndex !== undefined && doc.tables[b.tableIndex] ? tableToMarkdown(doc.tables[b.tableIndex]!) : b.text);
        break;
      case 'header':
      case 'footer':
      case 'figure':
        break;
      case 'caption':
        out.push(`*${b.text}*`);
        break;
      default:
        out.push(b.text);
    }
  }
  return out.join('\n\n') + '\n';
}

export function confidenceLabel(c: number): string {
  return c >= 0.9 ? 'high' : c >= 0.6 ? 'medium' : 'low';
}

export function legacyBox(page: number, b: BBox | null) {
  return b ? { page, left: round(b.x), top: round(b.y), width: round(b.width), height: round(b.height) } : { page, left: 0, top: 0, width: 0, height: 0 };
}

/** spec §4.2 /api/pdf-to-json pages and tables. */
export function toJsonShape(doc: ParsedDocument) {
  const pages = doc.pages.map((p) => ({
    pageNumber: p.number,
    blocks: doc.blocks
      .filter((b) => b.page === p.number)
      .map((b) => ({
        type: b.type,
        content: b.text,
        bbox: legacyBox(b.page, b.bbox),
        confidence: confidenceLabel(b.confidence),
        metadata: { score: round(b.confidence, 3), ...(b.level ? { level: b.level } : {}), ...(b.key !== undefined ? { key: b.key, value: b.value } : {}), ...(b.tableIndex !== undefined ? { table_index: b.tableIndex } : {}) },
      })),
  }));
  const tables = doc.tables.map((t) => ({
    type: 'Table',
    content: renderTable(t, 'markdown'),
    bbox: legacyBox(t.page, t.bbox),
    confidence: confidenceLabel(t.confidence),
    metadata: { rows: t.rows, columns: t.cols, page: t.page, formats: { markdown: tableToMarkdown(t), html: tableToHtml(t), json: tableToJson(t) } },
  }));
  return { pages, tables };
}
