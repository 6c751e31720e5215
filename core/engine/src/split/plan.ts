/**
 * The sections of a split, by method: `manual` (the given ranges, checked), `page` (every N pages) and `ai`
 * (boundaries found by the splitter plugin, names and types refined by the llm plugin when one is set).
 */
import { errors, isAsideBlock } from '@quire/core';
import type { LlmPlugin, ParsedDocument, SplitSuggestion } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';

export const SPLIT_METHODS = ['manual', 'page', 'ai'] as const;
export type SplitMethod = (typeof SPLIT_METHODS)[number];

/** spec §2.2 section_type: manual ranges are `custom`, page counts `page`, detected boundaries `detected`. */
export const SECTION_TYPE: Record<SplitMethod, string> = { manual: 'custom', page: 'page', ai: 'detected' };

export interface RequestedSection {
  name?: string;
  page_start: number;
  page_end: number;
}

/** What decides the sections of one split (request, saved config and defaults merged). */
export interface SplitPlanInput {
  method: SplitMethod;
  instructions: string | null;
  sections: RequestedSection[] | null;
  /** pages per section for `page` */
  pages_per_section: number;
  min_section_pages: number;
  allow_overlap: boolean;
  /** sections used as given, without boundary detection or model refinement */
  skip_analysis: boolean;
}

export interface PlannedSection {
  name: string;
  page_start: number;
  page_end: number;
  confidence: number;
  section_type: string;
  reason: string | null;
  document_type: string | null;
  /** 0..1, for detected sections (null for sections given or cut by page count) */
  document_type_confidence?: number | null;
  signals: string[];
}

/** The document types of detected sections; a model's answer outside them is `other`. */
export const SECTION_DOCUMENT_TYPES = ['invoice', 'receipt', 'form', 'letter', 'report', 'statement', 'contract', 'article', 'other'];

/** At most this many sections (child documents) in one split. */
export const MAX_SECTIONS = 200;
/**
 * The pages of a split's sections together are at most this many times the document's: every section is a
 * new stored PDF and parsed content, so overlapping sections would otherwise multiply the storage a small
 * file takes without bound.
 */
export const MAX_OUTPUT_PAGES_FACTOR = 2;

/** Refuses sections whose pages together exceed MAX_OUTPUT_PAGES_FACTOR × the document's pages. */
export function checkOutputPages(sections: Pick<RequestedSection, 'page_start' | 'page_end'>[], pages: number, field = 'sections'): void {
  const total = sections.reduce((n, s) => n + Math.max(0, s.page_end - s.page_start + 1), 0);
  const max = MAX_OUTPUT_PAGES_FACTOR * pages;
  if (total > max) {
    const message = `the sections hold ${total} pages in all; a split of a ${pages}-page document writes at most ${max} (${MAX_OUTPUT_PAGES_FACTOR} × its pages)`;
    throw errors.validation(`${field}: ${message}`, [{ field, message }]);
  }
}

/**
 * Checks manual sections against the page count: each range inside 1..pages with start ≤ end, no two
 * overlapping unless allowed, and (pages known) at most MAX_OUTPUT_PAGES_FACTOR × pages in all. Errors
 * name the section (sections.<i>) in the spec's error body.
 */
export function checkManualSections(sections: RequestedSection[], pages: number | null, allowOverlap: boolean, field = 'sections'): void {
  const bad = (i: number, message: string) => errors.validation(`${field}.${i}: ${message}`, [{ field: `${field}.${i}`, message }]);
  if (sections.length > MAX_SECTIONS) throw errors.validation(`${field}: a split makes at most ${MAX_SECTIONS} sections; ${sections.length} were given`, [{ field, message: `at most ${MAX_SECTIONS} sections` }]);
  sections.forEach((s, i) => {
    if (s.page_start > s.page_end) throw bad(i, `page_start ${s.page_start} is after page_end ${s.page_end}`);
    if (pages !== null && s.page_end > pages) throw bad(i, `page_end ${s.page_end} is beyond the document's ${pages} page${pages === 1 ? '' : 's'}`);
  });
  if (pages !== null) checkOutputPages(sections, pages, field);
  if (allowOverlap) return;
  const order = sections.map((s, i) => ({ ...s, i })).sort((a, b) => a.page_start - b.page_start);
  for (let k = 1; k < order.length; k++) {
    const a = order[k - 1]!;
    const b = order[k]!;
    if (b.page_start <= a.page_end) throw bad(b.i, `pages ${b.page_start}-${b.page_end} overlap section ${a.i} (pages ${a.page_start}-${a.page_end}); set settings.allowOverlap to allow it`);
  }
}

/** Every N pages: sections [1..N], [N+1..2N], ... */
export function pageSections(pages: number, perSection: number): PlannedSection[] {
  const out: PlannedSection[] = [];
  for (let start = 1, i = 1; start <= pages; start += perSection, i++) {
    const end = Math.min(pages, start + perSection - 1);
    out.push({ name: start === end ? `Page ${start}` : `Pages ${start}-${end}`, page_start: start, page_end: end, confidence: 1, section_type: 'page', reason: `every ${perSection} page${perSection === 1 ? '' : 's'}`, document_type: null, signals: [] });
  }
  return out;
}

