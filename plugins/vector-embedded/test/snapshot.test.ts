import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger, VectorFilter, VectorHit, VectorItem } from '@quire/core';
import { EmbeddedVectorStore } from '@quire/plugin-vector-embedded';
import type { EmbeddedStoreOptions } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { fillerText } from './fixtures/relevance.js';
import { owner, ownedCollection } from './fixtures/collection.js';

// 1,200 chunks of 60 documents over five users and an organization; snapshots from 500 rows (the default
// 10,000 would leave this collection to SQLite). Each store opened with a snapshot is compared with one
// that loads the same database from SQLite (snapshot: false).
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-snapshot-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = createLocalEmbedder();
const SPACE = embedder.space;
const N = 1200;
let items: VectorItem[] = [];
let queries: { text: string; vector: Float32Array }[] = [];

before(async () => {
  ({ items, queries } = await ownedCollection(embedder, N, 11, { seed: 70_000, count: 12, words: (i) => 3 + (i % 5) }, [5, 1190]));
});

const FILTERS: VectorFilter[] = [{}, { userId: 'u1' }, { userId: 'u2', organizationIds: ['org1'] }, { documentIds: ['d3', 'd40', 'd59'] }];
const ALPHAS = [0.5, 1, 0];

/** Every query × filter × alpha, top 10, and the loads the store logged. */
async function answers(dir: string, snapshot: boolean, extra: EmbeddedStoreOptions = {}): Promise<{ hits: VectorHit[][]; loads: { snapshot?: string | null }[]; warnings: string[] }> {
  const loads: { snapshot?: string | null }[] = [];
  const warnings: string[] = [];
  const logger = {
    debug: (o: { snapshot?: string | null }, msg: string) => msg === 'vector cache loaded' && loads.push(o),
    warn: (_: unknown, msg: string) => warnings.push(msg),
    info: () => {},
    error: () => {},
  } as unknown as Logger;
  const s = new EmbeddedVectorStore(dir, { ann: false, snapshot, snapshotMinRows: 500, logger, ...extra });
  const hits: VectorHit[][] = [];
  for (const q of queries) for (const filter of FILTERS) for (const alpha of ALPHAS) hits.push(await s.search(SPACE, { ...q, topK: 10, filter, alpha }));
  await s.close();
  return { hits, loads, warnings };
}

const snaps = (dir: string) => (fs.existsSync(path.join(dir, 'cache')) ? fs.readdirSync(path.join(dir, 'cache')).filter((f) => f.endsWith('.snap')) : []);

async function filled(dir: string, rows = N): Promise<void> {
  const w = new EmbeddedVectorStore(dir, { ann: false, snapshot: false });
  for (let i = 0; i < rows; i += 400) await w.upsert(SPACE, items.slice(i, Math.min(rows, i + 400)));
  await w.close();
}

/** owner filters hold on every hit */
function assertOwners(hits: VectorHit[][], ownerOf = owner): void {
  hits.forEach((list, i) => {
    const f = FILTERS[Math.floor(i / ALPHAS.length) % FILTERS.length]!;
    for (const h of list) {
      const d = Number(h.documentId.slice(1));
      const org = d % 4 === 0 && !(ownerOf !== owner && d === 7);
      if (f.userId) assert.ok(ownerOf(d) === f.userId || (f.organizationIds?.includes('org1') && org), `${h.id} is outside ${JSON.stringify(f)}`);
      if (f.documentIds) assert.ok(f.documentIds.includes(h.documentId), `${h.id} is outside ${JSON.stringify(f)}`);
    }
  });
}

test('a restart with a snapshot answers exactly as a load from SQLite, owner filters included', async () => {
  const dir = path.join(root, 'same');
  await filled(dir);
  const want = await answers(dir, false);
  assert.equal(snaps(dir).length, 0);
  const first = await answers(dir, true);
  assert.equal(first.loads[0]!.snapshot, null, 'the first load reads SQLite');
  assert.equal(snaps(dir).length, 1, 'a load that read many rows writes a snapshot');
  assert.deepEqual(first.hits, want.hits);
  const again = await answers(dir, true);
  assert.match(String(again.loads[0]!.snapshot), /\.snap$/, 'the restart loads the snapshot');
  assert.deepEqual(again.hits, want.hits);
  assert.ok(want.hits.some((h) => h.length > 0));
  assertOwners(again.hits);
});

