/**
 * Webhook subscriptions (spec §4.15, §6): who gets which event, the body they get, and the management
 * operations behind /api/webhooks. Sending, signing and retries are the WebhookDispatcher's (webhooks.ts):
 * every delivery is a `webhook_deliveries` row and a job of the `webhook` pipeline.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EVENT_TYPES, errors, isQuireError } from '@quire/core';
import type { EventBus, Logger, PipelineRuntime, QuireEvent, Store, WebhookDeliveryRecord, WebhookRecord } from '@quire/core';
import type { AuthInfo } from './access.js';
import { assertCanCreateIn } from './access.js';
import { decryptSecret, encryptSecret, secretsKey } from './secrets.js';
import type { SecretsKeyHolder } from './secrets.js';
import { vetUrl } from './url-fetch.js';

/** What a new delivery is made of. `payload` is serialised once: those bytes are what is signed and sent. */
export interface NewDelivery {
  id?: string;
  url: string;
  event: string;
  /** a string is sent as is; anything else as its JSON */
  payload: unknown;
  /** the HMAC key; '' for a webhook subscription's delivery (its webhook's current secret signs each attempt) and for a per-request callback (its user's callback key, derived at each attempt) */
  secret: string;
  user_id: string | null;
  webhook_id?: string | null;
}

/** What subscriptions use of the engine (its WebhookDispatcher, store, config...); structural, so no import cycle. */
interface Deliveries {
  enqueue(d: NewDelivery): Promise<WebhookDeliveryRecord>;
  enqueueUnique(d: NewDelivery & { id: string }): Promise<WebhookDeliveryRecord | null>;
  attemptNow(d: NewDelivery, secret: string, signal?: AbortSignal): Promise<WebhookDeliveryRecord>;
}
interface Engine {
  store: Store;
  webhooks: Deliveries;
  events: EventBus;
  logger: Logger;
  pipelines: Pick<PipelineRuntime, 'fail'>;
  config: { network: { allowedHosts: readonly string[] } };
}

/** What opens the key of secrets at rest (infra/secrets.ts). */
type Keyed = SecretsKeyHolder & { config: { network: { allowedHosts: readonly string[] } } };

/** Events only workflow triggers see (not spec §6.1 webhook events). */
const TRIGGER_ONLY = ['document.processed'] as const;
/** The webhook events of spec §6.1, in its order (the bus's events less the trigger-only ones). `*` in a subscription stands for all of them. */
export type WebhookEvent = Exclude<(typeof EVENT_TYPES)[number], (typeof TRIGGER_ONLY)[number]>;
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = EVENT_TYPES.filter((e): e is WebhookEvent => !(TRIGGER_ONLY as readonly string[]).includes(e));

/** The event of POST /api/webhooks/:id/test (not a §6.1 event: nobody subscribes to it). */
export const TEST_EVENT = 'webhook.test';

/** Split events are sent as they are, not wrapped in the envelope (§6.1). */
const UNWRAPPED_EVENTS: ReadonlySet<string> = new Set(['split.completed', 'split.failed']);

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENTS);

export function isWebhookEvent(type: string): type is WebhookEvent {
  return KNOWN.has(type);
}

/** A new signing secret: `whsec_` and 32 random bytes in hex. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

/**
 * The id of the delivery of one event to one webhook: a UUID-shaped digest of both ids. Every process receives
 * every event (RabbitMQ fans them out), and each computes the same id, so only the first insert succeeds
 * (primary key) and exactly one delivery is made.
 */
