import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { AppContext } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { publicError } from '../../http/middleware.js';
import { loadOwned, readableExtraction, readableJob } from '@quire/engine';
import { runExtraction } from '@quire/engine';
import type { RunEvent, RunExtractionOptions } from '@quire/engine';
import { FieldList, Settings, UUID, normaliseFields, schemaNameOf } from '@quire/engine';
import { apiExtractJob, apiStoredExtraction } from '@quire/engine';

const TAG = 'Extract';

export const RunBody = z
  .object({
    document_id: z.string().optional(),
    input: z.string().min(1).max(4096).optional(),
    schema_id: z.string().min(1).max(64).optional(),
    config: z
      .object({
        fields: FieldList.optional(),
        instructions: z.string().max(20_000).optional(),
        settings: Settings.optional(),
        agenticExtractionMode: z.boolean().optional(),
      })
      .strict()
      .optional(),
    description: z.string().max(20_000).optional(),
    instructions: z.string().max(20_000).optional(),
    include_citations: z.boolean().optional(),
    settings: Settings.optional(),
    organization_id: z.string().uuid().optional(),
  })
  .strict();

/** The run options of a /api/extract/run body (also used by the embed action's shape). */
export function runOptions(body: z.infer<typeof RunBody>): RunExtractionOptions {
  const settings: Record<string, unknown> = { ...(body.config?.settings ?? {}), ...(body.settings ?? {}) };
  if (body.config?.agenticExtractionMode !== undefined && settings.agenticExtractionMode === undefined) settings.agenticExtractionMode = body.config.agenticExtractionMode;
  return {
    documentId: body.document_id,
    input: body.input,
    schemaId: body.schema_id,
    fields: body.config?.fields ? normaliseFields(body.config.fields) : undefined,
    description: body.description,
    instructions: body.instructions ?? body.config?.instructions,
    settings,
    includeCitations: body.include_citations ?? false,
    ...(body.organization_id ? { organizationId: body.organization_id } : {}),
    names: { schemaId: 'schema_id', fields: 'config.fields', description: 'description' },
  };
}

function wantsStream(ctx: AppContext, stream: string | undefined): boolean {
  if (stream !== undefined) return stream === '1' || stream === 'true';
  return /text\/event-stream/i.test(ctx.get('accept'));
}

export function extractRunRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/api/extract/run',
      summary: 'Extract structured data from a document (JSON, or Server-Sent Events with ?stream=1 or Accept: text/event-stream)',
      tag: TAG,
      body: RunBody,
      query: z.object({ stream: z.enum(['0', '1', 'true', 'false']).optional() }),
    },
    async (ctx, { body, query }) => {
      const auth = requireAuth(ctx);
      const opts = runOptions(body);
      if (!wantsStream(ctx, query.stream)) return runExtraction(ctx.quire, auth, opts);
      await streamRun(ctx, opts);
      return undefined;
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/extract/results/:id',
      summary: 'An extraction (type=extraction, default) or an extraction job (type=job) with its extraction once completed',
      tag: TAG,
      query: z.object({ type: z.enum(['extraction', 'job']).default('extraction') }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      const id = ctx.params.id!;
      if (query.type === 'job') {
        const job = await readableJob(rt, auth, id, 'extract');
        if (!job) throw errors.notFound('job', id);
        const out: Record<string, unknown> = { job: apiExtractJob(job) };
        if (job.status === 'completed') {
          const x = await readableExtraction(rt, auth, String(job.input?.extraction_id ?? ''));
          if (x) out.extraction = apiStoredExtraction(x, await schemaNameOf(rt, x.schema_id));
        }
        return out;
      }
      if (!UUID.test(id)) throw errors.notFound('extraction', id);
      const x = await loadOwned(rt.store, 'extractions', id, auth, 'read');
      const out: Record<string, unknown> = { extraction: apiStoredExtraction(x, await schemaNameOf(rt, x.schema_id)) };
      const job = x.job_id ? await readableJob(rt, auth, x.job_id) : null;
      if (job) out.job = apiExtractJob(job);
      return out;
    },
  );
}

const HEARTBEAT_MS = 15_000;

/**
 * Server-Sent Events: progress, chunk_done, field_extracted, then complete {job, result} or error {error}.
 * Errors found before the job exists (validation, 404, 409) are answered as ordinary JSON errors. When the
 * client closes the connection first, the run is aborted and its job fails with error 'Cancelled'.
 */
async function streamRun(ctx: AppContext, opts: RunExtractionOptions): Promise<void> {
  const auth = requireAuth(ctx);
  const rt = ctx.quire;
  const res = ctx.res;
  const controller = new AbortController();
  let open = false;
  let finished = false;
  const onClose = () => {
    if (!finished) controller.abort(new Error('client closed the stream'));
  };
  res.on('close', onClose);
  const send = (type: string, data: unknown) => {
    if (res.writableEnded || res.destroyed) return;
    res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    const result = await runExtraction(rt, auth, {
      ...opts,
      signal: controller.signal,
      onJob: (job) => {
        ctx.status = 200;
        ctx.respond = false;
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no', 'X-Job-Id': job.id });
        open = true;
        heartbeat = setInterval(() => !res.writableEnded && res.write(': keep-alive\n\n'), HEARTBEAT_MS);
        heartbeat.unref();
      },
      onEvent: (e: RunEvent) => {
        const { type, ...data } = e;
        send(type, data);
        // a turn of the event loop between events (for extractors that await their events)
        return new Promise<void>((r) => setImmediate(r));
      },
    });
    const job = await readableJob(rt, null, result.job_id);
    finished = true;
    send('complete', { job: job ? apiExtractJob(job) : null, result });
  } catch (e) {
    if (!open) throw e;
    if (!controller.signal.aborted) {
      const pub = publicError(e, ctx.state.requestId);
      if (pub.code === 'INTERNAL_ERROR') ctx.state.log?.error({ err: e }, 'extraction stream failed');
      send('error', { error: pub.message, code: pub.code });
    }
  } finally {
    finished = true;
    if (heartbeat) clearInterval(heartbeat);
    res.off('close', onClose);
    if (open && !res.writableEnded) res.end();
  }
}
