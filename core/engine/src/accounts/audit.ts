/**
 * The audit log (spec §4.11, §8.4): who did what to which resource, when. Privacy actions (consent changes,
 * exports, deletion requests, profile access and changes), API key changes, role and membership changes and
 * deletions are recorded here. Entries are kept 3 years (the retention job prunes older ones); when an
 * account is deleted its entries stay, anonymised (anonymiseAudit).
 */
import { randomUUID } from 'node:crypto';
import type { AuditLogRecord, Store } from '@quire/core';

/** The actor of every entry whose user was deleted. */
export const ANONYMOUS_ACTOR = '00000000-0000-0000-0000-000000000000';

export interface AuditEntry {
  /** who acted (the user id) */
  actor: string;
  organization_id?: string | null;
  /** dotted name, e.g. api_key.created, organization.member.role_changed, gdpr.export.requested */
  action: string;
  target_type: string;
  target_id?: string | null;
  /** what changed (never secrets) */
  details?: Record<string, unknown> | null;
  ip?: string | null;
}

/** Appends one entry. */
export async function recordAudit(store: Store, e: AuditEntry): Promise<AuditLogRecord> {
  const row: AuditLogRecord = {
    id: randomUUID(),
    user_id: e.actor,
    organization_id: e.organization_id ?? null,
    action: e.action.slice(0, 64),
    target_type: e.target_type.slice(0, 32),
    target_id: e.target_id ?? null,
    details: e.details ?? null,
    ip: e.ip ?? null,
    created_at: new Date(),
  };
  return store.repo('audit_log').insert(row);
}

/** The entries of a user (as actor), newest first. */
export async function auditOf(store: Store, userId: string, limit = 1000): Promise<AuditLogRecord[]> {
  return store.repo('audit_log').find({ user_id: userId }, { order: { created_at: 'DESC' }, limit });
}

/**
 * After an account deletion: the user's entries stay (the log must keep them) with the actor replaced by
 * ANONYMOUS_ACTOR and the personal details (ip, details) removed; entries about the user (as their target:
 * added to an organization, role changed...) name ANONYMOUS_ACTOR instead. Returns how many were anonymised.
 */
export async function anonymiseAudit(store: Store, userId: string): Promise<number> {
  const repo = store.repo('audit_log');
  return (await repo.update({ user_id: userId }, { user_id: ANONYMOUS_ACTOR, ip: null, details: { anonymised: true } })) + (await repo.update({ target_id: userId }, { target_id: ANONYMOUS_ACTOR }));
}
