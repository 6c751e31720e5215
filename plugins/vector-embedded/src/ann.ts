/**
 * The approximate nearest-neighbour index of a space: an HNSW graph (USearch, Apache-2.0, prebuilt native
 * binaries) keyed by the SQLite rowid, persisted beside the database.
 *
 * A file holds the index of one space as it was at a database state, named by that state:
 * `<hash of the space>.<highest rowid>-<tombstone sequence>.usearch`. Everything above it (rows with a higher
 * rowid, tombstones with a higher sequence) is applied when it is loaded, so a stale file is repaired rather
 * than rebuilt; a file older than the pruned part of the tombstone log cannot be and is rebuilt. Files are
 * written under a temporary name and renamed, so a reader never sees half of one. USearch trusts the file it
 * loads (a damaged one crashes the process), so each has a `.sum` beside it (size and SHA-256) that must match
 * before it is loaded; one that does not is rebuilt.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

/** How the graph stores vectors: f32 (exact distances; 4 bytes a dimension), f16 (2 bytes) or i8 (1 byte). */
export type AnnQuantization = 'f32' | 'f16' | 'i8';

interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array; distances: Float32Array };
  remove(keys: BigUint64Array): number | number[];
  size(): number;
  save(path: string): void;
  load(path: string): void;
}
interface Usearch {
  Index: new (config: { dimensions: number; metric: string; quantization: string; connectivity: number; expansion_add: number; expansion_search: number; multi: boolean }) => UsearchIndex;
}

let usearch: Usearch | null | undefined;
let loadError: string | null = null;
/** The native module, or null where it cannot load (the store then keeps to the exact scan). */
export function annModule(): Usearch | null {
  if (usearch !== undefined) return usearch;
  try {
    usearch = createRequire(import.meta.url)('usearch') as Usearch;
  } catch (e) {
    loadError = (e as Error).message;
    usearch = null;
  }
  return usearch;
}
export const annLoadError = () => loadError;

export interface AnnParams {
  quantization: AnnQuantization;
  /** graph degree (M) */
  connectivity: number;
  /** candidate list while inserting (efConstruction) */
  expansionAdd: number;
  /** candidate list while searching (ef); a search for more than this many uses its k */
  expansionSearch: number;
}

export const ANN_DEFAULTS: AnnParams = { quantization: 'f16', connectivity: 16, expansionAdd: 128, expansionSearch: 96 };

/** The file name stem of a space (its name can be anything). */
export const spaceKey = (space: string) => crypto.createHash('sha256').update(space).digest('hex').slice(0, 24);

/** a file of a space at a database state (its highest rowid and tombstone sequence) */
export interface AnnFile {
  file: string;
  maxRowid: number;
  tombSeq: number;
}

/** The files `<stem><highest rowid>-<tombstone seq><ext>` in `dir`, newest state first. */
export function stateFiles(dir: string, stem: string, ext: string): AnnFile[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: AnnFile[] = [];
  for (const name of names) {
    if (!name.startsWith(stem) || !name.endsWith(ext)) continue;
    const m = /^(\d+)-(\d+)$/.exec(name.slice(stem.length, -ext.length));
    if (m) out.push({ file: path.join(dir, name), maxRowid: Number(m[1]), tombSeq: Number(m[2]) });
  }
  return out.sort((a, b) => b.maxRowid - a.maxRowid || b.tombSeq - a.tombSeq);
}

/** The files of a space's index in `dir`, newest state first. */
export const annFiles = (dir: string, space: string, params: AnnParams): AnnFile[] => stateFiles(dir, `${spaceKey(space)}.${params.quantization}.`, '.usearch');

export const annFileName = (dir: string, space: string, params: AnnParams, maxRowid: number, tombSeq: number) =>
  path.join(dir, `${spaceKey(space)}.${params.quantization}.${maxRowid}-${tombSeq}.usearch`);

export class AnnIndex {
  private readonly index: UsearchIndex;
  /** changes since the index was loaded or saved */
  changes = 0;
  private readonly key = new BigUint64Array(1);

