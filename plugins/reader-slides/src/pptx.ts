/**
 * pptx straight from the package: parts inflated one at a time through ZipArchive (within
 * ReadLimits.decompressedBytes, one part at most half), fast-xml-parser (order-preserving) reads the slide XML.
 * Slide order from presentation.xml + its relationships, one page per slide sized from p:sldSz, shape boxes
 * from a:xfrm (inherited from the layout/master placeholder when the slide does not set one), titles as
 * headings, body text as paragraphs / list items with levels, a:tbl tables with spans, chart titles and data,
 * speaker notes as a "Notes:" caption after the slide.
 *
 * Bounded against hostile files: more slides than ReadLimits.pages is refused, each XML part is parsed into a
 * tree only up to MAX_PART_BYTES (the tree takes ~12× the XML), parts with a DTD are refused, and parts are
 * read only when a slide needs them (media never).
 */
import { XMLParser } from 'fast-xml-parser';
import { DocumentBuilder, errors, readLimits } from '@quire/core';
import { round } from '@quire/text';
import type { BBox, ParsedDocument, ReadLimits, TableCell } from '@quire/core';
import { mainPartPath, openPackage, parseChart, parseRels, partText, relsOf } from '@quire/office';

/** Largest XML part parsed into a tree (a slide, layout, master, notes page or chart). */
export const MAX_PART_BYTES = 16 * 1024 * 1024;

const EMU_PER_POINT = 12700;

type XNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
});

const tagOf = (n: XNode): string => Object.keys(n).find((k) => k !== ':@') ?? '';
const kids = (n: XNode | undefined): XNode[] => (n ? ((n[tagOf(n)] as XNode[] | undefined) ?? []) : []);
const attrs = (n: XNode | undefined): Record<string, string> => ((n?.[':@'] as Record<string, string> | undefined) ?? {});
const child = (n: XNode | undefined, name: string): XNode | undefined => kids(n).find((k) => tagOf(k) === name);
const children = (n: XNode | undefined, name: string): XNode[] => kids(n).filter((k) => tagOf(k) === name);
const path_ = (n: XNode | undefined, ...names: string[]): XNode | undefined => names.reduce<XNode | undefined>((acc, name) => child(acc, name), n);

function parse(xml: string): XNode[] {
  return parser.parse(xml) as XNode[];
}

function root(xml: string, name: string): XNode | undefined {
  return parse(xml).find((n) => tagOf(n) === name);
}

/** Concatenated text of a:t descendants. */
function textOf(n: XNode | undefined): string {
  if (!n) return '';
  const t = tagOf(n);
  if (t === '#text') return String(n['#text'] ?? '');
  if (t === 'a:br') return '\n';
  return kids(n).map(textOf).join('');
}

interface Xfrm {
  x: number;
  y: number;
  cx: number;
  cy: number;
}

function readXfrm(x: XNode | undefined): Xfrm | null {
  const off = child(x, 'a:off');
  const ext = child(x, 'a:ext');
  if (!off || !ext) return null;
  const v = { x: Number(attrs(off).x), y: Number(attrs(off).y), cx: Number(attrs(ext).cx), cy: Number(attrs(ext).cy) };
  return Object.values(v).every(Number.isFinite) ? v : null;
}

/** Group transform: child coordinates → parent coordinates. */
type Transform = (x: Xfrm) => Xfrm;
const identity: Transform = (x) => x;

function groupTransform(grpSpPr: XNode | undefined, outer: Transform): Transform {
  const xfrm = child(grpSpPr, 'a:xfrm');
  const own = readXfrm(xfrm);
  const chOff = child(xfrm, 'a:chOff');
  const chExt = child(xfrm, 'a:chExt');
  if (!own || !chOff || !chExt) return outer;
  const cx0 = Number(attrs(chOff).x);
  const cy0 = Number(attrs(chOff).y);
  const sx = Number(attrs(chExt).cx) ? own.cx / Number(attrs(chExt).cx) : 1;
  const sy = Number(attrs(chExt).cy) ? own.cy / Number(attrs(chExt).cy) : 1;
  return (x) => outer({ x: own.x + (x.x - cx0) * sx, y: own.y + (x.y - cy0) * sy, cx: x.cx * sx, cy: x.cy * sy });
}

const toBBox = (x: Xfrm | null): BBox | null =>
  x ? { x: round(x.x / EMU_PER_POINT), y: round(x.y / EMU_PER_POINT), width: round(x.cx / EMU_PER_POINT), height: round(x.cy / EMU_PER_POINT) } : null;

