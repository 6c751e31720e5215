import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { WebhookDeliveryRecord, WebhookRecord } from '@quire/core';
import type { Engine } from '@quire/engine';
import { WEBHOOK_EVENTS, attachWebhookFanout, createWebhook, deleteWebhook, deliveryLog, deliveryOf, listOwned, loadOwned, redeliver, rotateWebhookSecret, testWebhook, updateWebhook } from '@quire/engine';
import { requireAuth } from '../../http/context.js';
import type { AppContext } from '../../http/context.js';
import { route } from '../../http/route.js';

const TAG = 'Webhooks';
const ID = /^[0-9a-fA-F-]{36}$/;

const eventName = z.enum([...WEBHOOK_EVENTS, '*']).describe('a spec §6.1 event name, or * for every event');
const events = z.array(eventName).min(1).max(WEBHOOK_EVENTS.length + 1).describe('events to receive (§6.1 names; ["*"] for all)');
const url = z.string().trim().min(1).max(2048).describe('HTTPS URL that receives the POSTs (http only for hosts listed in QUIRE_ALLOWED_HOSTS)');
const description = z.string().max(500);

/** A webhook as the API shows it: never its secret (only creation and rotation answer it). */
export function apiWebhook(h: WebhookRecord) {
  return {
    webhook_id: h.id,
    url: h.url,
    events: h.events,
    organization_id: h.organization_id,
    description: h.description,
    active: h.active,
    /** 'failing' once the last delivery failed for good (after its 5 attempts), until one succeeds */
    status: !h.active ? 'inactive' : h.last_delivery_status === 'failed' ? 'failing' : 'active',
    consecutive_failures: h.consecutive_failures,
    last_delivery_at: h.last_delivery_at?.toISOString() ?? null,
    last_delivery_status: h.last_delivery_status,
    created_at: h.created_at.toISOString(),
    updated_at: h.updated_at.toISOString(),
  };
}

export function apiDelivery(d: WebhookDeliveryRecord, maxAttempts: number, withPayload = false) {
  return {
    delivery_id: d.id,
    webhook_id: d.webhook_id,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    max_attempts: maxAttempts,
    last_status_code: d.last_status,
    latency_ms: d.latency_ms,
    last_error: d.last_error,
    next_retry_at: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    ...(withPayload ? { payload: parsePayload(d.payload) } : {}),
  };
}

