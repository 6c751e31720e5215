/**
 * A worker's health port (QUIRE_WORKER_HEALTH_PORT): plain node:http, no web framework. /healthz says the
 * process is up, /readyz whether the database and the queue answer (503 when one does not), /metrics the
 * engine's Prometheus series under the same rule as the API's (QUIRE_METRICS / QUIRE_METRICS_TOKEN).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from './engine.js';
import { metricsAccess } from './metrics.js';
import { readiness } from './readiness.js';

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

async function answer(rt: Engine, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://worker').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'GET only' } }, { allow: 'GET, HEAD' });
  if (path === '/healthz') return json(res, 200, { status: 'ok', worker: rt.workerId });
  if (path === '/readyz') {
    const answer = await readiness(rt);
    return json(res, answer.status, answer.body);
  }
  if (path === '/metrics') {
    const access = metricsAccess(rt.config, req.headers.authorization);
    if (access === 'unauthorized') return json(res, 401, { error: { code: 'UNAUTHORIZED', message: 'metrics need Authorization: Bearer <QUIRE_METRICS_TOKEN>' } }, { 'www-authenticate': 'Bearer realm="metrics"' });
    if (access !== 'off') {
      const text = await rt.metrics.text();
      res.writeHead(200, { 'content-type': rt.metrics.contentType, 'cache-control': 'no-store' });
      res.end(text);
      return;
    }
  }
  json(res, 404, { error: { code: 'NOT_FOUND', message: `${path} not found` } });
}

/** Listens on `port` (0: any free port) of `host`; resolves with the server once it listens. */
export async function startHealthPort(rt: Engine, port: number, host: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    answer(rt, req, res).catch((e) => {
      rt.logger.warn({ err: (e as Error).message }, 'health port: request failed');
      if (!res.headersSent) json(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'internal error' } });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function healthPortOf(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}
