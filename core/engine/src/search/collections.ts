import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { CollectionRecord, DocumentRecord } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { canRead, loadOwned } from '../infra/access.js';
import { epoch } from '../io/documents.js';

/** Knowledge-base settings (spec §2.2): validated, defaults filled in. */
export const KbSettingsSchema = z
  .object({
    retrieval: z
      .object({ top_k: z.number().int().min(1).max(50).default(5), threshold: z.number().min(0).max(1).default(0), reranking: z.boolean().default(false) })
      .strict()
      .prefault({}),
    chunking: z
      .object({ strategy: z.enum(['semantic', 'fixed', 'page']).default('semantic'), max_size: z.number().int().min(100).max(100_000).default(1000), overlap: z.number().int().min(0).max(50_000).default(100) })
      .strict()
      .prefault({}),
  })
  .strict();
export type KbSettings = z.infer<typeof KbSettingsSchema>;

export async function documentCount(rt: Engine, collectionId: string): Promise<number> {
  return rt.store.repo('collection_documents').count({ collection_id: collectionId });
}

export async function v1Collection(rt: Engine, c: CollectionRecord) {
  return { id: c.id, object: 'collection' as const, name: c.name, description: c.description ?? '', document_count: await documentCount(rt, c.id), created: epoch(c.created_at) };
}

export async function apiKnowledgeBase(rt: Engine, c: CollectionRecord) {
  return {
    id: c.id,
    name: c.name,
    description: c.description ?? '',
    document_count: await documentCount(rt, c.id),
    settings: KbSettingsSchema.parse(c.settings ?? {}),
    organization_id: c.organization_id,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

export async function createCollection(rt: Engine, owner: { user_id: string; organization_id: string | null }, f: { name: string; description?: string | null; settings?: unknown; template_id?: string | null }): Promise<CollectionRecord> {
  const now = new Date();
  return rt.store.repo('collections').insert({
    id: randomUUID(),
    ...owner,
    name: f.name,
    description: f.description ?? null,
    settings: KbSettingsSchema.parse(f.settings ?? {}) as unknown as Record<string, unknown>,
    template_id: f.template_id ?? null,
    created_at: now,
    updated_at: now,
  });
}

export function collectionId(raw: string | undefined, what = 'collection'): string {
  if (!z.string().uuid().safeParse(raw).success) throw errors.notFound(what, raw);
  return raw!;
}

export async function loadCollection(rt: Engine, auth: AuthInfo, id: string | undefined, mode: 'read' | 'write', what = 'collection'): Promise<CollectionRecord> {
  return loadOwned(rt.store, 'collections', collectionId(id, what), auth, mode, what);
}

/** Adds a document the caller can read; idempotent. Returns false when it was already there. */
export async function addDocument(rt: Engine, auth: AuthInfo | null, c: CollectionRecord, documentId: string, userId: string): Promise<boolean> {
  const doc = z.string().uuid().safeParse(documentId).success ? await rt.store.repo('documents').get(documentId) : null;
  if (!doc || (auth && !canRead(auth, doc))) throw errors.notFound('document', documentId);
  const existing = await rt.store.repo('collection_documents').findOne({ collection_id: c.id, document_id: documentId });
  if (existing) return false;
  try {
    await rt.store.repo('collection_documents').insert({ id: randomUUID(), collection_id: c.id, document_id: documentId, user_id: userId, created_at: new Date() });
  } catch (e) {
    if ((e as Error).name === 'StoreConflictError') return false;
    throw e;
  }
  await rt.store.repo('collections').update(c.id, { updated_at: new Date() });
  return true;
}

export async function removeDocument(rt: Engine, c: CollectionRecord, documentId: string): Promise<boolean> {
  const n = await rt.store.repo('collection_documents').delete({ collection_id: c.id, document_id: documentId });
  if (n) await rt.store.repo('collections').update(c.id, { updated_at: new Date() });
  return n > 0;
}

export async function deleteCollection(rt: Engine, c: CollectionRecord): Promise<void> {
  await rt.store.transaction(async (tx) => {
    await tx.repo('collection_documents').delete({ collection_id: c.id });
    await tx.repo('collections').delete(c.id);
  });
}

/** Changes a collection's name, description or settings (settings validated by the caller); the collection as stored after. */
export async function updateCollection(rt: Engine, c: CollectionRecord, f: { name?: string; description?: string; settings?: KbSettings }): Promise<CollectionRecord> {
  const patch = { ...(f.name !== undefined ? { name: f.name } : {}), ...(f.description !== undefined ? { description: f.description } : {}), ...(f.settings !== undefined ? { settings: f.settings as unknown as Record<string, unknown> } : {}), updated_at: new Date() };
  await rt.store.repo('collections').update(c.id, patch);
  return { ...c, ...patch };
}

/** The ids of the documents in a collection. */
export async function collectionDocumentIds(rt: Engine, collectionId: string): Promise<string[]> {
  return (await rt.store.repo('collection_documents').find({ collection_id: collectionId })).map((l) => l.document_id);
}

export async function collectionDocuments(rt: Engine, collectionId: string): Promise<DocumentRecord[]> {
  const links = await rt.store.repo('collection_documents').find({ collection_id: collectionId }, { order: { created_at: 'ASC' } });
  if (!links.length) return [];
  return rt.store.repo('documents').find({ id: links.map((l) => l.document_id) }, { order: { created_at: 'DESC' } });
}
