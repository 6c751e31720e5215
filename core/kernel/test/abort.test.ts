import { test } from 'node:test';
import assert from 'node:assert/strict';
import { abortError, abortReason, checkAbort, raceSignal, throwIfAborted } from '@quire/core';

test('checkAbort / abortReason: the caller\'s reason as it is; an AbortError when there is none', () => {
  checkAbort(undefined);
  checkAbort(new AbortController().signal);
  const timeout = new Error('parse timed out');
  const ac = new AbortController();
  ac.abort(timeout);
  assert.throws(() => checkAbort(ac.signal), (e) => e === timeout);
  const bare = { aborted: true, reason: undefined } as unknown as AbortSignal;
  assert.equal((abortReason(bare) as Error).name, 'AbortError');
});

test('abortError / throwIfAborted: always an Error named AbortError', () => {
  throwIfAborted(undefined);
  const ac = new AbortController();
  ac.abort();
  assert.throws(() => throwIfAborted(ac.signal), (e: Error) => e === ac.signal.reason && e.name === 'AbortError');
  const other = new AbortController();
  other.abort(new Error('job cancelled'));
  assert.throws(() => throwIfAborted(other.signal, 'Extraction aborted'), (e: Error) => e.name === 'AbortError' && e.message === 'Extraction aborted');
  assert.equal(abortError('client went away').message, 'client went away');
  assert.equal(abortError().message, 'The operation was aborted');
});

test('raceSignal: rejects on abort though the work goes on; passes the work\'s outcome otherwise', async () => {
  assert.equal(await raceSignal(Promise.resolve(1)), 1);
  assert.equal(await raceSignal(Promise.resolve(2), new AbortController().signal), 2);
  const ac = new AbortController();
  const never = new Promise<number>(() => {});
  const raced = raceSignal(never, ac.signal);
  const reason = new Error('stop');
  ac.abort(reason);
  await assert.rejects(raced, (e) => e === reason);
  const done = new AbortController();
  done.abort();
  await assert.rejects(raceSignal(Promise.resolve(3), done.signal), (e: Error) => e.name === 'AbortError');
});
