/**
 * The data dir is the server's alone: after an upload has been stored, parsed and indexed, every folder
 * under it is 0700 and every file 0600 (the document, its parsed content, the SQLite database and its WAL,
 * the vector index, the signing key), with the usual umask 022 of the process.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeTempDir, startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { makePdf } from '../helpers/fixtures.js';

describe('data files are private: folders 0700, files 0600', () => {
  let s: TestServer;
  let tmp: string;
  let dataDir: string;
  let umask: number;

  before(async () => {
    umask = process.umask(0o022);
    tmp = makeTempDir('perms');
    dataDir = path.join(tmp, 'data');
    s = await startTestServer({ env: { QUIRE_DATA_DIR: dataDir } });
  });
  after(async () => {
    await s?.close();
    removeTempDir(tmp);
    process.umask(umask);
  });

  test('after an upload is processed, every folder under the data dir is 0700 and every file 0600', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('invoice.pdf', await makePdf([{ heading: 'Invoice', lines: ['Total due: 120.00 EUR'] }])) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    const entries = fs.readdirSync(dataDir, { recursive: true }).map((f) => path.join(dataDir, String(f)));
    const files = entries.filter((f) => fs.statSync(f).isFile());
    assert.ok(files.some((f) => f.includes(up.body.id)), 'the document is stored under the data dir');
    assert.ok(files.length >= 4, files.join('\n'));
    const mode = (f: string) => (fs.statSync(f).mode & 0o777).toString(8);
    assert.equal(mode(dataDir), '700');
    const wrong = entries.filter((f) => mode(f) !== (fs.statSync(f).isDirectory() ? '700' : '600')).map((f) => `${mode(f)} ${path.relative(dataDir, f)}`);
    assert.deepEqual(wrong, []);
  });
});
