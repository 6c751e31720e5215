/**
 * LibreOffice conversions: a temp dir of our own, a private profile (-env:UserInstallation) per conversion so
 * parallel conversions never share one, a time limit and the caller's abort signal; the whole process group is
 * killed on timeout or abort.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ConvertOptions {
  soffice: string;
  /** input file (its extension need not be right: it is linked under `document.<ext>`) */
  input: string;
  /** extension of the input format (rtf, doc, ppt) so LibreOffice picks the right import filter */
  inputExt: string;
  /** target, e.g. 'docx' or 'pdf' (anything `--convert-to` accepts) */
  to: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface Converted {
  /** the converted file */
  output: string;
  /** removes the temp dir (profile, input link, output) */
  cleanup(): Promise<void>;
}

export class SofficeError extends Error {
  constructor(
    message: string,
    readonly kind: 'missing' | 'timeout' | 'failed',
  ) {
    super(message);
    this.name = 'SofficeError';
  }
}

export async function convertWithSoffice(opts: ConvertOptions): Promise<Converted> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-soffice-'));
  const cleanup = () => fs.rm(dir, { recursive: true, force: true });
  try {
    const inDir = path.join(dir, 'in');
    const outDir = path.join(dir, 'out');
    await fs.mkdir(inDir);
    await fs.mkdir(outDir);
    const linked = path.join(inDir, `document.${opts.inputExt}`);
    await fs.symlink(path.resolve(opts.input), linked).catch(() => fs.copyFile(opts.input, linked));
    const profile = pathToFileURL(path.join(dir, 'profile')).href;
    const args = [`-env:UserInstallation=${profile}`, '--headless', '--invisible', '--norestore', '--nologo', '--nodefault', '--nolockcheck', '--convert-to', opts.to, '--outdir', outDir, linked];
    await run(opts.soffice, args, { timeoutMs: opts.timeoutMs, signal: opts.signal, env: { ...process.env, HOME: dir } });
    const ext = opts.to.split(':')[0]!;
    const output = path.join(outDir, `document.${ext}`);
    const stat = await fs.stat(output).catch(() => null);
    if (!stat || stat.size === 0) throw new SofficeError(`LibreOffice produced no ${ext} (the file may be corrupt, truncated or password-protected)`, 'failed');
    return { output, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

function run(cmd: string, args: string[], o: { timeoutMs: number; signal?: AbortSignal; env: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((resolve, reject) => {
    if (o.signal?.aborted) return reject(o.signal.reason);
    let stderr = '';
    let done = false;
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: o.env });
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => {
      kill();
      finish(new SofficeError(`LibreOffice did not finish within ${Math.round(o.timeoutMs / 1000)} s`, 'timeout'));
    }, o.timeoutMs);
    const onAbort = () => {
      kill();
      finish(o.signal!.reason);
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      finish(e.code === 'ENOENT' ? new SofficeError(`LibreOffice (${cmd}) is not installed`, 'missing') : e);
    });
    child.on('close', (code) => {
      if (code === 0) finish();
      else finish(new SofficeError(`LibreOffice exited with code ${code}: ${stderr.replace(/\s+/g, ' ').trim().slice(0, 300)}`, 'failed'));
    });
  });
}

let availability: Promise<{ ok: boolean; version?: string }> | null = null;
let availabilityFor = '';

/** Whether the soffice binary runs (cached per binary path). */
export function sofficeAvailable(soffice: string): Promise<{ ok: boolean; version?: string }> {
  if (!availability || availabilityFor !== soffice) {
    availabilityFor = soffice;
    availability = new Promise((resolve) => {
      let out = '';
      const child = spawn(soffice, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
      const timer = setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone already
        }
        resolve({ ok: false });
      }, 15000);
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', () => {
        clearTimeout(timer);
        resolve({ ok: false });
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code === 0 ? { ok: true, version: out.trim().split('\n')[0] } : { ok: false });
      });
    });
  }
  return availability;
}
