/**
 * Supported input formats and format detection from the file's bytes.
 *
 * detectFormat reads only what it needs: the first bytes for magic numbers, the ZIP central directory
 * (and [Content_Types].xml) for OOXML, the compound-file directory for legacy Office, and a small text
 * sample for the text formats. The extension decides only between the text formats (txt, csv, html).
 * Readers extend it with the formats they declare (FormatDeclaration); the registry's detectFormat passes
 * those of the active readers.
 */
import fs from 'node:fs/promises';
import zlib from 'node:zlib';

export type FormatFamily = 'document' | 'image' | 'spreadsheet' | 'presentation';

export interface FormatInfo {
  format: string;
  mime: string;
  family: FormatFamily;
  /** file extensions (lowercase, no dot); the first is the canonical one */
  extensions: string[];
}

const f = (format: string, mime: string, family: FormatFamily, extensions: string[] = [format]): FormatInfo => ({ format, mime, family, extensions });

/** Bytes at a position of a file: numbers, or a string taken as latin1 (one byte per character). */
export interface MagicBytes {
  bytes: number[] | string;
  /** where they start (default 0); within the first 8 KB */
  offset?: number;
}

/**
 * A format a reader reads and how a file of it is recognised. Quire detects a file's format from its
 * bytes before choosing the reader; the name's extension only chooses among text formats.
 *
 * `detect`:
 * - `'text'` (the default): a text file (any encoding Quire recognises, see textEncoding) whose name ends
 *   with one of `extensions`, unless it is an HTML page (a doctype or <html> tag: html whatever its name).
 *   Checked before Quire's own txt/csv/html choice by extension, so it may claim any extension.
 * - `{ magic }`: the file starts with one of these byte strings (at its offset), whatever its name.
 * - `{ sniff }`: the reader's own test of the file's first 8 KB (`head`) and its name. With `magic` too,
 *   either one recognises the file.
 * - `'builtin'`: Quire's own detection (core's formats.ts: magic numbers, the ZIP and compound-file
 *   directories, text sniffing); only for the formats of SUPPORTED_FORMATS. The built-in readers use it.
 *
 * Signatures (magic, sniff) are tried first, then Quire's own binary detection; a text file is html when
 * it is an HTML page, else the declared text format of its extension, else txt, csv or html by extension.
 * When two readers declare the same format, the one registered later takes it over (its declaration and
 * its reader), as with plugins of the same name: a third-party reader in QUIRE_PLUGINS can replace the
 * reader of a built-in format. A reader puts its declarations in its definition's `formats`.
 */
export interface FormatDeclaration {
  /** format id: lowercase letters, digits and . _ + - (e.g. 'md'); documents carry it as file_type */
  format: string;
  /** file extensions, e.g. ['.md', '.markdown']; the first is the canonical one */
  extensions: string[];
  mime: string;
  /** default 'document' */
  family?: FormatFamily;
  detect?: 'text' | 'builtin' | { magic?: MagicBytes[]; sniff?(head: Buffer, name: string): boolean };
}

/** Every format Quire accepts, keyed by format id. */
export const SUPPORTED_FORMATS: Readonly<Record<string, Readonly<FormatInfo>>> = Object.freeze({
  pdf: f('pdf', 'application/pdf', 'document'),
  docx: f('docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document'),
  doc: f('doc', 'application/msword', 'document'),
  txt: f('txt', 'text/plain', 'document'),
  html: f('html', 'text/html', 'document', ['html', 'htm']),
  rtf: f('rtf', 'application/rtf', 'document'),
  png: f('png', 'image/png', 'image'),
  jpg: f('jpg', 'image/jpeg', 'image', ['jpg', 'jpeg']),
  gif: f('gif', 'image/gif', 'image'),
  bmp: f('bmp', 'image/bmp', 'image'),
  tiff: f('tiff', 'image/tiff', 'image', ['tiff', 'tif']),
  csv: f('csv', 'text/csv', 'spreadsheet'),
  xlsx: f('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'spreadsheet'),
  xls: f('xls', 'application/vnd.ms-excel', 'spreadsheet'),
  xlsm: f('xlsm', 'application/vnd.ms-excel.sheet.macroEnabled.12', 'spreadsheet'),
  xltx: f('xltx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.template', 'spreadsheet'),
  xltm: f('xltm', 'application/vnd.ms-excel.template.macroEnabled.12', 'spreadsheet'),
  qpw: f('qpw', 'application/x-quattro-pro', 'spreadsheet'),
  pptx: f('pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'presentation'),
  ppt: f('ppt', 'application/vnd.ms-powerpoint', 'presentation'),
});

/** Lowercase extension of a file name without the dot ('' when none). */
export function extensionOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1).toLowerCase() : '';
}

