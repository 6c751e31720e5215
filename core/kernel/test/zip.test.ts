import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { zipSync, strToU8 } from 'fflate';
import { ZipArchive, unzipLimited, formatMegabytes, isQuireError } from '@quire/core';

const MB = 1024 * 1024;
const zeros = (n: number) => new Uint8Array(n);

/** A zip whose one entry of `mb` MB of zeros compresses about 1000:1. */
const bomb = (mb: number, name = 'word/document.xml', extra: Record<string, Uint8Array> = {}) => zipSync({ ...extra, [name]: zeros(mb * MB) }, { level: 9 });
let big: Uint8Array | undefined;
/** 256 MB of zeros in about 250 KB (made once: fflate takes a few seconds for it) */
const bomb256 = () => (big ??= bomb(256));

const unprocessable = (re: RegExp) => (e: unknown) => isQuireError(e) && e.code === 'UNPROCESSABLE' && re.test(e.message);
const processing = (re: RegExp) => (e: unknown) => isQuireError(e) && e.code === 'PROCESSING_ERROR' && re.test(e.message);

/** Offsets of the central directory entries of a zip (to rewrite the sizes it declares). */
function centralEntries(z: Uint8Array): number[] {
  const b = Buffer.from(z);
  const eocd = b.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const out: number[] = [];
  for (let p = b.readUInt32LE(eocd + 16); b.readUInt32LE(p) === 0x02014b50; p += 46 + b.readUInt16LE(p + 28) + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32)) out.push(p);
  return out;
}

test('reads stored and deflated entries, skips folders, filters, names in order', async () => {
  const z = zipSync({ 'a.txt': strToU8('hello'), 'dir/': new Uint8Array(0), 'dir/b.xml': [strToU8('<x>é</x>'.repeat(1000)), { level: 0 }] }, { level: 6 });
  const all = await unzipLimited(z, { maxTotalBytes: MB });
  assert.deepEqual(Object.keys(all), ['a.txt', 'dir/b.xml']);
  assert.equal(Buffer.from(all['a.txt']!).toString(), 'hello');
  assert.equal(Buffer.from(all['dir/b.xml']!).toString(), '<x>é</x>'.repeat(1000));
  const some = await unzipLimited(z, { maxTotalBytes: MB, filter: (e) => e.name.endsWith('.xml') });
  assert.deepEqual(Object.keys(some), ['dir/b.xml']);
  const zip = ZipArchive.open(z, { maxTotalBytes: MB });
  assert.equal(await zip.read('missing'), undefined);
  assert.equal(await zip.text('a.txt'), 'hello');
  assert.equal(zip.inflatedBytes, 5);
  assert.equal(formatMegabytes(512 * MB), '512 MB');
  assert.equal(formatMegabytes(1.5 * MB), '1.5 MB');
});

test('a zip bomb stops at the cap of one part (half the total by default), quickly and in little memory', async () => {
  const z = bomb256();
  assert.ok(z.length < 400_000, `bomb is ${z.length} bytes`);
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  await assert.rejects(unzipLimited(z, { maxTotalBytes: 32 * MB, label: 'docx' }), unprocessable(/^docx: decompressed size exceeds 16 MB for one part \("word\/document\.xml"\)$/));
  const ms = performance.now() - t0;
  const grew = (process.memoryUsage().rss - rss0) / MB;
  console.log(`256 MB zip bomb refused in ${ms.toFixed(0)} ms, rss +${grew.toFixed(0)} MB`);
  assert.ok(ms < 30_000, `${ms.toFixed(0)} ms`);
  assert.ok(grew < 150, `rss grew ${grew.toFixed(0)} MB`);
  // an explicit per-part cap
  await assert.rejects(ZipArchive.open(z, { maxTotalBytes: 512 * MB, maxEntryBytes: 2 * MB }).read('word/document.xml'), unprocessable(/exceeds 2 MB for one part/));
  // a lower cap for one read
  await assert.rejects(ZipArchive.open(z, { maxTotalBytes: 512 * MB }).read('word/document.xml', { maxBytes: MB }), unprocessable(/exceeds 1 MB for one part/));
});

test('the total cap counts every part read from the archive', async () => {
  const z = zipSync({ 'p1.xml': zeros(6 * MB), 'p2.xml': zeros(6 * MB), 'p3.xml': zeros(6 * MB) }, { level: 9 });
  const zip = ZipArchive.open(z, { maxTotalBytes: 16 * MB, label: 'xlsx' });
  await zip.read('p1.xml');
  await zip.read('p2.xml');
  assert.equal(zip.inflatedBytes, 12 * MB);
  await assert.rejects(zip.read('p3.xml'), unprocessable(/^xlsx: decompressed size exceeds 16 MB$/));
  // reading the same part again counts again
  const again = ZipArchive.open(z, { maxTotalBytes: 16 * MB });
  await again.read('p1.xml');
  await again.read('p1.xml');
  await assert.rejects(again.read('p1.xml'), unprocessable(/exceeds 16 MB/));
});

