/**
 * Store plugin on TypeORM: SQLite (better-sqlite3) by default, MySQL/MariaDB (mysql2) with QUIRE_DB_URL.
 */
import { definePlugin } from '@quire/core';
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
  create(ctx) {
    const url = ctx.options.url ?? ctx.config.db?.url;
    if (url !== undefined && typeof url !== 'string') throw new Error('store:typeorm: the database URL must be a string');
    return openTypeormStore({ url, dataDir: ctx.dataDir, logger: ctx.logger });
  },
});
