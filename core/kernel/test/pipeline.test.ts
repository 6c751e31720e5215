import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PipelineRuntime, NonRetryableError, JobTimeoutError, failedStage, jobError, type PipelineDefinition, type StageDefinition } from '../src/pipeline/runtime.js';
import { InProcessTransport } from '../src/transport/inprocess.js';
import { QuireError } from '../src/errors/index.js';
import type { JobRecord } from '../src/model/records.js';
import { MemoryStore, newJob } from './pipeline-memory-store.js';

function setup(opts: { maxAttempts?: number; leaseMs?: number; concurrency?: number; claims?: 'strict' | 'lenient' } = {}) {
  const store = new MemoryStore(opts.claims);
  const transport = new InProcessTransport();
  const runtime = new PipelineRuntime({ store, transport, maxAttempts: opts.maxAttempts ?? 3, retryDelayMs: () => 5, pollMs: 20, leaseMs: opts.leaseMs ?? 5000, concurrency: opts.concurrency });
  return { store, transport, runtime, close: async () => { await runtime.stop(); await transport.close(); } };
}

function hooks() {
  const calls = { start: [] as string[], complete: [] as [string, Record<string, unknown>][], fail: [] as [string, string][] };
  return {
    calls,
    onStart: async (job: JobRecord) => void calls.start.push(job.id),
    onComplete: async (job: JobRecord, out: Record<string, unknown>) => void calls.complete.push([job.id, out]),
    onFail: async (job: JobRecord, e: Error) => void calls.fail.push([job.id, e.message]),
  };
}

test('a 3-stage pipeline passes payloads along, reports progress and completes once', async () => {
  const { store, transport, runtime, close } = setup();
  const h = hooks();
  const seen: { stage: string; payload: Record<string, unknown>; status: string }[] = [];
  const progressSeen: number[] = [];
  const stage = (name: string, out: (p: Record<string, unknown>) => Record<string, unknown>): StageDefinition => ({
    name,
    async run(ctx) {
      seen.push({ stage: name, payload: ctx.payload, status: ctx.job.status });
      await ctx.progress(0.5);
      progressSeen.push((await store.repo('jobs').get(ctx.job.id))!.progress);
      return out(ctx.payload);
    },
  });
  runtime.define({
    name: 'doc',
    stages: [stage('read', (p) => ({ n: (p.n as number) + 1, read: true })), stage('chunk', (p) => ({ ...p, n: (p.n as number) * 10 })), stage('index', (p) => ({ total: p.n }))],
    ...h,
  });
  assert.deepEqual(runtime.pipelines(), ['doc']);
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'doc', { n: 1 });
  const done = await runtime.waitFor(job.id, 60_000);

  assert.equal(done.status, 'completed');
  assert.equal(done.progress, 100);
  assert.deepEqual(done.result, { total: 20 });
  assert.ok(done.completed_at instanceof Date);
  assert.equal(done.error, null);
  assert.deepEqual(seen.map((s) => [s.stage, s.payload]), [['read', { n: 1 }], ['chunk', { n: 2, read: true }], ['index', { n: 20, read: true }]]);
  assert.ok(seen.every((s) => s.status === 'processing'));
  assert.deepEqual(progressSeen, [16, 50, 83]);
  assert.deepEqual(h.calls.start, [job.id]);
  assert.deepEqual(h.calls.complete, [[job.id, { total: 20 }]]);
  assert.deepEqual(h.calls.fail, []);
  const rows = await store.repo('job_stages').find({ job_id: job.id });
  assert.deepEqual(rows.map((r) => [r.stage, r.status, r.attempts]).sort(), [['doc.chunk', 'completed', 1], ['doc.index', 'completed', 1], ['doc.read', 'completed', 1]]);
  for (const s of ['doc.read', 'doc.chunk', 'doc.index']) assert.equal(await transport.depth(s), 0);
  await close();
});

