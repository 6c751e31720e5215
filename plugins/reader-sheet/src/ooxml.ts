/**
 * OOXML workbooks (xlsx, xlsm, xltx, xltm) read straight from the package, in bounded memory:
 *
 * - parts are inflated through ZipArchive within ReadLimits.decompressedBytes (one part at most half);
 * - worksheets are parsed while they inflate (saxes, no tree) and only cells with a value are
 *   kept, counted as they are read: more than ReadLimits.cells fails the read at once (UNPROCESSABLE), the
 *   reader option maxCells truncates instead;
 * - shared strings stay as the inflated bytes of their part with an index of where each string is, parsed
 *   (saxes) when a cell refers to it;
 * - more sheets than ReadLimits.pages fails the read; XML parts with a DTD are refused.
 *
 * Values: cached formula results, shared and inline strings (rich text joined, phonetic runs left out),
 * booleans, errors, ISO dates for date-formatted numbers (built-in and custom formats, 1900 and 1904 date
 * systems) and for t="d" cells; merged cells as spans (cells covered by a merge other than its first are
 * left out).
 */
import { errors } from '@quire/core';
import type { ReadLimits, ZipArchive } from '@quire/core';
import { XmlScanError, assertNoDtd, mainPartPath, openPackage, parseChart, parseRels, partBytes, partText, relsOf } from '@quire/office';
import type { ChartInfo } from '@quire/office';
import type { Merge, SheetCell, SheetData } from './model.js';
import { canonicalNumber, dateFromSerial, isoFromDate } from './model.js';
import { XmlTokenizer, attr, decodeXml, localName } from './xmlstream.js';
import type { XmlAttrs } from './xmlstream.js';
import { checkAbort } from './util.js';

export interface CellBudget {
  /** cells still allowed before truncating (the reader option maxCells) */
  remaining: number;
  truncated: boolean;
  /** ReadLimits.cells: a read with more cells than this fails */
  limit?: number;
  /** cells taken so far */
  count?: number;
  /** the format, for the refusal message */
  label?: string;
}

/** Takes one cell from the budget: false when truncated (maxCells); throws UNPROCESSABLE past the cell limit. */
export function takeCell(budget: CellBudget): boolean {
  if (budget.remaining <= 0) {
    budget.truncated = true;
    return false;
  }
  budget.count = (budget.count ?? 0) + 1;
  if (budget.limit !== undefined && budget.count > budget.limit) throw cellLimitError(budget);
  budget.remaining--;
  return true;
}

export function cellLimitError(budget: CellBudget, why = ''): Error {
  return errors.unprocessable(`${budget.label ?? 'the workbook'} exceeds ${(budget.limit ?? 0).toLocaleString('en')} cells${why}`, { limit_cells: budget.limit });
}

/** Whether an Excel number format shows a date or time. */
export function isDateFormat(fmt: string | undefined | null): boolean {
  if (!fmt || /^general$/i.test(fmt)) return false;
  const bare = fmt
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/\[(?!h\]|hh\]|m\]|mm\]|s\]|ss\])[^\]]*\]/gi, '');
  return /[dmyhs]/i.test(bare) && !/^[#0.,%E+\- ]*$/i.test(bare);
}

/** Built-in number formats that are dates or times (ECMA-376 18.8.30, and the East Asian ones). */
const BUILTIN_DATE = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
/** Cell formats kept from styles.xml (Excel allows 64,000). */
const MAX_XFS = 100_000;
/** Characters kept of one cell's text (Excel's own limit is 32,767). */
const MAX_CELL_CHARS = 32_767;
/** Bytes of one shared string decoded (longer ones are cut: no real cell comes near). */
const MAX_STRING_BYTES = 256 * 1024;
/** Largest workbook.xml, relationships or chart part (each is parsed whole). */
const MAX_SMALL_PART = 16 * 1024 * 1024;

/** Parses a whole small part with the tokenizer (so namespace prefixes and quoting are handled the same way). */
function tokenize(xml: string, open: (name: string, attrs: XmlAttrs, empty: boolean) => void): void {
  const t = new XmlTokenizer({ open: (n, a, e) => open(localName(n), a, e), close: () => {}, text: () => {} });
  t.push(xml);
  t.end();
}

