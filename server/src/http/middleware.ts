import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import { ERROR_CATALOGUE, QuireError, isQuireError } from '@quire/core';
import type { Logger } from '@quire/core';
import type { AppContext } from './context.js';
import { looksInternal } from '@quire/engine';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Request id (from X-Request-Id when sane, else new), a child logger, one structured log line per request. */
export function requestContext(logger: Logger) {
  return async (ctx: AppContext, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ reqId: requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, user: ctx.state.auth?.user.id }, 'request');
    }
  };
}

/**
 * Maps every error to the spec's body {error: {code, message, details}}. Only Quire's own errors (and the
 * exposed messages of 4xx HTTP errors) say what happened; any other error is INTERNAL_ERROR with the
 * request id, its message and stack only in the log.
 */
export function errorHandler() {
  return async (ctx: AppContext, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new QuireError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) throw new QuireError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow') || 'none'}`);
    } catch (err) {
      const e = toQuireError(err);
      if (e.code === 'INTERNAL_ERROR') ctx.state.log?.error({ err }, 'unhandled error');
      else if (e.status >= 500) ctx.state.log?.warn({ err: { message: (err as Error).message, code: e.code } }, 'request failed');
      ctx.status = e.status;
      if (e.code === 'rate_limit_exceeded') {
        ctx.body = { error: { type: 'rate_limit_error', message: e.message, code: 'rate_limit_exceeded' } };
      } else {
        ctx.body = { error: publicError(e, ctx.state.requestId) };
      }
    }
  };
}

/**
 * The {code, message, details} users see for an error. Quire's own errors keep their message unless it
 * carries internal detail; any other error is INTERNAL_ERROR; both then say only which request (or job)
 * to look up in the log.
 */
export function publicError(err: unknown, requestId: string): { code: string; message: string; details: unknown } {
  const e = toQuireError(err);
  if (e.code === 'INTERNAL_ERROR' || (e.status >= 500 && looksInternal(e.message))) {
    const what = e.code === 'INTERNAL_ERROR' ? 'Internal server error' : 'Processing failed because of an internal error';
    return { code: e.code, message: `${what} (request id ${requestId})`, details: { request_id: requestId } };
  }
  return { code: e.code, message: e.message, details: e.details ?? null };
}

export function toQuireError(err: unknown): QuireError {
  if (isQuireError(err)) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; message?: string; expose?: boolean };
  const status = e?.status ?? e?.statusCode;
  if (e?.type === 'entity.parse.failed') return new QuireError('VALIDATION_ERROR', 'Malformed JSON body');
  if (e?.type === 'entity.too.large' || status === 413) return new QuireError('FILE_TOO_LARGE', 'Request body too large');
  if (status === 415) return new QuireError('VALIDATION_ERROR', 'Unsupported content type or encoding');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return new QuireError('VALIDATION_ERROR', 'Unsupported body encoding or charset');
  // an http-errors 4xx made on purpose (ctx.throw) says what is wrong; anything else gets the generic text
  if (status === 400) return new QuireError('VALIDATION_ERROR', e.expose && e.message && isHttpError(err) ? e.message : 'Bad request');
  if (status === 401) return new QuireError('UNAUTHORIZED', 'Missing or invalid API key');
  if (status === 403) return new QuireError('FORBIDDEN', 'Not allowed');
  if (status === 404) return new QuireError('NOT_FOUND', 'Not found');
  if (status === 405) return new QuireError('METHOD_NOT_ALLOWED', 'Method not allowed');
  return new QuireError('INTERNAL_ERROR', 'Internal server error');
}

/** An http-errors error thrown on purpose with a message meant for the client (ctx.throw(400, '...')). */
function isHttpError(err: unknown): boolean {
  const e = err as { expose?: unknown; status?: unknown };
  return e?.expose === true && typeof e.status === 'number';
}

export { ERROR_CATALOGUE };

/** What answers while the engine is still connecting (or failed to): the process and its readiness. */
const ANSWERED_WHILE_CONNECTING = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json']);

/**
 * Until the database and the queue are connected, every route but /healthz, /readyz, /metrics and
 * /openapi.json answers 503 SERVICE_UNAVAILABLE (with Retry-After while still connecting); their bodies are
 * left unread.
 */
export function readinessGate() {
  return async (ctx: AppContext, next: Next) => {
    const rt = ctx.quire;
    if (rt.state === 'ready' || ANSWERED_WHILE_CONNECTING.has(ctx.path)) return next();
    if (rt.state === 'connecting') {
      ctx.set('Retry-After', '5');
      throw new QuireError('SERVICE_UNAVAILABLE', 'The service is starting: the database and the queue are not connected yet (see /readyz)');
    }
    throw new QuireError('SERVICE_UNAVAILABLE', 'The service could not connect to its database or queue (see /readyz)');
  };
}
