import { randomUUID } from 'node:crypto';
import type { JobRecord, ParsedDocument } from '@quire/core';
import type { AuthInfo } from '../http/context.js';
import type { QuireRuntime } from '../runtime.js';
import { newOwned } from '../auth/access.js';
import { resolveInput } from './inputs.js';
import { charge, creditsFor } from './ledger.js';
import { parseConfigField } from './parse-config.js';
import type { ParseConfig } from './parse-config.js';
import { detectStored, publicErrorText } from './documents.js';
import { signLink } from './signing.js';
import { fetchInputToStorage } from '../pipelines/parse.js';
import { apiChunk, chunkParsed, contentKey, jobInputKey, jobParsedKey, loadParsed, readFile, saveParsed } from '../pipelines/steps.js';

export function studioLink(rt: QuireRuntime, jobId: string): string {
  const expires = Math.floor(Date.now() / 1000) + 30 * 86400;
  return `${rt.config.publicUrl}/studio/jobs/${jobId}?expires=${expires}&sig=${signLink(rt.signingSecret, 'studio', jobId, expires)}`;
}

/** Reads a stored file with the reader for its format. */
export async function readStored(rt: QuireRuntime, key: string, f: { id: string; name: string; format: string; size: number }, cfg: ParseConfig, maxPages?: number): Promise<ParsedDocument> {
  const local = rt.storage.localPath(key);
  const tmp = local ? null : await rt.storage.toTempFile(key);
  try {
    return await readFile(rt, { path: local ?? tmp!.path, ...f }, cfg, { maxPages });
  } finally {
    await tmp?.cleanup();
  }
}

export type SyncParseSource =
  /** a file already streamed to storage under jobInputKey(jobId) */
  | { kind: 'stored'; jobId: string; fileName: string; size: number }
  /** an `input` string: svc://<document id> or an http(s) URL */
  | { kind: 'input'; input: string };

/**
 * The synchronous parse (POST /api/parse and the embed `parse` action): read → chunk, record a completed
 * parse job (so jobid:// can reuse it and studio_link resolves), charge the pages, answer the parse result.
 * The input file never outlives the call.
 */
export async function parseSync(rt: QuireRuntime, auth: AuthInfo, source: SyncParseSource, rawConfig: unknown, configField = 'config') {
  const started = Date.now();
  const jobId = source.kind === 'stored' ? source.jobId : randomUUID();
  const owner = newOwned(auth, null);
  const inputKey = jobInputKey(jobId);
  let parsed: ParsedDocument;
  let cfg: ParseConfig;
  let documentId: string | null = null;
  const jobs = rt.store.repo('jobs');
  // the job row exists while the parse runs, so that a parse cut short by a crash is found and failed at the
  // next start (and its input file removed) instead of leaving an orphan
  const t0 = new Date();
  await jobs.insert({ id: jobId, ...owner, type: 'parse', status: 'processing', progress: 0, document_id: null, input: { sync: true }, result: null, error: null, webhook_url: null, created_at: t0, updated_at: t0, completed_at: null });
  try {
    cfg = parseConfigField(rawConfig, configField);
    if (source.kind === 'stored') {
      const detected = await detectStored(rt, inputKey, source.fileName);
      parsed = await readStored(rt, inputKey, { id: jobId, name: source.fileName, format: detected.format, size: source.size }, cfg);
    } else {
      const ref = await resolveInput(rt, auth, source.input);
      if (ref.kind === 'document') {
        const doc = ref.doc;
        documentId = doc.id;
        const ocrOverridden = typeof rawConfig === 'object' && rawConfig !== null && (rawConfig as { ocr?: unknown }).ocr !== undefined;
        if (doc.content_key && !ocrOverridden) parsed = await loadParsed(rt, contentKey(doc.id));
        else parsed = await readStored(rt, doc.storage_key, { id: doc.id, name: doc.name, format: doc.file_type, size: doc.file_size }, cfg);
      } else {
        const file = await fetchInputToStorage(rt, (ref as { url: string }).url, inputKey);
        parsed = await readStored(rt, inputKey, { id: jobId, ...file }, cfg);
      }
    }
  } catch (e) {
    const now = new Date();
    await jobs.update(jobId, { status: 'failed', error: publicErrorText(e instanceof Error ? e.message : String(e), `job ${jobId}`), completed_at: now, updated_at: now }).catch(() => {});
    throw e;
  } finally {
    await rt.storage.delete(inputKey).catch(() => {});
  }
  const chunks = chunkParsed(rt, parsed, cfg);
  const pages = parsed.pages.length;
  const operation = cfg.ocr.agentic ? 'ocr_agentic' : 'parse';
  const usage = { num_pages: pages, credits: creditsFor(operation, pages) };
  const result = { type: 'full', chunks: chunks.map(apiChunk) };
  await saveParsed(rt, jobParsedKey(jobId), parsed);
  const now = new Date();
  const done: Partial<JobRecord> = { status: 'completed', progress: 100, document_id: documentId, input: { config: cfg }, result: { ...result, usage }, error: null, updated_at: now, completed_at: now };
  await jobs.update(jobId, done);
  await charge(rt.store, owner, operation, pages, jobId);
  return { parsed, body: { job_id: jobId, duration: (Date.now() - started) / 1000, usage, result, studio_link: studioLink(rt, jobId) } };
}
