import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import { NonRetryableError, errors } from '@quire/core';
import type { AgenticOcrReport, JobRecord, PagesRead, StageContext, StageDefinition } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { charge, creditsFor } from '../infra/ledger.js';
import { CREDIT_HOLD, estimatePages, reserveCredits } from '../infra/credits.js';
import { parseOperation, storedParseConfig } from '../io/parse-config.js';
import type { ParseConfig } from '../io/parse-config.js';
import { fetchUrl } from '../infra/url-fetch.js';
import { detectStored, publicErrorText } from '../io/documents.js';
import { ownerOf, requireDocument, withLocalFile } from '../jobs.js';
import { apiChunk, chunkStored, contentKey, jobInputKey, jobParsedKey, readReport, readStep } from '../io/steps.js';
import type { StoredRead } from '../io/steps.js';

/** Downloads a URL input into blob storage (SSRF-checked, size-limited while streaming) and detects its format. */
export async function fetchInputToStorage(rt: Engine, url: string, key: string): Promise<{ name: string; format: string; size: number }> {
  const { stream, fileName } = await fetchUrl(url, { allowedHosts: rt.config.network.allowedHosts, timeoutMs: rt.config.limits.urlTimeoutMs, maxBytes: rt.config.limits.uploadBytes });
  const { size } = await rt.storage.put(key, Readable.from(stream as AsyncIterable<Buffer>), { maxBytes: rt.config.limits.uploadBytes });
  const detected = await withLocalFile(rt.storage, key, (file) => rt.registry.detectFormat(file, fileName));
  if (!detected) {
    await rt.storage.delete(key);
    throw errors.unsupported(`Unsupported file format (${fileName})`);
  }
  return { name: fileName, format: detected.format, size };
}

/**
 * Where the `fetch` stage of a parse finds its file: the payload of the first stage, which the synchronous
 * and the background parse (parseStart) and the runner give to submitJob, so that the job row keeps the input
 * the API records (`{config}`, and for the background parse `{url}` or `{document_id}`).
 */
export type ParseSource =
  /** an svc:// document; its parsed content is reused unless `reuse_content` is false */
  | { source: 'document'; document_id: string; reuse_content?: boolean; read_as?: string }
  /** an http(s) URL, downloaded into storage under jobInputKey(jobId) */
  | { source: 'url'; url: string }
  /** a file the caller already streamed to storage under jobInputKey(jobId) (multipart upload) */
  | { source: 'stored'; name: string; size: number }
  /**
   * A file on this machine's disk, read where it is (runner role only: the operator's own files; a stage
   * of any other role refuses it, so a message can never make a server read a path).
   */
  | { source: 'local'; path: string; name: string; read_as?: string };

/**
 * The source of a parse job: the first stage's payload, else the job's input (a background parse submitted by
 * an earlier version, which read an svc:// document again).
 */
function sourceOf(job: JobRecord, payload: Record<string, unknown>): ParseSource {
  if (typeof payload.source === 'string') return payload as unknown as ParseSource;
  const input = (job.input ?? {}) as { url?: string; document_id?: string };
  if (input.document_id) return { source: 'document', document_id: input.document_id, reuse_content: false };
  return { source: 'url', url: String(input.url) };
}

/** The config a parse job was submitted with (resolved once, on the way in: read as stored). */
const jobConfig = (job: JobRecord): ParseConfig => storedParseConfig((job.input as { config?: unknown } | null)?.config);

/** What the fetch stage hands to the read stage (and the read stage, with what it read, to the ocr stage). */
type ReadPayload = { source: string; documentId?: string; key?: string; path?: string; name: string; format: string; size: number; reuse?: boolean; readAs?: string };

/**
 * Reads a parse's file into the job's parsed content (the read stage: the pages that need OCR are left out
 * and listed in `ocrPending`), or, given `pending` (the ocr stage), OCRs those pages and merges them into it.
 */
async function readParseInput(rt: Engine, ctx: StageContext, p: ReadPayload, pending?: number[]): Promise<Record<string, unknown>> {
  const deferOcr = !pending;
  const local = (work: (path: string) => Promise<StoredRead>) => {
    if (p.source !== 'local') return withLocalFile(rt.storage, p.key!, work);
    if (rt.role !== 'runner') throw new NonRetryableError('a local file is read by the runner only');
    return work(p.path!);
  };
  const file = { name: p.name, format: p.format, size: p.size, id: p.readAs ?? ctx.job.id };
  const stored = await readStep(rt, ctx, local, file, jobConfig(ctx.job), jobParsedKey(ctx.job.id), pending);
  await ctx.report(readReport(stored, deferOcr));
  return { ...p, parsedKey: jobParsedKey(ctx.job.id), pages: stored.pages, ...(stored.ocrPending.length ? { ocrPending: stored.ocrPending } : {}), ...(stored.agentic ? { agentic: stored.agentic } : {}) };
}

/**
 * The parse pipeline: fetch → read → ocr → chunk. The async parse (POST /api/parse/async, completion callback to
 * its webhook_url), the synchronous parse (POST /api/parse, the embed parse action: the same job, awaited in
 * process) and the runner (role runner, files on its disk) all run it.
 */
