import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger, Store, WebhookDeliveryRecord } from '@quire/core';
import { hmacHex, safeEqualHex } from './signing.js';
import { pinnedLookup, vetUrl } from './url-fetch.js';

export interface DeliveryOptions {
  allowedHosts: readonly string[];
  /** delays before attempts 2..N (spec §6.3: 1 min, 5 min, 30 min, 2 h) */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  pollMs?: number;
}

/** The signature header value for a payload: sha256=<hex HMAC-SHA256 of the exact bytes sent>. */
export function signatureHeader(secret: string, payload: string): string {
  return `sha256=${hmacHex(secret, payload)}`;
}

/**
 * The timestamped signature (X-Svc-Signature-V2): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<exact body>">`.
 * The same t is sent in X-Svc-Timestamp. A receiver recomputes v1 from the header's t and the raw body,
 * compares in constant time, and refuses a t too far from its clock (e.g. more than 5 minutes): a captured
 * delivery cannot be replayed later, since changing t breaks v1. Each attempt is signed with its own time.
 */
export function timestampedSignatureHeader(secret: string, payload: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, `${timestamp}.${payload}`)}`;
}

/** Checks an X-Svc-Signature-V2 value (what a receiver does; tolerance in seconds, default 300). */
export function verifyTimestampedSignature(secret: string, payload: string, header: string, opts: { toleranceS?: number; now?: number } = {}): boolean {
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const i = item.indexOf('=');
    if (i > 0) parts.set(item.slice(0, i).trim(), [...(parts.get(item.slice(0, i).trim()) ?? []), item.slice(i + 1).trim()]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t)) return false;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceS ?? 300)) return false;
  const expected = hmacHex(secret, `${t}.${payload}`);
  return (parts.get('v1') ?? []).some((v) => safeEqualHex(v, expected));
}

/**
 * Persistent webhook delivery: every delivery is a row first (a restart loses none), attempted at once and
 * then on the retry schedule; a delivery is claimed before each attempt so several processes never send the
 * same attempt twice. Receivers must still tolerate duplicates (spec §6.3).
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly store: Store, private readonly opts: DeliveryOptions, private readonly logger: Logger) {}

  async enqueue(d: { url: string; event: string; payload: unknown; secret: string; user_id: string | null; webhook_id?: string | null }): Promise<WebhookDeliveryRecord> {
    const now = new Date();
    const row = await this.store.repo('webhook_deliveries').insert({
      id: randomUUID(),
      user_id: d.user_id,
      webhook_id: d.webhook_id ?? null,
      url: d.url,
      event: d.event,
      payload: JSON.stringify(d.payload),
      secret: d.secret,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_status: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    });
    if (!this.stopped) this.track(this.attempt(row));
    return row;
  }

  start(): void {
    const poll = this.opts.pollMs ?? 1000;
    const tick = async () => {
      try {
        const due = await this.store.repo('webhook_deliveries').find({ status: 'pending' }, { order: { next_attempt_at: 'ASC' }, limit: 50 });
        const now = Date.now();
        for (const row of due) if (row.next_attempt_at.getTime() <= now) this.track(this.attempt(row));
      } catch (e) {
        this.logger.warn({ err: (e as Error).message }, 'webhook poll failed');
      }
      if (!this.stopped) this.timer = setTimeout(tick, poll);
    };
    this.timer = setTimeout(tick, poll);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  private track(p: Promise<void>): void {
    this.running.add(p);
    p.finally(() => this.running.delete(p));
  }

  private async attempt(row: WebhookDeliveryRecord): Promise<void> {
    const repo = this.store.repo('webhook_deliveries');
    const lease = new Date(Date.now() + this.opts.timeoutMs + 30_000);
    const claimed = await repo.update({ id: row.id, attempts: row.attempts, status: 'pending' }, { attempts: row.attempts + 1, next_attempt_at: lease, updated_at: new Date() });
    if (claimed !== 1) return;
    const attempt = row.attempts + 1;
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await this.send(row);
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (e) {
      error = (e as Error).message;
    }
    const maxAttempts = this.opts.retryDelaysMs.length + 1;
    if (!error) {
      await repo.update(row.id, { status: 'delivered', last_status: status, last_error: null, updated_at: new Date() });
    } else if (attempt >= maxAttempts) {
      await repo.update(row.id, { status: 'failed', last_status: status, last_error: error, updated_at: new Date() });
      this.logger.warn({ delivery: row.id, url: row.url, error }, 'webhook delivery failed for good');
    } else {
      const delay = this.opts.retryDelaysMs[attempt - 1]!;
      await repo.update(row.id, { next_attempt_at: new Date(Date.now() + delay), last_status: status, last_error: error, updated_at: new Date() });
    }
  }

  private async send(row: WebhookDeliveryRecord): Promise<number> {
    const { url, address, family } = await vetUrl(row.url, { allowedHosts: this.opts.allowedHosts });
    const body = Buffer.from(row.payload, 'utf8');
    const timestamp = Math.floor(Date.now() / 1000);
    return new Promise<number>((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(
        url,
        {
          method: 'POST',
          lookup: pinnedLookup(address, family),
          timeout: this.opts.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'user-agent': 'Quire-Webhooks/1.0',
            'x-svc-signature': signatureHeader(row.secret, row.payload),
            'x-svc-timestamp': String(timestamp),
            'x-svc-signature-v2': timestampedSignatureHeader(row.secret, row.payload, timestamp),
            'x-svc-event': row.event,
            'x-svc-delivery': row.id,
          },
        } as http.RequestOptions,
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }
}
