import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { SchemaRecord } from '@quire/core';
import { PREBUILT_SCHEMAS } from '@quire/fields';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { newOwned, roleIn } from '@quire/engine';
import { FieldDef, FieldList, Settings, UUID, createSchema, deleteSchema, fieldsForDescription, loadSchema, normaliseFields, readableSchemas, saveSchema, schemaPatch } from '@quire/engine';
import { mergeFields, parsedDocument, suggestFor, suggestSchema } from '@quire/engine';

const TAG = 'Extract schemas';
const CATEGORIES = ['invoice', 'contract', 'resume', 'form', 'financial'] as const;
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Application API schema (spec §2.2 "Extraction schema"), plus organization_id and updated_at. */
export function apiSchema(s: SchemaRecord) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    instructions: s.instructions,
    fields: s.fields,
    settings: s.settings ?? {},
    is_shared: s.is_shared,
    organization_id: s.organization_id,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}

const SchemaBody = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(255),
    description: z.string().max(5000).nullable().optional(),
    instructions: z.string().max(20_000).nullable().optional(),
    fields: FieldList.optional(),
    settings: Settings.optional(),
    is_shared: z.boolean().optional(),
    organization_id: z.string().uuid().nullable().optional(),
  })
  .strict();

export function extractSchemaRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'get',
      path: '/api/extract/schemas',
      summary: 'List extraction schemas: own, plus those shared in the caller\'s organizations (organization=false: own only; organization_only: only organization schemas; organization_id: one organization); limit (1-100, default all) and offset page the list',
      tag: TAG,
      query: z.object({ organization: flag.optional(), organization_only: flag.optional(), organization_id: z.string().uuid().optional(), limit: z.coerce.number().int().min(1).max(100).optional(), offset: z.coerce.number().int().min(0).default(0) }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      if (query.organization_id && !roleIn(auth, query.organization_id)) throw errors.notFound('organization', query.organization_id);
      let rows = await readableSchemas(ctx.quire, auth);
      if (query.organization === false) rows = rows.filter((r) => r.user_id === auth.user.id);
      if (query.organization_only) rows = rows.filter((r) => r.organization_id !== null);
      if (query.organization_id) rows = rows.filter((r) => r.organization_id === query.organization_id);
      return rows.slice(query.offset, query.limit === undefined ? undefined : query.offset + query.limit).map(apiSchema);
    },
  );

  route(router, { method: 'post', path: '/api/extract/schemas', summary: 'Create an extraction schema (answers the schema)', tag: TAG, body: SchemaBody, status: 201 }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    if (body.is_shared && !body.organization_id) throw errors.validation('is_shared needs organization_id: a schema is shared with the members of its organization', [{ field: 'organization_id', message: 'required when is_shared is true' }]);
    const row = await createSchema(ctx.quire, newOwned(auth, body.organization_id ?? null), body);
    ctx.status = 201;
    return apiSchema(row);
  });

  // fixed paths before /:id
  route(
    router,
    {
      method: 'get',
      path: '/api/extract/schemas/prebuilt',
      summary: 'Prebuilt schemas ({schemas: [...]}), by category or id',
      tag: TAG,
      query: z.object({ category: z.enum(CATEGORIES).optional(), id: z.string().min(1).max(64).optional() }),
    },
    async (ctx, { query }) => {
      requireAuth(ctx);
      let list = PREBUILT_SCHEMAS.filter((p) => !query.category || p.category === query.category);
      if (query.id) {
        list = list.filter((p) => p.id === query.id);
        if (!list.length) throw errors.notFound('prebuilt schema', query.id);
      }
      return { schemas: list.map((p) => ({ id: p.id, name: p.name, category: p.category, description: p.description, fields: p.fields, prebuilt: true })) };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/extract/schemas/generate',
      summary: 'Suggest fields from a document\'s printed labels and tables (optionally appended to current_fields)',
      tag: TAG,
      body: z.object({ document_id: z.string().min(1, 'document_id is required'), merge_with_current: z.boolean().optional(), current_fields: z.array(FieldDef).max(200).optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const { doc, parsed } = await parsedDocument(ctx.quire, auth, body.document_id);
      const suggested = await suggestFor(ctx.quire, parsed);
      if (body.merge_with_current) {
        const current = normaliseFields(body.current_fields ?? []);
        const { fields, added } = mergeFields(current, suggested);
        return { fields, message: `Added ${added} suggested field${added === 1 ? '' : 's'} from "${doc.name}" to ${current.length} current field${current.length === 1 ? '' : 's'}` };
      }
      return { fields: suggested, message: suggested.length ? `Suggested ${suggested.length} field${suggested.length === 1 ? '' : 's'} from "${doc.name}"` : `No labelled values or tables found in "${doc.name}"` };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/extract/schemas/generate-from-description',
      summary: 'Fields from a natural-language description (the LLM when configured, else offline rules)',
      tag: TAG,
      body: z.object({ description: z.string().trim().min(10, 'description must be at least 10 characters').max(20_000) }).strict(),
    },
    async (ctx, { body }) => {
      requireAuth(ctx);
      const { fields, method } = await fieldsForDescription(ctx.quire, body.description);
      const withReasons = fields.map((f) => ({ ...f, suggestionReason: method === 'llm' ? 'proposed by the language model from the description' : `named in the description${f.description ? `: "${f.description}"` : ''}` }));
      const message = fields.length ? `Generated ${fields.length} field${fields.length === 1 ? '' : 's'} from the description (${method === 'llm' ? 'language model' : 'offline rules'})` : 'No field could be derived from the description; list the values to extract, e.g. "the invoice number, the total and the due date"';
      return { fields: withReasons, message };
    },
  );

  route(router, { method: 'get', path: '/api/extract/schemas/:id', summary: 'Get an extraction schema', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return apiSchema(await loadSchema(ctx.quire, auth, ctx.params.id!, 'read'));
  });

  route(router, { method: 'put', path: '/api/extract/schemas/:id', summary: 'Update an extraction schema (the fields given replace the stored ones; answers the schema)', tag: TAG, body: SchemaBody.partial().strict() }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const row = await loadSchema(ctx.quire, auth, ctx.params.id!, 'write');
    const patch = schemaPatch(body);
    if (body.organization_id !== undefined && body.organization_id !== row.organization_id) {
      if (row.user_id !== auth.user.id) throw errors.forbidden('Only the schema\'s creator can move it to another organization');
      patch.organization_id = newOwned(auth, body.organization_id).organization_id;
    }
    if (body.is_shared !== undefined) patch.is_shared = body.is_shared;
    const next = { ...row, ...patch };
    if (next.is_shared && !next.organization_id) throw errors.validation('is_shared needs organization_id: a schema is shared with the members of its organization', [{ field: 'organization_id', message: 'required when is_shared is true' }]);
    await saveSchema(ctx.quire, row.id, patch);
    return apiSchema(next);
  });

  route(router, { method: 'delete', path: '/api/extract/schemas/:id', summary: 'Delete an extraction schema (answers {success, id}; 404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const id = ctx.params.id!;
    await loadSchema(ctx.quire, auth, id, 'write');
    await deleteSchema(ctx.quire, id);
    return { success: true, id };
  });

  route(
    router,
    { method: 'get', path: '/api/extract/suggested-schema', summary: 'The prebuilt or saved schema that best fits a document\'s labelled values, or null', tag: TAG, query: z.object({ document_id: z.string({ message: 'document_id is required' }).min(1, 'document_id is required') }) },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const { parsed } = await parsedDocument(ctx.quire, auth, query.document_id);
      return { suggestedSchema: await suggestSchema(ctx.quire, auth, parsed) };
    },
  );
}
