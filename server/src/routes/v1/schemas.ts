import Router from '@koa/router';
import { z } from 'zod';
import type { SchemaRecord } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { newOwned } from '@quire/engine';
import { epoch } from '@quire/engine';
import { FieldList, UUID, createSchema, deleteSchema, loadSchema, readableSchemas, saveSchema, schemaPatch } from '@quire/engine';

const TAG = 'Schemas (v1)';

/** The versioned API's schema object (spec §2.1) plus instructions. v1 and /api/extract/schemas share one table. */
export function v1Schema(s: SchemaRecord) {
  return { id: s.id, object: 'schema' as const, name: s.name, description: s.description, fields: s.fields, instructions: s.instructions, created: epoch(s.created_at) };
}

const Create = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(255),
    description: z.string().max(5000).optional(),
    fields: FieldList.optional(),
    instructions: z.string().max(20_000).optional(),
  })
  .strict();

const Update = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    description: z.string().max(5000).nullable().optional(),
    fields: FieldList.optional(),
    instructions: z.string().max(20_000).nullable().optional(),
  })
  .strict();

export function schemaRoutes(router: Router<any, any>): void {
  route(router, { method: 'post', path: '/v1/schemas', summary: 'Create an extraction schema', tag: TAG, body: Create, status: 201 }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const row = await createSchema(ctx.quire, newOwned(auth, null), body);
    ctx.status = 201;
    return v1Schema(row);
  });

  route(
    router,
    {
      method: 'get',
      path: '/v1/schemas',
      summary: 'List the schemas the caller can use (own and shared in their organizations); limit (1-100, default all) and offset page it, has_more and total say what is left',
      tag: TAG,
      query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional(), offset: z.coerce.number().int().min(0).default(0) }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const all = await readableSchemas(ctx.quire, auth);
      const page = all.slice(query.offset, query.limit === undefined ? undefined : query.offset + query.limit);
      return { object: 'list', data: page.map(v1Schema), has_more: query.offset + page.length < all.length, total: all.length };
    },
  );

  route(router, { method: 'get', path: '/v1/schemas/:id', summary: 'Get a schema', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return v1Schema(await loadSchema(ctx.quire, auth, ctx.params.id!, 'read'));
  });

  route(router, { method: 'post', path: '/v1/schemas/:id', summary: 'Update a schema (only the fields given change)', tag: TAG, body: Update }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const row = await loadSchema(ctx.quire, auth, ctx.params.id!, 'write');
    const patch = schemaPatch(body);
    await saveSchema(ctx.quire, row.id, patch);
    return v1Schema({ ...row, ...patch });
  });

  route(router, { method: 'delete', path: '/v1/schemas/:id', summary: 'Delete a schema (404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const id = ctx.params.id!;
    await loadSchema(ctx.quire, auth, id, 'write');
    await deleteSchema(ctx.quire, id);
    return { id, object: 'schema', deleted: true };
  });
}
