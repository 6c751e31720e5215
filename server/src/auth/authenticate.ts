import type { Next } from 'koa';
import { errors } from '@quire/core';
import type { AppContext } from '../http/context.js';
import { KEY_PATTERN, hashKey } from '@quire/engine';

/** Caches nothing: a revoked key stops at once on every process. */
export function authentication() {
  return async (ctx: AppContext, next: Next) => {
    ctx.state.auth = null;
    ctx.state.authMode = 'required';
    let done = false;
    ctx.state.authenticate = async () => {
      if (done) return;
      done = true;
      const mode = ctx.state.authMode;
      if (mode === 'none') return;
      const header = ctx.get('authorization');
      if (!header) {
        if (mode === 'optional') return;
        throw errors.unauthorized('Missing Authorization header: send "Authorization: Bearer svc_…"');
      }
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) throw errors.unauthorized('Authorization header must be "Bearer <API key>"');
      const key = m[1]!;
      if (!KEY_PATTERN.test(key)) throw errors.unauthorized('Invalid API key');
      const store = ctx.quire.store;
      const record = await store.repo('api_keys').findOne({ key_hash: hashKey(key) });
      if (!record || record.revoked_at) throw errors.unauthorized(record ? 'API key revoked' : 'Invalid API key');
      if (record.expires_at && record.expires_at.getTime() <= Date.now()) throw errors.unauthorized('API key expired');
      const user = await store.repo('users').get(record.user_id);
      if (!user) throw errors.unauthorized('Invalid API key');
      const memberships = (await store.repo('memberships').find({ user_id: user.id })).map((m) => ({ organization_id: m.organization_id, role: m.role }));
      ctx.state.auth = { user, key: record, memberships };
      // last_used_at at most once a minute per key, off the request path
      if (!record.last_used_at || Date.now() - record.last_used_at.getTime() > 60_000) {
        store.repo('api_keys').update(record.id, { last_used_at: new Date() }).catch(() => {});
      }
      await ctx.rateLimiter.check(ctx, { id: record.id, plan: user.plan });
    };
    await next();
  };
}
