/** Ground truth (the true values of a document's fields, per schema) and corrections kept on an extraction. */
import { randomUUID } from 'node:crypto';
import type { DocumentRecord, ExtractionRecord, GroundTruthRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { canRead, newOwned } from '../infra/access.js';
import type { AuthInfo } from '../infra/access.js';

/** The ground truth of a document the caller may read (of one schema when given), the latest first. */
export async function groundTruthOf(rt: Engine, auth: AuthInfo, documentId: string, schemaId?: string): Promise<GroundTruthRecord[]> {
  const rows = await rt.store.repo('ground_truth').find({ document_id: documentId }, { order: { updated_at: 'DESC' } });
  return rows.filter((g) => canRead(auth, g) && (!schemaId || g.schema_id === schemaId));
}

/** Records the caller's ground truth of a document and schema; posting again replaces their earlier record. */
export async function recordGroundTruth(rt: Engine, auth: AuthInfo, doc: DocumentRecord, fields: { schema_id?: string | null; field_values: Record<string, unknown>; notes?: string | null }): Promise<{ row: GroundTruthRecord; created: boolean }> {
  const repo = rt.store.repo('ground_truth');
  const now = new Date();
  const existing = await repo.findOne({ document_id: doc.id, schema_id: fields.schema_id ?? null, user_id: auth.user.id });
  if (existing) {
    const patch = { field_values: fields.field_values, notes: fields.notes ?? existing.notes, updated_at: now };
    await repo.update(existing.id, patch);
    return { row: { ...existing, ...patch }, created: false };
  }
  const row: GroundTruthRecord = { id: randomUUID(), ...newOwned(auth, null), document_id: doc.id, schema_id: fields.schema_id ?? null, field_values: fields.field_values, notes: fields.notes ?? null, created_at: now, updated_at: now };
  await repo.insert(row);
  return { row, created: true };
}

/** Keeps an extraction's corrections (the whole list); the extraction as stored after. */
export async function storeCorrections(rt: Engine, x: ExtractionRecord, corrections: ExtractionRecord['corrections']): Promise<ExtractionRecord> {
  const updated_at = new Date();
  await rt.store.repo('extractions').update(x.id, { corrections, updated_at });
  return { ...x, corrections, updated_at };
}
