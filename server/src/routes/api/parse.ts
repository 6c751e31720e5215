import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { JobRecord, ParsedDocument } from '@quire/core';
import type { AppContext } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { parseWith, route } from '../../http/route.js';
import { newOwned } from '../../auth/access.js';
import { receiveMultipart } from '../../services/multipart.js';
import { parseConfigField } from '../../services/parse-config.js';
import type { ParseConfig } from '../../services/parse-config.js';
import { resolveInput } from '../../services/inputs.js';
import { charge, creditsFor } from '../../services/ledger.js';
import { detectStored } from '../../services/documents.js';
import { signLink } from '../../services/signing.js';
import { vetUrl } from '../../services/url-fetch.js';
import { fetchInputToStorage } from '../../pipelines/parse.js';
import { apiChunk, chunkParsed, contentKey, jobInputKey, jobParsedKey, loadParsed, readFile, saveParsed } from '../../pipelines/steps.js';
import type { QuireRuntime } from '../../runtime.js';

const TAG = 'Parse';
const JsonParse = z.object({ input: z.string().min(1), config: z.record(z.string(), z.unknown()).optional() }).strict();
const AsyncParse = z.object({ input: z.string().min(1), config: z.record(z.string(), z.unknown()).optional(), webhook_url: z.string().url().optional() }).strict();

export function studioLink(rt: QuireRuntime, jobId: string): string {
  const expires = Math.floor(Date.now() / 1000) + 30 * 86400;
  return `${rt.config.publicUrl}/studio/jobs/${jobId}?expires=${expires}&sig=${signLink(rt.signingSecret, 'studio', jobId, expires)}`;
}

export function parseRoutes(router: Router<any, any>): void {
  route(router, { method: 'post', path: '/api/parse', summary: 'Parse a file, URL or svc:// document synchronously', tag: TAG, multipart: { fields: { file: 'the file (max 100 MB)', config: 'JSON string of parse options' } } }, async (ctx) => {
    const auth = requireAuth(ctx);
    const rt = ctx.quire;
    const started = Date.now();
    const jobId = randomUUID();
    const owner = newOwned(auth, null);
    let parsed: ParsedDocument;
    let cfg: ParseConfig;
    const inputKey = jobInputKey(jobId);
    try {
      if (ctx.is('multipart/form-data')) {
        const { fields, file } = await receiveMultipart(ctx, rt.storage, inputKey, rt.config.limits.uploadBytes);
        if (!file) throw errors.validation('The multipart field "file" is required', [{ field: 'file', message: 'required' }]);
        cfg = parseConfigField(fields.config, 'config');
        const detected = await detectStored(rt, inputKey, file.fileName);
        parsed = await readStored(rt, inputKey, { id: jobId, name: file.fileName, format: detected.format, size: file.size }, cfg);
      } else {
        const body = parseWith(JsonParse, (ctx.request as any).body ?? {}, 'body');
        cfg = parseConfigField(body.config, 'config');
        const ref = await resolveInput(rt, auth, body.input);
        if (ref.kind === 'document') {
          const doc = ref.doc;
          if (doc.content_key && body.config?.ocr === undefined) parsed = await loadParsed(rt, contentKey(doc.id));
          else parsed = await readStored(rt, doc.storage_key, { id: doc.id, name: doc.name, format: doc.file_type, size: doc.file_size }, cfg);
        } else {
          const file = await fetchInputToStorage(rt, (ref as { url: string }).url, inputKey);
          parsed = await readStored(rt, inputKey, { id: jobId, ...file }, cfg);
        }
      }
    } finally {
      await rt.storage.delete(inputKey).catch(() => {});
    }
    const chunks = chunkParsed(rt, parsed, cfg);
    const pages = parsed.pages.length;
    const usage = { num_pages: pages, credits: creditsFor(cfg.ocr.agentic ? 'ocr_agentic' : 'parse', pages) };
    const result = { type: 'full', chunks: chunks.map(apiChunk) };
    await saveParsed(rt, jobParsedKey(jobId), parsed);
    const now = new Date();
    const job: JobRecord = { id: jobId, ...owner, type: 'parse', status: 'completed', progress: 100, document_id: null, input: { config: cfg }, result: { ...result, usage }, error: null, webhook_url: null, created_at: now, updated_at: now, completed_at: now };
    await rt.store.repo('jobs').insert(job);
    await charge(rt.store, owner, cfg.ocr.agentic ? 'ocr_agentic' : 'parse', pages, jobId);
    return { job_id: jobId, duration: (Date.now() - started) / 1000, usage, result, studio_link: studioLink(rt, jobId) };
  });

  route(router, { method: 'post', path: '/api/parse/async', summary: 'Parse a URL or svc:// document in the background', tag: TAG, body: AsyncParse, status: 202 }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const rt = ctx.quire;
    const cfg = parseConfigField(body.config, 'config');
    const ref = await resolveInput(rt, auth, body.input);
    if (body.webhook_url) await validateWebhookUrl(rt, body.webhook_url);
    const owner = newOwned(auth, null);
    const now = new Date();
    const job: JobRecord = {
      id: randomUUID(),
      ...owner,
      type: 'parse',
      status: 'pending',
      progress: 0,
      document_id: null,
      input: ref.kind === 'document' ? { document_id: ref.doc.id, config: cfg } : { url: (ref as { url: string }).url, config: cfg },
      result: null,
      error: null,
      webhook_url: body.webhook_url ?? null,
      created_at: now,
      updated_at: now,
      completed_at: null,
    };
    await rt.store.repo('jobs').insert(job);
    await rt.pipelines.start(job.id, 'parse', {});
    ctx.status = 202;
    return { job_id: job.id, status: 'pending', message: 'Parse job queued', status_url: `${rt.config.publicUrl}/api/jobs/${job.id}`, webhook_url: job.webhook_url };
  });
}

export async function validateWebhookUrl(rt: QuireRuntime, url: string): Promise<void> {
  try {
    await vetUrl(url, { allowedHosts: rt.config.network.allowedHosts });
  } catch (e) {
    throw errors.validation(`webhook_url refused: ${(e as Error).message}`, [{ field: 'webhook_url', message: (e as Error).message }]);
  }
}

async function readStored(rt: QuireRuntime, key: string, f: { id: string; name: string; format: string; size: number }, cfg: ParseConfig, maxPages?: number): Promise<ParsedDocument> {
  const local = rt.storage.localPath(key);
  const tmp = local ? null : await rt.storage.toTempFile(key);
  try {
    return await readFile(rt, { path: local ?? tmp!.path, ...f }, cfg, { maxPages });
  } finally {
    await tmp?.cleanup();
  }
}

export { readStored };
export type { AppContext };
