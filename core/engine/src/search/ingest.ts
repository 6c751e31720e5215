import type { DocumentRecord, StageContext } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { charge } from '../infra/ledger.js';
import { addDocument } from './collections.js';
import { discardDocumentWork, documentEventData, publicErrorText } from '../io/documents.js';
import { parseConfig, parseOperation } from '../io/parse-config.js';
import { ownerOf, requireDocument, withLocalFile } from '../jobs.js';
import { chunkStored, contentKey, indexChunks, readReport, readStep, storeAndIndexChunks, storeChunks } from '../io/steps.js';

/**
 * Reads an uploaded document into its stored content (the read stage: the pages that need OCR are left out
 * and listed in `ocr_pending`), or, given `pending` (the ocr stage), OCRs those pages and merges them into it.
 */
async function readDocument(rt: Engine, ctx: StageContext, pending?: number[]): Promise<Record<string, unknown>> {
  const doc = await requireDocument(rt.store, String(ctx.payload.documentId));
  const cfg = parseConfig(doc.parsing_config ?? {});
  const deferOcr = !pending;
  let indexed: number | undefined;
  const file = { name: doc.name, format: doc.file_type, size: doc.file_size, id: doc.id };
  const read = await readStep(rt, ctx, (work) => withLocalFile(rt.storage, doc.storage_key, work), file, cfg, contentKey(doc.id), pending, {
    chunk: true,
    // a document the reader built in this process comes back chunked: its rows and vectors are written
    // now, while its JSON is saved, and the chunk and index stages find their work done (a rerun of this
    // stage replaces them: one copy of each)
    onChunks: async (chunks) => {
      void ctx.report({ chunks: chunks.length, chunks_indexed: 0 }).catch(() => {});
      indexed = await storeAndIndexChunks(rt, ownerOf(doc), doc.id, chunks, ctx.signal, (done) => void ctx.report({ chunks_indexed: done }).catch(() => {}));
    },
  });
  await ctx.report({ ...readReport(read, deferOcr), ...(read.chunks ? { chunks: read.chunks.length } : {}), ...(indexed !== undefined ? { chunks_indexed: indexed } : {}) });
  // the ocr stage's merged document comes back chunked too: its rows are written now (the index stage embeds
  // them), replacing those of a rerun
  if (read.chunks && indexed === undefined) await storeChunks(rt, ownerOf(doc), doc.id, read.chunks);
  await rt.store.repo('documents').update(doc.id, { pages: read.pages, content_key: contentKey(doc.id), issues: read.issues.length ? read.issues : null, updated_at: new Date() });
  return { documentId: doc.id, pages: read.pages, ocr_pages: read.ocrPages, ...(read.ocrPending.length ? { ocr_pending: read.ocrPending } : {}), ...(read.chunks ? { chunks: read.chunks.length, chunked: true } : {}), ...(indexed !== undefined ? { indexed } : {}) };
}

/**
 * Upload processing: read (reader) → ocr (pages without a text layer) → chunk → index. Each stage keeps its output in the store or
 * blob storage, so any worker can run the next one.
 */
