import { z } from 'zod';
import { registeredRoutes } from './route.js';

/** OpenAPI 3.1 document generated from the routes' zod schemas. */
export function openApiDocument(publicUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const toSchema = (s: z.ZodType) => {
    try {
      return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
    } catch {
      return {};
    }
  };
  for (const { spec } of registeredRoutes) {
    const p = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const params: unknown[] = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (spec.query) {
      const js = toSchema(spec.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(js.properties ?? {})) params.push({ name, in: 'query', required: js.required?.includes(name) ?? false, schema });
    }
    const op: Record<string, unknown> = {
      summary: spec.summary,
      tags: [spec.tag],
      parameters: params,
      security: spec.auth === 'none' ? [] : spec.auth === 'optional' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      responses: {
        [String(spec.status ?? 200)]: { description: 'Success' },
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
    if (spec.body) op.requestBody = { required: true, content: { 'application/json': { schema: toSchema(spec.body) } } };
    if (spec.multipart) {
      op.requestBody = {
        required: true,
        content: { 'multipart/form-data': { schema: { type: 'object', properties: Object.fromEntries(Object.entries(spec.multipart.fields).map(([k, d]) => [k, { type: 'string', description: d, ...(k === 'file' ? { format: 'binary' } : {}) }])) } } },
      };
    }
    (paths[p] ??= {})[spec.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Quire API', version: '1.0.0', license: { name: 'Apache-2.0' }, description: WEBHOOK_SIGNATURES },
    servers: [{ url: publicUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key svc_…' } },
      schemas: {
        Error: {
          type: 'object',
          properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} }, required: ['code', 'message'] } },
        },
      },
    },
    paths,
    webhooks: {
      callback: {
        post: {
          summary: 'A webhook or completion callback (e.g. to the webhook_url of POST /api/parse/async)',
          description: WEBHOOK_SIGNATURES,
          parameters: [
            { name: 'X-Svc-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }, description: 'sha256=<hex HMAC-SHA256 of the exact raw body>' },
            { name: 'X-Svc-Timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'Unix seconds when this attempt was signed' },
            { name: 'X-Svc-Signature-V2', in: 'header', required: true, schema: { type: 'string' }, description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">' },
            { name: 'X-Svc-Event', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'X-Svc-Delivery', in: 'header', required: true, schema: { type: 'string' }, description: 'The same for every attempt of one delivery: use it to drop duplicates' },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '200': { description: 'Any 2xx within 30 seconds acknowledges the delivery; anything else is retried (1 min, 5 min, 30 min, 2 h)' } },
        },
      },
    },
  };
}

/** How receivers verify webhook signatures (also shown by GET /api/webhooks/callback-secret). */
export const WEBHOOK_SIGNATURES = [
  'Webhook signatures. Every webhook and callback POST is signed with the secret of its webhook (for a per-request webhook_url: the key from GET /api/webhooks/callback-secret).',
  '`X-Svc-Signature: sha256=<hex>` is the HMAC-SHA256 of the exact raw request body. `X-Svc-Timestamp: <t>` is the Unix time (seconds) of the attempt, and',
  '`X-Svc-Signature-V2: t=<t>,v1=<hex>` is the HMAC-SHA256 of the string "<t>.<raw body>". To verify: read the raw body before any JSON parsing; take t and v1 from',
  'X-Svc-Signature-V2; compute HMAC-SHA256(secret, t + "." + body) as hex and compare it with v1 in constant time; refuse the delivery when they differ or when t is',
  'more than 5 minutes away from your clock. A captured delivery then cannot be replayed later: changing t breaks v1. Deliveries may repeat (retries): drop',
  'duplicates by X-Svc-Delivery. X-Svc-Signature (no timestamp) stays for receivers that only check the body.',
].join(' ');
