import type { z } from 'zod';
import { errors } from '@quire/core';

/** Formats zod issues into the details of a VALIDATION_ERROR: one entry per problem, naming the field. */
export function zodDetails(error: z.ZodError, where: string): { field: string; message: string }[] {
  return error.issues.map((i) => ({ field: [where, ...i.path.map(String)].filter(Boolean).join('.'), message: i.message }));
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const details = zodDetails(r.error, where);
    throw errors.validation(`Invalid ${where}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  }
  return r.data;
}

/** How deep the blocks of a handlebars template may nest ({{#each}} in {{#if}}…; each {{else if}} is one more). */
export const MAX_TEMPLATE_NESTING = 50;

/** `{{#`, `{{^`, `{{/`, `{{else`, `{{{{` (raw blocks) and whether the mustache ends right there (`{{^}}`, `{{else}}`) */
const BLOCK_TOKEN = /\{\{(\{\{)?~?\s*(#|\^|\/|else(?=[\s~}]))?(\s*~?\}\})?/g;

/**
 * Refuses (VALIDATION_ERROR naming `field`) a handlebars template whose blocks nest deeper than
 * MAX_TEMPLATE_NESTING, before it is parsed: Handlebars parses nested blocks in time quadratic in their depth
 * (4,000 nested {{#each}} or 5,000 chained {{else if}} take seconds of the event loop). A linear scan of the
 * mustaches; a raw block's content counts as if it were parsed (deeper, never shallower).
 */
export function checkTemplateNesting(source: string, field: string): void {
  // per open block, the levels it holds: 1, and one more for each {{else if …}} chained to it
  const open: number[] = [];
  let depth = 0;
  for (const m of source.matchAll(BLOCK_TOKEN)) {
    const [, raw, kind, closed] = m;
    if (kind === '/') depth -= open.pop() ?? 0;
    else if ((raw && !kind) || kind === '#' || (kind === '^' && !closed)) {
      open.push(1);
      depth++;
    } else if (kind === 'else' && !closed && open.length) {
      open[open.length - 1]!++;
      depth++;
    }
    if (depth > MAX_TEMPLATE_NESTING) throw errors.validation(`${field}: blocks nest more than ${MAX_TEMPLATE_NESTING} deep`, [{ field, message: `blocks nest more than ${MAX_TEMPLATE_NESTING} deep` }]);
  }
}

/** A UUID: the shape of every record id (a request naming another id finds nothing). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
