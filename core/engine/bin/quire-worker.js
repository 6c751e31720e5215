#!/usr/bin/env node
// The `quire-worker` command: pipeline stages only, without the HTTP host. A committed file rather than the build
// output, because npm links a package's bins at install time only when the file exists; it runs what
// `npm run build` writes to dist/.
import fs from 'node:fs';

const main = new URL('../dist/worker-main.js', import.meta.url);
if (!fs.existsSync(main)) {
  console.error('quire-worker: not built yet; run `npm run build` in the Quire folder first');
  process.exit(1);
}
await import(main.href);
