/**
 * Search relevance on the corpus over HTTP: every document of the corpus question set
 * (test/fixtures/corpus-search.ts), twins included, is uploaded to a service started here, and each question
 * is asked through `POST /v1/search` (limit 3). Prints the questions whose answering document (or one of its
 * twins) is in the top 3, and the misses with what came first. test/e2e/search.test.ts asks the same
 * questions over the documents less the costliest twins (LEFT_OUT_OF_TESTS) and needs 90 %. Not part of the tests.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx bench/search-corpus.ts
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { jsonApi, startService, waitCompleted } from './service.js';
import { LEFT_OUT_OF_TESTS, QUESTIONS } from '../test/fixtures/corpus-search.js';

const root = path.resolve(import.meta.dirname, '..');
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(root, '../shared/corpus'));
if (!fs.existsSync(path.join(corpus, 'manifest.json'))) {
  console.error(`no corpus at ${corpus} (QUIRE_CORPUS)`);
  process.exit(2);
}

const key = `svc_${randomBytes(20).toString('hex')}`;
const svc = await startService(key, { prefix: 'quire-search-bench-' });
const api = jsonApi(svc.base, key);
try {
  const t0 = Date.now();
  const names = [...new Set(QUESTIONS.flatMap(([, docs]) => docs))];
  const byId = new Map<string, string>(); // document id → corpus file
  for (const name of names) {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(path.join(corpus, 'files', name))]), name);
    byId.set((await api('/v1/documents', { method: 'POST', body: form })).id, name);
  }
  for (const [id, name] of byId) await waitCompleted(api, id, name);
  console.log(`${byId.size} documents read in ${((Date.now() - t0) / 1000).toFixed(0)} s (${LEFT_OUT_OF_TESTS.size} of them left out of the test)`);
  let found = 0;
  const misses: string[] = [];
  for (const [query, expected] of QUESTIONS) {
    const r = await api('/v1/search', { method: 'POST', json: { query, limit: 3 } });
    const top: string[] = r.data.map((d: any) => byId.get(d.document_id));
    if (top.some((n) => expected.includes(n))) found++;
    else misses.push(`${query} → ${top.join(', ')}`);
  }
  console.log(`answering document in the top 3: ${found}/${QUESTIONS.length} (${((100 * found) / QUESTIONS.length).toFixed(0)} %)${misses.length ? `; misses:\n  ${misses.join('\n  ')}` : ''}`);
} finally {
  await svc.stop();
}
