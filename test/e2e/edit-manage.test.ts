// Edit (spec §4.5) management over HTTP: configs (need an active organization), vocabulary CRUD whose
// aliases change what an instruction fills, and suggest (from the document's content and earlier fills,
// saved as ai_suggestion mappings with session_id). Batches and the model: edit-batch.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { fillAnswer, formPdf, readBack, uploadDone } from './edit-fixtures.js';
import { startStubLlm } from '../helpers/llm-stub.js';
import type { StubLlm } from '../helpers/llm-stub.js';

/** A letter with a printed "Key: value" pair, and a form asking for that key. */
async function letterWithForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Policy number: PN-48213', { x: 50, y: 740, size: 11, font });
  page.drawText('Please return the form below.', { x: 50, y: 720, size: 11, font });
  page.drawText('Policy number:', { x: 50, y: 655, size: 11, font });
  page.drawText('Nickname:', { x: 50, y: 625, size: 11, font });
  const form = doc.getForm();
  form.createTextField('f.policy').addToPage(page, { x: 180, y: 650, width: 200, height: 20, font });
  form.createTextField('f.nick').addToPage(page, { x: 180, y: 620, width: 200, height: 20, font });
  form.updateFieldAppearances(font);
  return doc.save();
}

describe('edit configs, vocabulary and suggestions over HTTP', () => {
  let s: TestServer;
  let llm: StubLlm;
  let org = '';
  const upload = (name: string, bytes: Uint8Array, organization?: string) => uploadDone(s, name, bytes, organization);

  before(async () => {
    llm = await startStubLlm(fillAnswer);
    s = await startTestServer({ env: { QUIRE_LLM_BASE_URL: llm.url, QUIRE_LLM_MODEL: 'fake-forms', QUIRE_LLM_API_KEY: 'x' } });
  });
  after(async () => {
    await s?.close();
    await llm?.close();
  });

  test('configs need an active organization; a saved config is merged under the request', async () => {
    const none = await s.json('/api/edit/configs', { method: 'POST', json: { name: 'Blue ink' } });
    assert.equal(none.status, 400, 'no organization yet');
    assert.equal(none.body.error?.code ?? none.body.code, 'VALIDATION_ERROR', JSON.stringify(none.body));
    const made = await s.json('/api/organizations', { method: 'POST', json: { name: 'Forms Co', slug: `forms-${randomUUID().slice(0, 8)}` } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    org = made.body.organization.id;
    const cfg = await s.json('/api/edit/configs', { method: 'POST', headers: { 'x-organization-id': org }, json: { name: 'Jane', instructions: 'My name is Jane Doe', config: { formatting_color: '#cc0000', fill_settings: { flatten: false } } } });
    assert.equal(cfg.status, 201, JSON.stringify(cfg.body));
    assert.equal(cfg.body.config.formatting_color, '#cc0000');
    assert.equal(cfg.body.config.editConfig.fillSettings.formattingColor, '#cc0000');
    const list = await s.json('/api/edit/configs', { headers: { 'x-organization-id': org } });
    assert.deepEqual(list.body.configs.map((c: any) => c.id), [cfg.body.config.id]);
    assert.equal((await s.json(`/api/edit/configs/${cfg.body.config.id}`)).body.config.name, 'Jane');
    assert.equal((await s.json('/api/edit/configs', { headers: { 'x-organization-id': randomUUID() } })).status, 404, 'an organization the caller is not in');
    const id = await upload('form.pdf', await formPdf(), org);
    const run = await s.json('/api/edit/run', { method: 'POST', json: { document_id: id, edit_config_id: cfg.body.config.id, instructions: 'I am a US citizen' } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const v = await readBack(run.body.output_file_url);
    assert.equal(v['f.citizen'], true, 'the request instructions win over the config');
    assert.equal(v['f.name'] ?? '', '', 'the config instructions were replaced by the request');
    const run2 = await s.json('/api/edit/run', { method: 'POST', json: { document_id: id, edit_config_id: cfg.body.config.id } });
    assert.equal((await readBack(run2.body.output_file_url))['f.name'], 'Jane Doe', 'the config instructions apply without request instructions');
  });

  test('vocabulary aliases change what an instruction fills; patch and delete', async () => {
    assert.ok(org);
    const id = await upload('form.pdf', await formPdf(), org);
    const fill = async () => {
      const r = await s.json('/api/edit/run', { method: 'POST', json: { document_id: id, instructions: 'My hometown is Porto' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (await readBack(r.body.output_file_url))['f.city'] ?? '';
    };
    assert.equal(await fill(), '', 'hometown matches no label on its own');
    const e = await s.json('/api/edit/vocabulary', { method: 'POST', headers: { 'x-organization-id': org }, json: { canonical_term: 'City', aliases: ['hometown'] } });
    assert.equal(e.status, 201, JSON.stringify(e.body));
    assert.deepEqual((await s.json('/api/edit/vocabulary', { headers: { 'x-organization-id': org } })).body.entries.map((x: any) => x.canonical_term), ['City']);
    assert.equal(await fill(), 'Porto', 'the alias leads to the City field');
    const p = await s.json(`/api/edit/vocabulary/${e.body.entry.id}`, { method: 'PATCH', json: { aliases: ['town of birth'] } });
    assert.deepEqual(p.body.entry.aliases, ['town of birth']);
    assert.equal(await fill(), '', 'the alias is gone');
    assert.deepEqual((await s.json(`/api/edit/vocabulary/${e.body.entry.id}`, { method: 'DELETE' })).body, { deleted: true });
    assert.equal((await s.json('/api/edit/vocabulary', { headers: { 'x-organization-id': org } })).body.entries.length, 0);
  });

  test('suggest: from the document content and earlier fills; session_id saves ai_suggestion mappings', async () => {
    const first = await upload('form.pdf', await formPdf());
    const r1 = await s.json('/api/edit/run', { method: 'POST', json: { document_id: first, mappings: [{ elementId: 'f.kids', value: '2' }] } });
    assert.equal(r1.status, 200, JSON.stringify(r1.body));
    const id = await upload('letter.pdf', await letterWithForm());
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
    const sug = await s.json('/api/edit/suggest', { method: 'POST', json: { edit_job_id: det.body.job_id } });
    assert.equal(sug.status, 200, JSON.stringify(sug.body));
    const by = Object.fromEntries(sug.body.suggestions.map((x: any) => [x.elementId, x]));
    assert.equal(by['f.policy']?.value, 'PN-48213', JSON.stringify(sug.body));
    assert.match(by['f.policy'].reasoning, /printed in the document/);
    assert.equal(by['f.nick'], undefined, 'nothing to suggest: no value invented');
    // earlier fills: the number of children filled on the other form
    const det2 = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: first } });
    const sug2 = await s.json('/api/edit/suggest', { method: 'POST', json: { edit_job_id: det2.body.job_id, session_id: det2.body.job_id } });
    const kids = sug2.body.suggestions.find((x: any) => x.elementId === 'f.kids');
    assert.equal(kids?.value, '2', JSON.stringify(sug2.body));
    assert.match(kids.reasoning, /you filled/);
    const job = await s.json('/api/edit/jobs/' + det2.body.job_id);
    assert.equal(job.status, 200);
    const project = await s.json('/api/edit/projects', { method: 'POST', json: { document_id: first, edit_job_id: det2.body.job_id } });
    const got = await s.json(`/api/edit/projects/${project.body.project.id}`);
    const saved = got.body.latest_job.fill_mappings.find((m: any) => m.elementId === 'f.kids');
    assert.equal(saved?.source, 'ai_suggestion', JSON.stringify(got.body.latest_job.fill_mappings));
  });
});
