// The API listens before its database and queue are connected: /healthz answers at once, /readyz says
// `connecting` (503) meanwhile, then `ready` (200), or `failed` with the reason (503) when the connection
// cannot be made; every other route answers 503 SERVICE_UNAVAILABLE (the error body) until it is ready.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '@quire/config';
import { startServer } from '@quire/server';
import { freePort, makeTempDir } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';

/** GET path on base: status and JSON body */
async function get(base: string, pathname: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(base + pathname, { headers });
  const text = await r.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: r.status, body, headers: r.headers };
}

/** /readyz until its status is no longer `connecting`; every status seen, in order (repeats collapsed) */
async function readinessUntilSettled(base: string, ms: number): Promise<{ seen: string[]; last: { status: number; body: any } }> {
  const seen: string[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await get(base, '/readyz');
    if (seen.at(-1) !== r.body.status) seen.push(r.body.status);
    if (r.body.status !== 'connecting') return { seen, last: r };
    assert.ok(Date.now() < deadline, `still connecting after ${ms} ms`);
    await sleep(50);
  }
}

function env(dataDir: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return { PORT: String(port), HOST: '127.0.0.1', QUIRE_PUBLIC_URL: `http://127.0.0.1:${port}`, QUIRE_DATA_DIR: dataDir, QUIRE_LOG_LEVEL: 'silent', QUIRE_PDF_WORKERS: '1', ...extra };
}

test('listening before connecting: /healthz at once, /readyz connecting (503) then ready (200); the API answers 503 until then, then normally', { timeout: 120_000 }, async () => {
  const dataDir = makeTempDir('readiness');
  const port = await freePort();
  const key = `svc_${'ab'.repeat(20)}`;
  const base = `http://127.0.0.1:${port}`;
  const s = await startServer(loadConfig(env(dataDir, port, { QUIRE_BOOTSTRAP_API_KEY: key })), { waitReady: false });
  try {
    // asked at once, before the plugins, the database and the queue have started
    const health = await get(base, '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    const first = await get(base, '/readyz', { authorization: `Bearer ${key}` });
    assert.equal(first.status, 503);
    assert.equal(first.body.status, 'connecting');
    assert.deepEqual(first.body.checks, { database: { ok: false }, queue: { ok: false } });
    const api = await get(base, '/v1/documents', { authorization: `Bearer ${key}` });
    assert.equal(api.status, 503);
    errorBody(api.body, 'SERVICE_UNAVAILABLE');
    assert.match(api.body.error.message, /starting.*\/readyz/);
    assert.equal(api.headers.get('retry-after'), '5');

    const { seen, last } = await readinessUntilSettled(base, 90_000);
    assert.deepEqual(seen, ['connecting', 'ready']);
    assert.equal(last.status, 200);
    assert.deepEqual(last.body.checks, { database: { ok: true }, queue: { ok: true } });
    await s.ready;
    const ok = await get(base, '/v1/documents', { authorization: `Bearer ${key}` });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  } finally {
    await s.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a queue that cannot be reached: /readyz connecting, then failed with the reason (503); the API answers 503 and the process keeps answering', { timeout: 120_000 }, async () => {
  const dataDir = makeTempDir('readiness-failed');
  const port = await freePort();
  const nothing = await freePort(); // nothing listens there: every connection is refused
  const base = `http://127.0.0.1:${port}`;
  const cfg = loadConfig(env(dataDir, port, { QUIRE_QUEUE_URL: `amqp://quire:s3cret-pass@127.0.0.1:${nothing}`, QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'transport:rabbitmq': { connectTimeoutMs: 1500 } }) }));
  const s = await startServer(cfg, { waitReady: false });
  try {
    const { seen, last } = await readinessUntilSettled(base, 90_000);
    assert.deepEqual(seen, ['connecting', 'failed']);
    assert.equal(last.status, 503);
    assert.match(last.body.error, /cannot connect to RabbitMQ at <address>.*ECONNREFUSED/);
    // readiness is public: the reason names the component and the cause, not the address, user or password
    assert.doesNotMatch(JSON.stringify(last.body), new RegExp(`s3cret-pass|quire@|127\\.0\\.0\\.1|:${nothing}\\b`), 'no address, user or password');
    await assert.rejects(s.ready, /cannot connect to RabbitMQ/);
    const api = await get(base, '/v1/documents', { authorization: `Bearer svc_${'cd'.repeat(20)}` });
    assert.equal(api.status, 503);
    errorBody(api.body, 'SERVICE_UNAVAILABLE');
    assert.match(api.body.error.message, /could not connect.*\/readyz/);
    assert.equal((await get(base, '/healthz')).status, 200, 'the process still answers');

    // the start that waits for readiness (what tests and embedders use) rejects with the same reason
    const other = await freePort();
    const waitDir = makeTempDir('readiness-wait');
    after(() => fs.rmSync(waitDir, { recursive: true, force: true }));
    await assert.rejects(startServer(loadConfig(env(waitDir, other, { QUIRE_QUEUE_URL: `amqp://127.0.0.1:${nothing}`, QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'transport:rabbitmq': { connectTimeoutMs: 500 } }) }))), /cannot connect to RabbitMQ/);
    // and frees its port
    const again = await fetch(`http://127.0.0.1:${other}/healthz`).then(() => 'answered', () => 'refused');
    assert.equal(again, 'refused');
  } finally {
    await s.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
