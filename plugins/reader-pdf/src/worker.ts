/**
 * A parse worker (a child process started by core's startIsolate): opens a PDF with pdfjs-dist once per job and lays out the page ranges
 * it is given; renders scanned pages to PNG for OCR. One task at a time; documents stay open until the
 * job is released.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { isolatePort } from '@quire/core';
import v8 from 'node:v8';
import type { Rule, TextItem, PageResult, OpenResult, WorkerRequest, WorkerResponse, PageElement } from './types.js';
import { layoutPage, mayHaveTable } from './layout.js';
import { detectRules } from '@quire/plugin-reader-image';
import { uniformPixels } from './blank.js';

const require = createRequire(import.meta.url);

/**
 * pdf.js's core (the "worker" bundle, run in this thread), with two small changes made as the bundle is
 * loaded, each only where its text matches exactly once (else that change is left out):
 *
 * - TextState.clone makes every cloned text state the prototype of the next (`Object.create(this)`); V8
 *   then turns each of these objects into a prototype, which costs about 40 % of getTextContent on pages
 *   with many q/Q operators. The clone copies every field of the class anyway, so a fresh TextState with
 *   the same fields is the same state.
 * - An image larger than `maxImageSize` is left out of the operator list without a trace. Text documents
 *   are opened with maxImageSize 1 (images are never decoded for text), so the page of a scan would look
 *   blank: the image leaves a mark instead, a marked-content point (`MP`, which pdf.js drops from page
 *   content and draws as nothing) named IMAGE_MARK with the image's width and height.
 */
export const IMAGE_MARK = 'QuireImageLeftOut';
let imagesMarked = false;

async function loadCore(): Promise<unknown> {
  try {
    let src = await fs.readFile(require.resolve('pdfjs-dist/legacy/build/pdf.worker.mjs'), 'utf8');
    const patch = (from: string, to: string, check: (at: number) => boolean = () => true): boolean => {
      const at = src.indexOf(from);
      if (at < 0 || src.indexOf(from, at + 1) >= 0 || !check(at)) return false;
      src = src.slice(0, at) + to + src.slice(at + from.length);
      return true;
    };
    const cloned = patch(
      'const clone = Object.assign(Object.create(this), this);',
      'const clone = Object.assign(new TextState(), this);',
      (at) => src.lastIndexOf('\nclass ', at) === src.lastIndexOf('\nclass TextState {', at),
    );
    const dropped = 'const msg = "Image exceeded maximum allowed size and was removed.";\n      if (!ignoreErrors) {\n        throw new Error(msg);\n      }\n      warn(msg);\n      return;';
    const marked = patch(dropped, dropped.replace('warn(msg);', `warn(msg);\n      operatorList.addOp(OPS.markPoint, [${JSON.stringify(IMAGE_MARK)}, w, h]);`));
    if (cloned || marked) {
      const core = await import(`data:text/javascript;base64,${Buffer.from(src).toString('base64')}`);
      imagesMarked = marked;
      return core;
    }
  } catch {
    // the bundle as published below
  }
  // @ts-expect-error the worker bundle has no type declarations
  return import('pdfjs-dist/legacy/build/pdf.worker.mjs');
}

// The legacy build's core-js polyfills replace Array.prototype.push with a slow generic version; the
// native one is correct for every array pdf.js builds, so it is put back once both bundles are loaded.
const nativePush = Array.prototype.push;
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
(globalThis as Record<string, unknown>).pdfjsWorker = await loadCore();
Array.prototype.push = nativePush;

const { OPS, Util, AnnotationMode, AnnotationType } = pdfjs;
type PDFDocumentProxy = Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>;
type PDFPageProxy = Awaited<ReturnType<PDFDocumentProxy['getPage']>>;

const pdfjsDir = path.dirname(require.resolve('pdfjs-dist/package.json'));
const assetUrl = (sub: string) => {
  // the Node factories read these with fs; a trailing slash is required
  const p = path.join(pdfjsDir, sub) + path.sep;
  return p;
};
const ASSETS = {
  standardFontDataUrl: assetUrl('standard_fonts'),
  cMapUrl: assetUrl('cmaps'),
  cMapPacked: true,
  wasmUrl: assetUrl('wasm'),
  iccUrl: assetUrl('iccs'),
};

interface OpenDoc {
  text?: Promise<PDFDocumentProxy>;
  render?: Promise<PDFDocumentProxy>;
  lastUsed: number;
}
const docs = new Map<string, OpenDoc>();
/** pixels of one decoded image when the request names no limit (ReadLimits.imagePixels) */
const DEFAULT_IMAGE_PIXELS = 100_000_000;
const MAX_OPEN = 3;
const CLEANUP_HEAP_BYTES = 192 * 1024 * 1024;

