/**
 * The operations behind /api/split/* and GET /api/documents/<id>/sections (spec §4.7), with their API
 * shapes. Routes stay thin: they validate bodies with split/requests.ts and call these.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { errors } from '@quire/core';
import type { JobRecord, SplitBatchRecord, SplitConfigRecord, SplitSectionRecord } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import { canRead, loadOwned, newOwned } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { jobParsedKey, loadParsed } from '../io/steps.js';
import { documentFileUrl, jobStillServed } from '../io/documents.js';
import { inputOf, loadSplitConfig, prepareSplit, resolveSplitSource, startSplit } from './jobs.js';
import { resultsUrl } from './notify.js';
import { planSections } from './plan.js';
import { resolvePlan, SPLIT_BATCH_MAX } from './requests.js';
import type { SectionPatch, SplitAnalyzeBody, SplitBatchBody, SplitConfigBody, SplitConfigPatch, SplitRunRequest } from './requests.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** spec §2.2 Split section (plus label and metadata). */
export function apiSection(s: SplitSectionRecord, rt?: Pick<Engine, 'config'>) {
  return { id: s.id, name: s.section_name, section_type: s.section_type, page_start: s.page_start, page_end: s.page_end, confidence: s.confidence, ...sectionTypeOf(s), document_id: s.document_id, file_url: sectionFileUrl(s, rt), label: s.label, metadata: s.metadata };
}

/** A section's document type and its confidence (detected sections; null for sections given or cut by page count). */
function sectionTypeOf(s: Pick<SplitSectionRecord, 'metadata'>): { document_type: string | null; document_type_confidence: number | null } {
  const m = (s.metadata ?? {}) as { document_type?: unknown; document_type_confidence?: unknown };
  return { document_type: typeof m.document_type === 'string' ? m.document_type : null, document_type_confidence: typeof m.document_type_confidence === 'number' ? m.document_type_confidence : null };
}

/** The download link of a section's child document (null for a section without one). */
const sectionFileUrl = (s: Pick<SplitSectionRecord, 'document_id'>, rt?: Pick<Engine, 'config'>) => (s.document_id ? (rt ? documentFileUrl(rt, s.document_id) : `/v1/documents/${s.document_id}/file`) : null);

/** The PATCH /api/split/sections/<id> shape. */
export function apiSectionRecord(s: SplitSectionRecord) {
  return { id: s.id, document_id: s.document_id, section_name: s.section_name, section_type: s.section_type, page_start: s.page_start, page_end: s.page_end, confidence: s.confidence, label: s.label, metadata: s.metadata };
}

export function apiSplitConfig(c: SplitConfigRecord) {
  return { id: c.id, name: c.name, description: c.description, instructions: c.instructions, sections: c.sections, settings: c.settings, organization_id: c.organization_id, created_at: iso(c.created_at), updated_at: iso(c.updated_at) };
}

async function sectionsOf(rt: Engine, jobId: string): Promise<SplitSectionRecord[]> {
  return rt.store.repo('split_sections').find({ job_id: jobId }, { order: { idx: 'ASC' } });
}

/**
 * POST /api/split/run. Without webhook_url the call waits for the split (children made and indexed) and
 * answers {success, job_id, sections}; with one it answers at once (202) and the webhook gets split.completed
 * or split.failed.
 */
export async function runSplit(rt: Engine, auth: AuthInfo, body: SplitRunRequest, timeoutMs = 600_000): Promise<{ status: number; body: Record<string, unknown> }> {
  const job = await prepareSplit(rt, auth, body);
  if (job.webhook_url) {
    await startSplit(rt, job);
    return { status: 202, body: { success: true, job_id: job.id, status: 'pending', sections: [], status_url: `${rt.config.publicUrl ?? ''}/api/jobs/${job.id}`, results_url: resultsUrl(rt, job.id), webhook_url: job.webhook_url } };
  }
  const done = await startSplit(rt, job, timeoutMs);
  const sections = await sectionsOf(rt, done.id);
  return { status: 200, body: { success: true, job_id: done.id, status: done.status, source_document_id: (done.result as { source_document_id?: string | null } | null)?.source_document_id ?? null, sections: sections.map((s) => apiSection(s, rt)) } };
}

