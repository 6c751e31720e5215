// A new user's first hour with the folder runner: the README's commands, run as written, on a fresh build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeDocx, makePdf } from '../helpers/fixtures.js';
import { startTestServer, uploadForm } from '../helpers/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
/** what a user's shell has: no npm_* variables of an outer npm run; never the registry (a missing bin must fail, not download) */
const userEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false' };
};

function assertBuilt(): void {
  assert.ok(fs.existsSync(path.join(root, 'runner/dist/cli.js')), 'runner/dist is missing: run `npm run build` first (npm test does)');
}

/** A folder with a txt, a docx made with `docx` and a two-page PDF made with pdf-lib. */
async function sampleFolder(dir: string): Promise<void> {
  fs.mkdirSync(path.join(dir, 'letters'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'notes.txt'),
    'Meeting notes\n\nThe budget was approved after a short discussion of travel costs and the new office lease.\n\n' +
      'The committee asked for a quarterly review of spending by department, starting in April.\n\nThe next meeting is on Monday.',
  );
  fs.writeFileSync(path.join(dir, 'letters', 'review.docx'), await makeDocx());
  fs.writeFileSync(
    path.join(dir, 'report.pdf'),
    await makePdf([
      { heading: 'Quarterly report', lines: ['Revenue grew by 12 percent over the quarter.', 'Costs fell in every region.'] },
      { heading: 'Outlook', lines: ['The outlook for next year is stable.'] },
    ]),
  );
}

function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `quire-first-hour-${label}-`));
}

