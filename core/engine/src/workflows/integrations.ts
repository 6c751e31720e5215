/**
 * Integrations (spec §4.9): where integration steps send. The secret fields of a type (SECRET_FIELDS: a
 * messaging webhook_url, a webhook's url and headers) are kept encrypted in `secrets`; the rest in `config`.
 * The API shows secrets masked (scheme and host of a URL, header names with hidden values), never in full.
 * An email integration sends only to known addresses (checkRecipients), checked when saved and when sent.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { IntegrationRecord, Owned, Store, WorkflowRecord } from '@quire/core';
import type { AuthInfo } from '../accounts/access.js';
import { loadOwned, newOwned } from '../accounts/access.js';
import type { EngineContext as Engine } from '../context.js';
import { SECRET_FIELDS, parseIntegrationConfig } from './definition.js';
import { decryptSecret, encryptSecret, maskUrl, secretsKey } from '../services/secrets.js';
import { urlAllowed } from './send.js';
import { settingsOf } from '../accounts/organizations.js';
import { inScope } from './scope.js';

/** An integration is linked only to a workflow of its own scope (400 otherwise). */
function assertLinkable(owner: Owned, wf: WorkflowRecord): void {
  if (!inScope(owner, wf)) throw errors.validation(`workflow_id: workflow ${wf.id} is not of this integration's ${owner.organization_id ? 'organization' : 'owner (personal resources)'}`, [{ field: 'workflow_id', message: 'another scope' }]);
}

/**
 * The recipients an email integration may have: its owner's own account email; for an organization's, also
 * its members' emails and any address at its allowed_domains. Anything else is 400 naming the address.
 */
export async function checkRecipients(store: Store, owner: Owned, to: string | string[]): Promise<void> {
  const wanted = (Array.isArray(to) ? to : [to]).map((a) => a.trim().toLowerCase());
  const ids = [owner.user_id];
  let domains: string[] = [];
  if (owner.organization_id) {
    ids.push(...(await store.repo('memberships').find({ organization_id: owner.organization_id })).map((m) => m.user_id));
    const org = await store.repo('organizations').get(owner.organization_id);
    domains = org ? settingsOf(org).allowed_domains : [];
  }
  const known = new Set((await store.repo('users').find({ id: [...new Set(ids)] })).map((u) => u.email.toLowerCase()));
  for (const address of wanted) {
    if (known.has(address) || domains.includes(address.slice(address.lastIndexOf('@') + 1))) continue;
    const allowed = owner.organization_id ? "the owner's account email, a member's email of the organization or an address at its allowed_domains" : "the owner's account email";
    throw errors.validation(`config.to: ${address} is not a recipient this integration may send to (${allowed})`, [{ field: 'config.to', message: `${address} is not allowed` }]);
  }
}

/** The full config of an integration, secrets decrypted (for sending only). */
export function integrationConfig(rt: Pick<Engine, 'config' | 'registry'>, row: IntegrationRecord): Record<string, unknown> {
  const secret = row.secrets ? (JSON.parse(decryptSecret(secretsKey(rt), row.secrets)) as Record<string, unknown>) : {};
  return { ...row.config, ...secret };
}

/** The API shape of an integration: secrets masked. */
export function apiIntegration(rt: Pick<Engine, 'config' | 'registry'>, row: IntegrationRecord) {
  const full = integrationConfig(rt, row);
  const shown: Record<string, unknown> = { ...row.config };
  for (const f of SECRET_FIELDS[row.integration_type as keyof typeof SECRET_FIELDS] ?? []) {
    const v = full[f];
    if (v === undefined) continue;
    if (typeof v === 'string') shown[f] = maskUrl(v);
    else if (v && typeof v === 'object') shown[f] = Object.fromEntries(Object.keys(v).map((k) => [k, '****']));
  }
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    name: row.name,
    integration_type: row.integration_type,
    config: shown,
    organization_id: row.organization_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function split(rt: Pick<Engine, 'config' | 'registry'>, type: string, config: Record<string, unknown>): { config: Record<string, unknown>; secrets: string | null } {
  const fields = SECRET_FIELDS[type as keyof typeof SECRET_FIELDS] ?? [];
  const plain: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) (fields.includes(k) ? secret : plain)[k] = v;
  for (const k of ['webhook_url', 'url']) {
    const u = config[k];
    if (typeof u === 'string' && !urlAllowed(u, rt.config.network.allowedHosts)) throw errors.validation(`config.${k} must be an https URL (http only for hosts in QUIRE_ALLOWED_HOSTS)`, [{ field: `config.${k}`, message: 'https required' }]);
  }
  return { config: plain, secrets: Object.keys(secret).length ? encryptSecret(secretsKey(rt), JSON.stringify(secret)) : null };
}

export async function createIntegration(rt: Engine, auth: AuthInfo, body: { workflow_id?: string | null; name: string; integration_type: string; config: Record<string, unknown>; organization_id?: string | null }): Promise<IntegrationRecord> {
  const config = parseIntegrationConfig(body.integration_type, body.config);
  const wf = body.workflow_id ? await loadOwned(rt.store, 'workflows', body.workflow_id, auth, 'write', 'workflow') : null;
  // linked to a workflow, it belongs to the workflow's organization unless one is given
  const owner = newOwned(auth, body.organization_id === undefined && wf ? wf.organization_id : (body.organization_id ?? null));
  if (wf) assertLinkable(owner, wf);
  if (body.integration_type === 'email') await checkRecipients(rt.store, owner, config.to as string | string[]);
  const now = new Date();
  const row: IntegrationRecord = {
    id: randomUUID(),
    ...owner,
    workflow_id: body.workflow_id ?? null,
    name: body.name,
    integration_type: body.integration_type,
    ...split(rt, body.integration_type, config),
    created_at: now,
    updated_at: now,
  };
  await rt.store.repo('integrations').insert(row);
  return row;
}

/** Updates an integration; a config given is merged over the current one (secrets left out stay as they are). */
export async function updateIntegration(rt: Engine, auth: AuthInfo, id: string, patch: { workflow_id?: string | null; name?: string; config?: Record<string, unknown> }): Promise<IntegrationRecord> {
  const row = await loadOwned(rt.store, 'integrations', id, auth, 'write', 'integration');
  if (patch.workflow_id) assertLinkable(row, await loadOwned(rt.store, 'workflows', patch.workflow_id, auth, 'write', 'workflow'));
  const next: Partial<IntegrationRecord> = { updated_at: new Date() };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.workflow_id !== undefined) next.workflow_id = patch.workflow_id;
  if (patch.config) {
    const config = parseIntegrationConfig(row.integration_type, { ...integrationConfig(rt, row), ...patch.config });
    if (row.integration_type === 'email') await checkRecipients(rt.store, row, config.to as string | string[]);
    Object.assign(next, split(rt, row.integration_type, config));
  }
  await rt.store.repo('integrations').update(id, next);
  return { ...row, ...next };
}