test('start() leaves the job pending until a consumer takes it', async () => {
  const { store, runtime, close } = setup();
  runtime.define({ name: 'p', stages: [{ name: 'a', run: async () => ({}) }] });
  const job = await newJob(store);
  await runtime.start(job.id, 'p');
  assert.equal((await store.repo('jobs').get(job.id))!.status, 'pending');
  await assert.rejects(runtime.waitFor(job.id, 60), JobTimeoutError);
  await runtime.consume();
  assert.equal((await runtime.waitFor(job.id, 60_000)).status, 'completed');
  await assert.rejects(runtime.start(job.id, 'nope'), /unknown pipeline "nope"; known pipelines: p/);
  await assert.rejects(runtime.consume(['p.zzz']), /unknown stage queue/);
  await close();
});

test('a flaky stage is retried with the attempt counter and then succeeds', async () => {
  const { store, runtime, close } = setup({ maxAttempts: 3 });
  const h = hooks();
  const attempts: number[] = [];
  runtime.define({
    name: 'flaky',
    stages: [
      { name: 'one', run: async () => ({ x: 1 }) },
      {
        name: 'two',
        async run(ctx) {
          attempts.push(ctx.message.attempt);
          assert.deepEqual(ctx.payload, { x: 1 });
          if (ctx.message.attempt < 3) throw new Error(`transient ${ctx.message.attempt}`);
          return { ok: true };
        },
      },
    ],
    ...h,
  });
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'flaky');
  const done = await runtime.waitFor(job.id, 60_000);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result, { ok: true });
  assert.deepEqual(attempts, [1, 2, 3]);
  const row = (await store.repo('job_stages').findOne({ job_id: job.id, stage: 'flaky.two' }))!;
  assert.equal(row.status, 'completed');
  assert.equal(row.attempts, 3);
  assert.equal(h.calls.complete.length, 1);
  assert.equal(h.calls.start.length, 1);
  assert.equal(h.calls.fail.length, 0);
  await close();
});

test('a stage failing every attempt fails the job after maxAttempts, onFail once', async () => {
  const { store, transport, runtime, close } = setup({ maxAttempts: 3 });
  const h = hooks();
  let runs = 0;
  let lastRan = false;
  runtime.define({
    name: 'bad',
    stages: [
      { name: 'boom', run: async () => { runs++; throw new Error('disk on fire'); } },
      { name: 'never', run: async () => { lastRan = true; } },
    ],
    ...h,
  });
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'bad');
  const done = await runtime.waitFor(job.id, 60_000);
  assert.equal(done.status, 'failed');
  assert.equal(done.error, 'disk on fire');
  assert.equal(runs, 3);
  assert.equal(lastRan, false);
  await sleep(30);
  assert.deepEqual(h.calls.fail, [[job.id, 'disk on fire']]);
  assert.equal(h.calls.complete.length, 0);
  const row = (await store.repo('job_stages').findOne({ job_id: job.id, stage: 'bad.boom' }))!;
  assert.equal(row.status, 'failed');
  assert.equal(row.error, 'disk on fire');
  assert.equal(await transport.depth('bad.boom'), 0);
  assert.equal(transport.deadLetters().length, 0, 'the runtime settles the final attempt itself');
  await close();
});

test('NonRetryableError and 4xx QuireErrors fail the job at once', async () => {
  const { store, runtime, close } = setup({ maxAttempts: 5 });
  const h = hooks();
  let runs = 0;
  runtime.define({ name: 'nr', stages: [{ name: 's', run: async () => { runs++; throw new NonRetryableError('not a PDF'); } }], ...h });
  runtime.define({ name: 'q4', stages: [{ name: 's', run: async () => { runs++; throw new QuireError('UNSUPPORTED_FORMAT', 'bad format'); } }], ...h });
  await runtime.consume();
  const a = await newJob(store);
  const b = await newJob(store);
  await runtime.start(a.id, 'nr');
  await runtime.start(b.id, 'q4');
  const fa = await runtime.waitFor(a.id, 60_000);
  const fb = await runtime.waitFor(b.id, 60_000);
  assert.equal(fa.error, 'not a PDF');
  assert.equal(fb.error, 'bad format');
  // a waiting caller, maybe in another process, gets the stage's error back with its code
  const eb = jobError(fb) as QuireError;
  assert.ok(eb instanceof QuireError);
  assert.deepEqual([eb.code, eb.status, eb.message, failedStage(fb)], ['UNSUPPORTED_FORMAT', 422, 'bad format', 's']);
  const ea = jobError(fa);
  assert.ok(!(ea instanceof QuireError));
  assert.equal(ea.message, 'not a PDF');
  assert.equal(failedStage(fa), 's');
  assert.equal(runs, 2);
  assert.equal(h.calls.fail.length, 2);
  await close();
});

