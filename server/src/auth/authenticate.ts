import { timingSafeEqual } from 'node:crypto';
import type { Next } from 'koa';
import { errors } from '@quire/core';
import type { AppContext } from '../http/context.js';
import { KEY_PATTERN, csrfTokenFor, findSession, hashKey, membershipsOf, scopeAllows } from '@quire/engine';
import { CSRF_HEADER, SESSION_COOKIE } from './cookies.js';

const SAFE = ['GET', 'HEAD', 'OPTIONS'];
/** Spec §5.6: the embed endpoint takes a Bearer API key, never a session. */
const KEY_ONLY = new Set(['/api/v1/embed', '/v1/embed']);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a), y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * `Authorization: Bearer <API key>`, or else the session cookie of a signed-in browser. Caches nothing: a
 * revoked key or an ended session stops at once on every process.
 * - a key's scopes are enforced here: a read-only key may only GET/HEAD (403 otherwise); an expired key is 401;
 * - a cookie-authenticated write must carry the CSRF proof in X-CSRF-Token (the value of the quire_csrf
 *   cookie, also returned by login) and must not come from another site (Sec-Fetch-Site), else 403.
 */
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
      // before the database is connected (only /readyz and /metrics answer then) a request is anonymous
      if (ctx.quire.state !== 'ready' && mode === 'optional') return;
      const header = ctx.get('authorization');
      if (!header) {
        const token = ctx.cookies.get(SESSION_COOKIE);
        if (token && !KEY_ONLY.has(ctx.path)) return sessionAuth(ctx, token, mode);
        if (mode === 'optional') return;
        throw errors.unauthorized(KEY_ONLY.has(ctx.path) ? 'This endpoint requires "Authorization: Bearer svc_…" (an API key)' : 'Missing Authorization header: send "Authorization: Bearer svc_…" or sign in');
      }
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) throw errors.unauthorized('Authorization header must be "Bearer <API key>"');
      const key = m[1]!;
      if (!KEY_PATTERN.test(key)) throw errors.unauthorized('Invalid API key');
      const store = ctx.quire.store;
      const record = await store.repo('api_keys').findOne({ key_hash: hashKey(key) });
      if (!record || record.revoked_at) throw errors.unauthorized(record ? 'API key revoked' : 'Invalid API key');
      if (record.expires_at && record.expires_at.getTime() <= ctx.quire.clock.now()) throw errors.unauthorized('API key expired');
      const user = await store.repo('users').get(record.user_id);
      if (!user) throw errors.unauthorized('Invalid API key');
      ctx.state.auth = { user, key: record, ...(await membershipsOf(store, user.id)) };
      // last_used_at at most once a minute per key, off the request path
      if (!record.last_used_at || Date.now() - record.last_used_at.getTime() > 60_000) {
        store.repo('api_keys').update(record.id, { last_used_at: new Date() }).catch(() => {});
      }
      await ctx.rateLimiter.check(ctx, { ids: [record.id, `user:${user.id}`], plan: user.plan });
      if (!scopeAllows(record, ctx.method)) throw errors.forbidden(`This API key is read-only (scope read): ${ctx.method} is not allowed; use a key with scope full`);
    };
    await next();
  };
}

async function sessionAuth(ctx: AppContext, token: string, mode: 'required' | 'optional'): Promise<void> {
  const store = ctx.quire.store;
  const session = await findSession(store, token, ctx.quire.clock);
  const user = session ? await store.repo('users').get(session.user_id) : null;
  if (!session || !user) {
    if (mode === 'optional') return;
    throw errors.unauthorized('Session expired or ended: sign in again');
  }
  if (!SAFE.includes(ctx.method)) {
    // a page of another site can make the browser send the cookie, but can neither read it nor set this header
    if (ctx.get('sec-fetch-site') === 'cross-site') throw errors.forbidden('Cross-site request refused');
    const proof = ctx.get(CSRF_HEADER);
    if (!proof || !sameText(proof, csrfTokenFor(token))) throw errors.forbidden(`Missing or wrong CSRF token: send the ${CSRF_HEADER} header with the value of the quire_csrf cookie`);
  }
  ctx.state.auth = { user, key: null, ...(await membershipsOf(store, user.id)), session };
  await ctx.rateLimiter.check(ctx, { ids: [`user:${user.id}`], plan: user.plan });
}
