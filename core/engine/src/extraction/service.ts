/**
 * One extraction run, submitted here and run by the `extract` pipeline (extraction/pipeline.ts) on whichever
 * process consumes its stages. Submission (in the caller's process, with the caller's AuthInfo) resolves
 * the definition (schema | fields | description) and the input (document, svc://, jobid://, URL), checks
 * ownership and state (400/404/409 are thrown before any job exists) and inserts a job row ('extract')
 * that carries everything the stages need. runExtraction then starts the pipeline, relays the stage's
 * events (published on the event bus as JOB_PROGRESS_EVENT, so they cross processes) and waits for the
 * job. Used by POST /v1/extractions, POST /api/extract/run (plain and streaming), batches and the embed
 * `extract` action.
 */
import { randomUUID } from 'node:crypto';
import { QuireError, errors, isQuireError, jobError } from '@quire/core';
import type { DocumentRecord, ExtractionEvent, FieldDefinition, FieldResult, JobRecord, Owned, QuireEvent } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { newJob, ownerOf } from '../jobs.js';
import { loadOwned, roleIn } from '../infra/access.js';
import { jobParsedKey } from '../io/steps.js';
import { resolveInput } from '../io/inputs.js';
import { UUID, resolveDefinition } from './fields.js';
import type { Definition } from './fields.js';
import { apiFieldResults } from './shapes.js';
import type { ApiFieldResult } from './shapes.js';
import { submitJob } from '../infra/submit.js';

/** Events of a run, in streaming order: progress … (chunk_done …) field_extracted … */
export type RunEvent = Exclude<ExtractionEvent, { type: 'progress' }> | { type: 'progress'; progress: number; progress_message?: string; job_id: string };

/**
 * Internal event type (not a webhook event: not in EVENT_TYPES) that carries a running job's progress
 * across processes: data {job_id, event: RunEvent} for each event, and {job_id, end: true} once a stage
 * run has emitted its last event.
 */
export const JOB_PROGRESS_EVENT = 'job.progress';

export interface RunExtractionOptions {
  /** the input: exactly one of documentId | input (svc://<document_id>, jobid://<parse job id>, http(s) URL) */
  documentId?: string;
  input?: string;
  /** the definition: exactly one of schemaId (saved or prebuilt) | fields | description */
  schemaId?: string;
  fields?: FieldDefinition[];
  description?: string;
  instructions?: string;
  /** extractor settings (agenticExtractionMode, engine, dateOrder, ...), layered over the schema's */
  settings?: Record<string, unknown>;
  /** field_results carry evidence and legacy citations */
  includeCitations?: boolean;
  /** organization the job and extraction are billed to; default: the document's, when the caller may create there */
  organizationId?: string | null;
  /** aborting cancels the job (it fails with error 'Cancelled', wherever its stage runs) */
  signal?: AbortSignal;
  onEvent?: (e: RunEvent) => void | Promise<void>;
  /** called once the request is valid and the job row exists, before any work (streams start here) */
  onJob?: (job: JobRecord) => void | Promise<void>;
  /** names of the definition keys in error details (default schema_id, fields, description) */
  names?: { schemaId: string; fields: string; description: string };
}

/** Spec §2.2 extraction run result. */
export interface ExtractionRunResult {
  success: true;
  job_id: string;
  extraction_id: string;
  document_id: string | null;
  schema_id: string | null;
  data: Record<string, unknown>;
  field_results: ApiFieldResult[];
  overall_confidence: number;
  processing_time: number;
  usage: { num_pages: number; credits: number };
}

/** Where the stages find the content: a completed document, a parse job's stored content, or a URL to fetch and read. */
export type ExtractSource = { kind: 'document'; document_id: string } | { kind: 'job'; job_id: string; config: Record<string, unknown> | null } | { kind: 'url'; url: string };

/** job.input of an 'extract' job: everything its stages need (no AuthInfo: ownership was checked at submission). */
export interface ExtractJobInput {
  document_id?: string;
  input?: string;
  schema_id: string | null;
  definition: Definition['source'];
  field_count: number;
  include_citations: boolean;
  settings: Record<string, unknown>;
  extraction_id: string;
  fields: FieldDefinition[];
  instructions: string | null;
  source: ExtractSource;
  /** a batch child: the batch and whether a document still pending/processing is waited for */
  batch_id?: string;
  wait_for_document?: boolean;
}

