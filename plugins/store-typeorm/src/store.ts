/**
 * core's Store on a TypeORM DataSource. A store is bound to an EntityManager: the root store to the
 * DataSource's, a transaction's store to the transaction's. On SQLite every piece of work passes the Gate
 * (one connection; see gate.ts) and transactions are BEGIN IMMEDIATE so several processes can share a file.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { In, IsNull } from 'typeorm';
import type { DataSource, EntityManager, EntitySchema, EntitySchemaColumnOptions, FindOptionsOrder, FindOptionsWhere } from 'typeorm';
import { StoreConflictError } from '@quire/core';
import type { FindOptions, JobStageRecord, Logger, Repo, Store, StorePlugin, TableName, Tables, Where } from '@quire/core';
import { ENTITIES } from './entities.js';
import { isDuplicateKey, isTransient, messageOf } from './errors.js';
import type { Gate } from './gate.js';

/** What every store on one DataSource shares. */
export interface StoreShared {
  ds: DataSource;
  dialect: 'sqlite' | 'mysql';
  /** SQLite only */
  gate: Gate | null;
  logger: Logger;
  /** the database, without secrets */
  description: string;
  /** expired rate counters are deleted at most this often (ms) */
  sweepEveryMs: number;
  lastSweep: number;
  sweeping: Promise<void> | null;
  closed: boolean;
}

type Row = Record<string, unknown>;

export class TypeormStore implements StorePlugin {
  readonly dialect: 'sqlite' | 'mysql';
  private readonly repos = new Map<TableName, TypeormRepo<any>>();

  /** Use openTypeormStore(); this constructor is internal. */
  constructor(
    private readonly s: StoreShared,
    private readonly manager: EntityManager,
    /** true for the store passed to a transaction's callback */
    readonly inTransaction = false,
  ) {
    this.dialect = s.dialect;
  }

  /** The TypeORM DataSource (for tools such as migrations:revert). */
  get dataSource(): DataSource {
    return this.s.ds;
  }

