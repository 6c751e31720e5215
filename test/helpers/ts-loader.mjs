// Preloaded (--import) by scripts/test.mjs into every process of a test run, in place of `--import tsx`: loads
// tsx (TypeScript) unless the process's main module is built JavaScript of a workspace package. So the test
// files (and the .mjs test helpers and scripts that import TypeScript), and the reader isolates and worker
// threads started from the sources, have it; when the test files run on the build (scripts/test.mjs does when
// it is current), the isolates their servers fork run dist/*.js without tsx, as in production, in about half
// the CPU time (tsx's loader hooks see every module a process loads).
// A test file bundled to JavaScript (scripts/test-bundles.mjs) runs without tsx too. In a worker thread the
// preload runs again with the worker's own file as process.argv[1]: tsx unless that is built JavaScript.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const main = path.relative(root, process.argv[1] ?? '');
const built = /\.(js|mjs|cjs)$/.test(main) && main.split(path.sep).includes('dist') && !main.startsWith('..');
const bundled = isMainThread && main.startsWith(path.join('node_modules', '.cache', 'quire', 'test-bundles') + path.sep) && main.endsWith('.mjs');
// a built module started from a run on the sources (a test of a plugin's dist, whose isolates inherit the
// run's --conditions=quire-source) still resolves the workspace packages to their TypeScript sources
const sourceCondition = process.execArgv.some((a, i, all) => a === '--conditions=quire-source' || (a === '--conditions' && all[i + 1] === 'quire-source') || a === '-C' && all[i + 1] === 'quire-source');
if ((!built || sourceCondition) && !bundled) await import('tsx');
