/**
 * docx: mammoth converts the body to HTML with a style map (headings, title, captions, page breaks,
 * checkboxes), the HTML walker turns it into blocks. Headers/footers, page size and core properties come
 * straight from the package parts (mammoth does not read them).
 *
 * Bounded against hostile files: parts are inflated through ZipArchive (ReadLimits.decompressedBytes, one
 * part at most half); XML parts declaring a DTD are refused; the size of the text is measured on the raw XML
 * first and a document longer than ReadLimits.pages (at CHARS_PER_PAGE characters a page, or its explicit
 * page breaks) is refused before any parsing; and mammoth — whose DOM takes about 100 bytes of memory per
 * byte of XML — is given the body in pieces of about CHUNK_BYTES (split between top-level paragraphs and
 * tables, large tables between rows) with only the footnotes and endnotes each piece refers to, so its
 * memory stays bounded whatever the size of the document. A document of one piece converts exactly as a
 * whole; in a longer one, notes follow the piece that refers to them and a table larger than a piece comes
 * out as several tables.
 */
import type mammothModule from 'mammoth';
import { XMLParser } from 'fast-xml-parser';
import { DocumentBuilder, errors, isQuireError, readLimits } from '@quire/core';
import type { ParsedDocument, ReadLimits, ZipArchive } from '@quire/core';
import { XmlScanError, childElements, findElement, mainPartPath, openPackage, partBytes, partText } from '@quire/office';
import type { ElementRange } from '@quire/office';
import { HtmlWalker } from './html-walker.js';
import { PagedSink } from './sink.js';
import { NOMINAL_PAGE, checkAbort, isCfb, raceSignal } from './util.js';

const PAGE_BREAK = 'quire-page-break';
const CAPTION = 'quire-caption';

/** Characters of text counted as one page when estimating the length of a document against ReadLimits.pages. */
export const CHARS_PER_PAGE = 5000;
/** mammoth, loaded at the first docx read rather than with the plugin (a large module every process would load). */
let mammothLoaded: Promise<typeof mammothModule> | null = null;
const loadMammoth = () => (mammothLoaded ??= import('mammoth').then((m) => ((m as { default?: typeof mammothModule }).default ?? (m as unknown as typeof mammothModule))));

/** Target size of one piece of the body given to mammoth. */
export const CHUNK_BYTES = 256 * 1024;
/** Largest single paragraph, table row or set of notes of one piece (mammoth needs ~100× this in memory). */
export const MAX_UNIT_BYTES = 4 * 1024 * 1024;
/** Largest styles, numbering, relationships, header, footer or properties part (each is parsed whole). */
export const MAX_AUX_PART_BYTES = 4 * 1024 * 1024;
/** How often (inflated bytes) the text of the main part is measured while it inflates. */
const MEASURE_EVERY = 8 * 1024 * 1024;

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
  limits?: Partial<ReadLimits>;
  onProgress?: (fraction: number) => void;
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
 */
function promoteOutlineLevels(documentXml: string): string {
  if (!/<w:outlineLvl w:val="[0-5]"\/>/.test(documentXml)) return documentXml;
  return documentXml.replace(/<w:pPr>([\s\S]*?)<\/w:pPr>/g, (whole, inner: string) => {
    const lvl = /<w:outlineLvl w:val="([0-5])"\/>/.exec(inner);
    if (!lvl) return whole;
    const style = /<w:pStyle w:val="([^"]*)"\/>/.exec(inner);
    if (style && /heading|title|toc/i.test(style[1]!)) return whole;
    const heading = `<w:pStyle w:val="Heading${Number(lvl[1]) + 1}"/>`;
    return `<w:pPr>${style ? inner.replace(style[0], heading) : heading + inner}</w:pPr>`;
  });
}

// ---------- measuring the document before parsing it ----------

export interface WordStats {
  /** characters inside w:t elements */
  textChars: number;
  /** explicit page breaks (w:br w:type="page") */
  pageBreaks: number;
  /** page breaks Word recorded when it last laid the document out */
  renderedBreaks: number;
}