/** The format whose extensions include `ext` (e.g. 'jpeg' → jpg), or null. */
export function formatForExtension(ext: string): FormatInfo | null {
  const e = ext.toLowerCase().replace(/^\./, '');
  for (const info of Object.values(SUPPORTED_FORMATS)) if (info.extensions.includes(e)) return info;
  return null;
}

/**
 * Declarations of built-in formats, recognised by Quire's own detection below: what the built-in readers
 * put in their definition's `formats`, e.g. `formats: builtinFormats('csv', 'xlsx')`.
 */
export function builtinFormats(...ids: string[]): FormatDeclaration[] {
  return ids.map((id) => {
    const info = SUPPORTED_FORMATS[id];
    if (!info) throw new Error(`${id} is not a built-in format; known: ${Object.keys(SUPPORTED_FORMATS).join(', ')}`);
    return { format: info.format, extensions: info.extensions.map((e) => `.${e}`), mime: info.mime, family: info.family, detect: 'builtin' };
  });
}

export interface DetectedFormat {
  format: string;
  mime: string;
}

const HEAD_BYTES = 8192;

/** A declaration's extensions, lowercase and without the dot. */
const extensionsOf = (d: FormatDeclaration) => d.extensions.map((e) => e.toLowerCase().replace(/^\./, ''));

/** Whether the file's first bytes (and name) match a declaration's magic bytes or sniff test. */
function matchesSignature(d: FormatDeclaration, head: Buffer, name: string): boolean {
  if (typeof d.detect !== 'object') return false;
  for (const m of d.detect.magic ?? []) {
    const bytes = typeof m.bytes === 'string' ? [...Buffer.from(m.bytes, 'latin1')] : m.bytes;
    if (startsWith(head, bytes, m.offset ?? 0)) return true;
  }
  try {
    return d.detect.sniff?.(head, name) === true;
  } catch {
    return false; // a sniff test that fails does not recognise the file
  }
}

/**
 * Detects the format of a file from its bytes; the name's extension only chooses among text formats.
 * Returns null for unknown formats and for binary content behind a text extension.
 *
 * `declared`: the formats readers declare (the registry passes those of the active readers, the one that
 * wins first). In order: their signatures (magic, sniff); Quire's own binary detection; then, for text,
 * their extensions; then Quire's txt, csv and html. Without declarations: the built-in formats only.
 */
export async function detectFormat(filePath: string, fileName: string, declared: readonly FormatDeclaration[] = []): Promise<DetectedFormat | null> {
  const as = (format: string): DetectedFormat => ({ format, mime: declared.find((d) => d.format === format)?.mime ?? SUPPORTED_FORMATS[format]!.mime });
  const fh = await fs.open(filePath, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = await readAt(fh, 0, Math.min(HEAD_BYTES, size));
    const signed = declared.find((d) => matchesSignature(d, head, fileName));
    if (signed) return as(signed.format);
    const binary = await sniffBinary(fh, head, size);
    if (binary !== undefined) return binary ? as(binary) : null;
    const encoding = textEncoding(head, size > head.length);
    if (!encoding) return null;
    const sample = decodeSample(head, encoding);
    // an HTML page is html whatever its name; otherwise a declared text format's extension, then txt, csv, html
    if (isHtmlPage(sample)) return as('html');
    const ext = extensionOf(fileName);
    const text = declared.find((d) => (d.detect ?? 'text') === 'text' && extensionsOf(d).includes(ext));
    if (text) return as(text.format);
    const builtin = textByExtension(sample, ext);
    return builtin ? as(builtin) : null;
  } finally {
    await fh.close();
  }
}