interface Placeholder {
  type: string;
  idx?: string;
}

/** Placeholder boxes of a layout or master, by idx and by type. */
interface PlaceholderBoxes {
  byIdx: Map<string, Xfrm>;
  byType: Map<string, Xfrm>;
}

function placeholderOf(nvPr: XNode | undefined): Placeholder | null {
  const ph = child(nvPr, 'p:ph');
  if (!ph) return null;
  const a = attrs(ph);
  return { type: a.type ?? 'obj', idx: a.idx };
}

function collectPlaceholderBoxes(xml: string | undefined, rootName: string): PlaceholderBoxes {
  const out: PlaceholderBoxes = { byIdx: new Map(), byType: new Map() };
  if (!xml) return out;
  const tree = path_(root(xml, rootName), 'p:cSld', 'p:spTree');
  const visit = (nodes: XNode[]) => {
    for (const n of nodes) {
      const t = tagOf(n);
      if (t === 'p:grpSp') visit(kids(n));
      if (t !== 'p:sp') continue;
      const ph = placeholderOf(path_(n, 'p:nvSpPr', 'p:nvPr'));
      const x = readXfrm(path_(n, 'p:spPr', 'a:xfrm'));
      if (!ph || !x) continue;
      if (ph.idx !== undefined && !out.byIdx.has(ph.idx)) out.byIdx.set(ph.idx, x);
      if (!out.byType.has(ph.type)) out.byType.set(ph.type, x);
    }
  };
  visit(kids(tree));
  return out;
}

const TITLE_TYPES = new Set(['title', 'ctrTitle']);
const BODY_TYPES = new Set(['body', 'obj']);
const FOOTER_TYPES = new Set(['dt', 'ftr', 'sldNum']);

export interface PptxRead {
  bytes: Uint8Array;
  id: string;
  name: string;
  format: string;
  maxPages?: number;
  limits?: Partial<ReadLimits>;
  signal?: AbortSignal;
  checkAbort: () => void;
  onProgress?: (f: number) => void;
}

