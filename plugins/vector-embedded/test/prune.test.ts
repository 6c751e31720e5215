import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pluginContext } from '@quire/core';
import type { VectorFilter, VectorHit, VectorItem } from '@quire/core';
import plugin from '@quire/plugin-vector-embedded';
import type { EmbeddedVectorStore } from '@quire/plugin-vector-embedded';
import { createLocalEmbedder } from '@quire/plugin-embedder-local';
import { owner, ownedCollection } from './fixtures/collection.js';

// `pruneMass` (default 0.85; 1: the exact scan): the columns scan reads only the query's heaviest dimensions, keeps `pruneCandidates` rows by
// those partial sums and completes their scores. 9,000 chunks of 450 documents over five users and an
// organization, searched by a store with pruning and by the exact one over the same database.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-prune-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = createLocalEmbedder();
const SPACE = embedder.space;
const N = 9000;
let items: VectorItem[] = [];
let queries: { text: string; vector: Float32Array }[] = [];

before(async () => {
  ({ items, queries } = await ownedCollection(embedder, N, 5, { seed: 90_000, count: 16, words: (i) => 3 + (i % 10) }, [40, 8000]));
});

const open = async (options: Record<string, unknown>) =>
  (await plugin.create(pluginContext(plugin, { dataDir: root, options: { snapshot: false, ...options } }))) as EmbeddedVectorStore;
const ids = (hits: VectorHit[]) => hits.map((h) => h.id);

test('the pruned scan reads fewer dimensions, returns only the allowed owners\' rows, and the exact top 10 where its candidates hold every allowed row', async () => {
  const exact = await open({ pruneMass: 1 });
  for (let i = 0; i < N; i += 1000) await exact.upsert(SPACE, items.slice(i, i + 1000));
  // (the default: pruneMass 0.85, 400 candidates)
  const pruned = await open({});
  // filters allowing more rows than the candidates (1,800; ~3,000) and fewer (200: every one of them completed)
  const wide: VectorFilter[] = [{}, { userId: 'u1' }, { userId: 'u2', organizationIds: ['org1'] }];
  const few: VectorFilter[] = [{ documentIds: Array.from({ length: 10 }, (_, i) => `d${i * 41}`) }, { userId: 'u3', documentIds: ['d3', 'd8', 'd13', 'd18', 'd23', 'd28', 'd33'] }];
  let found = 0, want = 0, read = 0, nonzero = 0;
  for (const q of queries) {
    for (const filter of [...wide, ...few]) {
      const a = await exact.search(SPACE, { ...q, topK: 10, filter, alpha: 1 });
      const b = await pruned.search(SPACE, { ...q, topK: 10, filter, alpha: 1 });
      read += pruned.stats().spaces[0]!.queryDimensions!;
      nonzero += exact.stats().spaces[0]!.queryDimensions!;
      for (const h of b) {
        const d = Number(h.documentId.slice(1));
        if (filter.userId) assert.ok(owner(d) === filter.userId || (filter.organizationIds?.includes('org1') && d % 4 === 0), `${h.id} is outside ${JSON.stringify(filter)}`);
        if (filter.documentIds) assert.ok(filter.documentIds.includes(h.documentId), `${h.id} is outside ${JSON.stringify(filter)}`);
      }
      if (few.includes(filter)) assert.deepEqual(b, a, `${q.text.slice(0, 40)} ${JSON.stringify(filter)}`);
      else {
        const top = new Set(ids(a));
        found += ids(b).filter((id) => top.has(id)).length;
        want += a.length;
      }
    }
  }
  assert.ok(read < nonzero * 0.6, `read ${read} of ${nonzero} query dimensions`);
  assert.ok(want > 0 && found / want >= 0.95, `recall@10 ${found}/${want}`);
  await pruned.close();
  await exact.close();
  assert.throws(() => pluginContext(plugin, { options: { pruneMass: 0 } }), /vector-store:embedded: option "pruneMass"/);
});
