import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { DocumentRecord, EditConfigRecord } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import type { AppContext } from '../../http/context.js';
import { route } from '../../http/route.js';
import { contentDisposition } from '../../http/download.js';
import {
  addEditVocabulary,
  apiAuditEntry,
  apiEditConfig,
  apiEditJob,
  apiEditProject,
  apiEditResult,
  apiVocabulary,
  assertCanCreateIn,
  createEditBatch,
  createEditConfig,
  createEditProject,
  deleteEditVocabulary,
  documentFromUrl,
  editAuditReport,
  editBatchAudit,
  editBatchView,
  editJobError,
  editLinkedFile,
  editOf,
  editProjectDetails,
  editProjectRuns,
  elementsOf,
  getEditBatch,
  keepSuggestions,
  listEditConfigs,
  listEditVocabulary,
  listOwned,
  loadOwned,
  mergeEditSettings,
  newOwned,
  rerunEditProject,
  resolveInput,
  roleIn,
  runEdit,
  startEditBatchJobs,
  submitEditJobAndWait,
  suggestValues,
  updateEditVocabulary,
  verifyLink,
  verifyStoredEdit,
} from '@quire/engine';
import type { AuthInfo, EditRunInput } from '@quire/engine';

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

async function editDocument(ctx: AppContext, auth: AuthInfo, documentId?: string, input?: string): Promise<DocumentRecord> {
  if (documentId) return loadOwned(ctx.quire.store, 'documents', documentId, auth, 'read', 'document');
  if (!input) throw errors.validation('document_id or input is required');
  const ref = await resolveInput(ctx.quire, auth, input);
  if (ref.kind === 'url') return documentFromUrl(ctx.quire, newOwned(auth, activeOrganization(ctx, auth)), ref.url);
  if (ref.kind !== 'document') throw errors.validation('input must be an http(s) URL or an svc://<document_id> reference');
  return ref.doc;
}