/**
 * Quire's own detection of binary formats: a format id, null for a ZIP or compound file that is none of
 * the known formats, undefined when the file has no known signature (it may be text).
 */
async function sniffBinary(fh: Handle, head: Buffer, size: number): Promise<string | null | undefined> {
  const magic = sniffMagic(head);
  if (magic) return magic;
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return sniffZip(fh, size).catch(() => null);
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return sniffCfb(fh, size, head).catch(() => null);
  if (isQuattroBof(head)) return 'qpw';
  return undefined;
}

type Handle = Awaited<ReturnType<typeof fs.open>>;

async function readAt(fh: Handle, position: number, length: number): Promise<Buffer> {
  if (length <= 0) return Buffer.alloc(0);
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return bytesRead < length ? buf.subarray(0, bytesRead) : buf;
}

function startsWith(buf: Buffer, bytes: number[], at = 0): boolean {
  if (buf.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

function sniffMagic(head: Buffer): string | null {
  // PDF allows a little junk before the header; readers accept it within the first KB.
  const pdfAt = head.subarray(0, 1024).indexOf('%PDF-');
  if (pdfAt >= 0) return 'pdf';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpg';
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a') return 'gif';
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (startsWith(head, [0x49, 0x49, 0x2b, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2b])) return 'tiff';
  if (head.length >= 26 && head[0] === 0x42 && head[1] === 0x4d) {
    // BMP: the DIB header size must be one of the known ones (a text file may start with "BM").
    const dib = head.readUInt32LE(14);
    if ([12, 16, 40, 52, 56, 64, 108, 124].includes(dib)) return 'bmp';
  }
  if (head.subarray(0, 5).toString('latin1') === '{\\rtf') return 'rtf';
  return null;
}

// ---------- ZIP (OOXML) ----------

async function sniffZip(fh: Handle, size: number): Promise<string | null> {
  // End of central directory: 22 bytes + up to 64 KiB comment at the end of the file.
  const tailLen = Math.min(size, 22 + 65535);
  const tail = await readAt(fh, size - tailLen, tailLen);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail[i] === 0x50 && tail[i + 1] === 0x4b && tail[i + 2] === 0x05 && tail[i + 3] === 0x06) {
      eocd = i;
      break;
    }
  }
  let names: { name: string; method: number; compSize: number; localOffset: number }[];
  if (eocd >= 0) {
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || cdSize === 0xffffffff) {
      // ZIP64: the locator sits just before the EOCD record.
      const loc = eocd - 20;
      if (loc < 0 || tail.readUInt32LE(loc) !== 0x07064b50) return null;
      const z64Off = Number(tail.readBigUInt64LE(loc + 8));
      const z64 = await readAt(fh, z64Off, 56);
      if (z64.readUInt32LE(0) !== 0x06064b50) return null;
      cdSize = Number(z64.readBigUInt64LE(40));
      cdOffset = Number(z64.readBigUInt64LE(48));
    }
    const cd = await readAt(fh, cdOffset, Math.min(cdSize, 16 * 1024 * 1024));
    names = parseCentralDirectory(cd);
  } else {
    // No central directory (truncated archive): walk the local headers from the start.
    names = await walkLocalHeaders(fh, size);
  }
  const has = (prefix: string) => names.some((n) => n.name.startsWith(prefix));
  const ct = names.find((n) => n.name === '[Content_Types].xml');
  let contentTypes = '';
  if (ct) contentTypes = await readZipEntry(fh, ct).catch(() => '');
  if (has('word/')) return 'docx';
  if (has('ppt/')) return 'pptx';
  if (has('xl/')) {
    if (/application\/vnd\.ms-excel\.template\.macroEnabled\.main\+xml/i.test(contentTypes)) return 'xltm';
    if (/spreadsheetml\.template\.main\+xml/i.test(contentTypes)) return 'xltx';
    if (/application\/vnd\.ms-excel\.sheet\.macroEnabled\.main\+xml/i.test(contentTypes)) return 'xlsm';
    if (/spreadsheetml\.sheet\.main\+xml/i.test(contentTypes)) return 'xlsx';
    return has('xl/vbaProject.bin') ? 'xlsm' : 'xlsx';
  }
  if (contentTypes) {
    if (/wordprocessingml\.document\.main\+xml/i.test(contentTypes)) return 'docx';
    if (/presentationml\.presentation\.main\+xml/i.test(contentTypes)) return 'pptx';
    if (/spreadsheetml\.sheet\.main\+xml/i.test(contentTypes)) return 'xlsx';
  }
  return null;
}

