/** Storage keys are made by Quire (e.g. `documents/<id>/original.pdf`); anything else is refused. */

export class StorageKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageKeyError';
  }
}

const ALLOWED = /^[A-Za-z0-9._/-]+$/;

/**
 * Checks a key: only `A-Z a-z 0-9 . _ / -`, at most 1024 characters, no leading `/`, no empty segment
 * (`a//b`, trailing `/`), no `.` or `..` segment and no `..` anywhere. With `prefix`, a trailing `/` is allowed.
 */
export function assertKey(key: string, { prefix = false } = {}): void {
  const what = prefix ? 'prefix' : 'key';
  if (typeof key !== 'string' || !key) throw new StorageKeyError(`storage ${what} must be a non-empty string`);
  if (key.length > 1024) throw new StorageKeyError(`storage ${what} is longer than 1024 characters`);
  if (!ALLOWED.test(key)) throw new StorageKeyError(`storage ${what} "${key}" may only use letters, digits, '.', '_', '-' and '/'`);
  if (key.startsWith('/')) throw new StorageKeyError(`storage ${what} "${key}" must not start with '/'`);
  if (key.includes('..')) throw new StorageKeyError(`storage ${what} "${key}" must not contain '..'`);
  const segments = (prefix && key.endsWith('/') ? key.slice(0, -1) : key).split('/');
  for (const s of segments) {
    if (!s) throw new StorageKeyError(`storage ${what} "${key}" has an empty segment`);
    if (s === '.') throw new StorageKeyError(`storage ${what} "${key}" has a '.' segment`);
    if (s.length > 255) throw new StorageKeyError(`storage ${what} "${key}" has a segment longer than 255 characters`);
  }
}
