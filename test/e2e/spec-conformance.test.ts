// @services: credits reserved up front in the store (pdf-to-*), list paging in SQL
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';
import { makePdf } from '../helpers/fixtures.js';
import { addAndAccept, signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';

const pdfOf = (n: number, tag: string) => makePdf(Array.from({ length: n }, (_, i) => ({ heading: `${tag} page ${i + 1}`, lines: [`Report ${tag}, section ${i + 1}.`, 'Costs were stable across regions.'] })));

/** Answers that the spec fixes and that used to differ from it. */
describe('spec conformance over HTTP', () => {
  let s: TestServer;
  let n = 0;
  const user = () => signUpUser(s, `conform${++n}@example.com`);

  before(async () => {
    // sign-up users are on the free plan: 10 credits a month here
    s = await startTestServer({ env: { QUIRE_CREDITS_FREE: '10' } });
  });
  after(async () => {
    await s?.close();
  });

  test('profile: subscription.period_end is when the credits renew', async () => {
    const u = await user();
    const profile = await s.json('/api/user/profile', { key: u.key });
    assert.equal(profile.status, 200);
    const credits = await s.json('/api/user/credits', { key: u.key });
    assert.equal(profile.body.subscription.period_end, credits.body.subscription.renews_at);
    assert.ok(Date.parse(profile.body.subscription.period_end) > Date.now());
    const patched = await s.json('/api/user/profile', { method: 'PATCH', json: { name: 'Conform' }, key: u.key });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.subscription.period_end, credits.body.subscription.renews_at);
  });

  test('/v1/schemas and /api/extract/schemas honour limit and offset', async () => {
    const u = await user();
    const names = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'];
    for (const name of names) {
      const r = await s.json('/v1/schemas', { method: 'POST', json: { name, fields: [{ name: 'total', type: 'number' }] }, key: u.key });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const all = await s.json('/v1/schemas', { key: u.key });
    assert.equal(all.body.data.length, 5);
    assert.equal(all.body.total, 5);
    assert.equal(all.body.has_more, false);
    const page = await s.json('/v1/schemas?limit=2&offset=1', { key: u.key });
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.data.map((x: any) => x.id), all.body.data.slice(1, 3).map((x: any) => x.id));
    assert.equal(page.body.has_more, true);
    assert.equal(page.body.total, 5);
    const last = await s.json('/v1/schemas?limit=2&offset=4', { key: u.key });
    assert.equal(last.body.data.length, 1);
    assert.equal(last.body.has_more, false);

    const app = await s.json('/api/extract/schemas', { key: u.key });
    assert.equal(app.body.length, 5);
    const appPage = await s.json('/api/extract/schemas?limit=3&offset=2', { key: u.key });
    assert.deepEqual(appPage.body.map((x: any) => x.id), app.body.slice(2, 5).map((x: any) => x.id));
    errorBody((await s.json('/api/extract/schemas?limit=0', { key: u.key })).body, 'VALIDATION_ERROR');
    errorBody((await s.json('/v1/schemas?offset=-1', { key: u.key })).body, 'VALIDATION_ERROR');
  });

  test('GET /api/knowledge-bases/<id> answers the shape of POST and PATCH ({knowledge_base})', async () => {
    const u = await user();
    const made = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Manuals' }, key: u.key });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const got = await s.json(`/api/knowledge-bases/${made.body.knowledge_base.id}`, { key: u.key });
    assert.equal(got.status, 200);
    assert.deepEqual(Object.keys(got.body), ['knowledge_base']);
    assert.deepEqual(got.body.knowledge_base, made.body.knowledge_base);
    const patched = await s.json(`/api/knowledge-bases/${made.body.knowledge_base.id}`, { method: 'PATCH', json: { description: 'Equipment manuals' }, key: u.key });
    const again = await s.json(`/api/knowledge-bases/${made.body.knowledge_base.id}`, { key: u.key });
    assert.deepEqual(again.body.knowledge_base.description, 'Equipment manuals');
    assert.deepEqual(Object.keys(again.body.knowledge_base).sort(), Object.keys(patched.body.knowledge_base).sort());
  });

  test('DELETE /api/organizations/<id> reports the memberships it removed', async () => {
    const [own, a, b] = [await user(), await user(), await user()];
    const org = await s.json('/api/organizations', { method: 'POST', json: { name: 'Counted', slug: 'counted-org' }, key: own.key });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    await addAndAccept(s, own, org.body.organization.id, a, 'member');
    await addAndAccept(s, own, org.body.organization.id, b, 'admin');
    const del = await s.json(`/api/organizations/${org.body.organization.id}`, { method: 'DELETE', key: own.key });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    const counts = JSON.stringify(del.body);
    assert.match(counts, /"memberships":3\b/, counts);
    assert.equal((await s.runtime.store.repo('memberships').find({ organization_id: org.body.organization.id })).length, 0);
  });

  test('PUT /api/generate/templates/<id> without output_format keeps it', async () => {
    const u = await user();
    const made = await s.json('/api/generate/templates', { method: 'POST', json: { name: 'Memo', template_prompt: 'A memo about {{topic}}.', output_format: 'docx' }, key: u.key });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.template.output_format, 'docx');
    const put = await s.json(`/api/generate/templates/${made.body.template.id}`, { method: 'PUT', json: { name: 'Memo (v2)' }, key: u.key });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.template.name, 'Memo (v2)');
    assert.equal(put.body.template.output_format, 'docx');
    assert.equal(put.body.template.template_prompt, 'A memo about {{topic}}.');
    const got = await s.json(`/api/generate/templates/${made.body.template.id}`, { key: u.key });
    assert.equal(got.body.template.output_format, 'docx');
    const md = await s.json(`/api/generate/templates/${made.body.template.id}`, { method: 'PUT', json: { output_format: 'markdown' }, key: u.key });
    assert.equal(md.body.template.output_format, 'markdown');
    assert.equal(md.body.template.name, 'Memo (v2)');
  });

  test('/api/pdf-to-text|markdown|json with a key are charged as a parse (1.5 a page), refused up front (402) when the balance cannot cover them', async () => {
    const u = await user();
    const credits = async () => (await s.json('/api/user/credits', { key: u.key })).body;
    const two = await pdfOf(2, 'A');
    const text = await s.json('/api/pdf-to-text', { method: 'POST', body: uploadForm('two.pdf', two), key: u.key });
    assert.equal(text.status, 200, JSON.stringify(text.body));
    assert.match(text.body.text, /Report A, section 2/);
    let c = await credits();
    assert.equal(c.credits_used, 3);
    assert.equal(c.usage_summary.parse, 3);
    assert.equal(c.credits_held, 0);
    const md = await s.json('/api/pdf-to-markdown', { method: 'POST', body: uploadForm('one.pdf', await pdfOf(1, 'B')), key: u.key });
    assert.equal(md.status, 200);
    const json = await s.json('/api/pdf-to-json', { method: 'POST', body: uploadForm('two.pdf', two), key: u.key });
    assert.equal(json.status, 200);
    c = await credits();
    assert.equal(c.credits_used, 7.5);
    assert.equal(c.credits_remaining, 2.5);
    // 2.5 credits left: a 2-page PDF (3 credits) is refused before it is read, nothing is charged
    for (const path of ['/api/pdf-to-text', '/api/pdf-to-markdown', '/api/pdf-to-json']) {
      const refused = await s.json(path, { method: 'POST', body: uploadForm('two.pdf', two), key: u.key });
      assert.equal(refused.status, 402, `${path}: ${JSON.stringify(refused.body)}`);
      errorBody(refused.body, 'INSUFFICIENT_CREDITS');
    }
    c = await credits();
    assert.equal(c.credits_used, 7.5);
    assert.equal(c.credits_held, 0);
    // anonymous callers still convert the first pages for free
    const anon = await s.json('/api/pdf-to-text', { method: 'POST', body: uploadForm('two.pdf', two), key: null });
    assert.equal(anon.status, 200, JSON.stringify(anon.body));
  });
});
