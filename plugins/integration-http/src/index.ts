/**
 * The HTTP integration (kind `integration`, name `http`; the API's `webhook` integration type): sends a workflow
 * step's message to an endpoint with the host's outbound HTTP (ctx.http: SSRF check, allowed hosts, no
 * redirects). With a `secret` the body is signed like webhook deliveries: X-Svc-Signature (sha256=HMAC of the
 * body), X-Svc-Timestamp and X-Svc-Signature-V2 (t=…,v1=HMAC of "t.body").
 */
import { definePlugin, errors, sendFailed, signatureHeaders, z } from '@quire/core';
import type { HttpClient, IntegrationMessage, IntegrationPlugin } from '@quire/core';

export const HTTP_OPTIONS = z.strictObject({
  /** the User-Agent sent */
  userAgent: z.string().min(1).max(200).default('Quire-Workflows/1.0'),
  /** characters of the payload kept in the step's log */
  logChars: z.number().int().min(0).max(1_000_000).default(20_000),
});
export type HttpOptions = z.infer<typeof HTTP_OPTIONS>;

const Headers = z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'a header name'), z.string().max(4000));
/** Where a step sends: the endpoint, its method and headers, and an optional signing secret. */
export const HTTP_TARGET = z.strictObject({
  url: z.string().url().max(2000),
  method: z.enum(['POST', 'PUT', 'PATCH']).default('POST'),
  headers: Headers.optional(),
  secret: z.string().min(16, 'at least 16 characters').max(256).optional().describe('signs each request with the webhook scheme (X-Svc-Signature, X-Svc-Signature-V2)'),
});
export type HttpTarget = z.infer<typeof HTTP_TARGET>;

/** The headers of a step's request: content type, the workflow and execution ids, the target's own, the signature. */
export function requestHeaders(target: HttpTarget, message: IntegrationMessage, contentType: string, userAgent: string): Record<string, string> {
  return {
    'user-agent': userAgent,
    'content-type': contentType,
    ...(message.workflow ? { 'x-svc-workflow-id': message.workflow.id } : {}),
    ...(message.execution ? { 'x-svc-execution-id': message.execution.id } : {}),
    ...(target.headers ?? {}),
    ...(target.secret ? signatureHeaders(target.secret, message.body) : {}),
  };
}

/** Sends `body` and answers the receiver's status and first bytes; a redirect or a non-2xx answer is UPSTREAM_ERROR. */
export async function post(http: HttpClient, url: string, request: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal }): Promise<{ status: number; response: string }> {
  const res = await http(url, request);
  const host = new URL(url).host;
  if (res.status >= 300 && res.status < 400) throw errors.upstream(`${host} answered ${res.status} (a redirect): redirects are not followed`);
  if (res.status < 200 || res.status >= 300) throw errors.upstream(`${host} answered HTTP ${res.status}`);
  return { status: res.status, response: res.body.slice(0, 2000) };
}

const isJson = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

export function createHttpIntegration(http: HttpClient, options: HttpOptions): IntegrationPlugin {
  return {
    target: HTTP_TARGET,
    secretFields: ['url', 'headers', 'secret'],
    async send({ target, message, signal }) {
      const t = HTTP_TARGET.parse(target);
      const body = message.body;
      const headers = requestHeaders(t, message, isJson(body) ? 'application/json' : 'text/plain; charset=utf-8', options.userAgent);
      const sent = { method: t.method, payload: body.length > options.logChars ? `${body.slice(0, options.logChars)}…` : body, ...(t.secret ? { signed: true } : {}) };
      try {
        return { sent, result: await post(http, t.url, { method: t.method, headers, body, signal }) };
      } catch (e) {
        throw sendFailed(e, sent);
      }
    },
  };
}

export default definePlugin({
  kind: 'integration',
  name: 'http',
  core: '^1',
  description: 'Sends a workflow step to an HTTP endpoint (SSRF-checked; signed with the webhook HMAC scheme when the target has a secret).',
  options: HTTP_OPTIONS,
  create: (ctx) => createHttpIntegration(ctx.http, ctx.options),
});