const loadJob = (ctx: AppContext, auth: AuthInfo, id: string, mode: 'read' | 'write' = 'read') => loadOwned(ctx.quire.store, 'edit_jobs', id, auth, mode, 'edit job');
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
      const cfg = mergeEditSettings(await configFor(ctx, auth, body.edit_config_id), body.config);
      const job = await submitEditJobAndWait(ctx.quire, newOwned(auth, doc.organization_id), doc, { mode: 'detect', config: cfg });
      if (job.status === 'failed') throw await editJobError(ctx.quire, job, 'Detection failed');
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
      const cfg = mergeEditSettings(await configFor(ctx, auth, body.edit_config_id), body.config);
      const previousEdit = body.edit_id ?? (body.corrections && from?.edit_id ? from.edit_id : null);
      const input: EditRunInput = { mode: 'run', from_job_id: from?.id ?? null, mappings: body.mappings, instructions: body.refined_instructions ?? body.instructions ?? null, corrections: body.corrections, edit_id: previousEdit, verify: body.verify ?? body.config?.verify ?? false, config: cfg };
      const out = await runEdit(ctx.quire, newOwned(auth, doc.organization_id), doc, input);
      if (!out.body.success) throw await editJobError(ctx.quire, out.job, String(out.body.error));
      return out.body;
    },
  );

  route(router, { method: 'post', path: '/api/edit/verify', summary: 'Verify an edit ({success, verification: {pass, warnings, checkedFields}}): AcroForm values read back with pdf-lib, flat pages parsed (or OCRed) inside each element\'s box', tag: TAG, body: z.object({ edit_id: uuid }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const edit = await loadOwned(ctx.quire.store, 'edits', body.edit_id, auth, 'read', 'edit');
    // verifying stores its result on the edit: viewers change nothing (403)
    assertCanCreateIn(auth, edit.organization_id);
    const doc = await loadOwned(ctx.quire.store, 'documents', edit.document_id, auth, 'read', 'document');
    return { success: true, verification: await verifyStoredEdit(ctx.quire, edit, doc) };
  });

  route(router, { method: 'get', path: '/api/edit/jobs/:id', summary: 'An edit job: {id, status (pending, detecting, filling, rendering, completed, failed), progress, document_id, detected_elements, filled_elements, created_at, completed_at}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const job = await loadJob(ctx, auth, ctx.params.id!);
    return apiEditJob(job, await editOf(ctx.quire, job));
  });

  route(router, { method: 'get', path: '/api/edit/results/:id', summary: 'An edit job\'s result: {edit_id, document_id, original_file_url, output_file_url (signed, expiring), filled_elements, detected_elements, metadata {pages_modified, fields_filled}}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const job = await loadJob(ctx, auth, ctx.params.id!);
    return apiEditResult(ctx.quire, job, await editOf(ctx.quire, job));
  });

  route(router, { method: 'get', path: '/api/edit/results/:id/audit-report', summary: 'Audit report of the job\'s latest edit: {document_id, edit_id, job_id, timestamp, user_id, fields: [{element_id, label, value, source, reasoning, filled_at}]}', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return editAuditReport(ctx.quire, await loadJob(ctx, auth, ctx.params.id!));
  });

  route(router, { method: 'get', path: '/api/edit/audit', summary: 'Audit log of fills ({entries: [{id, user_id, document_id, edit_id, edit_job_id, element_id, label, value, source, reasoning, created_at}]}), filtered by document_id and a from/to ISO date range', tag: TAG, query: z.object({ document_id: uuid.optional(), from: z.string().datetime({ offset: true }).or(z.string().date()).optional(), to: z.string().datetime({ offset: true }).or(z.string().date()).optional(), limit: z.coerce.number().int().min(1).max(1000).default(200), offset: z.coerce.number().int().min(0).default(0) }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    if (query.document_id) await loadOwned(ctx.quire.store, 'documents', query.document_id, auth, 'read', 'document');
    const { rows } = await listOwned(ctx.quire.store, 'edit_audit', auth, query.document_id ? { document_id: query.document_id } : {}, { limit: 100_000, offset: 0, orderBy: 'created_at' });
    const from = query.from ? new Date(query.from).getTime() : -Infinity;
    const to = query.to ? new Date(query.to.length === 10 ? `${query.to}T23:59:59.999Z` : query.to).getTime() : Infinity;
    const picked = rows.filter((r) => r.created_at.getTime() >= from && r.created_at.getTime() <= to);
    return { entries: picked.slice(query.offset, query.offset + query.limit).map(apiAuditEntry), total: picked.length };
  });

  route(router, { method: 'get', path: '/api/edit/files/:kind/:id', summary: 'A signed edit file: outputs/<edit_id> (a filled file) or originals/<document_id> (the unchanged original), by the expires and sig of its URL', tag: TAG, auth: 'none', raw: 'application/pdf or image', query: z.object({ expires: z.coerce.number(), sig: z.string().min(1) }) }, async (ctx, { query }) => {
    const rt = ctx.quire;
    const kind = ctx.params.kind!;
    const id = ctx.params.id!;
    const purpose = kind === 'outputs' ? 'edit-output' : kind === 'originals' ? 'edit-original' : null;
    if (!purpose || !verifyLink(rt.signingSecret, purpose, id, query.expires, query.sig)) throw errors.unauthorized('Invalid or expired file link');
    const { key, name, mime } = await editLinkedFile(rt, purpose, id);
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
    return { project: apiEditProject(await createEditProject(ctx.quire, newOwned(auth, doc.organization_id), doc, body)) };
  });
  route(router, { method: 'get', path: '/api/edit/projects/:id', summary: 'An edit project with its document, config and latest job ({project, document, config, latest_job}; the job with detected_elements and fill_mappings)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const p = await loadOwned(ctx.quire.store, 'edit_projects', ctx.params.id!, auth, 'read', 'edit project');
    return { project: apiEditProject(p), ...(await editProjectDetails(ctx.quire, p)) };
  });
  route(router, { method: 'get', path: '/api/edit/projects/:id/runs', summary: 'Version history of a project ({runs: [{version, job_id, edit_id, status, fields_filled, output_file_url, created_at, completed_at}]}, oldest first)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const p = await loadOwned(ctx.quire.store, 'edit_projects', ctx.params.id!, auth, 'read', 'edit project');
    return { runs: await editProjectRuns(ctx.quire, p) };
  });
  route(router, { method: 'post', path: '/api/edit/projects/:id/rerun', summary: 'Run the project again as a new version: detect and fill with the project\'s config and the fill mappings of its latest job ({success, edit_job_id, edit_id, output_file_url, verification_result, error})', tag: TAG, body: z.object({ verify: z.boolean().optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const p = await loadOwned(ctx.quire.store, 'edit_projects', ctx.params.id!, auth, 'write', 'edit project');
    const doc = await loadOwned(ctx.quire.store, 'documents', p.document_id, auth, 'read', 'document');
    const out = await rerunEditProject(ctx.quire, p, doc, body.verify ?? false);
    return { success: out.body.success, edit_job_id: out.job.id, edit_id: out.body.edit_id, output_file_url: out.body.output_file_url, verification_result: out.edit?.verification ?? null, error: out.body.success ? null : out.body.error };
  });

  // ---- configs (need an active organization)
  route(router, { method: 'get', path: '/api/edit/configs', summary: 'Edit configs of the active organization ({configs}); the organization is organization_id, else X-Organization-Id (400 without one)', tag: TAG, query: z.object({ organization_id: uuid.optional() }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const org = needOrganization(ctx, auth, query.organization_id);
    return { configs: (await listEditConfigs(ctx.quire, org)).map(apiEditConfig) };
  });
  route(router, { method: 'post', path: '/api/edit/configs', summary: 'Create an edit config in the active organization ({config}); config: formatting_color (or fillSettings.formattingColor), detection_settings, fill_settings', tag: TAG, status: 201, body: z.object({ name: z.string().min(1).max(255), description: z.string().max(5000).optional(), instructions: z.string().max(20_000).optional(), organization_id: uuid.optional(), config: z.object({ formatting_color: z.string().max(32).optional(), formattingColor: z.string().max(32).optional(), detection_settings: z.record(z.string(), z.unknown()).optional(), detectionSettings: z.record(z.string(), z.unknown()).optional(), fill_settings: z.record(z.string(), z.unknown()).optional(), fillSettings: z.record(z.string(), z.unknown()).optional() }).optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const org = needOrganization(ctx, auth, body.organization_id);
    const c = body.config ?? {};
    const fill = { ...(c.fill_settings ?? c.fillSettings ?? {}) } as Record<string, unknown>;
    const color = c.formatting_color ?? c.formattingColor ?? (typeof fill.formattingColor === 'string' ? fill.formattingColor : null);
    const row = await createEditConfig(ctx.quire, newOwned(auth, org), { name: body.name, description: body.description ?? null, instructions: body.instructions ?? null, formatting_color: color, detection_settings: (c.detection_settings ?? c.detectionSettings ?? {}) as Record<string, unknown>, fill_settings: fill });
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
    return { entries: (await listEditVocabulary(ctx.quire, org)).map(apiVocabulary) };
  });
  route(router, { method: 'post', path: '/api/edit/vocabulary', summary: 'Add a vocabulary entry to the active organization ({entry}): a canonical term and its aliases, used when labels and instructions are matched', tag: TAG, status: 201, body: z.object({ canonical_term: z.string().trim().min(1).max(255), aliases: z.array(z.string().trim().min(1).max(255)).max(200).default([]), organization_id: uuid.optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const org = needOrganization(ctx, auth, body.organization_id);
    return { entry: apiVocabulary(await addEditVocabulary(ctx.quire, newOwned(auth, org), body.canonical_term, body.aliases)) };
  });
  route(router, { method: 'patch', path: '/api/edit/vocabulary/:id', summary: 'Change a vocabulary entry ({entry})', tag: TAG, body: z.object({ canonical_term: z.string().trim().min(1).max(255).optional(), aliases: z.array(z.string().trim().min(1).max(255)).max(200).optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const row = await loadOwned(ctx.quire.store, 'edit_vocabulary', ctx.params.id!, auth, 'write', 'vocabulary entry');
    return { entry: apiVocabulary(await updateEditVocabulary(ctx.quire, row, body)) };
  });
  route(router, { method: 'delete', path: '/api/edit/vocabulary/:id', summary: 'Delete a vocabulary entry ({deleted: true})', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const row = await loadOwned(ctx.quire.store, 'edit_vocabulary', ctx.params.id!, auth, 'write', 'vocabulary entry');
    await deleteEditVocabulary(ctx.quire, row);
    return { deleted: true };
  });

  route(router, { method: 'post', path: '/api/edit/suggest', summary: 'Suggest values for a detection job\'s empty elements ({suggestions: [{elementId, value, reasoning}]}) from the document\'s own content, the instructions and the caller\'s earlier fills; with session_id equal to the job id they are saved to the job\'s fill mappings with source ai_suggestion', tag: TAG, body: z.object({ edit_job_id: uuid, instructions: z.string().max(20_000).optional(), session_id: z.string().max(100).optional() }) }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const job = await loadJob(ctx, auth, body.edit_job_id, body.session_id === body.edit_job_id ? 'write' : 'read');
    const suggestions = await suggestValues(ctx.quire, job, body.instructions);
    if (body.session_id && body.session_id === job.id) await keepSuggestions(ctx.quire, job, suggestions);
    return { suggestions };
  });

  // ---- batches
  const Batch = z.object({ document_ids: z.array(uuid).min(1).max(100), edit_config_id: uuid.optional(), config: Settings.optional(), name: z.string().max(255).optional(), run_immediately: z.boolean().default(true), mappings: z.array(MappingItem).max(5000).optional(), organization_id: uuid.optional().describe('the organization the batch belongs to (or X-Organization-Id); personal without one') });
  route(router, { method: 'post', path: '/api/edit/batch', summary: 'Edit 1 to 100 documents with one config ({batch, message}); edit_config_id needs an active organization; run_immediately false keeps the batch pending until POST /api/edit/batch/<id>/rerun', tag: TAG, status: 201, body: Batch }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    let saved: EditConfigRecord | null = null;
    if (body.edit_config_id) {
      const org = needOrganization(ctx, auth, body.organization_id);
      saved = await configFor(ctx, auth, body.edit_config_id);
      if (saved!.organization_id !== org) throw errors.validation('edit_config_id is a config of another organization than the active one');
    }
    for (const id of body.document_ids) await editDocument(ctx, auth, id);
    const cfg = { ...mergeEditSettings(saved, body.config), verify: body.config?.verify ?? false };
    const batch = await createEditBatch(ctx.quire, newOwned(auth, activeOrganization(ctx, auth, body.organization_id)), { name: body.name ?? null, document_ids: body.document_ids, config: cfg as Record<string, unknown>, edit_config_id: body.edit_config_id ?? null });
    if (body.run_immediately) batch.jobs = await startEditBatchJobs(ctx.quire, batch);
    return { batch: await editBatchView(ctx.quire, (await getEditBatch(ctx.quire, batch.id))!), message: body.run_immediately ? `Editing ${batch.document_ids.length} document(s)` : 'Batch created; run it with POST /api/edit/batch/<id>/rerun' };
  });
  route(router, { method: 'get', path: '/api/edit/batch/:id', summary: 'An edit batch with status, progress and per-document job results', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return editBatchView(ctx.quire, await loadOwned(ctx.quire.store, 'edit_batches', ctx.params.id!, auth, 'read', 'edit batch'));
  });
  route(router, { method: 'get', path: '/api/edit/batch/:id/audit', summary: 'Audit entries of every edit of a batch, reruns included ({entries}, as GET /api/edit/audit)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const b = await loadOwned(ctx.quire.store, 'edit_batches', ctx.params.id!, auth, 'read', 'edit batch');
    // every run of the batch (reruns included), not only its latest jobs
    return { entries: await editBatchAudit(ctx.quire, b) };
  });
  route(router, { method: 'post', path: '/api/edit/batch/:id/rerun', summary: 'Run a batch (again): a new edit job per document with the batch\'s config; the batch shows the new jobs', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const b = await loadOwned(ctx.quire.store, 'edit_batches', ctx.params.id!, auth, 'write', 'edit batch');
    b.jobs = await startEditBatchJobs(ctx.quire, b);
    return { batch: await editBatchView(ctx.quire, { ...b, status: 'processing' }), message: `Editing ${b.document_ids.length} document(s) again` };
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
        const row = await getEditBatch(ctx.quire, b.id);
        if (!row) break;
        const view = await editBatchView(ctx.quire, row);
        const sig = JSON.stringify(view.results.map((r) => r.status));
        if (sig !== last) stream.write(`event: progress\ndata: ${JSON.stringify(view)}\n\n`);
        last = sig;
        if (view.status === 'completed' || view.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 500));
      }
      stream.end('event: done\ndata: {}\n\n');
    })().catch(() => stream.end());
  });
}
