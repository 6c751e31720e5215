// The test servers of a run start on a copy of one migrated SQLite database (test/helpers/server.ts) instead of
// migrating their own: the copy must hold what a migration from scratch makes (every table, index and trigger,
// every migration recorded), and a data dir a test brings must be opened as it is, never replaced.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { MIGRATIONS, MIGRATIONS_TABLE, openTypeormStore } from '@quire/plugin-store-typeorm';
import { MYSQL_URL, makeTempDir, removeTempDir, startTestServer, uploadForm } from './helpers/server.js';

/** Schema (sorted, as SQLite keeps it) and recorded migrations of an SQLite file. */
function describeSqlite(file: string): { schema: string[]; migrations: string[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const schema = (db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`).all() as { type: string; name: string; tbl_name: string; sql: string | null }[]).map((r) => `${r.type} ${r.name} ON ${r.tbl_name}: ${r.sql}`);
    const migrations = (db.prepare(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`).all() as { name: string }[]).map((r) => r.name);
    return { schema, migrations };
  } finally {
    db.close();
  }
}

test('a test server starts on the schema a migration from scratch makes, and a data dir a test brings keeps its database', { skip: MYSQL_URL ? 'about the SQLite database of the embedded defaults' : false, timeout: 120_000 }, async () => {
  const scratch = makeTempDir('migrate');
  const store = await openTypeormStore({ dataDir: scratch });
  await store.close();
  const fresh = describeSqlite(path.join(scratch, 'quire.db'));
  removeTempDir(scratch);
  assert.deepEqual(fresh.migrations, MIGRATIONS.map((m) => new m().name));
  assert.ok(fresh.schema.length > 10, fresh.schema.join('\n'));

  // two servers: the first of a process may make the copy, the second takes it
  for (let i = 0; i < 2; i++) {
    const s = await startTestServer();
    try {
      assert.deepEqual(describeSqlite(path.join(s.dataDir, 'quire.db')), fresh, `server ${i + 1}`);
      assert.equal((await s.json('/v1/documents')).status, 200);
    } finally {
      await s.close();
    }
  }

  // a data dir of its own: what the first server wrote is there for the second
  const dataDir = makeTempDir('own');
  try {
    const first = await startTestServer({ env: { QUIRE_DATA_DIR: dataDir } });
    let key: string;
    let id: string;
    try {
      key = first.key;
      const up = await first.json('/v1/documents', { method: 'POST', body: uploadForm('note.txt', 'A note kept in the data dir.', {}, 'text/plain') });
      assert.equal(up.status, 201, JSON.stringify(up.body));
      id = up.body.id;
    } finally {
      await first.close();
    }
    const second = await startTestServer({ env: { QUIRE_DATA_DIR: dataDir } });
    try {
      const got = await second.json(`/v1/documents/${id}`, { key });
      assert.equal(got.status, 200, `the first server's key and document are in the second's database: ${JSON.stringify(got.body)}`);
    } finally {
      await second.close();
    }
  } finally {
    removeTempDir(dataDir);
  }
});
