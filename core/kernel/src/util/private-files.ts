/**
 * What the data dir holds (documents, parsed content, the database, vectors, keys) is the server's alone:
 * directories 0700 and files 0600, set with chmod after creating them, so the umask does not decide.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The directories `mkdir -p dir` created, deepest first, given the first one it created. */
function created(dir: string, first: string | undefined): string[] {
  const out: string[] = [];
  if (!first) return out;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    out.push(d);
    if (d === path.resolve(first) || d === path.dirname(d)) return out;
  }
}

/** mkdir -p, the directories it creates 0700. */
export async function mkdirPrivate(dir: string): Promise<void> {
  for (const d of created(dir, await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE }))) await fsp.chmod(d, PRIVATE_DIR_MODE);
}

export function mkdirPrivateSync(dir: string): void {
  for (const d of created(dir, fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE }))) fs.chmodSync(d, PRIVATE_DIR_MODE);
}

/** Sets files that exist to 0600 (e.g. a database and its -wal and -shm files); missing ones are skipped. */
export function makePrivateSync(...files: string[]): void {
  for (const f of files) {
    try {
      fs.chmodSync(f, PRIVATE_FILE_MODE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

/** Creates the file empty and 0600 when it does not exist yet (so that what opens it later keeps the mode). */
export function touchPrivateSync(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, PRIVATE_FILE_MODE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return;
  }
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}
