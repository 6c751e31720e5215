/** BlobStorage on the local disk: one file per key under a root folder. */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { constants as fsc } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, errors, mkdirPrivate } from '@quire/core';
import type { StoragePlugin } from '@quire/core';
import { assertKey } from './keys.js';

/** The name put() gives its temporary file: `.<name>.<uuid>.tmp` beside the blob. */
const TEMP_NAME = /^\..+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

export class DiskStorage implements StoragePlugin {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The sweep of temporary files started by init(): how many it removed. */
  swept: Promise<number> = Promise.resolve(0);

  /**
   * Creates the root folder (0700, like every folder below it; files are 0600) and starts, in the
   * background, the sweep of temporary files that an interrupted write left (a process killed mid-upload).
   */
  async init(): Promise<this> {
    await mkdirPrivate(this.root);
    await fs.chmod(this.root, PRIVATE_DIR_MODE);
    this.swept = this.sweepTemp().catch(() => 0);
    return this;
  }

  /**
   * Removes the temporary files of put() that nothing has written to for `idleMs` (default an hour): those
   * of a process that died mid-write. Another process sharing the folder may be writing one now, so a
   * fresh one is left alone (a write in progress keeps its file's modification time current).
   */
  async sweepTemp(idleMs = 3_600_000, now = Date.now()): Promise<number> {
    let removed = 0;
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (e.isFile() && TEMP_NAME.test(e.name)) {
          const st = await fs.stat(p).catch(() => null);
          if (st && now - st.mtimeMs > idleMs && (await fs.rm(p, { force: true }).then(() => true, () => false))) removed++;
        }
      }
    };
    await walk(this.root);
    return removed;
  }

  /**
   * Streams `source` to a temporary file next to the key's file while hashing and counting, then renames
   * it into place (atomic; an existing blob is replaced). Over `maxBytes`: the source is destroyed, the
   * temporary file removed and QuireError FILE_TOO_LARGE thrown. On any error nothing is left behind.
   */
  async put(key: string, source: Readable | Buffer | string, options: { maxBytes?: number } = {}): Promise<{ size: number; sha256: string }> {
    let file: string;
    try {
      file = this.resolve(key);
      if (options.maxBytes !== undefined && !(options.maxBytes >= 0)) throw new Error('put: maxBytes must be a non-negative number');
    } catch (e) {
      if (source instanceof Readable) source.destroy();
      throw e;
    }
    const { maxBytes } = options;
    // a Buffer is written as it is (Buffer.from would copy it: a parsed document's JSON is megabytes)
    const input = Buffer.isBuffer(source) ? Readable.from([source]) : typeof source === 'string' ? Readable.from([Buffer.from(source)]) : source;
    const dir = path.dirname(file);
    const tmp = this.tempPath(key);
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        if (maxBytes !== undefined && size > maxBytes) return cb(errors.tooLarge(maxBytes));
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    let handle: fs.FileHandle | undefined;
    try {
      handle = await this.openTemp(dir, tmp);
      const out = handle.createWriteStream({ flush: true });
      handle = undefined; // the stream owns and closes it
      await pipeline(input, meter, out);
      await fs.rename(tmp, file);
    } catch (e) {
      if (!input.destroyed) input.destroy();
      await handle?.close().catch(() => undefined);
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      await this.prune(dir);
      throw e;
    }
    return { size, sha256: hash.digest('hex') };
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await fs.readFile(this.resolve(key));
    } catch (e) {
      throw this.missing(e, key);
    }
  }

  async stream(key: string): Promise<Readable> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.resolve(key), 'r');
    } catch (e) {
      throw this.missing(e, key);
    }
    return handle.createReadStream();
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.resolve(key))).isFile();
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  /** Removes the blob; a missing key is fine. Empty folders left behind are removed. */
  async delete(key: string): Promise<void> {
    const file = this.resolve(key);
    await fs.rm(file, { force: true });
    await this.prune(path.dirname(file));
  }

  /** Deletes every key that starts with `prefix` (a string prefix: `documents/ab` also matches `documents/abc/x`). */
  async deletePrefix(prefix: string): Promise<void> {
    assertKey(prefix, { prefix: true });
    const target = path.join(this.root, prefix);
    const dir = prefix.endsWith('/') ? target : path.dirname(target);
    if (prefix.endsWith('/')) {
      const st = await fs.stat(dir).catch((e) => (isMissing(e) || e.code === 'ENOTDIR' ? null : Promise.reject(e)));
      if (st?.isDirectory()) await fs.rm(dir, { recursive: true, force: true });
    } else {
      const start = path.basename(target);
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (e) {
        if (isMissing(e) || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return;
        throw e;
      }
      await Promise.all(names.filter((n) => n.startsWith(start)).map((n) => fs.rm(path.join(dir, n), { recursive: true, force: true })));
    }
    await this.prune(prefix.endsWith('/') ? path.dirname(dir) : dir);
  }

  localPath(key: string): string {
    return this.resolve(key);
  }

  /** `.<name>.<uuid>.tmp` beside the key's file (TEMP_NAME): what put() writes to, and what sweepTemp() removes when left. */
  tempPath(key: string): string {
    const file = this.resolve(key);
    return path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
  }

  /** A copy in a fresh temporary folder (keeps the file name); cleanup removes the folder. */
  async toTempFile(key: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
    const src = this.resolve(key);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-blob-'));
    const dest = path.join(dir, path.basename(src));
    try {
      await fs.copyFile(src, dest);
    } catch (e) {
      await fs.rm(dir, { recursive: true, force: true });
      throw this.missing(e, key);
    }
    return { path: dest, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    try {
      await fs.access(this.root, fsc.W_OK);
      return { ok: true, message: this.root };
    } catch (e) {
      return { ok: false, message: `${this.root} is not writable: ${(e as Error).message}` };
    }
  }

  async close(): Promise<void> {}

  // ---------- internals ----------

  private resolve(key: string): string {
    assertKey(key);
    const p = path.join(this.root, key);
    if (!this.inside(p)) throw new Error(`storage key "${key}" resolves outside the storage root`);
    return p;
  }

  /** True when `p` is strictly below the root. */
  private inside(p: string): boolean {
    const rel = path.relative(this.root, p);
    return !!rel && !rel.startsWith('..') && !path.isAbsolute(rel);
  }

  /** Opens the temporary file, re-creating the folder if a concurrent delete pruned it meanwhile. */
  private async openTemp(dir: string, tmp: string): Promise<fs.FileHandle> {
    for (let i = 0; ; i++) {
      await mkdirPrivate(dir);
      try {
        const handle = await fs.open(tmp, 'wx', PRIVATE_FILE_MODE);
        await handle.chmod(PRIVATE_FILE_MODE);
        return handle;
      } catch (e) {
        if (!isMissing(e) || i >= 3) throw e;
      }
    }
  }

  /** Removes empty folders from `dir` up to (not including) the root. */
  private async prune(dir: string): Promise<void> {
    let d = dir;
    while (this.inside(d)) {
      try {
        await fs.rmdir(d);
      } catch {
        return; // not empty, gone or busy: stop
      }
      d = path.dirname(d);
    }
  }

  private missing(e: unknown, key: string): unknown {
    return isMissing(e) ? errors.notFound('stored file', key) : e;
  }
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === 'ENOENT';
}
