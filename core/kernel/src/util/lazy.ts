import { createRequire } from 'node:module';

/**
 * A package loaded at its first use rather than with the module that names it, for libraries only some
 * requests need (templates, JSONata, Markdown): a process that starts the service (the service, a worker,
 * the `quire` commands, every test server) does not pay for them (test/startup-modules.test.ts). `from` is
 * the caller's `import.meta.url`, so the package resolves from the caller's own dependencies. An ES module
 * package is loaded by require() too (Node ≥ 20.19, the engines of package.json).
 */
export function lazy<T>(from: string, name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= createRequire(from)(name) as T);
}
