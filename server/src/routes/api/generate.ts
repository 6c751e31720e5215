import Router from '@koa/router';
import { z } from 'zod';
import { errors, jobError } from '@quire/core';
import type { JobRecord } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import type { AppContext } from '../../http/context.js';
import { route } from '../../http/route.js';
import { sendStoredFile } from '../../http/download.js';
import {
  GENERATED_FILE_PURPOSE,
  TemplateBody,
  TemplatePatch,
  apiTemplate,
  checkTemplateInput,
  createTemplate,
  deleteTemplate,
  documentFileUrl,
  generatedFileUrl,
  generationState,
  loadOwned,
  loadTemplate,
  publicErrorText,
  readableDocument,
  readableTemplates,
  resultOfGeneration,
  submitGeneration,
  updateTemplate,
  verifyLink,
} from '@quire/engine';
import type { Engine, GenerationState } from '@quire/engine';

const TAG = 'Generate';
const uuid = z.string().uuid();
const Format = z.string().trim().min(1).max(32).describe('pdf, docx, markdown or html (or a format of an added generator plugin)');
const Settings = z.record(z.string(), z.unknown());
/** how long POST /api/generate/run waits for its document before answering 202 with the job */
const RUN_WAIT_MS = 120_000;

const RunBody = z
  .object({
    template_prompt: z.string().max(200_000).optional().describe('a handlebars template (markdown with {{field}} placeholders, the sources as context) or a plain instruction; required unless template_id is given'),
    output_format: Format,
    source_extraction_id: uuid.optional(),
    source_document_ids: z.array(uuid).max(20).optional(),
    template_id: uuid.optional(),
    settings: Settings.optional().describe('e.g. title, model, style, temperature'),
    document_name: z.string().max(255).optional(),
    organization_id: uuid.optional(),
    async: z.boolean().optional().describe('true: answer 202 at once with the job instead of waiting for the document'),
  })
  .strict();

const ReportBody = z
  .object({
    source_extraction_ids: z.array(uuid).max(20).optional(),
    source_document_ids: z.array(uuid).max(20).optional(),
    config: z
      .object({
        title: z.string().max(500).optional(),
        outputFormat: Format.default('pdf'),
        sections: z.array(z.string().trim().min(1).max(200)).min(1).max(50),
        extractive: z.boolean().optional().describe('with an LLM configured, each section is written by it from its passages; true keeps the quoted passages'),
      })
      .strict(),
    document_name: z.string().max(255).optional(),
    organization_id: uuid.optional(),
  })
  .strict();

const SummaryBody = z
  .object({
    source_extraction_id: uuid.optional(),
    source_document_ids: z.array(uuid).max(20).optional(),
    config: z
      .object({
        outputFormat: Format.default('pdf'),
        length: z.enum(['short', 'medium', 'long']).default('medium'),
        style: z.string().max(200).optional().describe('"bullets" gives each paragraph as a list'),
        title: z.string().max(500).optional(),
        extractive: z.boolean().optional().describe('with an LLM configured, summaries are written by it; true keeps the offline extractive summary'),
      })
      .strict()
      .default({ outputFormat: 'pdf', length: 'medium' }),
    document_name: z.string().max(255).optional(),
    organization_id: uuid.optional(),
  })
  .strict();

/** spec §4.6 GET /api/generate/jobs/<id>, plus the kind, the error of a failed job and the content facts (citations; report sections; summary sentences). */
function apiJob(rt: Engine, job: JobRecord, status: GenerationState) {
  const r = resultOfGeneration(job);
  return {
    id: job.id,
    status,
    progress: job.progress,
    result: r
      ? {
          document_id: r.document_id,
          file_url: generatedFileUrl(rt, r.document_id),
          document_file_url: documentFileUrl(rt, r.document_id),
          file_size: r.file_size,
          format: r.format,
          document_name: r.document_name,
          title: r.title,
          citations: r.citations,
          ...(r.sections ? { sections: r.sections } : {}),
          ...(r.sentences ? { sentences: r.sentences } : {}),
          credits: r.credits,
        }
      : null,
    error: job.status === 'failed' ? publicErrorText(job.error, `job ${job.id}`) : null,
    kind: (job.input as { kind?: string } | null)?.kind ?? null,
    created_at: job.created_at.toISOString(),
    completed_at: job.completed_at ? job.completed_at.toISOString() : null,
  };
}