async function load(file: string, forRender: boolean, imagePixels: number): Promise<PDFDocumentProxy> {
  const t0 = performance.now();
  try {
    return await loadDoc(file, forRender, imagePixels);
  } finally {
    tick('load', t0);
  }
}

async function loadDoc(file: string, forRender: boolean, imagePixels: number): Promise<PDFDocumentProxy> {
  const buf = await fs.readFile(file);
  const source = { data: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) };
  const task = pdfjs.getDocument({
    ...source,
    verbosity: 0,
    isEvalSupported: false,
    useSystemFonts: false,
    // text pages: images are never decoded (they are not needed for text); scans are rendered by a second,
    // complete instance of the document, where an image larger than the pixel limit is left out undecoded
    maxImageSize: forRender ? Math.max(1, Math.floor(imagePixels)) : 1,
    // with font faces "enabled", pdf.js does not build glyph outlines for the operator list
    disableFontFace: forRender,
    stopAtErrors: false,
    isOffscreenCanvasSupported: false,
    ...ASSETS,
    // text needs only the built-in metrics of the standard fonts; loading and converting their font
    // programs is work for rendering alone
    ...(forRender ? {} : { standardFontDataUrl: null }),
  } as Parameters<typeof pdfjs.getDocument>[0]);
  const doc = await task.promise;
  if (!forRender) {
    // no font loading in Node: skip building @font-face rules for every font
    const loader = (doc as unknown as { _transport?: { fontLoader?: { bind?: unknown } } })._transport?.fontLoader;
    if (loader && typeof loader.bind === 'function') loader.bind = async () => {};
  }
  return doc;
}

async function getDoc(jobId: string, file: string, forRender = false, imagePixels = DEFAULT_IMAGE_PIXELS): Promise<PDFDocumentProxy> {
  let e = docs.get(jobId);
  if (!e) {
    e = { lastUsed: Date.now() };
    docs.set(jobId, e);
    if (docs.size > MAX_OPEN) {
      const oldest = [...docs].filter(([k]) => k !== jobId).sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest) await release(oldest[0]);
    }
  }
  e.lastUsed = Date.now();
  const key = forRender ? 'render' : 'text';
  if (!e[key]) {
    e[key] = load(file, forRender, imagePixels);
    e[key]!.catch(() => {});
  }
  return e[key]!;
}

/** Jobs released lately: a preload that arrives after its job ended opens nothing. */
const released = new Set<string>();

async function release(jobId: string): Promise<void> {
  released.add(jobId);
  if (released.size > 256) released.delete(released.values().next().value!);
  const e = docs.get(jobId);
  if (!e) return;
  docs.delete(jobId);
  for (const p of [e.text, e.render]) {
    if (!p) continue;
    try {
      await (await p).destroy();
    } catch {
      // failed to open: nothing to close
    }
  }
}

function pdfDate(s: unknown): string | undefined {
  if (typeof s !== 'string' || !s) return undefined;
  try {
    const d = pdfjs.PDFDateString.toDateObject(s);
    return d && !Number.isNaN(d.getTime()) ? d.toISOString() : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the file ends as a PDF does (%%EOF in its last 2 KB): a file cut short lacks it. */
async function endsComplete(file: string): Promise<boolean> {
  const fh = await fs.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const n = Math.min(size, 2048);
    const buf = Buffer.alloc(n);
    await fh.read(buf, 0, n, size - n);
    return buf.includes('%%EOF');
  } finally {
    await fh.close();
  }
}

async function open(jobId: string, file: string, firstTo: number, pageLimit = Infinity): Promise<OpenResult> {
  const doc = await getDoc(jobId, file);
  const complete = await endsComplete(file).catch(() => false);
  // over the page limit: nothing more is read
  if (doc.numPages > pageLimit) return { numPages: doc.numPages, metadata: {}, pages: [], complete };
  const metadata: OpenResult['metadata'] = {};
  try {
    const { info } = (await doc.getMetadata()) as unknown as { info: Record<string, unknown> };
    const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.replace(/\u0000/g, '').trim() : undefined);
    const title = str(info?.Title);
    const author = str(info?.Author);
    const creationDate = pdfDate(info?.CreationDate);
    if (title) metadata.title = title;
    if (author) metadata.author = author;
    if (creationDate) metadata.creationDate = creationDate;
    const subject = str(info?.Subject);
    const producer = str(info?.Producer);
    const creator = str(info?.Creator);
    const modDate = pdfDate(info?.ModDate);
    if (subject) metadata.subject = subject;
    if (creator) metadata.creator = creator;
    if (producer) metadata.producer = producer;
    if (modDate) metadata.modificationDate = modDate;
  } catch {
    // metadata is optional
  }
  const first = Math.min(doc.numPages, firstTo);
  return { numPages: doc.numPages, metadata, pages: first >= 1 ? await pages(jobId, file, 1, first) : [], complete };
}

