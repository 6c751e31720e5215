import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { runnerArgs } from '../../test/helpers/built.js';

const root = path.resolve(import.meta.dirname, '../..');

async function makePdfs(dir: string, count: number, label: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (let p = 0; p < 2; p++) {
      const page = pdf.addPage([612, 792]);
      for (let l = 0; l < 30; l++) page.drawText(`${label} ${i} page ${p + 1} line ${l + 1} tells of budgets and plans.`, { x: 72, y: 720 - l * 20, size: 11, font });
    }
    fs.writeFileSync(path.join(dir, `${label}-${i}.pdf`), await pdf.save());
  }
}

type Child = { code: Promise<number | null>; stdout: () => string; kill: (signal?: NodeJS.Signals) => void };
function start(input: string, out: string, env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, runnerArgs('parse', input, '--out', out, '--concurrency', '1'), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stdout += d));
  return { code: new Promise((r) => child.on('exit', (c) => r(c))), stdout: () => stdout, kill: (signal = 'SIGKILL') => void child.kill(signal) };
}

const outputs = (out: string) => (fs.existsSync(out) ? fs.readdirSync(out).filter((f) => f.endsWith('.json')).length : 0);
async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

test('runs sharing a data dir keep their own scratch and jobs: a killed one leaves nothing the next removes, the live one finishes', { timeout: 300_000 }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-runner-shared-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  // the children's temp folder is the test's own, so what a run leaves there can be seen
  const tmp = path.join(base, 'tmp');
  fs.mkdirSync(tmp);
  // a database named by QUIRE_DB_URL (a server's) is not the runs' either
  const serverDb = path.join(base, 'server.db');
  const env = { ...process.env, TMPDIR: tmp, QUIRE_DATA_DIR: path.join(base, 'data'), QUIRE_DB_URL: `sqlite://${serverDb}` };
  await makePdfs(path.join(base, 'long'), 12, 'Long');
  await makePdfs(path.join(base, 'short'), 6, 'Short');

  // a run, held (SIGSTOP) after its first output, and beside it on the same data dir a run killed after its first
  const long = start(path.join(base, 'long'), path.join(base, 'out-long'), env);
  await until(() => outputs(path.join(base, 'out-long')) >= 1, 120_000);
  long.kill('SIGSTOP');
  try {
    const killed = start(path.join(base, 'short'), path.join(base, 'out-short'), env);
    await until(() => outputs(path.join(base, 'out-short')) >= 1, 120_000);
    killed.kill();
    await killed.code;
    assert.ok(outputs(path.join(base, 'out-short')) >= 1, killed.stdout());
  } finally {
    long.kill('SIGCONT');
  }

  // the live run lost nothing to the other's start (its scratch and its queued jobs are its own)
  assert.equal(await long.code, 0, long.stdout());
  assert.match(long.stdout(), /parsed 12, skipped 0 \(already done\), unsupported 0, failed 0/);
  for (let i = 0; i < 12; i++) assert.match(fs.readFileSync(path.join(base, 'out-long', `Long-${i}.pdf.md`), 'utf8'), new RegExp(`Long ${i} page 2 line 30`));

  // the next run on the data dir removes the killed run's scratch folder, and its own when it ends
  const next = start(path.join(base, 'short'), path.join(base, 'out-short'), env);
  assert.equal(await next.code, 0, next.stdout());
  assert.match(next.stdout(), /failed 0/);
  assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.startsWith('quire-runner-')), []);
  assert.deepEqual(fs.readdirSync(path.join(base, 'data', 'runner-runs')), []);
  assert.ok(!fs.existsSync(serverDb), 'the runs opened the database of QUIRE_DB_URL');
  assert.ok(!fs.existsSync(path.join(base, 'data', 'quire.db')), 'the runs opened the data dir\'s database');
});

test('a TERM stops a run cleanly: the files being parsed are cancelled, nothing is left behind, and the next run resumes', { timeout: 300_000 }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-runner-term-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const tmp = path.join(base, 'tmp');
  fs.mkdirSync(tmp);
  const env = { ...process.env, TMPDIR: tmp, QUIRE_DATA_DIR: path.join(base, 'data') };
  await makePdfs(path.join(base, 'in'), 12, 'Doc');
  const out = path.join(base, 'out');

  const run = start(path.join(base, 'in'), out, env);
  await until(() => outputs(out) >= 1, 120_000);
  run.kill('SIGTERM');
  assert.equal(await run.code, 143, run.stdout());
  assert.match(run.stdout(), /interrupted: run the same command again/);
  const written = outputs(out);
  assert.ok(written >= 1 && written < 12, `${written} outputs: ${run.stdout()}`);
  assert.deepEqual(fs.readdirSync(out).filter((f) => f.endsWith('.tmp')), []);
  assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.startsWith('quire-runner-')), []);
  assert.deepEqual(fs.readdirSync(path.join(base, 'data', 'runner-runs')), []);

  const again = start(path.join(base, 'in'), out, env);
  assert.equal(await again.code, 0, again.stdout());
  assert.match(again.stdout(), new RegExp(`parsed ${12 - written}, skipped ${written} \\(already done\\), unsupported 0, failed 0`));
  assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.startsWith('quire-runner-')), []);
});
