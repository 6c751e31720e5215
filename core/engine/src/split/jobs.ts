/**
 * Split jobs: one `jobs` row of type 'split' per split, run by the `split` pipeline (split/pipeline.ts).
 * Its input says where the content comes from (a document, a finished parse job, or a URL that becomes a
 * document) and the plan; its sections are rows of `split_sections`.
 */
import { JobTimeoutError, jobError, errors } from '@quire/core';
import type { DocumentRecord, JobRecord, SplitConfigRecord } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import { loadOwned, newOwned } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { newJob, ownerOf } from '../jobs.js';
import { submitJob } from '../infra/submit.js';
import { resolveInput } from '../io/inputs.js';
import { checkManualSections } from './plan.js';
import type { SplitPlanInput } from './plan.js';
import { resolvePlan } from './requests.js';
import type { SplitRunRequest } from './requests.js';

export const SPLIT_PIPELINE = 'split';

export type SplitSource = { kind: 'document'; document_id: string } | { kind: 'job'; job_id: string; document_id: string | null } | { kind: 'url'; url: string };

export interface SplitJobInput {
  source: SplitSource;
  plan: SplitPlanInput;
  config_id: string | null;
  batch_id: string | null;
}

export const inputOf = (job: JobRecord) => job.input as unknown as SplitJobInput;

/** Where a request's content comes from: exactly one of document_id and input (svc://, jobid://, URL). */
export async function resolveSplitSource(rt: Engine, auth: AuthInfo, req: { document_id?: string; input?: string }): Promise<{ source: SplitSource; doc: DocumentRecord | null }> {
  if (!!req.document_id === !!req.input) {
    throw errors.validation(req.document_id ? 'Give either document_id or input, not both' : 'document_id (or input) is required', [{ field: 'document_id', message: req.document_id ? 'only one input is allowed' : 'required' }]);
  }
  if (req.document_id) {
    const doc = await loadOwned(rt.store, 'documents', req.document_id, auth, 'read', 'document');
    return { source: { kind: 'document', document_id: doc.id }, doc };
  }
  const ref = await resolveInput(rt, auth, req.input!, { allowJob: true });
  if (ref.kind === 'document') return { source: { kind: 'document', document_id: ref.doc.id }, doc: ref.doc };
  if (ref.kind === 'job') {
    const from = (ref.job.input as { document_id?: unknown } | null)?.document_id;
    const docId = ref.job.document_id ?? (typeof from === 'string' ? from : null);
    const doc = docId ? await rt.store.repo('documents').get(docId) : null;
    return { source: { kind: 'job', job_id: ref.job.id, document_id: doc?.id ?? null }, doc };
  }
  return { source: { kind: 'url', url: ref.url }, doc: null };
}

export async function loadSplitConfig(rt: Engine, auth: AuthInfo, id: string | undefined): Promise<SplitConfigRecord | null> {
  return id ? loadOwned(rt.store, 'split_configs', id, auth, 'read', 'split config') : null;
}

/**
 * Checks a split request and returns its job row (not inserted). A failed document is refused (409); one
 * still being processed is waited for by the job. Manual sections are checked against the page count when
 * it is known already.
 */
export async function prepareSplit(rt: Engine, auth: AuthInfo, req: Pick<SplitRunRequest, 'document_id' | 'input' | 'config_id' | 'config' | 'sections' | 'skip_analysis' | 'webhook_url' | 'organization_id'>, opts: { batchId?: string; saved?: SplitConfigRecord | null } = {}): Promise<JobRecord> {
  const saved = opts.saved !== undefined ? opts.saved : await loadSplitConfig(rt, auth, req.config_id);
  const plan = resolvePlan(req, saved);
  const { source, doc } = await resolveSplitSource(rt, auth, req);
  if (doc?.status === 'failed') throw errors.conflict(`Document ${doc.id} failed to process and cannot be split`, { status: doc.status });
  if (plan.method === 'manual' && plan.sections) checkManualSections(plan.sections, doc?.status === 'completed' ? doc.pages : null, plan.allow_overlap);
  // children belong where their parent does (an organization's document gives the organization's children)
  const owner = newOwned(auth, req.organization_id ?? doc?.organization_id ?? null);
  if (plan.method === 'ai' && !plan.skip_analysis) rt.registry.get('splitter');
  const input: SplitJobInput = { source, plan, config_id: saved?.id ?? null, batch_id: opts.batchId ?? null };
  return newJob({ owner, type: 'split', document_id: doc?.id ?? null, input: input as unknown as Record<string, unknown>, webhook_url: req.webhook_url ?? null });
}

/**
 * Submits a prepared split job. With `waitMs` (the synchronous POST /api/split/run) it waits for the job and
 * returns it completed; a failed job throws its error, one still running after the wait a JobTimeoutError.
 */
export async function startSplit(rt: Engine, job: JobRecord, waitMs?: number): Promise<JobRecord> {
  const { done } = await submitJob(rt, SPLIT_PIPELINE, ownerOf(job), job.input ?? {}, { id: job.id, documentId: job.document_id, webhookUrl: job.webhook_url, ...(waitMs ? { wait: { timeoutMs: waitMs } } : {}) });
  if (!waitMs) return job;
  if (!done) throw new JobTimeoutError(job.id, 'processing', waitMs);
  if (done.status !== 'completed') throw jobError(done);
  return done;
}