// ---------- text items ----------

/** Compatibility characters to normalise: spaces, ligatures, Hebrew and Arabic presentation forms. */
const COMPAT = /[\u00a0\u2000-\u200a\u202f\ufb00-\ufdff\ufe70-\ufefe]+/g;

/** Bold font names: the usual words, abbreviations (Arial-BoldMT, HelveticaNeue-Bd, NimbusRomNo9L-Medi) and TeX's bold faces (CMBX, SFBX). */
const ITALIC_NAME = /italic|oblique|[-,]it\b|[-,]ital|cmti|sfti|ecti|cmsl/i;
const BOLD_NAME = /bold|black|heavy|semibold|demibold|[-,]demi|extrabold|ultrabold|[-,]bd\b|[-,]medi$|cmbx|sfbx|ecbx|cmssbx|\+?bx\d/i;

function textItems(page: PDFPageProxy, tc: { items: unknown[]; styles: Record<string, { ascent?: number; descent?: number; vertical?: boolean }> }, vt: number[]): { items: TextItem[]; rotated: TextItem[] } {
  const items: TextItem[] = [];
  const rotated: TextItem[] = [];
  const styleCache = new Map<string, { bold: boolean; italic: boolean }>();
  const styleOf = (fontName: string) => {
    let st = styleCache.get(fontName);
    if (!st) {
      st = { bold: false, italic: false };
      try {
        if (page.commonObjs.has(fontName)) {
          const f = page.commonObjs.get(fontName) as { name?: string; bold?: boolean; black?: boolean; italic?: boolean } | null;
          st = { bold: !!(f && (f.bold || f.black || BOLD_NAME.test(f.name ?? ''))), italic: !!(f && (f.italic || ITALIC_NAME.test(f.name ?? ''))) };
        }
      } catch {
        // unknown font: plain
      }
      styleCache.set(fontName, st);
    }
    return st;
  };
  const isBold = (fontName: string) => styleOf(fontName).bold;
  for (const raw of tc.items) {
    const item = raw as { str?: string; transform?: number[]; width?: number; height?: number; fontName?: string; dir?: string };
    if (typeof item.str !== 'string' || !item.transform) continue;
    const str = item.str.replace(COMPAT, (m) => m.normalize('NFKC'));
    if (!str.trim()) continue;
    const tx = Util.transform(vt, item.transform) as number[];
    const size = Math.hypot(tx[2]!, tx[3]!) || Math.hypot(tx[0]!, tx[1]!);
    if (!(size > 0.5) || !Number.isFinite(tx[4]!) || !Number.isFinite(tx[5]!)) continue;
    const style = tc.styles[item.fontName ?? ''];
    let asc = style?.ascent ?? 0.8;
    let desc = style?.descent !== undefined ? -style.descent : 0.2;
    if (!(asc >= 0.5 && asc <= 1.1)) asc = 0.8;
    if (!(desc >= 0 && desc <= 0.5)) desc = 0.2;
    const angle = Math.atan2(tx[1]!, tx[0]!);
    const w = (item.width ?? 0) > 0 ? item.width! : str.length * size * 0.5;
    const bold = isBold(item.fontName ?? '');
    const italic = styleOf(item.fontName ?? '').italic;
    const rtl = item.dir === 'rtl';
    if (Math.abs(angle) < 0.02 && !style?.vertical) {
      const baseline = tx[5]!;
      items.push({ str, x: tx[4]!, top: baseline - size * asc, bottom: baseline + size * desc, baseline, width: w, size, bold, italic, rtl });
    } else {
      // rotated text: kept as a separate piece at its bounding box
      const c = Math.cos(angle), s = Math.sin(angle);
      const xs = [tx[4]!, tx[4]! + w * c, tx[4]! - size * asc * -s, tx[4]! + w * c - size * asc * -s];
      const ys = [tx[5]!, tx[5]! + w * s, tx[5]! - size * asc * c, tx[5]! + w * s - size * asc * c];
      const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
      rotated.push({ str, x: x0, top: y0, bottom: y1, baseline: y1, width: x1 - x0, size, bold, rtl });
    }
  }
  return { items, rotated };
}

// ---------- form fields ----------

interface Widget {
  annotationType?: number;
  fieldName?: string;
  fieldType?: string;
  fieldValue?: unknown;
  exportValue?: string;
  buttonValue?: string;
  checkBox?: boolean;
  radioButton?: boolean;
  password?: boolean;
  hidden?: boolean;
  rect?: number[];
  options?: { exportValue?: string; displayValue?: string }[];
  defaultAppearanceData?: { fontSize?: number };
}

