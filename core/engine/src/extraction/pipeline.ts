/**
 * Extraction as a pipeline: load → extract. The job row (extraction/service.ts prepareExtraction) carries
 * the resolved definition, the input and the owner, so the stages run on any process (the API or a
 * `quire-worker`). Events for a streaming caller go over the event bus (JOB_PROGRESS_EVENT), which crosses
 * processes; cancelling the job aborts the stage wherever it runs (the runtime's watch). Storing the
 * extraction and its charge happens once per job (one transaction, keyed by the job's extraction id), so a
 * stage taken over from a worker that died stores nothing twice. A batch child reports to its batch when
 * it ends (extraction/batch.ts).
 */
import { NonRetryableError, StoreConflictError, errors, isQuireError } from '@quire/core';
import type { Chunk, ExtractionRecord, FieldResult, JobRecord, ParsedDocument } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf, withLocalFile } from '../jobs.js';
import { charge } from '../infra/ledger.js';
import { parseConfig } from '../io/parse-config.js';
import { CANCELLED, EXTRACT_PIPELINE, JOB_PROGRESS_EVENT } from './service.js';
import type { ExtractJobInput, ExtractJobResult, RunEvent } from './service.js';
import { overallConfidence } from './shapes.js';
import { recordChildResult } from './batch.js';
import { fetchInputToStorage } from '../parse/pipeline.js';
import { chunkParsed, contentKey, jobInputKey, jobParsedKey, loadChunks, loadParsed, readFileToStorage } from '../io/steps.js';
import { defineExtractBatchPipeline } from './batch-pipeline.js';
import { removeExtraction } from './remove.js';

/** how long a batch child waits for a document that is still being processed */
const DOCUMENT_WAIT_MS = 10 * 60_000;

const inputOf = (job: JobRecord) => job.input as unknown as ExtractJobInput;

/** Publishes one event of a running extraction for whoever streams it (in this or another process). */
async function publish(rt: Engine, job: JobRecord, data: { event: RunEvent } | { end: true }): Promise<void> {
  await rt.events.emit(JOB_PROGRESS_EVENT, { job_id: job.id, ...data }, ownerOf(job)).catch((e) => rt.logger.debug({ err: (e as Error).message, jobId: job.id }, 'job progress event not published'));
}

const progress = (rt: Engine, job: JobRecord, p: number, message: string) => publish(rt, job, { event: { type: 'progress', progress: p, progress_message: message, job_id: job.id } });

/**
 * A stage's failure as the API reports it: QuireErrors keep their code (the runtime keeps it in
 * job.result.error for the caller, who may be in another process); anything else is a PROCESSING_ERROR
 * "Extraction failed: …".
 * The stage's last event is published first, so a stream shows every event before the error.
 */
async function failStage(rt: Engine, ctx: { job: JobRecord; signal: AbortSignal }, e: unknown): Promise<never> {
  if (ctx.signal.aborted) throw e;
  const err = isQuireError(e) ? e : errors.processing(`Extraction failed: ${(e as Error)?.message ?? String(e)}`);
  await publish(rt, ctx.job, { end: true });
  // an extraction fails on its first error, as a synchronous run always did (a worker that dies is covered by the lease)
  throw Object.assign(err, { retryable: false });
}

export function defineExtractPipelines(rt: Engine): void {
  defineExtractPipeline(rt);
  defineExtractBatchPipeline(rt);
}

