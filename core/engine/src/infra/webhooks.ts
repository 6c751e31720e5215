import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { NonRetryableError, isRetryable, signatureHeader, timestampedSignatureHeader, transient, verifyTimestampedSignature } from '@quire/core';
import type { JobRecord, Logger, PipelineRuntime, RetryPolicy, Store, WebhookDeliveryRecord } from '@quire/core';
import { newJob } from '../jobs.js';
import { pinnedLookup, vetUrl } from './url-fetch.js';

import type { NewDelivery } from './webhook-subscriptions.js';

// subscriptions (who gets which event, /api/webhooks operations) live next door; the package exports them from here
export * from './webhook-subscriptions.js';

export interface DeliveryOptions {
  allowedHosts: readonly string[];
  /** delays before attempts 2..N (spec §6.3: 1 min, 5 min, 30 min, 2 h) */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
}

/** The pipeline whose job is one delivery (stage `deliver`); its job id is the delivery's id. */
export const WEBHOOK_PIPELINE = 'webhook';

/** What a delivery attempt needs of its stage: the attempt number of its message, and its abort signal. */
export interface DeliveryAttempt {
  message: { attempt: number };
  signal?: AbortSignal;
}

/** The receiver's answer: a 4xx other than 408 and 429 will not change on a retry. */
export function permanentStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

// the signature scheme is the SDK's, shared with the HTTP integration plugin
export { signatureHeader, timestampedSignatureHeader, verifyTimestampedSignature };

/**
 * Persistent webhook delivery on the job engine: every delivery is a `webhook_deliveries` row (what users
 * and tests see) and a job of the `webhook` pipeline with the same id, so any worker (RabbitMQ or the
 * in-process queue) delivers it with the claims, retries, dead-lettering and cancellation of every job.
 * The pipeline's retry policy is `retryDelaysMs` (attempts = delays + 1): a 5xx, 408, 429, timeout or network
 * error fails the stage transiently and the transport delivers it again after the delay; a 2xx marks the row
 * delivered; any other 4xx (or an address refused by the SSRF check) fails the job at once. The row is
 * marked failed by the pipeline's onFail (last attempt, permanent answer or cancellation). Receivers must
 * still tolerate duplicates (spec §6.3): delivery is at least once.
 */
export class WebhookDispatcher {
  constructor(
    private readonly store: Store,
    private readonly opts: DeliveryOptions,
    private readonly logger: Logger,
    private readonly pipelines: Pick<PipelineRuntime, 'start' | 'fail'>,
    /** a webhook's stored (encrypted) signing secret → the secret */
    private readonly openSecret: (stored: string) => string,
    /** the key of a user's per-request callbacks (derived from the signing secret, so never stored) */
    private readonly callbackKey: (userId: string) => string,
  ) {}

  /** The `webhook` pipeline's retry policy: one attempt, then one per configured delay. */
  retryPolicy(): RetryPolicy {
    const delays = this.opts.retryDelaysMs;
    return { maxAttempts: delays.length + 1, delayMs: (attempt) => delays[Math.min(Math.max(attempt, 1), delays.length) - 1]! };
  }

  /** Records a delivery and queues its job; returns the row (status 'pending'). */
  async enqueue(d: NewDelivery): Promise<WebhookDeliveryRecord> {
    const row = newDelivery(d);
    await this.store.transaction(async (tx) => {
      await tx.repo('webhook_deliveries').insert(row);
      await tx.repo('jobs').insert(deliveryJob(row));
    });
    await this.start(row.id);
    return row;
  }