function parsePayload(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function loadWebhook(ctx: AppContext, mode: 'read' | 'write'): Promise<WebhookRecord> {
  const id = ctx.params.id;
  if (!id || !ID.test(id)) throw errors.notFound('webhook', id);
  return loadOwned(ctx.quire.store, 'webhooks', id, requireAuth(ctx), mode, 'webhook');
}

async function loadDelivery(ctx: AppContext, hook: WebhookRecord): Promise<WebhookDeliveryRecord> {
  const id = ctx.params.delivery_id;
  const row = id && ID.test(id) ? await deliveryOf(ctx.quire, hook, id) : null;
  if (!row) throw errors.notFound('delivery', id);
  return row;
}

/**
 * /api/webhooks (spec §4.15): subscriptions to the §6.1 events. Registering the routes also attaches the
 * fan-out of events to subscribers in this process (see attachWebhookFanout).
 */
export function webhookRoutes(router: Router<any, any>, rt: Engine): void {
  attachWebhookFanout(rt);
  const maxAttempts = () => rt.webhooks.retryPolicy().maxAttempts;

  route(
    router,
    {
      method: 'post',
      path: '/api/webhooks',
      summary:
        'Create a webhook: events of your resources (or, with organization_id, of the organization\'s) are POSTed to url in the §6 envelope {event, timestamp, data, webhook_id}, signed with X-Svc-Signature. Answers 201 with the webhook and its signing `secret`, shown only here and on rotate-secret',
      tag: TAG,
      status: 201,
      body: z.object({ url, events, organization_id: z.string().uuid().nullable().optional(), description: description.optional(), active: z.boolean().optional() }).strict(),
    },
    async (ctx, { body }) => {
      const hook = await createWebhook(ctx.quire, requireAuth(ctx), body);
      ctx.status = 201;
      return { ...apiWebhook(hook), secret: hook.secret };
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/webhooks',
      summary: 'List your webhooks and those of your organizations (newest first): {webhooks, total, has_more}; secrets are never shown',
      tag: TAG,
      query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(50), offset: z.coerce.number().int().min(0).default(0), organization_id: z.string().uuid().optional() }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const where = query.organization_id ? { organization_id: query.organization_id } : {};
      const { rows, total } = await listOwned(ctx.quire.store, 'webhooks', auth, where, { limit: query.limit, offset: query.offset, orderBy: 'created_at' });
      return { webhooks: rows.map(apiWebhook), total, has_more: query.offset + rows.length < total };
    },
  );

  route(router, { method: 'get', path: '/api/webhooks/:id', summary: 'Get a webhook (404 when it is not there for the caller)', tag: TAG }, async (ctx) => apiWebhook(await loadWebhook(ctx, 'read')));

  route(
    router,
    {
      method: 'patch',
      path: '/api/webhooks/:id',
      summary: 'Update a webhook: url, events, description, active (an inactive webhook gets no deliveries, and its pending retries stop)',
      tag: TAG,
      body: z
        .object({ url: url.optional(), events: events.optional(), description: description.nullable().optional(), active: z.boolean().optional() })
        .strict()
        .refine((b) => Object.keys(b).length > 0, { message: 'give at least one of url, events, description, active' }),
    },
    async (ctx, { body }) => apiWebhook(await updateWebhook(ctx.quire, await loadWebhook(ctx, 'write'), body)),
  );

  route(router, { method: 'delete', path: '/api/webhooks/:id', summary: 'Delete a webhook, its delivery log and its pending deliveries: {success, webhook_id} (404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const hook = await loadWebhook(ctx, 'write');
    await deleteWebhook(ctx.quire, hook);
    return { success: true, webhook_id: hook.id };
  });

  route(
    router,
    {
      method: 'post',
      path: '/api/webhooks/:id/test',
      summary:
        'Send a signed test event (`webhook.test`, in the §6 envelope) to the webhook now, once, and report the answer: {success, delivery_id, event, status_code, latency_ms, error}. success is true for a 2xx; the attempt is in the delivery log',
      tag: TAG,
    },
    async (ctx) => {
      const d = await testWebhook(ctx.quire, await loadWebhook(ctx, 'write'));
      return { success: d.status === 'delivered', delivery_id: d.id, event: d.event, status_code: d.last_status, latency_ms: d.latency_ms, error: d.last_error };
    },
  );

  route(
    router,
    { method: 'post', path: '/api/webhooks/:id/rotate-secret', summary: 'Replace the signing secret: answers the webhook with its new `secret`; every attempt from now on (pending retries too) is signed with it', tag: TAG },
    async (ctx) => {
      const hook = await rotateWebhookSecret(ctx.quire, await loadWebhook(ctx, 'write'));
      return { ...apiWebhook(hook), secret: hook.secret };
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/webhooks/:id/deliveries',
      summary:
        'Delivery log of a webhook, newest first: {deliveries: [{delivery_id, event, status (pending|delivered|failed), attempts, max_attempts, last_status_code, latency_ms, last_error, next_retry_at, created_at, updated_at}], total, has_more}',
      tag: TAG,
      query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(50), offset: z.coerce.number().int().min(0).default(0), status: z.enum(['pending', 'delivered', 'failed']).optional(), event: z.string().max(128).optional() }),
    },
    async (ctx, { query }) => {
      const hook = await loadWebhook(ctx, 'read');
      const { rows, total } = await deliveryLog(ctx.quire, hook, query);
      return { deliveries: rows.map((d) => apiDelivery(d, maxAttempts())), total, has_more: query.offset + rows.length < total };
    },
  );

  route(router, { method: 'get', path: '/api/webhooks/:id/deliveries/:delivery_id', summary: 'One delivery of the log, with the payload that was sent', tag: TAG }, async (ctx) => {
    const hook = await loadWebhook(ctx, 'read');
    return apiDelivery(await loadDelivery(ctx, hook), maxAttempts(), true);
  });

  route(
    router,
    {
      method: 'post',
      path: '/api/webhooks/:id/deliveries/:delivery_id/redeliver',
      summary:
        'Send a delivery again (a delivered or failed one; 409 while it is pending): a new delivery with the same body, to the current url, signed with the current secret, on the usual retry schedule. Answers 202 with the new delivery',
      tag: TAG,
      status: 202,
    },
    async (ctx) => {
      const hook = await loadWebhook(ctx, 'write');
      const again = await redeliver(ctx.quire, hook, await loadDelivery(ctx, hook));
      ctx.status = 202;
      return { ...apiDelivery(again, maxAttempts()), redelivery_of: ctx.params.delivery_id };
    },
  );
}
