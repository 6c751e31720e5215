/**
 * Edit jobs (spec §4.5): a row of `edit_jobs` with the spec's states (pending → detecting → filling →
 * rendering → completed | failed) and a runtime job of the same id run by the `edit` pipeline, so the work
 * runs on any process. Detection reads the original with the editor plugin and the document's parsed
 * layout (labels and blanks); filling resolves mappings, instructions and corrections to element values,
 * the editor writes a new file (stored under edits/<edit_id>/), each field is logged in `edit_audit`, and
 * verification re-reads the output. The original file is never changed.
 */
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { JobTimeoutError, errors, unpackWords } from '@quire/core';
import type { DocumentRecord, EditElement, EditFillValue, EditJobRecord, EditLayout, EditRecord, JobRecord, Owned, ParsedDocument } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { withLocalFile } from '../jobs.js';
import { submitJob } from '../infra/submit.js';
import { contentKey, loadParsed, readFile } from '../io/steps.js';
import { parseConfig } from '../io/parse-config.js';
import { cleanFileName } from '../infra/file-names.js';
import { applyLlm, applyOffline } from './instructions.js';
import { bestElement, fold } from './match.js';
import type { Vocabulary } from './match.js';
import { sameValue } from './values.js';

export const EDIT_PIPELINE = 'edit';
export const EDIT_FORMATS = ['pdf', 'png', 'jpg', 'jpeg'];

export type FillSource = 'mapping' | 'instruction' | 'correction' | 'ai_suggestion';
export interface MappingItem {
  elementId: string;
  value: unknown;
  formatted?: boolean;
}
/** What a run asks for (kept in edit_jobs.input). */
export interface EditRunInput {
  mode: 'detect' | 'run';
  /** a detection job whose elements are reused */
  from_job_id?: string | null;
  mappings?: MappingItem[] | Record<string, unknown>;
  instructions?: string | null;
  corrections?: MappingItem[] | Record<string, unknown>;
  edit_id?: string | null;
  verify?: boolean;
  config: EditSettings;
}
export interface EditSettings {
  instructions?: string;
  detectionSettings?: { include_checkboxes?: boolean; include_signatures?: boolean };
  fillSettings?: { formattingColor?: string; flatten?: boolean };
}
export interface FilledValue {
  elementId: string;
  value: unknown;
  source: FillSource;
  reasoning: string | null;
  confidence: number;
  formatted?: boolean;
}

/** The layout the editor names elements from: page sizes and words (text layer or OCR) of the parsed document. */
export function layoutOf(doc: ParsedDocument): EditLayout {
  return { pages: doc.pages.map((p) => ({ number: p.number, width: p.width, height: p.height, words: p.words?.length ? p.words : unpackWords(p.wordBoxes) })) };
}

/** Longest wait for a document still being parsed (its words name the blanks). */
const DOCUMENT_WAIT_MS = 10 * 60_000;
/** Resolution of the page images whose drawn lines and boxes are read (2 pixels per point). */
const GEOMETRY_DPI = 144;

/** The document once its processing has ended (a just uploaded or fetched document is still being parsed). */
async function settledDocument(rt: Engine, doc: DocumentRecord, signal: AbortSignal): Promise<DocumentRecord> {
  const deadline = Date.now() + DOCUMENT_WAIT_MS;
  let delay = 100;
  let d = doc;
  while (d.status !== 'completed' && d.status !== 'failed' && Date.now() < deadline) {
    signal.throwIfAborted();
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(1000, Math.round(delay * 1.5));
    d = (await rt.store.repo('documents').get(doc.id)) ?? d;
  }
  return d;
}

