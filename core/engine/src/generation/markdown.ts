/**
 * Markdown (what a handlebars template or an LLM writes) → the generated-document model. Parsing is
 * CommonMark with GFM tables (mdast-util-from-markdown), so headings, lists and tables of a template become
 * real structure in every format (a docx heading, a docx table), never text that looks like one.
 * Inline formatting (strong, emphasis, inline code, links) becomes the text's inlines, and a line break
 * inside a paragraph, hard or soft, stays a line break: a template's "Supplier: …" and "Total: …" lines are
 * lines in every format, never one run-on line.
 * Citation markers "[n]" in a paragraph or list item (at its end or inside it) become its citations.
 */
import type { fromMarkdown as FromMarkdown } from 'mdast-util-from-markdown';
import type { gfmTableFromMarkdown as GfmTableFromMarkdown } from 'mdast-util-gfm-table';
import type { gfmTable as GfmTable } from 'micromark-extension-gfm-table';
import { lazy, safeHref } from '@quire/core';
import type { GeneratedBlock, GeneratedInline, GeneratedText } from '@quire/core';

// the parser is loaded at the first markdown to read (a generation), not with the service
const parser = lazy<{ fromMarkdown: typeof FromMarkdown }>(import.meta.url, 'mdast-util-from-markdown');
const tableSyntax = lazy<{ gfmTable: typeof GfmTable }>(import.meta.url, 'micromark-extension-gfm-table');
const tableTree = lazy<{ gfmTableFromMarkdown: typeof GfmTableFromMarkdown }>(import.meta.url, 'mdast-util-gfm-table');

interface MdNode {
  type: string;
  value?: string;
  depth?: number;
  ordered?: boolean | null;
  lang?: string | null;
  url?: string;
  children?: MdNode[];
}

type Style = Omit<GeneratedInline, 'text'>;

/** The runs of a node's phrasing content, adjacent runs of the same style merged. */
function inlinesOfNode(n: MdNode, style: Style = {}, out: GeneratedInline[] = []): GeneratedInline[] {
  const push = (text: string, st: Style) => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last && !!last.bold === !!st.bold && !!last.italic === !!st.italic && !!last.code === !!st.code && last.href === st.href) last.text += text;
    else out.push({ text, ...st });
  };
  switch (n.type) {
    case 'text':
      push(n.value ?? '', style);
      break;
    case 'inlineCode':
      push(n.value ?? '', { ...style, code: true });
      break;
    case 'break':
      push('\n', style);
      break;
    case 'image':
      break;
    case 'html':
      push((n.value ?? '').replace(/<[^>]*>/g, ''), style);
      break;
    case 'strong':
      for (const c of n.children ?? []) inlinesOfNode(c, { ...style, bold: true }, out);
      break;
    case 'emphasis':
      for (const c of n.children ?? []) inlinesOfNode(c, { ...style, italic: true }, out);
      break;
    case 'link': {
      const href = safeHref(n.url);
      for (const c of n.children ?? []) inlinesOfNode(c, href ? { ...style, href } : style, out);
      break;
    }
    default:
      if (typeof n.value === 'string') push(n.value, style);
      else for (const c of n.children ?? []) inlinesOfNode(c, style, out);
  }
  return out;
}

const styled = (r: GeneratedInline) => !!(r.bold || r.italic || r.code || r.href);

/**
 * A text from runs: trailing spaces before a line break dropped, the ends trimmed, and (`cites`) its "[n]"
 * markers taken off as citations, wherever they are. Plain runs give a plain text (no inlines).
 */
function textOfRuns(runs: GeneratedInline[], cites: boolean): GeneratedText {
  let rs = runs.map((r) => ({ ...r, text: r.code ? r.text : r.text.replace(/[ \t]+\n/g, '\n') }));
  const numbers: number[] = [];
  if (cites) {
    rs = rs.map((r) => {
      if (r.code) return r;
      for (const m of r.text.matchAll(/\[(\d{1,3})\]/g)) numbers.push(Number(m[1]));
      return { ...r, text: r.text.replace(/[ \t]*\[\d{1,3}\]/g, '').replace(/[ \t]+([.,;:!?])/g, '$1') };
    });
  }
  rs = rs.filter((r) => r.text);
  if (rs.length) {
    rs[0] = { ...rs[0]!, text: rs[0]!.text.replace(/^\s+/, '') };
    const l = rs.length - 1;
    rs[l] = { ...rs[l]!, text: rs[l]!.text.replace(/\s+$/, '') };
    rs = rs.filter((r) => r.text);
  }
  const text = rs.map((r) => r.text).join('');
  const out: GeneratedText = rs.some(styled) ? { text, inlines: rs } : { text };
  return numbers.length ? { ...out, citations: [...new Set(numbers)] } : out;
}

