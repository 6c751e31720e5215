// The fence an erasure puts on a job (error ERASED, or the job row deleted) as the pipeline runtime sees it:
// a stage run or completion hook that ends on a fenced job calls the pipeline's discard, wherever it runs; no
// later stage or hook runs for it; a job that was never fenced never hears of discard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PipelineRuntime, ERASED, type PipelineDefinition } from '../src/pipeline/runtime.js';
import { InProcessTransport } from '../src/transport/inprocess.js';
import type { JobRecord } from '../src/model/records.js';
import { MemoryStore, newJob } from './pipeline-memory-store.js';

function setup() {
  const store = new MemoryStore();
  const transport = new InProcessTransport();
  const runtime = new PipelineRuntime({ store, transport, maxAttempts: 3, retryDelayMs: () => 5, pollMs: 20, leaseMs: 5000 });
  return { store, runtime, close: async () => { await runtime.stop(); await transport.close(); } };
}

/** A gate the test opens: `reached` settles when the code under test arrives at it. */
function gate() {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (reach = r));
  return { open, reached, wait: () => (reach(), opened) };
}

/**
 * A two-stage pipeline whose first stage waits at `hold` (deaf to cancellation) and then "writes" (adds to
 * `written`); discard calls and hooks are recorded.
 */
function heldPipeline(hold: ReturnType<typeof gate>, extra: Partial<PipelineDefinition> = {}) {
  const written = new Set<string>();
  const discarded: { id: string; gone: boolean; error: string | null }[] = [];
  const ran: string[] = [];
  const completed: string[] = [];
  const def: PipelineDefinition = {
    name: 'doc',
    stages: [
      {
        name: 'read',
        async run(ctx) {
          ran.push('read');
          await hold.wait();
          written.add(ctx.job.id);
          return {};
        },
      },
      { name: 'index', run: async () => void ran.push('index') },
    ],
    onComplete: async (job) => void completed.push(job.id),
    discard: async (job, gone) => {
      discarded.push({ id: job.id, gone, error: job.error });
      written.delete(job.id);
    },
    ...extra,
  };
  return { def, written, discarded, ran, completed };
}

/** What an erasure commits first: the job fails with ERASED. */
const erase = (store: MemoryStore, id: string) => store.repo('jobs').update(id, { status: 'failed', error: ERASED, completed_at: new Date(), updated_at: new Date() });

async function settledStage(store: MemoryStore, jobId: string, stage: string) {
  for (let i = 0; i < 500; i++) {
    const row = await store.repo('job_stages').findOne({ job_id: jobId, stage });
    if (row && row.status !== 'running') return row;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`stage ${stage} of ${jobId} did not settle`);
}

test('a stage that ends after its job was erased: what it wrote is discarded, no later stage runs', async () => {
  const { store, runtime, close } = setup();
  const hold = gate();
  const p = heldPipeline(hold);
  runtime.define(p.def);
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'doc');
  await hold.reached;
  await erase(store, job.id);
  hold.open();
  await settledStage(store, job.id, 'doc.read');
  await runtime.settle([job.id], 5000);
  assert.deepEqual(p.discarded, [{ id: job.id, gone: false, error: ERASED }]);
  assert.equal(p.written.size, 0, 'what the stage wrote is gone');
  assert.deepEqual(p.ran, ['read']);
  assert.deepEqual(p.completed, []);
  await close();
});

// an erasure deletes the job's stage rows with it: the run's own row is then gone too
for (const withStages of [false, true]) {
  test(`a last stage that ends after its job${withStages ? ' and its stage rows were' : ' was'} deleted: discard hears the job as it last read it, gone`, async () => {
    const { store, runtime, close } = setup();
    const hold = gate();
    const p = heldPipeline(hold);
    // one stage only: the completion is the path that checks
    p.def.stages = [p.def.stages[0]!];
    runtime.define(p.def);
    await runtime.consume();
    const job = await newJob(store);
    await runtime.start(job.id, 'doc');
    await hold.reached;
    if (withStages) await store.repo('job_stages').delete({ job_id: job.id });
    await store.repo('jobs').delete(job.id);
    hold.open();
    await runtime.settle([job.id], 5000);
    assert.deepEqual(p.discarded, [{ id: job.id, gone: true, error: null }]);
    assert.equal(p.written.size, 0);
    assert.deepEqual(p.completed, []);
    await close();
  });
}

test('a completion hook under way when the job is erased: what it and the stages wrote is discarded after it', async () => {
  const { store, runtime, close } = setup();
  const open = gate();
  open.open();
  const inHook = gate();
  const p = heldPipeline(open);
  const hooked: string[] = [];
  p.def.stages = [p.def.stages[0]!];
  p.def.onComplete = async (job: JobRecord) => {
    await inHook.wait();
    hooked.push(job.id);
    p.written.add(`${job.id}:link`);
  };
  const discard = p.def.discard!;
  p.def.discard = async (job, gone) => {
    p.written.delete(`${job.id}:link`);
    await discard(job, gone);
  };
  runtime.define(p.def);
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'doc');
  await inHook.reached;
  assert.equal((await store.repo('jobs').get(job.id))!.status, 'completed');
  // an erasure fences finished jobs too
  await store.repo('jobs').update(job.id, { error: ERASED });
  inHook.open();
  await runtime.settle([job.id], 5000);
  assert.deepEqual(hooked, [job.id]);
  assert.deepEqual(p.discarded, [{ id: job.id, gone: false, error: ERASED }]);
  assert.equal(p.written.size, 0);
  await close();
});

test('a job erased after it completed and before its completion hook: the hook does not run', async () => {
  const { store, runtime, close } = setup();
  const open = gate();
  open.open();
  const p = heldPipeline(open);
  p.def.stages = [p.def.stages[0]!];
  // fenced in the completing transaction's wake: onCompleting is the last thing before the hook
  p.def.onCompleting = async (tx, job) => void (await tx.repo('jobs').update(job.id, { error: ERASED }));
  runtime.define(p.def);
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'doc');
  await runtime.waitFor(job.id, 5000);
  await runtime.settle([job.id], 5000);
  assert.deepEqual(p.completed, []);
  assert.deepEqual(p.discarded, [{ id: job.id, gone: false, error: ERASED }]);
  await close();
});

test('a job nobody fenced never hears of discard', async () => {
  const { store, runtime, close } = setup();
  const open = gate();
  open.open();
  const p = heldPipeline(open);
  runtime.define(p.def);
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'doc');
  assert.equal((await runtime.waitFor(job.id, 5000)).status, 'completed');
  await runtime.settle([job.id], 5000);
  assert.deepEqual(p.discarded, []);
  assert.deepEqual(p.completed, [job.id]);
  assert.equal(p.written.size, 1);
  await close();
});
