import Router from '@koa/router';
import { z } from 'zod';
import { QuireError, errors } from '@quire/core';
import type { ApiKeyRecord } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { activeKeys, createKeyWithin, keyScopes, keyStatus, ownKey, recordAudit, revokeKey, rotateKey } from '@quire/engine';

const TAG = 'API keys';

const scopes = z
  .array(z.enum(['read', 'full']))
  .min(1)
  .max(2)
  .describe('read: GET and HEAD requests only; full: everything the owner may do (default)');
const expiresAt = z.string().datetime({ offset: true }).describe('ISO 8601 time after which the key is refused with 401; omitted: never expires');

/** What a list shows of a key: never the key nor its hash. */
export function apiKey(k: ApiKeyRecord, now = Date.now()) {
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    prefix: k.prefix,
    scopes: keyScopes(k),
    status: keyStatus(k, now),
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    expires_at: k.expires_at?.toISOString() ?? null,
  };
}

function futureDate(iso: string | null | undefined, now: number): Date | null | undefined {
  if (iso === undefined || iso === null) return iso;
  const d = new Date(iso);
  if (d.getTime() <= now) throw new QuireError('VALIDATION_ERROR', 'expires_at must be in the future', { field: 'expires_at' });
  return d;
}

/** Spec §5: keys made in the dashboard (or with any full key), shown once; rotation revokes the old key at once. */
export function keyRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/api/keys',
      summary: 'Create an API key for the caller. The response has the key itself (`key`): it is shown only this once.',
      tag: TAG,
      status: 201,
      body: z.object({ name: z.string().trim().min(1).max(255), scopes: scopes.optional(), expires_at: expiresAt.optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const max = ctx.quire.config.apiKeys[auth.user.plan] ?? ctx.quire.config.apiKeys.free;
      const { key, record } = await createKeyWithin(ctx.quire.store, auth.user, max, body.name, { scopes: body.scopes?.includes('full') ? ['full'] : body.scopes ?? ['full'], expiresAt: futureDate(body.expires_at, ctx.quire.clock.now()) ?? null });
      await recordAudit(ctx.quire.store, { actor: auth.user.id, action: 'api_key.created', target_type: 'api_key', target_id: record.id, details: { name: record.name, prefix: record.prefix, scopes: keyScopes(record) }, ip: ctx.ip });
      ctx.set('Cache-Control', 'no-store');
      return { ...apiKey(record, ctx.quire.clock.now()), key };
    },
  );

  route(router, { method: 'get', path: '/api/keys', summary: "List the caller's API keys that are not revoked (prefix, name, scopes, last use, expiry; never the key)", tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const rows = await activeKeys(ctx.quire.store, auth.user.id);
    return { object: 'list', data: rows.map((k) => apiKey(k, ctx.quire.clock.now())) };
  });

  route(router, { method: 'get', path: '/api/keys/:id', summary: "One of the caller's API keys (404 for anyone else's or a revoked one)", tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return apiKey(await ownKey(ctx.quire.store, auth.user.id, ctx.params.id), ctx.quire.clock.now());
  });

  route(
    router,
    {
      method: 'post',
      path: '/api/keys/:id/rotate',
      summary: 'Rotate an API key: the old key is revoked at once and a new one (same name and scopes) is returned, shown only this once',
      tag: TAG,
      status: 201,
      body: z.object({ expires_at: expiresAt.nullable().optional().describe('expiry of the new key; omitted: that of the old key (none if it has passed); null: never') }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const { key, record, revoked } = await rotateKey(ctx.quire.store, auth.user.id, ctx.params.id, futureDate(body.expires_at, ctx.quire.clock.now()));
      await recordAudit(ctx.quire.store, { actor: auth.user.id, action: 'api_key.rotated', target_type: 'api_key', target_id: record.id, details: { rotated_from: revoked.id, prefix: record.prefix }, ip: ctx.ip });
      ctx.set('Cache-Control', 'no-store');
      return { ...apiKey(record, ctx.quire.clock.now()), key, rotated_from: revoked.id };
    },
  );

  route(router, { method: 'delete', path: '/api/keys/:id', summary: 'Revoke an API key at once (404 when it is not there for the caller, e.g. already revoked)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const k = await ownKey(ctx.quire.store, auth.user.id, ctx.params.id);
    if (!(await revokeKey(ctx.quire.store, k.id))) throw errors.notFound('api_key', k.id);
    await recordAudit(ctx.quire.store, { actor: auth.user.id, action: 'api_key.revoked', target_type: 'api_key', target_id: k.id, details: { name: k.name, prefix: k.prefix }, ip: ctx.ip });
    return { success: true, id: k.id, object: 'api_key', revoked: true };
  });
}