test('rows inserted and replaced after the snapshot are reflected; a replaced or deleted row is never returned', async () => {
  const dir = path.join(root, 'after');
  await filled(dir, 1000);
  await answers(dir, true); // writes the snapshot of 1,000 rows (the 470 read after it are too few to write another)
  assert.equal(snaps(dir).length, 1);
  // a quarter of the snapshot's rows replaced (deleted and inserted again): the keyword statistics change with them
  const texts = Array.from({ length: 250 }, (_, i) => fillerText(90_000 + i, 20 + (i % 40)));
  const vecs = await embedder.embed(texts, 'document');
  const replaced = items.slice(300, 550).map((it, i) => ({ ...it, text: texts[i]!, vector: vecs[i]! }));
  const w = new EmbeddedVectorStore(dir, { ann: false, snapshot: false });
  await w.upsert(SPACE, items.slice(1000));
  await w.upsert(SPACE, replaced);
  await w.setOwner('d7', { userId: 'u1', organizationId: null });
  await w.close();
  assert.equal(snaps(dir).length, 1);
  const want = await answers(dir, false);
  const got = await answers(dir, true);
  assert.match(String(got.loads[0]!.snapshot), /\.snap$/);
  assert.deepEqual(got.hits, want.hits);
  const ids = new Set(got.hits.flat().map((h) => h.id));
  assert.ok(ids.has('c1190'), 'a row inserted after the snapshot is found');
  const now = new Map(replaced.map((r) => [r.id, r.text]));
  for (const h of got.hits.flat()) if (now.has(h.id)) assert.equal(h.text, now.get(h.id), `the old ${h.id} returned`);
  // d7 now belongs to u1
  assertOwners(got.hits, (d) => (d === 7 ? 'u1' : owner(d)));
  assert.ok(got.hits.flat().some((h) => h.documentId === 'd7'));

  // a deleted document's rows and ids outlive it in no snapshot: the deletion removes them, and the
  // snapshot written on close by a process whose cache held the document has neither its rows nor its id
  const e = new EmbeddedVectorStore(dir, { ann: false, snapshotMinRows: 500 });
  assert.equal((await e.search(SPACE, { ...queries[12]!, topK: 1, filter: {}, alpha: 0.5 }))[0]?.id, 'c5');
  await e.deleteDocument('d0'); // holds the row of query 12 (c5)
  assert.equal(snaps(dir).length, 0, 'the deletion removes the snapshots');
  await e.close();
  assert.equal(snaps(dir).length, 1, 'written again on close, at the state after the deletion');
  assert.ok(!fs.readFileSync(path.join(dir, 'cache', snaps(dir)[0]!)).includes('"d0"'), 'the deleted document id is not in the new snapshot');
  const wantAfter = await answers(dir, false);
  const after = await answers(dir, true);
  assert.match(String(after.loads[0]!.snapshot), /\.snap$/);
  assert.deepEqual(after.hits, wantAfter.hits);
  for (const h of after.hits.flat()) assert.notEqual(h.documentId, 'd0');
});

/** A snapshot damaged by `damage` (its file path) is not loaded: the cache comes from SQLite, a warning is logged, and a good snapshot is written again. */
async function damagedIsIgnored(name: string, damage: (file: string) => void, extra: EmbeddedStoreOptions = {}): Promise<void> {
  const dir = path.join(root, name);
  await filled(dir);
  const want = await answers(dir, false);
  await answers(dir, true);
  const [snap] = snaps(dir);
  damage(path.join(dir, 'cache', snap!));
  const got = await answers(dir, true, extra);
  assert.equal(got.loads[0]!.snapshot, null, 'the damaged snapshot is not loaded');
  assert.ok(got.warnings.some((w) => /snapshot/.test(w)));
  assert.deepEqual(got.hits, want.hits);
  // and a good one is written again
  assert.equal(snaps(dir).length, 1);
  assert.match(String((await answers(dir, true)).loads[0]!.snapshot), /\.snap$/);
}

