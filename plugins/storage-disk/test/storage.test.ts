import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { QuireError, pluginContext } from '@quire/core';
import plugin, { DiskStorage, StorageKeyError } from '@quire/plugin-storage-disk';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-disk-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
const fresh = () => new DiskStorage(path.join(tmp, `root${n++}`)).init();
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
/** every file under dir, relative */
const files = (dir: string): string[] => (fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort() : []);

test('put/get round trip from a buffer, a string and a chunked stream, with size and sha256', async () => {
  const s = await fresh();
  const bin = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
  assert.deepEqual(await s.put('documents/d1/original.bin', bin), { size: bin.length, sha256: sha(bin) });
  assert.deepEqual(await s.get('documents/d1/original.bin'), bin);

  const text = 'héllo wörld ✓';
  assert.deepEqual(await s.put('documents/d1/content.json', text), { size: Buffer.byteLength(text), sha256: sha(text) });
  assert.equal((await s.get('documents/d1/content.json')).toString('utf8'), text);

  const parts = Array.from({ length: 20 }, (_, i) => Buffer.alloc(10_000, i));
  const all = Buffer.concat(parts);
  const r = await s.put('documents/d2/original.pdf', Readable.from(parts));
  assert.deepEqual(r, { size: all.length, sha256: sha(all) });
  const streamed: Buffer[] = [];
  for await (const c of await s.stream('documents/d2/original.pdf')) streamed.push(c as Buffer);
  assert.deepEqual(Buffer.concat(streamed), all);

  assert.equal(s.localPath('documents/d2/original.pdf'), path.join(s.root, 'documents/d2/original.pdf'));
  assert.deepEqual(fs.readFileSync(s.localPath('documents/d2/original.pdf')), all);
  assert.equal(await s.exists('documents/d2/original.pdf'), true);
  assert.equal(await s.exists('documents/d2'), false, 'a folder is not a blob');
  assert.equal(await s.exists('documents/d3/original.pdf'), false);
  assert.deepEqual(files(s.root), ['documents/d1/content.json', 'documents/d1/original.bin', 'documents/d2/original.pdf'], 'no temporary files remain');

  // put replaces
  await s.put('documents/d1/content.json', 'v2');
  assert.equal((await s.get('documents/d1/content.json')).toString(), 'v2');
});

test('maxBytes: an endless source is cut off, destroyed, and nothing is left behind', async () => {
  const s = await fresh();
  let produced = 0;
  const endless = new Readable({
    read() {
      produced += 65_536;
      this.push(Buffer.alloc(65_536, 7));
    },
  });
  await assert.rejects(s.put('uploads/u1/big.bin', endless, { maxBytes: 200_000 }), (e: unknown) => {
    assert.ok(e instanceof QuireError);
    assert.equal(e.code, 'FILE_TOO_LARGE');
    assert.equal(e.status, 413);
    assert.deepEqual(e.details, { limit_bytes: 200_000 });
    return true;
  });
  assert.equal(endless.destroyed, true);
  assert.ok(produced < 2_000_000, `stopped reading early (${produced} bytes)`);
  assert.equal(await s.exists('uploads/u1/big.bin'), false);
  assert.deepEqual(files(s.root), []);
  assert.deepEqual(fs.readdirSync(s.root), [], 'empty folders are removed too');

  // a buffer over the limit, and exactly at the limit
  await assert.rejects(s.put('a/b.bin', Buffer.alloc(11), { maxBytes: 10 }), /exceeds/);
  assert.deepEqual(files(s.root), []);
  assert.equal((await s.put('a/b.bin', Buffer.alloc(10), { maxBytes: 10 })).size, 10);
});

test('a failing source leaves nothing behind and keeps the previous blob', async () => {
  const s = await fresh();
  await s.put('x/keep.txt', 'old');
  const failing = new Readable({
    read() {
      this.push(Buffer.alloc(1000));
      this.destroy(new Error('connection reset'));
    },
  });
  await assert.rejects(s.put('x/keep.txt', failing), /connection reset/);
  assert.equal((await s.get('x/keep.txt')).toString(), 'old');
  assert.deepEqual(files(s.root), ['x/keep.txt']);
});

test('concurrent puts to one key leave one complete blob', async () => {
  const s = await fresh();
  const bodies = Array.from({ length: 5 }, (_, i) => Buffer.alloc(50_000 + i, i + 1));
  const results = await Promise.all(bodies.map((b) => s.put('race/k.bin', Readable.from([b.subarray(0, 20_000), b.subarray(20_000)]))));
  const final = await s.get('race/k.bin');
  const i = bodies.findIndex((b) => b.equals(final));
  assert.ok(i >= 0, 'the stored blob is one of the bodies, whole');
  assert.equal(results[i]!.sha256, sha(final));
  assert.deepEqual(files(s.root), ['race/k.bin']);
});

test('keys are validated: traversal, absolute paths, empty segments and odd characters are refused', async () => {
  const s = await fresh();
  const outside = path.join(tmp, 'escaped.txt');
  const bad = ['../escaped.txt', 'a/../../escaped.txt', '..', 'a/..', '/etc/passwd', 'a//b', 'a/', '', 'a b', 'a\\b', 'a/./b', '.', '%2e%2e/x', 'ü.txt', 'a..b', 'x'.repeat(1025)];
  for (const key of bad) {
    await assert.rejects(s.put(key, 'x'), StorageKeyError, `put ${JSON.stringify(key)}`);
    await assert.rejects(s.get(key), StorageKeyError);
    await assert.rejects(s.exists(key), StorageKeyError);
    await assert.rejects(s.delete(key), StorageKeyError);
    assert.throws(() => s.localPath(key), StorageKeyError);
  }
  assert.equal(fs.existsSync(outside), false);
  const body = Readable.from([Buffer.from('x')]);
  await assert.rejects(s.put('../x', body), StorageKeyError);
  assert.equal(body.destroyed, true, 'the source of a refused put is released');
  await assert.rejects(s.deletePrefix(''), StorageKeyError);
  await assert.rejects(s.deletePrefix('../'), StorageKeyError);
  await assert.rejects(s.deletePrefix('/'), StorageKeyError);
  // allowed characters
  await s.put('Docs_1/v-2.0/file.name.PDF', 'ok');
  assert.equal(await s.exists('Docs_1/v-2.0/file.name.PDF'), true);
});

