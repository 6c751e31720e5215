import { NonRetryableError } from '@quire/core';
import type { DocumentRecord, JobRecord } from '@quire/core';
import type { QuireRuntime } from '../runtime.js';
import { defineIngestPipeline } from './ingest.js';
import { defineParsePipeline } from './parse.js';

/** Registers every pipeline this process can run. */
export function definePipelines(rt: QuireRuntime): void {
  defineIngestPipeline(rt);
  defineParsePipeline(rt);
}

export async function requireDocument(rt: QuireRuntime, id: string): Promise<DocumentRecord> {
  const doc = await rt.store.repo('documents').get(id);
  if (!doc) throw new NonRetryableError(`Document ${id} no longer exists`);
  return doc;
}

export function ownerOf(r: { user_id: string; organization_id: string | null }) {
  return { user_id: r.user_id, organization_id: r.organization_id };
}

export type { JobRecord };
