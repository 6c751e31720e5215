/**
 * Extraction definitions: the zod shape of field definitions (shared by /v1/schemas, /api/extract/* and
 * the embed action), saved schemas with their access rule, prebuilt schemas, and fields generated from a
 * natural-language description (offline, or by the LLM plugin when one is configured).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { FieldDefinition, Owned, SchemaRecord } from '@quire/core';
import { PREBUILT_SCHEMAS, fieldsFromDescription, typeByWords } from '@quire/fields';
import type { PrebuiltSchema } from '@quire/fields';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { assertNotLocked, canRead, canWrite } from '../infra/access.js';
import { UUID } from '../validation.js';

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'array', 'object'] as const;
const MAX_DEPTH = 5;

export type NestedInput = { id?: string; name?: string; type: FieldDefinition['type']; description?: string; required?: boolean; items?: NestedInput; properties?: Record<string, NestedInput> };

const nested: z.ZodType<NestedInput> = z.lazy(() =>
  z.object({
    id: z.string().max(200).optional(),
    name: z.string().trim().min(1).max(200).optional(),
    type: z.enum(FIELD_TYPES, { message: `type must be one of ${FIELD_TYPES.join(', ')}` }),
    description: z.string().max(4000).optional(),
    required: z.boolean().optional(),
    items: nested.optional(),
    properties: z.record(z.string().min(1).max(200), nested).optional(),
  }),
);

/** A field definition as clients send it (spec §2.1: name, type, description, id, required, items, properties, suggestionReason). */
export const FieldDef = z.object({
  id: z.string().max(200).optional(),
  name: z.string().trim().min(1, 'name is required').max(200),
  type: z.enum(FIELD_TYPES, { message: `type must be one of ${FIELD_TYPES.join(', ')}` }),
  description: z.string().max(4000).optional(),
  required: z.boolean().optional(),
  items: nested.optional(),
  properties: z.record(z.string().min(1).max(200), nested).optional(),
  suggestionReason: z.string().max(1000).optional(),
});

function depth(f: NestedInput): number {
  const kids = [...(f.items ? [f.items] : []), ...Object.values(f.properties ?? {})];
  return 1 + (kids.length ? Math.max(...kids.map(depth)) : 0);
}

/** A list of field definitions: 1..200 fields, unique names, nesting at most 5 levels. */
export const FieldList = z
  .array(FieldDef)
  .min(1, 'at least one field is required')
  .max(200, 'at most 200 fields')
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `field name "${f.name}" is used twice` });
      seen.add(f.name);
      if (depth(f) > MAX_DEPTH) ctx.addIssue({ code: 'custom', path: [i], message: `fields nest at most ${MAX_DEPTH} levels` });
    });
  });

/** Extraction settings (schema settings, inline config.settings); unknown keys are kept for the extractor. */
export const Settings = z
  .object({
    model: z.string().max(200).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().min(1).max(200_000).optional(),
    agenticExtractionMode: z.boolean().optional(),
    engine: z.enum(['offline', 'llm', 'auto']).optional(),
    dateOrder: z.enum(['DMY', 'MDY']).optional(),
    decimal: z.enum(['.', ',']).optional(),
    maxPromptChars: z.number().int().min(1000).max(2_000_000).optional(),
  })
  .passthrough();

/** Nested definitions get their names from their keys (properties) or 'item' (array items). */
export function normaliseFields(fields: readonly z.infer<typeof FieldDef>[] | readonly NestedInput[]): FieldDefinition[] {
  const one = (f: NestedInput, fallback: string): FieldDefinition => {
    const out: FieldDefinition = { name: f.name ?? fallback, type: f.type };
    if (f.id !== undefined) out.id = f.id;
    if (f.description !== undefined) out.description = f.description;
    if (f.required !== undefined) out.required = f.required;
    if (f.items) out.items = one(f.items, 'item');
    if (f.properties) out.properties = Object.fromEntries(Object.entries(f.properties).map(([k, d]) => [k, one(d, k)]));
    const reason = (f as { suggestionReason?: string }).suggestionReason;
    if (reason !== undefined) (out as FieldDefinition & { suggestionReason?: string }).suggestionReason = reason;
    return out;
  };
  return fields.map((f) => one(f as NestedInput, 'field'));
}

// ---------- saved schemas ----------

/**
 * Who may read a saved schema: its creator, or a member of its organization when it is shared there
 * (is_shared). A schema attached to an organization but not shared stays private to its creator.
 */
export function canReadSchema(auth: AuthInfo, s: SchemaRecord): boolean {
  // canRead also refuses an organization that locks the caller out (require_2fa), own schemas included
  return (s.user_id === auth.user.id || s.is_shared) && canRead(auth, s);
}

export function canWriteSchema(auth: AuthInfo, s: SchemaRecord): boolean {
  return canReadSchema(auth, s) && canWrite(auth, s);
}

/** A UUID (saved schema ids are UUIDs; prebuilt schema ids are short names). */
export { UUID };

