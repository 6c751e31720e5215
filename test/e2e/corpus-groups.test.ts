// The corpus test is split by format group (corpus-<group>.test.ts): no manifest file may fall out of the split.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CORPUS, hasCorpus } from '../helpers/server.js';
import { CORPUS_GROUPS, corpusManifest } from '../helpers/corpus.js';

test('every corpus file is in exactly one group, and every group has its test file', { skip: hasCorpus ? false : 'no ../shared/corpus here' }, () => {
  const wrong = corpusManifest(CORPUS)
    .map((e) => ({ id: e.id, groups: Object.keys(CORPUS_GROUPS).filter((g) => CORPUS_GROUPS[g]!(e)) }))
    .filter((x) => x.groups.length !== 1)
    .map((x) => `${x.id}: ${x.groups.join(', ') || 'no group'}`);
  assert.deepEqual(wrong, []);
  for (const g of Object.keys(CORPUS_GROUPS)) assert.ok(fs.existsSync(path.join(import.meta.dirname, `corpus-${g}.test.ts`)), `test/e2e/corpus-${g}.test.ts`);
});
