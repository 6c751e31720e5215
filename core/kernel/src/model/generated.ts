/**
 * The generated-document model: what the engine's generation service builds (from a template, an
 * extraction, documents, a report or a summary) and what every `generator` plugin writes out in its format
 * (html, markdown, docx, pdf, or a third party's). Structure is blocks; a text is plain (`text`) and, when it
 * has inline formatting (bold, italic, code, links) or line breaks that matter, also carries its `inlines`,
 * which every writer renders (a "\n" in a text is a line break in every format).
 * Claims point at sources through `citations` numbers, which the writers show as [n] markers and as a
 * "Sources" list at the end (sourcesSection), so a reader can check every statement against a chunk.
 */

/** One source a generated document cites: a chunk of a document the user owns (or an extraction's evidence). */
export interface GeneratedCitation {
  /** 1-based number, as shown in the text ([n]) */
  n: number;
  document_id: string | null;
  document_name: string;
  /** the chunk the passage comes from (null when the source is a whole document or an extraction value without a chunk) */
  chunk_id: string | null;
  page: number | null;
  /** the cited passage, as in the source (shortened) */
  quote?: string;
}

/**
 * A run of inline text with its formatting. "\n" inside `text` is a line break. `href` makes the run a
 * link (http, https or mailto only: the engine drops any other scheme).
 */
export interface GeneratedInline {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  href?: string;
}

/** A piece of text with the citations that support it. */
export interface GeneratedText {
  /** the plain text (the inlines' texts joined, when there are inlines) */
  text: string;
  /** the text as formatted runs; absent when the text is plain */
  inlines?: GeneratedInline[];
  /** numbers of GeneratedDocumentModel.citations */
  citations?: number[];
}

/** The runs of a text: its inlines, or its plain text as one run. */
export function inlinesOf(t: Pick<GeneratedText, 'text' | 'inlines'>): GeneratedInline[] {
  return t.inlines?.length ? t.inlines : [{ text: t.text }];
}

/**
 * The formatted runs of a table cell, or undefined for a plain one. `row` counts the header row first when
 * the table has one (cellInlines is [header, ...rows]).
 */
export function cellInlinesOf(t: { header: string[]; cellInlines?: (GeneratedInline[] | null)[][] }, row: number, col: number): GeneratedInline[] | undefined {
  return t.cellInlines?.[row]?.[col] ?? undefined;
}

