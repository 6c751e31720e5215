/**
 * Snapshots of a space's in-memory cache (int8 matrix and scales, row facts, interned ids, keyword index),
 * so that the first search after a start reads one file instead of every row of the database.
 *
 * Same scheme as the ANN files: `<dir>/<hash of the space>.<highest rowid>-<tombstone sequence>.snap`, the
 * state it reflects; the rows and tombstones after it are applied at load. Written under a temporary name
 * and renamed, with a `.sum` (size and CRC-32, computed while the file is written and while it is read) that
 * must match before the file is used; a file of another format, space, dimension or precision is ignored.
 * CRC-32 (zlib's, several times SHA-256's speed here) guards against a damaged or cut file, which is all the
 * check is for: whoever can write the file can write its `.sum` too, whatever the hash. Layout: magic, a JSON header (format, state, section
 * lengths), then the sections, each 8-byte aligned, so that they are read as typed-array views over the
 * one buffer the file is read into.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import { readChecksum, removeOlderStates, removeStateFile, spaceKey, stateFiles } from './ann.js';
import type { AnnFile } from './ann.js';
import type { CacheState } from './cache.js';
import type { Layout, Precision } from './kernel.js';

const MAGIC = 'QVSNAP\0\0';
/**
 * 2: the int8 rows of the `columns` layout (dimension-major blocks), and the layout in the header;
 * 3: a CRC-32 in the `.sum` instead of a SHA-256 (older snapshots are ignored: the space is read from SQLite once)
 */
const FORMAT = 3;
/** the file is read and checked in pieces of this size (each checked while it is still in the CPU's cache) */
const PIECE = 4 << 20;
/** from this size a snapshot's CRC-32 is computed by a thread of its own while the file is read (below) */
export const CHECK_THREAD_MIN_BYTES = 64 << 20;
/** a checking thread that makes no progress for this long is given up (the CRC is then computed in place) */
const CHECK_STALL_MS = 5_000;

/**
 * The checking thread: reads the file again through the same descriptor (positional reads, a 4 MB buffer of
 * its own that stays in memory) and computes its CRC-32. Reading a large snapshot costs more in page faults on
 * the fresh memory it fills than in the copy (1M rows, 706 MB: 2.2 s to read, 1.2 s to check on a slow
 * machine), so checking beside the read saves most of the check. st: [state (0 running, 1 done, 2 short,
 * 3 failed, 4 stopped), crc, pieces done, stop asked].
 */
