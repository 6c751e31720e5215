/**
 * Generation jobs (spec §4.6): one row of `jobs` (type `generate`) run by the `generate` pipeline, whose
 * stages are the spec's states: generate → generating, format → formatting, upload → uploading. The
 * state shown is derived from the job row and its running stage (job_stages), so it is the same on every
 * process. The output becomes a document of the user with an id chosen at submission
 * (generated_document_id), processed like an upload (parsed, chunked, searchable), downloadable through a
 * signed, expiring URL, and charged 1.0 credit (§8.3).
 */
import { errors } from '@quire/core';
import type { GeneratedCitation, GeneratorPlugin, JobRecord } from '@quire/core';
import { randomUUID } from 'node:crypto';
import type { EngineContext as Engine } from '../context.js';
import type { AuthInfo } from '../infra/access.js';
import { newOwned } from '../infra/access.js';
import { submitJob } from '../infra/submit.js';
import { cleanFileName } from '../infra/file-names.js';
import { signLink } from '../infra/signing.js';
import { checkTemplate } from './compose.js';
import type { SummaryLength, SummarySentence } from './compose.js';
import { checkSources } from './sources.js';
import { loadTemplate } from './templates.js';

export const GENERATE_PIPELINE = 'generate';
export const GENERATE_JOB_TYPE = 'generate';
/** purpose of the signed download links of generated files */
export const GENERATED_FILE_PURPOSE = 'generated-file';
/** how long a download link works (a fresh one comes with every read of the job) */
export const FILE_URL_TTL_S = 3600;

export type GenerationKind = 'run' | 'report' | 'summary';
export type GenerationState = 'pending' | 'generating' | 'formatting' | 'uploading' | 'completed' | 'failed';

export interface GenerateJobInput {
  kind: GenerationKind;
  output_format: string;
  /** id of the document the output becomes */
  document_id: string;
  document_name: string;
  template_prompt: string | null;
  template_id: string | null;
  source_extraction_ids: string[];
  source_document_ids: string[];
  settings: Record<string, unknown>;
  report?: { title: string | null; sections: string[] };
  summary?: { length: SummaryLength; style: string | null; title: string | null };
}

export interface GenerateJobResult {
  kind: GenerationKind;
  document_id: string;
  document_name: string;
  format: string;
  mime: string;
  file_size: number;
  title: string;
  citations: GeneratedCitation[];
  sections?: { name: string; citations: number[] }[];
  sentences?: SummarySentence[];
  credits: number;
}

/** Stage → the state it shows while it runs. */
const STAGE_STATE: Record<string, GenerationState> = { generate: 'generating', format: 'formatting', upload: 'uploading' };
const STAGES = ['generate', 'format', 'upload'];

/** The generator plugin that writes a format: of those that list it, the one registered last (a third party may replace a built-in). */
export function generatorFor(rt: Pick<Engine, 'registry'>, format: string): GeneratorPlugin {
  const all = rt.registry.all('generator').filter((g) => g.instance.formats.includes(format));
  const found = all[all.length - 1];
  if (!found) throw errors.validation(`output_format ${format} is not supported; supported: ${generationFormats(rt).join(', ') || '(no generator plugin)'}`, [{ field: 'output_format', message: 'unsupported' }]);
  return found.instance;
}

/** Every format some generator writes. */
export function generationFormats(rt: Pick<Engine, 'registry'>): string[] {
  return [...new Set(rt.registry.all('generator').flatMap((g) => g.instance.formats))];
}

const EXTENSIONS: Record<string, string> = { pdf: 'pdf', docx: 'docx', markdown: 'md', html: 'html' };

/** The output's file name: the caller's (cleaned, with the format's extension) or one made from the title. */
export function outputName(name: string | null | undefined, fallback: string, format: string): string {
  const ext = EXTENSIONS[format] ?? format;
  const base = cleanFileName(name ?? undefined, '').replace(new RegExp(`\\.${ext}$`, 'i'), '') || cleanFileName(fallback, 'generated').slice(0, 120);
  return `${base}.${ext}`;
}

export interface SubmitGeneration {
  kind: GenerationKind;
  output_format: string;
  template_prompt?: string | null;
  template_id?: string | null;
  source_extraction_ids?: string[];
  source_document_ids?: string[];
  settings?: Record<string, unknown>;
  document_name?: string | null;
  organization_id?: string | null;
  report?: GenerateJobInput['report'];
  summary?: GenerateJobInput['summary'];
}

/**
 * Checks a request (format, sources the caller may read, a saved template, handlebars that parse) and
 * queues its job. Nothing is charged until the output is stored.
 */
