// A split whose child documents cannot be recorded (the transaction that inserts a child's row throws, every
// time): the split fails, and the child's stored file and parsed content, written before its row, go with the
// failure — no stored file of a document is left without the document's row.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { filesUnder } from '../helpers/assertions.js';
import { callStack } from '../helpers/hold-calls.js';

/** A document's stored original or parsed content, by the document's id. */
const DOCUMENT_FILE = /(?:^|\/)(?:documents\/([^/]+)\/original|content\/([^/]+)\.json)$/;

describe('split: a child whose row insert throws leaves no stored file', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('the files stored for the child go when its row cannot be written', async () => {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('ledger.txt', 'Mooring ledger\n\nThe mooring fee was paid on 4 April.') });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const source = up.body.document.id as string;
    assert.equal((await waitForStatus(s, `/v1/documents/${source}`, 120_000)).status, 'completed');

    // the transaction that records a child (its row, its ingest job) throws whenever a split's children stage begins one
    const store = s.runtime.store as unknown as { transaction: (...a: unknown[]) => Promise<unknown> };
    const original = store.transaction;
    let refused = 0;
    store.transaction = function (this: unknown, ...args: unknown[]) {
      if (/\bmakeChild\b/.test(callStack())) {
        refused++;
        return Promise.reject(new Error('the store refused the child row'));
      }
      return original.apply(this, args);
    };
    try {
      // with a webhook the request answers at once (202) and the job runs on
      const r = await s.json('/api/split/run', { method: 'POST', json: { document_id: source, sections: [{ name: 'All', page_start: 1, page_end: 1 }], webhook_url: 'http://127.0.0.1:9/split' } });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const job = await until('the split to fail', async () => {
        const j = await s.runtime.store.repo('jobs').get(r.body.job_id);
        return j?.status === 'failed' ? j : null;
      }, 180_000);
      assert.match(String(job.error), /refused the child row/);
    } finally {
      store.transaction = original;
    }
    assert.ok(refused > 0, 'the children stage tried to record its child');

    const stored = filesUnder(s.dataDir).map((f) => f.split(path.sep).join('/'));
    const ids = new Set(stored.map((f) => DOCUMENT_FILE.exec(f)).filter((m): m is RegExpExecArray => !!m).map((m) => (m[1] ?? m[2])!));
    assert.ok(ids.has(source), 'the source document has its files');
    for (const id of ids) assert.ok(await s.runtime.store.repo('documents').get(id), `stored files of document ${id}, which has no row`);
  });
});
