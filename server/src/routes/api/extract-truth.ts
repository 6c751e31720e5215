import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { ExtractionRecord, FieldDefinition, GroundTruthRecord } from '@quire/core';
import { coerceValue, normaliseValue } from '@quire/fields';
import type { AuthInfo } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { groundTruthOf, loadOwned, recordGroundTruth, storeCorrections } from '@quire/engine';
import type { Engine } from '@quire/engine';
import { FieldDef, UUID, loadSchema, normaliseFields, prebuiltSchema, schemaNameOf } from '@quire/engine';
import { apiStoredExtraction, fieldFor } from '@quire/engine';
import type { Correction } from '@quire/engine';

const TAG = 'Extract ground truth and corrections';
const docId = z.string().regex(UUID, 'must be a document UUID');

function apiGroundTruth(g: GroundTruthRecord) {
  return { id: g.id, document_id: g.document_id, schema_id: g.schema_id, field_values: g.field_values, notes: g.notes, created_at: g.created_at.toISOString(), updated_at: g.updated_at.toISOString() };
}

async function schemaFieldsOf(rt: Engine, auth: AuthInfo, schemaId: string | null | undefined): Promise<FieldDefinition[]> {
  if (!schemaId) return [];
  const pre = UUID.test(schemaId) ? undefined : prebuiltSchema(schemaId);
  if (pre) return pre.fields;
  return (await loadSchema(rt, auth, schemaId, 'read')).fields as FieldDefinition[];
}

/** A field's type when no definition is known: from the ground-truth value itself. */
function inferDef(name: string, v: unknown): FieldDefinition {
  const type: FieldDefinition['type'] = typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : Array.isArray(v) ? 'array' : v && typeof v === 'object' ? 'object' : typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? 'date' : 'string';
  return { name, type };
}

const CorrectionItem = z.object({ field_id: z.string().min(1).max(200), corrected_value: z.unknown(), confidence_override: z.number().min(0).max(1).optional() }).strict();

/** A correction with its value coerced to the field's type (a value that is not of that type is refused). */
function makeCorrection(x: ExtractionRecord, auth: AuthInfo, item: z.infer<typeof CorrectionItem>, where: string): Correction {
  const fields = x.fields as FieldDefinition[];
  const def = fieldFor(fields, item.field_id);
  if (!def) throw errors.validation(`${where}field_id "${item.field_id}" is not a field of this extraction (fields: ${fields.map((f) => f.name).join(', ')})`, [{ field: `${where}field_id`, message: 'unknown field' }]);
  const raw = item.corrected_value === undefined ? null : item.corrected_value;
  const coerced = coerceValue(raw, def);
  if (raw !== null && (coerced.value === null || !coerced.clean)) throw errors.validation(`${where}corrected_value is not a valid value of type ${def.type} for field "${def.name}"`, [{ field: `${where}corrected_value`, message: `must be of type ${def.type}` }]);
  return { field_id: item.field_id, field: def.name, corrected_value: coerced.value, original_value: x.data[def.name] ?? null, confidence_override: item.confidence_override ?? null, corrected_by: auth.user.id, corrected_at: new Date().toISOString() };
}

async function saveCorrections(rt: Engine, x: ExtractionRecord, corrections: Correction[]) {
  return apiStoredExtraction(await storeCorrections(rt, x, corrections), await schemaNameOf(rt, x.schema_id));
}

