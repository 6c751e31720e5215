import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createKey, findOrCreateUser } from '@quire/server';
import { CORPUS, hasCorpus, startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { LEFT_OUT_OF_TESTS, QUESTIONS as CORPUS_QUESTIONS } from '../fixtures/corpus-search.js';

const TOPICS: Record<string, string> = {
  'volcano.txt': 'Volcanoes\n\nA volcano is a rupture in the crust of a planet through which lava, volcanic ash and gases escape from a magma chamber below the surface. Stratovolcanoes such as Mount Fuji erupt explosively.',
  'sourdough.txt': 'Baking sourdough\n\nSourdough bread is leavened by a starter of wild yeast and lactobacilli. Feed the starter with flour and water, let the dough rise overnight, and bake it in a hot Dutch oven.',
  'tides.txt': 'Ocean tides\n\nTides are the rise and fall of sea levels caused by the gravitational pull of the Moon and the Sun. Spring tides happen at full and new moon, neap tides at the quarter moons.',
};

async function upload(s: TestServer, name: string, body: string | Buffer, key?: string): Promise<string> {
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, body), key });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 120_000, key);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return up.body.id;
}

describe('search, collections and knowledge bases over HTTP', () => {
  let s: TestServer;
  const ids: Record<string, string> = {};
  let otherKey = '';

  before(async () => {
    s = await startTestServer();
    for (const [name, text] of Object.entries(TOPICS)) ids[name] = await upload(s, name, text);
    const other = await findOrCreateUser(s.runtime.store, 'other-search@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'o')).key;
  });
  after(async () => {
    await s?.close();
  });

  test('search ranks the document that answers a paraphrased question first', async () => {
    const cases: [string, string][] = [
      ['what makes molten rock and ash come out of a mountain', 'volcano.txt'],
      ['how do I keep a wild yeast starter alive for bread', 'sourdough.txt'],
      ['why does the sea level go up and down with the moon', 'tides.txt'],
    ];
    for (const [query, expected] of cases) {
      const r = await s.json('/v1/search', { method: 'POST', json: { query, limit: 3 } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.object, 'list');
      assert.equal(r.body.data[0].document_id, ids[expected], `${query} → ${JSON.stringify(r.body.data.map((d: any) => d.document_name))}`);
      const hit = r.body.data[0];
      assert.equal(hit.object, 'search.result');
      assert.equal(hit.document_name, expected);
      assert.equal(typeof hit.score, 'number');
      assert.ok(hit.page >= 1);
      assert.ok(hit.content.length > 0);
      for (let i = 1; i < r.body.data.length; i++) assert.ok(r.body.data[i - 1].score >= r.body.data[i].score, 'ranked by score');
    }
  });

  test('validation: missing query, limit over 50, unknown collection', async () => {
    const missing = await s.json('/v1/search', { method: 'POST', json: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'VALIDATION_ERROR');
    assert.ok(missing.body.error.details.some((d: any) => d.field === 'body.query'));
    const over = await s.json('/v1/search', { method: 'POST', json: { query: 'tides', limit: 51 } });
    assert.equal(over.status, 400);
    assert.ok(over.body.error.details.some((d: any) => d.field === 'body.limit'));
    const unknown = await s.json('/v1/search', { method: 'POST', json: { query: 'tides', collection_id: '00000000-0000-4000-8000-000000000000' } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'NOT_FOUND');
    const defaults = await s.json('/v1/search', { method: 'POST', json: { query: 'moon' } });
    assert.ok(defaults.body.data.length <= 10);
  });

  test('collections scope search; a collection and a knowledge base are one thing', async () => {
    const c = await s.json('/v1/collections', { method: 'POST', json: { name: 'Science', description: 'earth and sea' } });
    assert.equal(c.status, 201);
    assert.equal(c.body.object, 'collection');
    assert.equal(c.body.document_count, 0);
    const add = await s.json(`/v1/collections/${c.body.id}/documents`, { method: 'POST', json: { document_id: ids['tides.txt'] } });
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.equal(add.body.document_count, 1);
    const scoped = await s.json('/v1/search', { method: 'POST', json: { query: 'bread yeast volcano moon', collection_id: c.body.id } });
    assert.ok(scoped.body.data.length >= 1);
    assert.ok(scoped.body.data.every((d: any) => d.document_id === ids['tides.txt']));
    // the same record through the application API
    const kb = await s.json(`/api/knowledge-bases/${c.body.id}`);
    assert.equal(kb.status, 200);
    assert.equal(kb.body.knowledge_base.document_count, 1);
    await s.json(`/api/knowledge-bases/${c.body.id}/documents`, { method: 'POST', json: { document_id: ids['volcano.txt'] } });
    assert.equal((await s.json(`/v1/collections/${c.body.id}`)).body.document_count, 2);
    const removed = await s.json(`/v1/collections/${c.body.id}/documents`, { method: 'POST', json: { document_id: ids['tides.txt'], action: 'remove' } });
    assert.equal(removed.body.document_count, 1);
    const after = await s.json('/v1/search', { method: 'POST', json: { query: 'moon tides sea level', collection_id: c.body.id } });
    assert.ok(after.body.data.every((d: any) => d.document_id !== ids['tides.txt']), 'removal takes effect at once');
    const upd = await s.json(`/v1/collections/${c.body.id}`, { method: 'POST', json: { name: 'Geo' } });
    assert.equal(upd.body.name, 'Geo');
    const list = await s.json('/v1/collections?limit=1');
    assert.equal(list.body.object, 'list');
    assert.equal(typeof list.body.has_more, 'boolean');
    const del = await s.json(`/v1/collections/${c.body.id}`, { method: 'DELETE' });
    assert.deepEqual(del.body, { id: c.body.id, object: 'collection', deleted: true });
    assert.equal((await s.json(`/v1/documents/${ids['volcano.txt']}`)).status, 200, 'documents are kept');
  });

  test('one key never sees another user\'s documents in search, lists or knowledge bases', async () => {
    const theirs = await upload(s, 'secret-recipe.txt', 'Secret recipe\n\nThe secret glaze uses saffron, honey and smoked paprika.', otherKey);
    const mine = await s.json('/v1/search', { method: 'POST', json: { query: 'saffron honey smoked paprika glaze', limit: 50 } });
    assert.ok(mine.body.data.every((d: any) => d.document_id !== theirs));
    const theirSearch = await s.json('/v1/search', { method: 'POST', json: { query: 'volcano lava sourdough tides', limit: 50 }, key: otherKey });
    assert.ok(theirSearch.body.data.every((d: any) => d.document_id === theirs), JSON.stringify(theirSearch.body.data));
    const kb = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Mine' } });
    assert.equal(kb.status, 201);
    assert.equal((await s.json(`/api/knowledge-bases/${kb.body.knowledge_base.id}`, { key: otherKey })).status, 404);
    assert.ok(!(await s.json('/api/knowledge-bases', { key: otherKey })).body.knowledge_bases.some((k: any) => k.id === kb.body.knowledge_base.id));
    const steal = await s.json(`/api/knowledge-bases/${kb.body.knowledge_base.id}/documents`, { method: 'POST', json: { document_id: theirs } });
    assert.equal(steal.status, 404, 'cannot add a document one cannot read');
    const search = await s.json('/v1/search', { method: 'POST', json: { query: 'tides', collection_id: kb.body.knowledge_base.id }, key: otherKey });
    assert.equal(search.status, 404);
  });

  test('a deleted document is gone from search at once', async () => {
    const id = await upload(s, 'glacier.txt', 'Glaciers\n\nA glacier is a persistent body of dense ice that moves under its own weight; moraines mark where it has been.');
    const before = await s.json('/v1/search', { method: 'POST', json: { query: 'glacier ice moraine', limit: 5 } });
    assert.equal(before.body.data[0].document_id, id);
    await s.json(`/v1/documents/${id}`, { method: 'DELETE' });
    const after = await s.json('/v1/search', { method: 'POST', json: { query: 'glacier ice moraine', limit: 50 } });
    assert.ok(after.body.data.every((d: any) => d.document_id !== id));
  });

  test('knowledge bases: settings, documents, batch add, templates, duplicates, suggestions, analytics', async () => {
    const bad = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'x', settings: { retrieval: { top_k: 0 } } } });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.details.some((d: any) => d.field === 'settings.retrieval.top_k'));
    const created = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Nature', description: 'natural science', settings: { retrieval: { top_k: 3 } } } });
    const kb = created.body.knowledge_base;
    assert.equal(kb.settings.retrieval.top_k, 3);
    assert.equal(kb.settings.chunking.strategy, 'semantic');
    const patched = await s.json(`/api/knowledge-bases/${kb.id}`, { method: 'PATCH', json: { settings: { retrieval: { reranking: true } } } });
    assert.equal(patched.body.knowledge_base.settings.retrieval.reranking, true);
    assert.equal(patched.body.knowledge_base.settings.retrieval.top_k, 3, 'other settings kept');
    const batch = await s.json(`/api/knowledge-bases/${kb.id}/documents/batch`, { method: 'POST', json: { document_ids: [ids['volcano.txt'], ids['tides.txt'], '00000000-0000-4000-8000-000000000000'] } });
    assert.deepEqual(batch.body.added.sort(), [ids['volcano.txt'], ids['tides.txt']].sort());
    assert.equal(batch.body.failed.length, 1);
    const tooMany = await s.json(`/api/knowledge-bases/${kb.id}/documents/batch`, { method: 'POST', json: { document_ids: Array.from({ length: 51 }, (_, i) => `id-${i}`) } });
    assert.equal(tooMany.status, 400);
    const docs = await s.json(`/api/knowledge-bases/${kb.id}/documents`);
    assert.equal(docs.body.documents.length, 2);
    assert.deepEqual(Object.keys(docs.body.documents[0]).sort(), ['created_at', 'file_type', 'id', 'name', 'status']);
    const rm = await s.json(`/api/knowledge-bases/${kb.id}/documents?document_id=${ids['tides.txt']}`, { method: 'DELETE' });
    assert.equal(rm.status, 200);
    assert.equal((await s.json(`/api/knowledge-bases/${kb.id}/documents`)).body.documents.length, 1);

    const copy = await upload(s, 'volcano-copy.txt', TOPICS['volcano.txt']!);
    const dup = await s.json(`/api/knowledge-bases/${kb.id}/suggestions/check-duplicates`, { method: 'POST', json: { document_ids: [copy, ids['sourdough.txt']] } });
    assert.equal(dup.status, 200, JSON.stringify(dup.body));
    assert.equal(dup.body.duplicates.length, 1);
    assert.equal(dup.body.duplicates[0].document_id, copy);
    assert.equal(dup.body.duplicates[0].similar_to, ids['volcano.txt']);
    assert.ok(dup.body.duplicates[0].similarity_score >= 0.9);
    assert.deepEqual(dup.body.unique, [ids['sourdough.txt']]);

    const sugg = await s.json(`/api/knowledge-bases/${kb.id}/suggestions?limit=5`);
    assert.equal(sugg.status, 200);
    assert.equal(sugg.body.suggestions[0].document_id, copy, 'the closest document outside the knowledge base comes first');
    for (const x of sugg.body.suggestions) {
      assert.ok(x.relevance_score > 0 && x.relevance_score <= 1.0001);
      assert.ok(Array.isArray(x.gap_analysis.missing_topics));
      assert.equal(typeof x.gap_analysis.coverage_improvement, 'number');
    }

    const t = await s.json('/api/knowledge-bases/templates');
    assert.ok(t.body.templates.length >= 3);
    const fromT = await s.json('/api/knowledge-bases/from-template', { method: 'POST', json: { template_id: t.body.templates[0].id, name: 'From template' } });
    assert.equal(fromT.status, 201);
    assert.deepEqual(fromT.body.knowledge_base.settings, t.body.templates[0].settings);
    assert.equal((await s.json('/api/knowledge-bases/from-template', { method: 'POST', json: { template_id: 'nope', name: 'x' } })).status, 404);

    const an = await s.json(`/api/knowledge-bases/${kb.id}/analytics`);
    assert.equal(an.status, 200);
    assert.equal(an.body.summary.total_queries, 0);
    assert.deepEqual(an.body.summary.feedback, { positive: 0, negative: 0 });
    const fb = await s.json(`/api/knowledge-bases/${kb.id}/analytics/feedback`, { method: 'POST', json: { message_id: '00000000-0000-4000-8000-000000000000', feedback: 'thumbs_up' } });
    assert.equal(fb.status, 404);
    const fbBad = await s.json(`/api/knowledge-bases/${kb.id}/analytics/feedback`, { method: 'POST', json: { message_id: '00000000-0000-4000-8000-000000000000', feedback: 'meh' } });
    assert.equal(fbBad.status, 400);
    const del = await s.json(`/api/knowledge-bases/${kb.id}`, { method: 'DELETE' });
    assert.equal(del.body.success, true);
    assert.equal((await s.json(`/v1/documents/${ids['volcano.txt']}`)).status, 200);
  });

  test('upload with knowledge_base_id joins the knowledge base once processed', async () => {
    const kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Inbox' } })).body.knowledge_base;
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('river.txt', 'Rivers\n\nA river delta forms where a river deposits sediment at its mouth.', { knowledge_base_id: kb.id }) });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    await waitForStatus(s, `/v1/documents/${up.body.document.id}`);
    const docs = await s.json(`/api/knowledge-bases/${kb.id}/documents`);
    assert.deepEqual(docs.body.documents.map((d: any) => d.id), [up.body.document.id]);
    const missing = await s.json('/api/upload', { method: 'POST', body: uploadForm('r.txt', 'x', { knowledge_base_id: '00000000-0000-4000-8000-000000000000' }) });
    assert.equal(missing.status, 404);
  });
});