/** Page n of a PDF drawn by its reader, for the editor's reading of drawn boxes and lines; null when it cannot be. */
function pageRenderer(rt: Engine, doc: DocumentRecord, file: string, signal: AbortSignal): ((page: number, dpi?: number) => Promise<Buffer | null>) | undefined {
  let reader;
  try {
    reader = rt.registry.readerFor(doc.file_type).instance;
  } catch {
    return undefined;
  }
  if (typeof reader.renderPage !== 'function') return undefined;
  return async (page, dpi = GEOMETRY_DPI) => {
    const r = await reader.renderPage!({ path: file, name: doc.name, format: doc.file_type, size: doc.file_size, documentId: doc.id }, page, { dpi: Math.min(dpi, 2 * GEOMETRY_DPI), maxPixels: 8_000_000, signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]) }).catch(() => null);
    return r?.png ?? null;
  };
}

async function documentLayout(rt: Engine, doc: DocumentRecord): Promise<EditLayout | undefined> {
  if (doc.status !== 'completed' || !doc.content_key) return undefined;
  return layoutOf(await loadParsed(rt, contentKey(doc.id)).catch(() => null as never)) ?? undefined;
}

/**
 * A new edit job (pending) and its runtime job; the pipeline starts at once. With `wait` the job is waited for
 * and its row returned as it ended (submitEditJobAndWait).
 */
export async function startEditJob(rt: Engine, owner: Owned, doc: DocumentRecord, input: EditRunInput, extra: { project_id?: string | null; batch_id?: string | null } = {}, opts: { wait?: boolean } = {}): Promise<EditJobRecord> {
  if (/^hei[cf]$/i.test(doc.file_type) || /\.hei[cf]$/i.test(doc.name)) throw errors.unsupported('HEIC/HEIF images cannot be edited: no HEIC decoder with an Apache-2.0-compatible licence is available (libheif is LGPL-3.0); convert the photo to JPEG or PNG first');
  if (!EDIT_FORMATS.includes(doc.file_type)) throw errors.unsupported(`Only PDF and image files (png, jpg) can be edited; ${doc.name} is ${doc.file_type}`);
  const now = new Date();
  const id = randomUUID();
  const row: EditJobRecord = { id, ...owner, document_id: doc.id, project_id: extra.project_id ?? null, batch_id: extra.batch_id ?? null, status: 'pending', progress: 0, input: input as unknown as Record<string, unknown>, detected_elements: null, fill_mappings: null, edit_id: null, error: null, created_at: now, updated_at: now, completed_at: null };
  const timeoutMs = rt.config.limits.parseTimeoutMs + 60_000;
  const { done } = await submitJob(rt, EDIT_PIPELINE, owner, { edit_job_id: id }, {
    id,
    type: 'edit',
    documentId: doc.id,
    with: async (tx) => {
      await tx.repo('edit_jobs').insert(row);
    },
    payload: { edit_job_id: id },
    ...(opts.wait ? { wait: { timeoutMs } } : {}),
  });
  if (!opts.wait) return row;
  if (!done) throw new JobTimeoutError(id, 'processing', timeoutMs);
  return endedEditJob(rt, done);
}

/** Submits an edit job and waits for it: its row as it ended. */
export function submitEditJobAndWait(rt: Engine, owner: Owned, doc: DocumentRecord, input: EditRunInput, extra: { project_id?: string | null; batch_id?: string | null } = {}): Promise<EditJobRecord> {
  return startEditJob(rt, owner, doc, input, extra, { wait: true });
}

/** An edit job's row once its runtime job ended (a job failed before its row was settled reads failed). */
async function endedEditJob(rt: Engine, job: JobRecord): Promise<EditJobRecord> {
  const id = job.id;
  const row = (await rt.store.repo('edit_jobs').get(id))!;
  if (job.status === 'failed' && row.status !== 'failed') return { ...row, status: 'failed', error: job.error };
  return row;
}

const setStatus = (rt: Engine, id: string, status: EditJobRecord['status'], progress: number, extra: Partial<EditJobRecord> = {}) => rt.store.repo('edit_jobs').update(id, { status, progress, updated_at: new Date(), ...extra });