async function loadJob(ctx: AppContext, id: string): Promise<JobRecord> {
  const auth = requireAuth(ctx);
  const job = await loadOwned(ctx.quire.store, 'jobs', id, auth, 'read', 'job');
  if (job.type !== 'generate') throw errors.notFound('job', id);
  return job;
}

const started = (ctx: AppContext, job: JobRecord) => {
  ctx.status = 202;
  return { job_id: job.id, status: 'pending' as const, generated_document_id: (job.input as { document_id: string }).document_id, status_url: `${ctx.quire.config.publicUrl}/api/generate/jobs/${job.id}`, created_at: job.created_at.toISOString() };
};

/**
 * Generation (spec §4.6): run, reports and summaries as jobs of the `generate` pipeline, their status, the
 * signed download of their files, and templates CRUD. Fixed paths come before /:id.
 */
export function generateRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/api/generate/run',
      summary:
        'Generate a document (pdf, docx, markdown, html) from a template or an instruction with the data of an extraction and the content of documents. Waits for the document (up to 120 s) and answers {success, job_id, generated_document_id, output_file_url (signed, expires in 1 hour), format, created_at}; with async true, or when it takes longer, answers 202 {job_id, status, generated_document_id, status_url}. The output is a new document of the caller (processed, searchable) and costs 1.0 credit. Without Chromium a pdf fails with 503 SERVICE_UNAVAILABLE.',
      tag: TAG,
      body: RunBody,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      const { job, done } = await submitGeneration(rt, auth, {
        kind: 'run',
        output_format: body.output_format,
        template_prompt: body.template_prompt ?? null,
        template_id: body.template_id ?? null,
        source_extraction_ids: body.source_extraction_id ? [body.source_extraction_id] : [],
        source_document_ids: body.source_document_ids ?? [],
        settings: body.settings ?? {},
        document_name: body.document_name ?? null,
        organization_id: body.organization_id ?? null,
      }, body.async ? {} : { waitMs: RUN_WAIT_MS });
      // async, or still running after the wait: answered 202 with the job to poll
      if (!done) return started(ctx, job);
      if (done.status === 'failed') throw jobError(done);
      const r = resultOfGeneration(done)!;
      return { success: true, job_id: done.id, generated_document_id: r.document_id, output_file_url: generatedFileUrl(rt, r.document_id), document_file_url: documentFileUrl(rt, r.document_id), format: r.format, file_size: r.file_size, document_name: r.document_name, created_at: done.created_at.toISOString() };
    },
  );

  route(
    router,
    { method: 'get', path: '/api/generate/jobs/:id', summary: 'A generation job: {id, status (pending, generating, formatting, uploading, completed, failed), progress (0-100), result {document_id, file_url (signed, expires in 1 hour), file_size, format, title, citations, sections (reports), sentences (summaries)} or null, error, created_at, completed_at}', tag: TAG },
    async (ctx) => {
      const job = await loadJob(ctx, ctx.params.id!);
      return apiJob(ctx.quire, job, await generationState(ctx.quire, job));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/generate/reports',
      summary: 'Generate a report: one section per name in config.sections, each filled with the passages of the sources that best match it (search over the source documents and those of the extractions), every passage citing its chunk; with an LLM configured the model writes each section from those passages, citing them (config.extractive true keeps the passages). Answers 202 {job_id, status, generated_document_id, status_url}; poll GET /api/generate/jobs/<id>. 1.0 credit.',
      tag: TAG,
      body: ReportBody,
      status: 202,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const { job } = await submitGeneration(ctx.quire, auth, {
        kind: 'report',
        output_format: body.config.outputFormat,
        source_extraction_ids: body.source_extraction_ids ?? [],
        source_document_ids: body.source_document_ids ?? [],
        document_name: body.document_name ?? null,
        organization_id: body.organization_id ?? null,
        settings: body.config.extractive ? { extractive: true } : {},
        report: { title: body.config.title ?? null, sections: body.config.sections },
      });
      return started(ctx, job);
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/generate/summaries',
      summary: 'Generate a summary of documents (and of the document of an extraction, whose fields follow as a table). With an LLM configured it is written by the model from the best passages, every claim cited (config.extractive true keeps the offline summary). Offline it is extractive: the most central sentences, in their original order, each citing its chunk; short = 1–2 paragraphs, medium = 3–5, long = more, growing with the sources (fewer only when the sources have fewer sentences). Answers 202 {job_id, status, generated_document_id, status_url}; the finished job has the file and result.sentences [{text, paragraph, citation, chunk_id, document_id, page}]. 1.0 credit.',
      tag: TAG,
      body: SummaryBody,
      status: 202,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const { job } = await submitGeneration(ctx.quire, auth, {
        kind: 'summary',
        output_format: body.config.outputFormat,
        source_extraction_ids: body.source_extraction_id ? [body.source_extraction_id] : [],
        source_document_ids: body.source_document_ids ?? [],
        document_name: body.document_name ?? null,
        organization_id: body.organization_id ?? null,
        settings: body.config.extractive ? { extractive: true } : {},
        summary: { length: body.config.length, style: body.config.style ?? null, title: body.config.title ?? null },
      });
      return started(ctx, job);
    },
  );

  route(
    router,
    { method: 'get', path: '/api/generate/files/:id', summary: 'Download a generated file through its signed link (output_file_url, result.file_url); no API key needed until the link expires', tag: TAG, auth: 'none', raw: 'application/octet-stream', query: z.object({ expires: z.coerce.number(), sig: z.string().min(1).max(128) }) },
    async (ctx, { query }) => {
      const rt = ctx.quire;
      const id = ctx.params.id!;
      if (!verifyLink(rt.signingSecret, GENERATED_FILE_PURPOSE, id, query.expires, query.sig)) throw errors.unauthorized('Invalid or expired download link');
      const doc = await readableDocument(rt, null, id);
      if (!doc) throw errors.notFound('document', id);
      // an html file is downloaded (attachment), never shown on this origin
      await sendStoredFile(ctx, rt.storage, { key: doc.storage_key, name: doc.name, mime: doc.mime_type, size: doc.file_size });
    },
  );

  // ---- templates
  route(router, { method: 'get', path: '/api/generate/templates', summary: 'List generation templates: the caller\'s and those shared in their organizations ({templates: [template]})', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return { templates: (await readableTemplates(ctx.quire, auth)).map(apiTemplate) };
  });

  route(
    router,
    { method: 'post', path: '/api/generate/templates', summary: 'Create a generation template; answers 201 {template}. is_shared needs organization_id (shared with its members). The template_prompt must be valid handlebars when it has {{…}} expressions, and output_format a format some generator writes.', tag: TAG, body: TemplateBody, status: 201 },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      return { template: apiTemplate(await createTemplate(ctx.quire, auth, body, checkTemplateInput(ctx.quire))) };
    },
  );

  route(router, { method: 'get', path: '/api/generate/templates/:id', summary: 'A generation template ({template}); someone else\'s unshared template is 404', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return { template: apiTemplate(await loadTemplate(ctx.quire, auth, ctx.params.id!, 'read')) };
  });

  route(router, { method: 'put', path: '/api/generate/templates/:id', summary: 'Update a generation template with the fields given ({template}); 403 for a member who may only read it', tag: TAG, body: TemplatePatch }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    return { template: apiTemplate(await updateTemplate(ctx.quire, auth, ctx.params.id!, body, checkTemplateInput(ctx.quire))) };
  });

  route(router, { method: 'delete', path: '/api/generate/templates/:id', summary: 'Delete a generation template ({success: true, id})', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    await deleteTemplate(ctx.quire, auth, ctx.params.id!);
    return { success: true, id: ctx.params.id! };
  });
}

