import Router from '@koa/router';
import { z } from 'zod';
import {
  SectionPatch,
  SplitAnalyzeBody,
  SplitBatchBody,
  SplitConfigBody,
  SplitConfigPatch,
  SplitRunBody,
  analyzeSplit,
  apiSplitConfig,
  createSplitConfig,
  deleteSplitConfig,
  documentSections,
  listOwned,
  loadOwned,
  patchSection,
  runSplit,
  splitBatch,
  splitResults,
  startSplitBatch,
  updateSplitConfig,
} from '@quire/engine';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { validateWebhookUrl } from './parse.js';

const TAG = 'Split';

/**
 * Split (spec §4.7): run (manual, page, ai), analyze, saved configurations, batches, results, section
 * labels, and a document's sections (GET /api/documents/:id/sections). Someone else's job, config, batch,
 * section or document is a 404. Fixed paths come before /:id.
 */
export function splitRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/api/split/run',
      summary:
        'Split a document into sections, each becoming a document of its own (a PDF section is a PDF of those pages, copied losslessly; other formats keep the file and carry the page range of the parsed content). Input: document_id, or input (svc://, jobid:// to reuse a finished parse without parsing again, or a URL that becomes a document). Methods (config.method): manual (sections, checked: inside the page count, no overlap unless config.settings.allowOverlap), page (every config.settings.pagesPerSection pages, default 1), ai (detected boundaries; default without sections; config.instructions and settings.minSectionPages honoured). config_id merges a saved configuration under the inline config. skip_analysis uses the given sections (else the whole document) without detection. Without webhook_url the call waits until the children are made and indexed and answers {success, job_id, sections}; with webhook_url it answers 202 at once ({success, job_id, status: pending, status_url, results_url}) and the URL receives split.completed or split.failed (signed, retried).',
      tag: TAG,
      body: SplitRunBody,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      if (body.webhook_url) await validateWebhookUrl(ctx.quire, body.webhook_url);
      const out = await runSplit(ctx.quire, auth, body);
      ctx.status = out.status;
      return out.body;
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/split/analyze',
      summary:
        'Suggested sections of a processed document without making anything: {suggested_sections: [{name, page_start, page_end, confidence, reason, document_type, signals}], total_pages, recommended_splits} (recommended_splits: the number of split points, sections less one). document_id or input (svc://, jobid://); config {method, instructions, settings}.',
      tag: TAG,
      body: SplitAnalyzeBody,
    },
    async (ctx, { body }) => analyzeSplit(ctx.quire, requireAuth(ctx), body),
  );

  // ---- saved configurations
  route(router, { method: 'get', path: '/api/split/configs', summary: 'Saved split configurations ({configs: [...], total}), newest first', tag: TAG, query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(100), offset: z.coerce.number().int().min(0).default(0) }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const { rows, total } = await listOwned(ctx.quire.store, 'split_configs', auth, {}, { limit: query.limit, offset: query.offset, orderBy: 'created_at' });
    return { configs: rows.map(apiSplitConfig), total };
  });

  route(
    router,
    { method: 'post', path: '/api/split/configs', summary: 'Save a split configuration ({config}: id, name, description, instructions, sections, settings {method, min_section_pages, preserve_headers, ...}, organization_id, created_at, updated_at)', tag: TAG, body: SplitConfigBody, status: 201 },
    async (ctx, { body }) => ({ config: apiSplitConfig(await createSplitConfig(ctx.quire, requireAuth(ctx), body)) }),
  );

  route(router, { method: 'get', path: '/api/split/configs/:id', summary: 'A saved split configuration ({config})', tag: TAG }, async (ctx) => {
    return { config: apiSplitConfig(await loadOwned(ctx.quire.store, 'split_configs', ctx.params.id, requireAuth(ctx), 'read', 'split config')) };
  });

  route(router, { method: 'patch', path: '/api/split/configs/:id', summary: 'Change a saved split configuration ({config}); settings given are merged over the stored ones', tag: TAG, body: SplitConfigPatch }, async (ctx, { body }) => ({ config: apiSplitConfig(await updateSplitConfig(ctx.quire, requireAuth(ctx), ctx.params.id, body)) }));

  route(router, { method: 'delete', path: '/api/split/configs/:id', summary: 'Delete a saved split configuration ({success: true, id})', tag: TAG }, async (ctx) => {
    const row = await deleteSplitConfig(ctx.quire, requireAuth(ctx), ctx.params.id);
    return { success: true, id: row.id };
  });

  // ---- batches
  route(
    router,
    {
      method: 'post',
      path: '/api/split/batch',
      summary:
        'Split up to 50 documents in the background, one split job each: document_ids and/or input (URLs become documents; svc:// and jobid:// references), combined at most 50 (more is a 400 VALIDATION_ERROR); config_id and config as in run; webhook_url receives split.completed or split.failed once per job. Answers {batch_id, total_count, message} (202).',
      tag: TAG,
      body: SplitBatchBody,
      status: 202,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      if (body.webhook_url) await validateWebhookUrl(ctx.quire, body.webhook_url);
      return startSplitBatch(ctx.quire, auth, body);
    },
  );

  route(router, { method: 'get', path: '/api/split/batch/:id', summary: 'A split batch: id, status (processing, completed), counts, progress, and its jobs [{id, document_id, status, error, created_at, results_url}]', tag: TAG }, async (ctx) => splitBatch(ctx.quire, requireAuth(ctx), ctx.params.id));

  // ---- results and sections
  route(
    router,
    { method: 'get', path: '/api/split/results/:id', summary: 'A split job: {job_id, status, progress, source_document_id, method, sections [{id, name, document_id, page_start, page_end, section_type, confidence, label}], error, created_at, completed_at}', tag: TAG },
    async (ctx) => splitResults(ctx.quire, requireAuth(ctx), ctx.params.id),
  );

  route(
    router,
    { method: 'patch', path: '/api/split/sections/:id', summary: 'Label or rename a section: label (at most 64 characters; null clears it), section_name (non-empty). Answers {section: {id, document_id, section_name, section_type, page_start, page_end, confidence, label, metadata}}', tag: TAG, body: SectionPatch },
    async (ctx, { body }) => patchSection(ctx.quire, requireAuth(ctx), ctx.params.id, body),
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/documents/:id/sections',
      summary: "The sections of a document's latest finished split: {documentId, documentName, sections [{id, sectionName, sectionType, pageStart, pageEnd, pageCount, confidence, label, metadata, childDocumentId, childDocumentName, childDocumentStatus}], totalSections, hasSections}",
      tag: TAG,
    },
    async (ctx) => documentSections(ctx.quire, requireAuth(ctx), ctx.params.id),
  );
}