/** Whether a link target is one a generated document may carry (http, https, mailto). */
export function safeHref(href: string | null | undefined): string | null {
  const h = (href ?? '').trim();
  return /^(?:https?:\/\/|mailto:)[^\s<>"]+$/i.test(h) ? h : null;
}

export type GeneratedBlock =
  | { type: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; text: string; inlines?: GeneratedInline[] }
  | ({ type: 'paragraph' } & GeneratedText)
  | ({ type: 'quote' } & GeneratedText)
  | { type: 'list'; ordered: boolean; items: GeneratedText[] }
  | {
      type: 'table';
      header: string[];
      rows: string[][];
      caption?: string;
      /** the formatted runs of the cells that have formatting, row by row ([header, ...rows]); null for a plain cell */
      cellInlines?: (GeneratedInline[] | null)[][];
    }
  | { type: 'code'; text: string; language?: string }
  | { type: 'rule' };

export interface GeneratedDocumentModel {
  title: string;
  blocks: GeneratedBlock[];
  citations: GeneratedCitation[];
  /** language tag of the text (html lang, docx language), default 'en' */
  language?: string;
}

/** Bounds every writer may rely on (the engine checks a model against them before formatting). */
export const GENERATED_LIMITS = Object.freeze({ blocks: 20_000, tableRows: 10_000, tableCols: 64, textChars: 5_000_000 });

/** Text of a citation in the Sources list: `name, page p (chunk id): "quote"`. */
export function citationLabel(c: GeneratedCitation): string {
  const where = [c.document_name, c.page ? `page ${c.page}` : ''].filter(Boolean).join(', ');
  const chunk = c.chunk_id ? ` (chunk ${c.chunk_id})` : '';
  const quote = c.quote ? `: “${c.quote}”` : '';
  return `${where}${chunk}${quote}`;
}

/**
 * The blocks of the "Sources" section every writer appends when the document cites something: a heading
 * and a numbered list in citation order (so [n] in the text is item n).
 */
export function sourcesSection(model: GeneratedDocumentModel): GeneratedBlock[] {
  if (!model.citations.length) return [];
  const sorted = [...model.citations].sort((a, b) => a.n - b.n);
  return [
    { type: 'heading', level: 2, text: 'Sources' },
    { type: 'list', ordered: true, items: sorted.map((c) => ({ text: citationLabel(c) })) },
  ];
}

/** Citation markers of a piece of text, e.g. "[1][3]" (empty without citations). */
export function citationMarkers(citations: number[] | undefined): string {
  return (citations ?? []).map((n) => `[${n}]`).join('');
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Screen and print styles of the html writer (and of the pdf, which prints that html). No external resources. */
export const GENERATED_CSS = `
:root{color-scheme:light}
body{font-family:"DejaVu Sans","Helvetica Neue",Arial,sans-serif;font-size:11pt;line-height:1.45;color:#1a1a1a;max-width:46em;margin:2em auto;padding:0 1em}
h1{font-size:20pt;margin:0 0 .6em}h2{font-size:15pt;margin:1.4em 0 .5em}h3{font-size:12.5pt;margin:1.2em 0 .4em}h4,h5,h6{font-size:11pt;margin:1em 0 .3em}
p{margin:.5em 0}blockquote{margin:.6em 0;padding:.1em 1em;border-left:3px solid #bbb;color:#333}
table{border-collapse:collapse;width:100%;margin:.8em 0;font-size:10pt}caption{text-align:left;font-weight:bold;margin-bottom:.3em}
th,td{border:1px solid #999;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}th{background:#eee}
code{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.92em;background:#f3f3f3;padding:0 .15em}pre code{background:none;padding:0}
pre{background:#f5f5f5;padding:.6em;overflow-x:auto;font-size:9.5pt;white-space:pre-wrap}
sup.cite{font-size:.7em;color:#555}sup.cite a{color:inherit;text-decoration:none}
section.sources{font-size:9.5pt;color:#333;border-top:1px solid #ccc;margin-top:2em}
@page{size:A4;margin:18mm 16mm}
@media print{body{max-width:none;margin:0;padding:0}a{color:inherit;text-decoration:underline}a[href^="http"]:not(.bare)::after,a[href^="mailto:"]:not(.bare)::after{content:" (" attr(href) ")";text-decoration:none}h1,h2,h3,h4{break-after:avoid;page-break-after:avoid}tr,blockquote,pre{break-inside:avoid;page-break-inside:avoid}thead{display:table-header-group}}
`.trim();

/** Escaped text with its line breaks as <br>. */
const htmlLines = (s: string) => escapeHtml(s).replace(/\r?\n/g, '<br>');

/** A text's inlines as html: strong, em, code, links (in print their target follows them). */
function inlineHtml(t: Pick<GeneratedText, 'text' | 'inlines'>): string {
  return inlinesOf(t)
    .map((r) => {
      let h = r.code ? `<code>${htmlLines(r.text)}</code>` : htmlLines(r.text);
      if (r.italic) h = `<em>${h}</em>`;
      if (r.bold) h = `<strong>${h}</strong>`;
      const href = safeHref(r.href);
      if (href) h = `<a href="${escapeHtml(href)}"${href.replace(/^mailto:/i, '') === r.text.trim() ? ' class="bare"' : ''}>${h}</a>`;
      return h;
    })
    .join('');
}

function citeHtml(citations: number[] | undefined): string {
  return (citations ?? []).map((n) => `<sup class="cite"><a href="#source-${n}">[${n}]</a></sup>`).join('');
}

function blockHtml(b: GeneratedBlock, sources = false): string {
  switch (b.type) {
    case 'heading':
      return `<h${b.level}>${inlineHtml(b)}</h${b.level}>`;
    case 'paragraph':
      return `<p>${inlineHtml(b)}${citeHtml(b.citations)}</p>`;
    case 'quote':
      return `<blockquote><p>${inlineHtml(b)}${citeHtml(b.citations)}</p></blockquote>`;
    case 'list': {
      const tag = b.ordered ? 'ol' : 'ul';
      const items = b.items.map((it, i) => `<li${sources ? ` id="source-${i + 1}"` : ''}>${inlineHtml(it)}${citeHtml(it.citations)}</li>`).join('\n');
      return `<${tag}>\n${items}\n</${tag}>`;
    }
    case 'table': {
      const caption = b.caption ? `<caption>${escapeHtml(b.caption)}</caption>` : '';
      const cell = (text: string, row: number, col: number) => inlineHtml({ text, inlines: cellInlinesOf(b, row, col) });
      const head = b.header.length ? `<thead><tr>${b.header.map((h, j) => `<th>${cell(h, 0, j)}</th>`).join('')}</tr></thead>` : '';
      const off = b.header.length ? 1 : 0;
      const body = b.rows.map((r, i) => `<tr>${r.map((c, j) => `<td>${cell(c, i + off, j)}</td>`).join('')}</tr>`).join('\n');
      return `<table>${caption}${head}<tbody>\n${body}\n</tbody></table>`;
    }
    case 'code':
      return `<pre><code${b.language ? ` class="language-${escapeHtml(b.language)}"` : ''}>${escapeHtml(b.text)}</code></pre>`;
    case 'rule':
      return '<hr>';
  }
}

/**
 * The model as one self-contained html page: inline styles with print rules, no scripts, no external
 * resources. Deterministic (no dates), so a template's output can be compared with a golden file.
 */
export function renderGeneratedHtml(model: GeneratedDocumentModel): string {
  const lang = escapeHtml(model.language ?? 'en');
  const body = model.blocks.map((b) => blockHtml(b)).join('\n');
  const src = sourcesSection(model);
  const sources = src.length ? `\n<section class="sources">\n${blockHtml(src[0]!)}\n${blockHtml(src[1]!, true)}\n</section>` : '';
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Quire">
<title>${escapeHtml(model.title)}</title>
<style>
${GENERATED_CSS}
</style>
</head>
<body>
<article>
<h1>${escapeHtml(model.title)}</h1>
${body}${sources}
</article>
</body>
</html>
`;
}