/** Which cell formats (xf index) show dates. */
async function dateStyles(zip: ZipArchive, path: string | undefined): Promise<Uint8Array> {
  if (!path || !zip.has(path)) return new Uint8Array(0);
  const custom = new Map<number, string>();
  const xfs: number[] = [];
  let inCellXfs = false;
  const tok = new XmlTokenizer({
    open(name, attrs, empty) {
      const ln = localName(name);
      if (ln === 'numFmt') {
        const id = Number(attr(attrs, 'numFmtId'));
        const code = attr(attrs, 'formatCode');
        if (Number.isFinite(id) && code !== undefined && custom.size < MAX_XFS) custom.set(id, code);
      } else if (ln === 'cellXfs') inCellXfs = !empty;
      else if (ln === 'xf' && inCellXfs && xfs.length < MAX_XFS) xfs.push(Number(attr(attrs, 'numFmtId') ?? 0));
    },
    close(name) {
      if (localName(name) === 'cellXfs') inCellXfs = false;
    },
    text() {},
  });
  let first = true;
  await zip.stream(path, (chunk) => {
    if (first) assertNoDtd(chunk, zip.label, path);
    first = false;
    tok.pushBytes(chunk);
  });
  tok.end();
  const out = new Uint8Array(xfs.length);
  xfs.forEach((id, i) => (out[i] = BUILTIN_DATE.has(id) || (custom.has(id) && isDateFormat(custom.get(id))) ? 1 : 0));
  return out;
}

/** The shared-strings table: the inflated part and where each string (<si>) lies in it. */
class SharedStrings {
  private starts = new Float64Array(1024);
  private ends = new Float64Array(1024);
  count = 0;
  /** parses one <si> at a time (reused; made again after a string cut at MAX_STRING_BYTES) */
  private tok: XmlTokenizer | undefined;
  private text = '';
  private inPhonetic = false;

  constructor(
    private readonly bytes: Buffer | undefined,
    budget: CellBudget,
  ) {
    if (!bytes) return;
    const b = bytes;
    // <si> elements (any namespace prefix): start tags found natively, each ended by its </…si>
    let at = 0;
    for (;;) {
      const lt = b.indexOf('si', at);
      if (lt < 0) break;
      at = lt + 2;
      const before = b[lt - 1];
      const after = b[lt + 2];
      if (!(before === 0x3c || (before === 0x3a && isTagPrefix(b, lt - 1, false)))) continue;
      if (after !== 0x3e && after !== 0x20 && after !== 0x2f && after !== 0x09 && after !== 0x0a && after !== 0x0d) continue;
      const gt = b.indexOf(0x3e, lt);
      if (gt < 0) break;
      let end = -1;
      if (b[gt - 1] === 0x2f) end = gt + 1; // <si/>
      else {
        // its end tag: </si> or </x:si> (text may hold a bare "si>")
        for (let p = b.indexOf('si>', gt); p >= 0; p = b.indexOf('si>', p + 3)) {
          if ((b[p - 1] === 0x2f && b[p - 2] === 0x3c) || (b[p - 1] === 0x3a && isTagPrefix(b, p - 1, true))) {
            end = p + 3;
            break;
          }
        }
        if (end < 0) throw new XmlScanError('an unclosed shared string');
      }
      this.push(b.lastIndexOf(0x3c, lt), end, budget); // from its '<'
      at = end;
    }
  }

  private push(start: number, end: number, budget: CellBudget): void {
    if (budget.limit !== undefined && this.count >= budget.limit) throw cellLimitError(budget, ' (its shared-strings table alone has more strings)');
    if (this.count === this.starts.length) {
      const grow = (a: Float64Array) => {
        const g = new Float64Array(a.length * 2);
        g.set(a);
        return g;
      };
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
    }
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.count++;
  }

  /** String `i`: its <t> runs joined (phonetic <rPh> runs left out), or undefined. */
  get(i: number): string | undefined {
    if (!this.bytes || !(i >= 0 && i < this.count)) return undefined;
    const start = this.starts[i]!;
    const whole = this.ends[i]!;
    const end = Math.min(whole, start + MAX_STRING_BYTES);
    const tok = (this.tok ??= this.tokenizer());
    this.text = '';
    this.inPhonetic = false;
    tok.wantText = false;
    tok.pushBytes(this.bytes.subarray(start, end));
    if (end === whole) tok.end();
    else this.tok = undefined; // cut: the rest of this string is not read, nor this parser used again
    return decodeXml(this.text);
  }