export async function readPptx(input: PptxRead): Promise<ParsedDocument> {
  const label = input.format;
  const limits = readLimits({ limits: input.limits });
  const zip = openPackage(input.bytes, { label, limits: input.limits, signal: input.signal });
  const parts = new Map<string, string | undefined>();
  /** a part's text, inflated once (capped) and kept for the slides that share it */
  const load = async (name: string | undefined): Promise<void> => {
    if (!name || parts.has(name)) return;
    parts.set(name, zip.has(name) ? await partText(zip, name, { maxBytes: MAX_PART_BYTES }) : undefined);
  };
  const text = (name: string): string | undefined => parts.get(name);
  const presPath = await mainPartPath(zip, 'ppt/presentation.xml');
  await load(presPath);
  const presentationXml = text(presPath);
  if (!presentationXml) throw errors.processing(`${label} could not be read: ppt/presentation.xml is missing (not a PowerPoint package)`);
  const presRelsPath = relsOf(presPath);
  await load(presRelsPath);
  await load('docProps/core.xml');
  const pres = root(presentationXml, 'p:presentation');
  const sz = attrs(child(pres, 'p:sldSz'));
  const width = round((Number(sz.cx) || 9144000) / EMU_PER_POINT);
  const height = round((Number(sz.cy) || 6858000) / EMU_PER_POINT);
  const presRels = parseRels(text(presRelsPath) ?? '', presRelsPath);
  const slideParts = children(child(pres, 'p:sldIdLst'), 'p:sldId')
    .map((s) => presRels.get(attrs(s)['r:id'] ?? '')?.target)
    .filter((p): p is string => !!p && zip.has(p));
  if (slideParts.length > limits.pages) {
    throw errors.unprocessable(`${label} exceeds ${limits.pages.toLocaleString('en')} pages (it has ${slideParts.length.toLocaleString('en')} slides)`, { limit_pages: limits.pages });
  }

  const builder = new DocumentBuilder(input.id, input.name, input.format);
  builder.metadata = coreProperties(text('docProps/core.xml'));
  builder.metadata.slides = slideParts.length;
  const hidden: number[] = [];
  const boxCache = new Map<string, PlaceholderBoxes>();
  const boxesOf = async (part: string | undefined, rootName: string) => {
    if (!part) return { byIdx: new Map(), byType: new Map() } as PlaceholderBoxes;
    let b = boxCache.get(part);
    if (!b) {
      await load(part);
      boxCache.set(part, (b = collectPlaceholderBoxes(text(part), rootName)));
      parts.set(part, undefined); // its boxes are all that is needed
    }
    return b;
  };

  const limit = input.maxPages ? Math.min(input.maxPages, slideParts.length) : slideParts.length;
  for (let s = 0; s < limit; s++) {
    // let timers (a time limit) run between slides: parsing is synchronous
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    input.checkAbort();
    const part = slideParts[s]!;
    const page = s + 1;
    await load(part);
    await load(relsOf(part));
    const slide = root(text(part) ?? '', 'p:sld');
    parts.delete(part);
    if (attrs(slide).show === '0') hidden.push(page);
    const rels = parseRels(text(relsOf(part)) ?? '', relsOf(part));
    parts.delete(relsOf(part));
    const layoutPart = [...rels.values()].find((r) => r.type.endsWith('/slideLayout'))?.target;
    if (layoutPart) await load(relsOf(layoutPart));
    const masterPart = layoutPart ? [...parseRels(text(relsOf(layoutPart)) ?? '', relsOf(layoutPart)).values()].find((r) => r.type.endsWith('/slideMaster'))?.target : undefined;
    const layout = await boxesOf(layoutPart, 'p:sldLayout');
    const master = await boxesOf(masterPart, 'p:sldMaster');
    const inherited = (ph: Placeholder | null): Xfrm | null => {
      if (!ph) return null;
      const t = ph.type === 'obj' ? 'body' : ph.type;
      return (ph.idx !== undefined ? layout.byIdx.get(ph.idx) : undefined) ?? layout.byType.get(ph.type) ?? master.byType.get(t) ?? master.byType.get(ph.type) ?? null;
    };

    const pageInfo = { number: page, width, height, ocr: false, confidence: 1 } as { number: number; width: number; height: number; ocr: boolean; confidence: number; name?: string };
    builder.addPage(pageInfo);
    const items = collectShapes(kids(path_(slide, 'p:cSld', 'p:spTree')), identity, inherited);
    // the first title goes first, the rest stays in document order
    const titleAt = items.findIndex((i) => i.kind === 'text' && i.title);
    if (titleAt > 0) items.unshift(...items.splice(titleAt, 1));
    let last: string | null = null;
    for (const item of items) {
      if (item.kind === 'text') {
        for (const para of item.paragraphs) {
          const base = { page, bbox: item.bbox, confidence: 1 };
          if (item.title) {
            builder.addBlock({ type: 'heading', text: para.text.replace(/\s*\n\s*/g, ' '), level: 1, ...base });
            pageInfo.name ??= para.text.replace(/\s*\n\s*/g, ' ').trim();
            last = 'heading';
          } else if (item.footer) {
            builder.addBlock({ type: 'footer', text: para.text, ...base });
            last = 'footer';
          } else if (para.bullet) {
            builder.addBlock({ type: 'list_item', text: `${para.bullet} ${para.text}`, level: para.level + 1, ...base }, last === 'list_item' ? '\n' : undefined);
            last = 'list_item';
          } else {
            builder.addBlock({ type: item.subtitle ? 'heading' : 'paragraph', text: para.text, ...(item.subtitle ? { level: 2 } : {}), ...base });
            last = 'paragraph';
          }
        }
      } else if (item.kind === 'table') {
        builder.addTable({ page, bbox: item.bbox, rows: item.rows, cols: item.cols, cells: item.cells, confidence: 1 });
        last = 'table';
      } else if (item.kind === 'chart') {
        const chartPart = rels.get(item.rid)?.target;
        await load(chartPart);
        const chart = parseChart((chartPart && text(chartPart)) ?? '');
        if (chartPart) parts.delete(chartPart);
        if (!chart) continue;
        const label = `${chart.type[0]!.toUpperCase()}${chart.type.slice(1)} chart`;
        builder.addBlock({ type: 'caption', text: chart.title ? `${label}: ${chart.title}` : label, page, bbox: item.bbox, confidence: 1 });
        if (chart.rows.length) {
          const cells: TableCell[] = [];
          chart.header.forEach((t, col) => cells.push({ row: 0, col, rowSpan: 1, colSpan: 1, text: t, header: true }));
          chart.rows.forEach((r, i) => r.forEach((t, col) => cells.push({ row: i + 1, col, rowSpan: 1, colSpan: 1, text: t })));
          builder.addTable({ page, bbox: item.bbox, rows: chart.rows.length + 1, cols: chart.header.length, cells, title: chart.title ?? label, confidence: 1 });
        }
        last = 'table';
      }
    }
    // speaker notes
    const notesPart = [...rels.values()].find((r) => r.type.endsWith('/notesSlide'))?.target;
    await load(notesPart);
    const notes = notesPart ? notesText(text(notesPart)) : '';
    if (notesPart) parts.delete(notesPart);
    if (notes) builder.addBlock({ type: 'caption', text: `Notes: ${notes}`, page, bbox: null, confidence: 1 });
    input.onProgress?.((s + 1) / limit);
  }
  if (!builder.pageCount) builder.addPage({ number: 1, width, height, ocr: false, confidence: 1 });
  if (hidden.length) builder.metadata.hiddenSlides = hidden;
  return builder.build();
}

