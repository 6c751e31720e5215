import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import getRawBody from 'raw-body';
import inflate from 'inflation';
import type { Next } from 'koa';
import { errors } from '@quire/core';
import type { AppContext } from './context.js';
import { DRAIN_MAX_MS, DRAIN_MIN_BYTES, JSON_BODY_LIMIT, JSON_MAX_DEPTH, bodyLimitFor, tooLarge } from './limits.js';
import type { BodyLimitConfig } from './limits.js';

/** The Content-Encoding of a request, lower case ('identity' when none). */
export function contentEncoding(req: IncomingMessage): string {
  return String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
}

/** Whether a request carries a body (declared length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** Uploads are stored as sent: a compressed upload would be stored compressed, so only identity is accepted. */
export function assertIdentityEncoding(req: IncomingMessage): void {
  const enc = contentEncoding(req);
  if (enc !== 'identity') throw errors.validation(`Content-Encoding "${enc}" is not accepted for file uploads: send the file as is`, [{ field: 'Content-Encoding', message: 'only identity is accepted for uploads' }]);
}

/**
 * The deepest nesting of arrays/objects in a JSON text, stopping as soon as it passes `max`. One pass over
 * the characters, strings skipped: cheap next to JSON.parse, and it runs first so that a deeply nested body
 * is refused before any parsing.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * Reads a request body, decompressed when gzip/deflate/br (inflation), refusing it past `limit` bytes while
 * it arrives (raw-body). The request itself is never destroyed here: a refused body is drained afterwards
 * (drainUnreadBody) so that the client reads the answer.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const enc = contentEncoding(req);
  let source: Readable;
  try {
    source = inflate(req);
  } catch {
    throw errors.validation(`Unsupported Content-Encoding "${enc}": send the body as is, or gzip, deflate or br`, [{ field: 'Content-Encoding', message: 'unsupported encoding' }]);
  }
  try {
    return await getRawBody(source, { limit, length: enc === 'identity' ? req.headers['content-length'] : undefined });
  } catch (e) {
    const type = (e as { type?: string }).type;
    if (type === 'entity.too.large') throw tooLarge(limit, 'JSON body');
    if (source !== req && type === undefined) throw errors.validation(`The body could not be decoded as ${enc}`, [{ field: 'Content-Encoding', message: `invalid ${enc} data` }]);
    throw errors.validation('The request body was cut short');
  }
}

/**
 * JSON bodies of POST/PUT/PATCH/DELETE: UTF-8 only, at most JSON_BODY_LIMIT bytes (413) and JSON_MAX_DEPTH
 * levels of nesting (400, checked before parsing), an object or array at the top; errors in the spec's body.
 * Sets ctx.request.body ({} for an empty body).
 */
export function jsonBody(opts: { limit?: number; maxDepth?: number } = {}) {
  const limit = opts.limit ?? JSON_BODY_LIMIT;
  const maxDepth = opts.maxDepth ?? JSON_MAX_DEPTH;
  return async (ctx: AppContext, next: Next) => {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) || !ctx.is('application/json')) return next();
    const charset = (ctx.request.charset || 'utf-8').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') throw errors.validation(`JSON bodies are UTF-8; charset "${charset}" is not accepted`, [{ field: 'Content-Type', message: 'charset must be utf-8' }]);
    const buf = hasBody(ctx.req) ? await readBody(ctx.req, limit) : Buffer.alloc(0);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
    } catch {
      throw errors.validation('The JSON body is not valid UTF-8');
    }
    let body: unknown = {};
    if (text.trim()) {
      if (jsonDepthExceeds(text, maxDepth)) throw errors.validation(`The JSON body is nested more than ${maxDepth} levels deep`, [{ field: 'body', message: `nesting deeper than ${maxDepth}` }]);
      try {
        body = JSON.parse(text);
      } catch {
        throw errors.validation('Malformed JSON body');
      }
      if (typeof body !== 'object' || body === null) throw errors.validation('The JSON body must be an object or an array');
    }
    (ctx.request as unknown as { body: unknown }).body = body;
    return next();
  };
}

/**
 * When a request is answered before its body was read (a refused upload, a 401...), reads and discards the
 * rest of the body, for at most DRAIN_MAX_MS and max(2 × the route's limit, DRAIN_MIN_BYTES), then closes
 * the connection if the client is still sending. A client that writes its whole body before reading (fetch,
 * most libraries) then gets the answer (e.g. the 413) instead of EPIPE / "fetch failed".
 */
export function drainUnreadBody(config: BodyLimitConfig) {
  return async (ctx: AppContext, next: Next) => {
    try {
      await next();
    } finally {
      const req = ctx.req;
      if (!req.complete && !req.destroyed && hasBody(req)) drain(req, Math.max(2 * bodyLimitFor(req, config), DRAIN_MIN_BYTES), DRAIN_MAX_MS);
    }
  };
}

function drain(req: IncomingMessage, maxBytes: number, maxMs: number): void {
  req.unpipe();
  let seen = 0;
  const stop = () => {
    cleanup();
    req.socket?.destroy();
  };
  const timer = setTimeout(stop, maxMs);
  timer.unref();
  const onData = (c: Buffer) => {
    seen += c.length;
    if (seen > maxBytes) stop();
  };
  const cleanup = () => {
    clearTimeout(timer);
    req.off('data', onData);
  };
  req.on('data', onData);
  req.once('end', cleanup);
  req.once('close', cleanup);
  req.resume();
}