  private tokenizer(): XmlTokenizer {
    const tok: XmlTokenizer = new XmlTokenizer({
      open: (name, _attrs, empty) => {
        const ln = localName(name);
        if (ln === 'rPh') this.inPhonetic = !empty;
        else if (ln === 't' && !empty && !this.inPhonetic) tok.wantText = true;
      },
      close: (name) => {
        const ln = localName(name);
        if (ln === 't') tok.wantText = false;
        else if (ln === 'rPh') this.inPhonetic = false;
      },
      text: (t) => {
        this.text += t;
      },
    });
    return tok;
  }
}

/** True when the ':' at `colon` ends a tag's namespace prefix: name characters back to '<' (start tag) or '</' (end tag). */
function isTagPrefix(b: Buffer, colon: number, endTag: boolean): boolean {
  for (let p = colon - 1; p >= 0 && colon - p <= 32; p--) {
    const c = b[p]!;
    if (c === 0x2f && endTag) return p < colon - 1 && b[p - 1] === 0x3c;
    if (c === 0x3c) return !endTag && p < colon - 1;
    if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d || c === 0x2e)) return false;
  }
  return false;
}

/** "AB12" → [row 11, col 27]; null for anything else. */
function cellRef(ref: string): [number, number] | null {
  let col = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) col = col * 26 + (c - 0x40);
    else if (c >= 0x61 && c <= 0x7a) col = col * 26 + (c - 0x60);
    else break;
  }
  if (!i || i === ref.length || i > 3) return null;
  const row = Number(ref.slice(i).replace(/^\$/, ''));
  return Number.isInteger(row) && row > 0 ? [row - 1, col - 1] : null;
}

function mergeRef(ref: string | undefined): Merge | null {
  if (!ref) return null;
  const [a, b] = ref.replace(/\$/g, '').split(':');
  const p = a ? cellRef(a) : null;
  const q = b ? cellRef(b) : p;
  if (!p || !q) return null;
  return { r0: Math.min(p[0], q[0]), c0: Math.min(p[1], q[1]), r1: Math.max(p[0], q[0]), c1: Math.max(p[1], q[1]) };
}

interface SheetContext {
  zip: ZipArchive;
  strings: SharedStrings;
  dates: Uint8Array;
  date1904: boolean;
  budget: CellBudget;
  signal?: AbortSignal;
}