/** Terms of the owner's vocabulary: their organization's entries and their own. */
export async function vocabularyOf(rt: Engine, owner: Owned): Promise<Vocabulary> {
  const rows = owner.organization_id ? await rt.store.repo('edit_vocabulary').find({ organization_id: owner.organization_id }) : await rt.store.repo('edit_vocabulary').find({ user_id: owner.user_id, organization_id: null });
  return rows.map((r) => ({ canonical_term: r.canonical_term, aliases: r.aliases }));
}

/** Mappings as items: an array as given; an object keyed by element id or label (resolved against the elements). */
export function resolveMappings(m: MappingItem[] | Record<string, unknown> | undefined, elements: EditElement[], vocab: Vocabulary, what: string): MappingItem[] {
  if (!m) return [];
  const ids = new Set(elements.map((e) => e.id));
  if (Array.isArray(m)) {
    const unknown = m.filter((x) => !ids.has(x.elementId));
    if (unknown.length) throw errors.validation(`${what}: no element ${unknown.map((x) => x.elementId).join(', ')} in the detected elements`);
    return m;
  }
  const out: MappingItem[] = [];
  const missing: string[] = [];
  for (const [key, value] of Object.entries(m)) {
    if (ids.has(key)) {
      out.push({ elementId: key, value });
      continue;
    }
    const exact = elements.find((e) => fold(e.label) === fold(key));
    const hit = exact ? { element: exact } : bestElement(key, elements, vocab, { min: 0.6 });
    if (hit) out.push({ elementId: hit.element.id, value });
    else missing.push(key);
  }
  if (missing.length) throw errors.validation(`${what}: no element labelled ${missing.map((k) => `"${k}"`).join(', ')}`, { unmatched: missing });
  return out;
}

