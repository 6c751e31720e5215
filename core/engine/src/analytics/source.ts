/**
 * What analytics read (spec §4.10): the usage ledger and the job, document, extraction and chat tables, in
 * the caller's scope (their own rows and their organizations' rows), as one list of dated events with the
 * dimensions they can be grouped or filtered by. Rows are read newest first and reading stops at the start
 * of the window, so a query costs what its window holds, not the whole history.
 */
import { errors } from '@quire/core';
import type { Owned, TableName, Tables } from '@quire/core';
import { canRead } from '../infra/access.js';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';

export const PERIODS = { '7d': 7, '30d': 30, '90d': 90, '1y': 365 } as const;
export type Period = keyof typeof PERIODS;
const DAY = 86_400_000;

export interface Window {
  start: Date;
  end: Date;
}

/** The period ending now and the one before it (for trends). */
export function windows(period: Period, now = new Date()): { current: Window; previous: Window } {
  const days = PERIODS[period];
  const start = new Date(now.getTime() - days * DAY);
  return { current: { start, end: now }, previous: { start: new Date(start.getTime() - days * DAY), end: start } };
}

export type Source = 'usage' | 'documents' | 'extractions' | 'chat' | 'jobs';

/** One dated fact: a ledger charge, a document, an extraction, an answered chat query, a job. */
export interface AnalyticsEvent {
  source: Source;
  at: Date;
  id: string;
  /** group-by and filter values: operation, organization_id, status, file_type, schema_id, knowledge_base_id, type */
  dims: Record<string, string | null>;
  /** numbers the metrics add up or average */
  values: Record<string, number | null>;
  document_id: string | null;
}

/** What a job type is billed as, for the `operation` dimension. */
function operationOfJob(type: string): string {
  if (type === 'document' || type === 'parse') return 'parse';
  if (type.startsWith('extract')) return 'extract';
  return type;
}

type OwnedTable = { [N in TableName]: Tables[N] extends Owned & { id: string; created_at: Date } ? N : never }[TableName];

