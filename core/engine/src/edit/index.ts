export * from './jobs.js';
export * from './api.js';
export * from './suggest.js';
export * from './manage.js';
export { statements, applyOffline } from './instructions.js';
export { similarity } from './match.js';
export { documentFromUrl } from './inputs.js';