/** The runs of several nodes (the paragraphs of a list item or quote), `sep` between them. */
function runsOf(nodes: MdNode[], sep: string): GeneratedInline[] {
  const out: GeneratedInline[] = [];
  nodes.forEach((c, i) => {
    if (i) out.push({ text: sep });
    if (c.type === 'list') out.push({ text: textOf(c) });
    else inlinesOfNode(c, {}, out);
  });
  return out;
}

/** Plain text of a node: its text, inline code and the text of its links and emphasis; breaks as newlines. */
function textOf(n: MdNode): string {
  if (n.type === 'break') return '\n';
  if (n.type === 'image') return '';
  if (typeof n.value === 'string' && n.type !== 'html') return n.value;
  if (n.type === 'html') return (n.value ?? '').replace(/<[^>]*>/g, '');
  return (n.children ?? []).map(textOf).join('');
}

function block(n: MdNode, cites: boolean, out: GeneratedBlock[]): void {
  switch (n.type) {
    case 'heading':
      out.push({ type: 'heading', level: Math.min(6, Math.max(1, n.depth ?? 2)) as 1 | 2 | 3 | 4 | 5 | 6, ...textOfRuns(inlinesOfNode(n), false) });
      return;
    case 'paragraph':
    case 'html': {
      const t = textOfRuns(inlinesOfNode(n), cites);
      if (t.text) out.push({ type: 'paragraph', ...t });
      return;
    }
    case 'blockquote':
      out.push({ type: 'quote', ...textOfRuns(runsOf(n.children ?? [], '\n\n'), cites) });
      return;
    case 'list':
      out.push({ type: 'list', ordered: !!n.ordered, items: (n.children ?? []).map((item) => textOfRuns(runsOf(item.children ?? [], ' '), cites)) });
      return;
    case 'table': {
      const cells = (n.children ?? []).map((r) => (r.children ?? []).map((c) => textOfRuns(inlinesOfNode(c), false)));
      const rows = cells.map((r) => r.map((c) => c.text));
      const formatted = cells.some((r) => r.some((c) => c.inlines));
      out.push({ type: 'table', header: rows[0] ?? [], rows: rows.slice(1), ...(formatted ? { cellInlines: cells.map((r) => r.map((c) => c.inlines ?? null)) } : {}) });
      return;
    }
    case 'code':
      out.push({ type: 'code', text: n.value ?? '', ...(n.lang ? { language: n.lang } : {}) });
      return;
    case 'thematicBreak':
      out.push({ type: 'rule' });
      return;
    default:
      // definitions, footnotes and the like: their text, if any, as a paragraph
      if (n.children?.length) {
        const t = textOf(n).trim();
        if (t) out.push({ type: 'paragraph', text: t });
      }
  }
}

/**
 * The blocks of a markdown text, and its title: the first level-1 heading when the text starts with one
 * (it becomes the document's title instead of a block). `cites`: read "[n]" markers as citations.
 */
export function markdownToBlocks(markdown: string, opts: { cites?: boolean } = {}): { title: string | null; blocks: GeneratedBlock[] } {
  const tree = parser().fromMarkdown(markdown, { extensions: [tableSyntax().gfmTable()], mdastExtensions: [tableTree().gfmTableFromMarkdown()] }) as unknown as MdNode;
  const nodes = tree.children ?? [];
  let title: string | null = null;
  const first = nodes[0];
  if (first?.type === 'heading' && first.depth === 1) {
    title = textOf(first).trim() || null;
    nodes.shift();
  }
  const blocks: GeneratedBlock[] = [];
  for (const n of nodes) block(n, !!opts.cites, blocks);
  return { title, blocks };
}