const CHECK_THREAD = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const zlib = require('node:zlib');
const { fd, size, sab, piece } = workerData;
const st = new Int32Array(sab);
let crc = 0, state = 1;
const buf = Buffer.allocUnsafe(piece);
try {
  for (let at = 0; at < size; ) {
    if (Atomics.load(st, 3)) { state = 4; break; }
    const n = fs.readSync(fd, buf, 0, Math.min(piece, size - at), at);
    if (!n) { state = 2; break; }
    crc = zlib.crc32(buf.subarray(0, n), crc);
    at += n;
    Atomics.add(st, 2, 1);
  }
} catch { state = 3; }
st[1] = crc | 0;
Atomics.store(st, 0, state);
Atomics.notify(st, 0);
`;

/**
 * A CRC-32 of the whole file computed by a thread while the caller reads it: `result()` waits for it (null: not
 * available, compute it in place); `stop()` ends the thread's reads before the descriptor is closed.
 */
function checkInThread(fd: number, size: number): { result(): number | null; stop(): void } | null {
  const sab = new SharedArrayBuffer(16);
  const st = new Int32Array(sab);
  let worker: Worker;
  try {
    worker = new Worker(CHECK_THREAD, { eval: true, workerData: { fd, size, sab, piece: PIECE } });
  } catch {
    return null;
  }
  worker.unref();
  worker.on('error', () => {}); // reported through st (no progress, then the CRC in place)
  /** waits while the thread makes progress; false when it stalled (or never started) for CHECK_STALL_MS */
  const finished = (): boolean => {
    for (let seen = -1; Atomics.load(st, 0) === 0; ) {
      const done = Atomics.load(st, 2);
      if (done === seen) return false;
      seen = done;
      Atomics.wait(st, 0, 0, CHECK_STALL_MS);
    }
    return true;
  };
  let over = false;
  const end = () => {
    over = true;
    void worker.terminate();
  };
  return {
    result() {
      const ok = finished() && Atomics.load(st, 0) === 1;
      end();
      return ok ? st[1]! >>> 0 : null;
    },
    stop() {
      if (over) return;
      Atomics.store(st, 3, 1);
      finished();
      end();
    },
  };
}

/** The snapshots of a space in `dir`, newest state first. */
export const snapshotFiles = (dir: string, space: string): AnnFile[] => stateFiles(dir, `${spaceKey(space)}.`, '.snap');

export const removeSnapshot = removeStateFile;

/** Removes every space's snapshots in `dir`. */
export function removeSnapshots(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (name.endsWith('.snap')) removeSnapshot(path.join(dir, name));
}

type Section = 'rows' | 'scales' | 'rowids' | 'doc' | 'user' | 'org' | 'hashes' | 'df' | 'off' | 'post' | 'lens' | 'strings';
const SECTIONS: Section[] = ['rows', 'scales', 'rowids', 'doc', 'user', 'org', 'hashes', 'df', 'off', 'post', 'lens', 'strings'];

interface Header {
  format: number;
  space: string;
  dimension: number;
  precision: Precision;
  layout: Layout;
  rowBytes: number;
  n: number;
  maxRowid: number;
  tombSeq: number;
  kwRows: number;
  totalLen: number;
  /** byte length of each section, in SECTIONS order */
  sections: number[];
}

/** what reading a snapshot needs of the matrix it fills */
export interface SnapshotMatrix {
  layout: Layout;
  rowBytes: number;
  bytesFor(rows: number): number;
  rowsView(rows: number): Uint8Array<ArrayBuffer>;
}

const pad8 = (x: number) => Math.ceil(x / 8) * 8;
const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Writes the cache state `s` of a space and removes the space's older snapshots; the file written. */
export function writeSnapshot(dir: string, space: string, dimension: number, precision: Precision, s: CacheState): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const k = s.keywords;
  const parts: Record<Section, Uint8Array> = {
    rows: s.rows, scales: bytes(s.scales), rowids: bytes(s.rowids), doc: bytes(s.doc), user: bytes(s.user), org: bytes(s.org),
    hashes: bytes(k.hashes), df: bytes(k.df), off: bytes(k.off), post: bytes(k.post), lens: bytes(k.lens), strings: Buffer.from(JSON.stringify(s.strings)),
  };
  const header: Header = {
    format: FORMAT, space, dimension, precision, layout: s.layout, rowBytes: s.rowBytes, n: s.n, maxRowid: s.maxRowid, tombSeq: s.tombSeq,
    kwRows: k.rows, totalLen: k.totalLen, sections: SECTIONS.map((x) => parts[x].byteLength),
  };
  const head = Buffer.from(JSON.stringify(header));
  const lead = Buffer.alloc(pad8(12 + head.length));
  lead.write(MAGIC, 0, 'latin1');
  lead.writeUInt32LE(head.length, 8);
  head.copy(lead, 12);
  const file = path.join(dir, `${spaceKey(space)}.${s.maxRowid}-${s.tombSeq}.snap`);
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  let crc = 0;
  const zeros = new Uint8Array(8);
  let size = 0;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    const put = (b: Uint8Array) => {
      for (let o = 0; o < b.byteLength; ) o += fs.writeSync(fd, b, o, Math.min(b.byteLength - o, 1 << 30));
      crc = zlib.crc32(b, crc);
      size += b.byteLength;
    };
    put(lead);
    for (const x of SECTIONS) {
      put(parts[x]);
      if (size % 8) put(zeros.subarray(0, 8 - (size % 8)));
    }
    fs.closeSync(fd);
    fs.writeFileSync(`${tmp}.sum`, JSON.stringify({ size, crc32: crc }), { mode: 0o600 });
    fs.renameSync(`${tmp}.sum`, `${file}.sum`);
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      // closed already
    }
    removeSnapshot(tmp);
    throw e;
  }
  removeOlderStates(snapshotFiles(dir, space), file, s.maxRowid, s.tombSeq);
  return file;
}

/**
 * Reads a snapshot of the space; throws when it does not match its checksum or is not one of this space,
 * dimension, precision and layout in this format. The vector rows are read into `m.rowsView(n)` (the
 * matrix's own memory), the rest into one buffer the other arrays are views of.
 */
export function readSnapshot(file: string, space: string, dimension: number, precision: Precision, m: SnapshotMatrix, checkThreadMin = CHECK_THREAD_MIN_BYTES): CacheState {
  const { layout, rowBytes } = m;
  const sum = readChecksum(file, 'snapshot');
  const fd = fs.openSync(file, 'r');
  let thread: ReturnType<typeof checkInThread> = null;
  try {
    const size = fs.fstatSync(fd).size;
    if (size !== sum.size || typeof sum.crc32 !== 'number') throw new Error('the snapshot does not match its checksum');
    // a large file is checked by a thread while it is read here; a small one (or without that thread) piece by piece
    thread = size >= checkThreadMin ? checkInThread(fd, size) : null;
    const pieces: Uint8Array[] = [];
    let crc = 0;
    let at = 0;
    const read = <T extends Uint8Array>(into: T): T => {
      for (let o = 0; o < into.byteLength; ) {
        const end = Math.min(into.byteLength, o + PIECE);
        for (let p = o; p < end; ) {
          const r = fs.readSync(fd, into, p, end - p, at + p);
          if (!r) throw new Error('the snapshot is shorter than its checksum says');
          p += r;
        }
        if (!thread) crc = zlib.crc32(into.subarray(o, end), crc);
        o = end;
      }
      if (thread) pieces.push(into);
      at += into.byteLength;
      return into;
    };
    /** the CRC-32 of what was read: the thread's, or (no thread, or it failed) computed over the pieces in memory */
    const checked = (): number => {
      if (!thread) return crc;
      const c = thread.result();
      if (c !== null) return c;
      return pieces.reduce((x, p) => zlib.crc32(p, x), 0);
    };
    const first = Buffer.alloc(12);
    read(first);
    if (first.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a vector cache snapshot');
    const hlen = first.readUInt32LE(8);
    if (12 + hlen > size) throw new Error('the snapshot is truncated');
    const head = Buffer.from(read(new Uint8Array(pad8(12 + hlen) - 12)));
    const h = JSON.parse(head.toString('utf8', 0, hlen)) as Header;
    if (h.format !== FORMAT) throw new Error(`snapshot format ${h.format}; this Quire reads ${FORMAT}`);
    if (h.space !== space || h.dimension !== dimension || h.precision !== precision || h.layout !== layout || h.rowBytes !== rowBytes) throw new Error('the snapshot is of another space, dimension, precision or layout');
    const n = h.n;
    if (!(Number.isInteger(n) && n >= 0) || !Array.isArray(h.sections) || h.sections.length !== SECTIONS.length || h.sections[0] !== m.bytesFor(n)) throw new Error("the snapshot's rows section has the wrong size");
    // the rows (first section), straight into place; then the rest in one buffer (rows are a multiple of
    // 16 bytes, blocks of 1,024 rows, so the rest starts 8-byte aligned and its sections stay aligned in it)
    if (at + m.bytesFor(n) > size) throw new Error('the snapshot is truncated');
    const rows = read(m.rowsView(n));
    if (at % 8) throw new Error('the snapshot is misaligned');
    const rest = read(new Uint8Array(size - at));
    if (checked() !== sum.crc32) throw new Error('the snapshot does not match its checksum');
    const sec: Partial<Record<Section, [number, number]>> = {};
    let off = 0;
    SECTIONS.forEach((x, i) => {
      if (i === 0) return;
      const len = h.sections[i]!;
      if (!(len >= 0) || off + len > rest.byteLength) throw new Error('the snapshot is truncated');
      sec[x] = [off, len];
      off = pad8(off + len);
    });
    const view = <T>(x: Section, C: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number }, count: number): T => {
      const [o, len] = sec[x]!;
      if (len !== count * C.BYTES_PER_ELEMENT) throw new Error(`the snapshot's ${x} section has the wrong size`);
      return new C(rest.buffer, o, count);
    };
    const slots = sec.hashes![1] / 4;
    const kwOff = view('off', Int32Array, slots + 1);
    const [so, sl] = sec.strings!;
    return {
      n, maxRowid: h.maxRowid, tombSeq: h.tombSeq, layout: h.layout, rowBytes: h.rowBytes, rows, scales: view('scales', Float32Array, precision === 'int8' ? n : 0),
      rowids: view('rowids', Float64Array, n), doc: view('doc', Int32Array, n), user: view('user', Int32Array, n), org: view('org', Int32Array, n),
      strings: JSON.parse(Buffer.from(rest.buffer, so, sl).toString('utf8')) as string[],
      keywords: {
        hashes: view('hashes', Uint32Array, slots), df: view('df', Int32Array, slots), off: kwOff, post: view('post', Int32Array, kwOff[slots]!),
        lens: view('lens', Uint16Array, h.kwRows), rows: h.kwRows, totalLen: h.totalLen,
      },
    };
  } finally {
    // (the checking thread reads through this descriptor: it stops before the descriptor is closed)
    thread?.stop();
    fs.closeSync(fd);
  }
}
