/**
 * Reading jobs, documents and extractions for the routes: by id, readable by the caller, null when absent
 * or not theirs (the routes answer 404 either way).
 */
import type { DocumentRecord, ExtractionRecord, JobRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { canRead } from '../infra/access.js';
import type { AuthInfo } from '../infra/access.js';
import { UUID } from '../validation.js';
import { jobStillServed } from './documents.js';

/** A job by id (of a type when given) that the caller may read; with auth null, any job (the caller checked). */
export async function readableJob(rt: Engine, auth: AuthInfo | null, id: string, type?: string): Promise<JobRecord | null> {
  const job = UUID.test(id) ? await rt.store.repo('jobs').get(id) : null;
  return job && (!type || job.type === type) && (!auth || canRead(auth, job)) ? job : null;
}

/** The latest processing job of a document (by the document's id). */
export async function documentJob(rt: Engine, documentId: string): Promise<JobRecord | null> {
  if (!UUID.test(documentId)) return null;
  return (await rt.store.repo('jobs').find({ document_id: documentId, type: 'document' }, { order: { created_at: 'DESC' }, limit: 1 }))[0] ?? null;
}

/** An extraction by id that the caller may read; with auth null, any (the caller checked). */
export async function readableExtraction(rt: Engine, auth: AuthInfo | null, id: string): Promise<ExtractionRecord | null> {
  const x = UUID.test(id) ? await rt.store.repo('extractions').get(id) : null;
  return x && (!auth || canRead(auth, x)) ? x : null;
}

/**
 * A job whose results may still be served (a signed link names it: the caller checked the signature), or
 * null: absent, or the parse of a document deleted since (jobStillServed).
 */
export async function servedJob(rt: Engine, id: string): Promise<JobRecord | null> {
  const job = await readableJob(rt, null, id);
  return job && (await jobStillServed(rt, job)) ? job : null;
}

/**
 * A document by id that the caller may read (canRead: no 403 for an organization locked by 2FA, unlike
 * loadOwned); with auth null, any document (the caller checked, e.g. a signed link).
 */
export async function readableDocument(rt: Engine, auth: AuthInfo | null, id: string): Promise<DocumentRecord | null> {
  const doc = UUID.test(id) ? await rt.store.repo('documents').get(id) : null;
  return doc && (!auth || canRead(auth, doc)) ? doc : null;
}