export function deliveryIdFor(eventId: string, webhookId: string): string {
  const h = createHash('sha256').update(`webhook-delivery:${eventId}:${webhookId}`).digest('hex');
  // version 8 (custom) UUID layout, so the value reads as a UUID wherever ids are checked
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * What a subscriber receives for an event: the §6 envelope {event, timestamp, data, webhook_id}; split events
 * (§6.1) are their own payload with `event` and `timestamp` at the top.
 */
export function webhookBody(event: Pick<QuireEvent, 'type' | 'timestamp' | 'data'>, webhookId: string): Record<string, unknown> {
  if (UNWRAPPED_EVENTS.has(event.type)) return { event: event.type, ...event.data, timestamp: event.timestamp };
  return { event: event.type, timestamp: event.timestamp, data: event.data, webhook_id: webhookId };
}

export function subscribesTo(hook: Pick<WebhookRecord, 'events'>, type: string): boolean {
  return hook.events.includes('*') || hook.events.includes(type);
}

/**
 * The active webhooks an event goes to. An event of an organization's resource goes to that organization's
 * webhooks (whose creator is still a member); any other event to its user's own webhooks (organization_id null).
 */
export async function subscribersOf(store: Store, event: Pick<QuireEvent, 'type' | 'user_id' | 'organization_id'>): Promise<WebhookRecord[]> {
  if (!isWebhookEvent(event.type)) return [];
  let hooks: WebhookRecord[];
  if (event.organization_id) {
    hooks = await store.repo('webhooks').find({ organization_id: event.organization_id, active: true });
    if (hooks.length) {
      const members = new Set((await store.repo('memberships').find({ organization_id: event.organization_id })).map((m) => m.user_id));
      hooks = hooks.filter((h) => members.has(h.user_id));
    }
  } else if (event.user_id) {
    hooks = await store.repo('webhooks').find({ user_id: event.user_id, organization_id: null, active: true });
  } else return [];
  return hooks.filter((h) => subscribesTo(h, event.type));
}

/**
 * Records and queues the deliveries of one event, one per matching webhook. Safe to run in every process
 * for the same event: delivery ids are derived from event and webhook (deliveryIdFor), so a second process's
 * insert is a no-op. Returns the deliveries this call created.
 */
export async function fanOutEvent(rt: Pick<Engine, 'store' | 'webhooks'>, event: QuireEvent): Promise<WebhookDeliveryRecord[]> {
  const made: WebhookDeliveryRecord[] = [];
  for (const hook of await subscribersOf(rt.store, event)) {
    const row = await rt.webhooks.enqueueUnique({
      id: deliveryIdFor(event.id, hook.id),
      url: hook.url,
      event: event.type,
      payload: webhookBody(event, hook.id),
      secret: '', // signed at each attempt with the webhook's current secret
      user_id: hook.user_id,
      webhook_id: hook.id,
    });
    if (row) made.push(row);
  }
  return made;
}

const attached = new WeakSet<EventBus>();

/**
 * Sends every §6.1 event emitted on the engine's bus to its subscribers. Attach it in the processes that
 * serve the API (each receives every event; deliveries are made once whatever the number of processes).
 * Attaching twice to one bus does nothing.
 */
export function attachWebhookFanout(rt: Pick<Engine, 'store' | 'webhooks' | 'events' | 'logger'>): void {
  if (attached.has(rt.events)) return;
  attached.add(rt.events);
  rt.events.on('*', async (event) => {
    if (!isWebhookEvent(event.type)) return;
    try {
      await fanOutEvent(rt, event);
    } catch (e) {
      rt.logger.warn({ err: (e as Error).message, event: event.type, eventId: event.id }, 'webhook deliveries of an event could not be recorded');
    }
  });
}

// ---- management (the /api/webhooks endpoints)

/**
 * Checks a subscription URL: absolute, no credentials, https (http only for hosts in QUIRE_ALLOWED_HOSTS), and
 * a host that resolves to public addresses (unless allowed), as every delivery checks again.
 */
export async function checkWebhookUrl(raw: string, allowedHosts: readonly string[]): Promise<string> {
  const bad = (message: string) => errors.validation(`Invalid body: body.url ${message}`, [{ field: 'body.url', message }]);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('must be an absolute URL');
  }
  if (url.username || url.password) throw bad('must not carry credentials');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && hostListed(url, allowedHosts))) throw bad('must use https (http only for hosts listed in QUIRE_ALLOWED_HOSTS)');
  try {
    await vetUrl(url.href, { allowedHosts });
  } catch (e) {
    throw bad(isQuireError(e) && e.code === 'VALIDATION_ERROR' ? 'resolves to a private, loopback or link-local address' : `host ${url.hostname} cannot be resolved`);
  }
  return url.href;
}

function hostListed(url: URL, allowed: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowed.some((a) => a.toLowerCase() === host || a.toLowerCase() === `${host}:${port}`);
}

/** Event names as stored: unique, `*` alone when it is given. */
export function normaliseEvents(events: readonly string[]): string[] {
  if (events.includes('*')) return ['*'];
  return WEBHOOK_EVENTS.filter((e) => events.includes(e));
}

/**
 * Creates a webhook. The answer holds the signing secret in plain (shown once); the row keeps it encrypted
 * (infra/secrets.ts).
 */
export async function createWebhook(rt: Pick<Engine, 'store'> & Keyed, auth: AuthInfo, input: { url: string; events: string[]; organization_id?: string | null; description?: string | null; active?: boolean }): Promise<WebhookRecord> {
  assertCanCreateIn(auth, input.organization_id ?? null);
  const now = new Date();
  const secret = newWebhookSecret();
  const row = await rt.store.repo('webhooks').insert({
    id: randomUUID(),
    user_id: auth.user.id,
    organization_id: input.organization_id ?? null,
    url: await checkWebhookUrl(input.url, rt.config.network.allowedHosts),
    events: normaliseEvents(input.events),
    secret: encryptSecret(secretsKey(rt), secret),
    description: input.description ?? null,
    active: input.active ?? true,
    consecutive_failures: 0,
    last_delivery_at: null,
    last_delivery_status: null,
    created_at: now,
    updated_at: now,
  });
  return { ...row, secret };
}

