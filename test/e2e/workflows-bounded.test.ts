// @services: bounded workflow runs over RabbitMQ shared by two processes
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AMQP_URL, MYSQL_URL, startTestServer, until } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import type { Receiver } from '../helpers/receiver.js';
import type { TestServer } from '../helpers/server.js';
import { startWorker } from '../helpers/workers.js';
import type { WorkerProcess } from '../helpers/workers.js';
import { deleteRabbitPrefix } from '../helpers/leftovers.mjs';

/**
 * No template or expression of a workflow can stall the API: they are evaluated in isolates that are killed
 * past the time limit (2 s by default), with a size limit on what they produce, and their regexes run on a
 * linear-time engine (RE2). While a hostile step runs, /healthz answers at once; the step fails with a clear
 * error. Workflow steps run as pipeline stages: on a worker process when the API runs no stages.
 */

/** three {{#each}} deep over `items`: 400³ = 64 million iterations */
const NESTED_EACH = '{{#each items}}{{#each ../items}}{{#each ../../items}}{{this}}{{/each}}{{/each}}{{/each}}';
const ITEMS = Array.from({ length: 400 }, (_, i) => i);
/** what /healthz may take on a loaded 2-core machine (a blocked event loop took 35 s) */
const HEALTHZ_MS = 10_000;
/** how long a hostile step may take to fail: the 2 s limit, an isolate's start and the job's round trips */
const FAIL_WITHIN_MS = 90_000;
const LIMIT_ERROR = /Evaluation timeout|larger than|more memory/;

const executionOf = async (s: TestServer, wfId: string, id: string) => (await s.json(`/api/workflows/${wfId}/executions?execution_id=${id}`)).body.executions[0];
/** The execution once it is no longer running. */
const ended = (s: TestServer, wfId: string, id: string, ms = FAIL_WITHIN_MS) =>
  until(`execution ${id} to end`, async () => {
    const x = await executionOf(s, wfId, id);
    return x && x.status !== 'running' ? x : null;
  }, ms);