export async function submitGeneration(rt: Engine, auth: AuthInfo, req: SubmitGeneration, opts: { waitMs?: number } = {}): Promise<{ job: JobRecord; done: JobRecord | null }> {
  generatorFor(rt, req.output_format);
  let prompt = req.template_prompt?.trim() ? req.template_prompt : null;
  let settings = req.settings ?? {};
  if (req.template_id) {
    const t = await loadTemplate(rt, auth, req.template_id, 'read');
    // the request's own prompt wins over the template's; settings are the template's overlaid by the request's
    prompt ??= t.template_prompt;
    settings = { ...(t.settings ?? {}), ...settings };
  }
  if (req.kind === 'run' && !prompt) throw errors.validation('template_prompt is required (or a template_id of a saved template)', [{ field: 'template_prompt', message: 'required' }]);
  if (prompt) checkTemplate(prompt);
  const extractionIds = [...new Set(req.source_extraction_ids ?? [])];
  const documentIds = [...new Set(req.source_document_ids ?? [])];
  const { extractions, documents } = await checkSources(rt, auth, extractionIds, documentIds);
  if (req.kind !== 'run' && !extractions.length && !documents.length) throw errors.validation('Give source_document_ids or source extraction ids to generate from', [{ field: 'source_document_ids', message: 'required' }]);
  // reports and summaries read the documents the extractions were made from too
  const readDocs = new Set(documentIds);
  if (req.kind !== 'run') for (const x of extractions) if (x.document_id && !readDocs.has(x.document_id)) {
    const doc = await rt.store.repo('documents').get(x.document_id);
    if (doc?.status === 'completed' && doc.content_key) readDocs.add(doc.id);
  }
  const title = req.report?.title ?? req.summary?.title ?? (typeof settings.title === 'string' ? settings.title : null);
  const fallback = title ?? (req.kind === 'report' ? 'Report' : req.kind === 'summary' ? `Summary of ${documents[0]?.name ?? 'sources'}` : documents[0]?.name ?? 'Generated document');
  const input: GenerateJobInput = {
    kind: req.kind,
    output_format: req.output_format,
    document_id: randomUUID(),
    document_name: outputName(req.document_name, fallback.replace(/\.[a-z0-9]{1,5}$/i, ''), req.output_format),
    template_prompt: prompt,
    template_id: req.template_id ?? null,
    source_extraction_ids: extractions.map((x) => x.id),
    source_document_ids: [...readDocs],
    settings,
    ...(req.report ? { report: req.report } : {}),
    ...(req.summary ? { summary: req.summary } : {}),
  };
  const owner = newOwned(auth, req.organization_id ?? null);
  // 402 before any work when the balance cannot cover the document; the job holds the credit until the
  // document is stored (and charged) or the job fails
  const { job, done } = await submitJob(rt, GENERATE_PIPELINE, owner, input as unknown as Record<string, unknown>, { type: GENERATE_JOB_TYPE, credits: { operation: 'generate', units: 1 }, ...(opts.waitMs ? { wait: { timeoutMs: opts.waitMs } } : {}) });
  return { job, done };
}

/** The spec's state of a generation job: its row's status, and while it runs, the stage that runs (or comes next). */
export async function generationState(rt: Engine, job: JobRecord): Promise<GenerationState> {
  if (job.status === 'completed' || job.status === 'failed' || job.status === 'pending') return job.status;
  const stages = await rt.store.repo('job_stages').find({ job_id: job.id });
  const running = stages.find((s) => s.status === 'running');
  if (running) return STAGE_STATE[running.stage] ?? 'generating';
  const done = new Set(stages.filter((s) => s.status === 'completed').map((s) => s.stage));
  const next = STAGES.find((s) => !done.has(s));
  return next ? STAGE_STATE[next]! : 'uploading';
}

/** A signed download link of a generated file (works without an API key until it expires). */
export function generatedFileUrl(rt: Pick<Engine, 'config' | 'signingSecret'>, documentId: string, ttlS = FILE_URL_TTL_S): string {
  const expires = Math.floor(Date.now() / 1000) + ttlS;
  return `${rt.config.publicUrl}/api/generate/files/${documentId}?expires=${expires}&sig=${signLink(rt.signingSecret, GENERATED_FILE_PURPOSE, documentId, expires)}`;
}

export const inputOfGeneration = (job: JobRecord) => job.input as unknown as GenerateJobInput;
export const resultOfGeneration = (job: JobRecord) => (job.status === 'completed' ? (job.result as unknown as GenerateJobResult) : null);

/** What a template must be to be saved: a format some generator writes, and handlebars that parse. */
export function checkTemplateInput(rt: Pick<Engine, 'registry'>) {
  return (t: { template_prompt: string; output_format: string }) => {
    generatorFor(rt, t.output_format);
    checkTemplate(t.template_prompt);
  };
}