/** Whether the document has AcroForm fields (asked once per open document). */
const formOf = new WeakMap<PDFDocumentProxy, Promise<boolean>>();
function hasForm(doc: PDFDocumentProxy): Promise<boolean> {
  let p = formOf.get(doc);
  if (!p) {
    p = doc.getMetadata().then(
      (m) => !!(m as unknown as { info?: { IsAcroFormPresent?: boolean } }).info?.IsAcroFormPresent,
      () => false,
    );
    formOf.set(doc, p);
  }
  return p;
}

/** the value a filled-in field shows: its text, the chosen options, a mark for a ticked box or the chosen radio button */
function fieldText(w: Widget): string {
  if (w.password) return '';
  if (w.fieldType === 'Tx') return typeof w.fieldValue === 'string' ? w.fieldValue : '';
  if (w.fieldType === 'Btn') {
    const v = w.fieldValue;
    if (w.checkBox) return typeof v === 'string' && v !== 'Off' && v === w.exportValue ? '\u2612' : '';
    if (w.radioButton) return typeof v === 'string' && v !== 'Off' && v === w.buttonValue ? '\u25c9' : '';
    return '';
  }
  if (w.fieldType === 'Ch') {
    const values = (Array.isArray(w.fieldValue) ? w.fieldValue : [w.fieldValue]).filter((x): x is string => typeof x === 'string' && x.length > 0);
    return values.map((v) => w.options?.find((o) => o.exportValue === v)?.displayValue || v).join(', ');
  }
  return '';
}

/**
 * The values of filled-in form fields as text items where the fields are: a page's text content has only
 * what is printed on it, while a viewer shows the field values on top (a prefilled tax form). Laid out with
 * the printed labels next to them, they read "Name: value".
 */
async function formItems(doc: PDFDocumentProxy, page: PDFPageProxy, vt: number[]): Promise<TextItem[]> {
  if (!(await hasForm(doc))) return [];
  const annots = (await page.getAnnotations({ intent: 'display' }).catch(() => [])) as Widget[];
  const items: TextItem[] = [];
  // a field shown by several widgets on the page (the same value in several places) is read once
  const seen = new Set<string>();
  for (const w of annots) {
    if (w.annotationType !== AnnotationType.WIDGET || w.hidden || !Array.isArray(w.rect)) continue;
    const text = fieldText(w).replace(COMPAT, (m) => m.normalize('NFKC'));
    if (!text.trim()) continue;
    if (w.fieldName) {
      if (seen.has(w.fieldName)) continue;
      seen.add(w.fieldName);
    }
    const a = [w.rect[0]!, w.rect[1]!];
    const b = [w.rect[2]!, w.rect[3]!];
    Util.applyTransform(a, vt); // in place
    Util.applyTransform(b, vt);
    const [ax, ay] = a;
    const [bx, by] = b;
    const x0 = Math.min(ax!, bx!), x1 = Math.max(ax!, bx!), top = Math.min(ay!, by!), bottom = Math.max(ay!, by!);
    if (!(x1 - x0 > 1 && bottom - top > 1)) continue;
    const lines = text.split(/\r\n|\r|\n/).filter((l) => l.trim());
    // the field's font size, kept near body text (field values are never headings)
    const da = w.defaultAppearanceData?.fontSize ?? 0;
    const size = Math.max(6, Math.min(10, da > 0 ? da : ((bottom - top) / Math.max(1, lines.length)) * 0.6));
    lines.forEach((line, i) => {
      const baseline = lines.length === 1 ? bottom - Math.max(1, (bottom - top - size) / 2) - size * 0.2 : top + size * (1.15 * i + 1);
      const str = line.trim();
      items.push({ str, x: x0 + Math.min(2, (x1 - x0) / 10), top: baseline - size * 0.8, bottom: baseline + size * 0.2, baseline, width: Math.min(x1 - x0, str.length * size * 0.5), size, bold: false, italic: false, rtl: false });
    });
  }
  return items;
}

// ---------- ruling lines from the operator list ----------

