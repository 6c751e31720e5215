/**
 * Readiness, one answer for the API's /readyz and a worker's health port: `connecting` (503) while the
 * database and the queue are being reached, `failed` (503) with the reason when they never will be, then
 * `ready` (200) or `not_ready` (503) from a live ping of each.
 *
 * Readiness is public, so what anyone may read is limited: the reason of a failure names the component and
 * the cause ("cannot connect to RabbitMQ at <address>: connect ECONNREFUSED") with addresses, user names and
 * paths masked; the full message is in the start-up log, and ping messages, dialects and plugin details go
 * only to callers given `details` (the bootstrap admin key, which a failed start cannot verify).
 */
import type { Engine } from './engine.js';
import { stagesStatus } from './status.js';

export interface ReadinessAnswer {
  status: 200 | 503;
  body: Record<string, unknown>;
}

/**
 * A failure message with what could map the network or the disk masked: URLs, e-mail-like user@host,
 * IP addresses with or without a port, host:port pairs and absolute paths become `<address>` / `<path>`.
 */
export function publicFailure(message: string): string {
  return message
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'",)]+/gi, '<address>')
    .replace(/\b[\w.+-]+@[\w.-]+(?::\d+)?/g, '<address>')
    .replace(/\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d+)?/gi, '<address>')
    .replace(/(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{1,4}(?![\w:])/gi, '<address>')
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '<address>')
    .replace(/\b(?:[a-z0-9-]+\.)+[a-z]{2,}:\d+\b/gi, '<address>')
    .replace(/\blocalhost:\d+\b/gi, '<address>')
    .replace(/(^|[\s'"(=])\/(?:[\w.@+-]+\/)*[\w.@+-]+/g, '$1<path>')
    .slice(0, 500);
}

async function check(fn: () => Promise<void>): Promise<{ ok: boolean; message?: string }> {
  try {
    await fn();
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** What /readyz answers; `details` adds dialect, transport, ping messages and plugin health details. */
export async function readiness(rt: Engine, opts: { details?: boolean; stages?: boolean } = {}): Promise<ReadinessAnswer> {
  const stages = opts.stages ? { stages: stagesStatus(rt.config) } : {};
  const down = { database: { ok: false }, queue: { ok: false } };
  if (rt.state === 'connecting') return { status: 503, body: { status: 'connecting', checks: down, ...stages } };
  if (rt.state === 'failed') {
    const reason = rt.failure ?? 'the database or the queue could not be connected';
    return { status: 503, body: { status: 'failed', error: opts.details ? reason : publicFailure(reason), checks: down, ...stages } };
  }
  const [db, queue] = await Promise.all([check(() => rt.store.ping()), check(() => rt.transport.ping())]);
  const ready = db.ok && queue.ok;
  const status = ready ? 'ready' : 'not_ready';
  const plugins = await rt.registry.health();
  if (!opts.details) {
    return { status: ready ? 200 : 503, body: { status, checks: { database: { ok: db.ok }, queue: { ok: queue.ok } }, plugins: plugins.map((p) => ({ plugin: p.plugin, ok: p.ok })), ...stages } };
  }
  return { status: ready ? 200 : 503, body: { status, checks: { database: { dialect: rt.store.dialect, ...db }, queue: { transport: rt.transport.name, ...queue } }, plugins, ...stages } };
}
