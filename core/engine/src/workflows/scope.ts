/**
 * The scope of a workflow: an organization's workflow works on that organization's resources only, a
 * personal workflow on its owner's personal resources only (those of no organization), whoever created,
 * edits or triggers it. Events trigger workflows of their own scope (personal → personal, organization →
 * organization, as webhook subscriptions do), and an organization's workflow runs only while its creator is
 * still a member. The resources a workflow names (documents, schemas, integrations, knowledge bases in step
 * configs, trigger filters and trigger data) are checked against its scope and the rights of whoever edits
 * or runs it; a step checks again when it runs (the data may have changed underneath).
 */
import { errors } from '@quire/core';
import type { Owned, SchemaRecord, Store, Where } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import { canRead } from '../infra/access.js';
import { UUID, canReadSchema } from '../extraction/fields.js';
import type { TriggerConfig, WorkflowDefinition } from './definition.js';

export type Scope = Owned;

export const scopeOf = (r: Owned): Scope => ({ user_id: r.user_id, organization_id: r.organization_id ?? null });

/** Whether a resource belongs to the scope (an organization's, or the owner's personal one). */
export function inScope(scope: Scope, r: Owned): boolean {
  return scope.organization_id ? r.organization_id === scope.organization_id : !r.organization_id && r.user_id === scope.user_id;
}

/** The rows of a scope, as a store filter: the organization's, else the user's personal ones. */
export const scopeWhere = (scope: Scope): Where<Scope> => (scope.organization_id ? { organization_id: scope.organization_id } : { user_id: scope.user_id, organization_id: null });

/**
 * The workflows an event of this owner may trigger, as a filter of the workflows table (personal →
 * personal, organization → organization); null when the event has no owner.
 */
export const eventScope = (event: { user_id?: string | null; organization_id?: string | null }): Where<Scope> | null =>
  event.organization_id || event.user_id ? scopeWhere({ user_id: event.user_id ?? '', organization_id: event.organization_id ?? null }) : null;

/** The creators among `userIds` that are members of the organization now. */
export async function currentMembers(store: Store, organizationId: string, userIds: string[]): Promise<Set<string>> {
  if (!userIds.length) return new Set();
  return new Set((await store.repo('memberships').find({ organization_id: organizationId, user_id: [...new Set(userIds)] })).map((m) => m.user_id));
}

type RefTable = 'documents' | 'schemas' | 'integrations' | 'collections';
/** A resource a workflow names: where (the API field), what and which. */
export interface Reference {
  field: string;
  table: RefTable;
  id: string;
}

const WHAT: Record<RefTable, string> = { documents: 'document', schemas: 'schema', integrations: 'integration', collections: 'knowledge base' };
/** Fields of trigger filters and trigger data that name a resource. */
const NAMED: Record<string, RefTable> = { document_id: 'documents', schema_id: 'schemas', integration_id: 'integrations', knowledge_base_id: 'collections', collection_id: 'collections' };

const literal = (v: unknown): v is string => typeof v === 'string' && !!v && !v.includes('{{');

/** The resources named by a definition's steps and an event trigger's filters (templated ids are checked when they run). */
export function definitionReferences(def: WorkflowDefinition, trigger: TriggerConfig): Reference[] {
  const out: Reference[] = [];
  def.steps.forEach((s, i) => {
    const at = `definition.steps.${i}.config`;
    if ((s.type === 'parse' || s.type === 'extract') && literal(s.config.document_id)) out.push({ field: `${at}.document_id`, table: 'documents', id: s.config.document_id });
    if (s.type === 'extract' && UUID.test(s.config.schema_id)) out.push({ field: `${at}.schema_id`, table: 'schemas', id: s.config.schema_id });
    if (s.type === 'integration') out.push({ field: `${at}.integration_id`, table: 'integrations', id: s.config.integration_id });
    if (s.type === 'plugin' && s.config.integration_id) out.push({ field: `${at}.integration_id`, table: 'integrations', id: s.config.integration_id });
    if (s.type === 'plugin' && literal(s.config.document_id)) out.push({ field: `${at}.document_id`, table: 'documents', id: s.config.document_id as string });
  });
  return [...out, ...triggerReferences(trigger, 'trigger_config')];
}

/** The resources a trigger's config names: an event trigger's filters, a schedule's input. */
export function triggerReferences(trigger: TriggerConfig, prefix: string): Reference[] {
  return [...namedIn(trigger.filters ?? {}, `${prefix}.filters`), ...namedIn(trigger.input ?? {}, `${prefix}.input`)];
}

/**
 * The resources named by the fields of an object (trigger data, filters) that hold ids: UUIDs only (a
 * prebuilt schema's name, or another system's own id in a webhook's body, names nothing here).
 */
export function namedIn(data: Record<string, unknown>, prefix: string): Reference[] {
  const out: Reference[] = [];
  for (const [key, table] of Object.entries(NAMED)) {
    const v = data[key];
    for (const [j, id] of (Array.isArray(v) ? v : [v]).entries()) if (typeof id === 'string' && UUID.test(id)) out.push({ field: Array.isArray(v) ? `${prefix}.${key}.${j}` : `${prefix}.${key}`, table, id });
  }
  return out;
}

/**
 * Throws 400 naming the field when a reference is not of the scope or, with `auth`, not readable by the
 * caller (someone else's resource reads as missing).
 */
export async function checkReferences(store: Store, scope: Scope, auth: AuthInfo | null, refs: Reference[]): Promise<void> {
  for (const r of refs) {
    const row = (await store.repo(r.table).get(r.id)) as (Owned & { is_shared?: boolean }) | null;
    const readable = !!row && (!auth || (r.table === 'schemas' ? canReadSchema(auth, row as SchemaRecord) : canRead(auth, row)));
    if (!row || !readable || !inScope(scope, row)) {
      const where = scope.organization_id ? "this workflow's organization" : "this workflow's owner (personal resources)";
      throw errors.validation(`${r.field}: no ${WHAT[r.table]} ${r.id} of ${where}`, [{ field: r.field, message: 'not found' }]);
    }
  }
}