/** One worksheet, parsed while it inflates. Stops inflating once the budget is truncated. */
async function readSheet(ctx: SheetContext, name: string, path: string): Promise<SheetData> {
  const cells: SheetCell[] = [];
  const merges: Merge[] = [];
  let row = -1;
  let col = -1;
  // the cell being read
  let inCell = false;
  let r = 0;
  let c = 0;
  let type = 'n';
  let style = 0;
  let raw = '';
  let hasValue = false;
  let inInline = false;
  let inPhonetic = false;
  let steps = 0;

  const finishCell = () => {
    inCell = false;
    if (!hasValue) return;
    const v = value(ctx, type, raw, style);
    if (!v || !v.text) return;
    if (!takeCell(ctx.budget)) return;
    cells.push({ r, c, text: v.text, kind: v.kind });
  };
  const tok: XmlTokenizer = new XmlTokenizer({
    open(qname, attrs, empty) {
      const ln = localName(qname);
      switch (ln) {
        case 'row': {
          const n = Number(attr(attrs, 'r'));
          row = Number.isInteger(n) && n > 0 ? n - 1 : row + 1;
          col = -1;
          break;
        }
        case 'c': {
          const ref = attr(attrs, 'r');
          const at = ref ? cellRef(ref) : null;
          r = at ? at[0] : Math.max(row, 0);
          c = at ? at[1] : col + 1;
          col = c;
          type = attr(attrs, 't') ?? 'n';
          style = Number(attr(attrs, 's') ?? 0) || 0;
          raw = '';
          hasValue = false;
          inInline = false;
          inCell = !empty;
          if (++steps % 4096 === 0) checkAbort(ctx.signal);
          break;
        }
        case 'v':
          if (inCell && !empty) {
            tok.wantText = true;
            hasValue = true;
          }
          break;
        case 'is':
          if (inCell) inInline = !empty;
          break;
        case 'rPh':
          inPhonetic = !empty;
          break;
        case 't':
          if (inCell && inInline && !inPhonetic) {
            hasValue = true;
            if (!empty) tok.wantText = true;
          }
          break;
        case 'mergeCell': {
          const m = mergeRef(attr(attrs, 'ref'));
          if (m && (m.r1 > m.r0 || m.c1 > m.c0)) {
            if (ctx.budget.limit !== undefined && merges.length >= ctx.budget.limit) throw cellLimitError(ctx.budget, ' (merged ranges)');
            merges.push(m);
          }
          break;
        }
      }
    },
    close(qname) {
      const ln = localName(qname);
      if (ln === 'v' || ln === 't') tok.wantText = false;
      else if (ln === 'rPh') inPhonetic = false;
      else if (ln === 'is') inInline = false;
      else if (ln === 'c' && inCell) finishCell();
    },
    text(t) {
      if (raw.length < MAX_CELL_CHARS * 6) raw += t;
    },
  });

  let first = true;
  const found = await ctx.zip.stream(path, (chunk) => {
    if (first) assertNoDtd(chunk, ctx.zip.label, path);
    first = false;
    tok.pushBytes(chunk);
    return !ctx.budget.truncated; // stop inflating once truncated (maxCells)
  });
  if (found && !ctx.budget.truncated) tok.end();
  return { name, cells: dropCovered(cells, merges), merges };
}

function value(ctx: SheetContext, type: string, rawText: string, style: number): { text: string; kind: SheetCell['kind'] } | null {
  switch (type) {
    case 's': {
      const s = ctx.strings.get(Number.parseInt(rawText, 10));
      return s === undefined ? null : { text: clip(s.trim()), kind: 'text' };
    }
    case 'inlineStr':
    case 'str':
      return { text: clip(decodeXml(rawText).trim()), kind: 'text' };
    case 'b':
      return { text: rawText.trim() === '1' || rawText.trim().toLowerCase() === 'true' ? 'TRUE' : 'FALSE', kind: 'bool' };
    case 'e':
      return { text: clip(decodeXml(rawText).trim()), kind: 'error' };
    case 'd': {
      const t = decodeXml(rawText).trim();
      const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(t) || !/T/.test(t) ? t : `${t}Z`);
      return { text: Number.isFinite(d.getTime()) ? isoFromDate(d) : t, kind: 'date' };
    }
    default: {
      const t = rawText.trim();
      if (!t) return null;
      const n = Number(t);
      if (!Number.isFinite(n)) return { text: clip(decodeXml(t)), kind: 'text' };
      if (ctx.dates[style]) return { text: isoFromDate(dateFromSerial(n, ctx.date1904)), kind: 'date' };
      return { text: canonicalNumber(n), kind: 'number' };
    }
  }
}

const clip = (s: string) => (s.length > MAX_CELL_CHARS ? s.slice(0, MAX_CELL_CHARS) : s);

/** Cells covered by a merge but not its first (top-left) cell are left out (their merge spans them). */
function dropCovered(cells: SheetCell[], merges: Merge[]): SheetCell[] {
  if (!merges.length || !cells.length) return cells;
  const byRow = [...merges].sort((a, b) => a.r0 - b.r0);
  const order = cells.map((_, i) => i).sort((a, b) => cells[a]!.r - cells[b]!.r || cells[a]!.c - cells[b]!.c);
  const drop = new Uint8Array(cells.length);
  let next = 0;
  let active: Merge[] = [];
  let activeRow = -1;
  for (const i of order) {
    const cell = cells[i]!;
    if (cell.r !== activeRow) {
      activeRow = cell.r;
      active = active.filter((m) => m.r1 >= cell.r);
      while (next < byRow.length && byRow[next]!.r0 <= cell.r) {
        if (byRow[next]!.r1 >= cell.r) active.push(byRow[next]!);
        next++;
      }
    }
    for (const m of active) {
      if (cell.c >= m.c0 && cell.c <= m.c1 && (cell.r !== m.r0 || cell.c !== m.c0)) {
        drop[i] = 1;
        break;
      }
    }
  }
  return cells.filter((_, i) => !drop[i]);
}

