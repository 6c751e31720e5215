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
