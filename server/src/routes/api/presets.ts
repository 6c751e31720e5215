import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { PresetRecord } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { assertCanCreateIn, createPreset, deletePreset, listPresets, loadOwned, updatePreset } from '@quire/engine';

const TAG = 'Parse presets';
const uuid = z.string().uuid();

function apiPreset(p: PresetRecord) {
  return { id: p.id, name: p.name, description: p.description, config: p.config, scope: p.scope, organization_id: p.organization_id, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString() };
}

export function presetRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'get',
      path: '/api/parse/presets',
      summary: 'List parse presets',
      tag: TAG,
      query: z.object({ scope: z.enum(['user', 'organization', 'all']).default('all'), organization_id: uuid.optional() }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      return { presets: (await listPresets(ctx.quire, auth, query.scope, query.organization_id)).map(apiPreset) };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/parse/presets',
      summary: 'Create a parse preset',
      tag: TAG,
      status: 201,
      body: z
        .object({
          name: z.string().trim().min(1).max(200),
          description: z.string().max(2000).optional(),
          config: z.record(z.string(), z.unknown()).optional(),
          scope: z.enum(['user', 'organization']).default('user'),
          organization_id: uuid.optional(),
        })
        .strict()
        .refine((b) => b.scope !== 'organization' || !!b.organization_id, { message: 'organization_id is required when scope is organization', path: ['organization_id'] }),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const org = body.scope === 'organization' ? body.organization_id! : null;
      assertCanCreateIn(auth, org);
      const row = await createPreset(ctx.quire, auth.user.id, { ...body, organization_id: org });
      ctx.status = 201;
      return { preset: apiPreset(row) };
    },
  );

  route(router, { method: 'get', path: '/api/parse/presets/:id', summary: 'Get a parse preset', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return { preset: apiPreset(await loadOwned(ctx.quire.store, 'presets', presetId(ctx.params.id), auth, 'read', 'preset')) };
  });

  route(
    router,
    {
      method: 'patch',
      path: '/api/parse/presets/:id',
      summary: 'Update a parse preset',
      tag: TAG,
      body: z.object({ name: z.string().trim().min(1).max(200).optional(), description: z.string().max(2000).nullable().optional(), config: z.record(z.string(), z.unknown()).optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const row = await loadOwned(ctx.quire.store, 'presets', presetId(ctx.params.id), auth, 'write', 'preset');
      return { preset: apiPreset(await updatePreset(ctx.quire, row, body)) };
    },
  );

  route(router, { method: 'delete', path: '/api/parse/presets/:id', summary: 'Delete a parse preset (404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    await deletePreset(ctx.quire, await loadOwned(ctx.quire.store, 'presets', presetId(ctx.params.id), auth, 'write', 'preset'));
    return { success: true };
  });
}

function presetId(raw: string | undefined): string {
  if (!uuid.safeParse(raw).success) throw errors.notFound('preset', raw);
  return raw!;
}
