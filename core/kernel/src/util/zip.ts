/**
 * A zip reader for untrusted packages (docx, xlsx, pptx) that cannot be used as a zip bomb.
 *
 * Entries are inflated by streaming (node:zlib, 128 KB at a time) and the inflated bytes are counted as they
 * come out, never trusting the sizes the archive declares: one entry may inflate to at most `maxEntryBytes`
 * (default half of `maxTotalBytes`) and all entries read from one archive together to at most `maxTotalBytes`.
 * Reaching either stops the inflation at once and throws UNPROCESSABLE "decompressed size exceeds N MB". The
 * number of entries in the central directory is capped too. Entries are inflated only when asked for, so a
 * caller reads just the parts it needs (and `stream` lets it parse a part without holding all of it).
 *
 * Everything is per archive object (no module state), so it works the same inside worker threads.
 */
import zlib from 'node:zlib';
import { errors } from '../errors/index.js';
import { abortReason } from './abort.js';

export interface ZipLimits {
  /** inflated bytes of all the entries read from one archive, together */
  maxTotalBytes: number;
  /** inflated bytes of one entry (default: half of maxTotalBytes) */
  maxEntryBytes?: number;
  /** entries in the central directory (default 20,000) */
  maxEntries?: number;
}

export interface ZipOptions extends ZipLimits {
  /** what the archive is, for error messages: 'docx' gives "docx: decompressed size exceeds 512 MB" */
  label?: string;
  /** stops an inflation in progress */
  signal?: AbortSignal;
}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated (others are refused when read) */
  method: number;
  flags: number;
  compressedSize: number;
  /** the uncompressed size the archive declares: informative only, never trusted */
  declaredSize: number;
  localHeaderOffset: number;
}

export const DEFAULT_ZIP_MAX_ENTRIES = 20_000;

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const CHUNK = 128 * 1024;

/** 512 MB, 0.5 MB, 1.3 MB */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / 1048576;
  return `${Number.isInteger(mb) ? mb : mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10 || '< 0.1'} MB`;
}

/** An entry name fit for an error message. */
const shown = (name: string) => JSON.stringify(name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 120));

export class ZipArchive {
  readonly label: string;
  readonly maxTotalBytes: number;
  readonly maxEntryBytes: number;
  private readonly bytes: Uint8Array;
  private readonly byName = new Map<string, ZipEntry>();
  private readonly list: ZipEntry[];
  private readonly signal?: AbortSignal;
  private inflated = 0;

  private constructor(bytes: Uint8Array, entries: ZipEntry[], options: ZipOptions) {
    this.bytes = bytes;
    this.list = entries;
    this.label = options.label ?? 'zip';
    this.maxTotalBytes = options.maxTotalBytes;
    this.maxEntryBytes = Math.min(options.maxEntryBytes ?? Math.floor(options.maxTotalBytes / 2), options.maxTotalBytes);
    this.signal = options.signal;
    // the first of duplicate names wins (as in the local-header order most tools use)
    for (const e of entries) if (!this.byName.has(e.name)) this.byName.set(e.name, e);
  }

  /**
   * Reads the central directory (nothing is inflated). Throws PROCESSING_ERROR when the bytes are not a zip
   * archive or it is truncated, UNPROCESSABLE when it lists more than `maxEntries` entries.
   */
  static open(bytes: Uint8Array, options: ZipOptions): ZipArchive {
    if (!(options.maxTotalBytes > 0)) throw new RangeError('maxTotalBytes must be positive');
    const label = options.label ?? 'zip';
    const entries = readCentralDirectory(bytes, label, options.maxEntries ?? DEFAULT_ZIP_MAX_ENTRIES);
    return new ZipArchive(bytes, entries, options);
  }

  /** Entries in central-directory order. */
  get entries(): readonly ZipEntry[] {
    return this.list;
  }

