// The test files of one run (started by scripts/test.mjs, with the execArgv every test process needs): node's
// test runner through its API, which keeps the order it is given (the CLI sorts files by name), so that the
// longest files start first and the workers finish together. TAP on stdout, as `node --test`; exit 1 when a
// test or a file fails.
//   node <execArgv> scripts/test-files.mjs <concurrency> <timeout ms> <file>...
import { run } from 'node:test';
import { tap } from 'node:test/reporters';

const [concurrency, timeout, ...files] = process.argv.slice(2);
const stream = run({ files, concurrency: Number(concurrency), timeout: Number(timeout) });
stream.on('test:fail', (t) => {
  if (!t.todo) process.exitCode = 1;
});
stream.compose(tap).pipe(process.stdout);
