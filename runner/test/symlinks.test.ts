import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listFiles } from '../src/parse.js';
import { runnerArgs } from '../../test/helpers/built.js';

const root = path.resolve(import.meta.dirname, '../..');
// the built command when the build is current (as users run it), else the sources under tsx
const run = (...a: string[]) => spawnSync(process.execPath, runnerArgs(...a), { cwd: root, encoding: 'utf8', timeout: 120_000 });

function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `quire-runner-${label}-`));
}

test('listFiles follows links to files and folders once, and names loops, broken links and repeats with a reason', () => {
  const base = tempDir('links');
  try {
    const input = path.join(base, 'in');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(input, 'sub'), { recursive: true });
    fs.mkdirSync(path.join(outside, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(input, 'real.txt'), 'real');
    fs.writeFileSync(path.join(input, 'sub', 'inner.txt'), 'inner');
    fs.writeFileSync(path.join(outside, 'far.txt'), 'far');
    fs.writeFileSync(path.join(outside, 'deep', 'deeper.txt'), 'deeper');
    fs.symlinkSync(path.join(input, 'real.txt'), path.join(input, 'alias.txt')); // link to a file inside
    fs.symlinkSync(path.join(outside, 'far.txt'), path.join(input, 'far.txt')); // link to a file outside
    fs.symlinkSync(outside, path.join(input, 'linked')); // link to a folder outside
    fs.symlinkSync('..', path.join(input, 'sub', 'up')); // loop: back to the folder that contains it
    fs.symlinkSync(outside, path.join(outside, 'deep', 'again')); // loop inside the linked folder
    fs.symlinkSync(path.join(input, 'sub'), path.join(input, 'sub2')); // a second way into a folder already read
    fs.symlinkSync(path.join(base, 'missing.pdf'), path.join(input, 'broken.pdf')); // broken
    fs.symlinkSync('self', path.join(input, 'self')); // a link to itself

    const { files, ignored } = listFiles(input);
    const rel = files.map((f) => path.relative(input, f));
    assert.deepEqual(rel, ['alias.txt', 'far.txt', 'linked/deep/deeper.txt', 'linked/far.txt', 'real.txt', 'sub/inner.txt'].sort());
    const reasons = Object.fromEntries(ignored.map((i) => [i.file, i.reason]));
    assert.deepEqual(Object.keys(reasons).sort(), ['broken.pdf', 'linked/deep/again', 'self', 'sub/up', 'sub2'].sort());
    assert.match(reasons['broken.pdf']!, /broken symbolic link .*does not exist/);
    assert.match(reasons['self']!, /symbolic link loop/);
    assert.match(reasons['sub/up']!, /symbolic link loop: points back to \./);
    assert.match(reasons['linked/deep/again']!, /symbolic link loop: points back to linked/);
    assert.match(reasons['sub2']!, /symbolic link to sub, already read/);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('listFiles leaves the output folder out when it lies inside the input folder', () => {
  const input = tempDir('nested');
  try {
    fs.writeFileSync(path.join(input, 'a.txt'), 'a');
    fs.mkdirSync(path.join(input, 'out'));
    fs.writeFileSync(path.join(input, 'out', 'a.txt.md'), 'a');
    assert.deepEqual(listFiles(input, { exclude: [path.join(input, 'out')] }).files.map((f) => path.basename(f)), ['a.txt']);
  } finally {
    fs.rmSync(input, { recursive: true, force: true });
  }
});

test('quire-runner parses symlinked files and lists what it did not read; a run that read nothing fails', { timeout: 240_000 }, () => {
  const base = tempDir('cli');
  try {
    const store = path.join(base, 'store');
    const input = path.join(base, 'in');
    fs.mkdirSync(store);
    fs.mkdirSync(input);
    fs.writeFileSync(path.join(store, 'minutes.txt'), 'Board minutes\n\nThe budget was approved.');
    fs.symlinkSync(path.join(store, 'minutes.txt'), path.join(input, 'minutes.txt'));
    fs.symlinkSync(path.join(store, 'gone.txt'), path.join(input, 'gone.txt'));

    const r = run('parse', input, '--out', path.join(base, 'out'));
    assert.equal(r.status, 0, `stdout: ${r.stdout} stderr: ${r.stderr}`);
    assert.match(r.stdout, /parsed 1, skipped 0 \(already done\), unsupported 0, failed 0, not read 1;/);
    assert.match(r.stdout, /not read: gone\.txt: broken symbolic link/);
    const json = JSON.parse(fs.readFileSync(path.join(base, 'out', 'minutes.txt.json'), 'utf8'));
    assert.match(json.result.chunks[0].content, /budget was approved/);

    // nothing readable: not a success
    const only = path.join(base, 'only-broken');
    fs.mkdirSync(only);
    fs.symlinkSync(path.join(store, 'gone.txt'), path.join(only, 'gone.txt'));
    const none = run('parse', only, '--out', path.join(base, 'out2'));
    assert.equal(none.status, 1, `stdout: ${none.stdout} stderr: ${none.stderr}`);
    assert.match(none.stdout, /parsed 0, .*not read 1;/);
    assert.match(none.stderr, /nothing was parsed: 1 entry found under .*none could be read/);

    // an empty folder: not a success either
    const empty = path.join(base, 'empty');
    fs.mkdirSync(empty);
    const nothing = run('parse', empty, '--out', path.join(base, 'out3'));
    assert.equal(nothing.status, 1);
    assert.match(nothing.stderr, /no files found under/);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
