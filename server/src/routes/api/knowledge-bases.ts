import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { publicError } from '../../http/middleware.js';
import { newOwned, rateAnswer, readableDocument } from '@quire/engine';
import { listOwned } from '@quire/engine';
import { KbSettingsSchema, addDocument, apiKnowledgeBase, collectionDocuments, createCollection, deleteCollection, loadCollection, removeDocument, updateCollection } from '@quire/engine';
import { checkDuplicates, kbAnalytics, suggestDocuments } from '@quire/engine';

const TAG = 'Knowledge bases';
const uuid = z.string().uuid();
const settings = z.record(z.string(), z.unknown());

/** Starting points for new knowledge bases: their settings suit the kind of sources they describe. */
export const KB_TEMPLATES = [
  { id: 'customer-support', name: 'Customer support', description: 'FAQs, help-center articles and support macros; short precise answers.', category: 'support', icon: 'life-buoy', is_system_template: true, settings: { retrieval: { top_k: 4, threshold: 0.05, reranking: true }, chunking: { strategy: 'semantic', max_size: 800, overlap: 80 } } },
  { id: 'legal-contracts', name: 'Legal and contracts', description: 'Agreements, policies and clauses; larger chunks keep clauses whole.', category: 'legal', icon: 'scale', is_system_template: true, settings: { retrieval: { top_k: 6, threshold: 0, reranking: true }, chunking: { strategy: 'semantic', max_size: 1500, overlap: 150 } } },
  { id: 'research-papers', name: 'Research papers', description: 'Articles and reports with sections, tables and references.', category: 'research', icon: 'book-open', is_system_template: true, settings: { retrieval: { top_k: 8, threshold: 0, reranking: true }, chunking: { strategy: 'semantic', max_size: 1200, overlap: 120 } } },
  { id: 'product-docs', name: 'Product documentation', description: 'Manuals, API references and how-to guides.', category: 'technical', icon: 'code', is_system_template: true, settings: { retrieval: { top_k: 5, threshold: 0, reranking: false }, chunking: { strategy: 'semantic', max_size: 1000, overlap: 100 } } },
  { id: 'financial-reports', name: 'Financial reports', description: 'Statements and spreadsheets; one page per chunk keeps tables with their headings.', category: 'finance', icon: 'bar-chart', is_system_template: true, settings: { retrieval: { top_k: 6, threshold: 0, reranking: false }, chunking: { strategy: 'page', max_size: 2000, overlap: 0 } } },
];

function kbSettings(raw: unknown) {
  const r = KbSettingsSchema.safeParse(raw ?? {});
  if (!r.success) throw errors.validation('Invalid settings', r.error.issues.map((i) => ({ field: ['settings', ...i.path.map(String)].join('.'), message: i.message })));
  return r.data;
}