test('cancel aborts the running stage, fails the job with "Cancelled" and runs nothing after', async () => {
  const { store, runtime, close } = setup();
  const h = hooks();
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  let abortedWith: unknown;
  let nextRan = false;
  runtime.define({
    name: 'slow',
    stages: [
      {
        name: 'wait',
        run: (ctx) =>
          new Promise((_, reject) => {
            started();
            ctx.signal.addEventListener('abort', () => { abortedWith = ctx.signal.reason; reject(new Error('aborted')); });
          }),
      },
      { name: 'next', run: async () => { nextRan = true; } },
    ],
    ...h,
  });
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'slow');
  await running;
  await runtime.cancel(job.id);
  const done = await runtime.waitFor(job.id, 60_000);
  assert.equal(done.status, 'failed');
  assert.equal(done.error, 'Cancelled');
  await sleep(50);
  assert.equal(abortedWith, 'cancelled');
  assert.equal(nextRan, false);
  assert.deepEqual(h.calls.fail, [[job.id, 'Cancelled']]);
  assert.equal((await store.repo('job_stages').findOne({ job_id: job.id, stage: 'slow.wait' }))!.status, 'failed');
  assert.equal((await store.repo('jobs').get(job.id))!.error, 'Cancelled', 'the aborted stage does not overwrite the error');
  // a cancelled job that had not started is skipped when its message arrives
  const later = await newJob(store, { type: 'slow' });
  await runtime.cancel(later.id); // no stage ran: the pipeline is found from the job type
  await runtime.start(later.id, 'slow');
  await sleep(50);
  assert.equal(await store.repo('job_stages').count({ job_id: later.id }), 0);
  await runtime.cancel(done.id); // no-op on a finished job
  assert.equal(h.calls.fail.length, 2);
  await close();
});

test('a job cancelled by another process is noticed by the running stage', async () => {
  const { store, runtime, close } = setup();
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  runtime.define({ name: 'c', stages: [{ name: 'w', run: (ctx) => new Promise((_, reject) => { started(); ctx.signal.addEventListener('abort', () => reject(new Error('stop'))); }) }] });
  await runtime.consume();
  const job = await newJob(store);
  await runtime.start(job.id, 'c');
  await running;
  await store.repo('jobs').update(job.id, { status: 'failed', error: 'Cancelled' });
  const t0 = Date.now();
  while ((await store.repo('job_stages').findOne({ job_id: job.id }))!.status === 'running') {
    assert.ok(Date.now() - t0 < 30_000, 'stage was not aborted');
    await sleep(10);
  }
  assert.equal((await store.repo('jobs').get(job.id))!.error, 'Cancelled');
  await close();
});

test('duplicate deliveries of a stage run it once', async () => {
  const { store, transport, runtime, close } = setup({ concurrency: 4, leaseMs: 200 });
  const h = hooks();
  let runs = 0;
  runtime.define({ name: 'dup', stages: [{ name: 'a', run: async () => { runs++; await sleep(30); return { v: runs }; } }, { name: 'b', run: async (ctx) => ctx.payload }], ...h });
  await runtime.consume();
  const job = await newJob(store);
  const msg = { id: 'm1', jobId: job.id, pipeline: 'dup', stage: 'a', payload: {}, attempt: 1 };
  await transport.publish(msg);
  await transport.publish(msg);
  await runtime.waitFor(job.id, 60_000);
  await sleep(100);
  assert.equal(runs, 1);
  assert.equal(h.calls.complete.length, 1);
  assert.deepEqual((await store.repo('jobs').get(job.id))!.result, { v: 1 });
  await transport.publish(msg); // after completion: acked and ignored
  const t0 = Date.now();
  while ((await transport.depth('dup.a')) > 0) {
    assert.ok(Date.now() - t0 < 30_000, 'duplicate never settled');
    await sleep(10);
  }
  assert.equal(runs, 1);
  assert.equal(h.calls.complete.length, 1);
  await close();
});

