/**
 * API shapes of the edit area (spec §2.2 Edit element, Filled element, Edit config, Edit project,
 * Vocabulary entry; §4.5 responses) and the signed, expiring links of outputs and originals.
 */
import type { EditConfigRecord, EditElement, EditJobRecord, EditProjectRecord, EditRecord, EditVocabularyRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { signLink } from '../infra/signing.js';

export const EDIT_LINK_TTL_S = 3600;

/** A signed link to an edit's output file (purpose edit-output) or a document's original (edit-original). */
export function editFileLink(rt: Engine, purpose: 'edit-output' | 'edit-original', id: string): string {
  const expires = Math.floor(Date.now() / 1000) + EDIT_LINK_TTL_S;
  return `${rt.config.publicUrl}/api/edit/files/${purpose === 'edit-output' ? 'outputs' : 'originals'}/${id}?expires=${expires}&sig=${signLink(rt.signingSecret, purpose, id, expires)}`;
}

/** Edit element as the spec shows it (type-specific fields only where they apply). */
export function apiElement(e: EditElement) {
  return {
    id: e.id,
    type: e.type,
    label: e.label,
    page: e.page,
    bbox: e.bbox,
    required: e.required ?? false,
    current_value: e.current_value ?? '',
    ...(e.type === 'date_field' && e.format ? { format: e.format } : {}),
    ...(e.type === 'checkbox' ? { checked: e.checked ?? false } : {}),
    ...(e.options ? { options: e.options } : {}),
    ...(e.option_labels ? { option_labels: e.option_labels } : {}),
    ...(e.option_boxes ? { option_boxes: e.option_boxes } : {}),
    ...(e.multi ? { multi: true } : {}),
    ...(e.max_length !== undefined ? { max_length: e.max_length } : {}),
    ...(e.comb ? { comb: true } : {}),
    source: e.source,
  };
}

const ATTRIBUTION = { instruction: 'instruction', mapping: 'manual_mapping', correction: 'manual_mapping', ai_suggestion: 'suggested_value' } as const;

/** Filled element (spec §2.2): fillAttribution and reasoning when derived from instructions or suggestions. */
export function apiFilled(f: Record<string, unknown>) {
  const source = f.source as keyof typeof ATTRIBUTION;
  return {
    element_id: f.elementId,
    field_name: f.field_name,
    value: f.value,
    page: f.page,
    bbox: f.bbox,
    confidence: f.confidence,
    source,
    fillAttribution: ATTRIBUTION[source] ?? 'manual_mapping',
    ...(f.reasoning ? { reasoning: f.reasoning } : {}),
  };
}

export const elementsOf = (j: EditJobRecord) => ((j.detected_elements ?? []) as unknown as EditElement[]).map(apiElement);

export function apiEditJob(j: EditJobRecord, edit: EditRecord | null) {
  return {
    id: j.id,
    status: j.status,
    progress: j.progress,
    document_id: j.document_id,
    project_id: j.project_id,
    edit_id: j.edit_id,
    detected_elements: elementsOf(j),
    filled_elements: edit ? edit.filled_elements.map(apiFilled) : [],
    error: j.error,
    created_at: j.created_at.toISOString(),
    completed_at: j.completed_at?.toISOString() ?? null,
  };
}

export function apiEditResult(rt: Engine, j: EditJobRecord, edit: EditRecord | null) {
  return {
    edit_id: edit?.id ?? null,
    job_id: j.id,
    status: j.status,
    document_id: j.document_id,
    original_file_url: editFileLink(rt, 'edit-original', j.document_id),
    output_file_url: edit ? editFileLink(rt, 'edit-output', edit.id) : null,
    output_file_size: edit?.output_size ?? null,
    filled_elements: edit ? edit.filled_elements.map(apiFilled) : [],
    detected_elements: elementsOf(j),
    warnings: edit?.warnings ?? [],
    verification_result: edit?.verification ?? null,
    metadata: { pages_modified: edit?.pages_modified ?? [], fields_filled: edit ? edit.filled_elements.filter((f) => (f as { applied?: boolean }).applied !== false).length : 0 },
  };
}

export function apiEditConfig(c: EditConfigRecord) {
  const shape = {
    id: c.id,
    name: c.name,
    description: c.description,
    instructions: c.instructions,
    formatting_color: c.formatting_color,
    detection_settings: c.detection_settings,
    fill_settings: c.fill_settings,
    organization_id: c.organization_id,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
  return { ...shape, editConfig: { instructions: c.instructions ?? undefined, detectionSettings: c.detection_settings, fillSettings: { ...c.fill_settings, ...(c.formatting_color ? { formattingColor: c.formatting_color } : {}) } } };
}

export const apiEditProject = (p: EditProjectRecord) => ({ id: p.id, name: p.name, document_id: p.document_id, edit_config_id: p.edit_config_id, edit_job_id: p.edit_job_id, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString() });

export const apiVocabulary = (v: EditVocabularyRecord) => ({ id: v.id, canonical_term: v.canonical_term, aliases: v.aliases, created_at: v.created_at.toISOString(), updated_at: v.updated_at.toISOString() });
