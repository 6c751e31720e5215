// @services: store queries and migrations on MySQL/MariaDB
/**
 * One suite for the TypeORM store, run on SQLite (temp dir) always and on MySQL/MariaDB when
 * QUIRE_TEST_MYSQL_URL is set (a unique database is created per run and dropped at the end).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { StoreConflictError, pluginContext } from '@quire/core';
import type { DocumentRecord, OrganizationRecord, UserRecord } from '@quire/core';
import plugin, { ENTITIES, MIGRATIONS, MIGRATIONS_TABLE, TypeormStore, openTypeormStore, parseDbUrl } from '@quire/plugin-store-typeorm';

const here = path.dirname(fileURLToPath(import.meta.url));
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-store-'));
after(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const T0 = new Date('2026-03-04T05:06:07.089Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function user(id: string, extra: Partial<UserRecord> = {}): UserRecord {
  return { id, email: `${id}@example.com`, name: null, password_hash: null, plan: 'free', avatar_url: null, created_at: T0, updated_at: T0, ...extra };
}

function doc(id: string, extra: Partial<DocumentRecord> = {}): DocumentRecord {
  return {
    id, user_id: 'u1', organization_id: null, name: `${id}.pdf`, status: 'pending', file_type: 'pdf', mime_type: 'application/pdf',
    file_size: 1234, sha256: null, pages: null, storage_key: `files/${id}`, content_key: null, parsing_config: null,
    knowledge_base_id: null, error: null, issues: null, processing_ms: null, created_at: T0, updated_at: T0, ...extra,
  };
}

function org(id: string, extra: Partial<OrganizationRecord> = {}): OrganizationRecord {
  return { id, name: id, slug: id, settings: {}, created_by: 'u1', created_at: T0, updated_at: T0, ...extra };
}

interface Target {
  name: string;
  /** opens a fresh, empty database; returns its URL */
  setup(): Promise<string>;
  teardown(): Promise<void>;
}

const targets: Target[] = [
  {
    name: 'sqlite',
    async setup() {
      return `sqlite://${path.join(tmpRoot, 'suite', 'quire.db')}`;
    },
    async teardown() {},
  },
];

const mysqlUrl = process.env.QUIRE_TEST_MYSQL_URL;
if (mysqlUrl) {
  const u = new URL(mysqlUrl);
  const database = `quire_test_${process.pid}_${Date.now().toString(36)}`;
  const admin = () => mysql.createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) });
  targets.push({
    name: 'mysql',
    async setup() {
      u.pathname = `/${database}`;
      return u.toString();
    },
    async teardown() {
      const c = await admin();
      await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await c.end();
    },
  });
}

