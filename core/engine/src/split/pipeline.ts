/**
 * `split`: one job per split (POST /api/split/run, one per document of a batch). Stages:
 * - source: the parsed content to split: a document's (waited for while it is still processed; a URL input
 *   first becomes a document through the upload pipeline) or a finished parse job's (jobid://, not parsed again);
 * - plan: the sections by method (split/plan.ts);
 * - children: a child document per section (split/children.ts) and the section rows;
 * - settle: waits until the children are chunked and indexed, so that a finished split's children can be
 *   searched and read at once.
 * Every stage can run again after a crash: children and sections have ids derived from the job.
 */
import { NonRetryableError, errors } from '@quire/core';
import type { DocumentRecord, JobRecord, SplitSectionRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf } from '../jobs.js';
import { createDocument, deleteDocument, detectStored } from '../io/documents.js';
import { childIdFor, childName, makeChild } from './children.js';
import type { ChildFile } from './children.js';
import { inputOf, SPLIT_PIPELINE } from './jobs.js';
import { notifySplit, settleBatch } from './notify.js';
import { pdfRanges } from './pdf-ranges.js';
import { MAX_SECTIONS, planSections } from './plan.js';
import type { PlannedSection } from './plan.js';
import { sliceParsed } from './slice.js';
import { fetchInputToStorage } from '../parse/pipeline.js';
import { jobParsedKey, loadParsed, originalKey } from '../io/steps.js';

/** How long a split waits for its document to be processed, and for its children to be indexed. */
const DOCUMENT_WAIT_MS = 30 * 60_000;

/** The id of a job's n-th section row (derived, like its child's). */
const sectionIdFor = (jobId: string, index: number) => childIdFor(`${jobId}:section`, index);

async function waitForDocuments(rt: Engine, ids: string[], signal: AbortSignal): Promise<DocumentRecord[]> {
  const deadline = Date.now() + DOCUMENT_WAIT_MS;
  let delay = 100;
  for (;;) {
    const docs = ids.length ? await rt.store.repo('documents').find({ id: ids }) : [];
    if (docs.every((d) => d.status === 'completed' || d.status === 'failed')) return docs;
    if (Date.now() > deadline) throw errors.conflict(`Documents were still being processed after ${DOCUMENT_WAIT_MS / 60_000} minutes`);
    signal.throwIfAborted();
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(1000, Math.round(delay * 1.5));
  }
}

/** A URL input becomes a document (fetched SSRF-safely, then the upload pipeline); again after a crash, the same one. */
async function documentFromUrl(rt: Engine, job: JobRecord, url: string): Promise<string> {
  const id = childIdFor(job.id, -1);
  if (await rt.store.repo('documents').get(id)) return id;
  const key = originalKey(id);
  const file = await fetchInputToStorage(rt, url, key);
  const detected = await detectStored(rt, key, file.name);
  await createDocument(rt, ownerOf(job), { id, name: file.name, size: file.size, sha256: null, format: detected.format, mime: detected.mime, parsingConfig: null });
  await rt.store.repo('jobs').update(job.id, { document_id: id, updated_at: new Date() });
  return id;
}

type Planned = {
  parsedKey: string;
  parentId: string | null;
  pages?: number;
  sections?: PlannedSection[];
  section_ids?: string[];
} & Record<string, unknown>;