/** POST /api/split/analyze: the suggested sections of a processed document, without making anything. */
export async function analyzeSplit(rt: Engine, auth: AuthInfo, body: z.infer<typeof SplitAnalyzeBody>, signal?: AbortSignal) {
  const saved = await loadSplitConfig(rt, auth, body.config_id);
  const plan = resolvePlan({ config: { method: 'ai', ...(body.config ?? {}) } }, saved);
  const { source, doc } = await resolveSplitSource(rt, auth, body);
  let key: string;
  if (source.kind === 'job') key = jobParsedKey(source.job_id);
  else if (source.kind === 'document' && doc) {
    if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document ${doc.id} is ${doc.status}; analysis needs a processed document`, { status: doc.status });
    key = doc.content_key;
  } else throw errors.validation('analyze takes a document (document_id or svc://) or a finished parse (jobid://); upload a URL first', [{ field: 'input', message: 'URL inputs are not analysed' }]);
  const parsed = await loadParsed(rt, key);
  const sections = await planSections(rt, parsed, plan, signal);
  return {
    suggested_sections: sections.map((s) => ({ name: s.name, page_start: s.page_start, page_end: s.page_end, confidence: s.confidence, reason: s.reason ?? '', document_type: s.document_type, document_type_confidence: s.document_type_confidence ?? null, signals: s.signals })),
    total_pages: parsed.pages.length,
    recommended_splits: Math.max(0, sections.length - 1),
  };
}

/** A split job the caller may read (someone else's is 404). */
export async function loadSplitJob(rt: Engine, auth: AuthInfo, id: string): Promise<JobRecord> {
  const job = await rt.store.repo('jobs').get(id);
  if (!job || job.type !== 'split' || !canRead(auth, job) || !(await jobStillServed(rt, job))) throw errors.notFound('split job', id);
  return job;
}

/** GET /api/split/results/<id>. */
export async function splitResults(rt: Engine, auth: AuthInfo, id: string) {
  const job = await loadSplitJob(rt, auth, id);
  const sections = await sectionsOf(rt, job.id);
  const src = inputOf(job).source;
  return {
    job_id: job.id,
    status: job.status,
    progress: job.progress,
    source_document_id: job.document_id ?? (src.kind === 'document' ? src.document_id : src.kind === 'job' ? src.document_id : null),
    method: inputOf(job).plan.method,
    sections: sections.map((s) => ({ id: s.id, name: s.section_name, document_id: s.document_id, file_url: sectionFileUrl(s, rt), page_start: s.page_start, page_end: s.page_end, section_type: s.section_type, confidence: s.confidence, ...sectionTypeOf(s), label: s.label })),
    error: job.status === 'failed' ? job.error : null,
    created_at: iso(job.created_at),
    completed_at: iso(job.completed_at),
  };
}

/** PATCH /api/split/sections/<id>: label (≤ 64 characters, null clears it) and section_name. */
export async function patchSection(rt: Engine, auth: AuthInfo, id: string, body: z.infer<typeof SectionPatch>) {
  const row = await loadOwned(rt.store, 'split_sections', id, auth, 'write', 'split section');
  const patch: Partial<SplitSectionRecord> = { updated_at: new Date() };
  if (body.label !== undefined) patch.label = body.label;
  if (body.section_name !== undefined) patch.section_name = body.section_name;
  await rt.store.repo('split_sections').update(row.id, patch);
  return { section: apiSectionRecord({ ...row, ...patch }) };
}

/** GET /api/documents/<id>/sections: the sections of the document's latest finished split (camelCase, as the spec shows). */
export async function documentSections(rt: Engine, auth: AuthInfo, documentId: string) {
  const doc = await loadOwned(rt.store, 'documents', documentId, auth, 'read', 'document');
  const all = await rt.store.repo('split_sections').find({ parent_document_id: doc.id }, { order: { created_at: 'DESC' } });
  const readable = all.filter((s) => canRead(auth, s));
  let latest: string | null = null;
  for (const s of readable) {
    const job = await rt.store.repo('jobs').get(s.job_id);
    if (job?.status === 'completed') {
      latest = job.id;
      break;
    }
  }
  const rows = readable.filter((s) => s.job_id === latest).sort((a, b) => a.idx - b.idx);
  const children = rows.length ? await rt.store.repo('documents').find({ id: rows.map((r) => r.document_id!).filter(Boolean) }) : [];
  const child = new Map(children.map((c) => [c.id, c]));
  const sections = rows.map((s) => {
    const c = s.document_id ? child.get(s.document_id) : undefined;
    return {
      id: s.id,
      sectionName: s.section_name,
      sectionType: s.section_type,
      pageStart: s.page_start,
      pageEnd: s.page_end,
      pageCount: s.page_end - s.page_start + 1,
      confidence: s.confidence,
      label: s.label,
      metadata: s.metadata,
      childDocumentId: c?.id ?? null,
      childDocumentName: c?.name ?? null,
      childDocumentStatus: c?.status ?? null,
    };
  });
  return { documentId: doc.id, documentName: doc.name, sections, totalSections: sections.length, hasSections: sections.length > 0 };
}

// ---- saved configurations

export async function createSplitConfig(rt: Engine, auth: AuthInfo, body: z.infer<typeof SplitConfigBody>): Promise<SplitConfigRecord> {
  const now = new Date();
  const row: SplitConfigRecord = {
    id: randomUUID(),
    ...newOwned(auth, body.organization_id ?? null),
    name: body.name,
    description: body.description ?? null,
    instructions: body.instructions ?? null,
    sections: body.sections ?? null,
    settings: body.settings ?? {},
    created_at: now,
    updated_at: now,
  };
  resolvePlan({}, row); // a method manual without sections is refused now, not at the first run
  await rt.store.repo('split_configs').insert(row);
  return row;
}

export async function updateSplitConfig(rt: Engine, auth: AuthInfo, id: string, body: z.infer<typeof SplitConfigPatch>): Promise<SplitConfigRecord> {
  const row = await loadOwned(rt.store, 'split_configs', id, auth, 'write', 'split config');
  const patch: Partial<SplitConfigRecord> = { updated_at: new Date() };
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  if (body.instructions !== undefined) patch.instructions = body.instructions;
  if (body.sections !== undefined) patch.sections = body.sections;
  if (body.settings !== undefined) patch.settings = { ...row.settings, ...body.settings };
  const next = { ...row, ...patch };
  resolvePlan({}, next);
  await rt.store.repo('split_configs').update(row.id, patch);
  return next;
}

/** Deletes a saved split configuration the caller may change (404 or 403 otherwise, as loadOwned). */
export async function deleteSplitConfig(rt: Engine, auth: AuthInfo, id: string): Promise<SplitConfigRecord> {
  const row = await loadOwned(rt.store, 'split_configs', id, auth, 'write', 'split config');
  await rt.store.repo('split_configs').delete(row.id);
  return row;
}

// ---- batches

/**
 * POST /api/split/batch: a split job per document (document_ids, then input: URLs become documents,
 * svc:// and jobid:// references are used as they are), at most 50 in all; webhook_url gets one event per job.
 */
export async function startSplitBatch(rt: Engine, auth: AuthInfo, body: z.infer<typeof SplitBatchBody>) {
  const items = [...(body.document_ids ?? []).map((document_id) => ({ document_id })), ...(body.input ?? []).map((input) => ({ input }))];
  if (!items.length) throw errors.validation('document_ids or input is required', [{ field: 'document_ids', message: 'give at least one document_id or input' }]);
  if (items.length > SPLIT_BATCH_MAX) throw errors.validation(`A split batch is capped at ${SPLIT_BATCH_MAX} documents (got ${items.length})`, [{ field: 'document_ids', message: `at most ${SPLIT_BATCH_MAX} documents in all (document_ids and input)` }]);
  const saved = await loadSplitConfig(rt, auth, body.config_id);
  const batchId = randomUUID();
  const jobs: JobRecord[] = [];
  // every document is checked before anything starts: one unknown id refuses the whole batch
  for (const item of items) jobs.push(await prepareSplit(rt, auth, { ...item, config: body.config, webhook_url: body.webhook_url, organization_id: body.organization_id }, { batchId, saved }));
  const now = new Date();
  const batch: SplitBatchRecord = { id: batchId, ...newOwned(auth, body.organization_id ?? null), status: 'processing', config_id: saved?.id ?? null, webhook_url: body.webhook_url ?? null, job_ids: jobs.map((j) => j.id), total_count: jobs.length, created_at: now, updated_at: now };
  await rt.store.repo('split_batches').insert(batch);
  for (const job of jobs) await startSplit(rt, job);
  return { batch_id: batch.id, total_count: batch.total_count, message: `Split batch started: ${batch.total_count} document${batch.total_count === 1 ? '' : 's'}, one job each` };
}

/** GET /api/split/batch/<id>: the batch record and its jobs. */
export async function splitBatch(rt: Engine, auth: AuthInfo, id: string) {
  const batch = await loadOwned(rt.store, 'split_batches', id, auth, 'read', 'split batch');
  const rows = await rt.store.repo('jobs').find({ id: batch.job_ids });
  const byId = new Map(rows.map((j) => [j.id, j]));
  const jobs = batch.job_ids.map((jid) => byId.get(jid)).filter((j): j is JobRecord => !!j);
  const count = (s: string) => jobs.filter((j) => j.status === s).length;
  return {
    id: batch.id,
    status: batch.status,
    config_id: batch.config_id,
    webhook_url: batch.webhook_url,
    total_count: batch.total_count,
    completed_count: count('completed'),
    failed_count: count('failed'),
    progress: batch.total_count ? Math.round(((count('completed') + count('failed')) / batch.total_count) * 100) : 100,
    created_at: iso(batch.created_at),
    updated_at: iso(batch.updated_at),
    jobs: jobs.map((j) => ({ id: j.id, document_id: j.document_id, status: j.status, error: j.status === 'failed' ? j.error : null, created_at: iso(j.created_at), results_url: resultsUrl(rt, j.id) })),
  };
}
