/** Test helpers shared by the reader plugins and the end-to-end tests. */
export * from '../../../test/helpers/corpus.js';
export * from '../../../test/helpers/f1.js';
