/**
 * Child documents of a split. Each section becomes a document of its own, owned like its parent:
 * - a PDF parent gives a PDF child made of the section's pages (split/pdf.ts: lossless copy);
 * - any other format keeps the parent's file, and the child carries the page range of the parsed content
 *   (metadata.page_range); a source without a document (a jobid:// parse of a URL) gives a text file.
 * The child's parsed content is the parent's for those pages (split/slice.ts), so nothing is read or OCRed
 * twice and the child's text is the parent's text of its pages. The child then goes through the upload
 * ingest pipeline from its `chunk` stage (chunk, index, document.completed), like any upload.
 */
import { createHash } from 'node:crypto';
import type { DocumentRecord, JobRecord, ParsedDocument } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf } from '../jobs.js';
import { submitJob } from '../infra/submit.js';
import { documentEventData } from '../io/documents.js';
import { contentKey, originalKey, saveParsed } from '../io/steps.js';
import type { PlannedSection } from './plan.js';
import { sliceParsed } from './slice.js';

/** A stable id for the n-th child of a job: a stage run again after a crash finds the children it made. */
export function childIdFor(jobId: string, index: number): string {
  const h = createHash('sha256').update(`split-child:${jobId}:${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The file name of a child: the parent's name with the page range, keeping the extension. */
export function childName(parentName: string, s: Pick<PlannedSection, 'page_start' | 'page_end'>, ext: string): string {
  const base = parentName.replace(/\.[A-Za-z0-9]{1,8}$/, '').slice(0, 180) || 'document';
  const range = s.page_start === s.page_end ? `p${s.page_start}` : `p${s.page_start}-${s.page_end}`;
  return `${base} (${range}).${ext}`;
}

export interface ChildFile {
  bytes: Uint8Array;
  name: string;
  format: string;
  mime: string;
}

/**
 * Records a child document with its file and parsed content and queues its chunking and indexing. Returns
 * the existing child when the stage runs again.
 */
export async function makeChild(rt: Engine, job: JobRecord, parent: DocumentRecord | null, parsed: ParsedDocument, s: PlannedSection, index: number, file: ChildFile): Promise<DocumentRecord> {
  const id = childIdFor(job.id, index);
  const existing = await rt.store.repo('documents').get(id);
  if (existing) return existing;
  const owner = ownerOf(job);
  const content = sliceParsed(parsed, s.page_start, s.page_end, { id, name: file.name, format: file.format });
  const now = new Date();
  const doc: DocumentRecord = {
    id,
    ...owner,
    name: file.name,
    status: 'pending',
    file_type: file.format,
    mime_type: file.mime,
    file_size: file.bytes.length,
    sha256: createHash('sha256').update(file.bytes).digest('hex'),
    pages: content.pages.length,
    storage_key: originalKey(id),
    content_key: contentKey(id),
    parsing_config: parent?.parsing_config ?? null,
    knowledge_base_id: null,
    error: null,
    issues: content.issues.length ? content.issues : null,
    processing_ms: null,
    created_at: now,
    updated_at: now,
  };
  // the read is done (the parent's content of these pages): the upload pipeline goes on from its chunk stage
  try {
    await rt.storage.put(originalKey(id), Buffer.from(file.bytes));
    await saveParsed(rt, contentKey(id), content);
    await submitJob(rt, 'ingest', owner, { prepaid: 'split' }, {
      type: 'document',
      documentId: id,
      with: async (tx) => {
        await tx.repo('documents').insert(doc);
      },
      beforeStart: () => rt.events.emit('document.uploaded', documentEventData(doc), owner),
      startAt: 'chunk',
      payload: { documentId: id, pages: doc.pages },
    });
  } catch (e) {
    // no row names the files just stored (nothing would ever remove them), unless another run of this stage
    // recorded the same child meanwhile: then they are its files
    if (!(await rt.store.repo('documents').get(id).catch(() => null))) {
      for (const key of [originalKey(id), contentKey(id)]) await rt.storage.delete(key).catch(() => {});
    }
    throw e;
  }
  return doc;
}
