import { definePlugin, errors, isQuireError, z } from '@quire/core';
import type { ExtractionEvent, ExtractorPlugin, FieldDefinition, FieldResult, PluginContext } from '@quire/core';
import { OfflineEngine, type Outcome } from './engine.js';
import { runAgentic, validate } from './agentic.js';
import { runLlm } from './llm.js';
import { suggestFields } from './suggest.js';
import { throwIfAborted } from './abort.js';

export { locateQuote } from './llm.js';

const TYPES = new Set(['string', 'number', 'boolean', 'date', 'array', 'object']);

function checkFields(fields: FieldDefinition[], path = 'fields'): void {
  if (!Array.isArray(fields)) throw errors.validation(`${path} must be an array of field definitions`);
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    if (!f || typeof f.name !== 'string' || !f.name.trim()) throw errors.validation(`${path}[${i}].name is required`);
    if (!TYPES.has(f.type)) throw errors.validation(`${path}[${i}] "${f.name}": type must be one of ${[...TYPES].join(', ')}`);
    if (seen.has(f.name)) throw errors.validation(`${path}: field name "${f.name}" is used twice`);
    seen.add(f.name);
    if (f.type === 'object' && f.properties) checkFields(Object.entries(f.properties).map(([k, d]) => ({ ...d, name: d.name ?? k })), `${path}[${i}].properties`);
    if (f.type === 'array' && f.items) checkFields([{ ...f.items, name: f.items.name ?? 'items' }], `${path}[${i}].items`);
  });
}

export interface ExtractSettings {
  /** 'offline' never calls an LLM; 'llm' requires one; default: the LLM when one is configured */
  engine?: 'offline' | 'llm' | 'auto';
  agenticExtractionMode?: boolean;
  /** day/month order of ambiguous numeric dates; default from the document */
  dateOrder?: 'DMY' | 'MDY';
  /** decimal separator; default from the document */
  decimal?: '.' | ',';
  maxPromptChars?: number;
  temperature?: number;
  maxTokens?: number;
}

export function createExtractor(ctx: Pick<PluginContext, 'use'> & Partial<Pick<PluginContext, 'logger'>>): ExtractorPlugin {
  return {
    async extract({ doc, chunks, fields, instructions, settings = {}, signal, onEvent }) {
      checkFields(fields);
      const s = settings as ExtractSettings;
      const emit = async (e: ExtractionEvent) => {
        await onEvent?.(e);
      };
      throwIfAborted(signal);
      await emit({ type: 'progress', progress: 0, progress_message: `extracting ${fields.length} fields` });
      const engine = new OfflineEngine(doc, chunks ?? [], { dateOrder: s.dateOrder, decimal: s.decimal });
      const llm = s.engine === 'offline' ? undefined : ctx.use('llm');
      if (s.engine === 'llm' && !llm) throw errors.validation('settings.engine "llm" needs an LLM: set QUIRE_LLM_BASE_URL and QUIRE_LLM_MODEL');
      let outcomes: Outcome[] = [];
      let failed: string | null = null;
      if (llm) {
        try {
          outcomes = await runLlm({ llm, engine, chunks: chunks ?? [], fields, instructions, settings: s, emit, signal });
        } catch (e) {
          // an LLM that fails after its retries gives the offline reading, unless the caller asked for the LLM
          if (s.engine === 'llm' || !(isQuireError(e) && e.code === 'UPSTREAM_ERROR')) throw e;
          failed = (e as Error).message;
          ctx.logger?.warn({ err: failed }, 'LLM extraction failed; extracting offline');
          outcomes = [];
        }
      }
      if (failed !== null) {
        for (const f of fields) {
          throwIfAborted(signal);
          outcomes.push({ ...engine.extract(f), answeredBy: 'offline', fallbackReason: 'llm_unavailable' });
        }
      } else if (llm) {
        if (s.agenticExtractionMode === true) {
          throwIfAborted(signal);
          validate(fields, new Map(outcomes.map((o) => [o.field, o])), engine);
          await emit({ type: 'progress', progress: 90, progress_message: 'validated types, required fields and sums' });
        }
      } else if (s.agenticExtractionMode === true) {
        outcomes = await runAgentic({ engine, fields, emit, signal });
      } else {
        outcomes = [];
        for (const [i, f] of fields.entries()) {
          throwIfAborted(signal);
          outcomes.push(engine.extract(f));
          await emit({ type: 'progress', progress: Math.round((95 * (i + 1)) / fields.length), progress_message: `extracted ${f.name}` });
        }
      }
      throwIfAborted(signal);
      const data: Record<string, unknown> = {};
      const fieldResults: FieldResult[] = [];
      for (const o of outcomes) {
        data[o.field.name] = o.value;
        fieldResults.push({ field: o.field.name, value: o.value, confidence: o.confidence, evidence: o.evidence, ...(o.answeredBy ? { answered_by: o.answeredBy, fallback_reason: o.fallbackReason ?? null } : {}) });
        await emit({ type: 'field_extracted', field: { fieldId: o.field.id ?? o.field.name, fieldName: o.field.name, value: o.value, confidence: o.confidence } });
      }
      await emit({ type: 'progress', progress: 100, progress_message: 'done' });
      return { data, fieldResults };
    },
    async suggestFields(doc) {
      return suggestFields(doc);
    },
    async health() {
      const llm = ctx.use('llm');
      return { ok: true, message: llm ? `layout extraction; LLM ${llm.model} used when configured` : 'layout extraction (offline)' };
    },
  };
}

/**
 * Extractor "layout": reads fields from the parsed layout offline (key-values, label/value positions,
 * tables, typed parsing, evidence-based confidence), or through the active LLM plugin when one is
 * configured and settings.engine is not 'offline'.
 */
export default definePlugin({
  kind: 'extractor',
  name: 'layout',
  core: '^1',
  description: 'Offline extractor from the parsed layout: key-values, tables, label matching, typed parsing; uses the LLM plugin when configured.',
  /** none: each extraction brings its settings */
  options: z.strictObject({}),
  uses: ['llm?'],
  create(ctx) {
    return createExtractor(ctx);
  },
});