describe('workflows: bounded templates and expressions', { timeout: 300_000 }, () => {
  let s: TestServer;
  let rx: Receiver;

  before(async () => {
    s = await startTestServer();
    rx = await startReceiver();
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  async function workflow(body: Record<string, unknown>) {
    const r = await s.json('/api/workflows', { method: 'POST', json: body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.workflow;
  }
  async function hook(path: string) {
    const r = await s.json('/api/workflows/integrations', { method: 'POST', json: { name: path, integration_type: 'webhook', config: { url: `${rx.base}${path}` } } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.integration.id as string;
  }

  /**
   * Polls /healthz until the execution is over: every answer must come within HEALTHZ_MS, and the execution
   * must end within FAIL_WITHIN_MS of `started`. Returns the finished execution.
   */
  async function watch(wfId: string, executionId: string, started: number) {
    let polls = 0;
    for (;;) {
      const t0 = performance.now();
      const h = await s.json('/healthz', { key: null });
      const took = Math.round(performance.now() - t0);
      polls++;
      assert.equal(h.status, 200);
      assert.ok(took <= HEALTHZ_MS, `/healthz took ${took} ms while the step ran (poll ${polls})`);
      const x = await executionOf(s, wfId, executionId);
      if (x && x.status !== 'running') {
        assert.ok(polls >= 2, 'polled while the step ran');
        return x;
      }
      assert.ok(Date.now() - started < FAIL_WITHIN_MS, `the execution is still running after ${FAIL_WITHIN_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test('an integration template that nests {{#each}} three deep over 400 items fails its step (execute and webhook URL); /healthz stays responsive', async () => {
    const integrationId = await hook('/nested');
    const wf = await workflow({ name: 'nested each', trigger_type: 'webhook', definition: { steps: [{ id: 'send', type: 'integration', config: { integration_id: integrationId, template: `{"all": "${NESTED_EACH}"}` } }] } });
    const webhookPath = String(wf.trigger_config.webhook_url).slice(s.url.length);
    for (const fire of [
      () => s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { items: ITEMS } } }),
      () => s.json(webhookPath, { method: 'POST', key: null, json: { items: ITEMS } }),
    ]) {
      const started = Date.now();
      const r = await fire();
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const x = await watch(wf.id, r.body.execution_id, started);
      assert.equal(x.status, 'failed', JSON.stringify(x).slice(0, 500));
      assert.equal(x.execution_log[0].status, 'failed');
      assert.match(x.execution_log[0].error, LIMIT_ERROR);
      assert.match(x.error, /Step send \(integration\) failed/);
    }
    assert.equal(rx.hits('/nested').length, 0, 'nothing was sent');
  });

  test('a {{…}} in a step\'s document_id that loops for ever fails its step the same way', async () => {
    const wf = await workflow({ name: 'document id', definition: { steps: [{ id: 'parse', type: 'parse', config: { document_id: NESTED_EACH } }] } });
    const started = Date.now();
    const r = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { items: ITEMS } } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const x = await watch(wf.id, r.body.execution_id, started);
    assert.equal(x.status, 'failed');
    assert.match(x.execution_log[0].error, LIMIT_ERROR);
  });

  test('a catastrophic regex runs in linear time; /healthz stays responsive', async () => {
    const wf = await workflow({ name: 'redos', trigger_type: 'webhook', definition: { steps: [{ id: 're', type: 'transform', config: { mapping: { redos: '$contains("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)', plain: '$contains("aaaa", /^(a+)+$/)' } } }] } });
    const started = Date.now();
    const r = await s.json(String(wf.trigger_config.webhook_url).slice(s.url.length), { method: 'POST', key: null, json: {} });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const x = await watch(wf.id, r.body.execution_id, started);
    // completed: a backtracking engine needs 2^36 steps for it and would have been stopped at the 2 s limit
    assert.equal(x.status, 'completed', JSON.stringify(x));
    assert.deepEqual(x.execution_log[0].output, { redos: false, plain: true });
  });

  test('a regex RE2 cannot run (backreference, lookahead) is refused: 400 naming it at save, a failed step when built at run time', async () => {
    for (const expression of ['$match(name, /(a)\\1/)', '$replace(name, /a(?=b)/, "x")']) {
      const r = await s.json('/api/workflows', { method: 'POST', json: { name: 'backref', definition: { steps: [{ id: 't', type: 'transform', config: { expression } }] } } });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, /regular expression \/.+\/ is not supported/);
      assert.ok(r.body.error.message.includes(expression.match(/\/(.+)\//)![1]!), r.body.error.message);
      assert.deepEqual(r.body.error.details.map((d: any) => d.field), ['definition.steps.0.config.expression']);
    }
    // a pattern only $eval sees is refused when it runs
    const wf = await workflow({ name: 'eval', definition: { steps: [{ id: 't', type: 'transform', config: { expression: '$eval(code)' } }] } });
    const run = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { code: '$match("aa", /(a)\\1/)' } } });
    const x = await ended(s, wf.id, run.body.execution_id);
    assert.equal(x.status, 'failed');
    assert.match(x.execution_log[0].error, /regular expression \/\(a\)\\+1\/ is not supported/);
  });

  test('a template whose blocks nest thousands deep is refused at once when saved (workflow step, generation template), not parsed for seconds', async () => {
    const chained = `{{#if a}}${'{{else if b}}'.repeat(7000)}{{/if}}`;
    const nested = `${'{{#each a}}'.repeat(4500)}${'{{/each}}'.repeat(4500)}`;
    const integrationId = await hook('/deep');
    for (const [path, body, field] of [
      ['/api/workflows', { name: 'deep', definition: { steps: [{ id: 'send', type: 'integration', config: { integration_id: integrationId, template: chained } }] } }, 'definition.steps.0.config.template'],
      ['/api/workflows', { name: 'deep', definition: { steps: [{ id: 'send', type: 'integration', config: { integration_id: integrationId, template: nested } }] } }, 'definition.steps.0.config.template'],
      ['/api/generate/templates', { name: 'deep', template_prompt: chained, output_format: 'markdown' }, 'template_prompt'],
      ['/api/generate/run', { template_prompt: nested, output_format: 'markdown' }, 'template_prompt'],
    ] as const) {
      const t0 = performance.now();
      const r = await s.json(path, { method: 'POST', json: body });
      const took = performance.now() - t0;
      assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, /nest more than 50 deep/);
      assert.deepEqual(r.body.error.details.map((d: any) => d.field), [field]);
      assert.ok(took < HEALTHZ_MS, `${path} took ${Math.round(took)} ms`);
    }
    // nesting within the bound is still a template
    const ok = await s.json('/api/workflows', { method: 'POST', json: { name: 'fine', definition: { steps: [{ id: 'send', type: 'integration', config: { integration_id: integrationId, template: `${'{{#each a}}'.repeat(50)}x${'{{/each}}'.repeat(50)}` } }] } } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  test('an expression whose result is larger than 1 MB fails its step with the limit', async () => {
    const wf = await workflow({ name: 'big', definition: { steps: [{ id: 'big', type: 'transform', config: { expression: '$pad("", 2000000, "x")' } }] } });
    const run = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: {} } });
    const x = await ended(s, wf.id, run.body.execution_id);
    assert.equal(x.status, 'failed');
    assert.match(x.execution_log[0].error, /larger than 1,000,000 characters/);
  });

  test('regex functions, mappings, conditions and templates give the results they gave on the event loop', async () => {
    const integrationId = await hook('/normal');
    const wf = await workflow({
      name: 'normal',
      definition: {
        steps: [
          { id: 'shape', type: 'transform', config: { mapping: { digits: '$match(ref, /\\d+/).match', swapped: '$replace(name, /(\\w+) (\\w+)/, "$2 $1")', parts: '$split(ref, /-/)', upper: '$uppercase(name)', hasInv: '$contains(ref, /inv/i)', missing: 'nothing.here' } } },
          { id: 'check', type: 'condition', config: { expression: 'hasInv and $count(parts) = 3' } },
          { id: 'send', type: 'integration', config: { integration_id: integrationId, template: '{"name": "{{swapped}}", "digits": {{json digits}}, "note": "{{note}}"}' } },
        ],
      },
    });
    const run = await s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { ref: 'INV-2024-77', name: 'Ada Lovelace', note: 'say "hi"\nthen go' } } });
    const x = await ended(s, wf.id, run.body.execution_id, 60_000);
    assert.equal(x.status, 'completed', JSON.stringify(x));
    assert.deepEqual(x.execution_log[0].output, { digits: ['2024', '77'], swapped: 'Lovelace Ada', parts: ['INV', '2024', '77'], upper: 'ADA LOVELACE', hasInv: true });
    assert.deepEqual(x.execution_log[1].output, { result: true, next: 'continue' });
    assert.deepEqual(JSON.parse(rx.hits('/normal')[0]!.body), { name: 'Lovelace Ada', digits: ['2024', '77'], note: 'say "hi"\nthen go' });
  });
});

const SKIP = MYSQL_URL && AMQP_URL ? false : 'needs MariaDB and RabbitMQ shared by two processes: set QUIRE_TEST_MYSQL_URL and QUIRE_TEST_AMQP_URL (CI pass 2)';

describe('workflow steps on a worker process', { skip: SKIP, timeout: 240_000 }, () => {
  let s: TestServer;
  let worker: WorkerProcess;
  before(async () => {
    s = await startTestServer({ env: { QUIRE_RUN_STAGES: 'false' } });
    worker = await startWorker(s);
  });
  after(async () => {
    const prefix = s?.runtime.config.queue.prefix;
    await worker?.stop();
    await s?.close();
    if (prefix && AMQP_URL) await deleteRabbitPrefix(AMQP_URL, prefix).catch(() => {});
  });

  test('an API process that runs no stages leaves the steps to the worker, also those of a webhook trigger', async () => {
    const r = await s.json('/api/workflows', { method: 'POST', json: { name: 'on the worker', trigger_type: 'webhook', definition: { steps: [{ id: 'double', type: 'transform', config: { expression: 'n * 2' } }] } } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const wf = r.body.workflow;
    for (const fire of [
      () => s.json(`/api/workflows/${wf.id}/execute`, { method: 'POST', json: { trigger_data: { n: 21 } } }),
      () => s.json(String(wf.trigger_config.webhook_url).slice(s.url.length), { method: 'POST', key: null, json: { n: 21 } }),
    ]) {
      const run = await fire();
      assert.equal(run.status, 202, JSON.stringify(run.body));
      const x = await ended(s, wf.id, run.body.execution_id, 60_000);
      assert.equal(x.status, 'completed', JSON.stringify(x));
      assert.equal(x.execution_log[0].output, 42);
      const stages = await s.runtime.store.repo('job_stages').find({ job_id: run.body.execution_id });
      assert.deepEqual(stages.map((st) => [st.stage, st.worker]), [['workflow.run', worker.id]]);
      assert.notEqual(worker.id, s.runtime.workerId);
    }
  });
});
