// Edit (spec §4.5) over HTTP: detection of AcroForm fields (forms made here with pdf-lib, and the corpus's
// pdf-lib sample forms), fill by label mapping read back with pdf-lib, non-Latin text, offline instructions,
// the audit report, project reruns, and ownership (flat forms and images: edit-flat.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CORPUS, hasCorpus, startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { createKey, findOrCreateUser } from '@quire/server';
import { formPdf, readBack as readBackUrl, uploadDone } from './edit-fixtures.js';

const readBack = (_s: TestServer, url: string) => readBackUrl(url);

describe('edit over HTTP', () => {
  let s: TestServer;
  let otherKey = '';
  const upload = (name: string, bytes: Uint8Array) => uploadDone(s, name, bytes);

  before(async () => {
    s = await startTestServer();
    const other = await findOrCreateUser(s.runtime.store, 'other-editor@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
  });
  after(async () => {
    await s?.close();
  });

  test('detect: every field with its type, printed label, box and prefilled value', async () => {
    const id = await upload('form.pdf', await formPdf({ prefill: true }));
    const r = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const by = new Map((r.body.elements as any[]).map((e) => [e.id, e]));
    assert.deepEqual([...by.keys()].sort(), ['f.citizen', 'f.city', 'f.country', 'f.dob', 'f.kids', 'f.name', 'f.plan']);
    assert.equal(by.get('f.name').type, 'text_field');
    assert.equal(by.get('f.name').label, 'Name');
    assert.equal(by.get('f.dob').type, 'date_field', 'Date of birth is a date');
    assert.equal(by.get('f.dob').label, 'Date of birth');
    assert.equal(by.get('f.kids').type, 'number_field');
    assert.equal(by.get('f.citizen').type, 'checkbox');
    assert.equal(by.get('f.citizen').label, 'US citizen');
    assert.equal(by.get('f.citizen').checked, false);
    assert.equal(by.get('f.plan').type, 'radio');
    assert.deepEqual(by.get('f.plan').options, ['Basic', 'Gold']);
    assert.equal(by.get('f.country').type, 'dropdown');
    assert.equal(by.get('f.country').current_value, 'Portugal');
    assert.equal(by.get('f.city').current_value, 'Lisbon');
    const nb = by.get('f.name').bbox;
    assert.ok(Math.abs(nb.x - 180) < 2 && Math.abs(nb.y - (792 - 710)) < 2 && Math.abs(nb.width - 220) < 2, JSON.stringify(nb));
    const job = await s.json(`/api/edit/jobs/${r.body.job_id}`);
    assert.equal(job.body.status, 'completed');
    assert.equal(job.body.detected_elements.length, 7);
    assert.equal((await s.json(`/api/edit/jobs/${r.body.job_id}`, { key: otherKey })).status, 404, "another user's job is a 404");
  });

  test('run by label mapping: values read back with pdf-lib, Greek and Cyrillic kept, verification passes, audit report names sources', async () => {
    const id = await upload('form.pdf', await formPdf());
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
    const run = await s.json('/api/edit/run', {
      method: 'POST',
      json: { edit_job_id: det.body.job_id, mappings: { Name: 'Αλέξανδρος Παπαδόπουλος', 'Date of birth': '1990-04-04', City: 'Київ', 'US citizen': true, Plan: 'Gold', Country: 'Ukraine' }, verify: true },
    });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.success, true);
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
    assert.equal(run.body.filled_elements.length, 6);
    const values = await readBack(s, run.body.output_file_url);
    assert.equal(values['f.name'], 'Αλέξανδρος Παπαδόπουλος');
    assert.equal(values['f.city'], 'Київ');
    assert.equal(values['f.dob'], '1990-04-04');
    assert.equal(values['f.citizen'], true);
    assert.equal(values['f.plan'], 'Gold');
    assert.deepEqual(values['f.country'], ['Ukraine']);
    // the original is unchanged
    const res = await s.json(`/api/edit/results/${run.body.job_id}`);
    const orig = await readBack(s, res.body.original_file_url);
    assert.equal(orig['f.name'] ?? '', '');
    assert.deepEqual(res.body.metadata.pages_modified, [1]);
    // the filled file parses with the values in its text
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('filled.pdf', new Uint8Array(await (await fetch(run.body.output_file_url)).arrayBuffer())) });
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    const text: string = (await s.json(`/v1/documents/${up.body.id}/content?response=text`)).body.text;
    for (const v of ['Αλέξανδρος Παπαδόπουλος', 'Київ', 'Ukraine']) assert.ok(text.includes(v), `${v} in ${text}`);
    // a correction changes one field; the audit report lists it with its source
    const fix = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, edit_id: run.body.edit_id, corrections: { City: 'Odesa' } } });
    assert.equal(fix.status, 200, JSON.stringify(fix.body));
    assert.equal((await readBack(s, fix.body.output_file_url))['f.city'], 'Odesa');
    assert.equal((await readBack(s, fix.body.output_file_url))['f.name'], 'Αλέξανδρος Παπαδόπουλος', 'earlier values stay');
    const report = await s.json(`/api/edit/results/${fix.body.job_id}/audit-report`);
    assert.equal(report.status, 200);
    const src = Object.fromEntries(report.body.fields.map((f: any) => [f.label, f.source]));
    assert.equal(src.City, 'correction');
    assert.equal(src.Name, 'mapping');
    const audit = await s.json(`/api/edit/audit?document_id=${id}`);
    assert.ok(audit.body.entries.length >= 12, 'every field of both fills is logged');
    assert.equal((await s.json(`/api/edit/results/${fix.body.job_id}/audit-report`, { key: otherKey })).status, 404);
  });

  test('offline instructions fill name, date and checkbox', async () => {
    const id = await upload('form.pdf', await formPdf());
    const run = await s.json('/api/edit/run', { method: 'POST', json: { document_id: id, instructions: 'My name is Jane Doe, born 4 April 1990, I am a US citizen' } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const values = await readBack(s, run.body.output_file_url);
    assert.equal(values['f.name'], 'Jane Doe');
    assert.equal(values['f.dob'], '1990-04-04');
    assert.equal(values['f.citizen'], true);
    const filled = run.body.filled_elements as any[];
    assert.ok(filled.every((f) => f.fillAttribution === 'instruction' && f.reasoning), JSON.stringify(filled));
  });

  test('projects: a rerun makes a new version; another user cannot see the project', async () => {
    const id = await upload('form.pdf', await formPdf());
    const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
    const first = await s.json('/api/edit/run', { method: 'POST', json: { edit_job_id: det.body.job_id, mappings: [{ elementId: 'f.name', value: 'Ana Silva' }] } });
    const p = await s.json('/api/edit/projects', { method: 'POST', json: { document_id: id, name: 'Ana', edit_job_id: first.body.job_id } });
    assert.equal(p.status, 201, JSON.stringify(p.body));
    const rerun = await s.json(`/api/edit/projects/${p.body.project.id}/rerun`, { method: 'POST', json: { verify: true } });
    assert.equal(rerun.status, 200, JSON.stringify(rerun.body));
    assert.equal(rerun.body.success, true);
    assert.equal(rerun.body.verification_result.pass, true);
    assert.equal((await readBack(s, rerun.body.output_file_url))['f.name'], 'Ana Silva');
    const runs = await s.json(`/api/edit/projects/${p.body.project.id}/runs`);
    assert.equal(runs.body.runs.length, 1);
    await s.json(`/api/edit/projects/${p.body.project.id}/rerun`, { method: 'POST', json: {} });
    assert.equal((await s.json(`/api/edit/projects/${p.body.project.id}/runs`)).body.runs.length, 2);
    const got = await s.json(`/api/edit/projects/${p.body.project.id}`);
    assert.equal(got.body.latest_job.status, 'completed');
    assert.equal((await s.json(`/api/edit/projects/${p.body.project.id}`, { key: otherKey })).status, 404);
    assert.equal((await s.json('/api/edit/projects', { key: otherKey })).body.projects.length, 0);
  });

  test('corpus AcroForms: at least 95% of fields with the right type, every prefilled value read', { skip: !hasCorpus }, async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8'));
    const entries = Object.values(manifest.files ?? manifest).filter((e: any) => e?.acroform && /^pdflib__(sample_form|fancy_fields|with_combed_fields)/.test(e.id)) as any[];
    assert.equal(entries.length, 3);
    const expectType: Record<string, string[]> = { text: ['text_field', 'date_field', 'number_field'], checkbox: ['checkbox'], radio: ['radio'], dropdown: ['dropdown'], listbox: ['dropdown'], signature: ['signature'] };
    for (const e of entries) {
      const id = await upload(e.id, fs.readFileSync(path.join(CORPUS, e.path)));
      const det = await s.json('/api/edit/detect', { method: 'POST', json: { document_id: id } });
      assert.equal(det.status, 200, JSON.stringify(det.body));
      const by = new Map((det.body.elements as any[]).map((x) => [x.id, x]));
      const fields = (e.acroform.fields as any[]).filter((f) => f.type !== 'pushbutton');
      const right = fields.filter((f) => expectType[f.type]?.includes(by.get(f.name)?.type));
      assert.ok(right.length / fields.length >= 0.95, `${e.id}: ${right.length}/${fields.length}`);
      for (const f of fields.filter((x) => x.value !== undefined)) {
        const el = by.get(f.name);
        if (f.type === 'checkbox') assert.equal(el.checked, true, `${e.id} ${f.name}`);
        else if (f.type === 'text' || f.type === 'dropdown' || f.type === 'listbox') assert.equal(el.current_value, f.value, `${e.id} ${f.name}`);
        else if (f.type === 'radio') assert.ok(el.current_value, `${e.id} ${f.name}`);
      }
    }
  });
});
