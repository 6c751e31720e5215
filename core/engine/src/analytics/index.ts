export * from './source.js';
export * from './metrics.js';
export * from './views.js';
export * from './export.js';