function countOf(b: Buffer, needle: string): number {
  let n = 0;
  for (let at = b.indexOf(needle); at >= 0; at = b.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** Text size and page breaks of a WordprocessingML part, from the raw bytes (native searches; no tree). */
export function wordStats(b: Buffer): WordStats {
  let textChars = 0;
  for (let at = b.indexOf('<w:t'); at >= 0; at = b.indexOf('<w:t', at + 4)) {
    const c = b[at + 4];
    if (c !== 0x3e && c !== 0x20) continue; // <w:tab>, <w:tbl>, <w:tc>…
    const gt = b.indexOf(0x3e, at);
    if (gt < 0) break;
    if (b[gt - 1] === 0x2f) continue; // <w:t/>
    const end = b.indexOf(0x3c, gt);
    const stop = end < 0 ? b.length : end;
    for (let i = gt + 1; i < stop; i++) if ((b[i]! & 0xc0) !== 0x80) textChars++;
    at = stop - 4;
  }
  return { textChars, pageBreaks: countOf(b, 'w:type="page"'), renderedBreaks: countOf(b, '<w:lastRenderedPageBreak') };
}

export function estimatedPages(s: WordStats): number {
  return Math.max(1 + s.pageBreaks, 1 + s.renderedBreaks, Math.ceil(s.textChars / CHARS_PER_PAGE));
}

// ---------- the body in pieces ----------

const MB = (n: number) => `${Math.round((n / 1048576) * 10) / 10} MB`;

interface Unit {
  xml: string;
  /** complex fields opened minus closed inside */
  fields: number;
}

/**
 * The top-level content of the body as units of XML text: paragraphs and small tables whole; tables larger
 * than CHUNK_BYTES as several tables of consecutive rows (same properties and grid); content controls and
 * custom XML larger than that unwrapped into their content. Anything larger than MAX_UNIT_BYTES that cannot be
 * split is refused.
 */
function* bodyUnits(b: Buffer, from: number, to: number, label: string): Generator<Unit> {
  let fields = 0;
  const onTag = (buf: Uint8Array, lt: number, gt: number) => {
    // <w:fldChar w:fldCharType="begin|end"/>
    if (buf[lt + 1] !== 0x77 || buf[lt + 3] !== 0x66 || b.toString('latin1', lt + 1, lt + 10) !== 'w:fldChar') return;
    const tag = b.toString('latin1', lt, gt);
    if (/fldCharType="begin"/.test(tag)) fields++;
    else if (/fldCharType="end"/.test(tag)) fields--;
  };
  for (const el of childElements(b, from, to, onTag)) {
    const delta = fields;
    fields = 0;
    const size = el.end - el.start;
    if (size <= CHUNK_BYTES) {
      yield { xml: b.toString('utf8', el.start, el.end), fields: delta };
      continue;
    }
    if (el.name === 'w:tbl') {
      yield* tableUnits(b, el, label);
      yield { xml: '', fields: delta };
      continue;
    }
    if (el.name === 'w:sdt' || el.name === 'w:customXml') {
      const content = el.name === 'w:sdt' ? findElement(b, 'w:sdtContent', el.contentStart, el.contentEnd) : el;
      if (content) {
        yield* bodyUnits(b, content.contentStart, content.contentEnd, label);
        continue;
      }
    }
    if (size > MAX_UNIT_BYTES) throw errors.unprocessable(`${label}: one ${el.name === 'w:p' ? 'paragraph' : 'element'} of the document takes ${MB(size)} of XML, more than the ${MB(MAX_UNIT_BYTES)} that can be read`);
    yield { xml: b.toString('utf8', el.start, el.end), fields: delta };
  }
}

/** A large table as tables of consecutive rows, each with the table's properties and grid. */
function* tableUnits(b: Buffer, table: ElementRange, label: string): Generator<Unit> {
  let head = '';
  let rows: string[] = [];
  let size = 0;
  let sawRow = false;
  const piece = () => {
    const xml = `${head}${rows.join('')}</w:tbl>`;
    rows = [];
    size = 0;
    return { xml, fields: 0 };
  };
  for (const el of childElements(b, table.contentStart, table.contentEnd)) {
    const isRow = el.name === 'w:tr' || el.name === 'w:sdt' || el.name === 'w:customXml';
    if (!sawRow && !isRow) continue;
    if (!sawRow) {
      sawRow = true;
      head = b.toString('utf8', table.start, el.start);
    }
    const rowSize = el.end - el.start;
    if (rowSize > MAX_UNIT_BYTES) throw errors.unprocessable(`${label}: one table row of the document takes ${MB(rowSize)} of XML, more than the ${MB(MAX_UNIT_BYTES)} that can be read`);
    if (size && size + rowSize > CHUNK_BYTES) yield piece();
    rows.push(b.toString('utf8', el.start, el.end));
    size += rowSize;
  }
  if (rows.length) yield piece();
}

/** Pieces of the body of about CHUNK_BYTES, each a complete document part (same root and body start tags). */
function* bodyPieces(b: Buffer, body: ElementRange, label: string): Generator<{ xml: string; end: number }> {
  const prefix = b.toString('utf8', 0, body.contentStart);
  const suffix = b.toString('utf8', body.contentEnd, b.length);
  let parts: string[] = [];
  let size = 0;
  let fields = 0;
  let done = 0;
  for (const unit of bodyUnits(b, body.contentStart, body.contentEnd, label)) {
    parts.push(unit.xml);
    size += unit.xml.length;
    fields += unit.fields;
    // keep complex fields (a table of contents, a hyperlink) in one piece unless that grows too large
    if (size >= CHUNK_BYTES && (fields <= 0 || size >= MAX_UNIT_BYTES)) {
      done += size;
      yield { xml: prefix + parts.join('') + suffix, end: done };
      parts = [];
      size = 0;
      fields = Math.max(0, fields);
    }
  }
  if (parts.length || !done) yield { xml: prefix + parts.join('') + suffix, end: done + size };
}

/** Footnotes or endnotes by id, kept as byte ranges of their part; a piece gets only the ones it refers to. */
class Notes {
  private readonly byId = new Map<string, [number, number]>();
  private readonly prefix: string = '';
  private readonly suffix: string = '';

  constructor(
    private readonly bytes: Buffer | undefined,
    root: string,
    private readonly note: string,
  ) {
    if (!bytes) return;
    const el = findElement(bytes, root);
    if (!el) return;
    this.prefix = bytes.toString('utf8', 0, el.contentStart);
    this.suffix = bytes.toString('utf8', el.contentEnd, bytes.length);
    for (const n of childElements(bytes, el.contentStart, el.contentEnd)) {
      if (n.name !== note) continue;
      const tag = bytes.toString('latin1', n.start, Math.min(n.contentStart, n.start + 300));
      if (/w:type="(separator|continuationSeparator|continuationNotice)"/.test(tag)) continue;
      const id = /w:id="(-?\d+)"/.exec(tag)?.[1];
      if (id !== undefined && !this.byId.has(id)) this.byId.set(id, [n.start, n.end]);
    }
  }

  /** The part with the notes `pieceXml` refers to (references look like <w:footnoteReference w:id="3"/>). */
  partFor(pieceXml: string, reference: RegExp, label: string): string | undefined {
    if (!this.bytes) return undefined;
    const out: string[] = [];
    let size = 0;
    for (const m of pieceXml.matchAll(reference)) {
      const range = this.byId.get(m[1]!);
      if (!range) continue;
      size += range[1] - range[0];
      if (size > MAX_UNIT_BYTES) throw errors.unprocessable(`${label}: the ${this.note === 'w:footnote' ? 'footnotes' : 'endnotes'} of one part of the document take more than ${MB(MAX_UNIT_BYTES)} of XML`);
      out.push(this.bytes.toString('utf8', range[0], range[1]));
    }
    return this.prefix + out.join('') + this.suffix;
  }
}

/** What mammoth reads, served from the capped package: the current piece as the main part, notes filtered. */
interface MammothFile {
  exists(name: string): boolean;
  read(name: string, encoding?: string): Promise<string | Uint8Array>;
}

// ---------- the package ----------

interface PackageFacts {
  width: number;
  height: number;
  headers: string[];
  footers: string[];
  metadata: ParsedDocument['metadata'];
}

async function packageFacts(zip: ZipArchive, doc: Buffer): Promise<PackageFacts> {
  const facts: PackageFacts = { ...NOMINAL_PAGE, headers: [], footers: [], metadata: {} };
  // page size of the first section (twips → points)
  const pgAt = doc.indexOf('<w:pgSz');
  if (pgAt >= 0) {
    const tag = doc.toString('latin1', pgAt, Math.min(doc.length, pgAt + 300)).split('>')[0]!;
    const w = /w:w="(\d+)"/.exec(tag);
    const h = /w:h="(\d+)"/.exec(tag);
    if (w && h && Number(w[1]) > 0 && Number(h[1]) > 0) {
      facts.width = Number(w[1]) / 20;
      facts.height = Number(h[1]) / 20;
    }
  }
  const seen = new Set<string>();
  const names = zip.names().filter((n) => /^word\/(header|footer)\d*\.xml$/.test(n));
  names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  for (const name of names) {
    const kind = /^word\/(header|footer)/.exec(name)![1]!;
    // page numbers alone ("2", "Page 3") are layout, not content
    const part = (await partText(zip, name, { maxBytes: MAX_AUX_PART_BYTES })) ?? '';
    const text = wordParagraphs(part)
      .filter((t) => !/^(page\s*)?\d+(\s*(of|\/)\s*\d+)?$/i.test(t))
      .join('\n');
    if (!text || seen.has(`${kind}:${text}`)) continue;
    seen.add(`${kind}:${text}`);
    (kind === 'header' ? facts.headers : facts.footers).push(text);
  }
  const core = await partText(zip, 'docProps/core.xml', { maxBytes: MAX_AUX_PART_BYTES });
  if (core) {
    try {
      const props = xml.parse(core)?.coreProperties ?? {};
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

const NOT_WORD = 'the file is damaged or not a Word document';

/** Reads a docx into a ParsedDocument. Throws PROCESSING_ERROR with a reason for broken files, UNPROCESSABLE over a limit. */
export async function readDocx(input: DocxRead): Promise<ParsedDocument> {
  const { bytes, signal } = input;
  const label = input.format;
  const limits = readLimits({ limits: input.limits });
  if (isCfb(bytes)) throw errors.processing(`${label} could not be read: the file is password-protected (encrypted)`);
  try {
    return await readPackage(input, label, limits);
  } catch (e) {
    if (signal?.aborted) throw e;
    if (isQuireError(e)) throw e;
    if (e instanceof XmlScanError) throw errors.processing(`${label} could not be read: the file is damaged (malformed XML: ${e.message})`);
    throw errors.processing(`${label} could not be read: ${NOT_WORD}`);
  }
}

async function readPackage(input: DocxRead, label: string, limits: ReadLimits): Promise<ParsedDocument> {
  const { signal } = input;
  const zip = openPackage(input.bytes, { label, limits, signal });
  const mainPath = await mainPartPath(zip, 'word/document.xml');
  // measure the text while the part inflates: a document longer than the page limit is refused before it is
  // all inflated, and before anything is parsed
  const stats: WordStats = { textChars: 0, pageBreaks: 0, renderedBreaks: 0 };
  let scanned = 0;
  const measure = (b: Buffer, end: number) => {
    const s = wordStats(b.subarray(scanned, end));
    stats.textChars += s.textChars;
    stats.pageBreaks += s.pageBreaks;
    stats.renderedBreaks += s.renderedBreaks;
    scanned = end;
    const pages = estimatedPages(stats);
    if (pages > limits.pages) {
      throw errors.unprocessable(`${label} exceeds ${limits.pages.toLocaleString('en')} pages (at least ${pages.toLocaleString('en')} pages of text)`, { limit_pages: limits.pages });
    }
  };
  const doc = await partBytes(zip, mainPath, {
    onData: (soFar) => {
      if (soFar.length - scanned < MEASURE_EVERY) return;
      // up to the last '<': a text run or a tag is never cut there
      const lt = soFar.lastIndexOf(0x3c);
      if (lt > scanned) measure(soFar, lt);
    },
  });
  if (!doc) throw errors.processing(`${label} could not be read: ${NOT_WORD} (word/document.xml is missing)`);
  measure(doc, doc.length);
  checkAbort(signal);
  const body = findElement(doc, 'w:body');
  if (!body) throw errors.processing(`${label} could not be read: ${NOT_WORD} (the document part has no body)`);
  const facts = await packageFacts(zip, doc);
  checkAbort(signal);

  // the parts mammoth reads besides the main one, each read once (capped) and parsed per piece
  const dir = mainPath.includes('/') ? mainPath.slice(0, mainPath.lastIndexOf('/') + 1) : '';
  const relsText = (await partText(zip, `${dir}_rels/${mainPath.slice(dir.length)}.rels`, { maxBytes: MAX_AUX_PART_BYTES })) ?? '';
  const target = (type: string, fallback: string) => {
    for (const m of relsText.matchAll(/<Relationship\b([^>]*)>/g)) {
      const t = /\bType="([^"]*)"/.exec(m[1]!)?.[1] ?? '';
      const tgt = /\bTarget="([^"]*)"/.exec(m[1]!)?.[1];
      if (tgt && t.endsWith(`/${type}`)) return tgt.startsWith('/') ? tgt.slice(1) : dir + tgt;
    }
    return fallback;
  };
  const footnotesPath = target('footnotes', `${dir}footnotes.xml`);
  const endnotesPath = target('endnotes', `${dir}endnotes.xml`);
  const commentsPath = target('comments', `${dir}comments.xml`);
  const footnotes = new Notes(await partBytes(zip, footnotesPath), 'w:footnotes', 'w:footnote');
  const endnotes = new Notes(await partBytes(zip, endnotesPath), 'w:endnotes', 'w:endnote');
  const cache = new Map<string, string>();
  const auxText = async (name: string): Promise<string> => {
    let t = cache.get(name);
    if (t === undefined) cache.set(name, (t = (await partText(zip, name, { maxBytes: MAX_AUX_PART_BYTES })) ?? ''));
    return t;
  };

  const builder = new DocumentBuilder(input.id, input.name, input.format);
  builder.metadata = facts.metadata;
  const sink = new PagedSink(builder, { width: facts.width, height: facts.height }, input.maxPages, { pages: limits.pages, label });
  for (const h of facts.headers) sink.block({ type: 'header', text: h });
  const walker = new HtmlWalker(sink, { pageBreakClass: PAGE_BREAK, captionClass: CAPTION, checkAbort: () => checkAbort(signal) });
  const total = body.contentEnd - body.contentStart || 1;
  for (const piece of bodyPieces(doc, body, label)) {
    // let timers (a time limit) run between pieces: mammoth's work is all microtasks
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    checkAbort(signal);
    const pieceXml = promoteOutlineLevels(piece.xml);
    const file: MammothFile = {
      // comments are not converted (no style map for them): not read at all
      exists: (name) => name === mainPath || (name !== commentsPath && zip.has(name)),
      read: async (name, encoding) => {
        let text: string;
        if (name === mainPath) text = pieceXml;
        else if (name === footnotesPath) text = footnotes.partFor(pieceXml, /<w:footnoteReference\b[^>]*?\bw:id="(-?\d+)"/g, label) ?? '';
        else if (name === endnotesPath) text = endnotes.partFor(pieceXml, /<w:endnoteReference\b[^>]*?\bw:id="(-?\d+)"/g, label) ?? '';
        else if (/\.(xml|rels)$/i.test(name)) text = await auxText(name);
        else {
          // images and other binary parts: not needed (images are not converted), never inflated
          return encoding ? '' : new Uint8Array(0);
        }
        return encoding ? text : Buffer.from(text);
      },
    };
    let html: string;
    const mammoth = await loadMammoth();
    try {
      const result = await raceSignal(
        mammoth.convertToHtml({ file } as unknown as { buffer: Buffer }, {
          styleMap: STYLE_MAP,
          ignoreEmptyParagraphs: true,
          // images are not read at all (no base64 data URIs); only their alt text survives
          convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
        }),
        signal,
      );
      html = result.value;
    } catch (e) {
      if (signal?.aborted || isQuireError(e)) throw e;
      throw errors.processing(`${label} could not be read: ${NOT_WORD}`);
    }
    checkAbort(signal);
    walker.walkHtml(html);
    input.onProgress?.(Math.min(1, piece.end / total));
    if (sink.stopped) break; // maxPages reached
  }
  sink.stopped = false;
  for (const f of facts.footers) sink.block({ type: 'footer', text: f });
  return builder.build();
}