/** Rows of a table in the caller's scope created at or after `since`, newest first (deduplicated). */
async function scopedSince<N extends OwnedTable>(rt: Engine, table: N, auth: AuthInfo, since: Date): Promise<Tables[N][]> {
  const repo = rt.store.repo(table);
  const locked = new Set((auth as { locked?: string[] }).locked ?? []);
  const orgIds = auth.memberships.map((m) => m.organization_id).filter((o) => !locked.has(o));
  const out = new Map<string, Tables[N]>();
  const page = 1000;
  for (const where of [{ user_id: auth.user.id }, ...(orgIds.length ? [{ organization_id: orgIds }] : [])]) {
    for (let offset = 0; ; offset += page) {
      const rows = (await repo.find(where as never, { order: { created_at: 'DESC' } as never, limit: page, offset: offset || undefined })) as Tables[N][];
      let older = false;
      for (const r of rows) {
        const row = r as Tables[N] & Owned & { id: string; created_at: Date };
        if (row.created_at.getTime() < since.getTime()) {
          older = true;
          break;
        }
        // canRead: the caller's own rows of an organization they left (or that locks them out) are not theirs
        if (!canRead(auth, row)) continue;
        out.set(row.id, r);
      }
      if (older || rows.length < page) break;
    }
  }
  return [...out.values()];
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Every event in the caller's scope since `since`. With `knowledgeBaseId` (already checked readable) only
 * what concerns that knowledge base: its documents, their extractions and charges, and its chat queries.
 */
export async function loadEvents(rt: Engine, auth: AuthInfo, since: Date, opts: { knowledgeBaseId?: string | null; sources?: Source[] } = {}): Promise<AnalyticsEvent[]> {
  const want = (s: Source) => !opts.sources || opts.sources.includes(s);
  const events: AnalyticsEvent[] = [];
  let kbDocs: Set<string> | null = null;
  if (opts.knowledgeBaseId) {
    const links = await rt.store.repo('collection_documents').find({ collection_id: opts.knowledgeBaseId });
    kbDocs = new Set(links.map((l) => l.document_id));
  }
  const inKb = (documentId: string | null) => !kbDocs || (!!documentId && kbDocs.has(documentId));

  const docs = want('documents') || want('usage') || want('extractions') ? await scopedSince(rt, 'documents', auth, since) : [];
  const fileTypeOf = new Map(docs.map((d) => [d.id, d.file_type]));
  if (want('documents')) {
    for (const d of docs) {
      if (!inKb(d.id)) continue;
      events.push({
        source: 'documents',
        at: d.created_at,
        id: d.id,
        document_id: d.id,
        dims: { operation: 'parse', organization_id: d.organization_id, status: d.status, file_type: d.file_type, knowledge_base_id: d.knowledge_base_id },
        values: { pages: num(d.pages), processing_ms: d.status === 'completed' ? num(d.processing_ms) : null },
      });
    }
  }
  const extractions = want('extractions') || want('usage') ? await scopedSince(rt, 'extractions', auth, since) : [];
  if (want('extractions')) {
    const schemaIds = [...new Set(extractions.map((x) => x.schema_id).filter((x): x is string => !!x))];
    const schemas = schemaIds.length ? await rt.store.repo('schemas').find({ id: schemaIds }) : [];
    const schemaName = new Map(schemas.map((s) => [s.id, s.name]));
    for (const x of extractions) {
      if (!inKb(x.document_id)) continue;
      const fields = Array.isArray(x.field_results) ? x.field_results.length : 0;
      const corrected = Array.isArray(x.corrections) ? x.corrections.length : 0;
      events.push({
        source: 'extractions',
        at: x.created_at,
        id: x.id,
        document_id: x.document_id,
        dims: { operation: 'extract', organization_id: x.organization_id, status: 'completed', schema_id: x.schema_id, schema: x.schema_id ? (schemaName.get(x.schema_id) ?? x.schema_id) : 'inline', file_type: x.document_id ? (fileTypeOf.get(x.document_id) ?? null) : null },
        values: { confidence: num(x.confidence), duration_ms: num(x.duration_ms), fields, corrected: Math.min(corrected, fields) },
      });
    }
  }
  const chat = want('chat') || want('usage') ? (await scopedSince(rt, 'chat_messages', auth, since)).filter((m) => m.role === 'assistant') : [];
  if (want('chat')) {
    for (const m of chat) {
      if (opts.knowledgeBaseId && m.knowledge_base_id !== opts.knowledgeBaseId) continue;
      const cited = Array.isArray(m.citations) && m.citations.length > 0;
      events.push({
        source: 'chat',
        at: m.created_at,
        id: m.id,
        document_id: null,
        dims: { operation: 'chat', organization_id: m.organization_id, status: cited ? 'answered' : 'unanswered', knowledge_base_id: m.knowledge_base_id },
        values: { confidence: num(m.confidence), response_time_ms: num(m.response_time_ms) },
      });
    }
  }
  if (want('usage')) {
    // with a knowledge base: the charges of its documents, of their extractions and of its chat queries
    const kbResources = kbDocs ? new Set<string>([...kbDocs, ...extractions.filter((x) => inKb(x.document_id)).map((x) => x.id), ...chat.filter((m) => m.knowledge_base_id === opts.knowledgeBaseId).map((m) => m.id)]) : null;
    const usage = (await scopedSince(rt, 'usage', auth, since)).filter((u) => !kbResources || (u.resource_id && kbResources.has(u.resource_id)));
    const resources = await resourceDocuments(rt, usage.map((u) => u.resource_id), fileTypeOf, extractions);
    for (const u of usage) {
      const operation = u.operation === 'ocr_agentic' ? 'parse' : u.operation;
      const doc = u.resource_id ? resources.get(u.resource_id) : undefined;
      events.push({ source: 'usage', at: u.created_at, id: u.id, document_id: doc?.id ?? null, dims: { operation, organization_id: u.organization_id, file_type: doc?.file_type ?? null }, values: { credits: u.credits, units: u.units } });
    }
  }
  if (want('jobs')) {
    for (const j of await scopedSince(rt, 'jobs', auth, since)) {
      if (!inKb(j.document_id) && kbDocs) continue;
      events.push({ source: 'jobs', at: j.created_at, id: j.id, document_id: j.document_id, dims: { operation: operationOfJob(j.type), organization_id: j.organization_id, status: j.status, type: j.type }, values: { duration_ms: j.completed_at ? j.completed_at.getTime() - j.created_at.getTime() : null } });
    }
  }
  return events;
}

const ID_BATCH = 500;

/** Rows of `table` with these ids, read in batches. */
async function byIds<N extends 'documents' | 'jobs' | 'extractions'>(rt: Engine, table: N, ids: string[]): Promise<Tables[N][]> {
  const out: Tables[N][] = [];
  for (let i = 0; i < ids.length; i += ID_BATCH) out.push(...((await rt.store.repo(table).find({ id: ids.slice(i, i + ID_BATCH) } as never)) as Tables[N][]));
  return out;
}

/**
 * The document each charge is about, with its file type: a usage row's resource is a document (an upload's
 * ingest, a generated document), a job (a parse of a document) or an extraction (of a document).
 */
async function resourceDocuments(
  rt: Engine,
  resourceIds: (string | null)[],
  known: Map<string, string>,
  extractions: { id: string; document_id: string | null }[],
): Promise<Map<string, { id: string; file_type: string | null }>> {
  const out = new Map<string, { id: string; file_type: string | null }>();
  const docOf = new Map<string, string>(); // resource id → document id
  const ids = [...new Set(resourceIds.filter((x): x is string => !!x))];
  const extractionDoc = new Map(extractions.map((x) => [x.id, x.document_id]));
  const unknown: string[] = [];
  for (const id of ids) {
    if (known.has(id)) docOf.set(id, id);
    else if (extractionDoc.has(id)) {
      const d = extractionDoc.get(id);
      if (d) docOf.set(id, d);
    } else unknown.push(id);
  }
  if (unknown.length) {
    const docs = await byIds(rt, 'documents', unknown);
    for (const d of docs) {
      docOf.set(d.id, d.id);
      known.set(d.id, d.file_type);
    }
    const rest = unknown.filter((id) => !docOf.has(id));
    if (rest.length) {
      for (const j of await byIds(rt, 'jobs', rest)) if (j.document_id) docOf.set(j.id, j.document_id);
      const left = rest.filter((id) => !docOf.has(id));
      if (left.length) for (const x of await byIds(rt, 'extractions', left)) if (x.document_id) docOf.set(x.id, x.document_id);
    }
  }
  const missing = [...new Set([...docOf.values()].filter((d) => !known.has(d)))];
  if (missing.length) for (const d of await byIds(rt, 'documents', missing)) known.set(d.id, d.file_type);
  for (const [resource, doc] of docOf) if (known.has(doc)) out.set(resource, { id: doc, file_type: known.get(doc) ?? null });
  return out;
}

export function parsePeriod(raw: unknown, fallback: Period = '30d'): Period {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw === 'string' && raw in PERIODS) return raw as Period;
  throw errors.validation(`period must be one of ${Object.keys(PERIODS).join(', ')}`, [{ field: 'period', message: 'unknown period' }]);
}