export interface OoxmlRead {
  bytes: Uint8Array;
  label: string;
  limits: ReadLimits;
  budget: CellBudget;
  signal?: AbortSignal;
  /** read only the first sheets (anonymous conversions) */
  maxSheets?: number;
}

const NOT_EXCEL = 'the file is damaged or not an Excel workbook';

/** Reads the sheets of a workbook (tab order) and their charts. */
export async function readOoxml(o: OoxmlRead): Promise<{ sheets: SheetData[]; charts: () => Promise<Map<string, ChartInfo[]>> }> {
  const zip = openPackage(o.bytes, { label: o.label, limits: o.limits, signal: o.signal });
  const wbPath = await mainPartPath(zip, 'xl/workbook.xml');
  const wbXml = await partText(zip, wbPath, { maxBytes: MAX_SMALL_PART });
  if (wbXml === undefined) throw errors.processing(`${o.label} could not be read: ${NOT_EXCEL} (xl/workbook.xml is missing)`);
  const wbRelsPath = relsOf(wbPath);
  const rels = parseRels((await partText(zip, wbRelsPath, { maxBytes: MAX_SMALL_PART })) ?? '', wbRelsPath);
  let date1904 = false;
  const listed: { name: string; path: string }[] = [];
  tokenize(wbXml, (ln, attrs) => {
    if (ln === 'workbookPr') date1904 = /^(1|true)$/i.test(attr(attrs, 'date1904') ?? '');
    else if (ln === 'sheet') {
      const rel = rels.get(attr(attrs, 'r:id') ?? attr(attrs, 'id') ?? '');
      if (rel && rel.type.endsWith('/worksheet') && zip.has(rel.target)) listed.push({ name: attr(attrs, 'name') ?? `Sheet${listed.length + 1}`, path: rel.target });
    }
  });
  if (listed.length > o.limits.pages) {
    throw errors.unprocessable(`${o.label} exceeds ${o.limits.pages.toLocaleString('en')} pages (it has ${listed.length.toLocaleString('en')} sheets)`, { limit_pages: o.limits.pages });
  }
  const relOfType = (type: string) => [...rels.values()].find((r) => r.type.endsWith(`/${type}`))?.target;
  const dates = await dateStyles(zip, relOfType('styles') ?? 'xl/styles.xml');
  const sstPath = relOfType('sharedStrings') ?? 'xl/sharedStrings.xml';
  const strings = new SharedStrings(await partBytes(zip, sstPath), o.budget);
  checkAbort(o.signal);
  const ctx: SheetContext = { zip, strings, dates, date1904, budget: o.budget, signal: o.signal };
  const sheets: SheetData[] = [];
  for (const s of listed) {
    if (o.maxSheets && sheets.length >= o.maxSheets) break;
    checkAbort(o.signal);
    sheets.push(await readSheet(ctx, s.name, s.path));
    if (o.budget.truncated) break;
  }
  return { sheets, charts: () => sheetCharts(zip, listed) };
}

/** Charts drawn on each sheet (by sheet name), read from the package parts; empty when there are none. */
async function sheetCharts(zip: ZipArchive, sheets: { name: string; path: string }[]): Promise<Map<string, ChartInfo[]>> {
  const out = new Map<string, ChartInfo[]>();
  if (!zip.names().some((n) => /\/charts\/chart[^/]*\.xml$/.test(n))) return out;
  const text = async (name: string) => (await partText(zip, name, { maxBytes: MAX_SMALL_PART })) ?? '';
  for (const sheet of sheets) {
    const charts: ChartInfo[] = [];
    for (const d of parseRels(await text(relsOf(sheet.path)), relsOf(sheet.path)).values()) {
      if (!d.type.endsWith('/drawing')) continue;
      for (const c of parseRels(await text(relsOf(d.target)), relsOf(d.target)).values()) {
        if (!c.type.endsWith('/chart')) continue;
        const info = parseChart(await text(c.target));
        if (info) charts.push(info);
      }
    }
    if (charts.length) out.set(sheet.name, charts);
  }
  return out;
}

