/**
 * Suggestions for a detection job's empty elements: from the document's own content (a "Label: value"
 * pair printed elsewhere in it, or the instructions read offline) and from the values the user gave fields
 * of the same label before (the edit audit). A value that is found nowhere is not suggested.
 */
import type { EditElement, EditJobRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { contentKey, loadParsed } from '../io/steps.js';
import { applyOffline } from './instructions.js';
import { bestElement, fold } from './match.js';
import { vocabularyOf } from './jobs.js';

export interface Suggestion {
  elementId: string;
  value: string | boolean;
  reasoning: string;
}

export async function suggestValues(rt: Engine, job: EditJobRecord, instructions?: string): Promise<Suggestion[]> {
  const elements = (job.detected_elements ?? []) as unknown as EditElement[];
  const owner = { user_id: job.user_id, organization_id: job.organization_id };
  const vocab = await vocabularyOf(rt, owner);
  const out = new Map<string, Suggestion>();
  const empty = elements.filter((e) => !e.current_value || e.current_value === 'false');
  if (instructions) for (const d of applyOffline(instructions, empty, vocab)) out.set(d.elementId, { elementId: d.elementId, value: d.value, reasoning: d.reasoning });
  // key/value pairs of the document itself
  const doc = await rt.store.repo('documents').get(job.document_id);
  if (doc?.status === 'completed') {
    const parsed = await loadParsed(rt, contentKey(doc.id)).catch(() => null);
    for (const b of parsed?.blocks ?? []) {
      if (b.type !== 'key_value' || !b.key || !b.value) continue;
      const hit = bestElement(b.key, empty, vocab, { types: ['text_field', 'date_field', 'number_field'], min: 0.8 });
      if (!hit || out.has(hit.element.id) || fold(hit.element.current_value ?? '') === fold(b.value)) continue;
      out.set(hit.element.id, { elementId: hit.element.id, value: b.value, reasoning: `printed in the document as "${b.key}: ${b.value}" (page ${b.page})` });
    }
  }
  // the user's earlier fills of fields with the same label
  const history = (await rt.store.repo('edit_audit').find({ user_id: job.user_id }, { order: { created_at: 'DESC' }, limit: 500 }));
  for (const e of empty) {
    if (out.has(e.id)) continue;
    const prior = history.find((h) => h.edit_job_id !== job.id && h.value !== null && fold(h.label) === fold(e.label));
    if (prior) out.set(e.id, { elementId: e.id, value: e.type === 'checkbox' ? prior.value === 'true' : prior.value!, reasoning: `you filled "${prior.label}" with this value on ${prior.created_at.toISOString().slice(0, 10)}` });
  }
  return [...out.values()];
}
