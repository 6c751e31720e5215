/**
 * What the edit routes do with the store: runs and their answers, verification, audit, signed files, projects,
 * configs, vocabulary, suggestions kept on a job, and batches. The routes validate, check who may act and
 * present; every read and write of edit records is here.
 */
import { randomUUID } from 'node:crypto';
import { errors, jobError } from '@quire/core';
import type { DocumentRecord, EditAuditRecord, EditBatchRecord, EditConfigRecord, EditJobRecord, EditProjectRecord, EditRecord, EditVocabularyRecord, Owned } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { apiEditConfig, apiEditJob, apiEditResult } from './api.js';
import { startEditJob, submitEditJobAndWait, verifyEdit } from './jobs.js';
import type { EditRunInput, EditSettings } from './jobs.js';

/** Inline settings of a request (the edit routes' `config`). */
export interface EditSettingsInput {
  instructions?: string;
  detectionSettings?: Record<string, unknown>;
  fillSettings?: Record<string, unknown>;
  include_checkboxes?: boolean;
  include_signatures?: boolean;
  verify?: boolean;
}

/** A config's settings, merged under the request's inline settings (the request wins). */
export function mergeEditSettings(saved: EditConfigRecord | null, inline: EditSettingsInput | undefined): EditSettings {
  const base: EditSettings = saved
    ? { ...(saved.instructions ? { instructions: saved.instructions } : {}), detectionSettings: saved.detection_settings, fillSettings: { ...saved.fill_settings, ...(saved.formatting_color ? { formattingColor: saved.formatting_color } : {}) } }
    : {};
  const i = inline ?? {};
  const detection = { ...base.detectionSettings, ...i.detectionSettings, ...(i.include_checkboxes !== undefined ? { include_checkboxes: i.include_checkboxes } : {}), ...(i.include_signatures !== undefined ? { include_signatures: i.include_signatures } : {}) };
  return { ...((i.instructions ?? base.instructions) ? { instructions: i.instructions ?? base.instructions } : {}), detectionSettings: detection, fillSettings: { ...base.fillSettings, ...i.fillSettings } };
}

/** The latest edit a job made (null when it made none). */
export const editOf = (rt: Engine, j: EditJobRecord): Promise<EditRecord | null> => (j.edit_id ? rt.store.repo('edits').get(j.edit_id) : Promise.resolve(null));

/**
 * The error of a failed edit job with the code its stage failed with (a file over the editor's memory or time
 * limit is a 422 UNPROCESSABLE, not a 500), else PROCESSING_ERROR with the job's message.
 */
export async function editJobError(rt: Engine, job: EditJobRecord, fallback: string): Promise<Error> {
  const runtime = await rt.store.repo('jobs').get(job.id);
  const e = runtime?.status === 'failed' ? jobError(runtime) : null;
  return e && 'code' in e ? e : errors.processing(job.error ?? fallback);
}

/** A run's answer as POST /api/edit/run gives it. */
export interface EditRunAnswer {
  success: boolean;
  job_id: string;
  edit_id: string | null;
  document_id: string;
  filled_elements: unknown[];
  output_file_url: string | null;
  output_file_size: number | null;
  warnings?: unknown;
  verification_result?: unknown;
  error?: string;
}

/** Runs an edit job to its end: the job, its edit and the answer of POST /api/edit/run. */
export async function runEdit(rt: Engine, owner: Owned, doc: DocumentRecord, input: EditRunInput, extra: { project_id?: string | null } = {}): Promise<{ job: EditJobRecord; edit: EditRecord | null; body: EditRunAnswer }> {
  const job = await submitEditJobAndWait(rt, owner, doc, input, extra);
  const edit = await editOf(rt, job);
  if (job.status === 'failed' || !edit) return { job, edit: null, body: { success: false, job_id: job.id, edit_id: null, document_id: doc.id, filled_elements: [], output_file_url: null, output_file_size: null, error: job.error ?? 'Edit failed' } };
  const result = apiEditResult(rt, job, edit);
  return {
    job,
    edit,
    body: {
      success: true,
      job_id: job.id,
      edit_id: edit.id,
      document_id: doc.id,
      filled_elements: result.filled_elements,
      output_file_url: result.output_file_url,
      output_file_size: edit.output_size,
      warnings: edit.warnings,
      ...(input.verify ? { verification_result: edit.verification } : {}),
    },
  };
}

