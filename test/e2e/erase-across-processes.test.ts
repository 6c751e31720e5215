// @services: an erasure while a worker in another process runs a stage of the erased owner's upload
// The API process runs no stages (QUIRE_RUN_STAGES=false); a `quire-worker` process on the same MariaDB and
// RabbitMQ runs them (CI's second pass). A test reader (loaded through QUIRE_PLUGINS in place of the office
// reader, run on the worker's own thread and deaf to cancellation, as a reader that bounds itself is) holds
// the read of a marked text until the test releases it. The account (then, in the second test, the
// organization) is deleted while the worker holds the read; then the read goes on and writes what a read
// writes (the parsed content, the chunks, which name the owner). Once the worker has stopped (a clean stop
// waits for the stage under way), nothing of the erased owner may remain: no row naming it or its document,
// no vector, no stored file; the API answers 404 for the document. A test generator (a markdown writer, held the
// same way) does the same for the format stage of a generation: the file it writes after the erasure goes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { AMQP_URL, MYSQL_URL, makeTempDir, removeTempDir, startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startWorker } from '../helpers/workers.js';
import type { WorkerProcess } from '../helpers/workers.js';
import { deleteRabbitPrefix } from '../helpers/leftovers.mjs';
import { filesUnder } from '../helpers/assertions.js';
import { organizationWithKnowledgeBase, signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SKIP = MYSQL_URL && AMQP_URL ? false : 'needs MariaDB and RabbitMQ shared by several processes: set QUIRE_TEST_MYSQL_URL and QUIRE_TEST_AMQP_URL (CI pass 2)';

/**
 * A txt reader (one paragraph block per paragraph) that, for a text with "HOLD-<name>", writes
 * <dir>/<name>.reached and waits for <dir>/<name>.release before it answers. `isolated: true`: it runs on the
 * stage's own thread, where cancelling the job does not stop it.
 */
const heldReader = (dir: string) => `import fs from 'node:fs';
import path from 'node:path';
import { DocumentBuilder } from '@quire/core';
const dir = ${JSON.stringify(dir)};
const released = (file) => new Promise((resolve) => { const t = setInterval(() => { if (fs.existsSync(file)) { clearInterval(t); resolve(); } }, 25); });
export default { kind: 'reader', name: 'office', core: '^1', create: () => ({
  formats: ['docx', 'doc', 'txt', 'html', 'rtf'],
  isolated: true,
  async read(input) {
    const text = fs.readFileSync(input.path, 'utf8');
    const hold = /HOLD-([a-z]+)/.exec(text);
    if (hold) {
      fs.writeFileSync(path.join(dir, hold[1] + '.reached'), '');
      await released(path.join(dir, hold[1] + '.release'));
    }
    const b = new DocumentBuilder(input.documentId, input.name, input.format);
    b.addPage({ number: 1, width: 612, height: 792, ocr: false, confidence: 1 });
    for (const para of text.split(/\\n\\s*\\n/)) if (para.trim()) b.addBlock({ type: 'paragraph', text: para.trim(), page: 1, bbox: null, confidence: 1 });
    return b.build();
  },
}) };`;

/**
 * A markdown writer that, for a generated document titled "HOLD-<name>", writes <dir>/<name>.reached and waits
 * for <dir>/<name>.release before it answers; deaf to cancellation as the reader above.
 */
const heldGenerator = (dir: string) => `import fs from 'node:fs';
import path from 'node:path';
const dir = ${JSON.stringify(dir)};
const released = (file) => new Promise((resolve) => { const t = setInterval(() => { if (fs.existsSync(file)) { clearInterval(t); resolve(); } }, 25); });
export default { kind: 'generator', name: 'held', core: '^1', create: () => ({
  formats: ['markdown'],
  async generate({ document }) {
    const hold = /HOLD-([a-z]+)/.exec(document.title);
    if (hold) {
      fs.writeFileSync(path.join(dir, hold[1] + '.reached'), '');
      await released(path.join(dir, hold[1] + '.release'));
    }
    return { bytes: Buffer.from('# ' + document.title + '\\n'), mime: 'text/markdown', extension: 'md' };
  },
}) };`;

describe('erasure across processes: a stage held by a worker while its owner is erased', { skip: SKIP, timeout: 300_000 }, () => {
  let s: TestServer;
  let root: string;
  let holds: string;
  let env: Record<string, string>;
  let outsider: TestUser;
  const workers: WorkerProcess[] = [];

  before(async () => {
    root = makeTempDir('erase-fence');
    const pluginDir = path.join(root, 'plugin');
    holds = path.join(root, 'holds');
    fs.mkdirSync(pluginDir);
    fs.mkdirSync(holds);
    // the plugin imports @quire/core (DocumentBuilder), found through this folder's node_modules
    fs.mkdirSync(path.join(root, 'node_modules', '@quire'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'core/kernel'), path.join(root, 'node_modules', '@quire', 'core'));
    fs.writeFileSync(path.join(pluginDir, 'package.json'), JSON.stringify({ name: 'quire-plugin-test-held-reader', type: 'module', main: 'index.js', quire: { kind: 'reader', name: 'office', core: '^1' } }));
    fs.writeFileSync(path.join(pluginDir, 'index.js'), heldReader(holds));
    const generatorDir = path.join(root, 'generator');
    fs.mkdirSync(generatorDir);
    fs.writeFileSync(path.join(generatorDir, 'package.json'), JSON.stringify({ name: 'quire-plugin-test-held-generator', type: 'module', main: 'index.js', quire: { kind: 'generator', name: 'held', core: '^1' } }));
    fs.writeFileSync(path.join(generatorDir, 'index.js'), heldGenerator(holds));
    env = { QUIRE_PLUGINS: `${pluginDir},${generatorDir}`, QUIRE_WORKER_LEASE_S: '2' };
    s = await startTestServer({ env: { ...env, QUIRE_RUN_STAGES: 'false' } });
    outsider = await signUpUser(s, 'outsider@example.com', 'Outsider');
  });
  after(async () => {
    const prefix = s?.runtime.config.queue.prefix;
    for (const w of workers) await w.stop();
    await s?.close();
    if (prefix && AMQP_URL) await deleteRabbitPrefix(AMQP_URL, prefix).catch(() => {});
    if (root) removeTempDir(root);
  });

  /** Uploads a text (into the knowledge base, for the organization when given): the document's id and its job's. */
  async function upload(name: string, u: TestUser, text: string, fields: Record<string, string> = {}) {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm(`${name}.txt`, text, fields), key: u.key });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const docId = up.body.document.id as string;
    const job = await until("the document's job", () => s.runtime.store.repo('jobs').findOne({ document_id: docId }));
    return { docId, jobId: job.id };
  }

  /** A text whose read the held reader holds until the test releases HOLD-<name>. */
  const heldText = (name: string) => `Halyard ledger of ${name}\n\nHOLD-${name}: the halyard order was signed on 3 March.\n\nBudget 12,000 EUR for new rigging.`;

  /**
   * Starts a fresh worker and the work `start` starts (the ids of the document and the job it makes), waits
   * until the worker holds its `stage` at HOLD-<name>, runs `erase` (which must answer 200), releases the hold
   * and stops the worker (it finishes the stage first). Returns the ids `start` gave.
   */
  async function eraseWhileHeld(name: string, stage: string, start: () => Promise<{ docId: string; jobId: string }>, erase: () => Promise<{ status: number; body: any }>) {
    const worker = await startWorker(s, env);
    workers.push(worker);
    const { docId, jobId } = await start();
    await until(`the worker holding the ${stage}`, () => fs.existsSync(path.join(holds, `${name}.reached`)), 90_000);
    const row = await s.runtime.store.repo('job_stages').findOne({ job_id: jobId, stage });
    assert.equal(row?.worker, worker.id, `the ${stage} runs in the worker process`);

    const answer = await erase();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    // the stage goes on in the worker, after the erasure: it writes what it writes (parsed content and chunks,
    // a generated file), naming the owner
    fs.writeFileSync(path.join(holds, `${name}.release`), '');
    await worker.stop();
    assert.equal(worker.child.exitCode, 0, `the worker stopped cleanly:\n${worker.output()}`);
    return { docId, jobId };
  }

  /** Vectors of the document in the embedded index (none when the index was never made). */
  function vectorsOf(docId: string): number {
    const file = path.join(s.runtime.config.dataDir, 'vectors', 'vectors.db');
    if (!fs.existsSync(file)) return 0;
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM vectors WHERE document_id = ?').get(docId) as { n: number }).n;
    } finally {
      db.close();
    }
  }

  async function assertNothingOf(column: 'user_id' | 'organization_id', owner: string, docId: string, jobId: string) {
    const store = s.runtime.store;
    const tables = store.tables!();
    for (const [t, cols] of Object.entries(tables)) {
      if (!cols.includes(column) || t === 'audit_log') continue;
      assert.equal(await (store.repo(t as any) as any).count({ [column]: owner }), 0, `rows of the erased owner in ${t}`);
    }
    for (const [t, cols] of Object.entries(tables)) {
      if (cols.includes('document_id')) assert.equal(await (store.repo(t as any) as any).count({ document_id: docId }), 0, `rows of the erased document in ${t}`);
      if (cols.includes('job_id')) assert.equal(await (store.repo(t as any) as any).count({ job_id: jobId }), 0, `rows of the erased job in ${t}`);
    }
    assert.equal(await store.repo('documents').get(docId), null, 'the document row');
    assert.equal(await store.repo('jobs').get(jobId), null, 'the job row');
    assert.equal(vectorsOf(docId), 0, 'vectors of the erased document');
    const left = filesUnder(s.dataDir).filter((f) => [docId, jobId].some((id) => path.relative(s.dataDir, f).includes(id)));
    assert.deepEqual(left, [], 'stored files of the erased document');
  }

  test('account deletion: what the worker writes after the erasure does not outlive the user', async () => {
    const c = await signUpUser(s, 'halyard@example.com', 'Halyard Writer');
    const kb = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Rigging' }, key: c.key });
    assert.equal(kb.status, 201, JSON.stringify(kb.body));
    const { docId, jobId } = await eraseWhileHeld('account', 'ingest.read', () => upload('account', c, heldText('account'), { knowledge_base_id: kb.body.knowledge_base.id }), () =>
      s.json('/api/gdpr/delete-account', { method: 'POST', json: { immediate: true }, key: c.key }),
    );
    await assertNothingOf('user_id', c.id, docId, jobId);
    assert.equal(await s.runtime.store.repo('users').get(c.id), null);
    assert.equal((await s.json(`/v1/documents/${docId}`, { key: outsider.key })).status, 404);
  });

  test('organization deletion: what the worker writes after the deletion does not outlive the organization', async () => {
    const { owner: o, orgId: org, kbId } = await organizationWithKnowledgeBase(s, 'rigger@example.com', { name: 'Rigging Org', slug: 'rigging-org' }, 'Org rigging');
    const { docId, jobId } = await eraseWhileHeld('organization', 'ingest.read', () => upload('organization', o, heldText('organization'), { knowledge_base_id: kbId, organization_id: org }), () =>
      s.json(`/api/organizations/${org}`, { method: 'DELETE', key: o.key }),
    );
    await assertNothingOf('organization_id', org, docId, jobId);
    assert.equal(await s.runtime.store.repo('organizations').get(org), null);
    assert.equal((await s.json(`/v1/documents/${docId}`, { key: o.key })).status, 404);
  });

  test('account deletion: what a generation the worker formats after the erasure writes does not outlive the user', async () => {
    const g = await signUpUser(s, 'shackle@example.com', 'Shackle Writer');
    const { docId: docIdOf, jobId } = await eraseWhileHeld(
      'generation',
      'generate.format',
      async () => {
        const source = await upload('shackle', g, 'Shackle ledger\n\nThe shackle order was signed on 5 May.');
        assert.equal((await waitForStatus(s, `/v1/documents/${source.docId}`, 120_000, g.key)).status, 'completed');
        const r = await s.json('/api/generate/run', { method: 'POST', json: { output_format: 'markdown', template_prompt: 'A note on the shackle order.', source_document_ids: [source.docId], settings: { title: 'HOLD-generation' }, async: true }, key: g.key });
        assert.equal(r.status, 202, JSON.stringify(r.body));
        const job = await s.runtime.store.repo('jobs').get(r.body.job_id);
        return { docId: (job!.input as { document_id: string }).document_id, jobId: job!.id };
      },
      () => s.json('/api/gdpr/delete-account', { method: 'POST', json: { immediate: true }, key: g.key }),
    );
    await assertNothingOf('user_id', g.id, docIdOf, jobId);
    assert.equal(await s.runtime.store.repo('users').get(g.id), null);
  });
});