test('npx quire-runner parse <folder> --out <dir> works as the README writes it (txt, docx, pdf), and so does npm run runner', { timeout: 240_000 }, async () => {
  // the README says so
  assert.match(readme, /npx quire-runner parse \S+ --out \S+/);
  assert.match(readme, /npm run runner -- parse \S+ --out \S+/);

  // the bin npm links at `npm ci` is a committed, executable file with a shebang (npm skips bins whose file is
  // missing, so it cannot be build output), and the lockfile `npm ci` installs from names the same file
  const runnerPkg = JSON.parse(fs.readFileSync(path.join(root, 'runner/package.json'), 'utf8'));
  const binRel = path.normalize(runnerPkg.bin?.['quire-runner'] ?? '');
  assert.ok(binRel && !binRel.startsWith('dist'), `the quire-runner bin must not be in dist/: ${binRel}`);
  const binFile = path.join(root, 'runner', binRel);
  assert.ok(fs.existsSync(binFile), `${binFile} exists`);
  assert.match(fs.readFileSync(binFile, 'utf8').split('\n')[0]!, /^#!\/usr\/bin\/env node$/);
  assert.ok(fs.statSync(binFile).mode & 0o111, 'the bin is executable');
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  assert.equal(path.normalize(lock.packages?.runner?.bin?.['quire-runner'] ?? ''), binRel, 'package-lock.json has the same bin (npm ci links what the lockfile says)');
  const git = spawnSync('git', ['ls-files', '-s', '--', `runner/${binRel}`], { cwd: root, encoding: 'utf8' });
  if (git.status === 0 && git.stdout.trim()) assert.match(git.stdout, /^100755 /, 'committed with the executable bit');
  const link = path.join(root, 'node_modules/.bin/quire-runner');
  assert.ok(fs.existsSync(link), 'node_modules/.bin/quire-runner is linked (by npm ci / npm install)');
  assert.equal(fs.realpathSync(link), fs.realpathSync(binFile));
  assertBuilt();

  const base = tempDir('npx');
  try {
    const input = path.join(base, 'in');
    const out = path.join(base, 'out');
    await sampleFolder(input);
    const r = spawnSync('npx', ['quire-runner', 'parse', input, '--out', out], { cwd: root, env: userEnv(), encoding: 'utf8', timeout: 180_000 });
    assert.equal(r.status, 0, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
    assert.match(r.stdout, /parsed 3, skipped 0 \(already done\), unsupported 0, failed 0, not read 0;/);
    const chunks = (rel: string) => JSON.parse(fs.readFileSync(path.join(out, `${rel}.json`), 'utf8')).result.chunks as any[];
    assert.match(chunks('notes.txt').map((c) => c.content).join('\n'), /The budget was approved/);
    assert.ok(chunks(path.join('letters', 'review.docx')).some((c) => c.metadata.type === 'table' && /Rotterdam/.test(c.content)));
    const pdf = chunks('report.pdf');
    assert.deepEqual([...new Set(pdf.map((c) => c.page))], [1, 2]);
    assert.ok(pdf[0].bbox && pdf[0].span, 'PDF chunks keep their box and offsets');
    assert.match(fs.readFileSync(path.join(out, 'report.pdf.md'), 'utf8'), /Revenue grew by 12 percent/);
    assert.match(fs.readFileSync(path.join(out, 'letters', 'review.docx.md'), 'utf8'), /Annual Safety Review/);

    // from a folder below the clone, too
    const out2 = path.join(base, 'out2');
    const sub = spawnSync('npx', ['quire-runner', 'parse', input, '--out', out2], { cwd: path.join(root, 'runner'), env: userEnv(), encoding: 'utf8', timeout: 180_000 });
    assert.equal(sub.status, 0, `stdout: ${sub.stdout}\nstderr: ${sub.stderr}`);
    assert.match(sub.stdout, /parsed 3,/);

    // npm run runner -- parse … (its prerunner build is left out here: npm test has just built)
    const out3 = path.join(base, 'out3');
    const viaNpm = spawnSync('npm', ['run', '--ignore-scripts', 'runner', '--', 'parse', input, '--out', out3], { cwd: root, env: userEnv(), encoding: 'utf8', timeout: 180_000 });
    assert.equal(viaNpm.status, 0, `stdout: ${viaNpm.stdout}\nstderr: ${viaNpm.stderr}`);
    assert.match(viaNpm.stdout, /parsed 3, skipped 0/);
    assert.deepEqual(chunks('notes.txt'), JSON.parse(fs.readFileSync(path.join(out3, 'notes.txt.json'), 'utf8')).result.chunks);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('the runner writes the same chunks as POST /api/parse for the same file and config', { timeout: 240_000 }, async () => {
  assertBuilt();
  const base = tempDir('same');
  const s = await startTestServer();
  try {
    const input = path.join(base, 'in');
    await sampleFolder(input);
    const configs: Record<string, unknown> = {
      default: {},
      custom: { chunking: { strategy: 'semantic', max_chunk_size: 120, overlap: 20 }, formatting: { table_output_format: 'html' }, ocr: { enabled: false } },
    };
    const files = ['notes.txt', path.join('letters', 'review.docx'), 'report.pdf'];
    for (const [name, config] of Object.entries(configs)) {
      const out = path.join(base, `out-${name}`);
      const cfgFile = path.join(base, `${name}.json`);
      fs.writeFileSync(cfgFile, JSON.stringify(config));
      // run asynchronously: the test server lives in this process and must keep answering (and keep its connections) meanwhile
      const r = await promisify(execFile)(process.execPath, [path.join(root, 'runner/bin/quire-runner.js'), 'parse', input, '--out', out, '--config', cfgFile], { cwd: root, env: userEnv(), encoding: 'utf8', timeout: 180_000 }).then(
        (x) => ({ status: 0, ...x }),
        (e) => ({ status: e.code ?? 1, stdout: e.stdout, stderr: e.stderr }),
      );
      assert.equal(r.status, 0, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
      for (const rel of files) {
        const runner = JSON.parse(fs.readFileSync(path.join(out, `${rel}.json`), 'utf8')).result.chunks as any[];
        const res = await s.json('/api/parse', { method: 'POST', body: uploadForm(path.basename(rel), fs.readFileSync(path.join(input, rel)), { config: JSON.stringify(config) }) });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const api = res.body.result.chunks as any[];
        assert.ok(api.length >= 1);
        // ids are <document>:<index>: the runner's document is the relative path, the API's a job id
        for (const [i, c] of runner.entries()) assert.equal(c.id, `${rel}:${i}`);
        for (const [i, c] of api.entries()) assert.equal(c.id, `${res.body.job_id}:${i}`);
        const noId = (cs: any[]) => cs.map(({ id: _id, ...rest }) => rest);
        assert.deepEqual(noId(runner), noId(api), `${rel} with the ${name} config`);
        for (const c of runner) assert.deepEqual(Object.keys(c), Object.keys(api[0]), 'same keys in the same order');
      }
      if (name === 'custom') {
        const txt = JSON.parse(fs.readFileSync(path.join(out, 'notes.txt.json'), 'utf8')).result.chunks as any[];
        assert.ok(txt.length > 1, 'the config file was applied (chunks of at most 120 characters)');
        const docx = JSON.parse(fs.readFileSync(path.join(out, 'letters', 'review.docx.json'), 'utf8')).result.chunks as any[];
        assert.ok(docx.some((c) => /<table/.test(c.content)), 'tables as html');
      }
    }
  } finally {
    await s.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
});
