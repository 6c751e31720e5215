import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heapTrimmer } from '../src/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** a task's worth of objects (tens of MB), dropped when it ends */
function task(): void {
  const held = Array.from({ length: 600_000 }, (_, i) => ({ i, s: `w${i}` }));
  assert.equal(held.length, 600_000);
}

/** the trims once one more has happened, or after 10 s (a loaded machine: the inspector's first import and two full collections) */
async function trimmed(t: ReturnType<typeof heapTrimmer>, before: number): Promise<number> {
  for (let i = 0; i < 500 && t.trims === before; i++) await sleep(20);
  return t.trims;
}

test('an idle isolate whose heap grew after a large task gives it back; a task that arrives first, a heap that did not grow since, or no large task, stops it', async () => {
  const t = heapTrimmer({ idleMs: 20, growthMb: 8 });
  // no large task said: idle does nothing, however the heap grew
  task();
  t.idle();
  await sleep(150);
  assert.equal(t.trims, 0);
  t.due();
  t.idle();
  assert.equal(await trimmed(t, 0), 1);
  // idle again after a large task, nothing allocated since: nothing to give back
  t.due();
  t.idle();
  await sleep(150);
  assert.equal(t.trims, 1);
  // a task comes before the timer fires: no trim
  task();
  t.due();
  t.idle();
  t.busy();
  await sleep(150);
  assert.equal(t.trims, 1);
  // idle for good, after another large task
  t.due();
  t.idle();
  assert.equal(await trimmed(t, 1), 2);
});