/** Verifies an edit against the elements its job detected and keeps the result on the edit. */
export async function verifyStoredEdit(rt: Engine, edit: EditRecord, doc: DocumentRecord): Promise<Awaited<ReturnType<typeof verifyEdit>>> {
  const job = (await rt.store.repo('edit_jobs').get(edit.edit_job_id))!;
  const verification = await verifyEdit(rt, edit, doc, (job.detected_elements ?? []) as never);
  await rt.store.repo('edits').update(edit.id, { verification });
  return verification;
}

/** An audit row as the API lists it. */
export const apiAuditEntry = (r: EditAuditRecord) => ({ id: r.id, user_id: r.user_id, document_id: r.document_id, edit_id: r.edit_id, edit_job_id: r.edit_job_id, element_id: r.element_id, label: r.label, value: r.value, source: r.source, reasoning: r.reasoning, created_at: r.created_at.toISOString() });

/** The audit report of a job's latest edit (404 when it made none). */
export async function editAuditReport(rt: Engine, job: EditJobRecord) {
  const edit = await editOf(rt, job);
  if (!edit) throw errors.notFound('edit of job', job.id);
  const rows = await rt.store.repo('edit_audit').find({ edit_id: edit.id }, { order: { created_at: 'ASC' } });
  return { document_id: job.document_id, edit_id: edit.id, job_id: job.id, timestamp: edit.created_at.toISOString(), user_id: edit.user_id, fields: rows.map((r) => ({ element_id: r.element_id, label: r.label, value: r.value, source: r.source, reasoning: r.reasoning, filled_at: r.created_at.toISOString() })) };
}

/** The stored file behind a signed edit link: a filled output (by edit id) or an original (by document id). */
export async function editLinkedFile(rt: Engine, purpose: 'edit-output' | 'edit-original', id: string): Promise<{ key: string; name: string; mime: string }> {
  if (purpose === 'edit-output') {
    const edit = await rt.store.repo('edits').get(id);
    if (!edit) throw errors.notFound('edit', id);
    return { key: edit.output_key, name: edit.output_name, mime: edit.output_mime };
  }
  const doc = await rt.store.repo('documents').get(id);
  if (!doc) throw errors.notFound('document', id);
  return { key: doc.storage_key, name: doc.name, mime: doc.mime_type };
}

// ---- projects

export async function createEditProject(rt: Engine, owner: Owned, doc: DocumentRecord, fields: { name?: string; edit_config_id?: string; edit_job_id?: string }): Promise<EditProjectRecord> {
  const now = new Date();
  const row: EditProjectRecord = { id: randomUUID(), ...owner, name: fields.name ?? doc.name, document_id: doc.id, edit_config_id: fields.edit_config_id ?? null, edit_job_id: fields.edit_job_id ?? null, created_at: now, updated_at: now };
  await rt.store.repo('edit_projects').insert(row);
  return row;
}

/** A project's document, config and latest job (with its fill mappings). */
export async function editProjectDetails(rt: Engine, p: EditProjectRecord) {
  const doc = await rt.store.repo('documents').get(p.document_id);
  const cfg = p.edit_config_id ? await rt.store.repo('edit_configs').get(p.edit_config_id) : null;
  const latest = p.edit_job_id ? await rt.store.repo('edit_jobs').get(p.edit_job_id) : null;
  return {
    document: doc ? { id: doc.id, name: doc.name, file_type: doc.file_type, pages: doc.pages, status: doc.status } : null,
    config: cfg ? apiEditConfig(cfg) : null,
    latest_job: latest ? { ...apiEditJob(latest, await editOf(rt, latest)), fill_mappings: latest.fill_mappings ?? [] } : null,
  };
}