/** where the vector rows start in a snapshot file (after the magic, the header's length and the header, 8-byte aligned) */
const rowsStart = (buf: Buffer) => Math.ceil((12 + buf.readUInt32LE(8)) / 8) * 8;

/** one bit flipped in a byte among the vector rows */
function oneByteInRows(file: string): void {
  const buf = fs.readFileSync(file);
  const at = rowsStart(buf) + 1000;
  assert.ok(at < buf.length / 2, 'the byte is among the vector rows');
  buf[at] = buf[at]! ^ 0x01;
  fs.writeFileSync(file, buf);
}

/** the file cut inside the rows, with a checksum file that has the new size (its CRC-32 still that of the whole file) */
function cutWithSum(file: string): void {
  const size = rowsStart(fs.readFileSync(file)) + 5000;
  fs.truncateSync(file, size);
  const sum = JSON.parse(fs.readFileSync(`${file}.sum`, 'utf8')) as { size: number };
  fs.writeFileSync(`${file}.sum`, JSON.stringify({ ...sum, size }));
}

test('a damaged snapshot is ignored and the cache rebuilt from SQLite', async () => {
  await damagedIsIgnored('damaged', (file) => {
    const buf = fs.readFileSync(file);
    for (let i = buf.length >> 1; i < (buf.length >> 1) + 64; i++) buf[i] = buf[i]! ^ 0x5a;
    fs.writeFileSync(file, buf);
  });
});

test('one byte changed in the vector rows of a snapshot is detected', async () => {
  await damagedIsIgnored('one-byte', oneByteInRows);
});

test('a snapshot checked by a second thread while it is read (large files): the same answers, and a changed byte or a cut file refused', async () => {
  const thread: EmbeddedStoreOptions = { snapshotCheckThreadMinBytes: 0 };
  const dir = path.join(root, 'thread');
  await filled(dir);
  const want = await answers(dir, false);
  await answers(dir, true);
  const again = await answers(dir, true, thread);
  assert.match(String(again.loads[0]!.snapshot), /\.snap$/, 'the restart loads the snapshot');
  assert.deepEqual(again.hits, want.hits);
  await damagedIsIgnored('thread-one-byte', oneByteInRows, thread);
  // the last byte: the thread's last piece
  await damagedIsIgnored('thread-last-byte', (file) => {
    const buf = fs.readFileSync(file);
    buf[buf.length - 1] = buf[buf.length - 1]! ^ 0x80;
    fs.writeFileSync(file, buf);
  }, thread);
  await damagedIsIgnored('thread-truncated-sum', cutWithSum, thread);
});

test('a truncated snapshot is detected, its checksum file saying the size or not', async () => {
  await damagedIsIgnored('truncated', (file) => fs.truncateSync(file, fs.statSync(file).size - 4096));
  await damagedIsIgnored('truncated-sum', cutWithSum);
});

test('a snapshot of an older format (a SHA-256 checksum, format 2) is ignored and the space read from SQLite', async () => {
  await damagedIsIgnored('format-2', (file) => {
    const buf = fs.readFileSync(file);
    const hlen = buf.readUInt32LE(8);
    const head = buf.toString('utf8', 12, 12 + hlen).replace('"format":3', '"format":2');
    assert.match(head, /"format":2,/);
    assert.equal(Buffer.byteLength(head), hlen);
    buf.write(head, 12, 'utf8');
    fs.writeFileSync(file, buf);
    const sum = JSON.parse(fs.readFileSync(`${file}.sum`, 'utf8')) as { size: number };
    fs.writeFileSync(`${file}.sum`, JSON.stringify({ size: sum.size, sha256: crypto.createHash('sha256').update(buf).digest('hex') }));
  });
});
