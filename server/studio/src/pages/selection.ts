import type { BBox } from '../api.js';

/** What can be selected on a page: a block, a table, a chunk, or the evidence of an extracted field. */
export type Selection = { kind: 'block'; index: number } | { kind: 'table'; index: number } | { kind: 'chunk'; index: number } | { kind: 'evidence'; field: string; page: number; bbox: BBox; text: string; confidence: number } | null;
