// Whether the build output is current, and the command lines of the built commands (or of their sources under
// tsx when it is not). Light: no workspace package is imported here, so reader and runner tests can use it.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

let current: boolean | undefined;

/**
 * Whether every workspace's build output (dist/) is at least as new as its sources (src/): then the built
 * code runs what the sources say. Computed once per process.
 */
export function builtIsCurrent(): boolean {
  if (current !== undefined) return current;
  const newest = (dir: string, ext: RegExp): number => {
    let t = 0;
    if (!fs.existsSync(dir)) return t;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) t = Math.max(t, newest(p, ext));
      else if (ext.test(e.name)) t = Math.max(t, fs.statSync(p).mtimeMs);
    }
    return t;
  };
  const workspaces = ['config', 'server', 'runner', ...fs.readdirSync(path.join(ROOT, 'core')).map((p) => `core/${p}`), ...fs.readdirSync(path.join(ROOT, 'plugins')).map((p) => `plugins/${p}`)].map((w) => path.join(ROOT, w));
  if (!fs.existsSync(path.join(ROOT, 'server/dist/bin.js'))) return (current = false);
  current = workspaces.every((w) => !fs.existsSync(path.join(w, 'src')) || newest(path.join(w, 'src'), /\.(ts|mts|js|mjs|json)$/) <= newest(path.join(w, 'dist'), /\.(js|mjs|json)$/));
  return current;
}

/**
 * node arguments that run `quire-runner <args>`: the built command (runner/bin/quire-runner.js, what users run)
 * when the build is current, else runner/src/cli.ts under tsx. The built one starts in about half the CPU time
 * (no TypeScript transform in the process and its worker threads).
 */
export function runnerArgs(...args: string[]): string[] {
  return builtIsCurrent() ? [path.join(ROOT, 'runner/bin/quire-runner.js'), ...args] : ['--conditions=quire-source', '--import', 'tsx', path.join(ROOT, 'runner/src/cli.ts'), ...args];
}

/** node arguments that run the `quire` server command (`quire`, `quire keys …`, `quire users …`): built when current, else the sources. */
export function serverArgs(...args: string[]): string[] {
  return builtIsCurrent() ? [path.join(ROOT, 'server/dist/bin.js'), ...args] : ['--conditions=quire-source', '--import', 'tsx', path.join(ROOT, 'server/src/bin.ts'), ...args];
}

/** node arguments that run `quire-worker`: built when current, else the sources. */
export function workerArgs(...args: string[]): string[] {
  return builtIsCurrent() ? [path.join(ROOT, 'core/engine/bin/quire-worker.js'), ...args] : ['--conditions=quire-source', '--import', 'tsx', path.join(ROOT, 'core/engine/src/worker-main.ts'), ...args];
}