/** Runs one edit job to its end (the pipeline's stage). */
export async function runEditJob(rt: Engine, id: string, signal: AbortSignal): Promise<Record<string, unknown>> {
  const job = await rt.store.repo('edit_jobs').get(id);
  if (!job) return { skipped: true };
  const input = job.input as unknown as EditRunInput;
  const found = await rt.store.repo('documents').get(job.document_id);
  if (!found) throw Object.assign(errors.notFound('document', job.document_id), { retryable: false });
  const doc = await settledDocument(rt, found, signal);
  const editor = rt.registry.get('editor');
  const owner: Owned = { user_id: job.user_id, organization_id: job.organization_id };
  await setStatus(rt, id, 'detecting', 10);
  const layout = await documentLayout(rt, doc);
  let elements: EditElement[];
  const from = input.from_job_id ? await rt.store.repo('edit_jobs').get(input.from_job_id) : null;
  if (from?.detected_elements) elements = from.detected_elements as unknown as EditElement[];
  else {
    const det = input.config.detectionSettings ?? {};
    elements = await withLocalFile(rt.storage, doc.storage_key, (p) => editor.detect(p, { format: doc.file_type, ...(layout ? { layout } : {}), ...det, signal, ...(doc.file_type === 'pdf' ? { renderPage: pageRenderer(rt, doc, p, signal) } : {}) }));
  }
  await setStatus(rt, id, input.mode === 'detect' ? 'completed' : 'filling', input.mode === 'detect' ? 100 : 40, { detected_elements: elements as unknown as Record<string, unknown>[], ...(input.mode === 'detect' ? { completed_at: new Date() } : {}) });
  if (input.mode === 'detect') return { elements: elements.length };
  signal.throwIfAborted();

  // ---- filling: earlier values (edit lineage), then mappings, instructions, corrections (later wins)
  const vocab = await vocabularyOf(rt, owner);
  const values = new Map<string, FilledValue>();
  const previous = input.edit_id ? await rt.store.repo('edits').get(input.edit_id) : null;
  if (previous) for (const f of previous.filled_elements as { elementId: string; value: unknown; source: FillSource; reasoning: string | null; confidence: number }[]) values.set(f.elementId, { ...f });
  for (const m of resolveMappings(input.mappings, elements, vocab, 'mappings')) values.set(m.elementId, { elementId: m.elementId, value: m.value, source: 'mapping', reasoning: null, confidence: 1, formatted: m.formatted });
  const instructions = input.instructions ?? input.config.instructions ?? null;
  if (instructions) {
    const taken = new Set([...values.keys()]);
    const llm = rt.registry.tryGet('llm');
    const derived = llm ? await applyLlm(llm, instructions, elements.filter((e) => !taken.has(e.id)), signal).catch(() => []) : [];
    for (const d of derived) taken.add(d.elementId);
    derived.push(...applyOffline(instructions, elements, vocab, taken));
    for (const d of derived) if (!values.has(d.elementId) || values.get(d.elementId)!.source !== 'mapping') values.set(d.elementId, { elementId: d.elementId, value: d.value, source: 'instruction', reasoning: d.reasoning, confidence: d.confidence });
  }
  for (const m of resolveMappings(input.corrections, elements, vocab, 'corrections')) values.set(m.elementId, { elementId: m.elementId, value: m.value, source: 'correction', reasoning: 'correction', confidence: 1, formatted: m.formatted });
  const byId = new Map(elements.map((e) => [e.id, e]));
  const fills: EditFillValue[] = [...values.values()].map((v) => ({ element: byId.get(v.elementId)!, value: (typeof v.value === 'boolean' || Array.isArray(v.value) ? v.value : String(v.value ?? '')) as string | boolean | string[] })).filter((f) => f.element);
  await setStatus(rt, id, 'rendering', 60, { fill_mappings: [...values.values()] as unknown as Record<string, unknown>[] });

  // ---- rendering: a new file from the original
  const fillSettings = input.config.fillSettings ?? {};
  const out = await withLocalFile(rt.storage, doc.storage_key, (p) => editor.fill(p, fills, { format: doc.file_type, ...(fillSettings.flatten ? { flatten: true } : {}), ...(fillSettings.formattingColor ? { color: fillSettings.formattingColor } : {}), ...(layout ? { layout } : {}) }));
  const editId = randomUUID();
  const ext = doc.file_type === 'pdf' ? 'pdf' : doc.file_type === 'png' ? 'png' : 'jpg';
  const base = path.parse(cleanFileName(doc.name, 'document')).name || 'document';
  const outputName = `${base}-filled.${ext}`;
  const outputKey = `edits/${editId}/output`; // the name is shown, never a path
  await rt.storage.put(outputKey, out.bytes);
  const applied = new Map(out.applied.map((a) => [a.id, a.value]));
  const filled = [...values.values()]
    .filter((v) => byId.has(v.elementId))
    .map((v) => {
      const e = byId.get(v.elementId)!;
      return { elementId: v.elementId, field_name: e.label || e.id, value: applied.get(v.elementId) ?? v.value, requested: v.value, page: e.page, bbox: e.bbox, confidence: v.confidence, source: v.source, reasoning: v.reasoning, applied: applied.has(v.elementId) };
    });
  const now = new Date();
  const edit: EditRecord = {
    id: editId,
    ...owner,
    edit_job_id: id,
    document_id: doc.id,
    parent_edit_id: input.edit_id ?? null,
    filled_elements: filled,
    output_key: outputKey,
    output_name: outputName,
    output_mime: out.mime,
    output_size: out.bytes.length,
    warnings: out.warnings,
    verification: null,
    pages_modified: [...new Set(filled.filter((f) => f.applied).map((f) => f.page))].sort((a, b) => a - b),
    created_at: now,
  };
  await rt.store.transaction(async (tx) => {
    await tx.repo('edits').insert(edit);
    for (const f of filled) await tx.repo('edit_audit').insert({ id: randomUUID(), ...owner, edit_id: editId, edit_job_id: id, document_id: doc.id, element_id: f.elementId, label: f.field_name, value: f.value === null || f.value === undefined ? null : String(f.value), source: f.source, reasoning: f.reasoning, created_at: now });
  });
  if (input.verify) {
    const verification = await verifyEdit(rt, edit, doc, elements);
    await rt.store.repo('edits').update(editId, { verification });
  }
  await setStatus(rt, id, 'completed', 100, { edit_id: editId, completed_at: new Date() });
  return { edit_id: editId, filled: filled.length };
}