const STROKE_OPS = new Set<number>([OPS.stroke, OPS.closeStroke, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);
const FILL_OPS = new Set<number>([OPS.fill, OPS.eoFill, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);
const MAX_RULES = 20000;

interface GState {
  ctm: number[];
  fill: string;
  stroke: string;
}

function extractRules(ops: { fnArray: number[]; argsArray: unknown[] }, vt: number[], pageW: number, pageH: number): Rule[] {
  const rules: Rule[] = [];
  let gs: GState = { ctm: [1, 0, 0, 1, 0, 0], fill: '#000000', stroke: '#000000' };
  const stack: GState[] = [];
  const { fnArray, argsArray } = ops;
  const addH = (x0: number, x1: number, y: number) => {
    if (x1 - x0 > 3 && rules.length < MAX_RULES) rules.push({ x0: Math.min(x0, x1), x1: Math.max(x0, x1), y0: y, y1: y });
  };
  const addV = (y0: number, y1: number, x: number) => {
    if (y1 - y0 > 3 && rules.length < MAX_RULES) rules.push({ x0: x, x1: x, y0: Math.min(y0, y1), y1: Math.max(y0, y1) });
  };
  for (let i = 0; i < fnArray.length && rules.length < MAX_RULES; i++) {
    const fn = fnArray[i]!;
    const args = argsArray[i] as unknown[] | null;
    switch (fn) {
      case OPS.save:
        stack.push(gs);
        gs = { ...gs };
        break;
      case OPS.restore:
        gs = stack.pop() ?? gs;
        break;
      case OPS.transform:
        gs.ctm = Util.transform(gs.ctm, args as number[]) as number[];
        break;
      case OPS.paintFormXObjectBegin:
        stack.push(gs);
        gs = { ...gs };
        if (Array.isArray(args?.[0]) || ArrayBuffer.isView(args?.[0])) gs.ctm = Util.transform(gs.ctm, Array.from(args![0] as number[])) as number[];
        break;
      case OPS.paintFormXObjectEnd:
        gs = stack.pop() ?? gs;
        break;
      case OPS.setFillRGBColor:
        if (typeof args?.[0] === 'string') gs.fill = (args[0] as string).toLowerCase();
        break;
      case OPS.setStrokeRGBColor:
        if (typeof args?.[0] === 'string') gs.stroke = (args[0] as string).toLowerCase();
        break;
      case OPS.constructPath: {
        const op = args?.[0] as number;
        const data = (args?.[1] as unknown[] | undefined)?.[0] as ArrayLike<number> | undefined;
        if (!data || op === OPS.endPath) break;
        const stroke = STROKE_OPS.has(op) && gs.stroke !== '#ffffff';
        const fill = FILL_OPS.has(op) && gs.fill !== '#ffffff';
        if (!stroke && !fill) break;
        const m = Util.transform(vt, gs.ctm) as number[];
        const P = (x: number, y: number): [number, number] => [m[0]! * x + m[2]! * y + m[4]!, m[1]! * x + m[3]! * y + m[5]!];
        // subpaths of straight segments
        let sub: [number, number][] = [];
        const subs: { pts: [number, number][]; closed: boolean; curved: boolean }[] = [];
        let curved = false;
        const flush = (closed: boolean) => {
          if (sub.length > 1) subs.push({ pts: sub, closed, curved });
          sub = [];
          curved = false;
        };
        for (let k = 0; k < data.length; ) {
          const d = data[k]!;
          if (d === 0) {
            flush(false);
            sub.push(P(data[k + 1]!, data[k + 2]!));
            k += 3;
          } else if (d === 1) {
            sub.push(P(data[k + 1]!, data[k + 2]!));
            k += 3;
          } else if (d === 2) {
            curved = true;
            sub.push(P(data[k + 5]!, data[k + 6]!));
            k += 7;
          } else if (d === 3) {
            curved = true;
            sub.push(P(data[k + 3]!, data[k + 4]!));
            k += 5;
          } else if (d === 4) {
            const first = sub[0];
            flush(true);
            if (first) sub.push(first);
            k += 1;
          } else break;
        }
        flush(false);
        for (const s of subs) {
          if (s.curved) continue;
          const xs = s.pts.map((p) => p[0]);
          const ys = s.pts.map((p) => p[1]);
          const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
          const axisAligned = s.pts.every((p, idx) => {
            const q = s.pts[(idx + 1) % s.pts.length]!;
            return Math.abs(p[0] - q[0]) < 0.5 || Math.abs(p[1] - q[1]) < 0.5;
          });
          if (fill && axisAligned && (s.pts.length >= 4 || s.closed)) {
            // filled rectangles: thin ones are rules, larger ones (cell shading, boxes) contribute their edges
            const w = x1 - x0, h = y1 - y0;
            if (h <= 3 && w > 3) addH(x0, x1, (y0 + y1) / 2);
            else if (w <= 3 && h > 3) addV(y0, y1, (x0 + x1) / 2);
            else if (w > 3 && h > 3 && (w < pageW * 0.95 || h < pageH * 0.95)) {
              addH(x0, x1, y0);
              addH(x0, x1, y1);
              addV(y0, y1, x0);
              addV(y0, y1, x1);
            }
            continue;
          }
          if (!stroke) continue;
          const pts = s.closed ? [...s.pts, s.pts[0]!] : s.pts;
          for (let k = 0; k + 1 < pts.length; k++) {
            const [ax, ay] = pts[k]!;
            const [bx, by] = pts[k + 1]!;
            // A closed path (a stroked rectangle: the frame of a box or of an exhibit) runs back along two of
            // its sides, which count in either direction. Open segments keep their direction test: the grid
            // reader splits tables without outer side rules (LaTeX tables) once all their upward-drawn inner
            // rules are added, and reads them better from their horizontal rules alone.
            if (Math.abs(ay - by) < 1) addH(s.closed ? Math.min(ax, bx) : ax, s.closed ? Math.max(ax, bx) : bx, (ay + by) / 2);
            else if (Math.abs(ax - bx) < 1) addV(s.closed ? Math.min(ay, by) : ay, s.closed ? Math.max(ay, by) : by, (ax + bx) / 2);
          }
        }
        break;
      }
      default:
        break;
    }
  }
  return rules;
}

// ---------- blank pages ----------

const IMAGE_OPS = new Set<number>([
  OPS.paintImageXObject,
  OPS.paintInlineImageXObject,
  OPS.paintInlineImageXObjectGroup,
  OPS.paintImageMaskXObject,
  OPS.paintImageMaskXObjectGroup,
  OPS.paintImageMaskXObjectRepeat,
  OPS.paintImageXObjectRepeat,
  OPS.paintSolidColorImageMask,
  OPS.shadingFill,
]);
const TEXT_OPS = new Set<number>([OPS.showText, OPS.showSpacedText, OPS.nextLineShowText, OPS.nextLineSetSpacingShowText]);
const PAINT_FILL = new Set<number>([...FILL_OPS, (OPS as Record<string, number>).rawFillPath ?? -1]);
/** a colour close to white: paper, a page background */
const light = (c: string | null) => c !== null && /^#[0-9a-f]{6}$/.test(c) && [1, 3, 5].every((i) => parseInt(c.slice(i, i + 2), 16) >= 0xf0);

/**
 * Whether a page paints anything OCR could read: an image or a shading, a path stroked or filled in a
 * colour other than white, or three or more visible glyphs (text without usable Unicode). White fills (a
 * background), invisible text and clipping paths do not count. `imagePixels`: the largest image that was
 * left out undecoded (IMAGE_MARK).
 */
function pageInk(ops: { fnArray: number[]; argsArray: unknown[] }): { painted: boolean; imagePixels: number } {
  let fill: string | null = '#000000';
  let stroke: string | null = '#000000';
  let invisible = false;
  let glyphs = 0;
  let imagePixels = 0;
  let painted = false;
  const stack: { fill: string | null; stroke: string | null; invisible: boolean }[] = [];
  const { fnArray, argsArray } = ops;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i]!;
    const args = argsArray[i] as unknown[] | null;
    if (IMAGE_OPS.has(fn)) painted = true;
    else if (fn === OPS.markPoint && args?.[0] === IMAGE_MARK) {
      painted = true;
      imagePixels = Math.max(imagePixels, Number(args[1]) * Number(args[2]) || 0);
    } else if (fn === OPS.save || fn === OPS.paintFormXObjectBegin) stack.push({ fill, stroke, invisible });
    else if (fn === OPS.restore || fn === OPS.paintFormXObjectEnd) ({ fill, stroke, invisible } = stack.pop() ?? { fill, stroke, invisible });
    else if (fn === OPS.setFillRGBColor) fill = typeof args?.[0] === 'string' ? (args[0] as string).toLowerCase() : null;
    else if (fn === OPS.setStrokeRGBColor) stroke = typeof args?.[0] === 'string' ? (args[0] as string).toLowerCase() : null;
    else if (fn === OPS.setFillColorN || fn === OPS.setFillColor) fill = null; // a pattern or an unconverted colour
    else if (fn === OPS.setStrokeColorN || fn === OPS.setStrokeColor) stroke = null;
    else if (fn === (OPS as Record<string, number>).setFillTransparent) fill = 'none';
    else if (fn === (OPS as Record<string, number>).setStrokeTransparent) stroke = 'none';
    else if (fn === OPS.setTextRenderingMode) invisible = (Number(args?.[0]) & 3) === 3;
    else if (TEXT_OPS.has(fn)) {
      if (!invisible) {
        const list = (fn === OPS.nextLineSetSpacingShowText ? args?.[2] : args?.[0]) as ({ unicode?: string } | number | null)[] | undefined;
        if (Array.isArray(list)) for (const g of list) if (g && typeof g === 'object' && g.unicode !== ' ') glyphs++;
        if (glyphs >= 3) painted = true;
      }
    } else if (fn === OPS.constructPath) {
      const op = args?.[0] as number;
      if ((STROKE_OPS.has(op) && stroke !== 'none' && !light(stroke)) || (PAINT_FILL.has(op) && fill !== 'none' && !light(fill))) painted = true;
    }
    if (painted && !imagesMarked) break;
  }
  return { painted, imagePixels };
}

