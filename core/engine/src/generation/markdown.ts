/**
 * Markdown (what a handlebars template or an LLM writes) → the generated-document model. Parsing is
 * CommonMark with GFM tables (mdast-util-from-markdown), so headings, lists and tables of a template become
 * real structure in every format (a docx heading, a docx table), never text that looks like one.
 * Citation markers "[n]" at the end of a paragraph or list item become that block's citations.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import type { GeneratedBlock, GeneratedText } from '@quire/core';

interface MdNode {
  type: string;
  value?: string;
  depth?: number;
  ordered?: boolean | null;
  lang?: string | null;
  children?: MdNode[];
}

/** Plain text of a node: its text, inline code and the text of its links and emphasis; breaks as newlines. */
function textOf(n: MdNode): string {
  if (n.type === 'break') return '\n';
  if (n.type === 'image') return '';
  if (typeof n.value === 'string' && n.type !== 'html') return n.value;
  if (n.type === 'html') return (n.value ?? '').replace(/<[^>]*>/g, '');
  return (n.children ?? []).map(textOf).join('');
}

const MARKERS = /(?:\s*\[(\d{1,3})\])+\s*$/;

/** A text with its trailing "[n]" markers taken off as citations (when `cites` is on). */
function cited(text: string, cites: boolean): GeneratedText {
  const t = text.replace(/[ \t]+\n/g, '\n').trim();
  if (!cites) return { text: t };
  const m = MARKERS.exec(t);
  if (!m) return { text: t };
  const numbers = [...m[0].matchAll(/\[(\d{1,3})\]/g)].map((x) => Number(x[1]));
  return { text: t.slice(0, m.index).trim(), citations: [...new Set(numbers)] };
}

/** Inline citation markers inside a text, anywhere ("… 2024 [1], and … [2]."): all of them, and the text without them. */
export function takeInlineMarkers(text: string): GeneratedText {
  const numbers = [...text.matchAll(/\[(\d{1,3})\]/g)].map((x) => Number(x[1]));
  if (!numbers.length) return { text };
  return { text: text.replace(/\s*\[\d{1,3}\]/g, '').replace(/\s+([.,;:!?])/g, '$1').trim(), citations: [...new Set(numbers)] };
}

function block(n: MdNode, cites: boolean, out: GeneratedBlock[]): void {
  switch (n.type) {
    case 'heading':
      out.push({ type: 'heading', level: Math.min(6, Math.max(1, n.depth ?? 2)) as 1 | 2 | 3 | 4 | 5 | 6, text: textOf(n).trim() });
      return;
    case 'paragraph':
    case 'html': {
      const t = cited(textOf(n), cites);
      if (t.text) out.push({ type: 'paragraph', ...(cites ? takeInline(t) : t) });
      return;
    }
    case 'blockquote':
      out.push({ type: 'quote', ...cited((n.children ?? []).map(textOf).join('\n\n'), cites) });
      return;
    case 'list':
      out.push({ type: 'list', ordered: !!n.ordered, items: (n.children ?? []).map((item) => (cites ? takeInline(cited((item.children ?? []).map(textOf).join(' '), true)) : cited((item.children ?? []).map(textOf).join(' '), false))) });
      return;
    case 'table': {
      const rows = (n.children ?? []).map((r) => (r.children ?? []).map((c) => textOf(c).trim()));
      out.push({ type: 'table', header: rows[0] ?? [], rows: rows.slice(1) });
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

/** Markers both at the end and inside the text (an LLM cites mid-sentence too). */
function takeInline(t: GeneratedText): GeneratedText {
  const inner = takeInlineMarkers(t.text);
  const all = [...new Set([...(inner.citations ?? []), ...(t.citations ?? [])])];
  return all.length ? { text: inner.text, citations: all } : { text: inner.text };
}

/**
 * The blocks of a markdown text, and its title: the first level-1 heading when the text starts with one
 * (it becomes the document's title instead of a block). `cites`: read "[n]" markers as citations.
 */
export function markdownToBlocks(markdown: string, opts: { cites?: boolean } = {}): { title: string | null; blocks: GeneratedBlock[] } {
  const tree = fromMarkdown(markdown, { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] }) as unknown as MdNode;
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
