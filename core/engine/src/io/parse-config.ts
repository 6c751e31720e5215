import { z } from 'zod';
import { errors } from '@quire/core';
import type { ChunkOptions } from '@quire/core';
import { parseWith } from '../validation.js';

const ocrLanguage = z.string().regex(/^(auto|[a-z_]{3,}(\+[a-z_]{3,})*)$/, 'tesseract language codes joined with + (e.g. eng+deu), or auto');

/** Parse configuration (spec §4.2 config + §4.3 parsing_config): every option validated, unknown options refused. */
export const ParseConfigSchema = z
  .object({
    formatting: z.object({ table_output_format: z.enum(['markdown', 'html', 'json']).default('markdown') }).strict().prefault({}),
    chunking: z
      .object({
        strategy: z.enum(['semantic', 'fixed', 'page']).default('semantic'),
        max_chunk_size: z.number().int().min(100).max(100_000).default(1000),
        overlap: z.number().int().min(0).max(50_000).default(100),
      })
      .strict()
      .refine((c) => c.overlap <= c.max_chunk_size / 2, { message: 'overlap must be at most half of max_chunk_size', path: ['overlap'] })
      .prefault({}),
    ocr: z
      .object({
        enabled: z.boolean().default(true),
        language: ocrLanguage.optional(),
        /** accepted for compatibility; it does no extra work (the same OCR runs), so it is charged as a standard parse */
        agentic: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type ParseConfig = z.infer<typeof ParseConfigSchema>;

export function parseConfig(raw: unknown, where = 'config'): ParseConfig {
  return parseWith(ParseConfigSchema, raw ?? {}, where);
}

/** Accepts a JSON string (multipart fields) or an object. */
export function parseConfigField(raw: unknown, where: string): ParseConfig {
  return resolveParseRequest(raw, where).config;
}

/**
 * A parse request resolved once, where it arrives (the synchronous and the background parse alike): its
 * config validated with the defaults filled in, and whether the caller gave OCR options of its own (then an
 * svc:// document is read again with them; otherwise its parsed content is reused). The job stores the config
 * and its stages read it as stored (storedParseConfig), without validating it again.
 */
export interface ParseRequest {
  config: ParseConfig;
  /** the request named `ocr` options (decided on what the caller sent, before the defaults are filled in) */
  ocrGiven: boolean;
}

/** Resolves a parse request's config: a JSON string (multipart fields), an object, or nothing (the defaults). */
export function resolveParseRequest(raw: unknown, where: string): ParseRequest {
  let obj: unknown = raw;
  if (raw === undefined || raw === null || raw === '') obj = {};
  else if (typeof raw === 'string') {
    try {
      obj = JSON.parse(raw);
    } catch {
      throw errors.validation(`Invalid ${where}: must be a JSON object`, [{ field: where, message: 'must be a JSON object' }]);
    }
  }
  const config = parseConfig(obj, where);
  return { config, ocrGiven: typeof obj === 'object' && obj !== null && (obj as { ocr?: unknown }).ocr !== undefined };
}

const DEFAULT_CONFIG: ParseConfig = Object.freeze(parseConfig({}));

/**
 * The config a job or document stores, as it was resolved when the work was submitted (nothing stored: the
 * defaults). Read as it is: it was validated once, on the way in.
 */
export function storedParseConfig(stored: unknown): ParseConfig {
  return stored && typeof stored === 'object' ? (stored as ParseConfig) : DEFAULT_CONFIG;
}

export function chunkOptions(cfg: ParseConfig): ChunkOptions {
  return { strategy: cfg.chunking.strategy, max_chunk_size: cfg.chunking.max_chunk_size, overlap: cfg.chunking.overlap, table_output_format: cfg.formatting.table_output_format };
}

/** Merges a partial config over a base (presets: config merged with defaults). */
export function mergeConfig(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object' ? mergeConfig(base[k] as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

/** What a parse is charged as: agentic OCR (pages OCRed twice, spec §8.3: 3.0 a page) or a standard parse (1.5 a page). */
export function parseOperation(cfg: Pick<ParseConfig, 'ocr'>): 'parse' | 'ocr_agentic' {
  return cfg.ocr.agentic ? 'ocr_agentic' : 'parse';
}
