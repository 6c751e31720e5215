#!/usr/bin/env node
// The `quire` command (serve, worker, keys). A committed file rather than the build output, because npm links a
// package's bins at install time only when the file exists: `npm ci` on a fresh clone links this one into
// node_modules/.bin, and it runs the code `npm run build` writes to dist/.
import fs from 'node:fs';

const bin = new URL('../dist/bin.js', import.meta.url);
if (!fs.existsSync(bin)) {
  console.error('quire: not built yet; run `npm run build` in the Quire folder first');
  process.exit(1);
}
await import(bin.href);
