export { createApp, ROUTE_MODULES } from './app.js';
export { startServer } from './serve.js';
// account helpers the tests and scripts use through the host (they live in the engine)
export { createKey, findOrCreateUser, hashKey, newKey, revokeKey, ensureBootstrapKey, signatureHeader } from '@quire/engine';
