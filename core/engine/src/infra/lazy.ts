import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded at its first use rather than with the module that names it, for libraries only some
 * requests need (templates, JSONata, Markdown): a process that starts the service (the service, a worker,
 * the `quire` commands, every test server) does not pay for them (test/startup-modules.test.ts). An ES
 * module package is loaded by require() too (Node ≥ 20.19, the engines of package.json).
 */
export function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
