import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { ExtractBatchRecord } from '@quire/core';
import type { AppContext } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { loadOwned, newOwned } from '@quire/engine';
import { listOwned } from '@quire/engine';
import { Settings, UUID, resolveDefinition } from '@quire/engine';
import { apiBatchSummary, createBatch, runPendingBatch } from '@quire/engine';
import { batchComparison, comparisonCsv, comparisonXlsx, filterComparison } from '@quire/engine';

const TAG = 'Extract batches';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const BatchBody = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    document_ids: z.array(z.string().regex(UUID, 'must be a document UUID')).min(1, 'at least one document is required').max(50, 'at most 50 documents'),
    schema_id: z.string({ message: 'schema_id is required (a batch runs a saved or prebuilt schema)' }).min(1).max(64),
    config: z.object({ settings: Settings.optional(), instructions: z.string().max(20_000).optional() }).strict().optional(),
    run_immediately: z.boolean().optional(),
    organization_id: z.string().uuid().optional(),
  })
  .strict();

async function loadBatch(ctx: AppContext, mode: 'read' | 'write'): Promise<ExtractBatchRecord> {
  const id = ctx.params.id!;
  if (!UUID.test(id)) throw errors.notFound('batch', id);
  return loadOwned(ctx.quire.store, 'extract_batches', id, requireAuth(ctx), mode, 'batch');
}

export function extractBatchRoutes(router: Router<any, any>): void {
  route(router, { method: 'post', path: '/api/extract/batch', summary: 'Run one schema over up to 50 documents in the background (a job per document on the job runtime)', tag: TAG, body: BatchBody, status: 201 }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const rt = ctx.quire;
    const def = await resolveDefinition(rt, auth, { schemaId: body.schema_id });
    const documentIds = [...new Set(body.document_ids)];
    for (const id of documentIds) await loadOwned(rt.store, 'documents', id, auth, 'read');
    const batch = await createBatch(rt, newOwned(auth, body.organization_id ?? null), { name: body.name, documentIds, schemaId: def.schemaId!, schemaName: def.schemaName, config: body.config ?? null, runNow: body.run_immediately ?? true });
    ctx.status = 201;
    return apiBatchSummary(batch);
  });

  route(
    router,
    { method: 'get', path: '/api/extract/batch', summary: 'List batches ({batches, total})', tag: TAG, query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), offset: z.coerce.number().int().min(0).default(0) }) },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
        const { rows, total } = await listOwned(ctx.quire.store, 'extract_batches', auth, {}, { limit: query.limit, offset: query.offset, orderBy: 'created_at' });
      return { batches: rows.map((b) => ({ ...apiBatchSummary(b), document_count: b.document_ids.length, updated_at: b.updated_at.toISOString() })), total };
    },
  );

  route(router, { method: 'get', path: '/api/extract/batch/:id', summary: 'A batch with its per-document results and comparison', tag: TAG }, async (ctx) => {
    const batch = await loadBatch(ctx, 'read');
    return { ...apiBatchSummary(batch), results: batch.results, comparison_data: await batchComparison(ctx.quire, batch), updated_at: batch.updated_at.toISOString() };
  });

  route(router, { method: 'post', path: '/api/extract/batch/:id/run', summary: 'Start a batch created with run_immediately false', tag: TAG }, async (ctx) => {
    return apiBatchSummary(await runPendingBatch(ctx.quire, await loadBatch(ctx, 'write')));
  });

  route(
    router,
    {
      method: 'get',
      path: '/api/extract/batch/:id/comparison',
      summary: 'Field-by-field comparison of a batch\'s extractions (json, csv or xlsx download)',
      tag: TAG,
      raw: 'application/json, text/csv or xlsx',
      query: z.object({
        only_discrepancies: flag.optional(),
        min_variance: z.coerce.number().min(0).optional(),
        max_confidence: z.coerce.number().min(0).max(1).optional(),
        fields: z.string().max(5000).optional(),
        format: z.enum(['json', 'csv', 'xlsx']).default('json'),
      }),
    },
    async (ctx, { query }) => {
      const batch = await loadBatch(ctx, 'read');
      const fields = query.fields?.split(',').map((f) => f.trim()).filter(Boolean);
      const comparison = filterComparison(await batchComparison(ctx.quire, batch), { only_discrepancies: query.only_discrepancies, min_variance: query.min_variance, max_confidence: query.max_confidence, fields });
      if (query.format === 'json') {
        ctx.body = comparison;
        return;
      }
      const file = `comparison-${batch.id}.${query.format}`;
      ctx.set('Content-Disposition', `attachment; filename="${file}"`);
      if (query.format === 'csv') {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.body = comparisonCsv(comparison);
      } else {
        ctx.type = XLSX;
        ctx.body = await comparisonXlsx(comparison);
      }
    },
  );
}