function parseCentralDirectory(cd: Buffer) {
  const out: { name: string; method: number; compSize: number; localOffset: number }[] = [];
  let p = 0;
  while (p + 46 <= cd.length && cd.readUInt32LE(p) === 0x02014b50) {
    const method = cd.readUInt16LE(p + 10);
    const compSize = cd.readUInt32LE(p + 20);
    const nameLen = cd.readUInt16LE(p + 28);
    const extraLen = cd.readUInt16LE(p + 30);
    const commentLen = cd.readUInt16LE(p + 32);
    const localOffset = cd.readUInt32LE(p + 42);
    const name = cd.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    out.push({ name, method, compSize, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
    if (out.length > 100000) break;
  }
  return out;
}

async function walkLocalHeaders(fh: Handle, size: number) {
  const out: { name: string; method: number; compSize: number; localOffset: number }[] = [];
  let p = 0;
  while (p + 30 <= size && out.length < 2000) {
    const h = await readAt(fh, p, 30);
    if (h.length < 30 || h.readUInt32LE(0) !== 0x04034b50) break;
    const flags = h.readUInt16LE(6);
    const method = h.readUInt16LE(8);
    const compSize = h.readUInt32LE(18);
    const nameLen = h.readUInt16LE(26);
    const extraLen = h.readUInt16LE(28);
    const name = (await readAt(fh, p + 30, nameLen)).toString('utf8');
    out.push({ name, method, compSize, localOffset: p });
    if (flags & 0x08 && compSize === 0) break; // sizes only in a data descriptor: cannot skip reliably
    p += 30 + nameLen + extraLen + compSize;
  }
  return out;
}

async function readZipEntry(fh: Handle, e: { method: number; compSize: number; localOffset: number }): Promise<string> {
  const h = await readAt(fh, e.localOffset, 30);
  if (h.length < 30 || h.readUInt32LE(0) !== 0x04034b50) return '';
  const start = e.localOffset + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
  const data = await readAt(fh, start, Math.min(e.compSize, 1024 * 1024));
  if (e.method === 0) return data.toString('utf8');
  // at most 1 MB inflated: [Content_Types].xml is a few KB, and a zip bomb must not get through detection
  if (e.method === 8) return zlib.inflateRawSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 1024 * 1024 }).toString('utf8');
  return '';
}

// ---------- Compound File Binary (legacy Office, Quattro Pro) ----------

const ENDOFCHAIN = 0xfffffffe;

