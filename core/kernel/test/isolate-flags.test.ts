import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startIsolate } from '../src/index.js';

test('an isolate runs with its heap limit and the V8 settings its owner gives, and nothing else of them leaks to the next one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-isolate-'));
  const file = path.join(dir, 'echo.mjs');
  // answers with its own flags and with what V8 says of one of them
  fs.writeFileSync(file, `import v8 from 'node:v8'; process.send({ argv: process.execArgv, heapMb: Math.round(v8.getHeapStatistics().heap_size_limit / 1048576) }); process.on('disconnect', () => process.exit(0));`);
  const ask = async (opts: Parameters<typeof startIsolate>[1]) => {
    const iso = startIsolate(pathToFileURL(file), opts);
    iso.ref(); // an isolate does not hold the event loop by itself
    try {
      return await new Promise<{ argv: string[]; heapMb: number }>((resolve, reject) => {
        iso.on('message', resolve);
        iso.on('error', reject);
      });
    } finally {
      await iso.terminate();
    }
  };
  try {
    const tuned = await ask({ heapMb: 64, v8Flags: ['--max-inlined-bytecode-size-cumulative=300'] });
    assert.ok(tuned.argv.includes('--max-inlined-bytecode-size-cumulative=300'), tuned.argv.join(' '));
    assert.ok(tuned.argv.includes('--max-old-space-size=64'));
    assert.ok(tuned.heapMb < 200, `heap limit ${tuned.heapMb} MB`);
    const plain = await ask({ heapMb: 64 });
    assert.ok(!plain.argv.some((a) => a.startsWith('--max-inlined-bytecode-size')), plain.argv.join(' '));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