export function extractTruthRoutes(router: Router<any, any>): void {
  route(router, { method: 'get', path: '/api/extract/ground-truth', summary: 'Ground truth recorded for a document ({ground_truth: [...]})', tag: TAG, query: z.object({ document_id: docId }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    await loadOwned(ctx.quire.store, 'documents', query.document_id, auth, 'read');
    return { ground_truth: (await groundTruthOf(ctx.quire, auth, query.document_id)).map(apiGroundTruth) };
  });

  route(
    router,
    {
      method: 'post',
      path: '/api/extract/ground-truth',
      summary: 'Record the true field values of a document (one record per document and schema; posting again replaces it)',
      tag: TAG,
      body: z.object({ document_id: docId, schema_id: z.string().min(1).max(64).nullable().optional(), field_values: z.record(z.string(), z.unknown()), notes: z.string().max(10_000).nullable().optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      const doc = await loadOwned(rt.store, 'documents', body.document_id, auth, 'read');
      await schemaFieldsOf(rt, auth, body.schema_id);
      const { row, created } = await recordGroundTruth(rt, auth, doc, body);
      if (created) ctx.status = 201;
      return { ground_truth: apiGroundTruth(row) };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/extract/ground-truth/compare',
      summary: 'Compare extracted values (field_results or an extraction) with the document\'s ground truth, field by field',
      tag: TAG,
      body: z
        .object({
          document_id: docId,
          field_results: z.union([z.array(z.object({ field: z.string().min(1), value: z.unknown() }).passthrough()), z.record(z.string(), z.unknown())]).optional(),
          extraction_id: z.string().regex(UUID).optional(),
          fields: z.array(z.union([z.string().min(1), FieldDef])).max(200).optional(),
          schema_id: z.string().min(1).max(64).optional(),
        })
        .strict()
        .refine((b) => b.field_results !== undefined || b.extraction_id !== undefined, { message: 'field_results (or extraction_id) is required', path: ['field_results'] }),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const rt = ctx.quire;
      await loadOwned(rt.store, 'documents', body.document_id, auth, 'read');
      const truths = await groundTruthOf(rt, auth, body.document_id, body.schema_id);
      const truth = truths[0];
      if (!truth) throw errors.notFound('ground truth for document', body.document_id);
      let extracted: Record<string, unknown>;
      let defs: FieldDefinition[] = [];
      if (body.field_results !== undefined) {
        extracted = Array.isArray(body.field_results) ? Object.fromEntries(body.field_results.map((r) => [r.field, r.value ?? null])) : body.field_results;
      } else {
        const x = await loadOwned(rt.store, 'extractions', body.extraction_id!, auth, 'read');
        const applied = apiStoredExtraction(x, null);
        extracted = applied.data;
        defs = x.fields as FieldDefinition[];
      }
      const listed = body.fields?.filter((f): f is string => typeof f === 'string');
      const given = normaliseFields((body.fields ?? []).filter((f): f is z.infer<typeof FieldDef> => typeof f !== 'string'));
      const schemaDefs = await schemaFieldsOf(rt, auth, truth.schema_id).catch(() => [] as FieldDefinition[]);
      const defOf = (name: string) => given.find((f) => f.name === name) ?? defs.find((f) => f.name === name) ?? schemaDefs.find((f) => f.name === name) ?? inferDef(name, truth.field_values[name]);
      const names = Object.keys(truth.field_values).filter((n) => (!listed?.length && !given.length) || listed?.includes(n) || given.some((g) => g.name === n));
      const results = names.map((name) => {
        const def = defOf(name);
        const expected = truth.field_values[name] ?? null;
        const got = extracted[name] ?? null;
        const a = JSON.stringify(normaliseValue(expected, def));
        const b = JSON.stringify(normaliseValue(got, def));
        return { field: name, type: def.type, expected, extracted: got, match: a === b };
      });
      const matched = results.filter((r) => r.match).length;
      return { document_id: body.document_id, ground_truth_id: truth.id, schema_id: truth.schema_id, results, matched, total: results.length, accuracy: results.length ? Math.round((matched / results.length) * 1000) / 1000 : 0 };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/extract/corrections',
      summary: 'Correct one field of an extraction (replaces an earlier correction of that field); answers the corrected extraction',
      tag: TAG,
      body: z.object({ extraction_id: z.string().regex(UUID, 'must be an extraction UUID') }).merge(CorrectionItem).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const x = await loadOwned(ctx.quire.store, 'extractions', body.extraction_id, auth, 'write');
      const correction = makeCorrection(x, auth, { field_id: body.field_id, corrected_value: body.corrected_value, confidence_override: body.confidence_override }, '');
      const corrections = [...(x.corrections as Correction[]).filter((c) => c.field !== correction.field), correction];
      return { success: true, correction, extraction: await saveCorrections(ctx.quire, x, corrections) };
    },
  );

  route(
    router,
    {
      method: 'put',
      path: '/api/extract/corrections',
      summary: 'Replace all corrections of an extraction; answers the corrected extraction',
      tag: TAG,
      body: z.object({ extraction_id: z.string().regex(UUID, 'must be an extraction UUID'), corrections: z.array(CorrectionItem).max(500) }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const x = await loadOwned(ctx.quire.store, 'extractions', body.extraction_id, auth, 'write');
      const byField = new Map<string, Correction>();
      body.corrections.forEach((item, i) => {
        const c = makeCorrection(x, auth, item, `corrections.${i}.`);
        byField.set(c.field, c);
      });
      const corrections = [...byField.values()];
      return { success: true, corrections, extraction: await saveCorrections(ctx.quire, x, corrections) };
    },
  );
}