  /** Bytes inflated so far from this archive (all reads together). */
  get inflatedBytes(): number {
    return this.inflated;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  entry(name: string): ZipEntry | undefined {
    return this.byName.get(name);
  }

  /**
   * The inflated entry, or undefined when there is none of that name. `maxBytes` lowers the entry cap for this
   * read; `onData` sees all the bytes inflated so far after each chunk (to measure a part while it inflates and
   * throw early). The bytes are gathered in one buffer sized from the declared size (a hint only: it grows
   * when the declaration is false, up to the cap).
   */
  async read(name: string, opts: { maxBytes?: number; onData?: (soFar: Uint8Array) => void } = {}): Promise<Uint8Array | undefined> {
    const entry = this.byName.get(name);
    if (!entry) return undefined;
    const cap = Math.min(this.maxEntryBytes, opts.maxBytes ?? Infinity, this.maxTotalBytes);
    let buf = Buffer.allocUnsafe(Math.max(1024, Math.min(entry.declaredSize + 1, cap + 1, 64 * 1024 * 1024)));
    let size = 0;
    await this.stream(
      name,
      (c) => {
        if (size + c.length > buf.length) {
          const grown = Buffer.allocUnsafe(Math.min(Math.max(buf.length * 2, size + c.length), cap + CHUNK));
          buf.copy(grown, 0, 0, size);
          buf = grown;
        }
        buf.set(c, size);
        size += c.length;
        opts.onData?.(buf.subarray(0, size));
      },
      opts,
    );
    return buf.subarray(0, size);
  }

  /** The entry as UTF-8 text (a BOM is dropped), or undefined when there is none of that name. */
  async text(name: string, opts: { maxBytes?: number } = {}): Promise<string | undefined> {
    const bytes = await this.read(name, opts);
    return bytes === undefined ? undefined : new TextDecoder('utf-8').decode(bytes);
  }

  /**
   * Inflates the entry piece by piece into `onChunk` (each chunk is valid only during the call unless kept).
   * `onChunk` returning false stops early without an error. Resolves false when there is no entry of that name.
   */
  async stream(name: string, onChunk: (chunk: Uint8Array) => void | boolean, opts: { maxBytes?: number } = {}): Promise<boolean> {
    const entry = this.byName.get(name);
    if (!entry) return false;
    if (this.signal?.aborted) throw abortReason(this.signal);
    const data = this.compressedData(entry);
    const entryCap = Math.min(this.maxEntryBytes, opts.maxBytes ?? Infinity);
    let produced = 0;
    /** counts a chunk; an error when a cap is passed */
    const count = (n: number): Error | null => {
      produced += n;
      this.inflated += n;
      if (produced > entryCap) {
        return errors.unprocessable(`${this.label}: decompressed size exceeds ${formatMegabytes(entryCap)} for one part (${shown(entry.name)})`, { limit_bytes: entryCap, part: entry.name });
      }
      if (this.inflated > this.maxTotalBytes) {
        return errors.unprocessable(`${this.label}: decompressed size exceeds ${formatMegabytes(this.maxTotalBytes)}`, { limit_bytes: this.maxTotalBytes });
      }
      return null;
    };
    if (entry.method === 0) {
      for (let at = 0; at < data.length; at += CHUNK) {
        const piece = data.subarray(at, at + CHUNK);
        const err = count(piece.length);
        if (err) throw err;
        if (onChunk(piece) === false) break;
      }
      return true;
    }
    await this.inflate(entry, data, count, onChunk);
    return true;
  }

  private compressedData(entry: ZipEntry): Uint8Array {
    const corrupt = () => errors.processing(`${this.label} could not be read: the file is corrupt or truncated (part ${shown(entry.name)})`);
    if (entry.flags & 0x1) throw errors.processing(`${this.label} could not be read: the file is password-protected (encrypted)`);
    if (entry.method !== 0 && entry.method !== 8) {
      throw errors.processing(`${this.label} could not be read: part ${shown(entry.name)} uses an unsupported compression method (${entry.method})`);
    }
    const b = this.bytes;
    const at = entry.localHeaderOffset;
    if (at + 30 > b.length || readU32(b, at) !== LOCAL) throw corrupt();
    const start = at + 30 + readU16(b, at + 26) + readU16(b, at + 28);
    const end = start + entry.compressedSize;
    if (end > b.length) throw corrupt();
    return b.subarray(start, end);
  }

  private inflate(entry: ZipEntry, data: Uint8Array, count: (n: number) => Error | null, onChunk: (chunk: Uint8Array) => void | boolean): Promise<void> {
    const signal = this.signal;
    return new Promise<void>((resolve, reject) => {
      const z = zlib.createInflateRaw({ chunkSize: CHUNK });
      let done = false;
      const finish = (err?: unknown) => {
        if (done) return;
        done = true;
        signal?.removeEventListener('abort', onAbort);
        if (!z.destroyed) z.destroy();
        if (err) reject(err);
        else resolve();
      };
      const onAbort = () => finish(abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      z.on('data', (chunk: Buffer) => {
        if (done) return;
        const err = count(chunk.length);
        if (err) return finish(err);
        let more: void | boolean;
        try {
          more = onChunk(chunk);
        } catch (e) {
          return finish(e);
        }
        if (more === false) finish();
      });
      z.on('end', () => finish());
      z.on('error', () => finish(errors.processing(`${this.label} could not be read: the file is corrupt (part ${shown(entry.name)} does not inflate)`)));
      z.end(data);
    });
  }
}

/**
 * Inflates the entries `filter` accepts (default: all) within the limits; see ZipArchive.
 * Returns them by name.
 */
export async function unzipLimited(bytes: Uint8Array, options: ZipOptions & { filter?: (entry: ZipEntry) => boolean }): Promise<Record<string, Uint8Array>> {
  const zip = ZipArchive.open(bytes, options);
  const out: Record<string, Uint8Array> = {};
  for (const name of zip.names()) {
    const entry = zip.entry(name)!;
    if (name.endsWith('/')) continue; // a folder
    if (options.filter && !options.filter(entry)) continue;
    out[name] = (await zip.read(name))!;
  }
  return out;
}

function readU16(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8);
}

function readU32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

function readU64(b: Uint8Array, at: number): number {
  return readU32(b, at) + readU32(b, at + 4) * 0x100000000;
}

function readCentralDirectory(b: Uint8Array, label: string, maxEntries: number): ZipEntry[] {
  const notZip = (why: string) => errors.processing(`${label} could not be read: the file is corrupt or truncated (${why})`);
  if (b.length < 22) throw notZip('too short for a zip package');
  // end of central directory: 22 bytes plus a comment of up to 64 KB at the end of the file
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--) {
    if (b[i] === 0x50 && b[i + 1] === 0x4b && readU32(b, i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw notZip('no zip central directory');
  let count = readU16(b, eocd + 10);
  let cdSize = readU32(b, eocd + 12);
  let cdOffset = readU32(b, eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc >= 0 && readU32(b, loc) === EOCD64_LOCATOR) {
      const at = readU64(b, loc + 8);
      if (at + 56 > b.length || readU32(b, at) !== EOCD64) throw notZip('bad zip64 directory');
      count = readU64(b, at + 32);
      cdSize = readU64(b, at + 40);
      cdOffset = readU64(b, at + 48);
    }
  }
  if (count > maxEntries) {
    throw errors.unprocessable(`${label}: the package has more than ${maxEntries.toLocaleString('en')} parts (${count.toLocaleString('en')})`, { limit_entries: maxEntries });
  }
  if (cdOffset + cdSize > b.length) throw notZip('the central directory lies past the end of the file');
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  const end = cdOffset + cdSize;
  while (p + 46 <= end && readU32(b, p) === CENTRAL) {
    if (entries.length >= maxEntries) {
      throw errors.unprocessable(`${label}: the package has more than ${maxEntries.toLocaleString('en')} parts`, { limit_entries: maxEntries });
    }
    const flags = readU16(b, p + 8);
    const method = readU16(b, p + 10);
    let compressedSize = readU32(b, p + 20);
    let declaredSize = readU32(b, p + 24);
    const nameLen = readU16(b, p + 28);
    const extraLen = readU16(b, p + 30);
    const commentLen = readU16(b, p + 32);
    let localHeaderOffset = readU32(b, p + 42);
    if (p + 46 + nameLen + extraLen > end) throw notZip('a damaged central directory entry');
    const nameBytes = b.subarray(p + 46, p + 46 + nameLen);
    const name = Buffer.from(nameBytes.buffer, nameBytes.byteOffset, nameBytes.byteLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    // zip64 extra field: the 64-bit values of the fields set to 0xffffffff, in this order
    for (let x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen; ) {
      const id = readU16(b, x);
      const size = readU16(b, x + 2);
      if (id === 0x0001) {
        let q = x + 4;
        if (declaredSize === 0xffffffff && q + 8 <= x + 4 + size) (declaredSize = readU64(b, q)), (q += 8);
        if (compressedSize === 0xffffffff && q + 8 <= x + 4 + size) (compressedSize = readU64(b, q)), (q += 8);
        if (localHeaderOffset === 0xffffffff && q + 8 <= x + 4 + size) localHeaderOffset = readU64(b, q);
        break;
      }
      x += 4 + size;
    }
    entries.push({ name, method, flags, compressedSize, declaredSize, localHeaderOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  if (!entries.length && count > 0) throw notZip('a damaged central directory');
  return entries;
}
