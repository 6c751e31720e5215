/**
 * The light entry of @quire/core (`@quire/core/isolate`) for the modules that run in an isolate, a child process
 * started by startIsolate (a PDF parse worker, the editor's and the split's pdf-lib work, templates, expressions):
 * the isolate's port and task loop, the errors and the few helpers those modules use, without the rest of the
 * package (plugin registry, pipelines, zod schemas), which such a process never calls. Every isolate that
 * starts loads this instead of the whole package: about 0.1 s of CPU less per isolate.
 */
export { isolatePort, serveIsolated } from './util/worker.js';
export { heapTrimmer } from './util/heap-trim.js';
export { QuireError, errors, isQuireError } from './errors/index.js';
export { GENERATED_LIMITS } from './model/generated.js';
export { packWords } from './model/content.js';
export { lazy } from './util/lazy.js';