export async function loadSchema(rt: Engine, auth: AuthInfo, id: string, mode: 'read' | 'write'): Promise<SchemaRecord> {
  const row = UUID.test(id) ? await rt.store.repo('schemas').get(id) : null;
  if (row && !canReadSchema(auth, row)) assertNotLocked(auth, row.organization_id);
  if (!row || !canReadSchema(auth, row)) throw errors.notFound('schema', id);
  if (mode === 'write' && !canWrite(auth, row)) throw errors.forbidden('You cannot change this schema');
  return row;
}

/** Every schema the caller can read: their own plus those shared in their organizations, newest first. */
export async function readableSchemas(rt: Engine, auth: AuthInfo): Promise<SchemaRecord[]> {
  const repo = rt.store.repo('schemas');
  const orgs = auth.memberships.map((m) => m.organization_id);
  const [own, shared] = await Promise.all([repo.find({ user_id: auth.user.id }, { order: { created_at: 'DESC' } }), orgs.length ? repo.find({ organization_id: orgs, is_shared: true }, { order: { created_at: 'DESC' } }) : Promise.resolve([])]);
  const seen = new Set<string>();
  return [...own, ...shared].filter((s) => canReadSchema(auth, s) && (seen.has(s.id) ? false : (seen.add(s.id), true))).sort((a, b) => b.created_at.getTime() - a.created_at.getTime());
}

export function prebuiltSchema(id: string): PrebuiltSchema | undefined {
  return PREBUILT_SCHEMAS.find((p) => p.id === id);
}

// ---------- the definition of one extraction ----------

export interface Definition {
  fields: FieldDefinition[];
  instructions?: string;
  settings: Record<string, unknown>;
  /** a saved schema's id, a prebuilt schema's id, or null for inline fields and descriptions */
  schemaId: string | null;
  schemaName: string | null;
  source: 'schema' | 'prebuilt' | 'fields' | 'description';
}

export interface DefinitionInput {
  schemaId?: string | null;
  fields?: FieldDefinition[] | null;
  description?: string | null;
  instructions?: string | null;
  settings?: Record<string, unknown> | null;
}

const MIN_DESCRIPTION = 10;

/**
 * Exactly one of schema_id | fields | description (names as the API spells them, for error details).
 * Settings layer: schema settings, then the request's settings.
 */
export async function resolveDefinition(rt: Engine, auth: AuthInfo, d: DefinitionInput, names = { schemaId: 'schema_id', fields: 'fields', description: 'description' }): Promise<Definition> {
  const given = [d.schemaId != null && d.schemaId !== '' ? names.schemaId : null, d.fields != null ? names.fields : null, d.description != null ? names.description : null].filter((x): x is string => !!x);
  const all = [names.schemaId, names.fields, names.description];
  if (given.length !== 1) {
    const message = given.length ? `Give exactly one of ${all.join(', ')}; got ${given.join(' and ')}` : `One of ${all.join(', ')} is required`;
    throw errors.validation(message, (given.length ? given : all).map((field) => ({ field, message: given.length ? 'only one definition is allowed' : 'one definition is required' })));
  }
  const extra = d.settings ? { ...d.settings } : {};
  if (d.schemaId != null && d.schemaId !== '') {
    const pre = UUID.test(d.schemaId) ? undefined : prebuiltSchema(d.schemaId);
    if (pre) return { fields: structuredClone(pre.fields) as FieldDefinition[], settings: extra, schemaId: pre.id, schemaName: pre.name, source: 'prebuilt', ...(d.instructions ? { instructions: d.instructions } : {}) };
    const s = await loadSchema(rt, auth, d.schemaId, 'read');
    if (!Array.isArray(s.fields) || !s.fields.length) throw errors.validation(`Schema ${s.id} has no fields`, [{ field: names.schemaId, message: 'the schema has no fields' }]);
    const instructions = d.instructions ?? s.instructions ?? undefined;
    return { fields: s.fields as FieldDefinition[], settings: { ...(s.settings ?? {}), ...extra }, schemaId: s.id, schemaName: s.name, source: 'schema', ...(instructions ? { instructions } : {}) };
  }
  if (d.fields != null) {
    if (!d.fields.length) throw errors.validation(`${names.fields} must hold at least one field`, [{ field: names.fields, message: 'at least one field is required' }]);
    return { fields: d.fields, settings: extra, schemaId: null, schemaName: null, source: 'fields', ...(d.instructions ? { instructions: d.instructions } : {}) };
  }
  const description = String(d.description).trim();
  if (description.length < MIN_DESCRIPTION) throw errors.validation(`${names.description} must be at least ${MIN_DESCRIPTION} characters`, [{ field: names.description, message: `at least ${MIN_DESCRIPTION} characters` }]);
  const generated = await fieldsForDescription(rt, description, extra);
  if (!generated.fields.length) throw errors.validation('No field could be derived from the description; name the values to extract (e.g. "the invoice number, the total and the due date")', [{ field: names.description, message: 'no field could be derived' }]);
  return { fields: generated.fields, settings: extra, schemaId: null, schemaName: null, source: 'description', instructions: d.instructions ?? description };
}

// ---------- fields from a description ----------