// ---------- pages ----------

/** QUIRE_PDF_DEBUG=1: time spent per phase and heap size, printed to stderr when a job is released. */
const TIMING = process.env.QUIRE_PDF_DEBUG === '1' ? new Map<string, number>() : null;
const tick = (k: string, t0: number) => {
  if (TIMING) TIMING.set(k, (TIMING.get(k) ?? 0) + performance.now() - t0);
  return performance.now();
};
const printTiming = () =>
  TIMING && console.error(`[pdf worker ${process.pid}] ms ${JSON.stringify(Object.fromEntries([...TIMING].map(([k, v]) => [k, Math.round(v)])))}; heap ${(v8.getHeapStatistics().used_heap_size / 1048576).toFixed(0)} MiB`);

async function parsePage(doc: PDFDocumentProxy, n: number): Promise<PageResult> {
  let t = performance.now();
  const page = await doc.getPage(n);
  t = tick('getPage', t);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const vt = viewport.transform as number[];
    const result: PageResult = { number: n, width: round2(viewport.width), height: round2(viewport.height), needsOcr: false, elements: [] };
    // normalisation (ligatures, presentation forms) is done here, after pdf.js has put right-to-left runs
    // in logical order: normalising first would reverse the letters of a lam-alef ligature
    const tc = (await page.getTextContent({ disableNormalization: true })) as unknown as Parameters<typeof textItems>[1];
    t = tick('text', t);
    TIMING?.set('pages', (TIMING.get('pages') ?? 0) + 1);
    const chars = tc.items.reduce((a: number, it) => a + (typeof (it as { str?: string }).str === 'string' ? (it as { str: string }).str.trim().length : 0), 0);
    const fields = await formItems(doc, page, vt);
    if (chars < 3) {
      // no text layer: a scan or drawn text to OCR, or a blank page (nothing painted, or only a white
      // background) that OCR would spend seconds on for nothing. Annotations count (filled-in forms).
      const ops = await page.getOperatorList({ annotationMode: AnnotationMode.ENABLE });
      t = tick('ops', t);
      const ink = pageInk(ops as unknown as { fnArray: number[]; argsArray: unknown[] });
      if (ink.imagePixels) result.imagePixels = ink.imagePixels;
      if (ink.painted || !imagesMarked) result.needsOcr = true; // without image marks a scan would look blank: the rendered pixels tell
      else result.blank = true;
      if (chars > 0 || fields.length) {
        // a page number or a mark, the values of form fields: kept as text (OCR, when it runs, reads the page anew)
        const { items } = textItems(page, tc, vt);
        result.elements = layoutPage([...items, ...fields], [], { width: viewport.width, height: viewport.height });
      }
      return result;
    }
    // The operator list (a second pass over the content) gives ruling lines and the fonts' names (bold).
    // It is read when the page uses a font not seen on an earlier page or when its text could be a table.
    let rules: Rule[] = [];
    let { items, rotated } = textItems(page, tc, vt);
    items.push(...fields);
    const fontsKnown = tc.items.every((it) => {
      const f = (it as { fontName?: string }).fontName;
      return !f || page.commonObjs.has(f);
    });
    if (!fontsKnown || mayHaveTable(items)) {
      const ops = await page.getOperatorList({ annotationMode: AnnotationMode.DISABLE });
      t = tick('ops', t);
      TIMING?.set(fontsKnown ? 'opsForTables' : 'opsForFonts', (TIMING.get(fontsKnown ? 'opsForTables' : 'opsForFonts') ?? 0) + 1);
      rules = extractRules(ops as unknown as { fnArray: number[]; argsArray: unknown[] }, vt, viewport.width, viewport.height);
      if (!fontsKnown) {
        ({ items, rotated } = textItems(page, tc, vt));
        items.push(...fields);
      }
    }
    t = tick('rules+items', t);
    const elements: PageElement[] = layoutPage(items, rules, { width: viewport.width, height: viewport.height, markHyphenBreaks: true });
    t = tick('layout', t);
    for (const r of rotated) {
      elements.push({ kind: 'text', type: 'paragraph', text: r.str.trim(), bbox: { x: round2(r.x), y: round2(r.top), width: round2(r.width), height: round2(r.bottom - r.top) }, lines: 1, size: r.size, bold: r.bold });
    }
    result.elements = elements;
    return result;
  } finally {
    page.cleanup();
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

async function pages(jobId: string, file: string, from: number, to: number): Promise<PageResult[]> {
  const doc = await getDoc(jobId, file);
  const out: PageResult[] = [];
  for (let n = from; n <= to; n++) {
    try {
      out.push(await parsePage(doc, n));
    } catch (e) {
      out.push({ number: n, width: 0, height: 0, needsOcr: false, elements: [], error: e instanceof Error ? e.message : String(e) });
    }
  }
  // drop pdf.js's per-document caches (parsed objects, fonts) when they grow: memory stays flat on long
  // files, and short ones keep their fonts (translating fonts is the costly part of a page)
  if (v8.getHeapStatistics().used_heap_size > CLEANUP_HEAP_BYTES) await doc.cleanup();
  return out;
}

/** largest page image for OCR (80 MB of RGBA): an A4 page fits at 300 dpi, larger pages are drawn at less */
const MAX_PIXELS = 20_000_000;

async function render(jobId: string, file: string, n: number, dpi: number, out: string, rotate = 0, maxPixels = MAX_PIXELS, imagePixels = DEFAULT_IMAGE_PIXELS): Promise<{ dpi: number; width: number; height: number; rules: Rule[]; blank?: boolean }> {
  const doc = await getDoc(jobId, file, true, imagePixels);
  const page = await doc.getPage(n);
  try {
    const base = page.getViewport({ scale: 1 });
    let scale = dpi / 72;
    const cap = Math.min(MAX_PIXELS, maxPixels);
    if (base.width * base.height * scale * scale > cap) scale = Math.sqrt(cap / (base.width * base.height));
    while (scale > 0.01 && Math.ceil(base.width * scale) * Math.ceil(base.height * scale) > cap) scale *= 0.999; // whole pixels
    // `rotate`: clockwise degrees on top of the page's own rotation (to turn a scan upright for OCR)
    const viewport = page.getViewport({ scale, rotation: (((page.rotate + rotate) % 360) + 360) % 360 });
    const factory = (doc as unknown as { canvasFactory: { create(w: number, h: number): { canvas: { width: number; height: number; encode(f: string): Promise<Buffer> }; context: CanvasRenderingContext2D }; destroy(c: unknown): void } }).canvasFactory;
    const cc = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
    try {
      cc.context.fillStyle = '#ffffff';
      cc.context.fillRect(0, 0, cc.canvas.width, cc.canvas.height);
      await page.render({ canvasContext: cc.context, viewport, annotationMode: AnnotationMode.ENABLE } as unknown as Parameters<PDFPageProxy['render']>[0]).promise;
      // the decoded images of the page are not needed once it is drawn
      page.cleanup();
      const pixels = (cc.context as unknown as { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } }).getImageData(0, 0, cc.canvas.width, cc.canvas.height).data;
      // a blank page (a white scan, shapes drawn in white): nothing to OCR, no image written
      if (uniformPixels(pixels, cc.canvas.width, cc.canvas.height)) return { dpi: scale * 72, width: cc.canvas.width, height: cc.canvas.height, rules: [], blank: true };
      // ruling lines in the pixels (table borders of the scan), for tables in the OCR text
      const rules = detectRules({ data: pixels, width: cc.canvas.width, height: cc.canvas.height });
      await fs.writeFile(out, await cc.canvas.encode('png'));
      return { dpi: scale * 72, width: cc.canvas.width, height: cc.canvas.height, rules };
    } finally {
      // the canvas's pixels are freed now, not when the garbage collector finds it
      factory.destroy(cc);
    }
  } finally {
    page.cleanup();
  }
}