/** job.result of a completed 'extract' job. */
export interface ExtractJobResult {
  extraction_id: string;
  document_id: string | null;
  schema_id: string | null;
  overall_confidence: number;
  fields_extracted: number;
  usage: { num_pages: number; credits: number };
}

type Source = { kind: 'document'; doc: DocumentRecord } | { kind: 'job'; job: JobRecord } | { kind: 'url'; url: string };

export const CANCELLED = 'Cancelled';
export const EXTRACT_PIPELINE = 'extract';
/** how long a synchronous run waits for its job */
const RUN_TIMEOUT_MS = 60 * 60_000;
/** how long, after the job ended, the events still on their way from another process are waited for */
const DRAIN_MS = 5_000;

/**
 * Validates a run with the caller's identity and returns its job row (not yet inserted): definition,
 * input, ownership, state. With `waitForDocument` a document still pending or processing is accepted (the
 * stage waits for it); otherwise it must be completed (409).
 */
export async function prepareExtraction(rt: Engine, auth: AuthInfo, opts: RunExtractionOptions & { waitForDocument?: boolean; batchId?: string; jobId?: string }): Promise<JobRecord> {
  const def = await resolveDefinition(rt, auth, { schemaId: opts.schemaId, fields: opts.fields, description: opts.description, instructions: opts.instructions, settings: opts.settings }, opts.names);
  const source = await resolveSource(rt, auth, opts, !!opts.waitForDocument);
  rt.registry.get('extractor');
  const documentId = source.kind === 'document' ? source.doc.id : source.kind === 'job' ? ((source.job.input?.document_id as string | undefined) ?? null) : null;
  const owner = ownerFor(auth, opts.organizationId, source);
  const input: ExtractJobInput = {
    ...(source.kind === 'document' ? { document_id: source.doc.id } : { input: opts.input }),
    schema_id: def.schemaId,
    definition: def.source,
    field_count: def.fields.length,
    include_citations: !!opts.includeCitations,
    settings: def.settings,
    extraction_id: randomUUID(),
    fields: def.fields,
    instructions: def.instructions ?? null,
    source:
      source.kind === 'document'
        ? { kind: 'document', document_id: source.doc.id }
        : source.kind === 'job'
          ? { kind: 'job', job_id: source.job.id, config: (source.job.input?.config as Record<string, unknown> | undefined) ?? null }
          : { kind: 'url', url: source.url },
    ...(opts.batchId ? { batch_id: opts.batchId } : {}),
    ...(opts.waitForDocument ? { wait_for_document: true } : {}),
  };
  return newJob({ owner, type: 'extract', ...(opts.jobId ? { id: opts.jobId } : {}), document_id: documentId, input: input as unknown as Record<string, unknown> });
}

export async function runExtraction(rt: Engine, auth: AuthInfo, opts: RunExtractionOptions): Promise<ExtractionRunResult> {
  const prepared = await prepareExtraction(rt, auth, opts);
  return runExtractJob(rt, prepared, opts);
}