  constructor(readonly dimension: number, readonly params: AnnParams) {
    const u = annModule();
    if (!u) throw new Error(`usearch is unavailable: ${loadError}`);
    this.index = new u.Index({
      dimensions: dimension,
      metric: 'ip', // rows and queries are unit length: inner product = cosine
      quantization: params.quantization,
      connectivity: params.connectivity,
      expansion_add: params.expansionAdd,
      expansion_search: params.expansionSearch,
      multi: false,
    });
  }

  static load(file: string, dimension: number, params: AnnParams): AnnIndex {
    const sum = readChecksum(file, 'index file');
    const d = digest(file);
    if (sum.size !== d.size || sum.sha256 !== d.sha256) throw new Error('the index file does not match its checksum');
    const a = new AnnIndex(dimension, params);
    a.index.load(file);
    return a;
  }

  get size(): number {
    return this.index.size();
  }

  /** Adds rows (unit vectors, `dimension` floats each, in `vectors`). */
  add(rowids: ArrayLike<number>, vectors: Float32Array): void {
    if (!rowids.length) return;
    const keys = BigUint64Array.from(Array.from(rowids, (r) => BigInt(r)));
    this.index.add(keys, vectors, 1);
    this.changes += rowids.length;
  }

  remove(rowid: number): void {
    this.key[0] = BigInt(rowid);
    this.index.remove(this.key);
    this.changes++;
  }

  /** The k nearest rows: rowids and inner products, best first. */
  search(q: Float32Array, k: number): { rowids: number[]; scores: number[] } {
    const n = this.index.size();
    if (!n) return { rowids: [], scores: [] };
    const r = this.index.search(q, Math.min(k, n), 1);
    const rowids: number[] = [], scores: number[] = [];
    for (let i = 0; i < r.keys.length; i++) {
      // usearch pads a short answer with the max key
      if (r.keys[i]! >= 0xffffffffffffffffn) continue;
      rowids.push(Number(r.keys[i]!));
      scores.push(1 - r.distances[i]!);
    }
    return { rowids, scores };
  }

  /** Writes the index for the database state (maxRowid, tombSeq) and removes the space's older files. */
  save(dir: string, space: string, maxRowid: number, tombSeq: number): string {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = annFileName(dir, space, this.params, maxRowid, tombSeq);
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      this.index.save(tmp);
      fs.chmodSync(tmp, 0o600);
      fs.writeFileSync(`${tmp}.sum`, JSON.stringify(digest(tmp)), { mode: 0o600 });
      fs.renameSync(`${tmp}.sum`, `${file}.sum`);
      fs.renameSync(tmp, file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      fs.rmSync(`${tmp}.sum`, { force: true });
      throw e;
    }
    this.changes = 0;
    removeOlderStates(annFiles(dir, space, this.params), file, maxRowid, tombSeq);
    return file;
  }
}

/** Removes a state file (an index file or a cache snapshot) with its `.sum`. */
export function removeStateFile(file: string): void {
  fs.rmSync(file, { force: true });
  fs.rmSync(`${file}.sum`, { force: true });
}

/** Removes the files of states older than the one just written to `kept` (a state is its highest rowid and tombstone sequence). */
export function removeOlderStates(files: AnnFile[], kept: string, maxRowid: number, tombSeq: number): void {
  for (const old of files) if (old.file !== kept && (old.maxRowid < maxRowid || old.tombSeq < tombSeq)) removeStateFile(old.file);
}

/** The size and checksum (SHA-256 of an ANN file, CRC-32 of a snapshot) kept beside a state file (`<file>.sum`); throws when there is none. */
export function readChecksum(file: string, what: string): { size?: unknown; sha256?: unknown; crc32?: unknown } {
  try {
    return JSON.parse(fs.readFileSync(`${file}.sum`, 'utf8')) as { size?: unknown; sha256?: unknown; crc32?: unknown };
  } catch {
    throw new Error(`no checksum beside the ${what}`);
  }
}

function digest(file: string): { size: number; sha256: string } {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(8 << 20);
  let size = 0;
  try {
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; size += n) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return { size, sha256: h.digest('hex') };
}