interface CanvasRenderingContext2D {
  fillStyle: string;
  fillRect(x: number, y: number, w: number, h: number): void;
}

async function handle(msg: WorkerRequest): Promise<unknown> {
  switch (msg.type) {
    case 'open':
      return open(msg.jobId, msg.path, msg.firstTo, msg.pageLimit);
    case 'load':
      // open the document ahead of the page ranges this worker will be given
      if (!released.has(msg.jobId)) await getDoc(msg.jobId, msg.path).catch(() => {});
      return null;
    case 'pages':
      return pages(msg.jobId, msg.path, msg.from, msg.to);
    case 'render':
      return render(msg.jobId, msg.path, msg.page, msg.dpi, msg.out, msg.rotate, msg.maxPixels, msg.imagePixels);
    case 'release':
      await release(msg.jobId);
      printTiming();
      return null;
  }
}

const { port } = isolatePort();
port.on('message', (msg: WorkerRequest) => {
  handle(msg).then(
    (result) => port.postMessage({ id: msg.id, ok: true, result } satisfies WorkerResponse),
    (e: unknown) => {
      const err = e as { name?: string; message?: string };
      port.postMessage({ id: msg.id, ok: false, error: { name: err?.name ?? 'Error', message: err?.message ?? String(e) } } satisfies WorkerResponse);
    },
  );
});
port.postMessage({ ready: true });
