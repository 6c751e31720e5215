/** Parse presets: a named, validated parse config of a user or of an organization. */
import { randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { PresetRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { canRead } from '../infra/access.js';
import type { AuthInfo } from '../infra/access.js';
import { mergeConfig, parseConfig } from '../io/parse-config.js';

/** Config is merged with the defaults and validated; what is stored is the full, valid config. */
function fullConfig(base: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  return parseConfig(mergeConfig(base, patch ?? {}), 'config') as unknown as Record<string, unknown>;
}

/** The presets a caller may read: their own (scope user), their organizations' (or one named: 404 when not theirs), newest first. */
export async function listPresets(rt: Engine, auth: AuthInfo, scope: 'user' | 'organization' | 'all', organizationId?: string): Promise<PresetRecord[]> {
  const repo = rt.store.repo('presets');
  const rows: PresetRecord[] = [];
  if (scope !== 'organization') rows.push(...(await repo.find({ user_id: auth.user.id, scope: 'user' }, { order: { created_at: 'DESC' } })));
  if (scope !== 'user') {
    if (organizationId && !auth.memberships.some((m) => m.organization_id === organizationId)) throw errors.notFound('organization', organizationId);
    const orgs = organizationId ? [organizationId] : auth.memberships.map((m) => m.organization_id);
    if (orgs.length) rows.push(...(await repo.find({ organization_id: orgs, scope: 'organization' }, { order: { created_at: 'DESC' } })));
  }
  return rows.filter((r) => canRead(auth, r));
}

export async function createPreset(rt: Engine, userId: string, fields: { organization_id: string | null; name: string; description?: string; config?: Record<string, unknown>; scope: 'user' | 'organization' }): Promise<PresetRecord> {
  const now = new Date();
  return rt.store.repo('presets').insert({ id: randomUUID(), user_id: userId, organization_id: fields.organization_id, name: fields.name, description: fields.description ?? null, config: fullConfig({}, fields.config), scope: fields.scope, created_at: now, updated_at: now });
}

/** Changes a preset; a config given is merged over the stored one and validated. */
export async function updatePreset(rt: Engine, row: PresetRecord, change: { name?: string; description?: string | null; config?: Record<string, unknown> }): Promise<PresetRecord> {
  const patch: Partial<PresetRecord> = { updated_at: new Date() };
  if (change.name !== undefined) patch.name = change.name;
  if (change.description !== undefined) patch.description = change.description;
  if (change.config !== undefined) patch.config = fullConfig(row.config, change.config);
  await rt.store.repo('presets').update(row.id, patch);
  return { ...row, ...patch };
}

export async function deletePreset(rt: Engine, row: PresetRecord): Promise<void> {
  await rt.store.repo('presets').delete(row.id);
}
