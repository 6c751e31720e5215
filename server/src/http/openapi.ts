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
    info: { title: 'Quire API', version: '1.0.0', license: { name: 'Apache-2.0' } },
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
  };
}
