/** Opens the DataSource for a database URL, creates the MySQL database if needed and runs the migrations. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import type { DataSourceOptions } from 'typeorm';
import type mysql from 'mysql2/promise';
import { makePrivateSync, mkdirPrivate, silentLogger, touchPrivateSync } from '@quire/core';
import type { Logger } from '@quire/core';
import { ENTITIES } from './entities.js';
import { isBusy } from './errors.js';
import { Gate } from './gate.js';
import { MIGRATIONS } from './migrations/index.js';
import { TypeormStore } from './store.js';
import { describeTarget, parseDbUrl } from './url.js';
import type { DbTarget } from './url.js';

export interface OpenStoreOptions {
  /** QUIRE_DB_URL; absent → SQLite `<dataDir>/quire.db` */
  url?: string;
  dataDir: string;
  logger?: Logger;
  /** SQLite busy timeout and MySQL migration-lock wait, ms (default 5000 / 60000) */
  busyTimeoutMs?: number;
  /** how often expired rate counters are deleted, ms (default 60000) */
  sweepEveryMs?: number;
}

/** Table where TypeORM records the migrations that ran. */
export const MIGRATIONS_TABLE = 'quire_migrations';

export async function openTypeormStore(options: OpenStoreOptions): Promise<TypeormStore> {
  const logger = options.logger ?? silentLogger;
  const target = parseDbUrl(options.url, options.dataDir);
  const description = describeTarget(target);
  const ds = new DataSource(await dataSourceOptions(target, options.busyTimeoutMs ?? 5000));
  try {
    await ds.initialize();
  } catch (e) {
    throw new Error(`cannot open the database (${description}): ${(e as Error).message}`);
  }
  try {
    const ran = await runMigrations(ds, target, options.busyTimeoutMs);
    if (ran.length) logger.info({ migrations: ran }, 'database migrations applied');
  } catch (e) {
    await ds.destroy().catch(() => undefined);
    throw new Error(`database migrations failed (${description}): ${(e as Error).message}`);
  }
  logger.debug({ db: description }, 'store open');
  return new TypeormStore(
    {
      ds,
      dialect: target.dialect,
      gate: target.dialect === 'sqlite' ? new Gate() : null,
      logger,
      description,
      sweepEveryMs: options.sweepEveryMs ?? 60_000,
      lastSweep: 0,
      sweeping: null,
      closed: false,
    },
    ds.manager,
  );
}

async function dataSourceOptions(target: DbTarget, busyTimeoutMs: number): Promise<DataSourceOptions> {
  const common = {
    entities: Object.values(ENTITIES),
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsRun: false, // run below, under a lock
    synchronize: false,
    logging: false,
  } as const;
  if (target.dialect === 'sqlite') {
    const memory = target.file === ':memory:';
    if (!memory) {
      // the database file is made 0600 before SQLite opens it; its -wal and -shm files take its mode
      await mkdirPrivate(path.dirname(target.file));
      touchPrivateSync(target.file);
      makePrivateSync(target.file, `${target.file}-wal`, `${target.file}-shm`);
    }
    return {
      ...common,
      type: 'better-sqlite3',
      database: target.file,
      timeout: busyTimeoutMs,
      enableWAL: !memory,
      prepareDatabase: (db: { pragma(s: string): unknown }) => {
        db.pragma(`busy_timeout = ${Math.round(busyTimeoutMs)}`);
        // with WAL, NORMAL stays consistent after a crash; only the last commits may be lost on power loss
        db.pragma('synchronous = NORMAL');
        // deleted rows are overwritten with zeros, not left in free pages (erasure, spec §4.11)
        db.pragma('secure_delete = ON');
      },
    };
  }
  await ensureMysqlDatabase(target);
  return {
    ...common,
    type: 'mysql',
    host: target.host,
    port: target.port,
    username: target.user,
    password: target.password,
    database: target.database,
    charset: 'utf8mb4_bin',
    timezone: 'Z',
    poolSize: target.connectionLimit,
    ...(target.ssl ? { ssl: { rejectUnauthorized: target.ssl !== 'skip-verify' } } : {}),
  };
}

/** Creates the database (utf8mb4, binary collation) when it does not exist yet. */
async function ensureMysqlDatabase(t: Extract<DbTarget, { dialect: 'mysql' }>): Promise<void> {
  let conn: mysql.Connection;
  // loaded for a MariaDB/MySQL target only (SQLite never needs it)
  const { default: client } = await import('mysql2/promise');
  try {
    conn = await client.createConnection({
      host: t.host,
      port: t.port,
      user: t.user,
      password: t.password,
      ...(t.ssl ? { ssl: { rejectUnauthorized: t.ssl !== 'skip-verify' } } : {}),
    });
  } catch (e) {
    throw new Error(`cannot connect to MySQL at ${t.host}:${t.port}: ${(e as Error).message}`);
  }
  try {
    const [rows] = await conn.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [t.database]);
    if (!(rows as unknown[]).length) {
      await conn.query(`CREATE DATABASE IF NOT EXISTS \`${t.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    }
  } finally {
    await conn.end().catch(() => undefined);
  }
}

/**
 * Runs pending migrations. MySQL: under a named lock so processes starting together do not race (DDL is
 * not transactional there). SQLite: in one transaction, retried if another process holds the file.
 */
async function runMigrations(ds: DataSource, target: DbTarget, lockWaitMs?: number): Promise<string[]> {
  if (target.dialect === 'mysql') {
    const qr = ds.createQueryRunner();
    await qr.connect();
    const lock = `quire_migrations:${target.database}`.slice(0, 64);
    try {
      const [r] = await qr.query('SELECT GET_LOCK(?, ?) AS l', [lock, Math.ceil((lockWaitMs ?? 60_000) / 1000)]);
      if (Number(r?.l) !== 1) throw new Error('timed out waiting for another process to finish the migrations');
      try {
        return (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name);
      } finally {
        await qr.query('SELECT RELEASE_LOCK(?)', [lock]).catch(() => undefined);
      }
    } finally {
      await qr.release();
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return (await ds.runMigrations({ transaction: 'all' })).map((m) => m.name);
    } catch (e) {
      if (attempt >= 5 || !isBusy(e)) throw e;
      await sleep(100 * attempt);
    }
  }
}