/** Submits a prepared 'extract' job, relays its events to onEvent, waits for it and answers as the API does. */
async function runExtractJob(rt: Engine, prepared: JobRecord, opts: Pick<RunExtractionOptions, 'signal' | 'onEvent' | 'includeCitations' | 'onJob'>): Promise<ExtractionRunResult> {
  const jobId = prepared.id;
  const signal = opts.signal;
  let ended = false;
  let lastProgress = -1;
  let chain: Promise<unknown> = Promise.resolve();
  let endSeen: () => void = () => {};
  const endPromise = new Promise<void>((r) => (endSeen = r));
  const off = rt.events.on(JOB_PROGRESS_EVENT, (e: QuireEvent) => {
    if (e.data.job_id !== jobId) return;
    if (e.data.end) {
      chain = chain.then(() => endSeen());
      return;
    }
    const ev = e.data.event as RunEvent | undefined;
    if (!ev || !opts.onEvent || ended) return;
    // a stage taken over by another worker starts its events again: progress never goes back
    if (ev.type === 'progress') {
      if (ev.progress < lastProgress) return;
      lastProgress = ev.progress;
    }
    chain = chain.then(() => opts.onEvent!(ev)).catch(() => {});
  });
  const onAbort = () => void rt.pipelines.cancel(jobId).catch((e) => rt.logger.warn({ jobId, err: (e as Error).message }, 'cancelling the extraction failed'));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // its events are listened to before it starts; aborted by then, it is cancelled instead of started
    await submitJob(rt, EXTRACT_PIPELINE, ownerOf(prepared), prepared.input ?? {}, { id: jobId, documentId: prepared.document_id, credits: { operation: 'extract', units: 1 }, beforeStart: opts.onJob, signal });
    const done = await rt.pipelines.waitFor(jobId, RUN_TIMEOUT_MS);
    if (!signal?.aborted) {
      // events published by another process may still be on their way: wait for the stage's last one
      let t: NodeJS.Timeout | undefined;
      await Promise.race([endPromise, new Promise<void>((r) => (t = setTimeout(r, DRAIN_MS)))]).finally(() => clearTimeout(t));
      await chain;
    }
    ended = true;
    if (signal?.aborted || (done.status === 'failed' && done.error === CANCELLED)) throw errors.processing(CANCELLED);
    if (done.status === 'failed') throw extractJobError(done);
    const result = done.result as unknown as ExtractJobResult;
    const x = await rt.store.repo('extractions').get(result.extraction_id);
    if (!x) throw errors.processing('The extraction was not stored');
    return {
      success: true,
      job_id: jobId,
      extraction_id: x.id,
      document_id: result.document_id,
      schema_id: result.schema_id,
      data: x.data,
      field_results: apiFieldResults(x.field_results as FieldResult[], !!opts.includeCitations),
      overall_confidence: result.overall_confidence,
      processing_time: Math.round(x.duration_ms) / 1000,
      usage: result.usage,
    };
  } finally {
    ended = true;
    off();
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The error a failed 'extract' job stands for: the failing stage's QuireError, else a PROCESSING_ERROR with job.error. */
export function extractJobError(job: JobRecord): QuireError {
  const e = jobError(job);
  return isQuireError(e) ? e : errors.processing(job.error ?? 'Extraction failed');
}

/** The job and extraction belong to the caller, billed to the given organization or the document's (when the caller may create there). */
function ownerFor(auth: AuthInfo, organizationId: string | null | undefined, source: Source): Owned {
  if (organizationId !== undefined) {
    if (organizationId && !roleIn(auth, organizationId)) throw errors.notFound('organization', organizationId);
    if (organizationId && roleIn(auth, organizationId) === 'viewer') throw errors.forbidden('Viewers cannot run extractions in this organization');
    return { user_id: auth.user.id, organization_id: organizationId };
  }
  const org = source.kind === 'document' ? source.doc.organization_id : source.kind === 'job' ? source.job.organization_id : null;
  const role = org ? roleIn(auth, org) : null;
  return { user_id: auth.user.id, organization_id: org && role && role !== 'viewer' ? org : null };
}

/** Exactly one input; a document must be readable by the caller (else 404) and completed (else 409). */
async function resolveSource(rt: Engine, auth: AuthInfo, opts: RunExtractionOptions, waitForDocument: boolean): Promise<Source> {
  const hasDoc = opts.documentId !== undefined && opts.documentId !== null && opts.documentId !== '';
  const hasInput = opts.input !== undefined && opts.input !== null && opts.input !== '';
  if (hasDoc === hasInput) {
    throw errors.validation(hasDoc ? 'Give either document_id or input, not both' : 'document_id (or input) is required', [{ field: 'document_id', message: hasDoc ? 'only one input is allowed' : 'required' }]);
  }
  const check = (doc: DocumentRecord) => (waitForDocument && (doc.status === 'pending' || doc.status === 'processing') ? doc : requireCompleted(doc));
  if (hasDoc) {
    if (!UUID.test(opts.documentId!)) throw errors.validation('document_id must be a UUID', [{ field: 'document_id', message: 'must be a UUID' }]);
    return { kind: 'document', doc: check(await loadOwned(rt.store, 'documents', opts.documentId!, auth, 'read')) };
  }
  const ref = await resolveInput(rt, auth, opts.input!, { allowJob: true });
  if (ref.kind === 'document') return { kind: 'document', doc: check(ref.doc) };
  if (ref.kind === 'job') {
    if (!(await rt.storage.exists(jobParsedKey(ref.job.id)))) throw errors.conflict(`The parsed content of job ${ref.job.id} is no longer available`);
    return { kind: 'job', job: ref.job };
  }
  return { kind: 'url', url: ref.url };
}

export function requireCompleted(doc: DocumentRecord): DocumentRecord {
  if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document ${doc.id} is ${doc.status}; extraction needs a completed document`, { status: doc.status });
  return doc;
}

export type { Definition };
