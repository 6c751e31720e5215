/**
 * Reading OOXML packages (docx, xlsx, pptx) from untrusted bytes: the zip through @quire/core's ZipArchive
 * (inflated bytes capped by ReadLimits.decompressedBytes, one part at most half), XML parts refused when they
 * declare a DTD (Office never writes one; entity-expansion attacks need one), and a byte-level scanner that
 * walks the elements of a part without building a tree, so large parts can be split or measured in
 * bounded memory.
 */
import { ZipArchive, errors, readLimits } from '@quire/core';
import type { ReadLimits } from '@quire/core';

export interface PackageOptions {
  /** format name for messages: 'docx' */
  label: string;
  limits?: Partial<ReadLimits>;
  signal?: AbortSignal;
  /** entries allowed in the package (default 20,000) */
  maxEntries?: number;
}

/** Opens an OOXML package within the read limits. Errors are Quire errors naming the format. */
export function openPackage(bytes: Uint8Array, o: PackageOptions): ZipArchive {
  const limits = readLimits({ limits: o.limits });
  return ZipArchive.open(bytes, { maxTotalBytes: limits.decompressedBytes, label: o.label, signal: o.signal, maxEntries: o.maxEntries });
}

const DOCTYPE = Buffer.from('<!DOCTYPE');
const ENTITY = Buffer.from('<!ENTITY');

/**
 * Throws UNPROCESSABLE when an XML part declares a DTD. The prolog comes before the root element, so the
 * first 64 KB are enough; an <!ENTITY anywhere is refused as well.
 */
export function assertNoDtd(xml: Uint8Array | string, label: string, part: string): void {
  const b = typeof xml === 'string' ? Buffer.from(xml.slice(0, 65536)) : Buffer.from(xml.buffer, xml.byteOffset, Math.min(xml.byteLength, 65536));
  if (b.indexOf(DOCTYPE) >= 0 || b.indexOf(ENTITY) >= 0) {
    throw errors.unprocessable(`${label}: the XML part ${part} declares a DTD (<!DOCTYPE>), which Office files never do; refused as a possible entity-expansion attack`);
  }
}

/** A part as text (UTF-8, BOM dropped) after the DTD check; undefined when the package has no such part. */
export async function partText(zip: ZipArchive, name: string, opts: { maxBytes?: number } = {}): Promise<string | undefined> {
  const bytes = await zip.read(name, opts);
  if (bytes === undefined) return undefined;
  assertNoDtd(bytes, zip.label, name);
  return new TextDecoder('utf-8').decode(bytes);
}

/**
 * A part's bytes after the DTD check (made as soon as the first 64 KB are in); undefined when the package has
 * no such part. `onData` sees the bytes inflated so far (see ZipArchive.read).
 */
export async function partBytes(zip: ZipArchive, name: string, opts: { maxBytes?: number; onData?: (soFar: Buffer) => void } = {}): Promise<Buffer | undefined> {
  let checked = false;
  const bytes = await zip.read(name, {
    maxBytes: opts.maxBytes,
    onData: (soFar) => {
      if (!checked && soFar.length >= 65536) {
        assertNoDtd(soFar, zip.label, name);
        checked = true;
      }
      opts.onData?.(Buffer.from(soFar.buffer, soFar.byteOffset, soFar.byteLength));
    },
  });
  if (bytes === undefined) return undefined;
  if (!checked) assertNoDtd(bytes, zip.label, name);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The main part of the package (the officeDocument relationship of _rels/.rels), or `fallback`. */
export async function mainPartPath(zip: ZipArchive, fallback: string): Promise<string> {
  const rels = await partText(zip, '_rels/.rels', { maxBytes: 1024 * 1024 }).catch((e) => {
    if (isLimit(e)) throw e;
    return undefined;
  });
  if (rels) {
    for (const m of rels.matchAll(/<Relationship\b([^>]*)>/g)) {
      const type = /\bType="([^"]*)"/.exec(m[1]!)?.[1] ?? '';
      const target = /\bTarget="([^"]*)"/.exec(m[1]!)?.[1];
      if (target && /\/officeDocument$/.test(type) && !/^[a-z]+:/i.test(target)) {
        const path = target.replace(/^\/+/, '');
        if (zip.has(path)) return path;
      }
    }
  }
  return fallback;
}

