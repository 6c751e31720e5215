import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { AppContext } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { parseWith } from '@quire/engine';
import { route } from '../../http/route.js';
import { toQuireError } from '../../http/middleware.js';
import { receiveMultipart } from '../../services/multipart.js';
import { resolveParseRequest } from '@quire/engine';
import { resolveInput } from '@quire/engine';
import { parseSync, readStored, studioLink, submitParse } from '@quire/engine';
import { vetUrl } from '@quire/engine';
import { jobInputKey } from '@quire/engine';
import type { Engine } from '@quire/engine';

const TAG = 'Parse';
const JsonParse = z.object({ input: z.string().min(1), config: z.record(z.string(), z.unknown()).optional() }).strict();
const AsyncParse = z.object({ input: z.string().min(1), config: z.record(z.string(), z.unknown()).optional(), webhook_url: z.string().url().optional() }).strict();

export function parseRoutes(router: Router<any, any>): void {
  route(router, { method: 'post', path: '/api/parse', summary: 'Parse a file, URL or svc:// document synchronously', tag: TAG, multipart: { fields: { file: 'the file (max 100 MB)', config: 'JSON string of parse options' } } }, async (ctx) => {
    const auth = requireAuth(ctx);
    const rt = ctx.quire;
    if (ctx.is('multipart/form-data')) {
      const jobId = randomUUID();
      try {
        const { fields, file } = await receiveMultipart(ctx, rt.storage, jobInputKey(jobId), rt.config.limits.uploadBytes);
        if (!file) throw errors.validation('The multipart field "file" is required', [{ field: 'file', message: 'required' }]);
        return (await parseSync(rt, auth, { kind: 'stored', jobId, fileName: file.fileName, size: file.size }, fields.config)).body;
      } finally {
        await rt.storage.delete(jobInputKey(jobId)).catch(() => {});
      }
    }
    const body = parseWith(JsonParse, (ctx.request as any).body ?? {}, 'body');
    return (await parseSync(rt, auth, { kind: 'input', input: body.input }, body.config)).body;
  });

  route(router, { method: 'post', path: '/api/parse/async', summary: 'Parse a URL or svc:// document in the background', tag: TAG, body: AsyncParse, status: 202 }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const rt = ctx.quire;
    const req = resolveParseRequest(body.config, 'config');
    const ref = await resolveInput(rt, auth, body.input);
    if (body.webhook_url) await validateWebhookUrl(rt, body.webhook_url);
    const job = await submitParse(rt, auth, ref, req, body.webhook_url ?? null);
    ctx.status = 202;
    return { job_id: job.id, status: 'pending', message: 'Parse job queued', status_url: `${rt.config.publicUrl}/api/jobs/${job.id}`, webhook_url: job.webhook_url };
  });
}

export async function validateWebhookUrl(rt: Engine, url: string): Promise<void> {
  try {
    await vetUrl(url, { allowedHosts: rt.config.network.allowedHosts });
  } catch (e) {
    const message = toQuireError(e).message;
    throw errors.validation(`webhook_url refused: ${message}`, [{ field: 'webhook_url', message }]);
  }
}

export { readStored, studioLink };
export type { AppContext };