export function defineExtractPipeline(rt: Engine): void {
  rt.pipelines.define({
    name: EXTRACT_PIPELINE,
    stages: [
      {
        name: 'load',
        async run(ctx) {
          const input = inputOf(ctx.job);
          const src = input.source;
          try {
            await progress(rt, ctx.job, 0, src.kind === 'url' ? 'fetching and parsing the input' : 'loading the parsed document');
            if (src.kind === 'document') {
              const doc = input.wait_for_document ? await waitForDocument(rt, src.document_id, ctx.signal) : await rt.store.repo('documents').get(src.document_id);
              if (!doc) throw errors.notFound('document', src.document_id);
              if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document ${doc.id} is ${doc.status}; extraction needs a completed document`, { status: doc.status });
              return { parsedKey: contentKey(doc.id), documentId: doc.id, pages: doc.pages ?? null };
            }
            if (src.kind === 'job') {
              if (!(await rt.storage.exists(jobParsedKey(src.job_id)))) throw errors.conflict(`The parsed content of job ${src.job_id} is no longer available`);
              return { parsedKey: jobParsedKey(src.job_id), config: src.config ?? {} };
            }
            // a URL: fetched and read into this job's own parsed content (removed when the job ends)
            const key = jobInputKey(ctx.job.id);
            const file = await fetchInputToStorage(rt, src.url, key);
            ctx.signal.throwIfAborted();
            const read = await withLocalFile(rt.storage, key, (path) => readFileToStorage(rt, { path, id: ctx.job.id, ...file }, parseConfig({}), jobParsedKey(ctx.job.id), { signal: ctx.signal }));
            await rt.storage.delete(key).catch(() => {});
            return { parsedKey: jobParsedKey(ctx.job.id), config: {}, pages: read.pages };
          } catch (e) {
            return failStage(rt, ctx, e);
          }
        },
      },
      {
        name: 'extract',
        async run(ctx) {
          const job = ctx.job;
          const input = inputOf(job);
          const p = ctx.payload as { parsedKey: string; documentId?: string; config?: Record<string, unknown>; pages?: number | null };
          try {
            const extractor = rt.registry.get('extractor');
            const content = await loadContent(rt, p);
            ctx.signal.throwIfAborted();
            await progress(rt, job, 10, `extracting ${input.fields.length} field${input.fields.length === 1 ? '' : 's'} from ${content.pages} page${content.pages === 1 ? '' : 's'}`);
            const { data, fieldResults } = await extractor.extract({
              doc: content.doc,
              chunks: content.chunks,
              fields: input.fields,
              ...(input.instructions ? { instructions: input.instructions } : {}),
              settings: input.settings,
              signal: ctx.signal,
              onEvent: (e) => (e.type === 'progress' ? progress(rt, job, Math.min(95, Math.round(10 + e.progress * 0.85)), e.progress_message ?? 'extracting') : publish(rt, job, { event: e })),
            });
            ctx.signal.throwIfAborted();
            const now = new Date();
            const record: ExtractionRecord = {
              id: input.extraction_id,
              ...ownerOf(job),
              document_id: job.document_id,
              schema_id: input.schema_id,
              job_id: job.id,
              fields: input.fields,
              data,
              field_results: fieldResults,
              corrections: [],
              confidence: overallConfidence(fieldResults),
              duration_ms: Math.max(0, now.getTime() - new Date(job.created_at).getTime()),
              created_at: now,
              updated_at: now,
            };
            const stored = await storeOnce(rt, job, record);
            const fieldsExtracted = (stored.field_results as FieldResult[]).filter((r) => r.value !== null && r.value !== undefined).length;
            const result: ExtractJobResult = {
              extraction_id: stored.id,
              document_id: job.document_id,
              schema_id: input.schema_id,
              overall_confidence: stored.confidence,
              fields_extracted: fieldsExtracted,
              usage: { num_pages: content.pages, credits: stored.credits },
            };
            return result as unknown as Record<string, unknown>;
          } catch (e) {
            return failStage(rt, ctx, e);
          }
        },
      },
    ],
    async onStart(job) {
      const input = inputOf(job);
      await rt.events.emit('extraction.started', { extraction_id: input.extraction_id, job_id: job.id, document_id: job.document_id, schema_id: input.schema_id }, ownerOf(job));
    },
    async onComplete(job, output) {
      const input = inputOf(job);
      const r = output as unknown as ExtractJobResult;
      await cleanUp(rt, job);
      const x = await rt.store.repo('extractions').get(r.extraction_id);
      await rt.events.emit('extraction.completed', { extraction_id: r.extraction_id, document_id: job.document_id, schema_id: input.schema_id, overall_confidence: r.overall_confidence, fields_extracted: r.fields_extracted, data: x?.data ?? {}, job_id: job.id }, ownerOf(job));
      // the caller's last event: it answers once extraction.completed has reached its process too
      await publish(rt, job, { end: true });
      if (input.batch_id) await recordChildResult(rt, input.batch_id, job);
    },
    async onFail(job, error) {
      const input = inputOf(job);
      await cleanUp(rt, job);
      // a run cancelled while its result was being stored leaves neither the extraction nor its charge
      if (await rt.store.repo('extractions').get(input.extraction_id)) await removeExtraction(rt, input.extraction_id);
      await rt.events.emit('extraction.failed', { extraction_id: input.extraction_id, job_id: job.id, document_id: job.document_id, schema_id: input.schema_id, error: job.error ?? error.message }, ownerOf(job));
      if (input.batch_id) await recordChildResult(rt, input.batch_id, job);
    },
    // a run that ended after its owner was erased (or its job went with them): its extraction, its charge and
    // its stored input go
    async discard(job) {
      await removeExtraction(rt, inputOf(job).extraction_id);
      await rt.storage.deletePrefix(`jobs/${job.id}/`);
    },
  });
}

async function cleanUp(rt: Engine, job: JobRecord): Promise<void> {
  if (inputOf(job).source?.kind !== 'url') return;
  await rt.storage.delete(jobInputKey(job.id)).catch(() => {});
  await rt.storage.delete(jobParsedKey(job.id)).catch(() => {});
}

/**
 * Stores the extraction and charges it once per job: in one transaction that first touches the job row
 * (still processing: a cancelled job stores nothing; the row lock orders two workers that both got here)
 * and then inserts only if the extraction is not there yet. Returns what is stored (this run's or the
 * earlier one's) and its credits.
 */
async function storeOnce(rt: Engine, job: JobRecord, record: ExtractionRecord): Promise<ExtractionRecord & { credits: number }> {
  const attempt = () =>
    rt.store.transaction(async (tx) => {
      const live = await tx.repo('jobs').update({ id: job.id, status: 'processing' }, { updated_at: new Date() });
      if (!live) throw new NonRetryableError(CANCELLED);
      const existing = await tx.repo('extractions').get(record.id);
      if (existing) {
        const usage = await tx.repo('usage').findOne({ resource_id: record.id, operation: 'extract' });
        return { ...existing, credits: usage?.credits ?? 0 };
      }
      await tx.repo('extractions').insert(record);
      const credits = await charge(tx, ownerOf(job), 'extract', 1, record.id, rt.metrics);
      return { ...record, credits };
    });
  try {
    return await attempt();
  } catch (e) {
    // another worker's transaction inserted it first
    if (e instanceof StoreConflictError) return attempt();
    throw e;
  }
}

async function loadContent(rt: Engine, p: { parsedKey: string; documentId?: string; config?: Record<string, unknown>; pages?: number | null }): Promise<{ doc: ParsedDocument; chunks: Chunk[]; pages: number }> {
  const doc = await loadParsed(rt, p.parsedKey);
  if (p.documentId) {
    const chunks = await loadChunks(rt, p.documentId);
    return { doc, chunks: chunks.length ? chunks : chunkParsed(rt, doc, parseConfig({})), pages: doc.pages.length || p.pages || 1 };
  }
  return { doc, chunks: chunkParsed(rt, doc, parseConfig(p.config ?? {})), pages: doc.pages.length || 1 };
}

/** Waits while a document is pending or processing (the runtime keeps the job's heartbeat meanwhile). */
async function waitForDocument(rt: Engine, documentId: string, signal: AbortSignal) {
  const deadline = Date.now() + DOCUMENT_WAIT_MS;
  let delay = 200;
  for (;;) {
    const doc = await rt.store.repo('documents').get(documentId);
    if (!doc || doc.status === 'completed' || doc.status === 'failed') return doc;
    if (Date.now() > deadline) throw errors.conflict(`Document ${documentId} was still ${doc.status} after ${DOCUMENT_WAIT_MS / 60_000} minutes`);
    signal.throwIfAborted();
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(2000, delay * 1.5);
  }
}
