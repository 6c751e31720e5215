/**
 * docx: mammoth converts the body to HTML with a style map (headings, title, captions, page breaks,
 * checkboxes), the HTML walker turns it into blocks. Headers/footers, page size and core properties come
 * straight from the package parts (mammoth does not read them).
 */
import mammoth from 'mammoth';
import { unzipSync, zipSync, strFromU8, strToU8 } from 'fflate';
import { XMLParser } from 'fast-xml-parser';
import { DocumentBuilder } from '@quire/core';
import type { ParsedDocument } from '@quire/core';
import { HtmlWalker } from './html-walker.js';
import { PagedSink } from './sink.js';
import { NOMINAL_PAGE, checkAbort, describeFailure, isCfb, raceSignal } from './util.js';
import { errors } from '@quire/core';

const PAGE_BREAK = 'quire-page-break';
const CAPTION = 'quire-caption';

const STYLE_MAP = [
  "p[style-name='Title'] => h1.title:fresh",
  "p[style-name='Subtitle'] => h2.subtitle:fresh",
  `p[style-name='Caption'] => p.${CAPTION}:fresh`,
  `p[style-name='caption'] => p.${CAPTION}:fresh`,
  `p[style-name='Table Caption'] => p.${CAPTION}:fresh`,
  `p[style-name='Figure Caption'] => p.${CAPTION}:fresh`,
  "p[style-name='Quote'] => blockquote > p:fresh",
  "p[style-name='Intense Quote'] => blockquote > p:fresh",
  `br[type='page'] => hr.${PAGE_BREAK}`,
];

export interface DocxRead {
  bytes: Uint8Array;
  id: string;
  name: string;
  format: string;
  signal?: AbortSignal;
  maxPages?: number;
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, processEntities: true, htmlEntities: false });

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return ENTITY[e.toLowerCase()] ?? m;
  });
}

/** Paragraph texts of a WordprocessingML part (w:p → concatenated w:t, tabs as spaces). */
export function wordParagraphs(part: string): string[] {
  const out: string[] = [];
  for (const p of part.match(/<w:p[ >][\s\S]*?<\/w:p>/g) ?? []) {
    let text = '';
    for (const m of p.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:tab\/>|<w:br\/>/g)) {
      if (m[1] !== undefined) text += decodeXml(m[1]);
      else text += m[0] === '<w:br/>' ? '\n' : ' ';
    }
    text = text.replace(/[ \t]+/g, ' ').trim();
    if (text) out.push(text);
  }
  return out;
}

/**
 * Paragraphs with a direct outline level (what LibreOffice writes for RTF \\outlinelevel, and what Word shows in
 * its navigation pane) but no heading style get the HeadingN style, so mammoth maps them to <hN>.
 * Returns the repacked package, or null when nothing changed.
 */
function promoteOutlineLevels(bytes: Uint8Array, documentXml: string): Uint8Array | null {
  if (!/<w:outlineLvl w:val="[0-5]"\/>/.test(documentXml)) return null;
  let changed = false;
  const xmlOut = documentXml.replace(/<w:pPr>([\s\S]*?)<\/w:pPr>/g, (whole, inner: string) => {
    const lvl = /<w:outlineLvl w:val="([0-5])"\/>/.exec(inner);
    if (!lvl) return whole;
    const style = /<w:pStyle w:val="([^"]*)"\/>/.exec(inner);
    if (style && /heading|title|toc/i.test(style[1]!)) return whole;
    changed = true;
    const heading = `<w:pStyle w:val="Heading${Number(lvl[1]) + 1}"/>`;
    return `<w:pPr>${style ? inner.replace(style[0], heading) : heading + inner}</w:pPr>`;
  });
  if (!changed) return null;
  const files = unzipSync(bytes);
  files['word/document.xml'] = strToU8(xmlOut);
  return zipSync(files, { level: 1 });
}

interface PackageFacts {
  /** the package to convert (with outline levels promoted to heading styles) */
  bytes: Uint8Array;
  width: number;
  height: number;
  headers: string[];
  footers: string[];
  metadata: ParsedDocument['metadata'];
}