async function sniffCfb(fh: Handle, size: number, head: Buffer): Promise<string | null> {
  if (head.length < 512) return null;
  const shift = head.readUInt16LE(0x1e);
  if (shift !== 9 && shift !== 12) return null;
  const sectorSize = 1 << shift;
  const firstDir = head.readUInt32LE(0x30);
  const numFat = head.readUInt32LE(0x2c);
  let difatNext = head.readUInt32LE(0x44);
  const fatSectors: number[] = [];
  for (let i = 0; i < 109 && fatSectors.length < numFat; i++) fatSectors.push(head.readUInt32LE(0x4c + i * 4));
  const sectorOffset = (s: number) => (s + 1) * sectorSize;
  const perSector = sectorSize / 4;
  // More FAT sector numbers live in the DIFAT chain (large files only).
  let guard = 0;
  while (fatSectors.length < numFat && difatNext < ENDOFCHAIN - 1 && guard++ < 1000) {
    const d = await readAt(fh, sectorOffset(difatNext), sectorSize);
    if (d.length < sectorSize) break;
    for (let i = 0; i < perSector - 1 && fatSectors.length < numFat; i++) fatSectors.push(d.readUInt32LE(i * 4));
    difatNext = d.readUInt32LE(sectorSize - 4);
  }
  const fatCache = new Map<number, Buffer>();
  const nextSector = async (s: number): Promise<number> => {
    const idx = Math.floor(s / perSector);
    const fs_ = fatSectors[idx];
    if (fs_ === undefined) return ENDOFCHAIN;
    let buf = fatCache.get(idx);
    if (!buf) {
      buf = await readAt(fh, sectorOffset(fs_), sectorSize);
      fatCache.set(idx, buf);
    }
    const at = (s % perSector) * 4;
    return at + 4 <= buf.length ? buf.readUInt32LE(at) : ENDOFCHAIN;
  };
  const names = new Set<string>();
  let s = firstDir;
  let count = 0;
  const maxSectors = Math.ceil(size / sectorSize) + 1;
  while (s < 0xfffffffa && count++ < Math.min(maxSectors, 4096)) {
    const sec = await readAt(fh, sectorOffset(s), sectorSize);
    for (let off = 0; off + 128 <= sec.length; off += 128) {
      const nameLen = sec.readUInt16LE(off + 0x40);
      const type = sec[off + 0x42];
      if (nameLen < 2 || nameLen > 64 || !type) continue;
      names.add(sec.subarray(off, off + nameLen - 2).toString('utf16le'));
    }
    s = await nextSector(s);
  }
  if (names.has('WordDocument')) return 'doc';
  if (names.has('PowerPoint Document')) return 'ppt';
  if (names.has('Workbook') || names.has('Book')) return 'xls';
  if (names.has('NativeContent_MAIN')) return 'qpw';
  return null;
}

/** Quattro Pro for Windows (wb1/wb2/wb3 and the older wq1/wq2) begin with a BOF record. */
function isQuattroBof(head: Buffer): boolean {
  if (head.length < 6 || !startsWith(head, [0x00, 0x00, 0x02, 0x00])) return false;
  const version = head.readUInt16LE(4);
  return version === 0x1001 || version === 0x1002 || version === 0x1007 || version === 0x5120 || version === 0x5121;
}

// ---------- text ----------

/** A text sample that starts as an HTML page (a doctype or an <html> tag). */
function isHtmlPage(text: string): boolean {
  const start = text.replace(/^\uFEFF/, '').trimStart().slice(0, 2048).toLowerCase();
  return /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<!doctype html|<html[\s>]/.test(start) || /<html[\s>]/.test(text.slice(0, 4096).toLowerCase());
}

/** The built-in text format a name's extension chooses for a text sample that is not an HTML page. */
function textByExtension(text: string, ext: string): string | null {
  if (ext === 'html' || ext === 'htm') return /<[a-z!][^>]*>/i.test(text) ? 'html' : 'txt';
  if (ext === 'csv') return 'csv';
  if (ext === 'txt' || ext === '') return 'txt';
  return null;
}

/** How a text sample is encoded, as far as telling text from binary needs. */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be' | 'legacy';