export function defineIngestPipeline(rt: Engine): void {
  rt.pipelines.define({
    name: 'ingest',
    stages: [
      {
        name: 'read',
        // pages that need OCR are left to the ocr stage (its own queue: OCR workers scale apart from readers)
        run: (ctx) => readDocument(rt, ctx),
      },
      {
        name: 'ocr',
        async run(ctx) {
          // nothing left to OCR (a text document, or the reader OCRed itself): passed on as it is
          const pending = ctx.payload.ocr_pending as number[] | undefined;
          if (!pending?.length) return { ...ctx.payload };
          // only those pages are drawn and OCRed, and merged into the layout the read stage stored
          return readDocument(rt, ctx, pending);
        },
      },
      {
        name: 'chunk',
        async run(ctx) {
          const doc = await requireDocument(rt.store, String(ctx.payload.documentId));
          if (ctx.payload.chunked) return { ...ctx.payload };
          const cfg = parseConfig(doc.parsing_config ?? {});
          // chunked in an isolate: a large document is never parsed back into objects on this event loop
          const chunks = await chunkStored(rt, contentKey(doc.id), cfg, ctx.signal);
          await storeChunks(rt, ownerOf(doc), doc.id, chunks);
          await ctx.report({ chunks: chunks.length }, 1);
          return { ...ctx.payload, chunks: chunks.length };
        },
      },
      {
        name: 'index',
        async run(ctx) {
          const doc = await requireDocument(rt.store, String(ctx.payload.documentId));
          // indexed where it was read and chunked (the read stage's storeAndIndexChunks)
          if (typeof ctx.payload.indexed === 'number') return { ...ctx.payload };
          const total = Number(ctx.payload.chunks ?? 0);
          await ctx.report({ chunks_indexed: 0 });
          const indexed = await indexChunks(rt, ownerOf(doc), doc.id, ctx.signal, (done) => void ctx.report({ chunks_indexed: done }, total > 0 ? done / total : undefined).catch(() => {}));
          await ctx.report({ chunks_indexed: indexed }, 1);
          return { ...ctx.payload, indexed };
        },
      },
    ],
    async onStart(job) {
      if (!job.document_id) return;
      await rt.store.repo('documents').update(job.document_id, { status: 'processing', updated_at: new Date() });
      const doc = await rt.store.repo('documents').get(job.document_id);
      if (doc) await rt.events.emit('document.processing', documentEventData(doc), ownerOf(doc));
    },
    async onCompleting(tx, job, output) {
      // charged as the job completes (its hold ends): together, so that the credits always count once.
      // ocr.agentic (pages OCRed twice) is charged at its own rate (spec §8.3). A document made by
      // Quire itself is not charged as a parse: a generated one was paid by its generation (1.0 credit, spec
      // §8.3), and a split section's content is its parent's, already read and paid (job input `prepaid`).
      if (!job.document_id || job.input?.prepaid) return;
      const doc = await tx.repo('documents').get(job.document_id);
      if (!doc) return;
      await charge(tx, ownerOf(doc), parseOperation(parseConfig(doc.parsing_config ?? {})), Number(output.pages ?? doc.pages ?? 0), doc.id, rt.metrics);
    },
    async onComplete(job, output) {
      if (!job.document_id) return;
      const doc = await rt.store.repo('documents').get(job.document_id);
      if (!doc) return;
      const pages = Number(output.pages ?? doc.pages ?? 0);
      const processing_ms = Date.now() - doc.created_at.getTime();
      await rt.store.repo('documents').update(doc.id, { status: 'completed', pages, processing_ms, error: null, updated_at: new Date() });
      await rt.store.repo('jobs').update(job.id, { result: { document_id: doc.id, pages, chunks: Number(output.chunks ?? 0) } });
      if (doc.knowledge_base_id) {
        const kb = await rt.store.repo('collections').get(doc.knowledge_base_id);
        if (kb) await addDocument(rt, null, kb, doc.id, doc.user_id).catch((e) => rt.logger.warn({ err: (e as Error).message, doc: doc.id }, 'adding to knowledge base failed'));
      }
      const done = { ...doc, status: 'completed' as const, pages, processing_ms };
      await rt.events.emit('document.completed', documentEventData(done), ownerOf(doc));
      await rt.events.emit('document.processed', documentEventData(done), ownerOf(doc));
    },
    // a run that ended after its owner was erased (or its document deleted): what it wrote goes
    discard: (job, gone) => discardDocumentWork(rt, job, gone),
    async onFail(job, error) {
      if (!job.document_id) return;
      const doc = await rt.store.repo('documents').get(job.document_id);
      if (!doc) return;
      // what users and webhooks see: the reason, never an internal detail (that stays in the log under the job id)
      const message = publicErrorText(error.message, `job ${job.id}`)!;
      await rt.store.repo('documents').update(doc.id, { status: 'failed', error: message, updated_at: new Date() });
      await rt.events.emit('document.failed', { ...documentEventData({ ...doc, status: 'failed' }), error: message }, ownerOf(doc));
    },
  });
}
