// Edit (spec §4.5) over HTTP: batches (1 to 100 documents, progress and per-document results, audit, rerun,
// stream) and instructions through a stand-in OpenAI-compatible model. Configs, vocabulary and suggestions:
// edit-manage.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, until } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { fillAnswer, formPdf, readBack, uploadDone } from './edit-fixtures.js';
import { startStubLlm } from '../helpers/llm-stub.js';
import type { StubLlm } from '../helpers/llm-stub.js';

describe('edit batches and the model over HTTP', () => {
  let s: TestServer;
  let llm: StubLlm;
  let org = '';
  const upload = (name: string, bytes: Uint8Array, organization?: string) => uploadDone(s, name, bytes, organization);

  before(async () => {
    llm = await startStubLlm(fillAnswer);
    s = await startTestServer({ env: { QUIRE_LLM_BASE_URL: llm.url, QUIRE_LLM_MODEL: 'fake-forms', QUIRE_LLM_API_KEY: 'x' } });
    const made = await s.json('/api/organizations', { method: 'POST', json: { name: 'Forms Co', slug: `forms-${randomUUID().slice(0, 8)}` } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    org = made.body.organization.id;
  });
  after(async () => {
    await s?.close();
    await llm?.close();
  });

  test('batch: 1 to 100 documents, progress and results, audit, rerun, stream', async () => {
    const ids = [await upload('a.pdf', await formPdf()), await upload('b.pdf', await formPdf())];
    const tooMany = await s.json('/api/edit/batch', { method: 'POST', json: { document_ids: Array.from({ length: 101 }, () => randomUUID()) } });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error?.code ?? tooMany.body.code, 'VALIDATION_ERROR', JSON.stringify(tooMany.body));
    assert.equal((await s.json('/api/edit/batch', { method: 'POST', json: { document_ids: [] } })).status, 400);
    // two organizations: edit_config_id needs the active one named
    const second = await s.json('/api/organizations', { method: 'POST', json: { name: 'Other', slug: `other-${randomUUID().slice(0, 8)}` } });
    assert.equal(second.status, 201);
    const cfg = await s.json('/api/edit/configs', { method: 'POST', headers: { 'x-organization-id': org }, json: { name: 'US', instructions: 'I am a US citizen' } });
    const noOrg = await s.json('/api/edit/batch', { method: 'POST', json: { document_ids: ids, edit_config_id: cfg.body.config.id } });
    assert.equal(noOrg.status, 400, JSON.stringify(noOrg.body));
    const b = await s.json('/api/edit/batch', { method: 'POST', headers: { 'x-organization-id': org }, json: { document_ids: ids, edit_config_id: cfg.body.config.id, name: 'two', config: { verify: true } } });
    assert.equal(b.status, 201, JSON.stringify(b.body));
    assert.deepEqual(b.body.batch.document_ids, ids);
    const done = await until('batch done', async () => {
      const g = await s.json(`/api/edit/batch/${b.body.batch.id}`);
      return g.body.status === 'completed' ? g.body : null;
    }, 60_000, 200);
    assert.equal(done.progress, 100);
    assert.equal(done.results.length, 2);
    for (const r of done.results) {
      assert.equal(r.status, 'completed');
      assert.equal((await readBack(r.output_file_url))['f.citizen'], true);
    }
    const audit = await s.json(`/api/edit/batch/${b.body.batch.id}/audit`);
    assert.equal(audit.body.entries.length, 2);
    assert.ok(audit.body.entries.every((e: any) => e.label === 'US citizen' && e.source === 'instruction'));
    const again = await s.json(`/api/edit/batch/${b.body.batch.id}/rerun`, { method: 'POST' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const newJobs = again.body.batch.results.map((r: any) => r.job_id);
    assert.ok(newJobs.every((j: string) => !done.results.some((r: any) => r.job_id === j)), 'new jobs');
    const res = await fetch(`${s.url}/api/edit/batch/${b.body.batch.id}/stream`, { headers: { authorization: `Bearer ${s.key}` } });
    assert.equal(res.headers.get('content-type')?.split(';')[0], 'text/event-stream');
    const text = await res.text();
    assert.match(text, /event: progress\ndata: \{/);
    assert.match(text, /event: done/);
    const last = JSON.parse([...text.matchAll(/event: progress\ndata: (.*)\n/g)].at(-1)![1]!);
    assert.equal(last.status, 'completed');
    assert.equal((await s.json(`/api/edit/batch/${b.body.batch.id}/audit`)).body.entries.length, 4);
  });

  test('instructions through the model: its mapping fills the form, a model failure falls back to the offline reading', async () => {
    const id = await upload('form.pdf', await formPdf());
    const before = llm.requests.length;
    const r = await s.json('/api/edit/run', { method: 'POST', json: { document_id: id, instructions: 'The applicant goes by Zed Quux and lives in Reykjavik.' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(llm.requests.length > before, 'the model was asked');
    assert.match(llm.requests.at(-1).messages.at(-1).content, /"label":"Name"/);
    const v = await readBack(r.body.output_file_url);
    assert.equal(v['f.name'], 'Zed Quux');
    assert.equal(v['f.city'], 'Reykjavik');
    const name = r.body.filled_elements.find((f: any) => f.element_id === 'f.name');
    assert.equal(name.fillAttribution, 'instruction');
    assert.equal(name.reasoning, 'the applicant goes by this name');
    const fallback = await s.json('/api/edit/run', { method: 'POST', json: { document_id: id, instructions: 'Explode. My name is Jane Doe' } });
    assert.equal(fallback.status, 200, JSON.stringify(fallback.body));
    assert.equal((await readBack(fallback.body.output_file_url))['f.name'], 'Jane Doe');
  });
});
