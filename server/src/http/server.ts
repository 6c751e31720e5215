import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { bodyLimitFor, tooLarge } from './limits.js';
import type { BodyLimitConfig } from './limits.js';
import { SECURITY_HEADERS } from './security.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * `Expect: 100-continue`: a request whose Content-Length is over the limit of where it goes is answered 413
 * at once (the client sends no body); any other is told to continue and handled as usual. Without this,
 * Node answers every such request with 100 Continue, the client sends its whole body, and the 413 only
 * comes after.
 */
export function answerExpectContinue(server: http.Server, handler: Handler, config: BodyLimitConfig): void {
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const limit = bodyLimitFor(req, config);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (Number.isFinite(declared) && declared > limit) {
      const incoming = String(req.headers['x-request-id'] ?? '');
      const requestId = /^[A-Za-z0-9._-]{8,128}$/.test(incoming) ? incoming : randomUUID();
      const e = tooLarge(limit, limitName(req));
      const body = JSON.stringify({ error: { code: e.code, message: e.message, details: e.details } });
      // nothing of the body was sent: the connection can close without a reset
      res.writeHead(413, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId, connection: 'close' });
      res.end(body);
      return;
    }
    res.writeContinue();
    handler(req, res);
  });
}

function limitName(req: http.IncomingMessage): string {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (req.method === 'PUT' || type.startsWith('multipart/form-data')) return 'File';
  return 'Request body';
}

/** An HTTP server for the app: Koa's handler plus the answer to Expect: 100-continue. */
export function createHttpServer(handler: Handler, config: BodyLimitConfig & { http?: { keepAliveMs: number } }): http.Server {
  const server = http.createServer(handler);
  // an idle pooled connection is closed by the client (or its load balancer, typically at 60 s) before the
  // server closes it: Node's 5 s default has clients that reuse a connection after a pause write into a
  // socket being closed. The headers timeout must stay above it.
  const keepAlive = config.http?.keepAliveMs ?? 65_000;
  server.keepAliveTimeout = keepAlive;
  server.headersTimeout = keepAlive + 1000;
  answerExpectContinue(server, handler, config);
  return server;
}
