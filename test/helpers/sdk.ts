import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs `fn` alone among the test files of this run (they share TMPDIR): packing builds the SDK's dist. */
async function alone<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(os.tmpdir(), `${name}.lock`);
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** `npm pack` of @quire/sdk as it is published (core/sdk/scripts/pack.mjs), into `dir`; the tarball's path. */
export async function packSdk(dir: string): Promise<string> {
  return alone('quire-sdk-pack', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'core/sdk/scripts/pack.mjs'), dir], { cwd: ROOT, maxBuffer: 16 << 20 });
    return stdout.trim().split('\n').pop()!;
  });
}

/**
 * A plugin folder as a third party makes it: its package.json (which names @quire/sdk as a peer dependency)
 * and files, then the SDK tarball installed there by npm, offline (nothing is downloaded).
 */
export async function writePluginPackage(dir: string, pkg: object | string, files: Record<string, string>, sdkTarball: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), typeof pkg === 'string' ? pkg : JSON.stringify(pkg, null, 2));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--save-dev', sdkTarball], { cwd: dir, maxBuffer: 16 << 20 });
}
