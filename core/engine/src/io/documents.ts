import { randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { DocumentRecord, JobRecord, Owned, Store } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { withLocalFile } from '../jobs.js';
import { looksInternal } from '../infra/public-errors.js';
import { contentKey, originalKey } from './steps.js';
import type { ParseConfig } from './parse-config.js';
import { parseOperation } from './parse-config.js';
import { estimatePages } from '../infra/credits.js';
import { submitJob } from '../infra/submit.js';

export const epoch = (d: Date) => Math.floor(d.getTime() / 1000);

/** Where the original file of a document is downloaded with a key (GET /v1/documents/<id>/file). */
export const documentFileUrl = (rt: Pick<Engine, 'config'>, id: string) => `${rt.config.publicUrl ?? ''}/v1/documents/${id}/file`;

/** The versioned API's document object (spec §2.1), with the link to its original file. */
export function v1Document(d: DocumentRecord, rt?: Pick<Engine, 'config'>) {
  return {
    id: d.id,
    object: 'document' as const,
    name: d.name,
    status: d.status,
    file_type: d.file_type,
    file_size: d.file_size,
    pages: d.pages,
    created: epoch(d.created_at),
    file_url: rt ? documentFileUrl(rt, d.id) : `/v1/documents/${d.id}/file`,
    ...(d.status === 'failed' ? { error: publicErrorText(d.error, `document ${d.id}`) } : {}),
  };
}

/** spec §6.1 document.completed data */
export function documentEventData(doc: DocumentRecord) {
  return { id: doc.id, name: doc.name, status: doc.status, file_type: doc.file_type, file_size: doc.file_size, pages: doc.pages, processing_time_ms: doc.processing_ms };
}

/** Detects the format of a stored upload (the formats of the active readers); an unsupported file is removed and refused (422). */
export async function detectStored(rt: Engine, key: string, fileName: string): Promise<{ format: string; mime: string }> {
  const detected = await withLocalFile(rt.storage, key, (file) => rt.registry.detectFormat(file, fileName));
  if (!detected) {
    await rt.storage.delete(key);
    const supported = rt.registry.formats().flatMap((f) => f.extensions.map((e) => e.slice(1)));
    throw errors.unsupported(`Unsupported file format: ${fileName}. Supported: ${supported.join(', ')}`);
  }
  return detected;
}

/**
 * Registers an uploaded file (already in storage under originalKey(documentId)) as a document and queues its
 * processing. Returns the document (pending, pages null) and its job. A file whose estimated pages the
 * owner's credits cannot cover is refused first (402 INSUFFICIENT_CREDITS; the caller removes the file).
 */
export async function createDocument(
  rt: Engine,
  owner: Owned,
  f: { id: string; name: string; size: number; sha256: string | null; format: string; mime: string; parsingConfig: ParseConfig | null; knowledgeBaseId?: string | null },
): Promise<{ doc: DocumentRecord; job: JobRecord }> {
  const pages = await estimatePages(rt, originalKey(f.id), f.format);
  const now = new Date();
  const doc: DocumentRecord = {
    id: f.id,
    ...owner,
    name: f.name,
    status: 'pending',
    file_type: f.format,
    mime_type: f.mime,
    file_size: f.size,
    sha256: f.sha256,
    pages: null,
    storage_key: originalKey(f.id),
    content_key: null,
    parsing_config: f.parsingConfig as Record<string, unknown> | null,
    knowledge_base_id: f.knowledgeBaseId ?? null,
    error: null,
    issues: null,
    processing_ms: null,
    created_at: now,
    updated_at: now,
  };
  // the job holds the estimated cost until it ends (and the pages are charged)
  const { job } = await submitJob(rt, 'ingest', owner, {}, {
    type: 'document',
    documentId: f.id,
    credits: { operation: f.parsingConfig ? parseOperation(f.parsingConfig) : 'parse', units: pages },
    with: async (tx) => {
      await tx.repo('documents').insert(doc);
    },
    beforeStart: () => rt.events.emit('document.uploaded', documentEventData(doc), owner),
    payload: { documentId: doc.id },
  });
  return { doc, job };
}

/** The document a parse job read (an svc:// input), or null (a file or URL input, or not a parse job). */
export function parseJobSource(job: JobRecord): string | null {
  if (job.type !== 'parse') return null;
  const fromInput = (job.input as { document_id?: unknown } | null)?.document_id;
  return job.document_id ?? (typeof fromInput === 'string' ? fromInput : null);
}

/**
 * Whether a job's results may still be served. A parse job of a document carries that document's content:
 * once the document is deleted, the job is gone with it (studio link, GET /api/jobs, jobid:// answer 404),
 * also for a job that finished after the delete or was recorded before parse jobs named their document.
 */
export async function jobStillServed(rt: Engine, job: JobRecord): Promise<boolean> {
  const source = parseJobSource(job);
  return !source || !!(await rt.store.repo('documents').get(source));
}

/**
 * Removes a document: its stored file, parsed content, chunks, vectors, collection links, its processing
 * jobs, and the parse jobs made from it (svc:// inputs) with their stored results. Extractions stay: they
 * are their own resource.
 */
export async function deleteDocument(rt: Engine, doc: DocumentRecord): Promise<void> {
  const jobs = await rt.store.repo('jobs').find({ document_id: doc.id });
  for (const j of jobs) if (j.status === 'pending' || j.status === 'processing') await rt.pipelines.cancel(j.id).catch(() => {});
  const parseJobs = jobs.filter((j) => j.type === 'parse');
  await removeProcessed(rt, doc.id, async (tx) => {
    // the stage rows of the jobs that go (they name them)
    const gone = (await tx.repo('jobs').find({ document_id: doc.id, type: ['document', 'parse'] })).map((j) => j.id);
    if (gone.length) await tx.repo('job_stages').delete({ job_id: gone });
    await tx.repo('jobs').delete({ document_id: doc.id, type: ['document', 'parse'] });
    await tx.repo('documents').delete(doc.id);
  });
  await rt.storage.delete(doc.storage_key);
  for (const j of parseJobs) await rt.storage.deletePrefix(`jobs/${j.id}/`);
  await rt.events.emit('document.deleted', { id: doc.id, name: doc.name }, { user_id: doc.user_id, organization_id: doc.organization_id });
}

/**
 * What the processing of a document writes besides its row and its original file: vectors, then (in one
 * transaction, with what `alsoInTx` removes with them) chunks and knowledge-base links, then the parsed
 * content and page images. Shared by the delete of a document and the discard of its job's work.
 */
async function removeProcessed(rt: Engine, documentId: string, alsoInTx?: (tx: Store) => Promise<void>): Promise<void> {
  await rt.registry.tryGet('vector-store')?.deleteDocument(documentId);
  await rt.store.transaction(async (tx) => {
    await tx.repo('chunks').delete({ document_id: documentId });
    await tx.repo('collection_documents').delete({ document_id: documentId });
    await alsoInTx?.(tx);
  });
  await rt.storage.delete(contentKey(documentId));
  await rt.storage.deletePrefix(`documents/${documentId}/`);
}

/**
 * What the processing of a document writes besides the document's row (chunks, vectors, knowledge-base
 * links, parsed content, page images, the job's stored results), removed by document id: the `discard` of a
 * document's job that ran on while its owner was erased or the document deleted (pipelines' discard).
 */
export async function removeDocumentWork(rt: Engine, documentId: string, jobId: string): Promise<void> {
  await removeProcessed(rt, documentId);
  await rt.storage.deletePrefix(`jobs/${jobId}/`);
}

/**
 * The `discard` of a pipeline run for a document (see PipelineDefinition.discard): when the job was erased,
 * or is gone with its document, what its stages and completion wrote for the document goes. A job that is
 * gone while its document stays (not the case of a deleted document) leaves the document alone.
 */
export async function discardDocumentWork(rt: Engine, job: JobRecord, gone: boolean): Promise<void> {
  const documentId = job.document_id ?? null;
  if (!documentId) {
    await rt.storage.deletePrefix(`jobs/${job.id}/`);
    return;
  }
  if (gone && (await rt.store.repo('documents').get(documentId))) return;
  await removeDocumentWork(rt, documentId, job.id);
}

/**
 * The error text of a failed job or document as users see it. Messages of Quire's own errors are kept;
 * what looks like an internal failure (a JavaScript exception, a system error with a path, a tool's stderr)
 * is replaced by a generic text naming the job, whose log lines have the detail.
 */
export function publicErrorText(message: string | null, ref: string): string | null {
  if (message === null) return null;
  if (looksInternal(message)) return `Processing failed because of an internal error (see the server log for ${ref})`;
  return message;
}
