/**
 * Integrations (spec §4.9): saved targets of integration steps. Each type sends with an integration plugin
 * (INTEGRATION_PLUGINS: messaging → integration:slack, webhook → integration:http, email → integration:email),
 * whose `target` schema checks the config and whose `secretFields` (a messaging webhook_url, a webhook's url,
 * headers and secret) are kept encrypted in `secrets`; the rest in `config`. The API shows secrets masked
 * (scheme and host of a URL, header names with hidden values), never in full. A plugin that sends to addresses
 * (email) sends only to known ones (checkRecipients), checked when saved and when sent.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '@quire/core';
import type { IntegrationPlugin, IntegrationRecord, Owned, Store, WorkflowRecord } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import { loadOwned, newOwned } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { INTEGRATION_PLUGINS } from './definition.js';
import { decryptSecret, encryptSecret, maskUrl, secretsKey } from '../infra/secrets.js';
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

/** The integration plugin `name` (400 naming the field when none is loaded). */
export function integrationPlugin(rt: Pick<Engine, 'registry'>, name: string, field = 'plugin'): IntegrationPlugin {
  const found = rt.registry.tryGet('integration', name);
  if (!found) throw errors.validation(`${field}: no integration plugin "${name}"; loaded: ${rt.registry.names('integration').join(', ') || '(none)'}`, [{ field, message: 'unknown plugin' }]);
  return found;
}

/** The plugin an integration type sends with. */
export const pluginOfType = (rt: Pick<Engine, 'registry'>, type: string): IntegrationPlugin => integrationPlugin(rt, INTEGRATION_PLUGINS[type as keyof typeof INTEGRATION_PLUGINS] ?? type, 'integration_type');

/** A target checked by its plugin's schema (400 naming each field at fault under `prefix`); as given when the plugin has none. */
export function parseTarget(plugin: IntegrationPlugin, config: unknown, what: string, prefix = 'config'): Record<string, unknown> {
  if (!plugin.target) return { ...((config as Record<string, unknown>) ?? {}) };
  const r = plugin.target.safeParse(config ?? {});
  if (!r.success) {
    const details = r.error.issues.map((i) => ({ field: [prefix, ...i.path.map(String), ...(i.code === 'unrecognized_keys' ? [i.keys.join(',')] : [])].join('.'), message: i.message }));
    throw errors.validation(`Invalid config of ${what}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  }
  return r.data;
}

/** Validates an integration's config for its type (400 with the field at fault). */
export function parseIntegrationConfig(rt: Pick<Engine, 'registry'>, type: string, config: unknown): Record<string, unknown> {
  return parseTarget(pluginOfType(rt, type), config, `a ${type} integration`);
}

/**
 * A target written in a workflow step may not hold the plugin's secret fields (a definition is stored and shown
 * in clear): those go in a saved integration, encrypted, named by integration_id (400 naming the field).
 */
export function checkNoSecrets(plugin: IntegrationPlugin, given: Record<string, unknown>, what: string, prefix = 'config'): void {
  const secret = (plugin.secretFields ?? []).find((f) => given[f] !== undefined);
  if (secret) throw errors.validation(`${prefix}.${secret}: ${what} keeps ${secret} secret: save the target as an integration (POST /api/workflows/integrations) and give its integration_id`, [{ field: `${prefix}.${secret}`, message: 'secret field' }]);
}

/** The recipients a target sends to, checked against the owner's (the plugin says which they are). */
export async function checkTargetRecipients(store: Store, owner: Owned, plugin: IntegrationPlugin, target: Record<string, unknown>): Promise<void> {
  if (plugin.recipients) await checkRecipients(store, owner, plugin.recipients(target));
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
  // the plugin's secret fields, and whatever was stored encrypted (by a plugin of this type loaded before)
  const stored = row.secrets ? Object.keys(JSON.parse(decryptSecret(secretsKey(rt), row.secrets)) as object) : [];
  for (const f of new Set([...(rt.registry.tryGet('integration', INTEGRATION_PLUGINS[row.integration_type as keyof typeof INTEGRATION_PLUGINS])?.secretFields ?? []), ...stored])) {
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
  const fields = pluginOfType(rt, type).secretFields ?? [];
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
  const config = parseIntegrationConfig(rt, body.integration_type, body.config);
  const wf = body.workflow_id ? await loadOwned(rt.store, 'workflows', body.workflow_id, auth, 'write', 'workflow') : null;
  // linked to a workflow, it belongs to the workflow's organization unless one is given
  const owner = newOwned(auth, body.organization_id === undefined && wf ? wf.organization_id : (body.organization_id ?? null));
  if (wf) assertLinkable(owner, wf);
  await checkTargetRecipients(rt.store, owner, pluginOfType(rt, body.integration_type), config);
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
    const config = parseIntegrationConfig(rt, row.integration_type, { ...integrationConfig(rt, row), ...patch.config });
    await checkTargetRecipients(rt.store, row, pluginOfType(rt, row.integration_type), config);
    Object.assign(next, split(rt, row.integration_type, config));
  }
  await rt.store.repo('integrations').update(id, next);
  return { ...row, ...next };
}

/** Whether the host sends email (an SMTP host is set for the email integration: QUIRE_SMTP_HOST). */
export function emailConfigured(rt: Pick<Engine, 'config' | 'registry'>): boolean {
  return !!rt.config.plugins.options['integration:email']?.host && rt.registry.has('integration', 'email');
}

/** Sends one of the host's own emails (a notice to a user) with the email integration. */
export async function sendNotice(rt: Pick<Engine, 'registry'>, mail: { to: string; subject: string; text: string }): Promise<void> {
  await integrationPlugin(rt, 'email').send({ target: { to: mail.to }, message: { body: mail.text, subject: mail.subject } });
}