/** Every run of a project, oldest first, numbered as versions. */
export async function editProjectRuns(rt: Engine, p: EditProjectRecord) {
  const jobs = await rt.store.repo('edit_jobs').find({ project_id: p.id }, { order: { created_at: 'ASC' } });
  const runs = [];
  for (const [i, j] of jobs.entries()) {
    const r = apiEditResult(rt, j, await editOf(rt, j));
    runs.push({ version: i + 1, job_id: j.id, edit_id: r.edit_id, status: j.status, fields_filled: r.metadata.fields_filled, output_file_url: r.output_file_url, verification_result: r.verification_result, created_at: j.created_at.toISOString(), completed_at: j.completed_at?.toISOString() ?? null });
  }
  return runs;
}

/** Runs a project again as a new version, with its config and the fill mappings of its latest job. */
export async function rerunEditProject(rt: Engine, p: EditProjectRecord, doc: DocumentRecord, verify: boolean) {
  const cfg = mergeEditSettings(p.edit_config_id ? await rt.store.repo('edit_configs').get(p.edit_config_id) : null, undefined);
  const latest = p.edit_job_id ? await rt.store.repo('edit_jobs').get(p.edit_job_id) : null;
  const mappings = ((latest?.fill_mappings ?? []) as { elementId: string; value: unknown; source: string }[]).filter((m) => m.source !== 'instruction').map((m) => ({ elementId: m.elementId, value: m.value }));
  const prior = (latest?.input ?? {}) as { instructions?: string | null };
  const out = await runEdit(rt, { user_id: p.user_id, organization_id: p.organization_id }, doc, { mode: 'run', mappings, instructions: prior.instructions ?? null, verify, config: cfg }, { project_id: p.id });
  await rt.store.repo('edit_projects').update(p.id, { edit_job_id: out.job.id, updated_at: new Date() });
  return out;
}

// ---- configs and vocabulary (an organization's)

export const listEditConfigs = (rt: Engine, organizationId: string): Promise<EditConfigRecord[]> => rt.store.repo('edit_configs').find({ organization_id: organizationId }, { order: { created_at: 'DESC' } });

export async function createEditConfig(rt: Engine, owner: Owned, fields: Omit<EditConfigRecord, 'id' | 'user_id' | 'organization_id' | 'created_at' | 'updated_at'>): Promise<EditConfigRecord> {
  const now = new Date();
  const row: EditConfigRecord = { id: randomUUID(), ...owner, ...fields, created_at: now, updated_at: now };
  await rt.store.repo('edit_configs').insert(row);
  return row;
}

export const listEditVocabulary = (rt: Engine, organizationId: string): Promise<EditVocabularyRecord[]> => rt.store.repo('edit_vocabulary').find({ organization_id: organizationId }, { order: { created_at: 'ASC' } });

export async function addEditVocabulary(rt: Engine, owner: Owned, canonical_term: string, aliases: string[]): Promise<EditVocabularyRecord> {
  const now = new Date();
  const row: EditVocabularyRecord = { id: randomUUID(), ...owner, canonical_term, aliases, created_at: now, updated_at: now };
  await rt.store.repo('edit_vocabulary').insert(row);
  return row;
}

export async function updateEditVocabulary(rt: Engine, row: EditVocabularyRecord, change: { canonical_term?: string; aliases?: string[] }): Promise<EditVocabularyRecord> {
  const patch = { ...(change.canonical_term ? { canonical_term: change.canonical_term } : {}), ...(change.aliases ? { aliases: change.aliases } : {}), updated_at: new Date() };
  await rt.store.repo('edit_vocabulary').update(row.id, patch);
  return { ...row, ...patch };
}

export const deleteEditVocabulary = (rt: Engine, row: EditVocabularyRecord): Promise<unknown> => rt.store.repo('edit_vocabulary').delete(row.id);

