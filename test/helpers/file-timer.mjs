// Preloaded (--import) by scripts/test.mjs into every test process: when a test file's process ends, notes
// its wall time (start-up and TypeScript loading included) and its CPU time (its threads', and that of the
// child processes it waited for: workers, servers, tesseract, soffice) in the run's state dir, and its pid at
// start. CPU time is what a loaded machine does not stretch: wall much above it is waiting (sleeps, polling).
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
      fs.appendFileSync(path.join(dir, 'file-times.jsonl'), `${JSON.stringify({ file, ms: Math.round(performance.now()), cpuMs: cpuMs(), code })}\n`);
    } catch {
      /* the state dir is gone */
    }
  });
}

/** user + system CPU time of this process and of its waited-for children, ms (/proc/self/stat; null elsewhere) */
function cpuMs() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // the fields after the command name (which may hold spaces): state is field 3, utime..cstime are 14..17
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return Math.round((ticks * 1000) / 100); // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}