interface Paragraph {
  text: string;
  level: number;
  /** '-' or '1.' etc. for list items, '' otherwise */
  bullet: string;
}

type Item =
  | { kind: 'text'; bbox: BBox | null; title: boolean; subtitle: boolean; footer: boolean; paragraphs: Paragraph[] }
  | { kind: 'table'; bbox: BBox | null; rows: number; cols: number; cells: TableCell[] }
  | { kind: 'chart'; bbox: BBox | null; rid: string };

function collectShapes(nodes: XNode[], transform: Transform, inherited: (ph: Placeholder | null) => Xfrm | null): Item[] {
  const out: Item[] = [];
  for (const n of nodes) {
    const t = tagOf(n);
    if (t === 'p:sp') {
      const ph = placeholderOf(path_(n, 'p:nvSpPr', 'p:nvPr'));
      const own = readXfrm(path_(n, 'p:spPr', 'a:xfrm'));
      const x = own ? transform(own) : inherited(ph);
      const body = child(n, 'p:txBody');
      if (!body) continue;
      const isBody = !!ph && BODY_TYPES.has(ph.type);
      const paragraphs = readParagraphs(body, isBody);
      if (!paragraphs.length) continue;
      out.push({ kind: 'text', bbox: toBBox(x), title: !!ph && TITLE_TYPES.has(ph.type), subtitle: ph?.type === 'subTitle', footer: !!ph && FOOTER_TYPES.has(ph.type), paragraphs });
    } else if (t === 'p:grpSp') {
      out.push(...collectShapes(kids(n), groupTransform(child(n, 'p:grpSpPr'), transform), inherited));
    } else if (t === 'p:graphicFrame') {
      const own = readXfrm(child(n, 'p:xfrm'));
      const x = own ? transform(own) : inherited(placeholderOf(path_(n, 'p:nvGraphicFramePr', 'p:nvPr')));
      const data = path_(n, 'a:graphic', 'a:graphicData');
      const tbl = child(data, 'a:tbl');
      if (tbl) {
        const table = readTable(tbl, x);
        if (table) out.push({ kind: 'table', bbox: toBBox(x), ...table });
        continue;
      }
      const chartRef = child(data, 'c:chart');
      const rid = attrs(chartRef)['r:id'];
      if (rid) out.push({ kind: 'chart', bbox: toBBox(x), rid });
    } else if (t === 'mc:AlternateContent') {
      const choice = child(n, 'mc:Choice') ?? child(n, 'mc:Fallback');
      out.push(...collectShapes(kids(choice), transform, inherited));
    }
  }
  return out;
}

function readParagraphs(body: XNode, isBody: boolean): Paragraph[] {
  const out: Paragraph[] = [];
  const counters: number[] = [];
  for (const p of children(body, 'a:p')) {
    const pPr = child(p, 'a:pPr');
    const level = Math.min(8, Number(attrs(pPr).lvl ?? 0) || 0);
    const text = kids(p)
      .filter((k) => ['a:r', 'a:br', 'a:fld'].includes(tagOf(k)))
      .map((k) => (tagOf(k) === 'a:br' ? '\n' : textOf(child(k, 'a:t'))))
      .join('')
      .replace(/[ \t\u00a0]+/g, ' ')
      .trim();
    if (!text) continue;
    let bullet = '';
    const autoNum = child(pPr, 'a:buAutoNum');
    if (autoNum) {
      counters.length = level + 1;
      const start = Number(attrs(autoNum).startAt ?? 1) || 1;
      counters[level] = (counters[level] ?? start - 1) + 1;
      bullet = numberLabel(counters[level]!, attrs(autoNum).type ?? 'arabicPeriod');
    } else {
      counters.length = level;
      if (child(pPr, 'a:buChar') || child(pPr, 'a:buBlip')) bullet = '-';
      else if (!child(pPr, 'a:buNone') && isBody) bullet = '-';
    }
    out.push({ text, level, bullet });
  }
  return out;
}