for (const target of targets) {
  describe(`store-typeorm on ${target.name}`, () => {
    let store: TypeormStore;
    let url: string;

    before(async () => {
      url = await target.setup();
      store = await openTypeormStore({ url, dataDir: tmpRoot, sweepEveryMs: 0 });
      await store.repo('users').insert(user('u1'));
    });
    after(async () => {
      await store?.close();
      await target.teardown();
    });

    test('migrations create every table with exactly the entity columns, once', async () => {
      assert.equal(store.dialect, target.name);
      const qr = store.dataSource.createQueryRunner();
      try {
        for (const [name, schema] of Object.entries(ENTITIES)) {
          const table = await qr.getTable(name);
          assert.ok(table, `table ${name} exists`);
          assert.deepEqual(table.columns.map((c) => c.name).sort(), Object.keys(schema.options.columns).sort(), `columns of ${name}`);
        }
        const jobStages = await qr.getTable('job_stages');
        assert.ok(jobStages!.indices.some((i) => i.isUnique && i.columnNames.join() === 'job_id,stage'), 'unique (job_id, stage)');
        const ran = await qr.query(`SELECT ${qr.connection.driver.escape('name')} AS n FROM ${qr.connection.driver.escape(MIGRATIONS_TABLE)}`);
        assert.deepEqual(ran.map((r: { n: string }) => r.n), MIGRATIONS.map((m) => new m().name));
      } finally {
        await qr.release();
      }
      // a second process opening the same database finds nothing to migrate and sees the data
      const again = await openTypeormStore({ url, dataDir: tmpRoot });
      try {
        assert.equal((await again.repo('users').get('u1'))?.email, 'u1@example.com');
        assert.equal(await again.dataSource.showMigrations(), false);
      } finally {
        await again.close();
      }
    });

    test('the workflow-triggers migration gives each workflow its one automatic trigger as the first of its set', async () => {
      const wf = (id: string, trigger_type: string, trigger_config: Record<string, unknown>, schedule_from: Date | null) => ({
        id, user_id: 'u1', organization_id: null, name: id, description: null, definition: { steps: [] }, trigger_type, trigger_config, enabled: true, schedule_from, trigger_secret: null, created_at: T0, updated_at: T0,
      });
      await store.repo('workflows').insertMany([
        wf('wf-event', 'event', { event: 'document.uploaded', filters: { file_type: 'pdf' } }, null),
        wf('wf-cron', 'scheduled', { cron_expression: '0 3 * * *', timezone: 'Europe/Paris' }, at(500)),
        wf('wf-manual', 'manual', {}, null),
      ]);
      const Migration = MIGRATIONS.find((m) => new m().name === 'WorkflowTriggers1795990000000')!;
      const qr = store.dataSource.createQueryRunner();
      try {
        // as on a database migrated before: no trigger rows yet
        await new Migration().down(qr);
        await new Migration().up(qr);
      } finally {
        await qr.release();
      }
      const rows = await store.repo('workflow_triggers').find({ workflow_id: ['wf-event', 'wf-cron', 'wf-manual'] }, { order: { workflow_id: 'ASC' } });
      assert.deepEqual(
        rows.map((r) => [r.workflow_id, r.type, r.event, r.config, r.schedule_from?.toISOString() ?? null, r.created_at.toISOString()]),
        [
          ['wf-cron', 'scheduled', null, { cron_expression: '0 3 * * *', timezone: 'Europe/Paris' }, at(500).toISOString(), T0.toISOString()],
          ['wf-event', 'event', 'document.uploaded', { event: 'document.uploaded', filters: { file_type: 'pdf' } }, null, T0.toISOString()],
        ],
      );
      await store.repo('workflow_triggers').delete({ workflow_id: ['wf-event', 'wf-cron'] });
      await store.repo('workflows').delete({ id: ['wf-event', 'wf-cron', 'wf-manual'] });
    });

    test('insert/get round-trips Dates (ms), JSON, nulls and big numbers', async () => {
      const d = doc('d-rt', {
        created_at: new Date('2026-01-02T03:04:05.678Z'),
        parsing_config: { chunking: { strategy: 'semantic', max_chunk_size: 1000 }, ocr: { enabled: true, language: 'eng+deu' }, list: [1, 'two', null] },
        issues: [{ code: 'OCR_FAILED', stage: 'ocr', page: 3, message: 'ünïcödé ✓' }],
        file_size: 5 * 1024 ** 3,
        pages: 12,
      });
      const returned = await store.repo('documents').insert(d);
      assert.deepEqual(returned, d);
      const got = await store.repo('documents').get('d-rt');
      assert.ok(got);
      assert.ok(got.created_at instanceof Date);
      assert.equal(got.created_at.toISOString(), '2026-01-02T03:04:05.678Z');
      assert.deepEqual(got, d);
      assert.equal(got.file_size, 5368709120);
      // stored as UTC whatever the process time zone, so processes in different zones agree
      const e = (x: string) => store.dataSource.driver.escape(x);
      const raw = await store.dataSource.query(`SELECT CAST(${e('created_at')} AS CHAR) AS v, ${e('parsing_config')} AS j FROM ${e('documents')} WHERE ${e('id')} = 'd-rt'`);
      assert.equal(raw[0].v, '2026-01-02 03:04:05.678');
      assert.deepEqual(JSON.parse(raw[0].j), d.parsing_config);
      assert.equal(got.content_key, null);

      await store.repo('chunks').insert({
        id: 'c-rt', user_id: 'u1', organization_id: 'o9', document_id: 'd-rt', idx: 0, page: 1, content: 'x'.repeat(70_000), type: 'table',
        confidence: 0.875, bbox: { x: 1.5, y: 2, width: 3, height: 4 }, span_start: 0, span_end: 70_000, metadata: null,
      });
      const chunk = await store.repo('chunks').get('c-rt');
      assert.equal(chunk?.content.length, 70_000);
      assert.equal(chunk?.confidence, 0.875);
      assert.deepEqual(chunk?.bbox, { x: 1.5, y: 2, width: 3, height: 4 });
      assert.equal(chunk?.metadata, null);
      assert.equal(await store.repo('documents').get('nope'), null);
    });

    test('insert fills omitted nullable fields with null', async () => {
      const partial = { ...user('u-partial') } as Partial<UserRecord>;
      delete partial.avatar_url;
      const returned = await store.repo('users').insert(partial as UserRecord);
      assert.equal(returned.avatar_url, null);
      assert.deepEqual(await store.repo('users').get('u-partial'), returned);
    });

    test('insertMany: many statements for many rows, same values as insert; a conflict inside a transaction leaves none', async () => {
      const chunks = store.repo('chunks');
      const row = (i: number) => ({
        id: `im-${i}`, user_id: 'u1', organization_id: null, document_id: 'd-im', idx: i, page: 1 + (i % 7), content: `chunk ${i} ünïcödé`, type: 'text' as const,
        confidence: i / 1000, bbox: i % 2 ? { x: i, y: 0, width: 1, height: 2 } : null, span_start: i * 10, span_end: i * 10 + 9, metadata: { pages: [1], heading: null },
      });
      // more rows than one statement takes (8,000 parameters / 13 columns)
      const rows = Array.from({ length: 1500 }, (_, i) => row(i));
      await chunks.insertMany(rows);
      assert.equal(await chunks.count({ document_id: 'd-im' }), 1500);
      const back = await chunks.find({ document_id: 'd-im' }, { order: { idx: 'ASC' } });
      assert.deepEqual(back[0], rows[0]);
      assert.deepEqual(back[1499], rows[1499]);
      await chunks.insertMany([]);
      // the last row repeats an id: inside a transaction nothing of the call stays
      await assert.rejects(
        store.transaction((tx) => tx.repo('chunks').insertMany([...Array.from({ length: 900 }, (_, i) => row(2000 + i)), row(5)])),
        StoreConflictError,
      );
      assert.equal(await chunks.count({ document_id: 'd-im' }), 1500);
      await chunks.delete({ document_id: 'd-im' });
    });

    test('where: equality, IN, empty IN, IS NULL; order, limit, offset, count', async () => {
      const docs = store.repo('documents');
      for (let i = 0; i < 6; i++) {
        await docs.insert(doc(`w${i}`, {
          user_id: 'u-where', created_at: at(i * 1000), status: i % 2 ? 'completed' : 'pending',
          organization_id: i < 2 ? 'org-a' : null,
        }));
      }
      const ids = (rows: DocumentRecord[]) => rows.map((r) => r.id);
      assert.deepEqual(ids(await docs.find({ user_id: 'u-where' }, { order: { created_at: 'DESC' } })), ['w5', 'w4', 'w3', 'w2', 'w1', 'w0']);
      assert.deepEqual(ids(await docs.find({ user_id: 'u-where' }, { order: { created_at: 'ASC' }, limit: 2, offset: 1 })), ['w1', 'w2']);
      assert.deepEqual(ids(await docs.find({ user_id: 'u-where' }, { order: { created_at: 'ASC' }, offset: 4 })), ['w4', 'w5']);
      assert.deepEqual(await docs.find({ user_id: 'u-where' }, { limit: 0 }), []);
      assert.deepEqual(ids(await docs.find({ user_id: 'u-where', status: 'completed' }, { order: { created_at: 'ASC' } })), ['w1', 'w3', 'w5']);
      assert.deepEqual(ids(await docs.find({ id: ['w0', 'w3', 'missing'] }, { order: { id: 'ASC' } })), ['w0', 'w3']);
      assert.deepEqual(ids(await docs.find({ user_id: 'u-where', organization_id: null }, { order: { id: 'ASC' } })), ['w2', 'w3', 'w4', 'w5']);
      assert.deepEqual(ids(await docs.find({ user_id: 'u-where', organization_id: ['org-a'] }, { order: { id: 'DESC' } })), ['w1', 'w0']);
      assert.deepEqual(await docs.find({ id: [] }), []);
      assert.equal(await docs.findOne({ id: [] }), null);
      assert.equal(await docs.count({ id: [] }), 0);
      assert.equal(await docs.count({ user_id: 'u-where' }), 6);
      assert.equal(await docs.count({ user_id: 'u-where', organization_id: null, status: ['pending', 'failed'] }), 2);
      assert.equal((await docs.findOne({ user_id: 'u-where', created_at: at(3000) }))?.id, 'w3', 'a Date equality filter');
      assert.equal(await docs.count({ user_id: 'u-where', status: undefined }), 6, 'undefined values are ignored');
      assert.ok((await docs.count()) >= 6);
      await assert.rejects(docs.find({ nope: 1 } as never), /no column "nope"/);
    });

    test('pages are stable when the sort key ties (the id breaks ties)', async () => {
      const docs = store.repo('documents');
      for (const id of ['t3', 't1', 't4', 't0', 't2']) await docs.insert(doc(id, { user_id: 'u-tie', created_at: T0 }));
      const seen: string[] = [];
      for (let offset = 0; offset < 5; offset += 2) {
        seen.push(...(await docs.find({ user_id: 'u-tie' }, { order: { created_at: 'DESC' }, limit: 2, offset })).map((d) => d.id));
      }
      assert.deepEqual(seen, ['t4', 't3', 't2', 't1', 't0']);
    });

    test('update and delete return counts; IN and NULL work there too', async () => {
      const docs = store.repo('documents');
      for (let i = 0; i < 4; i++) await docs.insert(doc(`ud${i}`, { user_id: 'u-ud', organization_id: i === 0 ? 'o' : null }));
      assert.equal(await docs.update('ud0', { status: 'processing', error: 'e', parsing_config: { a: { b: [1] } } }), 1);
      const d0 = await docs.get('ud0');
      assert.equal(d0?.status, 'processing');
      assert.deepEqual(d0?.parsing_config, { a: { b: [1] } });
      assert.equal(await docs.update('ud0', { status: 'processing' }), 1, 'a matched row counts even when nothing changes');
      assert.equal(await docs.update({ user_id: 'u-ud', organization_id: null }, { status: 'failed', updated_at: at(5) }), 3);
      assert.equal(await docs.count({ user_id: 'u-ud', status: 'failed' }), 3);
      assert.equal((await docs.get('ud3'))?.updated_at.getTime(), at(5).getTime());
      assert.equal(await docs.update({ id: ['ud1', 'ud2', 'zz'] }, { error: null }), 2);
      assert.equal(await docs.update({ id: [] }, { error: 'x' }), 0);
      assert.equal(await docs.update('missing', { error: 'x' }), 0);
      assert.equal(await docs.update('ud1', { error: undefined }), 1, 'an empty patch counts the matches');
      await assert.rejects(docs.update({}, { error: 'x' }), /needs at least one condition/);
      await assert.rejects(docs.update({ user_id: undefined }, { error: 'x' }), /needs at least one condition/);
      await assert.rejects(docs.delete({}), /needs at least one condition/);
      assert.equal(await docs.delete({ id: [] }), 0);
      assert.equal(await docs.delete('ud0'), 1);
      assert.equal(await docs.delete('ud0'), 0);
      assert.equal(await docs.delete({ user_id: 'u-ud', id: ['ud1', 'ud2'] }), 2);
      assert.equal(await docs.count({ user_id: 'u-ud' }), 1);
    });

    test('duplicates raise StoreConflictError (id, unique keys, on insert and update)', async () => {
      const users = store.repo('users');
      await users.insert(user('dup1'));
      await assert.rejects(users.insert(user('dup1', { email: 'other@example.com' })), StoreConflictError);
      await assert.rejects(users.insert(user('dup2', { email: 'dup1@example.com' })), (e: Error) => e instanceof StoreConflictError && /users/.test(e.message));
      await users.insert(user('dup3'));
      await assert.rejects(users.update('dup3', { email: 'dup1@example.com' }), StoreConflictError);
      // binary collation: case differs → distinct, as on SQLite
      await users.insert(user('dup4', { email: 'DUP1@example.com' }));
      await store.repo('memberships').insert({ id: 'm1', organization_id: 'o1', user_id: 'u1', role: 'owner', created_at: T0 });
      await assert.rejects(store.repo('memberships').insert({ id: 'm2', organization_id: 'o1', user_id: 'u1', role: 'admin', created_at: T0 }), StoreConflictError);
      await store.repo('organizations').insert(org('org-x', { settings: { theme: { dark: true } } }));
      await assert.rejects(store.repo('organizations').insert(org('org-y', { slug: 'org-x' })), StoreConflictError);
      await store.repo('api_keys').insert({ id: 'k1', user_id: 'u1', name: 'k', prefix: 'svc_ab', key_hash: 'f'.repeat(64), created_at: T0, last_used_at: null, revoked_at: null, expires_at: null });
      await assert.rejects(store.repo('api_keys').insert({ id: 'k2', user_id: 'u1', name: 'k', prefix: 'svc_ab', key_hash: 'f'.repeat(64), created_at: T0, last_used_at: null, revoked_at: null, expires_at: null }), StoreConflictError);
      assert.equal(await users.count({ id: ['dup1', 'dup2', 'dup3', 'dup4'] }), 3);
    });

    test('lock: transactions locking the same row run one after the other, each reading what the previous committed', async () => {
      await store.repo('users').insert({ ...user('u-lock'), name: '0' });
      // ten read-modify-write transactions at once: without the lock, MySQL loses updates
      await Promise.all(
        Array.from({ length: 10 }, () =>
          store.transaction(async (tx) => {
            assert.equal(await tx.lockRow('users', 'u-lock'), true);
            const n = Number((await tx.repo('users').get('u-lock'))!.name);
            await tx.repo('users').update('u-lock', { name: String(n + 1) });
          }),
        ),
      );
      assert.equal((await store.repo('users').get('u-lock'))!.name, '10');
      assert.equal(await store.transaction((tx) => tx.lockRow('users', 'no-such-user')), false);
      await assert.rejects(store.lockRow('users', 'u-lock'), /transaction/);
    });

    test('transaction commits, rolls back on throw, and nests with savepoints', async () => {
      const users = store.repo('users');
      const r = await store.transaction(async (tx) => {
        await tx.repo('users').insert(user('tx-ok'));
        assert.equal((await tx.repo('users').get('tx-ok'))?.id, 'tx-ok');
        return 42;
      });
      assert.equal(r, 42);
      assert.ok(await users.get('tx-ok'));

      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.repo('users').insert(user('tx-rb'));
          await tx.repo('users').update('tx-ok', { name: 'changed' });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await users.get('tx-rb'), null);
      assert.equal((await users.get('tx-ok'))?.name, null);

      // a failed statement inside a transaction rolls it all back when the error escapes
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.repo('users').insert(user('tx-rb2'));
          await tx.repo('users').insert(user('tx-rb3', { email: 'tx-ok@example.com' }));
        }),
        StoreConflictError,
      );
      assert.equal(await users.get('tx-rb2'), null);

      await store.transaction(async (tx) => {
        await tx.repo('users').insert(user('tx-outer'));
        await assert.rejects(
          tx.transaction(async (inner) => {
            await inner.repo('users').insert(user('tx-inner'));
            throw new Error('inner');
          }),
          /inner/,
        );
        await tx.transaction(async (inner) => inner.repo('users').insert(user('tx-inner2')));
      });
      assert.ok(await users.get('tx-outer'));
      assert.equal(await users.get('tx-inner'), null);
      assert.ok(await users.get('tx-inner2'));
    });

    test('work outside a transaction is not swept into its rollback', async () => {
      const users = store.repo('users');
      let release!: () => void;
      const inside = new Promise<void>((r) => (release = r));
      const tx = store.transaction(async (t) => {
        await t.repo('users').insert(user('iso-in'));
        release();
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('rollback');
      });
      await inside;
      await users.insert(user('iso-out'));
      await assert.rejects(tx, /rollback/);
      assert.equal(await users.get('iso-in'), null);
      assert.ok(await users.get('iso-out'));
    });

    if (target.name === 'sqlite') {
      test('sqlite: the outer store used inside a transaction joins it instead of deadlocking', async () => {
        await assert.rejects(
          store.transaction(async () => {
            await store.repo('users').insert(user('join-1'));
            assert.ok(await store.repo('users').get('join-1'));
            throw new Error('undo');
          }),
          /undo/,
        );
        assert.equal(await store.repo('users').get('join-1'), null);
      });
    }

    test('increment: parallel adds give the exact total and distinct intermediate values', async () => {
      const exp = new Date(Date.now() + 60_000);
      const n = 120;
      const values = await Promise.all(Array.from({ length: n }, () => store.increment('key1:minute:1', 1, exp)));
      assert.deepEqual([...values].sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
      assert.equal(await store.increment('key1:minute:1', 5, exp), n + 5);
      const row = await store.repo('rate_counters').get('key1:minute:1');
      assert.equal(row?.count, n + 5);
      assert.equal(row?.expires_at.getTime(), exp.getTime());
      assert.equal(await store.increment('key2:minute:1', 3, exp), 3);
      await assert.rejects(store.increment('key2:minute:1', 1.5, exp), /integer/);
    });

    test('increment deletes expired counters in the background', async () => {
      await store.increment('old:minute:1', 1, new Date(Date.now() - 60_000));
      await store.increment('fresh:minute:1', 1, new Date(Date.now() + 60_000));
      for (let i = 0; i < 50 && (await store.repo('rate_counters').get('old:minute:1')); i++) {
        await new Promise((r) => setTimeout(r, 20));
        await store.increment('fresh:minute:1', 1, new Date(Date.now() + 60_000));
      }
      assert.equal(await store.repo('rate_counters').get('old:minute:1'), null);
      assert.ok(await store.repo('rate_counters').get('fresh:minute:1'));
    });

    test('claimStage: first claim, redelivery take-over, completed is not claimed, failed is retried', async () => {
      const first = await store.claimStage('job-1', 'read', 'w1');
      assert.equal(first.claimed, true);
      assert.equal(first.row.attempts, 1);
      assert.equal(first.row.status, 'running');
      assert.equal(first.row.worker, 'w1');
      assert.deepEqual(await store.repo('job_stages').get(first.row.id), first.row);

      const second = await store.claimStage('job-1', 'read', 'w2');
      assert.equal(second.claimed, true);
      assert.equal(second.row.id, first.row.id);
      assert.equal(second.row.attempts, 2);
      assert.equal(second.row.worker, 'w2');

      const done = at(9);
      await store.repo('job_stages').update(first.row.id, { status: 'completed', completed_at: done });
      const third = await store.claimStage('job-1', 'read', 'w3');
      assert.equal(third.claimed, false);
      assert.equal(third.row.status, 'completed');
      assert.equal(third.row.attempts, 2);
      assert.equal(third.row.worker, 'w2');
      assert.equal(third.row.completed_at?.getTime(), done.getTime());

      const other = await store.claimStage('job-1', 'ocr', 'w1');
      assert.equal(other.claimed, true);
      assert.notEqual(other.row.id, first.row.id);
      await store.repo('job_stages').update(other.row.id, { status: 'failed', error: 'tesseract died' });
      const retry = await store.claimStage('job-1', 'ocr', 'w4');
      assert.equal(retry.claimed, true);
      assert.equal(retry.row.status, 'running');
      assert.equal(retry.row.attempts, 2);
      assert.equal(await store.repo('job_stages').count({ job_id: 'job-1' }), 2);
    });

    test('claimStage: concurrent first claims insert exactly one row and count every attempt', async () => {
      const n = 8;
      const results = await Promise.all(Array.from({ length: n }, (_, i) => store.claimStage('job-race', 'embed', `w${i}`)));
      assert.equal(await store.repo('job_stages').count({ job_id: 'job-race', stage: 'embed' }), 1);
      assert.equal(new Set(results.map((r) => r.row.id)).size, 1);
      assert.ok(results.every((r) => r.claimed));
      assert.deepEqual(results.map((r) => r.row.attempts).sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
      assert.equal(results.filter((r) => r.row.attempts === 1).length, 1, 'exactly one insert');
      assert.equal((await store.repo('job_stages').findOne({ job_id: 'job-race' }))?.attempts, n);
    });

    test('claimStage inside a transaction uses it', async () => {
      await assert.rejects(
        store.transaction(async (tx) => {
          assert.equal((await tx.claimStage('job-tx', 'read', 'w1')).claimed, true);
          throw new Error('abort');
        }),
        /abort/,
      );
      assert.equal(await store.repo('job_stages').count({ job_id: 'job-tx' }), 0);
    });

    test('ping and health', async () => {
      await store.ping();
      const h = await store.health();
      assert.equal(h.ok, true);
      assert.match(h.message ?? '', new RegExp(target.name));
      assert.doesNotMatch(h.message ?? '', /password|:\/\//);
    });
  });
}