  tables(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [name, schema] of Object.entries(ENTITIES)) out[name] = Object.keys((schema as EntitySchema<any>).options.columns);
    return out;
  }

  repo<N extends TableName>(name: N): Repo<Tables[N]> {
    let r = this.repos.get(name);
    if (!r) {
      const schema = ENTITIES[name];
      if (!schema) throw new Error(`unknown table "${name}"`);
      r = new TypeormRepo(name, schema as EntitySchema<any>, this.manager, (fn) => this.run(fn));
      this.repos.set(name, r);
    }
    return r as unknown as Repo<Tables[N]>;
  }

  async transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    if (this.s.gate) return this.run(() => this.sqliteTransaction(fn));
    this.assertOpen();
    return this.manager.transaction((em) => fn(new TypeormStore(this.s, em, true)));
  }

  async lockRow(table: TableName, id: string): Promise<boolean> {
    if (!this.inTransaction) throw new Error('lockRow() is for the store of a transaction');
    const t = this.q(table);
    // SQLite: BEGIN IMMEDIATE already gave this transaction the only write lock
    const { records } = await this.run(() => this.exec(`SELECT ${this.q('id')} FROM ${t} WHERE ${this.q('id')} = ?${this.dialect === 'mysql' ? ' FOR UPDATE' : ''}`, [id]));
    return records.length > 0;
  }

  async increment(id: string, by: number, expiresAt: Date): Promise<number> {
    if (!Number.isInteger(by)) throw new Error('increment: `by` must be an integer');
    this.maybeSweep();
    const t = this.q('rate_counters');
    const [cId, cCount, cExp] = [this.q('id'), this.q('count'), this.q('expires_at')];
    if (this.dialect === 'sqlite') {
      const { records } = await this.run(() =>
        this.exec(
          `INSERT INTO ${t} (${cId}, ${cCount}, ${cExp}) VALUES (?, ?, ?) ON CONFLICT(${cId}) DO UPDATE SET ${cCount} = ${cCount} + excluded.${cCount} RETURNING ${cCount} AS n`,
          [id, by, expiresAt],
        ),
      );
      return Number(records[0]!.n);
    }
    return this.retrying(() =>
      this.transaction(async (tx) => {
        const store = tx as TypeormStore;
        await store.exec(`INSERT INTO ${t} (${cId}, ${cCount}, ${cExp}) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE ${cCount} = ${cCount} + ?`, [id, by, expiresAt, by]);
        const { records } = await store.exec(`SELECT ${cCount} AS n FROM ${t} WHERE ${cId} = ?`, [id]);
        return Number(records[0]!.n);
      }),
    );
  }

  async lock(name: string): Promise<void> {
    if (!this.inTransaction) throw new Error('lock: call it inside a transaction');
    if (name.length > 128) throw new Error('lock: the name is longer than 128 characters');
    if (this.dialect === 'sqlite') return; // BEGIN IMMEDIATE: this transaction is the only writer
    // on a duplicate key InnoDB takes an exclusive lock on the existing row (no shared lock to upgrade)
    const [t, cId, cAt] = [this.q('locks'), this.q('id'), this.q('created_at')];
    await this.exec(`INSERT INTO ${t} (${cId}, ${cAt}) VALUES (?, ?) ON DUPLICATE KEY UPDATE ${cId} = ${cId}`, [name, new Date()]);
  }

  async claimStage(jobId: string, stage: string, worker: string): Promise<{ claimed: boolean; row: JobStageRecord }> {
    for (let i = 0; i < 10; i++) {
      const row: JobStageRecord = {
        id: randomUUID(),
        job_id: jobId,
        stage,
        status: 'running',
        attempts: 1,
        worker,
        error: null,
        started_at: new Date(),
        completed_at: null,
      };
      try {
        await this.repo('job_stages').insert(row);
        return { claimed: true, row };
      } catch (e) {
        if (!(e instanceof StoreConflictError)) throw e;
      }
      // The row exists: take it over unless it completed (a redelivery after its holder died or failed).
      const res = await this.retrying(() => this.transaction((tx) => (tx as TypeormStore).reclaim(jobId, stage, worker)));
      if (res) return res;
      // it vanished between the two steps: insert again
    }
    throw new Error(`claimStage(${jobId}, ${stage}): the stage row keeps changing; giving up`);
  }

  async checkpoint(): Promise<void> {
    if (this.dialect === 'sqlite') await this.run(() => this.exec('PRAGMA wal_checkpoint(TRUNCATE)'));
  }

  async ping(): Promise<void> {
    await this.run(() => this.exec('SELECT 1'));
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    try {
      await this.ping();
      return { ok: true, message: this.s.description };
    } catch (e) {
      return { ok: false, message: `${this.s.description}: ${messageOf(e)}` };
    }
  }

  /** Closes the DataSource (the root store only; a transaction's store ends with its transaction). */
  async close(): Promise<void> {
    if (this.inTransaction || this.s.closed) return;
    await this.s.sweeping?.catch(() => undefined);
    const destroy = async () => {
      this.s.closed = true;
      if (this.s.ds.isInitialized) await this.s.ds.destroy();
    };
    // on SQLite wait for the transaction in progress, if any
    await (this.s.gate ? this.s.gate.run(destroy) : destroy());
  }

  // ---------- internals ----------

  /** Runs a unit of work: through the gate on SQLite, directly on MySQL. */
  private run<R>(fn: () => Promise<R>): Promise<R> {
    try {
      this.assertOpen();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.s.gate ? this.s.gate.run(fn) : fn();
  }

  private assertOpen(): void {
    if (this.s.closed) throw new Error('the store is closed');
  }

  private q(identifier: string): string {
    return this.s.ds.driver.escape(identifier);
  }

  /** Raw SQL with `?` placeholders on this store's connection; Dates are converted like TypeORM does. */
  private async exec(sql: string, params: unknown[] = []): Promise<{ records: Row[]; affected: number }> {
    const sqlite = this.dialect === 'sqlite';
    const values = params.map((p) => (p instanceof Date && sqlite ? sqliteDate(p) : p));
    const own = !this.manager.queryRunner;
    const qr = this.manager.queryRunner ?? this.s.ds.createQueryRunner();
    try {
      const r = await qr.query(sql, values, true);
      return { records: Array.isArray(r.records) ? (r.records as Row[]) : [], affected: r.affected ?? 0 };
    } finally {
      if (own) await qr.release();
    }
  }

  /** Called inside the gate: BEGIN IMMEDIATE at the outer level, savepoints below it. */
  private async sqliteTransaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    const ctx = this.s.gate!.current()!;
    const depth = ctx.depth;
    const sp = `quire_sp_${depth}`;
    await this.exec(depth === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${sp}`);
    const rollback = async () => {
      try {
        if (depth === 0) await this.exec('ROLLBACK');
        else {
          await this.exec(`ROLLBACK TO ${sp}`);
          await this.exec(`RELEASE ${sp}`);
        }
      } catch (err) {
        this.s.logger.warn({ err }, 'rollback failed');
      }
    };
    let result: R;
    ctx.depth = depth + 1;
    try {
      result = await fn(new TypeormStore(this.s, this.manager, true));
    } catch (e) {
      ctx.depth = depth;
      await rollback();
      throw e;
    }
    ctx.depth = depth;
    try {
      await this.exec(depth === 0 ? 'COMMIT' : `RELEASE ${sp}`);
    } catch (e) {
      await rollback();
      throw e;
    }
    return result;
  }

  /** MySQL: retries a whole transaction that lost a deadlock or timed out on a lock (not when nested). */
  private async retrying<R>(fn: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (this.dialect !== 'mysql' || this.inTransaction || attempt >= 5 || !isTransient(e)) throw e;
        await sleep(5 + Math.random() * 20 * attempt);
      }
    }
  }

  /** Inside a transaction: re-claims a stage row that did not complete; null when the row is gone. */
  private async reclaim(jobId: string, stage: string, worker: string): Promise<{ claimed: boolean; row: JobStageRecord } | null> {
    const c = (n: string) => this.q(n);
    const { affected } = await this.exec(
      `UPDATE ${c('job_stages')} SET ${c('attempts')} = ${c('attempts')} + 1, ${c('worker')} = ?, ${c('status')} = ?, ${c('started_at')} = ?, ${c('completed_at')} = NULL ` +
        `WHERE ${c('job_id')} = ? AND ${c('stage')} = ? AND ${c('status')} <> ?`,
      [worker, 'running', new Date(), jobId, stage, 'completed'],
    );
    const row = await this.repo('job_stages').findOne({ job_id: jobId, stage });
    return row ? { claimed: affected > 0, row } : null;
  }

  /** Deletes expired rate counters, at most once per sweepEveryMs, in the background. */
  private maybeSweep(): void {
    const now = Date.now();
    if (this.inTransaction || this.s.sweeping || now - this.s.lastSweep < this.s.sweepEveryMs) return;
    this.s.lastSweep = now;
    this.s.sweeping = this.run(() => this.exec(`DELETE FROM ${this.q('rate_counters')} WHERE ${this.q('expires_at')} < ?`, [new Date(now)]))
      .then(
        ({ affected }) => {
          if (affected) this.s.logger.debug({ deleted: affected }, 'expired rate counters deleted');
        },
        (err) => this.s.logger.warn({ err }, 'deleting expired rate counters failed'),
      )
      .finally(() => {
        this.s.sweeping = null;
      });
  }
}

/** How TypeORM stores a datetime on SQLite: UTC 'YYYY-MM-DD HH:MM:SS.mmm' (sorts as text). */
function sqliteDate(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

class TypeormRepo<T extends { id: string }> implements Repo<T> {
  private readonly columns: Set<string>;
  private readonly nullable: string[];

  constructor(
    private readonly table: string,
    private readonly schema: EntitySchema<T>,
    private readonly manager: EntityManager,
    private readonly run: <R>(fn: () => Promise<R>) => Promise<R>,
  ) {
    const cols = schema.options.columns as Record<string, EntitySchemaColumnOptions>;
    this.columns = new Set(Object.keys(cols));
    this.nullable = Object.entries(cols)
      .filter(([, c]) => c.nullable)
      .map(([k]) => k);
  }

  get(id: string): Promise<T | null> {
    return this.findOne({ id } as Where<T>);
  }

  async findOne(where: Where<T>): Promise<T | null> {
    const w = this.where(where);
    if (!w) return null;
    return this.run(() => this.manager.findOne(this.schema, { where: w }));
  }

  async find(where?: Where<T>, options: FindOptions<T> = {}): Promise<T[]> {
    const w = this.where(where);
    const { limit, offset } = options;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw new Error(`${this.table}.find: limit must be a non-negative integer`);
    if (offset !== undefined && (!Number.isInteger(offset) || offset < 0)) throw new Error(`${this.table}.find: offset must be a non-negative integer`);
    if (!w || limit === 0) return [];
    const order = this.order(options.order);
    // MySQL needs a LIMIT with an OFFSET
    const take = limit ?? (offset ? Number.MAX_SAFE_INTEGER : undefined);
    return this.run(() => this.manager.find(this.schema, { where: w, order, take, skip: offset || undefined }));
  }

  async count(where?: Where<T>): Promise<number> {
    const w = this.where(where);
    if (!w) return 0;
    return this.run(() => this.manager.count(this.schema, { where: w }));
  }

  async insert(record: T): Promise<T> {
    const row = this.row(record);
    try {
      await this.run(() => this.manager.createQueryBuilder().insert().into(this.schema).values(row as never).updateEntity(false).execute());
    } catch (e) {
      throw this.conflict(e);
    }
    return { ...row } as T;
  }

  async insertMany(records: T[]): Promise<void> {
    if (!records.length) return;
    const rows = records.map((r) => this.row(r));
    // bound parameters per statement: well under SQLite's 32,766 and MySQL's 65,535
    const per = Math.max(1, Math.floor(8000 / this.columns.size));
    // one INSERT of many rows, written here: the query builder spends more time building a statement of
    // thousands of parameters than the database spends running it (a document's chunks: 27 → 4 ms per 600 rows).
    // Values go through the driver's conversion (with the column's transformer), as the query builder's do.
    const meta = this.manager.connection.getMetadata(this.schema);
    const driver = this.manager.connection.driver;
    const cols = meta.columns;
    const head = `INSERT INTO ${driver.escape(meta.tableName)} (${cols.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES `;
    const tuple = `(${cols.map(() => '?').join(', ')})`;
    // rows without a value for some column (its default) go through the query builder, which knows defaults
    const builder = rows.some((row) => cols.some((c) => row[c.propertyName] === undefined));
    const insert = (part: Row[]) => {
      if (builder) return this.manager.createQueryBuilder().insert().into(this.schema).values(part as never).updateEntity(false).execute();
      // the driver applies the column's transformer, then its own conversion (dates, booleans)
      const params = part.flatMap((row) => cols.map((c) => driver.preparePersistentValue(row[c.propertyName], c)));
      return this.manager.query(head + Array(part.length).fill(tuple).join(', '), params);
    };
    for (let i = 0; i < rows.length; i += per) {
      const part = rows.slice(i, i + per);
      try {
        await this.run(() => insert(part));
      } catch (e) {
        throw this.conflict(e);
      }
    }
  }

  /** A record as a row: known columns only, every nullable column present. */
  private row(record: T): Row {
    const row: Row = {};
    for (const [k, v] of Object.entries(record)) {
      if (v === undefined) continue;
      this.check(k);
      row[k] = v;
    }
    for (const k of this.nullable) if (!(k in row)) row[k] = null;
    return row;
  }

  async update(where: Where<T> | string, patch: Partial<T>): Promise<number> {
    const w = this.criteria(where, 'update');
    if (!w) return 0;
    const set: Row = {};
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      this.check(k);
      set[k] = v;
    }
    if (!Object.keys(set).length) return this.run(() => this.manager.count(this.schema, { where: w }));
    try {
      const r = await this.run(() => this.manager.update(this.schema, w, set as never));
      return r.affected ?? 0;
    } catch (e) {
      throw this.conflict(e);
    }
  }

  async delete(where: Where<T> | string): Promise<number> {
    const w = this.criteria(where, 'delete');
    if (!w) return 0;
    const r = await this.run(() => this.manager.delete(this.schema, w));
    return r.affected ?? 0;
  }

  /** Where → TypeORM where; null when it can match nothing (an empty IN list). Undefined values are ignored. */
  private where(where: Where<T> | undefined): FindOptionsWhere<T> | null {
    const out: Row = {};
    for (const [k, v] of Object.entries(where ?? {})) {
      if (v === undefined) continue;
      this.check(k);
      if (v === null) out[k] = IsNull();
      else if (Array.isArray(v)) {
        if (!v.length) return null;
        out[k] = In(v);
      } else out[k] = v;
    }
    return out as FindOptionsWhere<T>;
  }

  /** update/delete refuse a condition-less where, so a stray undefined never touches a whole table. */
  private criteria(where: Where<T> | string, op: string): FindOptionsWhere<T> | null {
    const w = typeof where === 'string' ? this.where({ id: where } as Where<T>) : this.where(where);
    if (w && !Object.keys(w).length) throw new Error(`${this.table}.${op} needs at least one condition`);
    return w;
  }

  /** Adds the id as the last sort key so pages are stable when the other keys tie. */
  private order(order: FindOptions<T>['order']): FindOptionsOrder<T> | undefined {
    const entries = Object.entries(order ?? {}).filter(([, d]) => d !== undefined) as [string, string][];
    if (!entries.length) return undefined;
    const out: Record<string, 'ASC' | 'DESC'> = {};
    for (const [k, d] of entries) {
      this.check(k);
      const dir = String(d).toUpperCase();
      if (dir !== 'ASC' && dir !== 'DESC') throw new Error(`${this.table}: order of ${k} must be ASC or DESC`);
      out[k] = dir;
    }
    if (!('id' in out)) out.id = out[entries[0]![0]]!;
    return out as FindOptionsOrder<T>;
  }

  private check(column: string): void {
    if (!this.columns.has(column)) throw new Error(`${this.table} has no column "${column}"`);
  }

  private conflict(e: unknown): unknown {
    return isDuplicateKey(e) ? new StoreConflictError(`${this.table}: ${messageOf(e)}`) : e;
  }
}