  /**
   * Records and queues the delivery of id `d.id` unless it exists: row and job are inserted in one transaction,
   * so when several processes try the same id (each process receives every event) exactly one succeeds and
   * the others get null.
   */
  async enqueueUnique(d: NewDelivery & { id: string }): Promise<WebhookDeliveryRecord | null> {
    const row = newDelivery(d);
    try {
      await this.store.transaction(async (tx) => {
        await tx.repo('webhook_deliveries').insert(row);
        await tx.repo('jobs').insert(deliveryJob(row));
      });
    } catch (e) {
      if ((e as Error).name === 'StoreConflictError') return null;
      if ((await this.store.repo('webhook_deliveries').get(row.id)) !== null) return null; // a conflict reported as a deadlock or the like
      throw e;
    }
    await this.start(row.id);
    return row;
  }

  /**
   * One attempt now, outside the job engine (the `test` endpoint): sends and records the row with its outcome
   * (delivered or failed; never retried). `secret` signs it (the row keeps d.secret).
   */
  async attemptNow(d: NewDelivery, secret: string, signal?: AbortSignal): Promise<WebhookDeliveryRecord> {
    const row = newDelivery(d);
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await this.send(row, secret, signal);
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (e) {
      error = (e as Error).message;
    }
    const done: WebhookDeliveryRecord = { ...row, status: error ? 'failed' : 'delivered', attempts: 1, last_status: status, last_error: error, latency_ms: Date.now() - started, updated_at: new Date() };
    await this.store.repo('webhook_deliveries').insert(done);
    return done;
  }

  /**
   * Deliveries left 'pending' without a job (recorded by the polling loop of earlier versions) get one; those
   * whose job failed before the row was settled are marked failed. Returns how many were queued.
   */
  async queueOrphans(): Promise<number> {
    let queued = 0;
    for (const row of await this.store.repo('webhook_deliveries').find({ status: 'pending' }, { order: { next_attempt_at: 'ASC' } })) {
      const job = await this.store.repo('jobs').get(row.id);
      if (job?.status === 'failed') await this.failed(row.id, job.error ?? 'failed');
      if (job) continue;
      try {
        await this.store.repo('jobs').insert(deliveryJob(row));
      } catch (e) {
        if ((e as Error).name === 'StoreConflictError') continue; // another process queued it
        throw e;
      }
      await this.start(row.id);
      queued++;
    }
    if (queued) this.logger.info({ deliveries: queued }, 'queued webhook deliveries left pending by an earlier version');
    return queued;
  }

  /**
   * One attempt (the `deliver` stage of the `webhook` pipeline). Resolves when the receiver answered 2xx; throws
   * a transient error on 5xx, 408, 429, a timeout or a network error (the runtime retries it on the policy's
   * schedule) and a NonRetryableError on any other answer.
   */
  async deliver(id: string, attempt: DeliveryAttempt): Promise<{ delivery_id: string; status: number }> {
    const repo = this.store.repo('webhook_deliveries');
    const row = await repo.get(id);
    if (!row) throw new NonRetryableError(`webhook delivery ${id} no longer exists`);
    if (row.status === 'delivered') return { delivery_id: id, status: row.last_status ?? 200 }; // a duplicate stage message
    if (row.status === 'failed') throw new NonRetryableError(row.last_error ?? 'delivery failed');
    await repo.update({ id, status: 'pending' }, { attempts: row.attempts + 1, updated_at: new Date() });
    const secret = await this.secretOf(row); // throws NonRetryableError when its webhook is gone or inactive
    let status: number | null = null;
    let error: Error | null = null;
    const started = Date.now();
    try {
      status = await this.send(row, secret, attempt.signal);
      if (status < 200 || status >= 300) error = permanentStatus(status) ? new NonRetryableError(`HTTP ${status}`) : transient(new Error(`HTTP ${status}`));
    } catch (e) {
      error = e instanceof Error ? e : new Error(String(e));
    }
    const now = new Date();
    const latency_ms = now.getTime() - started;
    if (!error) {
      const n = await repo.update({ id, status: 'pending' }, { status: 'delivered', last_status: status, last_error: null, latency_ms, updated_at: now });
      if (n && row.webhook_id) await this.store.repo('webhooks').update(row.webhook_id, { consecutive_failures: 0, last_delivery_at: now, last_delivery_status: 'delivered' });
      return { delivery_id: id, status: status! };
    }
    const retry = isRetryable(error) && attempt.message.attempt < this.retryPolicy().maxAttempts;
    const next = retry ? new Date(now.getTime() + this.retryPolicy().delayMs(attempt.message.attempt)) : now;
    await repo.update({ id, status: 'pending' }, { next_attempt_at: next, last_status: status, last_error: error.message, latency_ms, updated_at: now });
    if (!retry) this.logger.warn({ delivery: id, url: row.url, error: error.message }, 'webhook delivery failed for good');
    throw error;
  }

