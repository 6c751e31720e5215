import { randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { JobRecord, Owned, ParsedDocument } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { newJob, withLocalFile } from '../jobs.js';
import { newOwned } from '../infra/access.js';
import { documentParseUnits, estimatePages, holdCredits } from '../infra/credits.js';
import { submitJob } from '../infra/submit.js';
import { resolveInput } from '../io/inputs.js';
import type { InputRef } from '../io/inputs.js';
import { parseOperation, resolveParseRequest, storedParseConfig } from '../io/parse-config.js';
import type { ParseConfig, ParseRequest } from '../io/parse-config.js';
import { publicErrorText } from '../io/documents.js';
import { signLink } from '../infra/signing.js';
import { jobError } from '@quire/core';
import type { ParseSource } from './pipeline.js';
import { jobInputKey, jobParsedKey, loadParsed, readFile } from '../io/steps.js';

export function studioLink(rt: Engine, jobId: string): string {
  const expires = Math.floor(Date.now() / 1000) + 30 * 86400;
  return `${rt.config.publicUrl}/studio/jobs/${jobId}?expires=${expires}&sig=${signLink(rt.signingSecret, 'studio', jobId, expires)}`;
}

/** Reads a stored file with the reader for its format (the PDF conversions: no job, no chunks). */
export async function readStored(rt: Engine, key: string, f: { id: string; name: string; format: string; size: number }, cfg: ParseConfig, maxPages?: number): Promise<ParsedDocument> {
  return withLocalFile(rt.storage, key, (file) => readFile(rt, { path: file, ...f }, cfg, { maxPages }));
}

/**
 * A conversion (POST /api/pdf-to-text, -markdown, -json) of a PDF stored under `key`: read with its reader, no
 * job, no chunks. With a caller it is a parse (spec §8.3, 1.5 a page): the estimated pages are reserved before
 * anything is read (402 INSUFFICIENT_CREDITS when the balance cannot cover them) and the pages read are charged;
 * an anonymous conversion (its pages capped by the caller) is not charged.
 */
export async function convertStored(rt: Engine, owner: Owned | null, key: string, f: { id: string; name: string; size: number }, maxPages?: number): Promise<ParsedDocument> {
  const hold = owner ? await holdCredits(rt, owner, 'parse', await estimatePages(rt, key, 'pdf')) : null;
  let doc: ParsedDocument;
  try {
    doc = await readStored(rt, key, { ...f, format: 'pdf' }, storedParseConfig(null), maxPages);
  } catch (e) {
    await hold?.release();
    throw e;
  }
  await hold?.settle(null, doc.pages.length);
  return doc;
}

/**
 * Where the parse of a resolved input starts (the fetch stage's payload), the same for the synchronous and
 * the background parse: an svc:// document's parsed content is reused unless the request gave OCR options of
 * its own (then it is read again with them, its chunks named after the document); a URL is downloaded.
 */
export function parseStart(ref: InputRef, req: ParseRequest): ParseSource {
  if (ref.kind === 'document') return { source: 'document', document_id: ref.doc.id, reuse_content: !req.ocrGiven, read_as: ref.doc.id };
  return { source: 'url', url: (ref as { url: string }).url };
}

/**
 * The background parse (POST /api/parse/async) of a resolved svc:// document or URL: a `parse` job, started.
 * Refused up front (402) when credits cannot cover it: the document's pages, or (a URL) one page now and
 * the fetched file's pages in the fetch stage, before anything is read. A parse of an svc:// document names
 * it, so that deleting the document deletes this job and its result.
 */
export async function submitParse(rt: Engine, auth: AuthInfo, ref: InputRef, req: ParseRequest, webhookUrl: string | null): Promise<JobRecord> {
  const owner = newOwned(auth, null);
  const cfg = req.config;
  const pages = ref.kind === 'document' ? await documentParseUnits(rt, ref.doc) : 1;
  const input = ref.kind === 'document' ? { document_id: ref.doc.id, config: cfg } : { url: (ref as { url: string }).url, config: cfg };
  const { job } = await submitJob(rt, 'parse', owner, input, { documentId: ref.kind === 'document' ? ref.doc.id : null, webhookUrl, credits: { operation: parseOperation(cfg), units: pages }, payload: parseStart(ref, req) });
  return job;
}

export type SyncParseSource =
  /** a file already streamed to storage under jobInputKey(jobId) */
  | { kind: 'stored'; jobId: string; fileName: string; size: number }
  /** an `input` string: svc://<document id> or an http(s) URL */
  | { kind: 'input'; input: string };

/**
 * How long a synchronous parse waits for its job: the parse's own time limit and a URL download, with room
 * for a moment in the queue. A job still running then is cancelled.
 */
const waitLimitMs = (rt: Engine) => rt.config.limits.parseTimeoutMs + rt.config.limits.urlTimeoutMs + 60_000;

/**
 * The synchronous parse (POST /api/parse and the embed `parse` action): a job of the same `parse` pipeline
 * the async parse runs (fetch → read → chunk), awaited in process. The job row is the API's record of the
 * parse (completed, its parsed content under jobParsedKey so jobid:// and studio links work, no webhook);
 * the pipeline charges the pages. A stage failure comes back with its own error code. The input file never
 * outlives the call.
 */
export async function parseSync(rt: Engine, auth: AuthInfo, source: SyncParseSource, rawConfig: unknown, configField = 'config') {
  const started = Date.now();
  const jobId = source.kind === 'stored' ? source.jobId : randomUUID();
  const owner = newOwned(auth, null);
  // the job row exists from the start, so that a parse cut short by a crash is found and failed at the
  // next start (and its input file removed) instead of leaving an orphan; submitJob fills it in
  await rt.store.repo('jobs').insert(newJob({ id: jobId, owner, type: 'parse', status: 'pending', input: { sync: true } }));
  try {
    let req: ParseRequest;
    let start: ParseSource;
    let documentId: string | null = null;
    let pages = 1;
    try {
      // what the caller got wrong is answered before the job runs: the config, the svc:// document, the URL
      req = resolveParseRequest(rawConfig, configField);
      if (source.kind === 'stored') {
        start = { source: 'stored', name: source.fileName, size: source.size };
        pages = await estimatePages(rt, jobInputKey(jobId));
      } else {
        const ref = await resolveInput(rt, auth, source.input);
        start = parseStart(ref, req);
        // a URL's pages are counted once it is fetched (the fetch stage reserves again); at least one page now
        if (ref.kind === 'document') {
          documentId = ref.doc.id;
          pages = await documentParseUnits(rt, ref.doc);
        }
      }
    } catch (e) {
      await failPlaceholder(rt, jobId, e);
      throw e;
    }
    let done: JobRecord | null;
    try {
      ({ done } = await submitJob(rt, 'parse', owner, { config: req.config }, { id: jobId, placeholder: true, documentId, credits: { operation: parseOperation(req.config), units: pages }, payload: start, wait: { timeoutMs: waitLimitMs(rt), cancelOnTimeout: true } }));
    } catch (e) {
      // refused before it ran (402): the placeholder records why
      await failPlaceholder(rt, jobId, e);
      throw e;
    }
    if (!done) throw errors.unavailable(`The parse did not finish within ${Math.round(waitLimitMs(rt) / 1000)} s; try again later or use POST /api/parse/async`);
    const job = done;
    if (job.status !== 'completed') throw jobError(job);
    const output = job.result as { type: string; chunks: unknown[]; agentic?: unknown; usage: { num_pages: number; credits: number } };
    const usage = output.usage;
    const result = { type: output.type, chunks: output.chunks, ...(output.agentic ? { agentic: output.agentic } : {}) };
    const parsed = await loadParsed(rt, jobParsedKey(jobId));
    return { parsed, body: { job_id: jobId, duration: (Date.now() - started) / 1000, usage, result, studio_link: studioLink(rt, jobId) } };
  } finally {
    await rt.storage.delete(jobInputKey(jobId)).catch(() => {});
  }
}

/** A synchronous parse refused before it started: its placeholder row is failed with the reason. */
async function failPlaceholder(rt: Engine, jobId: string, e: unknown): Promise<void> {
  const now = new Date();
  await rt.store
    .repo('jobs')
    .update({ id: jobId, status: 'pending' }, { status: 'failed', error: publicErrorText(e instanceof Error ? e.message : String(e), `job ${jobId}`), completed_at: now, updated_at: now })
    .catch(() => {});
}