function packageFacts(bytes: Uint8Array): PackageFacts {
  const facts: PackageFacts = { bytes, ...NOMINAL_PAGE, headers: [], footers: [], metadata: {} };
  const files = unzipSync(bytes, {
    filter: (f) => f.name === 'word/document.xml' || f.name === 'docProps/core.xml' || /^word\/(header|footer)\d*\.xml$/.test(f.name),
  });
  const doc = files['word/document.xml'];
  if (!doc) throw new Error('word/document.xml is missing: not a Word document');
  // page size of the first section (twips → points)
  const docXml = strFromU8(doc);
  facts.bytes = promoteOutlineLevels(bytes, docXml) ?? bytes;
  const pg = /<w:pgSz\b([^>]*)\/?>/.exec(docXml);
  if (pg) {
    const w = /w:w="(\d+)"/.exec(pg[1]!);
    const h = /w:h="(\d+)"/.exec(pg[1]!);
    if (w && h) {
      facts.width = Number(w[1]) / 20;
      facts.height = Number(h[1]) / 20;
    }
  }
  const seen = new Set<string>();
  const names = Object.keys(files).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  for (const name of names) {
    const m = /^word\/(header|footer)\d*\.xml$/.exec(name);
    if (!m) continue;
    // page numbers alone ("2", "Page 3") are layout, not content
    const text = wordParagraphs(strFromU8(files[name]!)).filter((t) => !/^(page\s*)?\d+(\s*(of|\/)\s*\d+)?$/i.test(t)).join('\n');
    if (!text || seen.has(`${m[1]}:${text}`)) continue;
    seen.add(`${m[1]}:${text}`);
    (m[1] === 'header' ? facts.headers : facts.footers).push(text);
  }
  const core = files['docProps/core.xml'];
  if (core) {
    try {
      const props = xml.parse(strFromU8(core))?.coreProperties ?? {};
      const str = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'object' && v && '#text' in v ? String((v as Record<string, unknown>)['#text']).trim() : undefined);
      const title = str(props.title);
      const author = str(props.creator);
      const created = str(props.created);
      if (title) facts.metadata.title = title;
      if (author) facts.metadata.author = author;
      if (created) facts.metadata.creationDate = created;
    } catch {
      // properties are optional
    }
  }
  return facts;
}

/** Reads a docx into a ParsedDocument. Throws PROCESSING_ERROR with a reason for broken files. */
export async function readDocx(input: DocxRead): Promise<ParsedDocument> {
  const { bytes, signal } = input;
  const label = input.format;
  if (isCfb(bytes)) throw errors.processing(`${label} could not be read: the file is password-protected (encrypted)`);
  let facts: PackageFacts;
  try {
    facts = packageFacts(bytes);
  } catch (e) {
    throw errors.processing(`${label} could not be read: ${describeFailure(e, bytes, true)}`);
  }
  checkAbort(signal);
  let html: string;
  try {
    const result = await raceSignal(
      mammoth.convertToHtml(
        { buffer: Buffer.from(facts.bytes.buffer, facts.bytes.byteOffset, facts.bytes.byteLength) },
        {
          styleMap: STYLE_MAP,
          ignoreEmptyParagraphs: true,
          // images are not read at all (no base64 data URIs); only their alt text survives
          convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
        },
      ),
      signal,
    );
    html = result.value;
  } catch (e) {
    if (signal?.aborted) throw e;
    throw errors.processing(`${label} could not be read: ${describeFailure(e, bytes, true)}`);
  }
  checkAbort(signal);
  const builder = new DocumentBuilder(input.id, input.name, input.format);
  builder.metadata = facts.metadata;
  const sink = new PagedSink(builder, { width: facts.width, height: facts.height }, input.maxPages);
  for (const h of facts.headers) sink.block({ type: 'header', text: h });
  new HtmlWalker(sink, { pageBreakClass: PAGE_BREAK, captionClass: CAPTION, checkAbort: () => checkAbort(signal) }).walkHtml(html);
  sink.stopped = false;
  for (const f of facts.footers) sink.block({ type: 'footer', text: f });
  return builder.build();
}