  /** Marks a pending delivery failed (the pipeline's onFail: last attempt, permanent answer or cancellation). */
  async failed(id: string, reason: string): Promise<void> {
    const now = new Date();
    const n = await this.store.repo('webhook_deliveries').update({ id, status: 'pending' }, { status: 'failed', last_error: reason, updated_at: now });
    const row = n ? await this.store.repo('webhook_deliveries').get(id) : null;
    const hook = row?.webhook_id ? await this.store.repo('webhooks').get(row.webhook_id) : null;
    if (hook) await this.store.repo('webhooks').update(hook.id, { consecutive_failures: hook.consecutive_failures + 1, last_delivery_at: now, last_delivery_status: 'failed' });
  }

  /**
   * The key that signs an attempt: a subscription's delivery is signed with its webhook's current secret (so a
   * rotation applies to pending retries too, and no copy of the secret is kept per delivery); a per-request
   * callback with its user's callback key, derived when it is sent (a row keeps a secret only when its caller
   * gave one of its own).
   */
  private async secretOf(row: WebhookDeliveryRecord): Promise<string> {
    if (!row.webhook_id) {
      if (row.secret) return row.secret;
      if (!row.user_id) throw new NonRetryableError('a callback without a user has no key to sign with');
      return this.callbackKey(row.user_id);
    }
    const hook = await this.store.repo('webhooks').get(row.webhook_id);
    if (!hook) throw new NonRetryableError('the webhook was deleted');
    if (!hook.active) throw new NonRetryableError('the webhook is inactive');
    return this.openSecret(hook.secret);
  }

  private async start(id: string): Promise<void> {
    try {
      await this.pipelines.start(id, WEBHOOK_PIPELINE, { delivery_id: id });
    } catch (e) {
      // not queued (the broker is down): fail job and row rather than leave them pending with no message
      await this.pipelines.fail(id, `could not queue the delivery: ${(e as Error).message}`).catch(() => {});
      throw e;
    }
  }

  private async send(row: WebhookDeliveryRecord, secret: string, signal?: AbortSignal): Promise<number> {
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
          signal,
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'user-agent': 'Quire-Webhooks/1.0',
            'x-svc-signature': signatureHeader(secret, row.payload),
            'x-svc-timestamp': String(timestamp),
            'x-svc-signature-v2': timestampedSignatureHeader(secret, row.payload, timestamp),
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

/** The job of a delivery: same id, type 'webhook', owned by the delivery's user. */
function deliveryJob(row: WebhookDeliveryRecord): JobRecord {
  // jobs.user_id is required; a delivery of no user (none is made today) gets an empty owner
  return newJob({ id: row.id, type: 'webhook', owner: { user_id: row.user_id ?? '', organization_id: null }, input: { delivery_id: row.id, event: row.event } });
}

function newDelivery(d: NewDelivery): WebhookDeliveryRecord {
  const now = new Date();
  return {
    id: d.id ?? randomUUID(),
    user_id: d.user_id,
    webhook_id: d.webhook_id ?? null,
    url: d.url,
    event: d.event,
    payload: typeof d.payload === 'string' ? d.payload : JSON.stringify(d.payload),
    secret: d.secret,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    last_status: null,
    last_error: null,
    latency_ms: null,
    created_at: now,
    updated_at: now,
  };
}