/** Sections of a parsed document by the plan's method (at most MAX_SECTIONS, MAX_OUTPUT_PAGES_FACTOR × its pages in all). */
export async function planSections(rt: Engine, doc: ParsedDocument, plan: SplitPlanInput, signal?: AbortSignal): Promise<PlannedSection[]> {
  const sections = await sectionsByMethod(rt, doc, plan, signal);
  if (sections.length > MAX_SECTIONS) throw errors.validation(`A split makes at most ${MAX_SECTIONS} sections; this one would make ${sections.length} (use more pages per section)`, [{ field: 'config.settings.pagesPerSection', message: `at most ${MAX_SECTIONS} sections` }]);
  checkOutputPages(sections, doc.pages.length);
  return sections;
}

async function sectionsByMethod(rt: Engine, doc: ParsedDocument, plan: SplitPlanInput, signal?: AbortSignal): Promise<PlannedSection[]> {
  const pages = doc.pages.length;
  if (!pages) throw errors.validation('The document has no pages to split');
  if (plan.method === 'manual' || (plan.skip_analysis && plan.sections?.length)) {
    const given = plan.sections ?? [];
    if (!given.length) throw errors.validation('Method manual needs sections: [{name, page_start, page_end}]', [{ field: 'sections', message: 'required for method manual' }]);
    checkManualSections(given, pages, plan.allow_overlap);
    return given.map((s, i) => ({ name: s.name?.trim() || `Section ${i + 1}`, page_start: s.page_start, page_end: s.page_end, confidence: 1, section_type: 'custom', reason: 'given', document_type: null, signals: [] }));
  }
  if (plan.method === 'page' || plan.skip_analysis) return pageSections(pages, plan.method === 'page' ? plan.pages_per_section : pages);
  const splitter = rt.registry.get('splitter');
  const suggested = await splitter.detect(doc, { instructions: plan.instructions ?? undefined, minSectionPages: plan.min_section_pages, signal });
  const planned = suggested.map((s) => fromSuggestion(s));
  const llm = rt.registry.tryGet('llm');
  if (llm && planned.length) await refineWithModel(rt, llm, doc, planned, plan.instructions, signal);
  return planned;
}

function fromSuggestion(s: SplitSuggestion): PlannedSection {
  return { name: s.name, page_start: s.page_start, page_end: s.page_end, confidence: s.confidence, section_type: 'detected', reason: s.reason, document_type: s.document_type ?? null, document_type_confidence: s.document_type_confidence ?? null, signals: s.signals ?? [] };
}

/**
 * With a model configured, names and document types of the detected sections are refined from the first
 * lines of each section (the boundaries stay the detector's: they are what the figures of bench/split.ts
 * measure). A model failure keeps the offline names.
 */
async function refineWithModel(rt: Engine, llm: LlmPlugin, doc: ParsedDocument, sections: PlannedSection[], instructions: string | null, signal?: AbortSignal): Promise<void> {
  const excerpt = (s: PlannedSection) =>
    doc.blocks
      // page furniture (running heads, footers, page numbers) and a figure's labels say nothing of what a section is
      .filter((b) => b.page >= s.page_start && b.page <= s.page_end && !isAsideBlock(b))
      .map((b) => b.text)
      .join('\n')
      .slice(0, 600);
  try {
    const res = await llm.complete({
      messages: [
        { role: 'system', content: 'You name the documents found in a scanned or combined file. For each section give a short descriptive name (at most 60 characters) and its document type (one of: invoice, receipt, form, letter, report, statement, contract, article, other). Answer in JSON.' },
        { role: 'user', content: `${instructions ? `Instructions: ${instructions}\n\n` : ''}${sections.map((s, i) => `Section ${i} (pages ${s.page_start}-${s.page_end}):\n${excerpt(s)}`).join('\n\n')}` },
      ],
      jsonSchema: {
        name: 'sections',
        schema: { type: 'object', properties: { sections: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, name: { type: 'string' }, document_type: { type: 'string' } }, required: ['index', 'name', 'document_type'] } } }, required: ['sections'] },
      },
      temperature: 0,
      maxTokens: 800,
      signal,
    });
    const parsed = JSON.parse(res.content) as { sections?: { index?: number; name?: string; document_type?: string }[] };
    for (const r of parsed.sections ?? []) {
      const s = typeof r.index === 'number' ? sections[r.index] : undefined;
      if (!s) continue;
      if (typeof r.name === 'string' && r.name.trim()) s.name = r.name.trim().slice(0, 120);
      if (typeof r.document_type === 'string' && r.document_type.trim()) {
        const t = r.document_type.trim().toLowerCase();
        const type = SECTION_DOCUMENT_TYPES.includes(t) ? t : 'other';
        // the model's type replaces the detector's; the detector's confidence stands when both agree
        if (type !== s.document_type) s.document_type_confidence = 0.8;
        s.document_type = type;
      }
    }
  } catch (e) {
    rt.logger.warn({ err: (e as Error).message }, 'split: the model could not refine section names; the offline names are kept');
  }
}
