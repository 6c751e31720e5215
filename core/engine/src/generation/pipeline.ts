/**
 * `generate`: one job per generated document (run, report or summary), three stages that are the spec's
 * states (generation/jobs.ts):
 * - generate (generating): loads the sources and builds the structured model (generation/compose.ts),
 *   kept in blob storage for the next stage;
 * - format (formatting): the generator plugin of the output format writes the model's bytes;
 * - upload (uploading): the bytes become a document of the user (the id chosen at submission), queued for
 *   processing like an upload, and 1.0 credit is charged, in one transaction: a stage run again after a
 *   crash finds the document and neither stores nor charges twice.
 * Bad input and missing tools (a pdf without Chromium: SERVICE_UNAVAILABLE) fail the job at once.
 */
import { errors, isQuireError } from '@quire/core';
import type { DocumentRecord, GeneratedDocumentModel, JobRecord } from '@quire/core';
import { createHash } from 'node:crypto';
import type { EngineContext as Engine } from '../context.js';
import { actingAs } from '../infra/access.js';
import { ownerOf } from '../jobs.js';
import { submitJob } from '../infra/submit.js';
import { charge, creditsFor } from '../infra/ledger.js';
import { deleteDocument, documentEventData } from '../io/documents.js';
import { checkModel, llmModel, reportModel, structuredModel, summaryModel, templateModel, isTemplate } from './compose.js';
import type { SummarySentence } from './compose.js';
import { GENERATE_PIPELINE, generatorFor, inputOfGeneration } from './jobs.js';
import type { GenerateJobResult } from './jobs.js';
import { generatedTitle, loadSources } from './sources.js';
import { originalKey } from '../io/steps.js';

const modelKey = (jobId: string) => `jobs/${jobId}/generated-model.json`;
const outputKey = (jobId: string) => `jobs/${jobId}/generated-output`;

interface StoredModel {
  model: GeneratedDocumentModel;
  sections?: { name: string; citations: number[] }[];
  sentences?: SummarySentence[];
}

/** Formats whose output the document readers take under another format id (markdown is read as text). */
const STORED_FORMAT: Record<string, string> = { markdown: 'txt' };

/**
 * A failure as the job keeps it. Quire errors keep their code; bad input fails at once (the runtime's
 * rule), and so does a missing binary (retrying will not install Chromium), while an LLM or storage
 * hiccup is retried.
 */
function final(e: unknown): never {
  if (isQuireError(e) && e.code === 'SERVICE_UNAVAILABLE' && (e.details as { binary?: string } | undefined)?.binary) throw Object.assign(e, { retryable: false });
  throw e;
}

async function buildModel(rt: Engine, job: JobRecord, signal: AbortSignal): Promise<StoredModel> {
  const input = inputOfGeneration(job);
  const sources = await loadSources(rt, input.source_extraction_ids, input.source_document_ids);
  signal.throwIfAborted();
  // without a title in the request, the sources' titles name the output (the file name when they have none)
  const fallbackTitle = generatedTitle(input.kind, sources, input.document_name.replace(/\.[a-z0-9]+$/i, ''));
  if (input.kind === 'report') {
    const auth = await actingAs(rt.store, job.user_id);
    const llm = rt.registry.tryGet('llm') && input.settings.extractive !== true ? { settings: input.settings, signal } : undefined;
    const { model, sections } = await reportModel(rt, auth, sources, input.report?.title ?? fallbackTitle, input.report?.sections ?? [], llm);
    return { model, sections };
  }
  if (input.kind === 'summary') {
    const length = input.summary?.length ?? 'medium';
    const title = input.summary?.title ?? fallbackTitle;
    if (rt.registry.tryGet('llm') && input.settings.extractive !== true) {
      // with an LLM the summary is written (abstractive), every claim citing its passage
      const paragraphs = { short: '1 to 2 paragraphs', medium: '3 to 5 paragraphs', long: 'as many paragraphs as the sources need (comprehensive, at least 6)' }[length];
      const style = input.summary?.style ? ` Style: ${input.summary.style}.` : '';
      return { model: await llmModel(rt, await actingAs(rt.store, job.user_id), `Summarise the sources in ${paragraphs} of prose, without headings other than the title "${title}".${style}`, sources, title, { settings: input.settings, signal }) };
    }
    const { model, sentences } = summaryModel(sources, length, title, input.summary?.style ?? undefined);
    return { model, sentences };
  }
  const prompt = input.template_prompt ?? '';
  const title = typeof input.settings.title === 'string' ? input.settings.title : fallbackTitle;
  if (isTemplate(prompt)) return { model: await templateModel(prompt, sources, title, { timeoutMs: Math.min(rt.config.limits.parseTimeoutMs, TEMPLATE_TIMEOUT_MS), heapMb: rt.config.limits.readerHeapMb, signal }) };
  if (rt.registry.tryGet('llm')) return { model: await llmModel(rt, await actingAs(rt.store, job.user_id), prompt, sources, title, { settings: input.settings, signal }) };
  return { model: structuredModel(prompt, sources, title) };
}

