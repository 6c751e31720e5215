/**
 * Markdown writer: the model as CommonMark (tables as GFM pipe tables, the one table syntax CommonMark
 * readers widely understand). The text is escaped by mdast-util-to-markdown, so a value such as "*5*" or
 * "# 12" stays text and never turns into emphasis or a heading; the text's own formatting (inlines) is
 * written as strong, emphasis, inline code and links, and its line breaks as hard breaks.
 */
import type { toMarkdown as ToMarkdown } from 'mdast-util-to-markdown';
import type { gfmTableToMarkdown as GfmTableToMarkdown } from 'mdast-util-gfm-table';
import { cellInlinesOf, citationMarkers, inlinesOf, lazy, safeHref, sourcesSection } from '@quire/core';
import type { GeneratedBlock, GeneratedDocumentModel, GeneratedText } from '@quire/core';
import type { BlockContent, PhrasingContent, Root, RootContent, TableRow } from 'mdast';

// the writer is loaded at the first markdown written, not with the service that loads this plugin
const writer = lazy<{ toMarkdown: typeof ToMarkdown }>(import.meta.url, 'mdast-util-to-markdown');
const tableWriter = lazy<{ gfmTableToMarkdown: typeof GfmTableToMarkdown }>(import.meta.url, 'mdast-util-gfm-table');

const text = (value: string) => ({ type: 'text' as const, value });
/** A line-broken text as text nodes with hard breaks between its lines. */
const lines = (value: string): PhrasingContent[] => value.split('\n').flatMap((line, i) => [...(i ? [{ type: 'break' as const }] : []), ...(line ? [text(line)] : [])]);

/** A text as phrasing content: strong, emphasis, inline code, links and hard breaks; its citation markers last. */
function phrasing(t: GeneratedText): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const r of inlinesOf(t)) {
    let nodes: PhrasingContent[] = r.code ? r.text.split('\n').flatMap((line, i) => [...(i ? [{ type: 'break' as const }] : []), { type: 'inlineCode' as const, value: line }]) : lines(r.text);
    if (r.italic) nodes = [{ type: 'emphasis', children: nodes }];
    if (r.bold) nodes = [{ type: 'strong', children: nodes }];
    const href = safeHref(r.href);
    if (href) nodes = [{ type: 'link', url: href, children: nodes }];
    out.push(...nodes);
  }
  if (t.citations?.length) out.push(text(` ${citationMarkers(t.citations)}`));
  return out;
}
/** a cell holds one line: line breaks inside a value become spaces */
const oneLine = (t: GeneratedText): GeneratedText => ({ text: t.text.replace(/\s*\n\s*/g, ' '), ...(t.inlines ? { inlines: t.inlines.map((r) => ({ ...r, text: r.text.replace(/\s*\n\s*/g, ' ') })) } : {}) });

function node(b: GeneratedBlock): RootContent {
  switch (b.type) {
    case 'heading':
      return { type: 'heading', depth: b.level, children: phrasing(oneLine(b)) };
    case 'paragraph':
      return { type: 'paragraph', children: phrasing(b) };
    case 'quote':
      return { type: 'blockquote', children: [{ type: 'paragraph', children: phrasing(b) }] };
    case 'list':
      return { type: 'list', ordered: b.ordered, spread: false, children: b.items.map((it) => ({ type: 'listItem', spread: false, children: [{ type: 'paragraph', children: phrasing(it) } as BlockContent] })) };
    case 'table': {
      const cols = Math.max(b.header.length, ...b.rows.map((r) => r.length), 1);
      const pad = (r: string[]) => Array.from({ length: cols }, (_, i) => r[i] ?? '');
      // the table has a header row here (renderMarkdown gives one to a table without): cellInlines is [header, ...rows]
      const rows: TableRow[] = [b.header, ...b.rows].map((r, i) => ({ type: 'tableRow', children: pad(r).map((c, j) => ({ type: 'tableCell' as const, children: phrasing(oneLine({ text: c, inlines: cellInlinesOf(b, i, j) })) })) }));
      return { type: 'table', align: Array.from({ length: cols }, () => null), children: rows };
    }
    case 'code':
      return { type: 'code', lang: b.language ?? null, value: b.text };
    case 'rule':
      return { type: 'thematicBreak' };
  }
}

export function renderMarkdown(model: GeneratedDocumentModel): string {
  const children: RootContent[] = [{ type: 'heading', depth: 1, children: [text(model.title)] }];
  for (const b of [...model.blocks, ...sourcesSection(model)]) {
    // GFM tables need a header row: a table without one gets the columns' numbers
    if (b.type === 'table' && !b.header.length) children.push(node({ ...b, header: (b.rows[0] ?? ['']).map((_, i) => `Column ${i + 1}`), ...(b.cellInlines ? { cellInlines: [[], ...b.cellInlines] } : {}) }));
    else children.push(node(b));
    if (b.type === 'table' && b.caption) children.splice(children.length - 1, 0, { type: 'paragraph', children: [{ type: 'strong', children: [text(b.caption)] }] });
  }
  const root: Root = { type: 'root', children };
  return writer().toMarkdown(root, { extensions: [tableWriter().gfmTableToMarkdown()], bullet: '-', rule: '-', fences: true });
}
