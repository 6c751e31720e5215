// Whether the build output is current, and the command lines of the built commands (or of their sources under
// tsx when it is not). Light: no workspace package is imported here, so reader and runner tests can use it.
import path from 'node:path';
import { builtIsCurrent } from './built-check.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

export { builtIsCurrent };

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
