import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { z } from 'zod';
import { errors, jobError } from '@quire/core';
import type { DocumentRecord, EditBatchRecord, EditConfigRecord, EditJobRecord, Owned } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import type { AppContext } from '../../http/context.js';
import { route } from '../../http/route.js';
import { contentDisposition } from '../../http/download.js';
import {
  apiEditConfig,
  apiEditJob,
  apiEditProject,
  apiEditResult,
  apiFilled,
  apiVocabulary,
  assertCanCreateIn,
  awaitEditJob,
  documentFromUrl,
  elementsOf,
  listOwned,
  loadOwned,
  newOwned,
  resolveInput,
  roleIn,
  startEditJob,
  suggestValues,
  verifyEdit,
  verifyLink,
} from '@quire/engine';
import type { AuthInfo, EditRunInput, EditSettings } from '@quire/engine';

const TAG = 'Edit';
const uuid = z.string().uuid();
const MappingItem = z.object({ elementId: z.string().min(1), value: z.unknown(), formatted: z.boolean().optional() });
const Mappings = z.union([z.array(MappingItem).max(5000), z.record(z.string(), z.unknown())]);
const Settings = z
  .object({
    instructions: z.string().max(20_000).optional(),
    detectionSettings: z.object({ include_checkboxes: z.boolean().optional(), include_signatures: z.boolean().optional() }).passthrough().optional(),
    fillSettings: z.object({ formattingColor: z.string().max(32).optional(), flatten: z.boolean().optional() }).passthrough().optional(),
    include_checkboxes: z.boolean().optional(),
    include_signatures: z.boolean().optional(),
    verify: z.boolean().optional(),
  })
  .passthrough();
type SettingsIn = z.infer<typeof Settings>;

/**
 * The caller's active organization: `organization_id` of the body or query, else the X-Organization-Id
 * header; null (personal) when neither names one. Being in a single organization does not make it the
 * active one. A named organization must be theirs.
 */
function activeOrganization(ctx: AppContext, auth: AuthInfo, given?: string | null): string | null {
  const id = given ?? ctx.get('x-organization-id') ?? '';
  if (id) {
    if (!roleIn(auth, id)) throw errors.notFound('organization', id);
    return id;
  }
  return null;
}

function needOrganization(ctx: AppContext, auth: AuthInfo, given?: string | null): string {
  const org = activeOrganization(ctx, auth, given);
  if (!org) throw errors.validation('Edit configs need an active organization: send X-Organization-Id (or organization_id) of an organization you belong to');
  return org;
}

/** A config's settings, merged under the request's inline config (the request wins). */
function mergeSettings(saved: EditConfigRecord | null, inline: SettingsIn | undefined): EditSettings {
  const base: EditSettings = saved
    ? { ...(saved.instructions ? { instructions: saved.instructions } : {}), detectionSettings: saved.detection_settings, fillSettings: { ...saved.fill_settings, ...(saved.formatting_color ? { formattingColor: saved.formatting_color } : {}) } }
    : {};
  const i = inline ?? {};
  const detection = { ...base.detectionSettings, ...i.detectionSettings, ...(i.include_checkboxes !== undefined ? { include_checkboxes: i.include_checkboxes } : {}), ...(i.include_signatures !== undefined ? { include_signatures: i.include_signatures } : {}) };
  return { ...(i.instructions ?? base.instructions ? { instructions: i.instructions ?? base.instructions } : {}), detectionSettings: detection, fillSettings: { ...base.fillSettings, ...i.fillSettings } };
}

async function editDocument(ctx: AppContext, auth: AuthInfo, documentId?: string, input?: string): Promise<DocumentRecord> {
  if (documentId) return loadOwned(ctx.quire.store, 'documents', documentId, auth, 'read', 'document');
  if (!input) throw errors.validation('document_id or input is required');
  const ref = await resolveInput(ctx.quire, auth, input);
  if (ref.kind === 'url') return documentFromUrl(ctx.quire, newOwned(auth, activeOrganization(ctx, auth)), ref.url);
  if (ref.kind !== 'document') throw errors.validation('input must be an http(s) URL or an svc://<document_id> reference');
  return ref.doc;
}

