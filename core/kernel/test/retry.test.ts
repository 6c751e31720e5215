import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PipelineRuntime, isRetryable, transient } from '../src/pipeline/runtime.js';
import { InProcessTransport } from '../src/transport/inprocess.js';
import { errors } from '../src/errors/index.js';
import { MemoryStore, newJob } from './pipeline-memory-store.js';

test('errors are classified as permanent or transient', () => {
  const io = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  const fetchFailed = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
  for (const e of [io, busy, fetchFailed, errors.upstream('LLM answered 503'), errors.unavailable('queue down'), transient(new Error('x')), new Error('unknown')]) {
    assert.equal(isRetryable(e), true, `${e.message} should be transient`);
  }
  const bug = new TypeError("Cannot read properties of undefined (reading 'length')");
  for (const e of [errors.processing('pdf could not be read: encrypted'), errors.unprocessable('decompressed size exceeds 512 MB'), errors.validation('bad'), errors.processing('Parsing timed out after 600 s'), bug, new RangeError('Invalid array length')]) {
    assert.equal(isRetryable(e), false, `${e.message} should be permanent`);
  }
});

for (const [name, make, expected] of [
  ['a permanent reader error fails the job at the first attempt', () => errors.processing('docx could not be read: the file is damaged'), 1],
  ['a time limit is not multiplied by retries', () => errors.processing('Parsing timed out after 600 s'), 1],
  ['an I/O error is retried up to the attempt limit', () => Object.assign(new Error('read EIO'), { code: 'EIO' }), 3],
] as const) {
  test(name, async () => {
    const store = new MemoryStore();
    const transport = new InProcessTransport();
    const runtime = new PipelineRuntime({ store, transport, maxAttempts: 3, retryDelayMs: () => 5, pollMs: 20 });
    let runs = 0;
    runtime.define({ name: 'p', stages: [{ name: 'read', async run() { runs++; throw make(); } }] });
    await runtime.consume();
    try {
      const job = await newJob(store);
      await runtime.start(job.id, 'p', {});
      const done = await runtime.waitFor(job.id, 60_000);
      assert.equal(done.status, 'failed');
      assert.equal(runs, expected);
    } finally {
      await runtime.stop();
      await transport.close();
    }
  });
}