export function defineParsePipeline(rt: Engine): void {
  const stages: StageDefinition[] = [
    {
      name: 'fetch',
      async run(ctx) {
        const src = sourceOf(ctx.job, ctx.payload);
        const key = jobInputKey(ctx.job.id);
        switch (src.source) {
          case 'document': {
            const doc = await requireDocument(rt.store, src.document_id);
            // a reused content keeps the document's chunk ids; a new read names chunks by read_as, else the job
            const reuse = !!doc.content_key && (src.reuse_content ?? true);
            return { source: 'document', documentId: doc.id, name: doc.name, format: doc.file_type, size: doc.file_size, key: doc.storage_key, reuse, pages: doc.pages, readAs: src.read_as };
          }
          case 'stored': {
            const detected = await detectStored(rt, key, src.name);
            return { source: 'stored', key, name: src.name, format: detected.format, size: src.size };
          }
          case 'local': {
            if (rt.role !== 'runner') throw new NonRetryableError('a local file is read by the runner only');
            const detected = await rt.registry.detectFormat(src.path, src.name);
            if (!detected) throw errors.unsupported(`Unsupported file format (${src.name})`);
            const { size } = await fsp.stat(src.path);
            return { source: 'local', path: src.path, name: src.name, format: detected.format, size, readAs: src.read_as };
          }
          default: {
            const file = await fetchInputToStorage(rt, String(src.url), key);
            // a URL's pages are known once it is here: refused now, before any reading, when credits cannot cover them
            if (rt.role !== 'runner') {
              const pages = await estimatePages(rt, key, file.format);
              const job = ctx.job;
              await reserveCredits(rt, ownerOf(job), parseOperation(jobConfig(job)), pages, (tx, hold) => tx.repo('jobs').update(job.id, { input: { ...(job.input ?? {}), [CREDIT_HOLD]: hold } }), { excludeJobId: job.id });
            }
            return { source: 'url', key, ...file };
          }
        }
      },
    },
    {
      name: 'read',
      async run(ctx) {
        const p = ctx.payload as ReadPayload;
        // whether an svc:// document's content is reused was decided when the request was resolved (parseStart)
        if (p.source === 'document' && p.reuse) {
          // the document's content, read before: its pages count as read
          const pages = Number((p as { pages?: number | null }).pages ?? 0);
          if (pages > 0) await ctx.report({ pages_total: pages, pages_read: pages });
          return { ...p, parsedKey: contentKey(p.documentId!) };
        }
        // pages that need OCR are left to the ocr stage (its own queue: OCR workers scale apart from readers)
        return readParseInput(rt, ctx, p);
      },
    },
    {
      name: 'ocr',
      async run(ctx) {
        const p = ctx.payload as ReadPayload & { ocrPending?: number[] };
        // nothing left to OCR (a text document, reused content, or the reader OCRed itself): passed on
        if (!p.ocrPending?.length) return { ...p };
        // only those pages are drawn and OCRed, and merged into the layout the read stage stored
        const { ocrPending, ...rest } = p;
        return readParseInput(rt, ctx, rest, ocrPending);
      },
    },
    {
      name: 'chunk',
      async run(ctx) {
        const cfg = jobConfig(ctx.job);
        const p = ctx.payload as { parsedKey: string; source: string; pages?: number | null; agentic?: AgenticOcrReport };
        // jobid:// reuse reads the job's own copy: the document's parsed content is copied as it is stored
        if (p.parsedKey !== jobParsedKey(ctx.job.id)) await rt.storage.put(jobParsedKey(ctx.job.id), await rt.storage.get(p.parsedKey));
        const chunks = await chunkStored(rt, jobParsedKey(ctx.job.id), cfg, ctx.signal);
        const pages = p.pages ?? 0;
        await ctx.report({ chunks: chunks.length }, 1);
        // agentic OCR says which pages its second reading changed (none when no page needed OCR)
        const agentic = cfg.ocr.agentic ? { agentic: { pages_read: p.agentic?.pages_read ?? [], pages_changed: p.agentic?.pages_changed ?? [], lines_changed: p.agentic?.lines_changed ?? 0 } } : {};
        return { type: 'full', chunks: chunks.map(apiChunk), ...agentic, usage: { num_pages: pages, credits: creditsFor(parseOperation(cfg), pages) } };
      },
    },
  ];
  rt.pipelines.define({
    name: 'parse',
    stages,
    async onCompleting(tx, job, output) {
      // charged as the job completes (its hold ends). The runner has no accounts: nothing to charge on its
      // own machine. ocr.agentic (pages OCRed twice) is charged at its own rate (spec §8.3: 3.0 a page)
      const usage = output.usage as { num_pages: number; credits: number };
      const cfg = jobConfig(job);
      if (rt.role !== 'runner') await charge(tx, ownerOf(job), parseOperation(cfg), usage.num_pages, job.id, rt.metrics);
    },
    async onComplete(job, output) {
      const usage = output.usage as { num_pages: number; credits: number };
      await rt.storage.delete(jobInputKey(job.id)).catch(() => {});
      await callback(rt, job, { job_id: job.id, status: 'completed', result: { type: output.type, chunks: output.chunks, ...(output.agentic ? { agentic: output.agentic } : {}) }, usage });
    },
    // a run that ended after its owner was erased (or its job deleted): its stored input and results go
    async discard(job) {
      await rt.storage.deletePrefix(`jobs/${job.id}/`);
    },
    async onFail(job, error) {
      await rt.storage.delete(jobInputKey(job.id)).catch(() => {});
      await callback(rt, job, { job_id: job.id, status: 'failed', result: null, usage: { num_pages: 0, credits: 0 }, error: publicErrorText(error.message, `job ${job.id}`) });
    },
  });
}

async function callback(rt: Engine, job: JobRecord, payload: Record<string, unknown>): Promise<void> {
  if (!job.webhook_url) return;
  await rt.webhooks.enqueue({ url: job.webhook_url, event: 'parse.completed', payload, secret: '', user_id: job.user_id });
}
