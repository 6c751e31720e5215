/**
 * One extraction run: resolve the definition (schema | fields | description) and the input (document,
 * svc://, jobid://, URL), record a job ('extract': pending → processing → completed | failed), call the
 * extractor plugin on the parsed content, store the extraction, charge 2 credits, emit the extraction
 * events. Used by POST /v1/extractions, POST /api/extract/run (plain and streaming), batches and the
 * embed `extract` action.
 */
import { randomUUID } from 'node:crypto';
import { errors, isQuireError } from '@quire/core';
import type { BBox, Chunk, DocumentRecord, ExtractionEvent, ExtractionRecord, FieldDefinition, JobRecord, Owned, ParsedDocument } from '@quire/core';
import type { AuthInfo } from '../http/context.js';
import type { QuireRuntime } from '../runtime.js';
import { loadOwned, roleIn } from '../auth/access.js';
import { fetchInputToStorage } from '../pipelines/parse.js';
import { chunkParsed, contentKey, jobInputKey, jobParsedKey, loadParsed, readFile } from '../pipelines/steps.js';
import { resolveInput } from './inputs.js';
import { charge } from './ledger.js';
import { parseConfig } from './parse-config.js';
import { UUID, resolveDefinition } from './extraction-fields.js';
import type { Definition } from './extraction-fields.js';
import { apiFieldResults, overallConfidence } from './extraction-shapes.js';
import type { ApiFieldResult } from './extraction-shapes.js';

/** Events of a run, in streaming order: progress … (chunk_done …) field_extracted … */
export type RunEvent = Exclude<ExtractionEvent, { type: 'progress' }> | { type: 'progress'; progress: number; progress_message?: string; job_id: string };

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
  /** aborting marks the job failed with error 'Cancelled' */
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

type Source = { kind: 'document'; doc: DocumentRecord } | { kind: 'job'; job: JobRecord } | { kind: 'url'; url: string };

export const CANCELLED = 'Cancelled';