/** time a template may take to render at most (the parse time limit when lower) */
const TEMPLATE_TIMEOUT_MS = 60_000;

export function defineGeneratePipeline(rt: Engine): void {
  rt.pipelines.define({
    name: GENERATE_PIPELINE,
    stages: [
      {
        name: 'generate',
        async run(ctx) {
          try {
            await ctx.progress(0.1);
            const built = await buildModel(rt, ctx.job, ctx.signal);
            checkModel(built.model);
            await rt.storage.put(modelKey(ctx.job.id), Buffer.from(JSON.stringify(built)));
            return {};
          } catch (e) {
            return final(e);
          }
        },
      },
      {
        name: 'format',
        async run(ctx) {
          const input = inputOfGeneration(ctx.job);
          try {
            const stored = JSON.parse((await rt.storage.get(modelKey(ctx.job.id))).toString('utf8')) as StoredModel;
            const out = await generatorFor(rt, input.output_format).generate({ format: input.output_format, document: stored.model, signal: ctx.signal });
            if (!out.bytes.length) throw errors.processing(`The ${input.output_format} writer produced an empty file`);
            await rt.storage.put(outputKey(ctx.job.id), out.bytes);
            return { mime: out.mime, size: out.bytes.length };
          } catch (e) {
            return final(e);
          }
        },
      },
      {
        name: 'upload',
        async run(ctx) {
          const job = ctx.job;
          const input = inputOfGeneration(job);
          const owner = ownerOf(job);
          const { mime } = ctx.payload as { mime: string };
          const stored = JSON.parse((await rt.storage.get(modelKey(job.id))).toString('utf8')) as StoredModel;
          let doc = await rt.store.repo('documents').get(input.document_id);
          if (!doc) {
            const bytes = await rt.storage.get(outputKey(job.id));
            await rt.storage.put(originalKey(input.document_id), bytes);
            const now = new Date();
            const record: DocumentRecord = {
              id: input.document_id,
              ...owner,
              name: input.document_name,
              status: 'pending',
              file_type: STORED_FORMAT[input.output_format] ?? input.output_format,
              mime_type: mime.split(';')[0]!.trim(),
              file_size: bytes.length,
              sha256: createHash('sha256').update(bytes).digest('hex'),
              pages: null,
              storage_key: originalKey(input.document_id),
              content_key: null,
              parsing_config: null,
              knowledge_base_id: null,
              error: null,
              issues: null,
              processing_ms: null,
              created_at: now,
              updated_at: now,
            };
            // the document, its ingest job and the generation's charge in one transaction
            await submitJob(rt, 'ingest', owner, { prepaid: 'generate' }, {
              type: 'document',
              documentId: record.id,
              with: async (tx) => {
                await tx.repo('documents').insert(record);
                await charge(tx, owner, 'generate', 1, record.id, rt.metrics);
              },
              beforeStart: () => rt.events.emit('document.uploaded', documentEventData(record), owner).catch((e) => rt.logger.debug({ err: (e as Error).message }, 'document.uploaded not published')),
              payload: { documentId: record.id },
            });
            doc = record;
          }
          const result: GenerateJobResult = {
            kind: input.kind,
            document_id: doc.id,
            document_name: doc.name,
            format: input.output_format,
            mime,
            file_size: doc.file_size,
            title: stored.model.title,
            citations: stored.model.citations,
            ...(stored.sections ? { sections: stored.sections } : {}),
            ...(stored.sentences ? { sentences: stored.sentences } : {}),
            credits: creditsFor('generate', 1),
          };
          return result as unknown as Record<string, unknown>;
        },
      },
    ],
    async onComplete(job) {
      await rt.storage.deletePrefix(`jobs/${job.id}/`).catch(() => {});
    },
    async onFail(job) {
      await rt.storage.deletePrefix(`jobs/${job.id}/`).catch(() => {});
    },
    // a run that ended after its owner was erased (or its job went with them): the document it made (its file,
    // its ingest job, what that wrote), its charge and the job's stored model and output go. Only an erasure
    // fences or deletes a generation job under way, so a gone job's document goes too.
    async discard(job) {
      const { document_id } = inputOfGeneration(job);
      const out = await rt.store.repo('documents').get(document_id);
      if (out) await deleteDocument(rt, out);
      await rt.storage.delete(originalKey(document_id));
      await rt.store.repo('usage').delete({ resource_id: document_id, operation: 'generate' });
      await rt.storage.deletePrefix(`jobs/${job.id}/`);
    },
  });
}