export function defineSplitPipeline(rt: Engine): void {
  rt.pipelines.define({
    name: SPLIT_PIPELINE,
    stages: [
      {
        name: 'source',
        async run(ctx): Promise<Planned> {
          const src = inputOf(ctx.job).source;
          if (src.kind === 'job') {
            if (!(await rt.storage.exists(jobParsedKey(src.job_id)))) throw new NonRetryableError(`The parsed content of job ${src.job_id} is no longer available`);
            const parent = src.document_id ? await rt.store.repo('documents').get(src.document_id) : null;
            return { parsedKey: jobParsedKey(src.job_id), parentId: parent?.id ?? null };
          }
          const id = src.kind === 'document' ? src.document_id : await documentFromUrl(rt, ctx.job, src.url);
          const [doc] = await waitForDocuments(rt, [id], ctx.signal);
          if (!doc) throw new NonRetryableError(`Document ${id} no longer exists`);
          if (doc.status !== 'completed' || !doc.content_key) throw new NonRetryableError(`Document ${doc.id} failed to process and cannot be split${doc.error ? `: ${doc.error}` : ''}`);
          return { parsedKey: doc.content_key, parentId: doc.id };
        },
      },
      {
        name: 'plan',
        async run(ctx): Promise<Planned> {
          const p = ctx.payload as unknown as Planned;
          const parsed = await loadParsed(rt, p.parsedKey);
          const sections = await planSections(rt, parsed, inputOf(ctx.job).plan, ctx.signal);
          return { ...p, pages: parsed.pages.length, sections };
        },
      },
      {
        name: 'children',
        async run(ctx): Promise<Planned> {
          const p = ctx.payload as unknown as Planned;
          const sections = p.sections ?? [];
          const parent = p.parentId ? await rt.store.repo('documents').get(p.parentId) : null;
          const parsed = await loadParsed(rt, p.parsedKey);
          const original = parent ? await rt.storage.get(parent.storage_key) : null;
          // the children's PDFs are copied in an isolate (heap and time limits), never on this event loop
          let pdfFiles: Uint8Array[] | null = null;
          if (parent?.file_type === 'pdf' && original && sections.length) {
            const r = await pdfRanges(original, sections.map((s) => ({ from: s.page_start, to: s.page_end, title: s.name })), { timeoutMs: rt.config.limits.parseTimeoutMs, heapMb: rt.config.limits.readerHeapMb, signal: ctx.signal });
            if ('files' in r) pdfFiles = r.files;
            else rt.logger.warn({ err: r.unreadable, doc: parent.id }, 'split: the PDF could not be copied page by page; children keep the whole file and their page range');
          }
          const ids: string[] = [];
          for (const [i, s] of sections.entries()) {
            ctx.signal.throwIfAborted();
            let file: ChildFile;
            if (pdfFiles && parent) file = { bytes: Buffer.from(pdfFiles[i]!), name: childName(parent.name, s, 'pdf'), format: 'pdf', mime: 'application/pdf' };
            else if (parent && original) file = { bytes: original, name: childName(parent.name, s, /\.([A-Za-z0-9]{1,8})$/.exec(parent.name)?.[1] ?? parent.file_type), format: parent.file_type, mime: parent.mime_type };
            else file = { bytes: Buffer.from(sliceParsed(parsed, s.page_start, s.page_end, { id: '', name: '', format: 'txt' }).text), name: childName(parsed.name || 'document', s, 'txt'), format: 'txt', mime: 'text/plain' };
            const child = await makeChild(rt, ctx.job, parent, parsed, s, i, file);
            const id = sectionIdFor(ctx.job.id, i);
            if (!(await rt.store.repo('split_sections').get(id))) {
              const now = new Date();
              const row: SplitSectionRecord = {
                id,
                ...ownerOf(ctx.job),
                job_id: ctx.job.id,
                parent_document_id: parent?.id ?? null,
                document_id: child.id,
                idx: i,
                section_name: s.name.slice(0, 255),
                section_type: s.section_type,
                page_start: s.page_start,
                page_end: s.page_end,
                confidence: s.confidence,
                label: null,
                metadata: {
                  reason: s.reason,
                  signals: s.signals,
                  document_type: s.document_type,
                  document_type_confidence: s.document_type_confidence ?? null,
                  page_range: { start: s.page_start, end: s.page_end },
                  child_file: pdfFiles ? 'pdf_pages' : parent ? 'parent_file' : 'text',
                },
                created_at: now,
                updated_at: now,
              };
              await rt.store.repo('split_sections').insert(row);
            }
            ids.push(id);
          }
          return { ...p, sections: undefined, section_ids: ids };
        },
      },
      {
        name: 'settle',
        async run(ctx) {
          const p = ctx.payload as unknown as Planned;
          const rows = await rt.store.repo('split_sections').find({ job_id: ctx.job.id }, { order: { idx: 'ASC' } });
          await waitForDocuments(rt, rows.map((r) => r.document_id!).filter(Boolean), ctx.signal);
          return {
            source_document_id: p.parentId,
            total_pages: p.pages ?? null,
            sections: rows.map((r) => ({ id: r.id, name: r.section_name, section_type: r.section_type, page_start: r.page_start, page_end: r.page_end, confidence: r.confidence, document_id: r.document_id })),
          };
        },
      },
    ],
    async onComplete(job) {
      await notifySplit(rt, job, 'completed');
      await settleBatch(rt, inputOf(job).batch_id);
    },
    async onFail(job, error) {
      await notifySplit(rt, job, 'failed', job.error ?? error.message);
      await settleBatch(rt, inputOf(job).batch_id);
    },
    // a run that ended after its owner was erased (or its job went with them): the documents it made (a URL
    // input's, the children, with their files and ingest jobs) and its section rows go. Their ids derive
    // from the job's, so they are found whether or not a section row names them.
    async discard(job) {
      const ids = [-1, ...Array.from({ length: MAX_SECTIONS }, (_, i) => i)].map((i) => childIdFor(job.id, i));
      for (const d of await rt.store.repo('documents').find({ id: ids })) await deleteDocument(rt, d);
      await rt.store.repo('split_sections').delete({ job_id: job.id });
    },
  });
}