test('the sizes the archive declares are never trusted', async () => {
  const z = Buffer.from(bomb(16));
  for (const p of centralEntries(z)) z.writeUInt32LE(100, p + 24); // "100 bytes uncompressed"
  const zip = ZipArchive.open(z, { maxTotalBytes: 8 * MB });
  assert.equal(zip.entry('word/document.xml')!.declaredSize, 100);
  await assert.rejects(zip.read('word/document.xml'), unprocessable(/exceeds 4 MB for one part/));
});

test('only the entries asked for are inflated', async () => {
  const z = bomb(16, 'word/media/huge.bin', { 'word/document.xml': strToU8('<w:document/>') });
  const files = await unzipLimited(z, { maxTotalBytes: MB, filter: (e) => !e.name.startsWith('word/media/') });
  assert.deepEqual(Object.keys(files), ['word/document.xml']);
});

test('stream: chunks as they inflate, an early stop, and abort', async () => {
  const z = bomb(8);
  const zip = ZipArchive.open(z, { maxTotalBytes: 64 * MB });
  let seen = 0;
  let calls = 0;
  assert.equal(
    await zip.stream('word/document.xml', (c) => {
      seen += c.length;
      calls++;
      return seen < MB;
    }),
    true,
  );
  assert.ok(calls > 1 && seen >= MB && seen < 2 * MB, `${calls} chunks, ${seen} bytes`);
  assert.equal(await zip.stream('nope', () => {}), false);
  const ac = new AbortController();
  const aborted = ZipArchive.open(z, { maxTotalBytes: 64 * MB, signal: ac.signal });
  await assert.rejects(
    aborted.stream('word/document.xml', () => ac.abort(new Error('stop'))),
    (e: unknown) => e instanceof Error && e.message === 'stop',
  );
});

test('too many entries are refused before anything is inflated', async () => {
  const files: Record<string, Uint8Array> = {};
  for (let i = 0; i < 50; i++) files[`p${i}.xml`] = strToU8('<x/>');
  const z = zipSync(files);
  assert.throws(() => ZipArchive.open(z, { maxTotalBytes: MB, maxEntries: 10, label: 'pptx' }), unprocessable(/^pptx: the package has more than 10 parts \(50\)$/));
  assert.equal(ZipArchive.open(z, { maxTotalBytes: MB, maxEntries: 50 }).names().length, 50);
});

test('damaged, truncated, encrypted and non-zip input fail with PROCESSING_ERROR', async () => {
  const z = zipSync({ 'word/document.xml': strToU8('<w:document>' + 'text '.repeat(2000) + '</w:document>') }, { level: 6 });
  assert.throws(() => ZipArchive.open(Buffer.from('not a zip at all, just some text'), { maxTotalBytes: MB, label: 'docx' }), processing(/^docx could not be read: the file is corrupt or truncated \(no zip central directory\)$/));
  assert.throws(() => ZipArchive.open(z.subarray(0, z.length - 30), { maxTotalBytes: MB }), processing(/corrupt or truncated/));
  const damaged = Buffer.from(z);
  damaged.fill(0x55, 40, 80); // inside the deflate data
  await assert.rejects(ZipArchive.open(damaged, { maxTotalBytes: MB, label: 'docx' }).read('word/document.xml'), processing(/corrupt/));
  const encrypted = Buffer.from(z);
  for (const p of centralEntries(encrypted)) encrypted.writeUInt16LE(encrypted.readUInt16LE(p + 8) | 1, p + 8);
  await assert.rejects(ZipArchive.open(encrypted, { maxTotalBytes: MB, label: 'docx' }).read('word/document.xml'), processing(/password-protected/));
  const badOffset = Buffer.from(z);
  for (const p of centralEntries(badOffset)) badOffset.writeUInt32LE(badOffset.length + 10, p + 42);
  await assert.rejects(ZipArchive.open(badOffset, { maxTotalBytes: MB }).read('word/document.xml'), processing(/corrupt or truncated/));
});

test('works inside a worker thread with a small heap: the bomb is refused, the worker survives', async () => {
  const z = bomb256();
  const tsx = import.meta.resolve('tsx/esm/api');
  const zipModule = new URL('../src/util/zip.ts', import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(zipModule)}); }).then(async ({ unzipLimited }) => {
      try {
        await unzipLimited(workerData, { maxTotalBytes: 64 * 1024 * 1024, label: 'docx' });
        parentPort.postMessage({ ok: true });
      } catch (e) {
        parentPort.postMessage({ ok: false, code: e.code, message: e.message });
      }
    });`;
  const worker = new Worker(code, { eval: true, workerData: z, resourceLimits: { maxOldGenerationSizeMb: 96 } });
  const reply = await new Promise<{ ok: boolean; code?: string; message?: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.deepEqual(reply, { ok: false, code: 'UNPROCESSABLE', message: 'docx: decompressed size exceeds 32 MB for one part ("word/document.xml")' });
});
