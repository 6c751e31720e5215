/**
 * The service under test for the bench scripts: started as its own process (built dist when present, else the
 * TypeScript sources through tsx) on a free port with a throw-away data directory and a bootstrap key.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface Service {
  base: string;
  pid: number;
  dataDir: string;
  stop: () => Promise<void>;
}

const root = path.resolve(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

/**
 * Starts the service with `key` as its bootstrap API key; `env` adds to (or overrides) its environment.
 * BENCH_NODE_ARGS (space-separated) are given to its node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
 */
export async function startService(key: string, opts: { prefix: string; env?: Record<string, string> }): Promise<Service> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix));
  const dist = path.join(root, 'server/dist/bin.js');
  const cmd = fs.existsSync(dist) ? [dist] : ['--conditions=quire-source', '--import', 'tsx', path.join(root, 'server/src/bin.ts')];
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...cmd, 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: key, QUIRE_LOG_LEVEL: 'warn', QUIRE_PUBLIC_URL: `http://127.0.0.1:${port}`, ...opts.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const base = `http://127.0.0.1:${port}`;
  let up = false;
  // (up to five minutes: on a loaded machine the sources' first compilation alone takes more than one)
  for (let i = 0; i < 3000 && !up; i++) {
    try {
      // ready: the database and the queue connected (an upload before that is refused with 503)
      up = (await fetch(`${base}/readyz`)).ok;
    } catch {}
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) {
    child.kill('SIGTERM');
    throw new Error('the service did not start');
  }
  return {
    base,
    pid: child.pid!,
    dataDir,
    stop: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON client of a bench's service: GET or `init` (`json`: a JSON body) with the key; the parsed body, or an error naming the call. */
export function jsonApi(base: string, key: string) {
  return async (p: string, init: RequestInit & { json?: unknown } = {}): Promise<any> => {
    const { json, ...rest } = init;
    const res = await fetch(`${base}${p}`, { ...rest, headers: { authorization: `Bearer ${key}`, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
    const body = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${p}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
}

/** Waits until the document `docId` is completed (`api` answers the body of a GET); throws naming `label` when it fails or takes ten minutes. */
export async function waitCompleted(api: (p: string) => Promise<any>, docId: string, label: string): Promise<void> {
  for (let i = 0; ; i++) {
    const d = await api(`/v1/documents/${docId}`);
    if (d.status === 'completed') return;
    if (d.status === 'failed' || i > 2400) throw new Error(`${label}: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
