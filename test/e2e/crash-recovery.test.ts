/**
 * kill -9 of the API process on embedded defaults (SQLite, in-process stages) while 20 uploads are being
 * processed, then a restart on the same data dir: every accepted document reaches a final state.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, uploadForm } from '../helpers/server.js';
import { serverArgs } from '../helpers/built.js';
import { makeDocx, makePdf, makeXlsx } from '../helpers/fixtures.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const embedded = !process.env.QUIRE_TEST_MYSQL_URL && !process.env.QUIRE_TEST_AMQP_URL;

function startProcess(env: Record<string, string>, stdout: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  return spawn(process.execPath, serverArgs(), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout, 'pipe'],
  });
}

/** The documents' statuses once every one is completed or failed (or as they are after two minutes). */
async function finalStatuses(base: string, headers: Record<string, string>, ids: string[]): Promise<string[]> {
  const deadline = Date.now() + 120_000;
  let statuses: string[] = [];
  while (Date.now() < deadline) {
    statuses = await Promise.all(ids.map(async (id) => ((await (await fetch(`${base}/v1/documents/${id}`, { headers })).json()) as { status: string }).status));
    if (statuses.every((s) => s === 'completed' || s === 'failed')) break;
    await sleep(250);
  }
  return statuses;
}

/** What a child prints on stdout, collected as it comes. */
function collect(child: ChildProcess): { text: () => string } {
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  return { text: () => out };
}

async function waitHealthy(base: string, child: ChildProcess, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      // listening comes before connecting: ready is when /readyz says so
      const r = await fetch(`${base}/readyz`);
      if (r.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
  throw new Error('server did not become healthy');
}

test('kill -9 during 20 uploads, restart: every document reaches a final state', { skip: !embedded && 'runs on embedded defaults only', timeout: 240_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-crash-'));
  const port = await freePort();
  const key = `svc_${randomBytes(20).toString('hex')}`;
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    QUIRE_PUBLIC_URL: base,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_BOOTSTRAP_API_KEY: key,
    QUIRE_LOG_LEVEL: 'silent',
    QUIRE_PDF_WORKERS: '1',
    QUIRE_READER_THREADS: '1',
    QUIRE_STAGE_CONCURRENCY: '1',
    QUIRE_DB_URL: '',
    QUIRE_QUEUE_URL: '',
  };
  const auth = { authorization: `Bearer ${key}` };
  let child = startProcess(env);
  try {
    await waitHealthy(base, child);
    const files: [string, Uint8Array | Buffer | string][] = [];
    const pdf = await makePdf([{ heading: 'Report', lines: ['Revenue increased by twelve percent.', 'Costs fell.'] }, { heading: 'Outlook', lines: ['Growth continues.'] }]);
    const docx = await makeDocx();
    const xlsx = await makeXlsx();
    for (let i = 0; i < 20; i++) {
      const kind = i % 4;
      if (kind === 0) files.push([`r${i}.pdf`, pdf]);
      else if (kind === 1) files.push([`s${i}.docx`, docx]);
      else if (kind === 2) files.push([`b${i}.xlsx`, xlsx]);
      else files.push([`n${i}.txt`, `Note ${i}\n\nThe committee approved plan ${i}.`]);
    }
    // uploads go in one after another; the process is killed while the stages work through them
    const accepted: string[] = [];
    for (const [name, bytes] of files) {
      const r = await fetch(`${base}/v1/documents`, { method: 'POST', headers: auth, body: uploadForm(name, bytes) });
      const text = await r.text();
      assert.equal(r.status, 201, `${name}: ${text}`);
      accepted.push((JSON.parse(text) as { id: string }).id);
    }
    const before = await Promise.all(accepted.map(async (id) => ((await (await fetch(`${base}/v1/documents/${id}`, { headers: auth })).json()) as { status: string }).status));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const unfinished = before.filter((s) => s !== 'completed' && s !== 'failed').length;
    assert.ok(unfinished > 0, `the kill must land while documents are unfinished (statuses: ${before.join(',')})`);

    child = startProcess(env);
    await waitHealthy(base, child);
    const statuses = await finalStatuses(base, auth, accepted);
    assert.ok(
      statuses.every((s) => s === 'completed' || s === 'failed'),
      `every document reaches a final state after the restart: ${statuses.join(',')}`,
    );
    // the queued documents resume rather than fail: the messages were kept
    assert.equal(statuses.filter((s) => s === 'failed').length, 0, `no document fails because of the restart: ${statuses.join(',')}`);
    const jobs = await fetch(`${base}/v1/documents?limit=100`, { headers: auth });
    assert.equal(jobs.status, 200);
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGTERM with work queued: the stop logs itself, and the next start resumes the queue without calling it unclean', { skip: !embedded && 'runs on embedded defaults only', timeout: 240_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-clean-stop-'));
  const port = await freePort();
  const key = `svc_${randomBytes(20).toString('hex')}`;
  const base = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), HOST: '127.0.0.1', QUIRE_PUBLIC_URL: base, QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: key, QUIRE_LOG_LEVEL: 'info', QUIRE_PDF_WORKERS: '1', QUIRE_READER_THREADS: '1', QUIRE_STAGE_CONCURRENCY: '1', QUIRE_DB_URL: '', QUIRE_QUEUE_URL: '' };
  const auth = { authorization: `Bearer ${key}` };
  let child = startProcess(env, 'pipe');
  let out = collect(child);
  try {
    await waitHealthy(base, child);
    const pdf = await makePdf([{ heading: 'Report', lines: ['Revenue increased by twelve percent.'] }]);
    const accepted: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await fetch(`${base}/v1/documents`, { method: 'POST', headers: auth, body: uploadForm(`r${i}.pdf`, pdf) });
      const text = await r.text();
      assert.equal(r.status, 201, text);
      accepted.push((JSON.parse(text) as { id: string }).id);
    }
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0, 'a clean stop exits 0');
    assert.match(out.text(), /"msg":"stopping: running stages go back to the queue"/);
    assert.match(out.text(), /"msg":"stopped cleanly"/);

    child = startProcess(env, 'pipe');
    out = collect(child);
    await waitHealthy(base, child);
    const statuses = await finalStatuses(base, auth, accepted);
    assert.deepEqual([...new Set(statuses)], ['completed'], `every document completes after the clean stop: ${statuses.join(',')}`);
    assert.doesNotMatch(out.text(), /unclean stop/, 'a clean stop is not reported as unclean at the next start');
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