export async function updateWebhook(rt: Pick<Engine, 'store' | 'config'>, hook: WebhookRecord, input: { url?: string; events?: string[]; description?: string | null; active?: boolean }): Promise<WebhookRecord> {
  const patch: Partial<WebhookRecord> = { updated_at: new Date() };
  if (input.url !== undefined) patch.url = await checkWebhookUrl(input.url, rt.config.network.allowedHosts);
  if (input.events !== undefined) patch.events = normaliseEvents(input.events);
  if (input.description !== undefined) patch.description = input.description;
  if (input.active !== undefined) {
    patch.active = input.active;
    if (input.active) patch.consecutive_failures = 0;
  }
  await rt.store.repo('webhooks').update(hook.id, patch);
  return { ...hook, ...patch };
}

/** A new signing secret for the webhook: answered in plain, kept encrypted. */
export async function rotateWebhookSecret(rt: Pick<Engine, 'store'> & Keyed, hook: WebhookRecord): Promise<WebhookRecord> {
  const secret = newWebhookSecret();
  const patch = { secret: encryptSecret(secretsKey(rt), secret), updated_at: new Date() };
  await rt.store.repo('webhooks').update(hook.id, patch);
  return { ...hook, ...patch, secret };
}

/** Deletes a webhook and its delivery log; its pending deliveries are cancelled. */
export async function deleteWebhook(rt: Pick<Engine, 'store' | 'pipelines'>, hook: WebhookRecord): Promise<void> {
  for (const d of await rt.store.repo('webhook_deliveries').find({ webhook_id: hook.id, status: 'pending' })) await rt.pipelines.fail(d.id, 'the webhook was deleted').catch(() => false);
  await rt.store.repo('webhooks').delete(hook.id);
  await rt.store.repo('webhook_deliveries').delete({ webhook_id: hook.id });
}

/** A page of a webhook's delivery log, newest first (of one status or event when given), and the total that match. */
export async function deliveryLog(rt: Pick<Engine, 'store'>, hook: WebhookRecord, q: { limit: number; offset: number; status?: WebhookDeliveryRecord['status']; event?: string }): Promise<{ rows: WebhookDeliveryRecord[]; total: number }> {
  const where = { webhook_id: hook.id, ...(q.status ? { status: q.status } : {}), ...(q.event ? { event: q.event } : {}) };
  const repo = rt.store.repo('webhook_deliveries');
  const [rows, total] = await Promise.all([repo.find(where, { limit: q.limit, offset: q.offset, order: { created_at: 'DESC' } }), repo.count(where)]);
  return { rows, total };
}

/** One delivery of a webhook's log, or null when the id names none of its deliveries. */
export async function deliveryOf(rt: Pick<Engine, 'store'>, hook: WebhookRecord, id: string): Promise<WebhookDeliveryRecord | null> {
  const row = await rt.store.repo('webhook_deliveries').get(id);
  return row && row.webhook_id === hook.id ? row : null;
}

/** Sends a signed `webhook.test` event now (one attempt, no retries) and records it in the delivery log. */
export async function testWebhook(rt: Pick<Engine, 'webhooks'> & Keyed, hook: WebhookRecord): Promise<WebhookDeliveryRecord> {
  const event = { type: TEST_EVENT, timestamp: new Date().toISOString(), data: { webhook_id: hook.id, message: 'A test event: your endpoint receives webhook events.' } };
  return rt.webhooks.attemptNow({ url: hook.url, event: TEST_EVENT, payload: webhookBody(event, hook.id), secret: '', user_id: hook.user_id, webhook_id: hook.id }, decryptSecret(secretsKey(rt), hook.secret), AbortSignal.timeout(35_000));
}

/**
 * Sends a delivery again as a new delivery (its own id and attempts) with the same body, to the webhook's
 * current URL, signed with its current secret. A delivery still pending is refused (409).
 */
export async function redeliver(rt: Pick<Engine, 'webhooks'>, hook: WebhookRecord, delivery: WebhookDeliveryRecord): Promise<WebhookDeliveryRecord> {
  if (delivery.status === 'pending') throw errors.conflict('This delivery is still being attempted; redeliver it once it has been delivered or has failed', { delivery_id: delivery.id, status: delivery.status });
  if (!hook.active) throw errors.conflict('The webhook is inactive; activate it (PATCH active: true) to redeliver', { webhook_id: hook.id });
  return rt.webhooks.enqueue({ url: hook.url, event: delivery.event, payload: delivery.payload, secret: '', user_id: hook.user_id, webhook_id: hook.id });
}
