import { PassThrough } from 'node:stream';
import Router from '@koa/router';
import { z } from 'zod';
import { QuireError, errors, isQuireError } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { formatBytes, tooLarge } from '../../http/limits.js';
import { assertCanCreateIn, claimPresignedUpload, createPresignedUpload, newOwned, openPresignedUpload, releasePresignedUpload, writableDefaultKnowledgeBase } from '@quire/engine';
import { parseConfigField } from '@quire/engine';
import { createDocument, detectStored } from '@quire/engine';
import { originalKey } from '@quire/engine';
import { uploadDocument } from '../v1/documents.js';
import { KbSettingsSchema, loadCollection } from '@quire/engine';

const TAG = 'Upload';
const uuid = z.string().uuid();

export function uploadRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/api/upload',
      summary: 'Upload a file for processing',
      tag: TAG,
      multipart: { fields: { file: 'the file (max 100 MB)', parsing_config: 'JSON: chunking {strategy, max_chunk_size, overlap}, ocr {enabled, language}', knowledge_base_id: "knowledge base to add the document to once processed (omitted with organization_id: the organization's default_knowledge_base_id, if set)", organization_id: 'owning organization' } },
    },
    async (ctx) => {
      const auth = requireAuth(ctx);
      let parsingConfig: ReturnType<typeof parseConfigField> | undefined;
      const { doc, file } = await uploadDocument(ctx, newOwned(auth, null), async (fields) => {
        parsingConfig = parseConfigField(fields.parsing_config, 'parsing_config');
        const org = fields.organization_id || null;
        if (org && !uuid.safeParse(org).success) throw errors.validation('organization_id must be a UUID', [{ field: 'organization_id', message: 'invalid UUID' }]);
        assertCanCreateIn(auth, org);
        // an upload into an organization joins its default knowledge base when it names none (and the caller may add to it)
        let kb = fields.knowledge_base_id || null;
        if (!kb && org) kb = await writableDefaultKnowledgeBase(ctx.quire.store, auth, org);
        if (kb) {
          if (!uuid.safeParse(kb).success) throw errors.validation('knowledge_base_id must be a UUID', [{ field: 'knowledge_base_id', message: 'invalid UUID' }]);
          const record = await loadCollection(ctx.quire, auth, kb, 'write', 'knowledge base');
          // the knowledge base's chunking settings apply when the upload brings none
          if (!fields.parsing_config) {
            const s = KbSettingsSchema.parse(record.settings ?? {});
            parsingConfig = parseConfigField({ chunking: { strategy: s.chunking.strategy, max_chunk_size: s.chunking.max_size, overlap: s.chunking.overlap } }, 'parsing_config');
          }
        }
        return { organization_id: org, parsingConfig, knowledgeBaseId: kb };
      });
      const ext = (file.fileName.split('.').pop() ?? '').toLowerCase();
      return {
        file_id: `svc://${doc.id}`,
        document: { id: doc.id, name: doc.name, status: doc.status, file_type: doc.file_type, file_format: ext || doc.file_type, parsing_config: doc.parsing_config },
        filename: doc.name,
        size: doc.file_size,
        mime_type: doc.mime_type,
        queue: { queued: true, error: null },
        // credits are charged per page when processing completes (GET /v1/jobs/<id> then shows the pages)
        usage: { num_pages: 0, credits: 0 },
      };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/upload/presigned',
      summary: 'Get a signed URL to PUT a large file (up to 5 GB). Only filename is required; a file_size given caps the upload at that size, else the 5 GB limit applies when the bytes arrive.',
      tag: TAG,
      body: z.object({ filename: z.string().min(1).max(1024), content_type: z.string().min(1).max(255).optional(), file_size: z.number().int().positive().optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      if (body.file_size !== undefined && body.file_size > rt.config.limits.presignedBytes) throw tooLarge(rt.config.limits.presignedBytes);
      const contentType = body.content_type ?? 'application/octet-stream';
      // without a declared size the upload is capped by the limit alone (checked as the bytes arrive)
      const { id, token, documentId, expires } = await createPresignedUpload(rt, auth.user.id, { filename: body.filename, contentType, maxBytes: body.file_size ?? rt.config.limits.presignedBytes });
      return {
        upload_url: `${rt.config.publicUrl}/api/upload/presigned/${id}?token=${token}`,
        file_id: `svc://${documentId}`,
        expires_at: expires.toISOString(),
        method: 'PUT',
        headers: { 'Content-Type': contentType },
      };
    },
  );

  route(router, { method: 'put', path: '/api/upload/presigned/:id', summary: 'Upload the bytes to a presigned URL (no API key: the URL is the credential; usable until an upload succeeds)', tag: TAG, auth: 'none', raw: 'application/json' }, async (ctx) => {
    const rt = ctx.quire;
    const id = ctx.params.id!;
    const token = String(ctx.query.token ?? '');
    const row = await openPresignedUpload(rt, id, token);
    // the size first: a refused upload leaves the URL as it was, so a correct retry works
    const limit = Math.min(row.file_size, rt.config.limits.presignedBytes);
    const refuse = () =>
      row.file_size < rt.config.limits.presignedBytes
        ? new QuireError('FILE_TOO_LARGE', `File exceeds the ${formatBytes(limit)} declared as file_size for this upload URL`, { limit_bytes: limit, file_size: row.file_size })
        : tooLarge(limit);
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limit) throw refuse();
    // one upload at a time: the URL is held while the bytes arrive, given back if the upload fails
    await claimPresignedUpload(rt, id);
    const key = originalKey(row.document_id);
    try {
      // the request is read through a pass-through: a refusal while streaming stops the copy, not the
      // connection, and the rest of the body is drained so that the client reads the 413
      const body = new PassThrough();
      ctx.req.pipe(body);
      let put: { size: number; sha256: string };
      try {
        put = await rt.storage.put(key, body, { maxBytes: limit });
      } catch (e) {
        ctx.req.unpipe(body);
        if (isQuireError(e) && e.code === 'FILE_TOO_LARGE') throw refuse();
        throw e;
      }
      const detected = await detectStored(rt, key, row.filename);
      const { doc } = await createDocument(rt, { user_id: row.user_id, organization_id: row.organization_id }, { id: row.document_id, name: row.filename, size: put.size, sha256: put.sha256, format: detected.format, mime: detected.mime, parsingConfig: null });
      ctx.status = 200;
      ctx.body = { file_id: `svc://${doc.id}`, document: { id: doc.id, name: doc.name, status: doc.status, file_type: doc.file_type }, size: doc.file_size };
    } catch (e) {
      await rt.storage.delete(key).catch(() => {});
      // a failed upload may be retried with the same URL
      await releasePresignedUpload(rt, id);
      throw e;
    }
  });
}