export function knowledgeBaseRoutes(router: Router<any, any>): void {
  route(router, { method: 'get', path: '/api/knowledge-bases', summary: 'List knowledge bases', tag: TAG, query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(100), offset: z.coerce.number().int().min(0).default(0) }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const { rows, total } = await listOwned(ctx.quire.store, 'collections', auth, {}, { limit: query.limit, offset: query.offset, orderBy: 'created_at' });
    return { knowledge_bases: await Promise.all(rows.map((c) => apiKnowledgeBase(ctx.quire, c))), total, has_more: query.offset + rows.length < total };
  });

  route(router, { method: 'get', path: '/api/knowledge-bases/templates', summary: 'Knowledge-base templates', tag: TAG }, (ctx) => {
    requireAuth(ctx);
    return { templates: KB_TEMPLATES };
  });

  route(
    router,
    { method: 'post', path: '/api/knowledge-bases/from-template', summary: 'Create a knowledge base from a template', tag: TAG, status: 201, body: z.object({ template_id: z.string().min(1), name: z.string().trim().min(1).max(255), description: z.string().max(5000).optional(), organization_id: uuid.optional() }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const t = KB_TEMPLATES.find((x) => x.id === body.template_id);
      if (!t) throw errors.notFound('template', body.template_id);
      const kb = await createCollection(ctx.quire, newOwned(auth, body.organization_id), { name: body.name, description: body.description ?? t.description, settings: t.settings, template_id: t.id });
      ctx.status = 201;
      return { knowledge_base: await apiKnowledgeBase(ctx.quire, kb) };
    },
  );

  route(
    router,
    { method: 'post', path: '/api/knowledge-bases', summary: 'Create a knowledge base', tag: TAG, status: 201, body: z.object({ name: z.string().trim().min(1).max(255), description: z.string().max(5000).optional(), settings: settings.optional(), organization_id: uuid.optional() }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const kb = await createCollection(ctx.quire, newOwned(auth, body.organization_id), { name: body.name, description: body.description, settings: kbSettings(body.settings) });
      ctx.status = 201;
      return { knowledge_base: await apiKnowledgeBase(ctx.quire, kb) };
    },
  );

  route(router, { method: 'get', path: '/api/knowledge-bases/:id', summary: 'Get a knowledge base ({knowledge_base}, the shape of create and update)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return { knowledge_base: await apiKnowledgeBase(ctx.quire, await loadCollection(ctx.quire, auth, ctx.params.id, 'read', 'knowledge base')) };
  });

  route(
    router,
    { method: 'patch', path: '/api/knowledge-bases/:id', summary: 'Update a knowledge base', tag: TAG, body: z.object({ name: z.string().trim().min(1).max(255).optional(), description: z.string().max(5000).optional(), settings: settings.optional() }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'write', 'knowledge base');
      const current = KbSettingsSchema.parse(kb.settings ?? {});
      const merged = body.settings ? kbSettings({ retrieval: { ...current.retrieval, ...((body.settings.retrieval as object) ?? {}) }, chunking: { ...current.chunking, ...((body.settings.chunking as object) ?? {}) }, ...Object.fromEntries(Object.entries(body.settings).filter(([k]) => k !== 'retrieval' && k !== 'chunking')) }) : current;
      return { knowledge_base: await apiKnowledgeBase(ctx.quire, await updateCollection(ctx.quire, kb, { name: body.name, description: body.description, settings: merged })) };
    },
  );

  route(router, { method: 'delete', path: '/api/knowledge-bases/:id', summary: 'Delete a knowledge base (documents are kept; 404 when it is not there for the caller)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'write', 'knowledge base');
    await deleteCollection(ctx.quire, kb);
    return { success: true, id: kb.id };
  });

  route(router, { method: 'get', path: '/api/knowledge-bases/:id/documents', summary: 'Documents in a knowledge base', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'read', 'knowledge base');
    const docs = await collectionDocuments(ctx.quire, kb.id);
    return { documents: docs.map((d) => ({ id: d.id, name: d.name, status: d.status, file_type: d.file_type, created_at: d.created_at.toISOString() })) };
  });

  route(router, { method: 'post', path: '/api/knowledge-bases/:id/documents', summary: 'Add a document', tag: TAG, body: z.object({ document_id: z.string().min(1) }).strict() }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'write', 'knowledge base');
    const added = await addDocument(ctx.quire, auth, kb, body.document_id, auth.user.id);
    return { success: true, knowledge_base_id: kb.id, document_id: body.document_id, added };
  });

  route(
    router,
    { method: 'post', path: '/api/knowledge-bases/:id/documents/batch', summary: 'Add up to 50 documents', tag: TAG, body: z.object({ document_ids: z.array(z.string().min(1)).min(1).max(50) }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'write', 'knowledge base');
      const added: string[] = [];
      const failed: { id: string; error: string }[] = [];
      for (const id of [...new Set(body.document_ids)]) {
        try {
          await addDocument(ctx.quire, auth, kb, id, auth.user.id);
          added.push(id);
        } catch (e) {
          failed.push({ id, error: publicError(e, ctx.state.requestId).message });
        }
      }
      return { added, failed };
    },
  );

  route(router, { method: 'delete', path: '/api/knowledge-bases/:id/documents', summary: 'Remove a document (query document_id)', tag: TAG, query: z.object({ document_id: z.string().min(1) }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'write', 'knowledge base');
    const removed = await removeDocument(ctx.quire, kb, query.document_id);
    return { success: true, knowledge_base_id: kb.id, document_id: query.document_id, removed };
  });

  route(
    router,
    { method: 'get', path: '/api/knowledge-bases/:id/analytics', summary: 'Query analytics', tag: TAG, query: z.object({ days: z.coerce.number().int().min(1).max(3650).default(30), popular_limit: z.coerce.number().int().min(1).max(100).default(10), recent_limit: z.coerce.number().int().min(1).max(100).default(10) }) },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'read', 'knowledge base');
      return kbAnalytics(ctx.quire, kb, query.days, query.popular_limit, query.recent_limit);
    },
  );

  route(
    router,
    { method: 'post', path: '/api/knowledge-bases/:id/analytics/feedback', summary: 'Thumbs up or down on an answer', tag: TAG, body: z.object({ message_id: uuid, feedback: z.enum(['thumbs_up', 'thumbs_down']) }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'read', 'knowledge base');
      const msg = await rateAnswer(ctx.quire, auth, kb, body.message_id, body.feedback);
      return { success: true, message_id: msg.id, feedback: body.feedback };
    },
  );

  route(router, { method: 'get', path: '/api/knowledge-bases/:id/suggestions', summary: 'Documents that would fill gaps in the knowledge base', tag: TAG, query: z.object({ limit: z.coerce.number().int().min(1).max(50).default(10), refresh: z.string().optional() }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'read', 'knowledge base');
    return { suggestions: await suggestDocuments(ctx.quire, auth, kb, query.limit) };
  });

  route(
    router,
    { method: 'post', path: '/api/knowledge-bases/:id/suggestions/check-duplicates', summary: 'Near-duplicates of the knowledge base among documents', tag: TAG, body: z.object({ document_ids: z.array(z.string().min(1)).min(1).max(100) }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const kb = await loadCollection(ctx.quire, auth, ctx.params.id, 'read', 'knowledge base');
      for (const id of body.document_ids) {
        if (!(await readableDocument(ctx.quire, auth, id))) throw errors.notFound('document', id);
      }
      return checkDuplicates(ctx.quire, kb, body.document_ids);
    },
  );
}