const norm = (s: unknown) => fold(String(s ?? '')).replace(/[\s.,:;/\\\-_'"()]+/g, '');
const shown = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v));

/**
 * Re-reads the output: AcroForm fields through the editor (pdf-lib), blanks of flat pages by parsing the
 * output (text layer or OCR) and comparing the text inside each element's box. Every mismatch is a warning
 * naming the field.
 */
export async function verifyEdit(rt: Engine, edit: EditRecord, doc: DocumentRecord, elements: EditElement[]): Promise<{ pass: boolean; warnings: string[]; checkedFields: string[] }> {
  const editor = rt.registry.get('editor');
  const byId = new Map(elements.map((e) => [e.id, e]));
  const filled = edit.filled_elements as { elementId: string; value: unknown; requested?: unknown; field_name: string; applied: boolean }[];
  const warnings: string[] = [];
  const checked: string[] = [];
  await withLocalFile(rt.storage, edit.output_key, async (p) => {
    const fieldValues = editor.readValues && filled.some((f) => byId.get(f.elementId)?.source === 'acroform') ? await editor.readValues(p, { format: doc.file_type }) : {};
    let parsed: ParsedDocument | null = null;
    let redetected: EditElement[] | null = null;
    for (const f of filled) {
      const e = byId.get(f.elementId);
      if (!e) continue;
      checked.push(f.elementId);
      const name = f.field_name || f.elementId;
      if (!f.applied) {
        warnings.push(`${name}: the value was not written`);
        continue;
      }
      if (e.source === 'acroform' && (e.field_name ?? e.id) in fieldValues) {
        // the file's value against the value asked for (not the one written: a value cut to the field's
        // length was written as cut, and is still not the one asked for)
        const got = fieldValues[e.field_name ?? e.id];
        const want = f.requested ?? f.value;
        if (!sameValue(e, got, want)) warnings.push(`${name}: expected "${shown(want)}", the file has "${shown(got)}"`);
        continue;
      }
      if (e.source === 'acroform') {
        warnings.push(`${name}: the field is no longer in the form (flattened); checked as text`);
      }
      if (f.requested !== undefined && !sameValue(e, f.value, f.requested)) {
        warnings.push(`${name}: expected "${shown(f.requested)}", written as "${shown(f.value)}"`);
        continue;
      }
      if (e.type === 'radio' && e.option_boxes?.length) {
        // a printed radio is filled with a dot in the chosen ring: the output's rings, as detection sees them
        redetected ??= await outputElements(rt, doc, p);
        const again = redetected.find((o) => o.type === 'radio' && o.page === e.page && Math.abs(o.bbox.x - e.bbox.x) < Math.max(e.bbox.width / 2, 6) && Math.abs(o.bbox.y - e.bbox.y) < Math.max(e.bbox.height / 2, 6));
        const got = again?.current_value ?? '';
        if (norm(got) !== norm(f.value)) warnings.push(`${name}: expected "${String(f.value)}", the output has ${got ? `"${String(got)}" chosen` : 'no option chosen'}`);
        continue;
      }
      if (e.type !== 'checkbox' && doc.file_type !== 'pdf' && editor.cropImage && rt.registry.tryGet('ocr')) {
        // an image: OCR of the filled box alone (a page's OCR often skips text inside frames)
        const got = await ocrBox(rt, editor, p, doc, e).catch(() => '');
        if (!norm(got).includes(norm(f.value)) || !norm(f.value)) warnings.push(`${name}: "${String(f.value)}" not found in its box (read "${got}")`);
        continue;
      }
      parsed ??= await readFile(rt, { path: p, name: edit.output_name, format: doc.file_type, size: edit.output_size, id: edit.id }, parseConfig({}));
      const page = parsed.pages.find((pg) => pg.number === e.page);
      const words = page ? (page.words?.length ? page.words : unpackWords(page.wordBoxes)) : [];
      const pad = 3;
      const inBox = words.filter((w) => {
        const cx = w.bbox.x + w.bbox.width / 2, cy = w.bbox.y + w.bbox.height / 2;
        return cx >= e.bbox.x - pad && cx <= e.bbox.x + e.bbox.width + pad && cy >= e.bbox.y - pad && cy <= e.bbox.y + e.bbox.height + pad;
      });
      const text = norm(inBox.map((w) => w.text).join(' '));
      if (e.type === 'checkbox') {
        let ticked = /[✓✔☒☑x×]/i.test(inBox.map((w) => w.text).join(''));
        if (!ticked && doc.file_type !== 'pdf') {
          // OCR seldom reads a tick: the output's own square, as detection sees it (ink inside)
          redetected ??= await outputElements(rt, doc, p);
          ticked = redetected.some((o) => o.type === 'checkbox' && o.page === e.page && o.checked && Math.abs(o.bbox.x - e.bbox.x) < e.bbox.width / 2 && Math.abs(o.bbox.y - e.bbox.y) < e.bbox.height / 2);
        }
        if (ticked !== (String(f.value) === 'true')) warnings.push(`${name}: the box is ${ticked ? '' : 'not '}ticked in the output`);
      } else if (!text.includes(norm(f.value)) || !norm(f.value)) warnings.push(`${name}: "${String(f.value)}" not found in its box (read "${inBox.map((w) => w.text).join(' ')}")`);
    }
  });
  return { pass: warnings.length === 0, warnings, checkedFields: checked };
}