function numberLabel(n: number, type: string): string {
  const alpha = (v: number) => {
    let s = '';
    for (let x = v; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(97 + ((x - 1) % 26)) + s;
    return s;
  };
  const roman = (v: number) => {
    const map: [number, string][] = [[1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'], [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i']];
    let s = '';
    let x = v;
    for (const [k, r] of map) while (x >= k) (s += r), (x -= k);
    return s;
  };
  let label = String(n);
  if (/^alphaLc/.test(type)) label = alpha(n);
  else if (/^alphaUc/.test(type)) label = alpha(n).toUpperCase();
  else if (/^romanLc/.test(type)) label = roman(n);
  else if (/^romanUc/.test(type)) label = roman(n).toUpperCase();
  if (/ParenBoth$/.test(type)) return `(${label})`;
  if (/ParenR$/.test(type)) return `${label})`;
  return `${label}.`;
}

function readTable(tbl: XNode, frame: Xfrm | null): { rows: number; cols: number; cells: TableCell[] } | null {
  const colWidths = children(child(tbl, 'a:tblGrid'), 'a:gridCol').map((g) => Number(attrs(g).w) || 0);
  const trs = children(tbl, 'a:tr');
  const rowHeights = trs.map((tr) => Number(attrs(tr).h) || 0);
  const firstRow = attrs(child(tbl, 'a:tblPr')).firstRow === '1';
  const cells: TableCell[] = [];
  let cols = colWidths.length;
  const sum = (a: number[], from: number, n: number) => a.slice(from, from + n).reduce((x, y) => x + y, 0);
  trs.forEach((tr, r) => {
    let c = 0;
    for (const tc of children(tr, 'a:tc')) {
      const a = attrs(tc);
      const col = c++;
      if (a.hMerge === '1' || a.vMerge === '1') continue; // covered by a spanning cell
      const colSpan = Math.max(1, Number(a.gridSpan ?? 1) || 1);
      const rowSpan = Math.max(1, Math.min(Number(a.rowSpan ?? 1) || 1, trs.length - r));
      const body = child(tc, 'a:txBody');
      const text = children(body, 'a:p')
        .map((p) =>
          kids(p)
            .filter((k) => ['a:r', 'a:br', 'a:fld'].includes(tagOf(k)))
            .map((k) => (tagOf(k) === 'a:br' ? '\n' : textOf(child(k, 'a:t'))))
            .join('')
            .trim(),
        )
        .filter(Boolean)
        .join('\n');
      const bbox =
        frame && colWidths.length
          ? toBBox({ x: frame.x + sum(colWidths, 0, col), y: frame.y + sum(rowHeights, 0, r), cx: sum(colWidths, col, colSpan), cy: sum(rowHeights, r, rowSpan) })
          : null;
      cells.push({ row: r, col, rowSpan, colSpan, text, bbox, header: firstRow && r === 0 });
      cols = Math.max(cols, col + colSpan);
    }
  });
  if (!cells.some((c) => c.text)) return null;
  return { rows: trs.length, cols, cells };
}

function notesText(xml: string | undefined): string {
  if (!xml) return '';
  const tree = path_(root(xml, 'p:notes'), 'p:cSld', 'p:spTree');
  const out: string[] = [];
  const visit = (nodes: XNode[]) => {
    for (const n of nodes) {
      if (tagOf(n) === 'p:grpSp') visit(kids(n));
      if (tagOf(n) !== 'p:sp') continue;
      const ph = placeholderOf(path_(n, 'p:nvSpPr', 'p:nvPr'));
      if (!ph || ph.type !== 'body') continue; // the notes text, not the slide image or the page number
      for (const p of readParagraphs(child(n, 'p:txBody') ?? {}, false)) out.push(p.text);
    }
  };
  visit(kids(tree));
  return out.join('\n').trim();
}

function coreProperties(xml: string | undefined): ParsedDocument['metadata'] {
  const meta: ParsedDocument['metadata'] = {};
  if (!xml) return meta;
  const get = (tag: string) => {
    const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([^<]*)</${tag}>`).exec(xml);
    return m ? m[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").trim() : undefined;
  };
  const title = get('dc:title');
  const author = get('dc:creator');
  const created = get('dcterms:created');
  if (title) meta.title = title;
  if (author) meta.author = author;
  if (created) meta.creationDate = created;
  return meta;
}