const isLimit = (e: unknown) => !!e && typeof e === 'object' && (e as { code?: string }).code === 'UNPROCESSABLE';

// ---------- byte-level element scanner ----------

export interface ElementRange {
  /** qualified name, e.g. 'w:p' */
  name: string;
  /** offset of '<' of the start tag */
  start: number;
  /** offset just after the end tag (or after '/>') */
  end: number;
  /** offset just after the start tag's '>' */
  contentStart: number;
  /** offset of the end tag's '<' (= end for an empty element) */
  contentEnd: number;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QMARK = 0x3f;
const BANG = 0x21;

function nameAt(b: Uint8Array, at: number, limit: number): string {
  let e = at;
  while (e < limit) {
    const c = b[e]!;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === SLASH || c === GT) break;
    e++;
  }
  return Buffer.from(b.buffer, b.byteOffset + at, e - at).toString('latin1');
}

export class XmlScanError extends Error {}

/**
 * The child elements of the range [from, to) of an XML part, in order, without building a tree: a tag is
 * found with indexOf('<') (text is skipped natively), comments, CDATA and processing instructions are
 * skipped, attribute values may contain '>'. `onTag(name, at)` sees every start tag inside too (for counting).
 * Throws XmlScanError on unbalanced markup.
 */
export function* childElements(b: Uint8Array, from: number, to: number, onTag?: (b: Uint8Array, lt: number, gt: number) => void): Generator<ElementRange> {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let depth = 0;
  let open: { name: string; start: number; contentStart: number } | null = null;
  let i = from;
  while (i < to) {
    const lt = buf.indexOf(LT, i);
    if (lt < 0 || lt >= to) break;
    const c1 = buf[lt + 1];
    if (c1 === QMARK) {
      const e = buf.indexOf('?>', lt + 2);
      if (e < 0 || e >= to) throw new XmlScanError('unterminated processing instruction');
      i = e + 2;
      continue;
    }
    if (c1 === BANG) {
      let e: number;
      let len: number;
      if (buf[lt + 2] === 0x2d && buf[lt + 3] === 0x2d) (e = buf.indexOf('-->', lt + 4)), (len = 3);
      else if (buf[lt + 2] === 0x5b) (e = buf.indexOf(']]>', lt + 3)), (len = 3);
      else (e = buf.indexOf(GT, lt + 2)), (len = 1);
      if (e < 0 || e >= to) throw new XmlScanError('unterminated markup declaration');
      i = e + len;
      continue;
    }
    // the end of the tag: the first '>' outside quotes
    let gt = lt + 1;
    let quote = 0;
    for (; gt < to; gt++) {
      const c = buf[gt]!;
      if (quote) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) quote = c;
      else if (c === GT) break;
    }
    if (gt >= to) throw new XmlScanError('unterminated tag');
    if (c1 === SLASH) {
      depth--;
      if (depth < 0) throw new XmlScanError('unbalanced end tag');
      if (depth === 0 && open) {
        yield { name: open.name, start: open.start, end: gt + 1, contentStart: open.contentStart, contentEnd: lt };
        open = null;
      }
    } else {
      onTag?.(buf, lt, gt);
      const empty = buf[gt - 1] === SLASH;
      if (depth === 0) {
        const name = nameAt(buf, lt + 1, gt);
        if (empty) yield { name, start: lt, end: gt + 1, contentStart: gt + 1, contentEnd: gt + 1 };
        else open = { name, start: lt, contentStart: gt + 1 };
      }
      if (!empty) depth++;
    }
    i = gt + 1;
  }
  if (depth !== 0) throw new XmlScanError('unclosed element');
}

/** The first element named `name` at any depth in [from, to) (start tag search; no nesting check needed for unique elements). */
export function findElement(b: Uint8Array, name: string, from = 0, to = b.length): ElementRange | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let at = from;
  for (;;) {
    const lt = buf.indexOf(`<${name}`, at);
    if (lt < 0 || lt >= to) return null;
    const next = buf[lt + 1 + name.length];
    if (next === GT || next === SLASH || next === 0x20 || next === 0x09 || next === 0x0a || next === 0x0d) {
      for (const el of childElements(buf, lt, to)) return el;
      return null;
    }
    at = lt + 1;
  }
}
