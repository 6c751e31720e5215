import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { until } from '../helpers/server.js';
import { CHROMIUM_SKIP, ROOT } from '../helpers/studio.js';

/**
 * A process holding a Chromium is killed with SIGKILL (what a test file's time limit or the OOM killer does;
 * no exit handler runs): the browser and every process of its group are gone soon after, for the service's
 * pdf generator (puppeteer) and for the studio tests' browser (playwright).
 */

/** Processes whose process group is `pgid`. */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] state, [1] ppid, [2] pgrp; a zombie waiting for its reaper counts as gone
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

for (const how of ['pdf', 'studio'] as const) {
  test(`a killed parent leaves no Chromium behind (${how === 'pdf' ? 'the pdf generator' : 'the studio tests’ browser'})`, { skip: CHROMIUM_SKIP }, async (t) => {
    // a TMPDIR of its own: the killed browser's profile dir stays there, removed with it at the end (a short
    // path: Chromium's singleton socket in it must fit a unix socket path, 108 bytes)
    const tmp = fs.mkdtempSync('/tmp/quire-ch-');
    const tsxCache = `tsx-${process.geteuid!()}`; // the shared tsx transform cache (a cold one is slow)
    fs.mkdirSync(path.join(os.tmpdir(), tsxCache), { recursive: true });
    fs.symlinkSync(path.join(os.tmpdir(), tsxCache), path.join(tmp, tsxCache));
    const child = spawn(process.execPath, ['--conditions=quire-source', '--import', 'tsx', path.join(ROOT, 'test/helpers/hold-chromium.ts'), how], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let browser = 0;
    t.after(() => {
      // whatever happens above, nothing is left running by this test
      child.kill('SIGKILL');
      if (browser) for (const pid of groupMembers(browser)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      fs.rmSync(tmp, { recursive: true, force: true });
    });
    const line = await until('the browser to start', () => (child.exitCode !== null ? Promise.reject(new Error(`the holder exited: ${err}`)) : /\{"browser":\d+\}/.exec(out)?.[0]), 120_000, 100);
    browser = JSON.parse(line).browser;
    assert.ok(browser > 1, `the browser's pid: ${line}`);
    assert.ok(groupMembers(browser).length >= 1, 'the browser runs in a process group of its own');
    child.kill('SIGKILL');
    await exited;
    await until(`the browser's process group (${browser}) to be gone after its parent was killed: ${groupMembers(browser).join(', ')}`, () => groupMembers(browser).length === 0, 30_000, 100);
  });
}
