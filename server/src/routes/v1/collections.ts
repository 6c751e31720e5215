import Router from '@koa/router';
import { z } from 'zod';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { newOwned } from '@quire/engine';
import { listOwned } from '@quire/engine';
import { addDocument, collectionDocumentIds, createCollection, deleteCollection, documentCount, loadCollection, removeDocument, updateCollection, v1Collection } from '@quire/engine';
import { searchChunks } from '@quire/engine';

const TAG = 'Collections and search (v1)';

export function collectionRoutes(router: Router<any, any>): void {
  route(
    router,
    { method: 'post', path: '/v1/collections', summary: 'Create a collection', tag: TAG, status: 201, body: z.object({ name: z.string().trim().min(1).max(255), description: z.string().max(5000).optional() }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const c = await createCollection(ctx.quire, newOwned(auth, null), body);
      ctx.status = 201;
      return v1Collection(ctx.quire, c);
    },
  );

  route(
    router,
    { method: 'get', path: '/v1/collections', summary: 'List collections (paginated like documents)', tag: TAG, query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), offset: z.coerce.number().int().min(0).default(0) }) },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const { rows, total } = await listOwned(ctx.quire.store, 'collections', auth, {}, { limit: query.limit, offset: query.offset, orderBy: 'created_at' });
      return { object: 'list', data: await Promise.all(rows.map((c) => v1Collection(ctx.quire, c))), has_more: query.offset + rows.length < total, total };
    },
  );

  route(router, { method: 'get', path: '/v1/collections/:id', summary: 'Get a collection', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return v1Collection(ctx.quire, await loadCollection(ctx.quire, auth, ctx.params.id, 'read'));
  });

  route(
    router,
    { method: 'post', path: '/v1/collections/:id', summary: 'Update a collection; returns it', tag: TAG, body: z.object({ name: z.string().trim().min(1).max(255).optional(), description: z.string().max(5000).optional() }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const c = await loadCollection(ctx.quire, auth, ctx.params.id, 'write');
      return v1Collection(ctx.quire, await updateCollection(ctx.quire, c, body));
    },
  );

  route(router, { method: 'delete', path: '/v1/collections/:id', summary: 'Delete a collection (its documents are kept; 404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const c = await loadCollection(ctx.quire, auth, ctx.params.id, 'write');
    await deleteCollection(ctx.quire, c);
    return { id: c.id, object: 'collection', deleted: true };
  });

  route(
    router,
    {
      method: 'post',
      path: '/v1/collections/:id/documents',
      summary: 'Add a document to a collection, or remove it (action: remove)',
      tag: TAG,
      body: z.object({ document_id: z.string().min(1), action: z.enum(['add', 'remove']).default('add') }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const c = await loadCollection(ctx.quire, auth, ctx.params.id, 'write');
      const changed = body.action === 'add' ? await addDocument(ctx.quire, auth, c, body.document_id, auth.user.id) : await removeDocument(ctx.quire, c, body.document_id);
      return { object: 'collection.document', collection_id: c.id, document_id: body.document_id, action: body.action, changed, document_count: await documentCount(ctx.quire, c.id) };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/v1/search',
      summary: 'Semantic (hybrid) search over your chunks',
      tag: TAG,
      body: z.object({ query: z.string().trim().min(1).max(2000), collection_id: z.string().optional(), limit: z.number().int().min(1).max(50).default(10) }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      let documentIds: string[] | undefined;
      if (body.collection_id !== undefined) {
        const c = await loadCollection(ctx.quire, auth, body.collection_id, 'read');
        documentIds = await collectionDocumentIds(ctx.quire, c.id);
      }
      const hits = await searchChunks(ctx.quire, auth, { query: body.query, documentIds, limit: body.limit });
      return { object: 'list', data: hits.map((h) => ({ object: 'search.result', document_id: h.document_id, document_name: h.document_name, score: h.score, page: h.page, content: h.content, chunk_id: h.chunk_id })) };
    },
  );
}
