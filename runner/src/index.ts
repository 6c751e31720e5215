export { runParse } from './parse.js';
export type { RunOptions, RunSummary } from './parse.js';
