import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PipelineRuntime } from '../src/pipeline/runtime.js';
import { InProcessTransport } from '../src/transport/inprocess.js';
import { MemoryStore, newJob } from './pipeline-memory-store.js';

async function run(fairShare: number) {
  const store = new MemoryStore();
  const transport = new InProcessTransport();
  const runtime = new PipelineRuntime({ store, transport, concurrency: 2, fairShare, retryDelayMs: () => 5, pollMs: 20 });
  const started: string[] = [];
  runtime.define({
    name: 'read',
    stages: [{ name: 'read', async run(ctx) { started.push(ctx.job.user_id); await sleep(150); } }],
  });
  await runtime.consume();
  try {
    // one user queues four large documents, then another user queues one
    const jobs = [];
    for (let i = 0; i < 4; i++) jobs.push(await newJob(store, { user_id: 'heavy' }));
    jobs.push(await newJob(store, { user_id: 'light' }));
    for (const j of jobs) await runtime.start(j.id, 'read', {});
    const t0 = Date.now();
    await runtime.waitFor(jobs[4]!.id, 60_000);
    const lightDone = Date.now() - t0;
    for (const j of jobs) assert.equal((await runtime.waitFor(j.id, 60_000)).status, 'completed');
    return { started, lightDone };
  } finally {
    await runtime.stop();
    await transport.close();
  }
}

test('fair share: one owner cannot hold every stage slot; another owner\'s document starts next', async () => {
  const fair = await run(1);
  assert.equal(fair.started.indexOf('light'), 1, `order with fair share: ${fair.started.join(',')}`);
  const unfair = await run(0);
  assert.ok(unfair.started.indexOf('light') >= 2, `without fair share the light document waits: ${unfair.started.join(',')}`);
});