for (const claims of ['strict', 'lenient'] as const) test(`a stage held by a worker that went silent is taken over after the lease (${claims} store)`, async () => {
  const { store, runtime, close } = setup({ leaseMs: 300, claims });
  const h = hooks();
  let runs = 0;
  runtime.define({ name: 'lease', stages: [{ name: 'a', run: async () => { runs++; return { done: true }; } }], ...h });
  // a worker claimed the stage and died: its heartbeat (jobs.updated_at) stops now, and the lease counts from it
  const beat = new Date();
  const job = await newJob(store, { status: 'processing', updated_at: beat });
  await store.claimStage(job.id, 'lease.a', 'dead-worker');
  await runtime.consume();
  await runtime.start(job.id, 'lease');
  const done = await runtime.waitFor(job.id, 60_000);
  assert.equal(done.status, 'completed');
  // a lower bound from the heartbeat holds on a loaded machine (the time to here is not counted twice)
  const waited = Date.now() - beat.getTime();
  assert.ok(waited >= 250, `took over ${waited} ms after the last heartbeat, before the lease ran out`);
  assert.equal(runs, 1);
  assert.equal(h.calls.complete.length, 1);
  const row = (await store.repo('job_stages').findOne({ job_id: job.id }))!;
  assert.equal(row.worker, runtime.workerId);
  assert.equal(row.attempts, 2);
  await close();
});

test('stop() aborts in-flight stages and their messages go back to the queue for the next worker', async () => {
  const store = new MemoryStore();
  const transport = new InProcessTransport();
  const h = hooks();
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const attempts: number[] = [];
  const def = (block: boolean): PipelineDefinition => ({
    name: 'stoppable',
    stages: [{
      name: 'a',
      run: (ctx) => {
        attempts.push(ctx.message.attempt);
        if (!block) return Promise.resolve({ by: 'second' });
        return new Promise((_, reject) => { started(); ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))); });
      },
    }],
    ...h,
  });
  const first = new PipelineRuntime({ store, transport, workerId: 'w1', pollMs: 20 });
  first.define(def(true));
  await first.consume();
  const job = await newJob(store);
  await first.start(job.id, 'stoppable');
  await running;
  await first.stop();
  assert.equal((await store.repo('jobs').get(job.id))!.status, 'processing');
  assert.equal(await transport.depth('stoppable.a'), 1);
  const second = new PipelineRuntime({ store, transport, workerId: 'w2', pollMs: 20 });
  second.define(def(false));
  await second.consume();
  const done = await second.waitFor(job.id, 60_000);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result, { by: 'second' });
  assert.deepEqual(attempts, [1, 1], 'an interrupted delivery does not spend an attempt');
  assert.equal(h.calls.start.length, 1);
  assert.equal(h.calls.complete.length, 1);
  await second.stop();
  await transport.close();
});

test('define() rejects bad names and empty pipelines', () => {
  const { runtime } = setup();
  assert.throws(() => runtime.define({ name: 'a.b', stages: [{ name: 's', run: async () => {} }] }), /must match/);
  assert.throws(() => runtime.define({ name: 'a', stages: [] }), /no stages/);
  assert.throws(() => runtime.define({ name: 'a', stages: [{ name: 's', run: async () => {} }, { name: 's', run: async () => {} }] }), /duplicate stage/);
});