/** The text OCR reads in one element's box of an output image. */
async function ocrBox(rt: Engine, editor: ReturnType<Engine['registry']['get']>, file: string, doc: DocumentRecord, e: EditElement): Promise<string> {
  const layout = await documentLayout(rt, doc);
  const png = await (editor as { cropImage: NonNullable<import('@quire/core').EditorPlugin['cropImage']> }).cropImage(file, { format: doc.file_type, ...(layout ? { layout } : {}), bbox: e.bbox });
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'quire-edit-'));
  try {
    const crop = path.join(dir, 'box.png');
    await fsp.writeFile(crop, png);
    const r = await rt.registry.get('ocr').recognize(crop, { language: rt.config.ocr.language, signal: AbortSignal.timeout(30_000) });
    return r.text.replace(/\s+/g, ' ').trim();
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** The elements the editor finds in an output image, with the original's layout (the words are the same). */
async function outputElements(rt: Engine, doc: DocumentRecord, file: string): Promise<EditElement[]> {
  const layout = await documentLayout(rt, doc);
  if (!layout) return [];
  // a PDF's flat pages are drawn again from the output file (a printed radio's dot is seen only there)
  const signal = AbortSignal.timeout(120_000);
  const renderPage = doc.file_type === 'pdf' ? pageRenderer(rt, doc, file, signal) : undefined;
  return rt.registry.get('editor').detect(file, { format: doc.file_type, layout, signal, ...(renderPage ? { renderPage } : {}) }).catch(() => []);
}

/** The failure of an edit job, recorded on its row (the runtime keeps the job's own error). */
export async function failEditJob(rt: Engine, id: string, message: string): Promise<void> {
  await rt.store.repo('edit_jobs').update({ id, status: ['pending', 'detecting', 'filling', 'rendering'] }, { status: 'failed', error: message, updated_at: new Date(), completed_at: new Date() });
}
