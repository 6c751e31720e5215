/** Recognises driver errors across better-sqlite3 and mysql2 (raw or wrapped in TypeORM's QueryFailedError). */

function driverError(e: unknown): { code?: unknown; errno?: unknown; message?: unknown } {
  const err = e as { driverError?: unknown } | null;
  return ((err && typeof err === 'object' && err.driverError) || err || {}) as { code?: unknown; errno?: unknown };
}

/** A unique or primary key was violated. */
export function isDuplicateKey(e: unknown): boolean {
  const d = driverError(e);
  return d.code === 'ER_DUP_ENTRY' || d.errno === 1062 || d.code === 'SQLITE_CONSTRAINT_UNIQUE' || d.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** MySQL gave up on a lock (deadlock victim or lock wait timeout): the whole transaction may be retried. */
export function isTransient(e: unknown): boolean {
  const d = driverError(e);
  return d.code === 'ER_LOCK_DEADLOCK' || d.errno === 1213 || d.code === 'ER_LOCK_WAIT_TIMEOUT' || d.errno === 1205;
}

/** SQLite could not get its lock within the busy timeout. */
export function isBusy(e: unknown): boolean {
  const d = driverError(e);
  return typeof d.code === 'string' && d.code.startsWith('SQLITE_BUSY');
}

export function messageOf(e: unknown): string {
  const d = driverError(e);
  return typeof d.message === 'string' ? d.message : String(e);
}
