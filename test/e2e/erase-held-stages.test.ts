// An account erasure while a stage of a generation, a split, an edit or a data export is held past the erasure's wait:
// the stage is deaf to cancellation (held at the write of the first file it makes), the erasure waits
// QUIRE_ERASE_WAIT_S (1 s here) and erases anyway, then the stage goes on and writes what it makes (a document
// with its ingest job and charge, section rows, edit rows, a zip), all naming the erased user. When the run is over,
// nothing of the user may remain: no row naming them or what the run made, no stored file (the pipeline's
// discard removes what a fenced run wrote). Likewise a workflow held where its extract step submits its
// extraction job or where its extractor plugin step is charged, and an extraction batch held where its fanout
// inserts a child job (held at that transaction of the store).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { filesUnder } from '../helpers/assertions.js';
import { signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';
import { callStack, holdCalls } from '../helpers/hold-calls.js';
import { formPdf } from './edit-fixtures.js';
import { batchJobId } from '@quire/engine';

/** The stored original of a document, as the run that makes a document writes it first. */
const ORIGINAL = /^documents\/([^/]+)\/original$/;
/** The filled file of an edit. */
const EDIT_OUTPUT = /^edits\/([^/]+)\/output$/;
/** The zip of a data export. */
const EXPORT_ZIP = /^exports\/([^/]+)\/export\.zip$/;

describe('erasure of an owner while a generation, split, edit, export, workflow or extraction batch stage is held past the wait', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_ERASE_WAIT_S: '1' } });
  });
  after(async () => {
    await s?.close();
  });

  async function uploaded(u: TestUser, name: string, body: Uint8Array | string = 'Mooring ledger of Ansel Brook\n\nThe mooring fee was paid on 4 April.\n\nThe slipway opens at dawn.'): Promise<string> {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm(name, body), key: u.key });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.document.id}`, 120_000, u.key)).status, 'completed');
    return up.body.document.id;
  }

  /**
   * Holds the next write of a stored file whose key matches `held` (its first group: the id of what the run
   * makes), starts the run (`start`: its job id), and once the run is at the hold deletes the account (the
   * erasure waits its second, then erases); then the run goes on. Returns the job's id and the held id, once
   * every run of the server is over.
   */
  async function eraseWhileHeld(u: TestUser, held: RegExp, start: () => Promise<string>) {
    let made = '';
    const hold = holdCalls(s.runtime.storage, 'put', (key: unknown) => {
      const m = typeof key === 'string' && !made ? held.exec(key) : null;
      if (m) made = m[1]!;
      return !!m;
    });
    return { ...(await eraseAtHold(u, hold, start)), made };
  }

  /**
   * Holds the next transaction the store begins for a function whose frame (its own or an awaiting caller's)
   * matches every one of `frames`: a run held at the write it makes there.
   */
  function holdTransaction(...frames: RegExp[]) {
    let taken = false;
    return holdCalls(s.runtime.store, 'transaction', () => {
      if (taken) return false;
      const stack = callStack();
      return (taken = frames.every((f) => f.test(stack)));
    });
  }

  /** Starts the run, deletes the account once the run is at `hold`, then lets the run go on (see eraseWhileHeld). */
  async function eraseAtHold(u: TestUser, hold: ReturnType<typeof holdCalls>, start: () => Promise<string>) {
    try {
      const jobId = await start();
      await hold.reached;
      const del = await s.json('/api/gdpr/delete-account', { method: 'POST', json: { immediate: true }, key: u.key });
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assert.equal(await s.runtime.store.repo('users').get(u.id), null);
      hold.release();
      await hold.written;
      await until('every run over', async () => (await s.runtime.pipelines.settle(s.runtime.pipelines.activeJobIds(), 60_000)) && !s.runtime.pipelines.activeJobIds().length, 120_000);
      return { jobId };
    } finally {
      hold.restore();
    }
  }

  async function assertNothingOf(userId: string, ids: string[]) {
    const store = s.runtime.store;
    const tables = store.tables!();
    for (const [t, cols] of Object.entries(tables)) {
      if (t === 'audit_log') continue;
      if (cols.includes('user_id')) assert.equal(await (store.repo(t as any) as any).count({ user_id: userId }), 0, `rows of the erased user in ${t}`);
      for (const c of ['document_id', 'job_id', 'resource_id', 'parent_document_id']) {
        if (cols.includes(c)) for (const id of ids) assert.equal(await (store.repo(t as any) as any).count({ [c]: id }), 0, `rows naming ${id} in ${t}.${c}`);
      }
    }
    for (const id of ids) assert.equal(await store.repo('documents').get(id), null, `document ${id}`);
    const left = filesUnder(s.dataDir).filter((f) => ids.some((id) => f.includes(id)));
    assert.deepEqual(left, [], 'stored files of what the run made');
  }

  // runs that make a document from one of the user's (its original is the first file they write): the request
  // that starts one (answered 202 with its job id) and what the test names it by
  const makers: { name: string; what: string; request: (source: string) => { path: string; json: Record<string, unknown> } }[] = [
    {
      name: 'generation',
      what: 'the document its upload stage writes after the erasure goes, with its ingest job and its charge',
      request: (source) => ({ path: '/api/generate/run', json: { output_format: 'markdown', template_prompt: 'A note on the mooring fees.', source_document_ids: [source], async: true } }),
    },
    {
      name: 'split',
      what: 'the child document and section row its children stage writes after the erasure go',
      request: (source) => ({ path: '/api/split/run', json: { document_id: source, sections: [{ name: 'All', page_start: 1, page_end: 1 }], webhook_url: 'http://127.0.0.1:9/split' } }),
    },
  ];
  for (const m of makers) {
    test(`${m.name}: ${m.what}`, async () => {
      const u = await signUpUser(s, `${m.name}@example.com`, 'Ansel Brook');
      const source = await uploaded(u, `${m.name}.txt`);
      const { jobId, made } = await eraseWhileHeld(u, ORIGINAL, async () => {
        const { path, json } = m.request(source);
        const r = await s.json(path, { method: 'POST', json, key: u.key });
        assert.equal(r.status, 202, JSON.stringify(r.body));
        return r.body.job_id as string;
      });
      assert.ok(made && made !== source, 'the run was held at the write of the document it makes');
      await assertNothingOf(u.id, [jobId, made, source]);
    });
  }

  test('edit: the edit and audit rows its run writes after the erasure go, with the filled file', async () => {
    const u = await signUpUser(s, 'editor@example.com', 'Ansel Brook');
    const form = await uploaded(u, 'form.pdf', await formPdf());
    // the run answers when the edit is done: it is left to end as it does once its owner is erased
    let answered: Promise<unknown> = Promise.resolve();
    const { jobId, made } = await eraseWhileHeld(u, EDIT_OUTPUT, async () => {
      let refused: unknown = null;
      answered = s.json('/api/edit/run', { method: 'POST', json: { document_id: form, instructions: 'My name is Ansel Brook, I live in Lisbon' }, key: u.key }).then((r) => (refused = r.status >= 400 ? r.body : null));
      const job = await until('the edit job', async () => refused ?? (await s.runtime.store.repo('edit_jobs').findOne({ document_id: form })));
      assert.ok('id' in (job as object), JSON.stringify(job));
      return (job as { id: string }).id;
    });
    await answered;
    assert.ok(made, 'the run was held at the write of its filled file');
    await assertNothingOf(u.id, [jobId, made, form]);
  });

  test('data export: the zip its build writes after the erasure goes', async () => {
    const u = await signUpUser(s, 'exporter@example.com', 'Ansel Brook');
    await uploaded(u, 'export-me.txt');
    let requestId = '';
    const { jobId, made } = await eraseWhileHeld(u, EXPORT_ZIP, async () => {
      const r = await s.json('/api/gdpr/export', { method: 'POST', key: u.key });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      requestId = r.body.request_id;
      return (await until('the export job', async () => (await s.runtime.store.repo('jobs').find({ user_id: u.id })).find((j) => j.type !== 'document'))).id;
    });
    assert.equal(made, requestId, 'the build was held at the write of its zip');
    await assertNothingOf(u.id, [jobId, requestId]);
  });

  /** Runs a workflow of `steps` on `document` for the user: the execution's id (its job's). */
  async function executeWorkflow(u: TestUser, steps: Record<string, unknown>[], document: string): Promise<string> {
    const wf = await s.json('/api/workflows', { method: 'POST', json: { name: 'held', definition: { steps } }, key: u.key });
    assert.equal(wf.status, 201, JSON.stringify(wf.body));
    const run = await s.json(`/api/workflows/${wf.body.workflow.id}/execute`, { method: 'POST', json: { trigger_data: { document_id: document } }, key: u.key });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    return run.body.execution_id as string;
  }

  test('workflow: the extraction job its extract step submits after the erasure goes, with what it stored', async () => {
    const u = await signUpUser(s, 'workflow-extract@example.com', 'Ansel Brook');
    const source = await uploaded(u, 'workflow.txt');
    // held after the step's checks, at the transaction that reserves the extraction's credits and inserts its job
    const { jobId } = await eraseAtHold(u, holdTransaction(/\bextractStep\b/, /\breserveCredits\b/), () => executeWorkflow(u, [{ id: 'extract', type: 'extract', config: { schema_id: 'invoice' } }], source));
    const extractJobs = (await s.runtime.store.repo('jobs').find({ type: 'extract' })).filter((j) => (j.input as { source?: { document_id?: string } })?.source?.document_id === source);
    assert.deepEqual(extractJobs, [], 'the extraction job the step submitted');
    await assertNothingOf(u.id, [jobId, source]);
  });

  test("workflow: an extractor plugin step's charge written after the erasure goes", async () => {
    const u = await signUpUser(s, 'workflow-plugin@example.com', 'Ansel Brook');
    const source = await uploaded(u, 'plugin.txt');
    const plugin = `extractor:${s.runtime.registry.names('extractor')[0]}`;
    // held at the charge of the step (the hold settled), after the plugin extracted
    const { jobId } = await eraseAtHold(u, holdTransaction(/\bextractorStep\b/, /\bsettle\b/), () => executeWorkflow(u, [{ id: 'kv', type: 'plugin', plugin, config: { fields: [{ name: 'fee', type: 'string' }] } }], source));
    assert.equal(await s.runtime.store.repo('usage').count({ operation: 'extract', user_id: u.id }), 0, 'the step charge');
    await assertNothingOf(u.id, [jobId, source]);
  });

  test('extraction batch: a child its fanout makes after the erasure goes, with what it stored', async () => {
    const u = await signUpUser(s, 'batch@example.com', 'Ansel Brook');
    const docs = [await uploaded(u, 'batch-a.txt'), await uploaded(u, 'batch-b.txt')];
    let batchId = '';
    // held at the transaction that inserts the first child's job
    const { jobId } = await eraseAtHold(u, holdTransaction(/\bfanOutBatch\b/), async () => {
      const r = await s.json('/api/extract/batch', { method: 'POST', json: { name: 'held', document_ids: docs, schema_id: 'invoice' }, key: u.key });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      batchId = r.body.id;
      return batchJobId(batchId, 'batch');
    });
    const children = docs.map((d) => batchJobId(batchId, d));
    assert.deepEqual(await s.runtime.store.repo('jobs').find({ id: children }), [], 'the child extraction jobs');
    await assertNothingOf(u.id, [jobId, batchId, ...children, ...docs]);
  });
});
