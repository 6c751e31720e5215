// A small in-memory Store for pipeline tests (the real one is @quire/plugin-store-typeorm).
import { randomUUID } from 'node:crypto';
import { StoreConflictError } from '../src/store.js';
import type { FindOptions, Repo, Store, Where } from '../src/store.js';
import type { JobRecord, TableName, Tables } from '../src/model/records.js';

const clone = <T>(v: T): T => structuredClone(v);

function matches<T>(row: T, where: Where<T> | undefined): boolean {
  if (!where) return true;
  for (const [k, v] of Object.entries(where)) {
    const actual = (row as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (v === null) {
      if (actual !== null && actual !== undefined) return false;
    } else if (Array.isArray(v)) {
      if (!v.includes(actual)) return false;
    } else if (v instanceof Date) {
      if (!(actual instanceof Date) || actual.getTime() !== v.getTime()) return false;
    } else if (actual !== v) return false;
  }
  return true;
}

class MemoryRepo<T extends { id: string }> implements Repo<T> {
  readonly rows = new Map<string, T>();
  private where(w: Where<T> | string): Where<T> {
    return typeof w === 'string' ? ({ id: w } as Where<T>) : w;
  }
  async get(id: string) {
    const r = this.rows.get(id);
    return r ? clone(r) : null;
  }
  async findOne(where: Where<T>) {
    return (await this.find(where, { limit: 1 }))[0] ?? null;
  }
  async find(where?: Where<T>, options: FindOptions<T> = {}) {
    let out = [...this.rows.values()].filter((r) => matches(r, where));
    for (const [k, dir] of Object.entries(options.order ?? {}).reverse()) {
      out.sort((a, b) => {
        const x = (a as any)[k], y = (b as any)[k];
        return (x < y ? -1 : x > y ? 1 : 0) * (dir === 'DESC' ? -1 : 1);
      });
    }
    out = out.slice(options.offset ?? 0, options.limit ? (options.offset ?? 0) + options.limit : undefined);
    return out.map(clone);
  }
  async count(where?: Where<T>) {
    return [...this.rows.values()].filter((r) => matches(r, where)).length;
  }
  async insert(record: T) {
    if (this.rows.has(record.id)) throw new StoreConflictError(`duplicate id ${record.id}`);
    this.rows.set(record.id, clone(record));
    return clone(record);
  }
  async insertMany(records: T[]) {
    for (const r of records) await this.insert(r);
  }
  async update(where: Where<T> | string, patch: Partial<T>) {
    let n = 0;
    for (const r of this.rows.values()) if (matches(r, this.where(where))) { Object.assign(r, clone(patch)); n++; }
    return n;
  }
  async delete(where: Where<T> | string) {
    let n = 0;
    for (const [id, r] of this.rows) if (matches(r, this.where(where))) { this.rows.delete(id); n++; }
    return n;
  }
}

export class MemoryStore implements Store {
  readonly dialect = 'sqlite' as const;
  /** strict: a running row of another worker is not claimable; lenient: only a completed row is not (like the TypeORM store) */
  constructor(readonly claims: 'strict' | 'lenient' = 'strict') {}
  private repos = new Map<string, MemoryRepo<any>>();
  repo<N extends TableName>(name: N): Repo<Tables[N]> {
    let r = this.repos.get(name);
    if (!r) this.repos.set(name, (r = new MemoryRepo()));
    return r as MemoryRepo<Tables[N]>;
  }
  async transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    return fn(this);
  }
  async lockRow(table: TableName, id: string): Promise<boolean> {
    return !!(await this.repo(table).get(id));
  }
  async increment(id: string, by: number, expiresAt: Date): Promise<number> {
    const repo = this.repo('rate_counters');
    const row = await repo.get(id);
    if (!row) { await repo.insert({ id, count: by, expires_at: expiresAt }); return by; }
    await repo.update(id, { count: row.count + by });
    return row.count + by;
  }
  /** One process, no interleaving writers to exclude here. */
  async lock(_name: string): Promise<void> {}
  /** Atomic (no await inside). No row → claim; completed → no; running by another worker → no when strict; otherwise reclaim. */
  async claimStage(jobId: string, stage: string, worker: string) {
    const repo = this.repo('job_stages') as MemoryRepo<Tables['job_stages']>;
    const row = [...repo.rows.values()].find((r) => r.job_id === jobId && r.stage === stage);
    if (!row) {
      const r = { id: randomUUID(), job_id: jobId, stage, status: 'running' as const, attempts: 1, worker, error: null, started_at: new Date(), completed_at: null };
      repo.rows.set(r.id, clone(r));
      return { claimed: true, row: r };
    }
    if (row.status === 'completed' || (this.claims === 'strict' && row.status === 'running' && row.worker !== worker)) return { claimed: false, row: clone(row) };
    Object.assign(row, { status: 'running' as const, attempts: row.attempts + 1, worker, error: null, started_at: new Date(), completed_at: null });
    return { claimed: true, row: clone(row) };
  }
  async ping() {}
  async close() {}
}

export async function newJob(store: Store, patch: Partial<JobRecord> = {}): Promise<JobRecord> {
  const now = new Date();
  return store.repo('jobs').insert({
    id: randomUUID(), user_id: 'u1', organization_id: null, type: 'test', status: 'pending', progress: 0, progress_detail: null, document_id: null,
    input: null, result: null, error: null, webhook_url: null, created_at: now, updated_at: now, completed_at: null, ...patch,
  });
}
