/**
 * One way to make a job row: every job kind (document ingest, parse, extraction, batch, webhook delivery)
 * is a row of `jobs` run by a pipeline of the one runtime.
 */
import { randomUUID } from 'node:crypto';
import { NonRetryableError } from '@quire/core';
import type { BlobStorage, DocumentRecord, JobRecord, Owned, Store } from '@quire/core';

export interface NewJob {
  owner: Owned;
  type: JobRecord['type'];
  id?: string;
  status?: JobRecord['status'];
  document_id?: string | null;
  input?: Record<string, unknown> | null;
  webhook_url?: string | null;
}

/** A fresh job row (pending, no result), owned as given. */
export function newJob(init: NewJob): JobRecord {
  const now = new Date();
  return {
    id: init.id ?? randomUUID(),
    user_id: init.owner.user_id,
    organization_id: init.owner.organization_id,
    type: init.type,
    status: init.status ?? 'pending',
    progress: 0,
    progress_detail: null,
    document_id: init.document_id ?? null,
    input: init.input ?? null,
    result: null,
    error: null,
    webhook_url: init.webhook_url ?? null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
}

/** The owner columns of a row (for events, charges and new rows made on its behalf). */
export function ownerOf(r: { user_id: string; organization_id: string | null }): Owned {
  return { user_id: r.user_id, organization_id: r.organization_id };
}

/**
 * Runs `fn` with a local path to a stored blob: the storage's own file when it keeps files on local disk,
 * else a temporary copy that is removed afterwards.
 */
export async function withLocalFile<T>(storage: BlobStorage, key: string, fn: (path: string) => Promise<T>): Promise<T> {
  const local = storage.localPath(key);
  if (local) return fn(local);
  const tmp = await storage.toTempFile(key);
  try {
    return await fn(tmp.path);
  } finally {
    await tmp.cleanup();
  }
}

/** The document a stage works on; a document deleted meanwhile fails the job at once (no retry). */
export async function requireDocument(store: Store, id: string): Promise<DocumentRecord> {
  const doc = await store.repo('documents').get(id);
  if (!doc) throw new NonRetryableError(`Document ${id} no longer exists`);
  return doc;
}