export async function runExtraction(rt: QuireRuntime, auth: AuthInfo, opts: RunExtractionOptions): Promise<ExtractionRunResult> {
  const def = await resolveDefinition(rt, auth, { schemaId: opts.schemaId, fields: opts.fields, description: opts.description, instructions: opts.instructions, settings: opts.settings }, opts.names);
  const source = await resolveSource(rt, auth, opts);
  const extractor = rt.registry.get('extractor');
  const documentId = source.kind === 'document' ? source.doc.id : source.kind === 'job' ? ((source.job.input?.document_id as string | undefined) ?? null) : null;
  const owner = ownerFor(auth, opts.organizationId, source);
  const started = Date.now();
  const jobId = randomUUID();
  const extractionId = randomUUID();
  const now = new Date();
  const job: JobRecord = {
    id: jobId,
    ...owner,
    type: 'extract',
    status: 'pending',
    progress: 0,
    document_id: documentId,
    input: {
      ...(source.kind === 'document' ? { document_id: source.doc.id } : { input: opts.input }),
      schema_id: def.schemaId,
      definition: def.source,
      field_count: def.fields.length,
      include_citations: !!opts.includeCitations,
      settings: def.settings,
      extraction_id: extractionId,
    },
    result: null,
    error: null,
    webhook_url: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
  const jobs = rt.store.repo('jobs');
  await jobs.insert(job);
  await opts.onJob?.(job);
  const signal = opts.signal;
  const emit = (e: RunEvent) => {
    try {
      const r = opts.onEvent?.(e);
      if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch(() => {});
      return r;
    } catch {
      return undefined;
    }
  };
  const progress = (p: number, message: string) => emit({ type: 'progress', progress: p, progress_message: message, job_id: jobId });
  const eventBase = { extraction_id: extractionId, job_id: jobId, document_id: documentId, schema_id: def.schemaId };
  try {
    await jobs.update({ id: jobId, status: 'pending' }, { status: 'processing', updated_at: new Date() });
    await rt.events.emit('extraction.started', { ...eventBase }, owner);
    await progress(0, source.kind === 'url' ? 'fetching and parsing the input' : 'loading the parsed document');
    const content = await loadContent(rt, source, jobId, signal);
    await checkpoint(signal);
    await jobs.update(jobId, { progress: 10, updated_at: new Date() });
    await progress(10, `extracting ${def.fields.length} field${def.fields.length === 1 ? '' : 's'} from ${content.pages} page${content.pages === 1 ? '' : 's'}`);
    const { data, fieldResults } = await extractor.extract({
      doc: content.doc,
      chunks: content.chunks,
      fields: def.fields,
      instructions: def.instructions,
      settings: def.settings,
      signal,
      onEvent: (e) => (e.type === 'progress' ? progress(Math.min(95, Math.round(10 + e.progress * 0.85)), e.progress_message ?? 'extracting') : emit(e)),
    });
    // a client that went away while the extractor ran is noticed here, before anything is stored or charged
    await checkpoint(signal);
    const overall = overallConfidence(fieldResults);
    const durationMs = Date.now() - started;
    const done = new Date();
    const record: ExtractionRecord = {
      id: extractionId,
      ...owner,
      document_id: documentId,
      schema_id: def.schemaId,
      job_id: jobId,
      fields: def.fields,
      data,
      field_results: fieldResults,
      corrections: [],
      confidence: overall,
      duration_ms: durationMs,
      created_at: done,
      updated_at: done,
    };
    await rt.store.repo('extractions').insert(record);
    const credits = await charge(rt.store, owner, 'extract', 1, extractionId);
    const usage = { num_pages: content.pages, credits };
    const fieldsExtracted = fieldResults.filter((r) => r.value !== null && r.value !== undefined).length;
    await jobs.update(jobId, {
      status: 'completed',
      progress: 100,
      result: { extraction_id: extractionId, document_id: documentId, schema_id: def.schemaId, overall_confidence: overall, fields_extracted: fieldsExtracted, usage },
      updated_at: done,
      completed_at: done,
    });
    await rt.events.emit('extraction.completed', { extraction_id: extractionId, document_id: documentId, schema_id: def.schemaId, overall_confidence: overall, fields_extracted: fieldsExtracted, data, job_id: jobId }, owner);
    return {
      success: true,
      job_id: jobId,
      extraction_id: extractionId,
      document_id: documentId,
      schema_id: def.schemaId,
      data,
      field_results: apiFieldResults(fieldResults, !!opts.includeCitations),
      overall_confidence: overall,
      processing_time: Math.round(durationMs) / 1000,
      usage,
    };
  } catch (e) {
    const cancelled = !!signal?.aborted;
    const err = cancelled ? errors.processing(CANCELLED) : isQuireError(e) ? e : errors.processing(`Extraction failed: ${(e as Error).message}`);
    const at = new Date();
    await jobs.update({ id: jobId, status: ['pending', 'processing'] }, { status: 'failed', error: cancelled ? CANCELLED : err.message, updated_at: at, completed_at: at }).catch(() => {});
    await rt.events.emit('extraction.failed', { ...eventBase, error: cancelled ? CANCELLED : err.message }, owner).catch(() => {});
    throw err;
  }
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
async function resolveSource(rt: QuireRuntime, auth: AuthInfo, opts: RunExtractionOptions): Promise<Source> {
  const hasDoc = opts.documentId !== undefined && opts.documentId !== null && opts.documentId !== '';
  const hasInput = opts.input !== undefined && opts.input !== null && opts.input !== '';
  if (hasDoc === hasInput) {
    throw errors.validation(hasDoc ? 'Give either document_id or input, not both' : 'document_id (or input) is required', [{ field: 'document_id', message: hasDoc ? 'only one input is allowed' : 'required' }]);
  }
  if (hasDoc) {
    if (!UUID.test(opts.documentId!)) throw errors.validation('document_id must be a UUID', [{ field: 'document_id', message: 'must be a UUID' }]);
    return { kind: 'document', doc: requireCompleted(await loadOwned(rt.store, 'documents', opts.documentId!, auth, 'read')) };
  }
  const ref = await resolveInput(rt, auth, opts.input!, { allowJob: true });
  if (ref.kind === 'document') return { kind: 'document', doc: requireCompleted(ref.doc) };
  if (ref.kind === 'job') {
    if (!(await rt.storage.exists(jobParsedKey(ref.job.id)))) throw errors.conflict(`The parsed content of job ${ref.job.id} is no longer available`);
    return { kind: 'job', job: ref.job };
  }
  return { kind: 'url', url: ref.url };
}

function requireCompleted(doc: DocumentRecord): DocumentRecord {
  if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document ${doc.id} is ${doc.status}; extraction needs a completed document`, { status: doc.status });
  return doc;
}

async function loadContent(rt: QuireRuntime, source: Source, jobId: string, signal?: AbortSignal): Promise<{ doc: ParsedDocument; chunks: Chunk[]; pages: number }> {
  if (source.kind === 'document') {
    const doc = await loadParsed(rt, contentKey(source.doc.id));
    const rows = await rt.store.repo('chunks').find({ document_id: source.doc.id }, { order: { idx: 'ASC' } });
    const chunks: Chunk[] = rows.map((r) => ({
      id: r.id,
      index: r.idx,
      page: r.page,
      content: r.content,
      bbox: (r.bbox as BBox | null) ?? null,
      span: { start: r.span_start, end: r.span_end },
      metadata: { type: r.type, confidence: r.confidence, ...(Array.isArray(r.metadata?.pages) ? { pages: r.metadata!.pages as number[] } : {}) },
    }));
    return { doc, chunks: chunks.length ? chunks : chunkParsed(rt, doc, parseConfig({})), pages: doc.pages.length || source.doc.pages || 1 };
  }
  if (source.kind === 'job') {
    const doc = await loadParsed(rt, jobParsedKey(source.job.id));
    const cfg = parseConfig((source.job.input?.config as Record<string, unknown> | undefined) ?? {});
    return { doc, chunks: chunkParsed(rt, doc, cfg), pages: doc.pages.length || 1 };
  }
  const key = jobInputKey(jobId);
  try {
    const file = await fetchInputToStorage(rt, source.url, key);
    signal?.throwIfAborted();
    const local = rt.storage.localPath(key);
    const tmp = local ? null : await rt.storage.toTempFile(key);
    try {
      const cfg = parseConfig({});
      const doc = await readFile(rt, { path: local ?? tmp!.path, id: jobId, ...file }, cfg, { signal });
      return { doc, chunks: chunkParsed(rt, doc, cfg), pages: doc.pages.length || 1 };
    } finally {
      await tmp?.cleanup();
    }
  } finally {
    await rt.storage.delete(key).catch(() => {});
  }
}

/**
 * A cancellation point: lets the event loop take a turn for I/O (so a client's disconnect is seen), then
 * stops if the run was aborted.
 */
async function checkpoint(signal?: AbortSignal): Promise<void> {
  if (!signal) return;
  await new Promise<void>((r) => setImmediate(() => setImmediate(r)));
  if (signal.aborted) {
    const e = new Error(CANCELLED);
    e.name = 'AbortError';
    throw e;
  }
}

export type { Definition };
