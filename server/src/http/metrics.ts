import type { Context, Next } from 'koa';
import { errors } from '@quire/core';
import { metricsAccess } from '@quire/engine';
import type { Engine } from '@quire/engine';

/** Counts every request by method, route template (never the raw path: no ids in labels) and status class. */
export function httpMetrics(rt: Engine) {
  return async (ctx: Context, next: Next) => {
    const began = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as unknown as { _matchedRoute?: string | RegExp })._matchedRoute;
      // a thrown error has been turned into its status by the error handler, inside this middleware
      rt.metrics.httpRequest(ctx.method, route ? String(route) : ctx.path === '/metrics' ? '/metrics' : 'unmatched', ctx.status, (performance.now() - began) / 1000);
    }
  };
}

/**
 * GET /metrics in Prometheus text: open with QUIRE_METRICS=on, to `Authorization: Bearer <QUIRE_METRICS_TOKEN>`
 * only when a token is set (401 otherwise), else 404 like any unknown path.
 */
export function metricsEndpoint(rt: Engine) {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== '/metrics') return next();
    const access = metricsAccess(rt.config, ctx.get('authorization') || undefined);
    if (access === 'off') return next();
    if (access === 'unauthorized') {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      throw errors.unauthorized('metrics need Authorization: Bearer <QUIRE_METRICS_TOKEN>');
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      ctx.status = 405; // the error handler answers with the error body
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = rt.metrics.contentType;
    ctx.body = await rt.metrics.text();
  };
}