const LLM_FIELDS_SCHEMA = {
  type: 'object',
  properties: {
    fields: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'snake_case field name' },
          type: { type: 'string', enum: [...FIELD_TYPES] },
          description: { type: 'string' },
          required: { type: 'boolean' },
          items: { type: ['object', 'null'], description: 'for arrays: the element definition {type, properties?}' },
          properties: { type: ['object', 'null'], description: 'for objects: map of property name to {type, description}' },
        },
        required: ['name', 'type', 'description'],
      },
    },
  },
  required: ['fields'],
};

/**
 * Fields from a natural-language description: by the LLM plugin when one is configured (and settings.engine
 * is not 'offline'), checked against the field schema; offline (keyword rules of the extractor) otherwise or
 * when the LLM's answer is unusable.
 */
export async function fieldsForDescription(rt: Engine, description: string, settings: Record<string, unknown> = {}, signal?: AbortSignal): Promise<{ fields: FieldDefinition[]; method: 'llm' | 'offline' }> {
  const llm = settings.engine === 'offline' ? undefined : rt.registry.tryGet('llm');
  if (llm) {
    try {
      const res = await llm.complete({
        messages: [
          { role: 'system', content: `You design data extraction schemas. Answer with JSON {"fields": [...]}: one field per value the user wants, snake_case names, types among ${FIELD_TYPES.join(', ')} (dates as date, amounts and counts as number, yes/no as boolean, lists as array with items, groups as object with properties).` },
          { role: 'user', content: description },
        ],
        jsonSchema: { name: 'fields', schema: LLM_FIELDS_SCHEMA },
        temperature: 0,
        signal,
      });
      const parsed = JSON.parse(res.content) as { fields?: unknown[] };
      const cleaned = (parsed.fields ?? []).map((f) => dropNulls(f));
      const checked = FieldList.safeParse(cleaned);
      if (checked.success) return { fields: normaliseFields(checked.data).map(typedByName), method: 'llm' };
      rt.logger.warn({ issues: checked.error.issues.slice(0, 3) }, 'LLM field generation gave invalid fields; using the offline rules');
    } catch (e) {
      if (signal?.aborted) throw e;
      rt.logger.warn({ err: (e as Error).message }, 'LLM field generation failed; using the offline rules');
    }
  }
  return { fields: fieldsFromDescription(description), method: 'offline' };
}

/**
 * A model's date for a value its words name as an amount ("total amount due"), or its number for one they
 * name as a date, takes the type of the words (its name and description); other types stand.
 */
function typedByName(f: FieldDefinition): FieldDefinition {
  if (f.type !== 'date' && f.type !== 'number') return f;
  const byName = typeByWords(f.name.replace(/_/g, ' '));
  const byWords = byName ?? typeByWords(f.description ?? '');
  return (byWords === 'date' || byWords === 'number') && byWords !== f.type ? { ...f, type: byWords } : f;
}

function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}

/** Display name of a schema id (saved or prebuilt), or null. */
export async function schemaNameOf(rt: Engine, schemaId: string | null): Promise<string | null> {
  if (!schemaId) return null;
  const pre = UUID.test(schemaId) ? undefined : prebuiltSchema(schemaId);
  if (pre) return pre.name;
  return (await rt.store.repo('schemas').get(schemaId))?.name ?? null;
}

/** The stored-schema changes of an update: only the fields given change (v1 POST /schemas/:id and PUT /api/extract/schemas/:id). */
export function schemaPatch(body: { name?: string; description?: string | null; instructions?: string | null; fields?: Parameters<typeof normaliseFields>[0]; settings?: Record<string, unknown> }): Partial<SchemaRecord> {
  const patch: Partial<SchemaRecord> = { updated_at: new Date() };
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  if (body.instructions !== undefined) patch.instructions = body.instructions;
  if (body.fields !== undefined) patch.fields = normaliseFields(body.fields);
  if (body.settings !== undefined) patch.settings = body.settings;
  return patch;
}

/** Stores a new schema (v1 POST /schemas and POST /api/extract/schemas share the table). */
export async function createSchema(
  rt: Engine,
  owner: Owned,
  body: { name: string; description?: string | null; instructions?: string | null; fields?: Parameters<typeof normaliseFields>[0]; settings?: Record<string, unknown>; is_shared?: boolean },
): Promise<SchemaRecord> {
  const now = new Date();
  const row: SchemaRecord = {
    id: randomUUID(),
    ...owner,
    name: body.name,
    description: body.description ?? null,
    instructions: body.instructions ?? null,
    fields: body.fields ? normaliseFields(body.fields) : [],
    settings: body.settings ?? {},
    is_shared: body.is_shared ?? false,
    created_at: now,
    updated_at: now,
  };
  await rt.store.repo('schemas').insert(row);
  return row;
}

/** Writes a schema's changes (see schemaPatch). */
export async function saveSchema(rt: Engine, id: string, patch: Partial<SchemaRecord>): Promise<void> {
  await rt.store.repo('schemas').update(id, patch);
}

export async function deleteSchema(rt: Engine, id: string): Promise<void> {
  await rt.store.repo('schemas').delete(id);
}
