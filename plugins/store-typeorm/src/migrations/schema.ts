/**
 * Dialect-aware helpers for migrations, on TypeORM's QueryRunner Table API, so one migration class runs on
 * SQLite and on MySQL/MariaDB. Existing migrations depend on what these return: change them only by adding
 * new helpers, never by altering the output of an existing one.
 */
import { Table, TableIndex } from 'typeorm';
import type { QueryRunner, TableColumnOptions } from 'typeorm';

export type Dialect = 'sqlite' | 'mysql';

export function dialectOf(qr: QueryRunner): Dialect {
  const type = qr.connection.driver.options.type;
  return type === 'mysql' || type === 'mariadb' ? 'mysql' : 'sqlite';
}

type Opt = { nullable?: boolean };

/** Column builders for one dialect. */
export function columnsFor(d: Dialect) {
  const mysql = d === 'mysql';
  // Binary collation: equality, uniqueness and ordering are case- and accent-sensitive, exactly as on SQLite.
  const str = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
  const nul = (o?: Opt) => ({ isNullable: o?.nullable ?? false });
  const c = {
    pk: (name: string, length = 36): TableColumnOptions => ({ name, type: 'varchar', length: String(length), isPrimary: true, isNullable: false, ...str }),
    ref: (name: string, o?: Opt): TableColumnOptions => ({ name, type: 'varchar', length: '36', ...nul(o), ...str }),
    string: (name: string, length: number, o?: Opt): TableColumnOptions => ({ name, type: 'varchar', length: String(length), ...nul(o), ...str }),
    text: (name: string, o?: Opt): TableColumnOptions => ({ name, type: mysql ? 'longtext' : 'text', ...nul(o), ...str }),
    json: (name: string, o?: Opt): TableColumnOptions => c.text(name, o),
    date: (name: string, o?: Opt): TableColumnOptions => ({ name, type: 'datetime', ...(mysql ? { precision: 3 } : {}), ...nul(o) }),
    int: (name: string, o?: Opt): TableColumnOptions => ({ name, type: mysql ? 'int' : 'integer', ...nul(o) }),
    bigint: (name: string, o?: Opt): TableColumnOptions => ({ name, type: mysql ? 'bigint' : 'integer', ...nul(o) }),
    double: (name: string, o?: Opt): TableColumnOptions => ({ name, type: mysql ? 'double' : 'real', ...nul(o) }),
    bool: (name: string, o?: Opt): TableColumnOptions => ({ name, type: mysql ? 'tinyint' : 'boolean', ...(mysql ? { width: 1 } : {}), ...nul(o) }),
  };
  return c;
}
export type ColumnBuilders = ReturnType<typeof columnsFor>;

/** A (non-unique) index, named IDX_<table>_<columns>. */
export function index(table: string, ...columnNames: string[]): TableIndex {
  return new TableIndex({ name: `IDX_${table}_${columnNames.join('_')}`, columnNames });
}

/** A unique index, named UQ_<table>_<columns>. */
export function unique(table: string, ...columnNames: string[]): TableIndex {
  return new TableIndex({ name: `UQ_${table}_${columnNames.join('_')}`, columnNames, isUnique: true });
}

/** Creates a table with its indexes (InnoDB, utf8mb4 on MySQL). */
export async function createTable(qr: QueryRunner, name: string, columns: TableColumnOptions[], indices: TableIndex[] = []): Promise<void> {
  await qr.createTable(new Table({ name, columns, indices, ...(dialectOf(qr) === 'mysql' ? { engine: 'InnoDB' } : {}) }));
}
