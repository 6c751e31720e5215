import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { AppContext } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { loadOwned, newOwned } from '@quire/engine';
import { createDocument, deleteDocument, detectStored, v1Document } from '@quire/engine';
import { listOwned } from '@quire/engine';
import { receiveMultipart } from '../../services/multipart.js';
import { sendStoredFile } from '../../http/download.js';
import { parseConfigField } from '@quire/engine';
import { contentKey, loadChunks, loadParsed, originalKey } from '@quire/engine';

const TAG = 'Documents (v1)';
const idParam = z.string().uuid();

export function documentRoutes(router: Router<any, any>): void {
  route(router, { method: 'post', path: '/v1/documents', summary: 'Upload a document; it is parsed, chunked and indexed asynchronously', tag: TAG, multipart: { fields: { file: 'the document (max 100 MB)' } }, status: 201 }, async (ctx) => {
    const auth = requireAuth(ctx);
    const { doc } = await uploadDocument(ctx, newOwned(auth, null));
    ctx.status = 201;
    return v1Document(doc, ctx.quire);
  });

  route(
    router,
    {
      method: 'get',
      path: '/v1/documents',
      summary: 'List documents',
      tag: TAG,
      query: z.object({
        limit: z.coerce.number().int().min(1).max(100).default(20),
        offset: z.coerce.number().int().min(0).default(0),
        status: z.enum(['pending', 'processing', 'completed', 'failed']).optional(),
      }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const { rows, total } = await listOwned(ctx.quire.store, 'documents', auth, query.status ? { status: query.status } : {}, { limit: query.limit, offset: query.offset, orderBy: 'created_at' });
      return { object: 'list', data: rows.map((d) => v1Document(d, ctx.quire)), has_more: query.offset + rows.length < total, total };
    },
  );

  route(router, { method: 'get', path: '/v1/documents/:id', summary: 'Get a document', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const id = documentId(ctx.params.id);
    return v1Document(await loadOwned(ctx.quire.store, 'documents', id, auth, 'read'), ctx.quire);
  });

  route(router, { method: 'delete', path: '/v1/documents/:id', summary: 'Delete a document, its file, parsed content, parse results and embeddings (404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const id = documentId(ctx.params.id);
    // someone else's document, an unknown id and one already deleted all answer 404: a delete never tells
    // whether an id exists for another user
    const owned = await loadOwned(ctx.quire.store, 'documents', id, auth, 'write');
    await deleteDocument(ctx.quire, owned);
    return { id, object: 'document', deleted: true };
  });

  route(
    router,
    {
      method: 'get',
      path: '/v1/documents/:id/file',
      summary:
        'The original file of a document (an upload, a split section\'s child, a generated document), streamed with its stored Content-Type and Content-Disposition: attachment with its name; Accept-Ranges: bytes, a single Range answers 206 with Content-Range, a range past the end 416. Owner or organization member who may read it; 404 otherwise.',
      tag: TAG,
      raw: 'the file (its stored type)',
    },
    async (ctx) => {
      const auth = requireAuth(ctx);
      const doc = await loadOwned(ctx.quire.store, 'documents', documentId(ctx.params.id), auth, 'read');
      if (!doc.storage_key || !(await ctx.quire.storage.exists(doc.storage_key))) throw errors.notFound('file of document', doc.id);
      await sendStoredFile(ctx, ctx.quire.storage, { key: doc.storage_key, name: doc.name, mime: doc.mime_type, size: doc.file_size });
    },
  );

  route(
    router,
    { method: 'get', path: '/v1/documents/:id/content', summary: 'Parsed content: text, chunks or both', tag: TAG, query: z.object({ response: z.enum(['text', 'chunks', 'full']).default('text') }) },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const doc = await loadOwned(ctx.quire.store, 'documents', documentId(ctx.params.id), auth, 'read');
      if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document is ${doc.status}; content is available once it is completed`, { status: doc.status });
      const out: Record<string, unknown> = { id: doc.id, object: 'document.content', name: doc.name, pages: doc.pages };
      if (query.response !== 'chunks') {
        const parsed = await loadParsed(ctx.quire, contentKey(doc.id));
        out.text = parsed.text;
        // which OCR engine read the scan (QUIRE_OCR_ENGINE=auto chooses by language)
        if (typeof parsed.metadata?.ocrEngine === 'string') out.ocr_engine = parsed.metadata.ocrEngine;
      }
      if (query.response !== 'text') {
        // a chunk that runs over several pages also lists them, with its box on each (page/bbox are the first page's);
        // `role: furniture` marks the chunks of running heads and footers, after the body's
        out.chunks = (await loadChunks(ctx.quire, doc.id)).map((c) => {
          const pages = c.metadata.pages ?? [c.page];
          return { id: c.id, index: c.index, page: c.page, content: c.content, type: c.metadata.type, confidence: c.metadata.confidence, bbox: c.bbox, span: c.span, ...(pages.length > 1 ? { pages, boxes: c.metadata.boxes } : {}), ...(c.metadata.role ? { role: c.metadata.role } : {}) };
        });
      }
      return out;
    },
  );
}

export function documentId(raw: string | undefined): string {
  const r = idParam.safeParse(raw);
  if (!r.success) throw errors.notFound('document', raw);
  return r.data;
}

/** Shared by POST /v1/documents and POST /api/upload: stream the file to storage, detect, register, queue. */
export async function uploadDocument(ctx: AppContext, owner: { user_id: string; organization_id: string | null }, fieldsCheck?: (fields: Record<string, string>) => Promise<{ organization_id?: string | null; parsingConfig?: ReturnType<typeof parseConfigField>; knowledgeBaseId?: string | null }>) {
  const rt = ctx.quire;
  const id = randomUUID();
  const key = originalKey(id);
  const { fields, file } = await receiveMultipart(ctx, rt.storage, key, rt.config.limits.uploadBytes);
  if (!file) throw errors.validation('The multipart field "file" is required', [{ field: 'file', message: 'required' }]);
  try {
    const extra = fieldsCheck ? await fieldsCheck(fields) : {};
    const detected = await detectStored(rt, key, file.fileName);
    const finalOwner = extra.organization_id !== undefined ? { user_id: owner.user_id, organization_id: extra.organization_id } : owner;
    const created = await createDocument(rt, finalOwner, {
      id,
      name: file.fileName,
      size: file.size,
      sha256: file.sha256,
      format: detected.format,
      mime: detected.mime,
      parsingConfig: extra.parsingConfig ?? null,
      knowledgeBaseId: extra.knowledgeBaseId ?? null,
    });
    return { ...created, file, detected };
  } catch (e) {
    await rt.storage.delete(key).catch(() => {});
    throw e;
  }
}
