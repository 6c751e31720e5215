// docs/operations.md's backup and restore, performed: a stopped service on embedded defaults (SQLite) is
// backed up by copying its data dir (quire.db, files/ with the parsed content, vectors/, secrets.key,
// signing.key), the copy is restored into a new data dir (the old one removed), and the service started there
// still serves the documents (list, content, original file, search), its API key, its signing secret
// (callback secret unchanged) and its stored webhook secret (a test delivery signed with the secret given at
// creation). Without secrets.key the stored secret is unreadable, as the documentation warns.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '@quire/config';
import { startServer } from '@quire/server';
import { freePort, makeTempDir, removeTempDir, uploadForm, waitForStatus } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';

const key = `svc_${randomBytes(20).toString('hex')}`;
const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

async function start(dataDir: string) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const running = await startServer(loadConfig({ PORT: String(port), HOST: '127.0.0.1', QUIRE_PUBLIC_URL: base, QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: key, QUIRE_ALLOWED_HOSTS: '127.0.0.1,localhost', QUIRE_LOG_LEVEL: 'silent', QUIRE_PDF_WORKERS: '1' }));
  const api = (p: string, init: RequestInit = {}) => fetch(base + p, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } });
  const json = async (p: string, init: RequestInit = {}) => {
    const r = await api(p, init);
    return { status: r.status, body: (await r.json()) as any };
  };
  return { running, base, api, json };
}

test('a copy of a stopped service’s data dir, restored into a new dir, serves its documents, keys and stored secrets', { timeout: 240_000 }, async () => {
  if (process.env.QUIRE_TEST_MYSQL_URL) return; // the SQLite procedure: the database is a file of the data dir
  const original = makeTempDir('backup-original');
  const backup = makeTempDir('backup-copy');
  const restored = makeTempDir('backup-restored');
  const without = makeTempDir('backup-nokey');
  after(() => [original, backup, restored, without].forEach(removeTempDir));
  const rx = await startReceiver();
  after(() => rx.close());

  // ---- a service with a document, a webhook (its secret stored encrypted) and a signing secret
  const text = `Backup drill ${randomBytes(6).toString('hex')}: the quarterly invoice totals 4,210 euros.`;
  let docId = '';
  let webhook = { webhook_id: '', secret: '' };
  let callbackSecret = '';
  let fileBytes = '';
  {
    const s = await start(original);
    try {
      const form = uploadForm('drill.txt', text, {}, 'text/plain');
      const up = await s.json('/v1/documents', { method: 'POST', body: form });
      assert.equal(up.status, 201, JSON.stringify(up.body));
      docId = up.body.id;
      const done = await waitForStatus({ json: (p: string) => s.json(p) } as any, `/v1/documents/${docId}`);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      fileBytes = await (await s.api(`/v1/documents/${docId}/file`)).text();
      const w = await s.json('/api/webhooks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `${rx.base}/hook`, events: ['document.completed'] }) });
      assert.equal(w.status, 201, JSON.stringify(w.body));
      webhook = w.body;
      callbackSecret = (await s.json('/api/webhooks/callback-secret')).body.secret;
    } finally {
      await s.running.close();
    }
  }
  // what the documentation says the data dir holds
  for (const f of ['quire.db', 'files', 'vectors', 'secrets.key', 'signing.key']) assert.ok(fs.existsSync(path.join(original, f)), `${f} is in the data dir: ${fs.readdirSync(original).join(', ')}`);

  // ---- back up (the service is stopped: a plain copy is consistent), lose the original, restore elsewhere
  fs.cpSync(original, backup, { recursive: true, preserveTimestamps: true });
  fs.rmSync(original, { recursive: true, force: true });
  fs.cpSync(backup, restored, { recursive: true, preserveTimestamps: true });

  {
    const s = await start(restored);
    try {
      const list = await s.json('/v1/documents');
      assert.equal(list.status, 200, JSON.stringify(list.body));
      const items = list.body.data ?? list.body.documents ?? list.body;
      assert.ok(JSON.stringify(items).includes(docId), 'the document is listed');
      const content = await s.json(`/v1/documents/${docId}/content?response=full`);
      assert.equal(content.status, 200);
      assert.match(content.body.text, /quarterly invoice totals 4,210 euros/);
      assert.equal(await (await s.api(`/v1/documents/${docId}/file`)).text(), fileBytes, 'the original file');
      // the vector index came back too: the document is found by meaning
      const found = await s.json('/v1/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'invoice total in euros', limit: 3 }) });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      assert.equal(found.body.data[0]?.document_id, docId, JSON.stringify(found.body));
      // the signing secret came back with the data dir: the same callback secret
      assert.equal((await s.json('/api/webhooks/callback-secret')).body.secret, callbackSecret);
      // the stored webhook secret is readable: the test delivery is signed with the secret given at creation
      const t = await s.json(`/api/webhooks/${webhook.webhook_id}/test`, { method: 'POST' });
      assert.equal(t.status, 200, JSON.stringify(t.body));
      assert.equal(t.body.success, true, JSON.stringify(t.body));
      const hit = rx.hits('/hook').at(-1)!;
      assert.equal(hit.headers['x-svc-signature'], sign(webhook.secret, hit.body));
    } finally {
      await s.running.close();
    }
  }

  // ---- a restore that forgot secrets.key: documents are there, the stored secret is not usable
  fs.cpSync(backup, without, { recursive: true });
  fs.rmSync(path.join(without, 'secrets.key'));
  {
    const s = await start(without);
    try {
      assert.equal((await s.json(`/v1/documents/${docId}`)).status, 200);
      const before = rx.hits('/hook').length;
      const t = await s.json(`/api/webhooks/${webhook.webhook_id}/test`, { method: 'POST' });
      assert.equal(t.status, 503, JSON.stringify(t.body));
      assert.equal(t.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.match(t.body.error.message, /stored secret cannot be decrypted.*secrets\.key/);
      assert.equal(rx.hits('/hook').length, before, 'nothing sent');
    } finally {
      await s.running.close();
    }
  }
});
