/**
 * Store plugin on TypeORM: SQLite (better-sqlite3) by default, MySQL/MariaDB (mysql2) with QUIRE_DB_URL.
 */
import { definePlugin, z } from '@quire/core';
import { openTypeormStore } from './open.js';

export { openTypeormStore, MIGRATIONS_TABLE } from './open.js';
export type { OpenStoreOptions } from './open.js';
export { TypeormStore } from './store.js';
export { ENTITIES } from './entities.js';
export { MIGRATIONS } from './migrations/index.js';
export { parseDbUrl, describeTarget } from './url.js';
export type { DbTarget } from './url.js';

export default definePlugin({
  kind: 'store',
  name: 'typeorm',
  core: '^1',
  description: 'Relational store on TypeORM: SQLite in the data dir, or MySQL/MariaDB from QUIRE_DB_URL.',
  options: z.strictObject({
    /** QUIRE_DB_URL: mysql://user:pass@host:3306/db, mariadb://…, or sqlite:///path/to/file.db (default: SQLite in the data dir) */
    url: z.string().regex(/^(sqlite|mysql|mariadb):/, 'must start with sqlite:, mysql: or mariadb:').optional(),
  }),
  create(ctx) {
    return openTypeormStore({ url: ctx.options.url, dataDir: ctx.dataDir, logger: ctx.logger });
  },
});