test('delete is idempotent and tidies empty folders; missing keys read as NOT_FOUND', async () => {
  const s = await fresh();
  await s.delete('never/was.txt');
  await s.put('documents/d1/a.txt', 'a');
  await s.put('documents/d2/b.txt', 'b');
  await s.delete('documents/d1/a.txt');
  await s.delete('documents/d1/a.txt');
  assert.equal(await s.exists('documents/d1/a.txt'), false);
  assert.equal(fs.existsSync(path.join(s.root, 'documents/d1')), false);
  assert.equal(await s.exists('documents/d2/b.txt'), true);
  for (const op of [() => s.get('documents/d1/a.txt'), () => s.stream('documents/d1/a.txt'), () => s.toTempFile('documents/d1/a.txt')]) {
    await assert.rejects(op(), (e: unknown) => e instanceof QuireError && e.code === 'NOT_FOUND');
  }
});

test('deletePrefix deletes by string prefix', async () => {
  const s = await fresh();
  for (const k of ['documents/abc/original.pdf', 'documents/abc/pages/1.png', 'documents/abd/x', 'documents/ab.txt', 'documents/b/y', 'other/abc']) await s.put(k, k);
  await s.deletePrefix('documents/abc/');
  assert.deepEqual(files(s.root), ['documents/ab.txt', 'documents/abd/x', 'documents/b/y', 'other/abc']);
  await s.deletePrefix('documents/ab');
  assert.deepEqual(files(s.root), ['documents/b/y', 'other/abc']);
  await s.deletePrefix('documents/zzz/');
  await s.deletePrefix('nothing/here');
  await s.deletePrefix('other/abc/'); // a file, not a folder: keys under it cannot exist
  assert.deepEqual(files(s.root), ['documents/b/y', 'other/abc']);
  await s.deletePrefix('documents/');
  assert.deepEqual(files(s.root), ['other/abc']);
  assert.equal(fs.existsSync(path.join(s.root, 'documents')), false);
});

test('toTempFile copies the blob with its name; cleanup removes it', async () => {
  const s = await fresh();
  await s.put('documents/d1/scan.tiff', Buffer.from('TIFFDATA'));
  const t = await s.toTempFile('documents/d1/scan.tiff');
  assert.equal(path.basename(t.path), 'scan.tiff');
  assert.notEqual(t.path, s.localPath('documents/d1/scan.tiff'));
  assert.equal(fs.readFileSync(t.path, 'utf8'), 'TIFFDATA');
  await t.cleanup();
  assert.equal(fs.existsSync(t.path), false);
  assert.equal(fs.existsSync(path.dirname(t.path)), false);
  assert.equal(await s.exists('documents/d1/scan.tiff'), true);
});

test('plugin: roots at <dataDir>/files, option root overrides, health reports', async () => {
  assert.equal(plugin.kind, 'storage');
  assert.equal(plugin.name, 'disk');
  const dataDir = path.join(tmp, 'data');
  const ctx = (options: Record<string, unknown>) => pluginContext(plugin, { options, dataDir });
  const s = (await plugin.create(ctx({}))) as DiskStorage;
  assert.equal(s.root, path.join(dataDir, 'files'));
  assert.ok(fs.statSync(s.root).isDirectory());
  await s.put('k/v.txt', 'v');
  assert.ok(fs.existsSync(path.join(dataDir, 'files/k/v.txt')));
  assert.deepEqual(await s.health(), { ok: true, message: s.root });
  const custom = path.join(tmp, 'custom-root');
  const c = (await plugin.create(ctx({ root: custom }))) as DiskStorage;
  assert.equal(c.root, custom);
  assert.ok(fs.statSync(custom).isDirectory());
  assert.throws(() => plugin.create(ctx({ root: 42 })), /storage:disk: option "root"/);
});

test('temporary files left by an interrupted write are swept at start once idle for an hour; fresh ones and blobs stay', async () => {
  const root = path.join(tmp, `sweep${n++}`);
  const first = await new DiskStorage(root).init();
  await first.put('documents/a/original', Buffer.from('kept'));
  const dir = path.join(root, 'documents/a');
  const stale = path.join(dir, '.original.0b6f4c2e-1d2a-4c3b-9e8f-0123456789ab.tmp');
  const busy = path.join(dir, '.original.1c7f5d3f-2e3b-4d4c-8f9a-123456789abc.tmp');
  const lookalike = path.join(dir, 'notes.tmp');
  for (const f of [stale, busy, lookalike]) fs.writeFileSync(f, 'partial');
  const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
  fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);
  fs.utimesSync(lookalike, twoHoursAgo, twoHoursAgo);
  // the next start (a process restarted after a kill -9 mid-upload)
  const next = await new DiskStorage(root).init();
  assert.equal(await next.swept, 1);
  assert.equal(fs.existsSync(stale), false, 'the idle temporary file is gone');
  assert.equal(fs.existsSync(busy), true, 'a temporary file still being written (fresh) stays');
  assert.equal(fs.existsSync(lookalike), true, 'only put()\'s own temporary names are swept');
  assert.equal((await next.get('documents/a/original')).toString(), 'kept');
});