/** Keeps suggestions on a job's fill mappings (source ai_suggestion), replacing earlier mappings of the same elements. */
export async function keepSuggestions(rt: Engine, job: EditJobRecord, suggestions: { elementId: string }[]): Promise<void> {
  const kept = ((job.fill_mappings ?? []) as { elementId: string }[]).filter((m) => !suggestions.some((s) => s.elementId === m.elementId));
  await rt.store.repo('edit_jobs').update(job.id, { fill_mappings: [...kept, ...suggestions.map((s) => ({ ...s, source: 'ai_suggestion', confidence: 0.6 }))] as never, updated_at: new Date() });
}

// ---- batches

export async function createEditBatch(rt: Engine, owner: Owned, fields: { name: string | null; document_ids: string[]; config: Record<string, unknown>; edit_config_id: string | null }): Promise<EditBatchRecord> {
  const now = new Date();
  const batch: EditBatchRecord = { id: randomUUID(), ...owner, name: fields.name, status: 'pending', document_ids: [...new Set(fields.document_ids)], config: fields.config, edit_config_id: fields.edit_config_id, jobs: {}, progress: 0, created_at: now, updated_at: now, completed_at: null };
  await rt.store.repo('edit_batches').insert(batch);
  return batch;
}

export const getEditBatch = (rt: Engine, id: string): Promise<EditBatchRecord | null> => rt.store.repo('edit_batches').get(id);

/** Starts one edit job per document of a batch with its config; the batch shows the new jobs. */
export async function startEditBatchJobs(rt: Engine, batch: EditBatchRecord): Promise<Record<string, string>> {
  const jobs: Record<string, string> = {};
  const cfg = batch.config as unknown as EditSettings & { verify?: boolean };
  for (const id of batch.document_ids) {
    const doc = (await rt.store.repo('documents').get(id))!;
    const j = await startEditJob(rt, { user_id: batch.user_id, organization_id: batch.organization_id }, doc, { mode: 'run', instructions: cfg.instructions ?? null, verify: cfg.verify ?? false, config: cfg }, { batch_id: batch.id });
    jobs[id] = j.id;
  }
  await rt.store.repo('edit_batches').update(batch.id, { jobs, status: 'processing', updated_at: new Date() });
  return jobs;
}

/** A batch with status, progress and per-document results; a changed status is stored. */
export async function editBatchView(rt: Engine, b: EditBatchRecord) {
  const results = [];
  let done = 0;
  let failed = 0;
  for (const docId of b.document_ids) {
    const jobId = b.jobs[docId];
    const j = jobId ? await rt.store.repo('edit_jobs').get(jobId) : null;
    const e = j ? await editOf(rt, j) : null;
    if (j?.status === 'completed') done++;
    if (j?.status === 'failed') failed++;
    results.push({ document_id: docId, job_id: jobId ?? null, status: j?.status ?? 'pending', edit_id: e?.id ?? null, fields_filled: e?.filled_elements.length ?? 0, output_file_url: e ? apiEditResult(rt, j!, e).output_file_url : null, error: j?.error ?? null });
  }
  const total = b.document_ids.length;
  const status = !Object.keys(b.jobs).length ? b.status : done + failed === total ? (failed === total ? 'failed' : 'completed') : 'processing';
  if (status !== b.status) await rt.store.repo('edit_batches').update(b.id, { status, progress: Math.round(((done + failed) / total) * 100), updated_at: new Date(), ...(status === 'completed' || status === 'failed' ? { completed_at: new Date() } : {}) });
  return { id: b.id, name: b.name, status, progress: Math.round(((done + failed) / total) * 100), document_ids: b.document_ids, edit_config_id: b.edit_config_id, completed: done, failed, results, created_at: b.created_at.toISOString() };
}

/** Audit entries of every edit of a batch, reruns included, oldest first. */
export async function editBatchAudit(rt: Engine, b: EditBatchRecord) {
  const ids = (await rt.store.repo('edit_jobs').find({ batch_id: b.id })).map((j) => j.id);
  const rows = ids.length ? await rt.store.repo('edit_audit').find({ edit_job_id: ids }, { order: { created_at: 'ASC' } }) : [];
  return rows.map(apiAuditEntry);
}
