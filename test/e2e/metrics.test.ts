// @services: queue depth read from RabbitMQ or the store; a worker's /readyz checks the database and the queue
// GET /metrics (Prometheus text, prom-client): off by default (404), behind QUIRE_METRICS_TOKEN as a bearer
// token (401 without it), and after an upload is processed it shows the request count by route template
// (no ids in labels), the completed ingest job, its stage durations and the credits charged. A worker
// started with QUIRE_WORKER_HEALTH_PORT answers /healthz, /readyz and /metrics on its own port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startWorker } from '../helpers/workers.js';
import type { WorkerProcess } from '../helpers/workers.js';
import { makePdf } from '../helpers/fixtures.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** the value of one series (name and exact labels as printed), or undefined */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    if (line.slice(0, i) === series) return Number(line.slice(i + 1));
  }
  return undefined;
}

describe('/metrics is off by default', { timeout: 120_000 }, () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.close());

  test('404 with or without a key', async () => {
    assert.equal((await s.api('/metrics', { key: null })).status, 404);
    assert.equal((await s.api('/metrics')).status, 404);
    assert.equal((await s.api('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
  });
});

describe('/metrics behind QUIRE_METRICS_TOKEN', { timeout: 240_000 }, () => {
  let s: TestServer;
  let docId: string;
  let pages: number;
  before(async () => {
    s = await startTestServer({ env: { QUIRE_METRICS_TOKEN: TOKEN } });
    const pdf = await makePdf([
      { heading: 'Quarterly report', lines: ['Revenue grew by 12 percent.', 'Costs were flat.'] },
      { heading: 'Outlook', lines: ['Next quarter looks steady.'] },
    ]);
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('report.pdf', pdf) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    docId = up.body.id;
    const doc = await waitForStatus(s, `/v1/documents/${docId}`);
    assert.equal(doc.status, 'completed', JSON.stringify(doc));
    pages = doc.pages;
  });
  after(() => s?.close());

  const scrape = (authorization?: string) => s.api('/metrics', { key: null, headers: authorization ? { authorization } : {} });

  test('401 without the token or with a wrong one, even with an API key', async () => {
    assert.equal((await scrape()).status, 401);
    assert.equal((await scrape(`Bearer ${TOKEN}x`)).status, 401);
    assert.equal((await scrape('Bearer short')).status, 401);
    assert.equal((await s.api('/metrics')).status, 401, 'an API key is not the metrics token');
  });

  test('200 in Prometheus text with the token: requests by route template, the ingest job, stage durations, credits', async () => {
    const res = await scrape(`Bearer ${TOKEN}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^# HELP quire_http_requests_total /m);
    assert.equal(sample(text, 'quire_http_requests_total{method="POST",route="/v1/documents",status="2xx"}'), 1);
    // the polling of one document is one series, under its template: no document id in any label
    assert.ok((sample(text, 'quire_http_requests_total{method="GET",route="/v1/documents/:id",status="2xx"}') ?? 0) >= 1, text);
    assert.ok(!text.includes(docId), 'a document id appears in the metrics');
    assert.ok((sample(text, 'quire_http_requests_total{method="GET",route="/metrics",status="4xx"}') ?? 0) >= 1, 'refused scrapes are counted');
    assert.equal(sample(text, 'quire_jobs_total{kind="document",pipeline="ingest",state="completed"}'), 1);
    for (const stage of ['read', 'chunk', 'index']) {
      assert.equal(sample(text, `quire_stage_duration_seconds_count{pipeline="ingest",stage="${stage}",status="completed"}`), 1, `stage ${stage}`);
      assert.ok((sample(text, `quire_stage_duration_seconds_sum{pipeline="ingest",stage="${stage}",status="completed"}`) ?? -1) >= 0);
    }
    const usage = await s.runtime.store.repo('usage').find({ resource_id: docId, operation: 'parse' });
    assert.equal(usage.length, 1);
    assert.ok(usage[0]!.credits > 0);
    assert.equal(sample(text, 'quire_credits_charged_total{operation="parse"}'), usage[0]!.credits, `pages ${pages}`);
    assert.equal(sample(text, 'quire_queue_depth{stage="ingest.read"}'), 0);
    assert.match(text, /^quire_ocr_pages_total \d+$/m);
    assert.match(text, /^# TYPE quire_plugin_failures_total counter$/m);
  });
});

describe('a worker with QUIRE_WORKER_HEALTH_PORT', { timeout: 240_000 }, () => {
  let s: TestServer;
  let worker: WorkerProcess;
  let base: string;
  before(async () => {
    s = await startTestServer({ env: { QUIRE_RUN_STAGES: 'false' } });
    const port = await freePort();
    worker = await startWorker(s, { QUIRE_WORKER_HEALTH_PORT: String(port), QUIRE_METRICS: 'on', HOST: '127.0.0.1' });
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await worker?.stop();
    await s?.close();
  });

  test('answers /healthz, /readyz and (QUIRE_METRICS=on) /metrics on its own port', async () => {
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok', worker: worker.id });
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual((await ready.json()).checks, { database: { ok: true }, queue: { ok: true } });
    const metrics = await fetch(`${base}/metrics`);
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    assert.match(text, /^# TYPE quire_stage_duration_seconds histogram$/m);
    assert.match(text, /^quire_queue_depth\{stage="ingest\.read"\} \d+$/m);
    assert.equal((await fetch(`${base}/nope`)).status, 404);
  });
});
