import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { PresetRecord } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { assertCanCreateIn, canRead, loadOwned } from '@quire/engine';
import { mergeConfig, parseConfig } from '@quire/engine';

const TAG = 'Parse presets';
const uuid = z.string().uuid();

function apiPreset(p: PresetRecord) {
  return { id: p.id, name: p.name, description: p.description, config: p.config, scope: p.scope, organization_id: p.organization_id, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString() };
}

/** Config is merged with the defaults and validated; what is stored is the full, valid config. */
function fullConfig(base: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  return parseConfig(mergeConfig(base, patch ?? {}), 'config') as unknown as Record<string, unknown>;
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
      const repo = ctx.quire.store.repo('presets');
      let rows: PresetRecord[] = [];
      if (query.scope !== 'organization') rows.push(...(await repo.find({ user_id: auth.user.id, scope: 'user' }, { order: { created_at: 'DESC' } })));
      if (query.scope !== 'user') {
        const orgs = query.organization_id ? [query.organization_id] : auth.memberships.map((m) => m.organization_id);
        if (query.organization_id && !auth.memberships.some((m) => m.organization_id === query.organization_id)) throw errors.notFound('organization', query.organization_id);
        if (orgs.length) rows.push(...(await repo.find({ organization_id: orgs, scope: 'organization' }, { order: { created_at: 'DESC' } })));
      }
      rows = rows.filter((r) => canRead(auth, r));
      return { presets: rows.map(apiPreset) };
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
      const now = new Date();
      const row = await ctx.quire.store.repo('presets').insert({
        id: randomUUID(),
        user_id: auth.user.id,
        organization_id: org,
        name: body.name,
        description: body.description ?? null,
        config: fullConfig({}, body.config),
        scope: body.scope,
        created_at: now,
        updated_at: now,
      });
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
      const patch: Partial<PresetRecord> = { updated_at: new Date() };
      if (body.name !== undefined) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description;
      if (body.config !== undefined) patch.config = fullConfig(row.config, body.config);
      await ctx.quire.store.repo('presets').update(row.id, patch);
      return { preset: apiPreset({ ...row, ...patch }) };
    },
  );

  route(router, { method: 'delete', path: '/api/parse/presets/:id', summary: 'Delete a parse preset (404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const id = presetId(ctx.params.id);
    await loadOwned(ctx.quire.store, 'presets', id, auth, 'write', 'preset');
    await ctx.quire.store.repo('presets').delete(id);
    return { success: true };
  });
}

function presetId(raw: string | undefined): string {
  if (!uuid.safeParse(raw).success) throw errors.notFound('preset', raw);
  return raw!;
}
