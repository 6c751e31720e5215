// Preloaded (--import) by scripts/test.mjs into every test process: when a test file's process ends, notes
// its wall time (start-up and TypeScript loading included) in the run's state dir, and its pid at start.
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.QUIRE_TEST_STATE_DIR;
// only in the test runner's per-file processes (not in the runner itself, worker threads or servers tests spawn)
if (dir && isMainThread && process.env.NODE_TEST_CONTEXT && process.argv[1]) {
  const file = process.argv[1];
  // the pid too: the store tests name their MySQL databases quire_test_<pid>_…, which the end-of-run check looks for
  try {
    fs.appendFileSync(path.join(dir, 'pids.jsonl'), `${JSON.stringify({ file, pid: process.pid })}\n`);
  } catch {
    /* the state dir is gone */
  }
  process.once('exit', (code) => {
    try {
      fs.appendFileSync(path.join(dir, 'file-times.jsonl'), `${JSON.stringify({ file, ms: Math.round(performance.now()), code })}\n`);
    } catch {
      /* the state dir is gone */
    }
  });
}