describe('store-typeorm: opening', () => {
  test('parseDbUrl', () => {
    assert.deepEqual(parseDbUrl(undefined, '/data'), { dialect: 'sqlite', file: '/data/quire.db' });
    assert.deepEqual(parseDbUrl('sqlite:///var/lib/q.db', '/data'), { dialect: 'sqlite', file: '/var/lib/q.db' });
    assert.deepEqual(parseDbUrl('sqlite::memory:', '/data'), { dialect: 'sqlite', file: ':memory:' });
    assert.equal((parseDbUrl('sqlite:rel/q.db', '/data') as { file: string }).file, path.resolve('rel/q.db'));
    assert.deepEqual(parseDbUrl('mariadb://bob:p%40ss@db.local/quire?connectionLimit=4&ssl=true', '/data'), {
      dialect: 'mysql', host: 'db.local', port: 3306, user: 'bob', password: 'p@ss', database: 'quire', connectionLimit: 4, ssl: true,
    });
    assert.equal((parseDbUrl('mysql://root@127.0.0.1:3307/x', '/d') as { port: number }).port, 3307);
    assert.throws(() => parseDbUrl('mysql://root@host/', '/d'), /database name/);
    assert.throws(() => parseDbUrl('mysql://root@host/a`b', '/d'), /may only use/);
    assert.throws(() => parseDbUrl('postgres://x/y', '/d'), /must start with/);
  });

  test('the plugin defaults to <dataDir>/quire.db in WAL mode with a busy timeout', async () => {
    const dataDir = path.join(tmpRoot, 'plugin', 'nested');
    const ctx = pluginContext(plugin, { dataDir });
    assert.equal(plugin.kind, 'store');
    assert.equal(plugin.name, 'typeorm');
    const s = await plugin.create(ctx);
    try {
      assert.ok(fs.existsSync(path.join(dataDir, 'quire.db')));
      assert.equal(s.dialect, 'sqlite');
      const ds = (s as TypeormStore).dataSource;
      assert.equal((await ds.query('PRAGMA journal_mode'))[0].journal_mode, 'wal');
      assert.equal((await ds.query('PRAGMA busy_timeout'))[0].timeout, 5000);
      assert.equal((await s.health!()).ok, true);
    } finally {
      await s.close();
    }
    await assert.rejects(s.ping(), /closed/);
  });

  test('sqlite::memory: works', async () => {
    const s = await openTypeormStore({ url: 'sqlite::memory:', dataDir: tmpRoot });
    try {
      await s.repo('users').insert(user('mem'));
      assert.equal(await s.repo('users').count(), 1);
    } finally {
      await s.close();
    }
  });

  test('sqlite: two processes share one file (WAL, busy timeout, BEGIN IMMEDIATE)', async () => {
    const file = path.join(tmpRoot, 'shared', 'quire.db');
    const s = await openTypeormStore({ url: `sqlite://${file}`, dataDir: tmpRoot });
    try {
      await s.repo('users').insert(user('rmw', { name: '0' }));
      const child = path.join(here, 'fixtures', 'worker.ts');
      const start = (name: string) => {
        const p = spawn(process.execPath, ['--conditions=quire-source', '--import', 'tsx', child, file, name], { stdio: ['pipe', 'pipe', 'inherit'] });
        let out = '';
        let onReady!: () => void;
        const ready = new Promise<void>((r) => (onReady = r));
        p.stdout.on('data', (d) => {
          out += d;
          if (out.startsWith('ready\n')) onReady();
        });
        const done = new Promise<string>((resolve, reject) => {
          p.on('error', reject);
          p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker ${name} exited with ${code}`))));
        });
        done.catch(onReady);
        return { p, ready, done };
      };
      const workers = [start('a'), start('b')];
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.p.stdin.end('go\n');
      const outs = await Promise.all(workers.map((w) => w.done));
      const claims = outs.map((o) => JSON.parse(o.trim().split('\n').pop()!) as { attempts: number[] });
      const row = await s.repo('rate_counters').get('shared');
      assert.equal(row?.count, 2 * 50);
      // every claim of the shared stage counted exactly once across both processes
      const attempts = claims.flatMap((c) => c.attempts).sort((a, b) => a - b);
      assert.deepEqual(attempts, Array.from({ length: attempts.length }, (_, i) => i + 1));
      assert.equal(await s.repo('job_stages').count({ job_id: 'shared-job' }), 1);
      assert.equal(await s.repo('users').count(), 1 + 2 * 10);
      assert.equal((await s.repo('users').get('rmw'))?.name, '40', 'no lost update across processes');
    } finally {
      await s.close();
    }
  });
});