const loadJob = (ctx: AppContext, auth: AuthInfo, id: string, mode: 'read' | 'write' = 'read') => loadOwned(ctx.quire.store, 'edit_jobs', id, auth, mode, 'edit job');
const editOf = (ctx: AppContext, j: EditJobRecord) => (j.edit_id ? ctx.quire.store.repo('edits').get(j.edit_id) : Promise.resolve(null));

/**
 * The error of a failed edit job with the code its stage failed with (a file over the editor's memory or time
 * limit is a 422 UNPROCESSABLE, not a 500), else PROCESSING_ERROR with the job's message.
 */
async function editJobError(ctx: AppContext, job: EditJobRecord, fallback: string): Promise<Error> {
  const runtime = await ctx.quire.store.repo('jobs').get(job.id);
  const e = runtime?.status === 'failed' ? jobError(runtime) : null;
  return e && 'code' in e ? e : errors.processing(job.error ?? fallback);
}

/** Runs an edit job to its end and answers as POST /api/edit/run does. */
async function runAndAnswer(ctx: AppContext, owner: Owned, doc: DocumentRecord, input: EditRunInput, extra: { project_id?: string | null } = {}) {
  const started = await startEditJob(ctx.quire, owner, doc, input, extra);
  const job = await awaitEditJob(ctx.quire, started.id);
  const edit = await editOf(ctx, job);
  if (job.status === 'failed' || !edit) return { job, edit: null, body: { success: false, job_id: job.id, edit_id: null, document_id: doc.id, filled_elements: [], output_file_url: null, output_file_size: null, error: job.error ?? 'Edit failed' } };
  const result = apiEditResult(ctx.quire, job, edit);
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

async function configFor(ctx: AppContext, auth: AuthInfo, id: string | null | undefined): Promise<EditConfigRecord | null> {
  return id ? loadOwned(ctx.quire.store, 'edit_configs', id, auth, 'read', 'edit config') : null;
}

/**
 * Edit (spec §4.5): detect form elements of PDFs and images, fill them from mappings, instructions and
 * corrections, verify, audit, projects with runs, batches, configs, vocabulary and suggestions.
 */
export function editRoutes(router: Router<any, any>): void {
  route(
    router,
    { method: 'post', path: '/api/edit/detect', summary: 'Detect fillable elements ({job_id, elements}): AcroForm fields of PDFs, blanks of flat PDFs and images from the parsed layout. config: include_checkboxes, include_signatures', tag: TAG, body: z.object({ document_id: uuid.optional(), input: z.string().max(4096).optional(), config: Settings.optional(), edit_config_id: uuid.optional() }) },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const doc = await editDocument(ctx, auth, body.document_id, body.input);
      const cfg = mergeSettings(await configFor(ctx, auth, body.edit_config_id), body.config);
      const started = await startEditJob(ctx.quire, newOwned(auth, doc.organization_id), doc, { mode: 'detect', config: cfg });
      const job = await awaitEditJob(ctx.quire, started.id);
      if (job.status === 'failed') throw await editJobError(ctx, job, 'Detection failed');
      return { job_id: job.id, elements: elementsOf(job) };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/edit/run',
      summary: 'Detect and fill (spec §4.5 run): mappings (array by elementId, or object by label or id with edit_job_id), instructions (offline statements, or the LLM when configured), corrections; edit_config_id merged under config; verify re-reads the output. Answers {success, job_id, edit_id, document_id, filled_elements, output_file_url (signed, expires in an hour), output_file_size, verification_result}',
      tag: TAG,
      body: z.object({
        document_id: uuid.optional(),
        input: z.string().optional(),
        edit_job_id: uuid.optional(),
        edit_config_id: uuid.optional(),
        instructions: z.string().max(20_000).optional(),
        refined_instructions: z.string().max(20_000).optional(),
        mappings: Mappings.optional(),
        corrections: Mappings.optional(),
        edit_id: uuid.optional(),
        verify: z.boolean().optional(),
        config: Settings.optional(),
      }),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const from = body.edit_job_id ? await loadJob(ctx, auth, body.edit_job_id) : null;
      if (!from && body.mappings && !Array.isArray(body.mappings)) throw errors.validation('mappings: an object (by label or id) needs edit_job_id; send an array of {elementId, value} otherwise');
      if (body.corrections && !from) throw errors.validation('corrections need edit_job_id');
      const doc = from ? await loadOwned(ctx.quire.store, 'documents', from.document_id, auth, 'read', 'document') : await editDocument(ctx, auth, body.document_id, body.input);
      if (body.edit_id) {
        const prev = await loadOwned(ctx.quire.store, 'edits', body.edit_id, auth, 'read', 'edit');
        if (prev.document_id !== doc.id) throw errors.validation('edit_id is an edit of another document');
      }
      const cfg = mergeSettings(await configFor(ctx, auth, body.edit_config_id), body.config);
      const previousEdit = body.edit_id ?? (body.corrections && from?.edit_id ? from.edit_id : null);
      const input: EditRunInput = { mode: 'run', from_job_id: from?.id ?? null, mappings: body.mappings, instructions: body.refined_instructions ?? body.instructions ?? null, corrections: body.corrections, edit_id: previousEdit, verify: body.verify ?? body.config?.verify ?? false, config: cfg };
      const out = await runAndAnswer(ctx, newOwned(auth, doc.organization_id), doc, input);
      if (!out.body.success) throw await editJobError(ctx, out.job, String(out.body.error));
      return out.body;
    },
  );

  route(router, { method: 'post', path: '/api/edit/verify', summary: 'Verify an edit ({success, verification: {pass, warnings, checkedFields}}): AcroForm values read back with pdf-lib, flat pages parsed (or OCRed) inside each element\'s box', tag: TAG, body: z.object({ edit_id: uuid }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const edit = await loadOwned(ctx.quire.store, 'edits', body.edit_id, auth, 'read', 'edit');
    // verifying stores its result on the edit: viewers change nothing (403)
    assertCanCreateIn(auth, edit.organization_id);
    const job = (await ctx.quire.store.repo('edit_jobs').get(edit.edit_job_id))!;
    const doc = await loadOwned(ctx.quire.store, 'documents', edit.document_id, auth, 'read', 'document');
    const verification = await verifyEdit(ctx.quire, edit, doc, (job.detected_elements ?? []) as never);
    await ctx.quire.store.repo('edits').update(edit.id, { verification });
    return { success: true, verification };
  });

  route(router, { method: 'get', path: '/api/edit/jobs/:id', summary: 'An edit job: {id, status (pending, detecting, filling, rendering, completed, failed), progress, document_id, detected_elements, filled_elements, created_at, completed_at}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const job = await loadJob(ctx, auth, ctx.params.id!);
    return apiEditJob(job, await editOf(ctx, job));
  });

  route(router, { method: 'get', path: '/api/edit/results/:id', summary: 'An edit job\'s result: {edit_id, document_id, original_file_url, output_file_url (signed, expiring), filled_elements, detected_elements, metadata {pages_modified, fields_filled}}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const job = await loadJob(ctx, auth, ctx.params.id!);
    return apiEditResult(ctx.quire, job, await editOf(ctx, job));
  });

  route(router, { method: 'get', path: '/api/edit/results/:id/audit-report', summary: 'Audit report of the job\'s latest edit: {document_id, edit_id, job_id, timestamp, user_id, fields: [{element_id, label, value, source, reasoning, filled_at}]}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const job = await loadJob(ctx, auth, ctx.params.id!);
    const edit = await editOf(ctx, job);
    if (!edit) throw errors.notFound('edit of job', job.id);
    const rows = await ctx.quire.store.repo('edit_audit').find({ edit_id: edit.id }, { order: { created_at: 'ASC' } });
    return { document_id: job.document_id, edit_id: edit.id, job_id: job.id, timestamp: edit.created_at.toISOString(), user_id: edit.user_id, fields: rows.map((r) => ({ element_id: r.element_id, label: r.label, value: r.value, source: r.source, reasoning: r.reasoning, filled_at: r.created_at.toISOString() })) };
  });

  route(router, { method: 'get', path: '/api/edit/audit', summary: 'Audit log of fills ({entries: [{id, user_id, document_id, edit_id, edit_job_id, element_id, label, value, source, reasoning, created_at}]}), filtered by document_id and a from/to ISO date range', tag: TAG, query: z.object({ document_id: uuid.optional(), from: z.string().datetime({ offset: true }).or(z.string().date()).optional(), to: z.string().datetime({ offset: true }).or(z.string().date()).optional(), limit: z.coerce.number().int().min(1).max(1000).default(200), offset: z.coerce.number().int().min(0).default(0) }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    if (query.document_id) await loadOwned(ctx.quire.store, 'documents', query.document_id, auth, 'read', 'document');
    const { rows } = await listOwned(ctx.quire.store, 'edit_audit', auth, query.document_id ? { document_id: query.document_id } : {}, { limit: 100_000, offset: 0, orderBy: 'created_at' });
    const from = query.from ? new Date(query.from).getTime() : -Infinity;
    const to = query.to ? new Date(query.to.length === 10 ? `${query.to}T23:59:59.999Z` : query.to).getTime() : Infinity;
    const picked = rows.filter((r) => r.created_at.getTime() >= from && r.created_at.getTime() <= to);
    return { entries: picked.slice(query.offset, query.offset + query.limit).map((r) => ({ id: r.id, user_id: r.user_id, document_id: r.document_id, edit_id: r.edit_id, edit_job_id: r.edit_job_id, element_id: r.element_id, label: r.label, value: r.value, source: r.source, reasoning: r.reasoning, created_at: r.created_at.toISOString() })), total: picked.length };
  });

  route(router, { method: 'get', path: '/api/edit/files/:kind/:id', summary: 'A signed edit file: outputs/<edit_id> (a filled file) or originals/<document_id> (the unchanged original), by the expires and sig of its URL', tag: TAG, auth: 'none', raw: 'application/pdf or image', query: z.object({ expires: z.coerce.number(), sig: z.string().min(1) }) }, async (ctx, { query }) => {
    const rt = ctx.quire;
    const kind = ctx.params.kind!;
    const id = ctx.params.id!;
    const purpose = kind === 'outputs' ? 'edit-output' : kind === 'originals' ? 'edit-original' : null;
    if (!purpose || !verifyLink(rt.signingSecret, purpose, id, query.expires, query.sig)) throw errors.unauthorized('Invalid or expired file link');
    let key: string, name: string, mime: string;
    if (purpose === 'edit-output') {
      const edit = await rt.store.repo('edits').get(id);
      if (!edit) throw errors.notFound('edit', id);
      ({ output_key: key, output_name: name, output_mime: mime } = edit);
    } else {
      const doc = await rt.store.repo('documents').get(id);
      if (!doc) throw errors.notFound('document', id);
      ({ storage_key: key, name, mime_type: mime } = doc);
    }
    ctx.set('Cache-Control', 'private, no-store');
    ctx.set('Content-Disposition', contentDisposition(name));
    ctx.type = mime;
    ctx.body = await rt.storage.stream(key);
  });

  // ---- projects
  route(router, { method: 'get', path: '/api/edit/projects', summary: 'Edit projects ({projects})', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const { rows } = await listOwned(ctx.quire.store, 'edit_projects', auth, {}, { limit: 1000, offset: 0, orderBy: 'created_at' });
    return { projects: rows.map(apiEditProject) };
  });
  route(router, { method: 'post', path: '/api/edit/projects', summary: 'Create an edit project ({project}) for a document, with an optional saved config and detection job', tag: TAG, status: 201, body: z.object({ document_id: uuid, name: z.string().min(1).max(255).optional(), edit_config_id: uuid.optional(), edit_job_id: uuid.optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const doc = await loadOwned(ctx.quire.store, 'documents', body.document_id, auth, 'read', 'document');
    if (body.edit_config_id) await configFor(ctx, auth, body.edit_config_id);
    if (body.edit_job_id && (await loadJob(ctx, auth, body.edit_job_id)).document_id !== doc.id) throw errors.validation('edit_job_id is a job of another document');
    const now = new Date();
    const row = { id: randomUUID(), ...newOwned(auth, doc.organization_id), name: body.name ?? doc.name, document_id: doc.id, edit_config_id: body.edit_config_id ?? null, edit_job_id: body.edit_job_id ?? null, created_at: now, updated_at: now };
    await ctx.quire.store.repo('edit_projects').insert(row);
    return { project: apiEditProject(row) };
  });
  route(router, { method: 'get', path: '/api/edit/projects/:id', summary: 'An edit project with its document, config and latest job ({project, document, config, latest_job}; the job with detected_elements and fill_mappings)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const p = await loadOwned(ctx.quire.store, 'edit_projects', ctx.params.id!, auth, 'read', 'edit project');
    const doc = await ctx.quire.store.repo('documents').get(p.document_id);
    const cfg = p.edit_config_id ? await ctx.quire.store.repo('edit_configs').get(p.edit_config_id) : null;
    const latest = p.edit_job_id ? await ctx.quire.store.repo('edit_jobs').get(p.edit_job_id) : null;
    return {
      project: apiEditProject(p),
      document: doc ? { id: doc.id, name: doc.name, file_type: doc.file_type, pages: doc.pages, status: doc.status } : null,
      config: cfg ? apiEditConfig(cfg) : null,
      latest_job: latest ? { ...apiEditJob(latest, await editOf(ctx, latest)), fill_mappings: latest.fill_mappings ?? [] } : null,
    };
  });
  route(router, { method: 'get', path: '/api/edit/projects/:id/runs', summary: 'Version history of a project ({runs: [{version, job_id, edit_id, status, fields_filled, output_file_url, created_at, completed_at}]}, oldest first)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const p = await loadOwned(ctx.quire.store, 'edit_projects', ctx.params.id!, auth, 'read', 'edit project');
    const jobs = await ctx.quire.store.repo('edit_jobs').find({ project_id: p.id }, { order: { created_at: 'ASC' } });
    const runs = [];
    for (const [i, j] of jobs.entries()) {
      const r = apiEditResult(ctx.quire, j, await editOf(ctx, j));
      runs.push({ version: i + 1, job_id: j.id, edit_id: r.edit_id, status: j.status, fields_filled: r.metadata.fields_filled, output_file_url: r.output_file_url, verification_result: r.verification_result, created_at: j.created_at.toISOString(), completed_at: j.completed_at?.toISOString() ?? null });
    }
    return { runs };
  });
  route(router, { method: 'post', path: '/api/edit/projects/:id/rerun', summary: 'Run the project again as a new version: detect and fill with the project\'s config and the fill mappings of its latest job ({success, edit_job_id, edit_id, output_file_url, verification_result, error})', tag: TAG, body: z.object({ verify: z.boolean().optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const p = await loadOwned(ctx.quire.store, 'edit_projects', ctx.params.id!, auth, 'write', 'edit project');
    const doc = await loadOwned(ctx.quire.store, 'documents', p.document_id, auth, 'read', 'document');
    const cfg = mergeSettings(p.edit_config_id ? await ctx.quire.store.repo('edit_configs').get(p.edit_config_id) : null, undefined);
    const latest = p.edit_job_id ? await ctx.quire.store.repo('edit_jobs').get(p.edit_job_id) : null;
    const mappings = ((latest?.fill_mappings ?? []) as { elementId: string; value: unknown; source: string }[]).filter((m) => m.source !== 'instruction').map((m) => ({ elementId: m.elementId, value: m.value }));
    const prior = (latest?.input ?? {}) as { instructions?: string | null };
    const out = await runAndAnswer(ctx, { user_id: p.user_id, organization_id: p.organization_id }, doc, { mode: 'run', mappings, instructions: prior.instructions ?? null, verify: body.verify ?? false, config: cfg }, { project_id: p.id });
    await ctx.quire.store.repo('edit_projects').update(p.id, { edit_job_id: out.job.id, updated_at: new Date() });
    return { success: out.body.success, edit_job_id: out.job.id, edit_id: out.body.edit_id, output_file_url: out.body.output_file_url, verification_result: out.edit?.verification ?? null, error: out.body.success ? null : out.body.error };
  });

  // ---- configs (need an active organization)
  route(router, { method: 'get', path: '/api/edit/configs', summary: 'Edit configs of the active organization ({configs}); the organization is organization_id, else X-Organization-Id (400 without one)', tag: TAG, query: z.object({ organization_id: uuid.optional() }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const org = needOrganization(ctx, auth, query.organization_id);
    const rows = await ctx.quire.store.repo('edit_configs').find({ organization_id: org }, { order: { created_at: 'DESC' } });
    return { configs: rows.map(apiEditConfig) };
  });
  route(router, { method: 'post', path: '/api/edit/configs', summary: 'Create an edit config in the active organization ({config}); config: formatting_color (or fillSettings.formattingColor), detection_settings, fill_settings', tag: TAG, status: 201, body: z.object({ name: z.string().min(1).max(255), description: z.string().max(5000).optional(), instructions: z.string().max(20_000).optional(), organization_id: uuid.optional(), config: z.object({ formatting_color: z.string().max(32).optional(), formattingColor: z.string().max(32).optional(), detection_settings: z.record(z.string(), z.unknown()).optional(), detectionSettings: z.record(z.string(), z.unknown()).optional(), fill_settings: z.record(z.string(), z.unknown()).optional(), fillSettings: z.record(z.string(), z.unknown()).optional() }).optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const org = needOrganization(ctx, auth, body.organization_id);
    const c = body.config ?? {};
    const fill = { ...(c.fill_settings ?? c.fillSettings ?? {}) } as Record<string, unknown>;
    const color = c.formatting_color ?? c.formattingColor ?? (typeof fill.formattingColor === 'string' ? fill.formattingColor : null);
    const now = new Date();
    const row: EditConfigRecord = { id: randomUUID(), ...newOwned(auth, org), name: body.name, description: body.description ?? null, instructions: body.instructions ?? null, formatting_color: color, detection_settings: (c.detection_settings ?? c.detectionSettings ?? {}) as Record<string, unknown>, fill_settings: fill, created_at: now, updated_at: now };
    await ctx.quire.store.repo('edit_configs').insert(row);
    return { config: apiEditConfig(row) };
  });
  route(router, { method: 'get', path: '/api/edit/configs/:id', summary: 'An edit config ({config})', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return { config: apiEditConfig(await loadOwned(ctx.quire.store, 'edit_configs', ctx.params.id!, auth, 'read', 'edit config')) };
  });

  // ---- vocabulary (the active organization's)
  route(router, { method: 'get', path: '/api/edit/vocabulary', summary: 'Vocabulary of the active organization (organization_id or X-Organization-Id) ({entries}); empty without one', tag: TAG, query: z.object({ organization_id: uuid.optional() }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const org = activeOrganization(ctx, auth, query.organization_id);
    if (!org) return { entries: [] };
    return { entries: (await ctx.quire.store.repo('edit_vocabulary').find({ organization_id: org }, { order: { created_at: 'ASC' } })).map(apiVocabulary) };
  });
  route(router, { method: 'post', path: '/api/edit/vocabulary', summary: 'Add a vocabulary entry to the active organization ({entry}): a canonical term and its aliases, used when labels and instructions are matched', tag: TAG, status: 201, body: z.object({ canonical_term: z.string().trim().min(1).max(255), aliases: z.array(z.string().trim().min(1).max(255)).max(200).default([]), organization_id: uuid.optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const org = needOrganization(ctx, auth, body.organization_id);
    const now = new Date();
    const row = { id: randomUUID(), ...newOwned(auth, org), canonical_term: body.canonical_term, aliases: body.aliases, created_at: now, updated_at: now };
    await ctx.quire.store.repo('edit_vocabulary').insert(row);
    return { entry: apiVocabulary(row) };
  });
  route(router, { method: 'patch', path: '/api/edit/vocabulary/:id', summary: 'Change a vocabulary entry ({entry})', tag: TAG, body: z.object({ canonical_term: z.string().trim().min(1).max(255).optional(), aliases: z.array(z.string().trim().min(1).max(255)).max(200).optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const row = await loadOwned(ctx.quire.store, 'edit_vocabulary', ctx.params.id!, auth, 'write', 'vocabulary entry');
    const patch = { ...(body.canonical_term ? { canonical_term: body.canonical_term } : {}), ...(body.aliases ? { aliases: body.aliases } : {}), updated_at: new Date() };
    await ctx.quire.store.repo('edit_vocabulary').update(row.id, patch);
    return { entry: apiVocabulary({ ...row, ...patch }) };
  });
  route(router, { method: 'delete', path: '/api/edit/vocabulary/:id', summary: 'Delete a vocabulary entry ({deleted: true})', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const row = await loadOwned(ctx.quire.store, 'edit_vocabulary', ctx.params.id!, auth, 'write', 'vocabulary entry');
    await ctx.quire.store.repo('edit_vocabulary').delete(row.id);
    return { deleted: true };
  });

  route(router, { method: 'post', path: '/api/edit/suggest', summary: 'Suggest values for a detection job\'s empty elements ({suggestions: [{elementId, value, reasoning}]}) from the document\'s own content, the instructions and the caller\'s earlier fills; with session_id equal to the job id they are saved to the job\'s fill mappings with source ai_suggestion', tag: TAG, body: z.object({ edit_job_id: uuid, instructions: z.string().max(20_000).optional(), session_id: z.string().max(100).optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const job = await loadJob(ctx, auth, body.edit_job_id, body.session_id === body.edit_job_id ? 'write' : 'read');
    const suggestions = await suggestValues(ctx.quire, job, body.instructions);
    if (body.session_id && body.session_id === job.id) {
      const kept = ((job.fill_mappings ?? []) as { elementId: string }[]).filter((m) => !suggestions.some((s) => s.elementId === m.elementId));
      await ctx.quire.store.repo('edit_jobs').update(job.id, { fill_mappings: [...kept, ...suggestions.map((s) => ({ ...s, source: 'ai_suggestion', confidence: 0.6 }))] as never, updated_at: new Date() });
    }
    return { suggestions };
  });

  // ---- batches
  const Batch = z.object({ document_ids: z.array(uuid).min(1).max(100), edit_config_id: uuid.optional(), config: Settings.optional(), name: z.string().max(255).optional(), run_immediately: z.boolean().default(true), mappings: z.array(MappingItem).max(5000).optional(), organization_id: uuid.optional().describe('the organization the batch belongs to (or X-Organization-Id); personal without one') });
  async function startBatchJobs(ctx: AppContext, batch: EditBatchRecord): Promise<Record<string, string>> {
    const jobs: Record<string, string> = {};
    const cfg = batch.config as unknown as EditSettings & { verify?: boolean };
    for (const id of batch.document_ids) {
      const doc = (await ctx.quire.store.repo('documents').get(id))!;
      const j = await startEditJob(ctx.quire, { user_id: batch.user_id, organization_id: batch.organization_id }, doc, { mode: 'run', instructions: cfg.instructions ?? null, verify: cfg.verify ?? false, config: cfg }, { batch_id: batch.id });
      jobs[id] = j.id;
    }
    await ctx.quire.store.repo('edit_batches').update(batch.id, { jobs, status: 'processing', updated_at: new Date() });
    return jobs;
  }
  async function batchView(ctx: AppContext, b: EditBatchRecord) {
    const results = [];
    let done = 0, failed = 0;
    for (const docId of b.document_ids) {
      const jobId = b.jobs[docId];
      const j = jobId ? await ctx.quire.store.repo('edit_jobs').get(jobId) : null;
      const e = j ? await editOf(ctx, j) : null;
      if (j?.status === 'completed') done++;
      if (j?.status === 'failed') failed++;
      results.push({ document_id: docId, job_id: jobId ?? null, status: j?.status ?? 'pending', edit_id: e?.id ?? null, fields_filled: e?.filled_elements.length ?? 0, output_file_url: e ? apiEditResult(ctx.quire, j!, e).output_file_url : null, error: j?.error ?? null });
    }
    const total = b.document_ids.length;
    const status = !Object.keys(b.jobs).length ? b.status : done + failed === total ? (failed === total ? 'failed' : 'completed') : 'processing';
    if (status !== b.status) await ctx.quire.store.repo('edit_batches').update(b.id, { status, progress: Math.round(((done + failed) / total) * 100), updated_at: new Date(), ...(status === 'completed' || status === 'failed' ? { completed_at: new Date() } : {}) });
    return { id: b.id, name: b.name, status, progress: Math.round(((done + failed) / total) * 100), document_ids: b.document_ids, edit_config_id: b.edit_config_id, completed: done, failed, results, created_at: b.created_at.toISOString() };
  }
  route(router, { method: 'post', path: '/api/edit/batch', summary: 'Edit 1 to 100 documents with one config ({batch, message}); edit_config_id needs an active organization; run_immediately false keeps the batch pending until POST /api/edit/batch/<id>/rerun', tag: TAG, status: 201, body: Batch }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    let saved: EditConfigRecord | null = null;
    if (body.edit_config_id) {
      const org = needOrganization(ctx, auth, body.organization_id);
      saved = await configFor(ctx, auth, body.edit_config_id);
      if (saved!.organization_id !== org) throw errors.validation('edit_config_id is a config of another organization than the active one');
    }
    for (const id of body.document_ids) await editDocument(ctx, auth, id);
    const now = new Date();
    const cfg = { ...mergeSettings(saved, body.config), verify: body.config?.verify ?? false };
    const batch: EditBatchRecord = { id: randomUUID(), ...newOwned(auth, activeOrganization(ctx, auth, body.organization_id)), name: body.name ?? null, status: 'pending', document_ids: [...new Set(body.document_ids)], config: cfg as Record<string, unknown>, edit_config_id: body.edit_config_id ?? null, jobs: {}, progress: 0, created_at: now, updated_at: now, completed_at: null };
    await ctx.quire.store.repo('edit_batches').insert(batch);
    if (body.run_immediately) batch.jobs = await startBatchJobs(ctx, batch);
    return { batch: await batchView(ctx, (await ctx.quire.store.repo('edit_batches').get(batch.id))!), message: body.run_immediately ? `Editing ${batch.document_ids.length} document(s)` : 'Batch created; run it with POST /api/edit/batch/<id>/rerun' };
  });
  route(router, { method: 'get', path: '/api/edit/batch/:id', summary: 'An edit batch with status, progress and per-document job results', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return batchView(ctx, await loadOwned(ctx.quire.store, 'edit_batches', ctx.params.id!, auth, 'read', 'edit batch'));
  });
  route(router, { method: 'get', path: '/api/edit/batch/:id/audit', summary: 'Audit entries of every edit of a batch, reruns included ({entries}, as GET /api/edit/audit)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const b = await loadOwned(ctx.quire.store, 'edit_batches', ctx.params.id!, auth, 'read', 'edit batch');
    // every run of the batch (reruns included), not only its latest jobs
    const ids = (await ctx.quire.store.repo('edit_jobs').find({ batch_id: b.id })).map((j) => j.id);
    const rows = ids.length ? await ctx.quire.store.repo('edit_audit').find({ edit_job_id: ids }, { order: { created_at: 'ASC' } }) : [];
    return { entries: rows.map((r) => ({ id: r.id, user_id: r.user_id, document_id: r.document_id, edit_id: r.edit_id, edit_job_id: r.edit_job_id, element_id: r.element_id, label: r.label, value: r.value, source: r.source, reasoning: r.reasoning, created_at: r.created_at.toISOString() })) };
  });
  route(router, { method: 'post', path: '/api/edit/batch/:id/rerun', summary: 'Run a batch (again): a new edit job per document with the batch\'s config; the batch shows the new jobs', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const b = await loadOwned(ctx.quire.store, 'edit_batches', ctx.params.id!, auth, 'write', 'edit batch');
    b.jobs = await startBatchJobs(ctx, b);
    return { batch: await batchView(ctx, { ...b, status: 'processing' }), message: `Editing ${b.document_ids.length} document(s) again` };
  });
  route(router, { method: 'get', path: '/api/edit/batch/:id/stream', summary: 'Server-sent events of a batch: a `progress` event with the batch view whenever a document\'s job changes, then `done`', tag: TAG, raw: 'text/event-stream' }, async (ctx) => {
    const auth = requireAuth(ctx);
    const b = await loadOwned(ctx.quire.store, 'edit_batches', ctx.params.id!, auth, 'read', 'edit batch');
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-cache');
    const { PassThrough } = await import('node:stream');
    const stream = new PassThrough();
    ctx.body = stream;
    let closed = false;
    ctx.req.on('close', () => (closed = true));
    void (async () => {
      let last = '';
      const deadline = Date.now() + 30 * 60_000;
      while (!closed && Date.now() < deadline) {
        const row = await ctx.quire.store.repo('edit_batches').get(b.id);
        if (!row) break;
        const view = await batchView(ctx, row);
        const sig = JSON.stringify(view.results.map((r) => r.status));
        if (sig !== last) stream.write(`event: progress\ndata: ${JSON.stringify(view)}\n\n`);
        last = sig;
        if (view.status === 'completed' || view.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 500));
      }
      stream.end('event: done\ndata: {}\n\n');
    })().catch(() => stream.end());
  });
  void apiFilled;
}