const BOMS: [number[], TextEncoding][] = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe, 0x00, 0x00], 'utf-32le'],
  [[0x00, 0x00, 0xfe, 0xff], 'utf-32be'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

function decodeSample(head: Buffer, encoding: TextEncoding): string {
  const bom = BOMS.find(([sig, enc]) => enc === encoding && startsWith(head, sig));
  const body = bom ? head.subarray(bom[0].length) : head;
  switch (encoding) {
    case 'utf-16le':
      return body.subarray(0, body.length & ~1).toString('utf16le');
    case 'utf-16be':
      return Buffer.from(body.subarray(0, body.length & ~1)).swap16().toString('utf16le');
    case 'utf-32le':
    case 'utf-32be': {
      let out = '';
      for (let i = 0; i + 4 <= body.length; i += 4) {
        const cp = encoding === 'utf-32le' ? body.readUInt32LE(i) : body.readUInt32BE(i);
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD';
      }
      return out;
    }
    case 'utf-8':
      return body.toString('utf8');
    default:
      return body.toString('latin1');
  }
}

/** Control characters that do not occur in text: C0 except tab, LF, VT, FF, CR, SUB (DOS end of file) and ESC; and DEL. */
function isBinaryControl(c: number): boolean {
  return (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0b && c !== 0x0c && c !== 0x0d && c !== 0x1a && c !== 0x1b) || c === 0x7f;
}

/** A decoded sample reads as text: no NULs and at most 1% other control characters. */
function decodedIsText(text: string): boolean {
  if (!text.length) return true;
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if (isBinaryControl(c)) control++;
  }
  return control / text.length <= 0.01;
}

/** UTF-16 without a BOM: Latin-script text has a NUL in every other byte, on one side only. */
function utf16WithoutBom(head: Buffer): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(head.length, 4096) & ~1;
  if (n < 4) return null;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) evenNul++;
    if (head[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  if (oddNul / pairs > 0.4 && evenNul / pairs < 0.05) return 'utf-16le';
  if (evenNul / pairs > 0.4 && oddNul / pairs < 0.05) return 'utf-16be';
  return null;
}

/** Length of `head` without a UTF-8 sequence cut off at its end (a sample that stops inside a character). */
function withoutCutSequence(head: Buffer): number {
  for (let back = 1; back <= 3 && back <= head.length; back++) {
    const b = head[head.length - back]!;
    if (b < 0x80) return head.length; // ASCII: nothing cut
    if (b >= 0xc0) {
      // a lead byte: is its sequence complete?
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return need > back ? head.length - back : head.length;
    }
  }
  return head.length;
}

/**
 * The encoding of a text sample, or null when it is binary. `truncated` says the sample is the start of a
 * longer file (a character may be cut at its end). A BOM decides; then UTF-16 without a BOM by its NUL
 * pattern; then valid UTF-8 (any script: Arabic, Chinese, emoji); then any other 8-bit text (Latin-1,
 * Windows-125x, Shift-JIS, GBK… the readers detect which) — as long as there are no NULs and few control
 * characters. Binary data has both.
 */
export function textEncoding(head: Buffer, truncated = false): TextEncoding | null {
  if (head.length === 0) return 'utf-8';
  const bom = BOMS.find(([sig]) => startsWith(head, sig));
  if (bom) {
    const enc = bom[1];
    let body = head.subarray(bom[0].length);
    if (enc === 'utf-8' && truncated) body = body.subarray(0, withoutCutSequence(body));
    return decodedIsText(decodeSample(Buffer.concat([Buffer.from(bom[0]), body]), enc)) ? enc : null;
  }
  const u16 = utf16WithoutBom(head);
  if (u16) return decodedIsText(decodeSample(head, u16)) ? u16 : null;
  if (head.includes(0)) return null;
  let control = 0;
  for (let i = 0; i < head.length; i++) if (isBinaryControl(head[i]!)) control++;
  if (control / head.length > 0.01) return null;
  const sample = truncated ? head.subarray(0, withoutCutSequence(head)) : head;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample);
    return 'utf-8';
  } catch {
    return 'legacy';
  }
}

/** True for text (UTF-8 in any script, UTF-16/32 with a BOM, UTF-16 without one, 8-bit encodings): see textEncoding. */
export function looksLikeText(head: Buffer, truncated = false): boolean {
  return textEncoding(head, truncated) !== null;
}