// the corpus questions: every one is asked, over its documents less the costliest twins (test/fixtures/corpus-search.ts);
// bench/search-corpus.ts asks them over every document
const QUESTIONS = CORPUS_QUESTIONS.map(([q, docs]): [string, string[]] => [q, docs.filter((d) => !LEFT_OUT_OF_TESTS.has(d))]);

describe('corpus search relevance over HTTP', { skip: hasCorpus ? false : 'no ../shared/corpus here' }, () => {
  let s: TestServer;
  const byName = new Map<string, string>();
  before(async () => {
    s = await startTestServer();
    const names = [...new Set(QUESTIONS.flatMap(([, docs]) => docs))];
    const pending: [string, string][] = [];
    for (const name of names) {
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, fs.readFileSync(path.join(CORPUS, 'files', name))) });
      assert.equal(up.status, 201, `${name}: ${JSON.stringify(up.body)}`);
      pending.push([name, up.body.id]);
    }
    for (const [name, id] of pending) {
      const done = await waitForStatus(s, `/v1/documents/${id}`, 600_000);
      assert.equal(done.status, 'completed', `${name}: ${JSON.stringify(done)}`);
      byName.set(id, name);
    }
  });
  after(async () => {
    await s?.close();
  });

  test('the answering document is in the top 3 for at least 90% of the questions', async () => {
    assert.ok(QUESTIONS.every(([, docs]) => docs.length > 0), 'every question keeps a document that answers it');
    let found = 0;
    const misses: string[] = [];
    for (const [query, expected] of QUESTIONS) {
      const r = await s.json('/v1/search', { method: 'POST', json: { query, limit: 3 } });
      const top = r.body.data.map((d: any) => byName.get(d.document_id));
      if (top.some((n: string) => expected.includes(n))) found++;
      else misses.push(`${query} → ${top.join(', ')}`);
    }
    console.log(`corpus search: ${found}/${QUESTIONS.length} in top 3${misses.length ? `; misses:\n  ${misses.join('\n  ')}` : ''}`);
    assert.ok(found / QUESTIONS.length >= 0.9, misses.join('\n'));
  });
});