async function twoWorkers(leaseMs = 600) {
  const store = new MemoryStore('lenient');
  const transport = new InProcessTransport();
  const h = hooks();
  const runs = { a: 0, b: 0 };
  const def: PipelineDefinition = {
    name: 'twice',
    stages: [
      { name: 'a', run: async () => { runs.a++; await sleep(150); return { runs: runs.a }; } },
      { name: 'b', run: async (ctx) => { runs.b++; return ctx.payload; } },
    ],
    ...h,
  };
  const workers = ['w1', 'w2'].map((id) => new PipelineRuntime({ store, transport, workerId: id, pollMs: 20, leaseMs, concurrency: 1 }));
  for (const w of workers) { w.define(def); await w.consume(); }
  const job = await newJob(store);
  const msg = { id: 'm', jobId: job.id, pipeline: 'twice', stage: 'a', payload: {}, attempt: 1 };
  const settle = async () => {
    const done = await workers[0]!.waitFor(job.id, 60_000);
    for (const q of ['twice.a', 'twice.b']) while ((await transport.depth(q)) > 0) await sleep(10);
    await sleep(30);
    for (const w of workers) await w.stop();
    await transport.close();
    return done;
  };
  return { store, transport, h, runs, job, msg, settle };
}

test('a duplicate delivered to another worker while the holder is alive waits instead of running twice', async () => {
  const { transport, h, runs, msg, settle } = await twoWorkers();
  await transport.publish(msg);
  await sleep(30);
  await transport.publish(msg); // round-robin: the copy goes to the other worker, which sees a live holder
  const done = await settle();
  assert.equal(done.status, 'completed');
  assert.deepEqual(runs, { a: 1, b: 1 });
  assert.equal(h.calls.complete.length, 1);
});

test('simultaneous duplicates on a store that hands rows over: one result wins, the job completes once', async () => {
  const { store, transport, h, runs, job, msg, settle } = await twoWorkers();
  await transport.publish(msg);
  await transport.publish(msg); // both look before either claims: the second takes the row over
  const done = await settle();
  assert.equal(done.status, 'completed', `${done.error}`);
  assert.equal(runs.b, 1, 'the superseded worker dropped its result');
  assert.equal(h.calls.complete.length, 1);
  const rows = await store.repo('job_stages').find({ job_id: job.id });
  assert.deepEqual(rows.map((r) => [r.stage, r.status]).sort(), [['twice.a', 'completed'], ['twice.b', 'completed']]);
});

test('a stage whose worker died after publishing its output is settled, not run again', async () => {
  const { store, transport, runtime, close } = setup({ leaseMs: 60_000 });
  let runs = 0;
  runtime.define({ name: 'half', stages: [{ name: 'a', run: async () => { runs++; return {}; } }, { name: 'b', run: async () => ({ b: true }) }] });
  const job = await newJob(store, { status: 'processing', updated_at: new Date() });
  await store.claimStage(job.id, 'half.a', 'dead-worker');
  await store.claimStage(job.id, 'half.b', 'dead-worker'); // the next stage had started
  await store.repo('job_stages').update({ job_id: job.id, stage: 'half.b' }, { status: 'completed' });
  await runtime.consume(['half.a']);
  await runtime.start(job.id, 'half');
  while ((await store.repo('job_stages').findOne({ job_id: job.id, stage: 'half.a' }))!.status !== 'completed') await sleep(5);
  assert.equal(runs, 0);
  assert.equal(await transport.depth('half.a'), 0);
  assert.equal(await transport.depth('half.b'), 0, 'no duplicate of the next stage was published');
  await close();
});

test('onCompleting runs in the transaction that completes the job: its writes are there as soon as the job reads completed', async () => {
  const { store, runtime, close } = setup();
  const seen: { status: string | undefined; output: Record<string, unknown> }[] = [];
  let completeHookDone = false;
  runtime.define({
    name: 'charged',
    stages: [{ name: 'only', run: async () => ({ pages: 3 }) }],
    async onCompleting(tx, job, output) {
      // inside the transaction, the job is already completed
      seen.push({ status: (await tx.repo('jobs').get(job.id))?.status, output });
    },
    async onComplete() {
      await sleep(300);
      completeHookDone = true;
    },
  });
  await runtime.consume();
  try {
    const job = await newJob(store);
    await runtime.start(job.id, 'charged', {});
    const done = await runtime.waitFor(job.id, 60_000);
    assert.equal(done.status, 'completed');
    assert.deepEqual(seen, [{ status: 'completed', output: { pages: 3 } }], 'written with the completion, once');
    assert.equal(completeHookDone, false, 'onComplete runs after (and may still be running)');
  } finally {
    await sleep(350);
    await close();
  }
});
