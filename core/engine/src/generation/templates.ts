/**
 * Saved generation templates (spec §2.2 "Generation template", §4.6 templates CRUD). Who may read one:
 * its creator, or a member of its organization when it is shared there (is_shared), as with extraction
 * schemas; someone else's template is a 404, a viewer's change a 403.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { GenerationTemplateRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import type { AuthInfo } from '../infra/access.js';
import { canRead, canWrite, newOwned } from '../infra/access.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** longest template_prompt (a template is text, not a document) */
export const MAX_TEMPLATE_CHARS = 200_000;

const templateFields = {
  name: z.string().trim().min(1, 'name is required').max(255),
  description: z.string().max(5000).nullable().optional(),
  template_prompt: z.string().trim().min(1, 'template_prompt is required').max(MAX_TEMPLATE_CHARS).describe('a handlebars template (markdown with {{field}} placeholders) or a plain instruction'),
  output_format: z.string().trim().min(1).max(32).describe('pdf, docx, markdown, html (or a format of an added generator plugin)'),
  settings: z.record(z.string(), z.unknown()).optional(),
  is_shared: z.boolean().optional(),
};
export const TemplateBody = z
  .object({ ...templateFields, output_format: templateFields.output_format.default('pdf'), organization_id: z.string().uuid().nullable().optional() })
  .strict();
/** A partial update: what it does not name is kept (no defaults: output_format stays as stored). */
export const TemplatePatch = z.object(templateFields).partial().strict();
export type TemplateInput = z.infer<typeof TemplateBody>;

function canReadTemplate(auth: AuthInfo, t: GenerationTemplateRecord): boolean {
  return (t.user_id === auth.user.id || t.is_shared) && canRead(auth, t);
}

export async function loadTemplate(rt: Engine, auth: AuthInfo, id: string, mode: 'read' | 'write'): Promise<GenerationTemplateRecord> {
  const row = UUID.test(id) ? await rt.store.repo('generation_templates').get(id) : null;
  if (!row || !canReadTemplate(auth, row)) throw errors.notFound('template', id);
  if (mode === 'write' && !canWrite(auth, row)) throw errors.forbidden('You cannot change this template');
  return row;
}

/** The caller's templates and those shared in their organizations, newest first. */
export async function readableTemplates(rt: Engine, auth: AuthInfo): Promise<GenerationTemplateRecord[]> {
  const repo = rt.store.repo('generation_templates');
  const orgs = auth.memberships.map((m) => m.organization_id);
  const [own, shared] = await Promise.all([repo.find({ user_id: auth.user.id }), orgs.length ? repo.find({ organization_id: orgs, is_shared: true }) : Promise.resolve([])]);
  const seen = new Set<string>();
  return [...own, ...shared].filter((t) => canReadTemplate(auth, t) && (seen.has(t.id) ? false : (seen.add(t.id), true))).sort((a, b) => b.created_at.getTime() - a.created_at.getTime());
}

/** spec §2.2 Generation template, plus organization_id and updated_at. */
export function apiTemplate(t: GenerationTemplateRecord) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    template_prompt: t.template_prompt,
    output_format: t.output_format,
    settings: t.settings ?? {},
    is_shared: t.is_shared,
    organization_id: t.organization_id,
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
  };
}

function checkShared(isShared: boolean, organizationId: string | null): void {
  if (isShared && !organizationId) throw errors.validation('is_shared needs organization_id: a template is shared with the members of its organization', [{ field: 'organization_id', message: 'required when is_shared is true' }]);
}

export async function createTemplate(rt: Engine, auth: AuthInfo, body: TemplateInput, check: (t: { template_prompt: string; output_format: string }) => void): Promise<GenerationTemplateRecord> {
  checkShared(!!body.is_shared, body.organization_id ?? null);
  check(body);
  const now = new Date();
  const row: GenerationTemplateRecord = {
    id: randomUUID(),
    ...newOwned(auth, body.organization_id ?? null),
    name: body.name,
    description: body.description ?? null,
    template_prompt: body.template_prompt,
    output_format: body.output_format,
    settings: body.settings ?? {},
    is_shared: body.is_shared ?? false,
    created_at: now,
    updated_at: now,
  };
  await rt.store.repo('generation_templates').insert(row);
  return row;
}

export async function updateTemplate(rt: Engine, auth: AuthInfo, id: string, patch: z.infer<typeof TemplatePatch>, check: (t: { template_prompt: string; output_format: string }) => void): Promise<GenerationTemplateRecord> {
  const row = await loadTemplate(rt, auth, id, 'write');
  const next: GenerationTemplateRecord = {
    ...row,
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.description !== undefined ? { description: patch.description ?? null } : {}),
    ...(patch.template_prompt !== undefined ? { template_prompt: patch.template_prompt } : {}),
    ...(patch.output_format !== undefined ? { output_format: patch.output_format } : {}),
    ...(patch.settings !== undefined ? { settings: patch.settings } : {}),
    ...(patch.is_shared !== undefined ? { is_shared: patch.is_shared } : {}),
    updated_at: new Date(),
  };
  checkShared(next.is_shared, next.organization_id);
  check(next);
  const { id: _id, user_id: _u, organization_id: _o, created_at: _c, ...changes } = next;
  await rt.store.repo('generation_templates').update(id, changes);
  return next;
}

export async function deleteTemplate(rt: Engine, auth: AuthInfo, id: string): Promise<void> {
  await loadTemplate(rt, auth, id, 'write');
  await rt.store.repo('generation_templates').delete(id);
}
