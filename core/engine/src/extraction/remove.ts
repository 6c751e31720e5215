/** Removing what an extraction run stored: its extraction and charge, or whole extraction jobs another run started. */
import { ERASED } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';

/**
 * Removes extraction jobs that another run started (a workflow's extract steps, a batch's children) with
 * what they stored: fenced first as an erasure fences (failed, ERASED), so that one under way stores nothing
 * more, then their extraction and its charge, their stage rows, their rows and their stored files.
 */
export async function removeExtractJobs(rt: Engine, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const jobs = rt.store.repo('jobs');
  const now = new Date();
  await jobs.update({ id: ids, status: ['pending', 'processing'] }, { status: 'failed', error: ERASED, completed_at: now, updated_at: now });
  for (const j of await jobs.find({ id: ids })) {
    const extraction = (j.input as { extraction_id?: string } | null)?.extraction_id;
    if (extraction) await removeExtraction(rt, extraction);
    await rt.store.repo('job_stages').delete({ job_id: j.id });
    await jobs.delete(j.id);
    await rt.storage.deletePrefix(`jobs/${j.id}/`);
  }
}

/** Removes an extraction and its charge (its run was cancelled or erased while it stored them). */
export async function removeExtraction(rt: Engine, extractionId: string): Promise<void> {
  await rt.store.repo('usage').delete({ resource_id: extractionId, operation: 'extract' });
  await rt.store.repo('extractions').delete(extractionId);
}
