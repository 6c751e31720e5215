import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { loadOwned } from '@quire/engine';
import { readableExtraction, runExtraction } from '@quire/engine';
import { FieldList, Settings, UUID, normaliseFields } from '@quire/engine';
import { v1Extraction } from '@quire/engine';

const TAG = 'Extractions (v1)';

const Create = z
  .object({
    document_id: z.string({ message: 'document_id is required' }).min(1, 'document_id is required'),
    schema_id: z.string().min(1).max(64).optional(),
    fields: FieldList.optional(),
    description: z.string().max(20_000).optional(),
    instructions: z.string().max(20_000).optional(),
    settings: Settings.optional(),
    include_citations: z.boolean().optional(),
  })
  .strict();

export function extractionRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/v1/extractions',
      summary: 'Run an extraction on a completed document with exactly one of schema_id, fields or description (runs synchronously)',
      tag: TAG,
      body: Create,
      status: 201,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      const run = await runExtraction(rt, auth, {
        documentId: body.document_id,
        schemaId: body.schema_id,
        fields: body.fields ? normaliseFields(body.fields) : undefined,
        description: body.description,
        instructions: body.instructions,
        settings: body.settings,
      });
      const row = await readableExtraction(rt, null, run.extraction_id);
      if (!row) throw errors.processing('The extraction was not stored');
      ctx.status = 201;
      return { ...v1Extraction(row, !!body.include_citations), job_id: run.job_id };
    },
  );

  route(router, { method: 'get', path: '/v1/extractions/:id', summary: 'Get an extraction (corrections applied)', tag: TAG, query: z.object({ include_citations: z.enum(['true', 'false', '1', '0']).optional() }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const id = ctx.params.id!;
    if (!UUID.test(id)) throw errors.notFound('extraction', id);
    const row = await loadOwned(ctx.quire.store, 'extractions', id, auth, 'read');
    return v1Extraction(row, query.include_citations === 'true' || query.include_citations === '1');
  });
}
