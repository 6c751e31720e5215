/**
 * Supported input formats and format detection from the file's bytes.
 *
 * detectFormat reads only what it needs: the first bytes for magic numbers, the ZIP central directory
 * (and [Content_Types].xml) for OOXML, the compound-file directory for legacy Office, and a small text
 * sample for the text formats. The extension decides only between the text formats (txt, csv, html).
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

export interface DetectedFormat {
  format: string;
  mime: string;
}

const result = (format: string): DetectedFormat => ({ format, mime: SUPPORTED_FORMATS[format]!.mime });

const HEAD_BYTES = 8192;

/**
 * Detects the format of a file from its bytes; the name's extension only chooses among text formats.
 * Returns null for unknown formats and for binary content behind a text extension.
 */
export async function detectFormat(filePath: string, fileName: string): Promise<DetectedFormat | null> {
  const fh = await fs.open(filePath, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = await readAt(fh, 0, Math.min(HEAD_BYTES, size));
    const magic = sniffMagic(head);
    if (magic) return result(magic);
    if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) {
      const fmt = await sniffZip(fh, size).catch(() => null);
      return fmt ? result(fmt) : null;
    }
    if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
      const fmt = await sniffCfb(fh, size, head).catch(() => null);
      return fmt ? result(fmt) : null;
    }
    if (isQuattroBof(head)) return result('qpw');
    return sniffText(head, extensionOf(fileName));
  } finally {
    await fh.close();
  }
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
  if (e.method === 8) return zlib.inflateRawSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('utf8');
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

function sniffText(head: Buffer, ext: string): DetectedFormat | null {
  if (!looksLikeText(head)) return null;
  const text = decodeSample(head);
  const start = text.replace(/^\uFEFF/, '').trimStart().slice(0, 2048).toLowerCase();
  const htmlMarker = /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<!doctype html|<html[\s>]/.test(start) || /<html[\s>]/.test(text.slice(0, 4096).toLowerCase());
  if (htmlMarker) return result('html');
  if (ext === 'html' || ext === 'htm') return /<[a-z!][^>]*>/i.test(text) ? result('html') : result('txt');
  if (ext === 'csv') return result('csv');
  if (ext === 'txt' || ext === '') return result('txt');
  return null;
}

function decodeSample(head: Buffer): string {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return head.subarray(2).toString('utf16le');
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) {
    const body = head.subarray(2, 2 + ((head.length - 2) & ~1));
    return Buffer.from(body).swap16().toString('utf16le');
  }
  return head.toString('utf8');
}

/** True for UTF-8/Latin-1/UTF-16 (with BOM) text: no NULs, few control characters. */
export function looksLikeText(head: Buffer): boolean {
  if (head.length === 0) return true;
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) return true;
  let control = 0;
  for (let i = 0; i < head.length; i++) {
    const b = head[i]!;
    if (b === 0) return false;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  }
  if (control / head.length > 0.01) return false;
  // Invalid UTF-8 is fine when it reads as Latin-1 text (few bytes in 0x80-0x9f, the C1 controls).
  const utf8 = head.toString('utf8');
  const bad = (utf8.match(/\uFFFD/g) ?? []).length;
  if (bad === 0) return true;
  let c1 = 0;
  for (let i = 0; i < head.length; i++) if (head[i]! >= 0x80 && head[i]! < 0xa0) c1++;
  return c1 / head.length < 0.05 && bad / head.length < 0.2;
}
