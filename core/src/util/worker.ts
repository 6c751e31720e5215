import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * The worker module `name` next to the module at `self` (import.meta.url): `<name>.ts` under tsx
 * (sources), `<name>.js` once built.
 */
export function siblingModule(self: string, name: string): URL {
  return new URL(self.endsWith('.ts') ? `./${name}.ts` : `./${name}.js`, self);
}

export interface StartWorkerOptions {
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
}

/**
 * Starts a worker thread on a module. A built module (.js) is started directly; a TypeScript source module
 * (tests and development under tsx) through a small bootstrap that registers tsx in the worker first, since
 * Node 20 does not carry `--import tsx` loader hooks into worker threads.
 */
export function startWorker(url: URL, opts: StartWorkerOptions = {}): Worker {
  const fromSource = url.pathname.endsWith('.ts');
  // the parent's flags without tsx hooks; a built worker also resolves packages to their built files
  const execArgv: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const a = process.execArgv[i]!;
    const next = process.execArgv[i + 1] ?? '';
    if ((a === '--import' || a === '--require' || a === '--loader') && /tsx/.test(next)) i++;
    else if (/^--(import|require|loader)=.*tsx/.test(a)) continue;
    else if (!fromSource && /^(--conditions|-C)=(quire-)?source$/.test(a)) continue;
    else if (!fromSource && (a === '--conditions' || a === '-C') && /^(quire-)?source$/.test(next)) i++;
    else if (/^--max-old-space-size/.test(a)) continue;
    else execArgv.push(a);
  }
  const common = { stdout: false, stderr: false, execArgv, workerData: opts.workerData, resourceLimits: opts.resourceLimits };
  if (!fromSource) return new Worker(url, common);
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { ...common, eval: true });
}
