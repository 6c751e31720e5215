import { Readable } from 'node:stream';
import { detectFormat, errors } from '@quire/core';
import type { JobRecord } from '@quire/core';
import type { QuireRuntime } from '../runtime.js';
import { charge, creditsFor } from '../services/ledger.js';
import { parseConfig } from '../services/parse-config.js';
import { callbackSecret } from '../services/signing.js';
import { fetchUrl } from '../services/url-fetch.js';
import { publicErrorText } from '../services/documents.js';
import { ownerOf, requireDocument } from './index.js';
import { apiChunk, chunkStored, contentKey, jobInputKey, jobParsedKey, readFileToStorage } from './steps.js';

/** Downloads a URL input into blob storage (SSRF-checked, size-limited while streaming) and detects its format. */
export async function fetchInputToStorage(rt: QuireRuntime, url: string, key: string): Promise<{ name: string; format: string; size: number }> {
  const { stream, fileName } = await fetchUrl(url, { allowedHosts: rt.config.network.allowedHosts, timeoutMs: rt.config.limits.urlTimeoutMs, maxBytes: rt.config.limits.uploadBytes });
  const { size } = await rt.storage.put(key, Readable.from(stream as AsyncIterable<Buffer>), { maxBytes: rt.config.limits.uploadBytes });
  const local = rt.storage.localPath(key);
  const tmp = local ? null : await rt.storage.toTempFile(key);
  try {
    const detected = await detectFormat(local ?? tmp!.path, fileName);
    if (!detected) {
      await rt.storage.delete(key);
      throw errors.unsupported(`Unsupported file format (${fileName})`);
    }
    return { name: fileName, format: detected.format, size };
  } finally {
    await tmp?.cleanup();
  }
}

/** Async parse (POST /api/parse/async): fetch → read → chunk; completion callback to webhook_url. */
export function defineParsePipeline(rt: QuireRuntime): void {
  rt.pipelines.define({
    name: 'parse',
    stages: [
      {
        name: 'fetch',
        async run(ctx) {
          const input = ctx.job.input as { url?: string; document_id?: string };
          if (input.document_id) {
            const doc = await requireDocument(rt, input.document_id);
            return { source: 'document', documentId: doc.id, name: doc.name, format: doc.file_type, size: doc.file_size, key: doc.storage_key, reuse: !!doc.content_key, pages: doc.pages };
          }
          const file = await fetchInputToStorage(rt, String(input.url), jobInputKey(ctx.job.id));
          return { source: 'url', key: jobInputKey(ctx.job.id), ...file };
        },
      },
      {
        name: 'read',
        async run(ctx) {
          const cfg = parseConfig((ctx.job.input as { config?: unknown }).config ?? {});
          const p = ctx.payload as { source: string; documentId?: string; key: string; name: string; format: string; size: number; reuse?: boolean };
          const ocrOverridden = (ctx.job.input as any)?.config?.ocr !== undefined;
          if (p.source === 'document' && p.reuse && !ocrOverridden) {
            return { ...p, parsedKey: contentKey(p.documentId!) };
          }
          const local = rt.storage.localPath(p.key);
          const tmp = local ? null : await rt.storage.toTempFile(p.key);
          try {
            const read = await readFileToStorage(rt, { path: local ?? tmp!.path, name: p.name, format: p.format, size: p.size, id: ctx.job.id }, cfg, jobParsedKey(ctx.job.id), {
              signal: ctx.signal,
              onProgress: (f) => void ctx.progress(f).catch(() => {}),
            });
            return { ...p, parsedKey: jobParsedKey(ctx.job.id), pages: read.pages };
          } finally {
            await tmp?.cleanup();
          }
        },
      },
      {
        name: 'chunk',
        async run(ctx) {
          const cfg = parseConfig((ctx.job.input as { config?: unknown }).config ?? {});
          const p = ctx.payload as { parsedKey: string; source: string; pages?: number | null };
          // jobid:// reuse reads the job's own copy: the document's parsed content is copied as it is stored
          if (p.parsedKey !== jobParsedKey(ctx.job.id)) await rt.storage.put(jobParsedKey(ctx.job.id), await rt.storage.get(p.parsedKey));
          const chunks = await chunkStored(rt, jobParsedKey(ctx.job.id), cfg, ctx.signal);
          const pages = p.pages ?? 0;
          return { type: 'full', chunks: chunks.map(apiChunk), usage: { num_pages: pages, credits: creditsFor(cfg.ocr.agentic ? 'ocr_agentic' : 'parse', pages) } };
        },
      },
    ],
    async onComplete(job, output) {
      const usage = output.usage as { num_pages: number; credits: number };
      const cfg = parseConfig((job.input as { config?: unknown }).config ?? {});
      await charge(rt.store, ownerOf(job), cfg.ocr.agentic ? 'ocr_agentic' : 'parse', usage.num_pages, job.id);
      await rt.storage.delete(jobInputKey(job.id)).catch(() => {});
      await callback(rt, job, { job_id: job.id, status: 'completed', result: { type: output.type, chunks: output.chunks }, usage });
    },
    async onFail(job, error) {
      await rt.storage.delete(jobInputKey(job.id)).catch(() => {});
      await callback(rt, job, { job_id: job.id, status: 'failed', result: null, usage: { num_pages: 0, credits: 0 }, error: publicErrorText(error.message, `job ${job.id}`) });
    },
  });
}

async function callback(rt: QuireRuntime, job: JobRecord, payload: Record<string, unknown>): Promise<void> {
  if (!job.webhook_url) return;
  await rt.webhooks.enqueue({ url: job.webhook_url, event: 'parse.completed', payload, secret: callbackSecret(rt.signingSecret, job.user_id), user_id: job.user_id });
}
