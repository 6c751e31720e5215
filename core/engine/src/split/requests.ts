/**
 * Split requests (spec §4.7): the bodies of run, analyze, configs and batch, and how a request, its saved
 * config and the defaults make the plan of one split. The server validates bodies with these schemas (the
 * spec's error body on a mismatch) and /openapi.json shows them.
 */
import { z } from 'zod';
import { errors } from '@quire/core';
import type { SplitConfigRecord } from '@quire/core';
import { MAX_SECTIONS, SPLIT_METHODS } from './plan.js';
import type { RequestedSection, SplitMethod, SplitPlanInput } from './plan.js';

const uuid = z.string().uuid();
const pagesField = z.number().int().min(1).max(100_000);

export const SplitSection = z.object({ name: z.string().trim().max(255).optional(), page_start: pagesField, page_end: pagesField }).strict();
const Sections = z.array(SplitSection).max(MAX_SECTIONS, `a split makes at most ${MAX_SECTIONS} sections`);

/** Settings of a split (spec: e.g. minSectionPages, splitMode); snake_case and camelCase spellings are both read. */
export const SplitSettings = z
  .object({
    method: z.enum(SPLIT_METHODS).optional(),
    minSectionPages: pagesField.optional(),
    min_section_pages: pagesField.optional(),
    /** `page` method: pages per section (default 1) */
    pagesPerSection: pagesField.optional(),
    pages_per_section: pagesField.optional(),
    /** a method name (manual, page, ai) used when `method` is not given */
    splitMode: z.string().max(32).optional(),
    /** manual sections may overlap */
    allowOverlap: z.boolean().optional(),
    allow_overlap: z.boolean().optional(),
    preserve_headers: z.boolean().optional(),
  })
  .strict();

export const SplitConfigInline = z.object({ method: z.enum(SPLIT_METHODS).optional(), instructions: z.string().max(10_000).optional(), sections: Sections.optional(), settings: SplitSettings.optional() }).strict();

export const SplitRunBody = z
  .object({
    document_id: uuid.optional(),
    input: z.string().min(1).max(4096).optional(),
    config_id: uuid.optional(),
    config: SplitConfigInline.optional(),
    sections: Sections.optional(),
    skip_analysis: z.boolean().optional(),
    webhook_url: z.string().url().max(2048).optional(),
    organization_id: uuid.optional(),
  })
  .strict();
export type SplitRunRequest = z.infer<typeof SplitRunBody>;

export const SplitAnalyzeBody = z.object({ document_id: uuid.optional(), input: z.string().min(1).max(4096).optional(), config_id: uuid.optional(), config: SplitConfigInline.optional() }).strict();

export const SplitConfigBody = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(5000).nullable().optional(),
    instructions: z.string().max(10_000).nullable().optional(),
    sections: Sections.nullable().optional(),
    settings: SplitSettings.optional(),
    organization_id: uuid.nullable().optional(),
  })
  .strict();
export const SplitConfigPatch = SplitConfigBody.omit({ organization_id: true }).partial().strict();

/** spec §8.2: a split batch is capped at 50 documents. */
export const SPLIT_BATCH_MAX = 50;

export const SplitBatchBody = z
  .object({
    document_ids: z.array(uuid).max(1000).optional(),
    input: z.array(z.string().min(1).max(4096)).max(1000).optional(),
    config_id: uuid.optional(),
    config: SplitConfigInline.optional(),
    webhook_url: z.string().url().max(2048).optional(),
    organization_id: uuid.optional(),
  })
  .strict();

export const SectionPatch = z
  .object({
    label: z.string().max(64, 'label is at most 64 characters').nullable().optional(),
    section_name: z.string().trim().min(1, 'section_name must not be empty').max(255).optional(),
  })
  .strict();

type Inline = z.infer<typeof SplitConfigInline>;
type Settings = z.infer<typeof SplitSettings>;

const isMethod = (m: unknown): m is SplitMethod => typeof m === 'string' && (SPLIT_METHODS as readonly string[]).includes(m);

/**
 * The plan of a split: the inline config wins over the saved one (config_id), which wins over the defaults
 * (method `ai`, or `manual` when sections are given; one page per `page` section; sections at least one page).
 */
export function resolvePlan(req: { config?: Inline; sections?: RequestedSection[]; skip_analysis?: boolean }, saved: SplitConfigRecord | null): SplitPlanInput {
  const inline: Settings = req.config?.settings ?? {};
  const stored = (saved?.settings ?? {}) as Settings;
  const pick = <T>(...xs: (T | undefined | null)[]): T | undefined => xs.find((x) => x !== undefined && x !== null) as T | undefined;
  const sections = pick<RequestedSection[]>(req.sections, req.config?.sections, saved?.sections as RequestedSection[] | null) ?? null;
  const method =
    pick<SplitMethod>(req.config?.method, inline.method, isMethod(inline.splitMode) ? inline.splitMode : undefined, stored.method, isMethod(stored.splitMode) ? stored.splitMode : undefined) ??
    (sections?.length ? 'manual' : 'ai');
  if (method === 'manual' && !sections?.length) throw errors.validation('Method manual needs sections: [{name, page_start, page_end}]', [{ field: 'sections', message: 'required for method manual' }]);
  return {
    method,
    instructions: pick<string>(req.config?.instructions, saved?.instructions) ?? null,
    sections: sections?.length ? sections : null,
    pages_per_section: pick<number>(inline.pagesPerSection, inline.pages_per_section, stored.pagesPerSection, stored.pages_per_section) ?? 1,
    min_section_pages: pick<number>(inline.minSectionPages, inline.min_section_pages, stored.minSectionPages, stored.min_section_pages) ?? 1,
    allow_overlap: pick<boolean>(inline.allowOverlap, inline.allow_overlap, stored.allowOverlap, stored.allow_overlap) ?? false,
    skip_analysis: req.skip_analysis ?? false,
  };
}
