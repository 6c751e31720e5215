// @services: redelivery over RabbitMQ when a worker dies
// A worker dies (SIGKILL) after taking a stage message and before acking it: another worker gets the
// redelivery and the job completes exactly once. Real RabbitMQ, real store (SQLite file shared by the processes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PipelineRuntime } from '@quire/core';
import { RabbitTransport } from '@quire/plugin-transport-rabbitmq';
import { AMQP_URL, SKIP, counter, queueDepth, crashPipeline, deletePrefixes, newJob, openStore, tempDir, testPrefix, unique, until, waitForLine } from './rabbitmq-helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const LEASE_MS = 1000;

function worker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=quire-source', '--import', 'tsx', path.join(here, 'rabbitmq-worker.ts')], {
    cwd: path.resolve(here, '../..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return child;
}

test('a worker killed before acking: the redelivery completes the job exactly once', { skip: SKIP, timeout: 60_000 }, async () => {
  const url = AMQP_URL!;
  const dir = tempDir();
  const prefix = testPrefix();
  const pipeline = unique('crash');
  const sideFile = path.join(dir, 'side-effects.log');
  fs.writeFileSync(sideFile, '');
  const store = await openStore(dir);
  const transport = new RabbitTransport({ url, prefix });
  await transport.connect(5000);
  // the test process only publishes and watches; the workers consume
  const runtime = new PipelineRuntime({ store, transport });
  runtime.define(crashPipeline(pipeline, { sideFile, worker: 'test', block: false, store }));
  const common = { AMQP_URL: url, PREFIX: prefix, PIPELINE: pipeline, DATA_DIR: dir, SIDE_FILE: sideFile, LEASE_MS: String(LEASE_MS) };
  const children: ChildProcess[] = [];
  const stages = ['prepare', 'work', 'finish'].map((s) => `${pipeline}.${s}`);
  let retryQueues: string[] = [];
  try {
    const a = worker({ ...common, WORKER_ID: 'worker-A', MODE: 'block' });
    children.push(a);
    await waitForLine(a, /^READY$/);
    const job = await newJob(store);
    await runtime.start(job.id, pipeline, { n: 21 });
    await waitForLine(a, new RegExp(`^TOOK ${job.id}$`));
    const exited = new Promise((r) => a.once('exit', r));
    a.kill('SIGKILL');
    await exited;
    const afterKill = (await store.repo('jobs').get(job.id))!;
    assert.equal(afterKill.status, 'processing');
    const held = (await store.repo('job_stages').findOne({ job_id: job.id, stage: `${pipeline}.work` }))!;
    assert.equal(held.status, 'running');
    assert.equal(held.worker, 'worker-A');

    const b = worker({ ...common, WORKER_ID: 'worker-B', MODE: 'normal' });
    children.push(b);
    await waitForLine(b, /^READY$/);
    const t0 = Date.now();
    const done = await runtime.waitFor(job.id, 30_000);
    const recoveredInMs = Date.now() - t0;

    assert.equal(done.status, 'completed', `job ${done.status}: ${done.error}`);
    assert.deepEqual(done.result, { answer: 42 });
    assert.equal(done.progress, 100);
    // the work stage publishes its output before it marks its row, so the job may finish a moment earlier
    await until('work row settled', async () => (await store.repo('job_stages').findOne({ job_id: job.id, stage: `${pipeline}.work` }))!.status !== 'running');
    const work = (await store.repo('job_stages').findOne({ job_id: job.id, stage: `${pipeline}.work` }))!;
    assert.equal(work.status, 'completed');
    assert.equal(work.worker, 'worker-B');
    assert.equal(work.attempts, 2);
    // onComplete runs right after the job row turns completed: give it a moment
    await until('onComplete', async () => (await counter(store, `crash:${job.id}:complete`)) >= 1);
    const lines = fs.readFileSync(sideFile, 'utf8').trim().split('\n');
    assert.deepEqual(lines, ['start worker-A', 'start worker-B', 'done worker-B', 'complete worker-B']);
    assert.equal(await counter(store, `crash:${job.id}:work`), 1, 'the stage body ran to completion once');
    assert.equal(await counter(store, `crash:${job.id}:complete`), 1, 'onComplete ran once');

    // nothing left behind: every stage queue drains (a duplicate, if any, is acked by B as already done)
    await until('stage queues to drain', async () => (await Promise.all(stages.map((st) => transport.depth(st)))).every((d) => d === 0), 10_000);
    const stopped = new Promise((r) => b.once('exit', r));
    const queuesLine = waitForLine(b, /^QUEUES /);
    b.kill('SIGTERM');
    retryQueues = JSON.parse((await queuesLine).slice('QUEUES '.length));
    await stopped;
    for (const s of stages) assert.equal(await transport.depth(s), 0, `${s} is empty`);
    for (const q of retryQueues) assert.equal((await queueDepth(url, q)), 0, `${q} is empty`);
    assert.equal(await transport.deadDepth(), 0);
    console.log(`# crash test: worker B completed the job ${recoveredInMs} ms after starting (lease ${LEASE_MS} ms); retry queues used: ${retryQueues.join(', ')}`);
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await transport.close();
    await store.close();
    await deletePrefixes(url, [...stages.map((s) => transport.names.stage(s)), ...retryQueues, transport.names.dead], [transport.names.events]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
