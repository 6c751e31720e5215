import { errors } from '@quire/core';
import type { ApiKeyRecord, Owned, Role, SessionRecord, Store, TableName, Tables, UserRecord } from '@quire/core';

/** Who a request or a background job acts as: the user, the API key used (none for background work), the user's organizations. */
export interface AuthInfo {
  user: UserRecord;
  /** the API key of the request; null for work the engine runs on the user's behalf (batches, workflows) */
  key: ApiKeyRecord | null;
  /** organizations the user belongs to, with roles */
  memberships: { organization_id: string; role: 'owner' | 'admin' | 'member' | 'viewer' }[];
  /** the browser session of a request signed in with the session cookie (then `key` is null) */
  session?: SessionRecord | null;
  /**
   * organizations the user belongs to that require two-factor authentication the user has not turned on:
   * they are left out of `memberships` (so they grant nothing) and their resources answer 403 saying why
   */
  locked?: string[];
}

/** The message of every refusal for an organization whose `require_2fa` the caller does not meet. */
export const TWO_FACTOR_REQUIRED = 'This organization requires two-factor authentication: turn it on (POST /api/user/2fa/enroll, then /api/user/2fa/verify) to use its resources';

/**
 * The memberships a user acts with, loaded in this one place for requests (key or session) and background
 * work alike. An organization with `require_2fa` whose member has no enabled TOTP second factor is moved
 * to `locked`: its resources are refused (403) until the member turns 2FA on.
 */
export async function membershipsOf(store: Store, userId: string): Promise<Pick<AuthInfo, 'memberships' | 'locked'>> {
  const rows = await store.repo('memberships').find({ user_id: userId });
  if (!rows.length) return { memberships: [], locked: [] };
  const strict = (await store.repo('organizations').find({ id: rows.map((m) => m.organization_id) })).filter((o) => (o.settings as { require_2fa?: unknown } | null)?.require_2fa === true);
  const has2fa = strict.length ? !!(await store.repo('user_totp').findOne({ user_id: userId }))?.enabled_at : true;
  const lockedIds = new Set(has2fa ? [] : strict.map((o) => o.id));
  return {
    memberships: rows.filter((m) => !lockedIds.has(m.organization_id)).map((m) => ({ organization_id: m.organization_id, role: m.role })),
    locked: [...lockedIds],
  };
}

/** The identity of a user for work run on their behalf in the background (no API key): their current memberships. */
export async function actingAs(store: Store, userId: string): Promise<AuthInfo> {
  const user = await store.repo('users').get(userId);
  if (!user) throw errors.notFound('user', userId);
  return { user, key: null, ...(await membershipsOf(store, userId)) };
}

/** Throws 403 (with the reason) when the organization is one the caller is locked out of for lack of 2FA. */
export function assertNotLocked(auth: AuthInfo, organizationId: string | null | undefined): void {
  if (organizationId && auth.locked?.includes(organizationId)) throw errors.forbidden(TWO_FACTOR_REQUIRED);
}

type OwnedTable = { [N in TableName]: Tables[N] extends Owned & { id: string } ? N : never }[TableName];

const WRITE_ANY: Role[] = ['owner', 'admin'];

/**
 * The one access rule. A personal resource (no organization_id): its owner reads and writes it. An
 * organization's resource: rights come from the caller's CURRENT membership only (having created it grants
 * nothing once the caller has left or been removed): every member reads it; owners and admins write any of
 * its resources; members write their own; viewers only read.
 */
export function canRead(auth: AuthInfo, r: Owned): boolean {
  if (!r.organization_id) return r.user_id === auth.user.id;
  if (auth.locked?.includes(r.organization_id)) return false;
  return auth.memberships.some((m) => m.organization_id === r.organization_id);
}

export function canWrite(auth: AuthInfo, r: Owned): boolean {
  if (!r.organization_id) return r.user_id === auth.user.id;
  if (auth.locked?.includes(r.organization_id)) return false;
  const m = auth.memberships.find((x) => x.organization_id === r.organization_id);
  if (!m) return false;
  return WRITE_ANY.includes(m.role) || (m.role === 'member' && r.user_id === auth.user.id);
}

export function roleIn(auth: AuthInfo, organizationId: string): Role | null {
  return auth.memberships.find((m) => m.organization_id === organizationId)?.role ?? null;
}

/** Throws unless the caller may create resources in the organization (member or above). */
export function assertCanCreateIn(auth: AuthInfo, organizationId: string | null | undefined): void {
  if (!organizationId) return;
  const role = roleIn(auth, organizationId);
  assertNotLocked(auth, organizationId);
  if (!role) throw errors.notFound('organization', organizationId);
  if (role === 'viewer') throw errors.forbidden('Viewers cannot create resources in this organization');
}

/**
 * Loads a resource for the caller. Someone else's resource is reported as not found (its existence is not
 * revealed); a readable one the caller may not change is 403 for 'write'.
 */
export async function loadOwned<N extends OwnedTable>(store: Store, table: N, id: string, auth: AuthInfo, mode: 'read' | 'write', what = table.replace(/s$/, '')): Promise<Tables[N]> {
  const row = (await store.repo(table).get(id)) as (Tables[N] & Owned) | null;
  if (row && !canRead(auth, row)) assertNotLocked(auth, row.organization_id);
  if (!row || !canRead(auth, row)) throw errors.notFound(what, id);
  if (mode === 'write' && !canWrite(auth, row)) throw errors.forbidden(`You cannot change this ${what}`);
  return row;
}

/**
 * The caller's personal rows, for list queries (with `organization_id: <their organizations>` for the rest):
 * a row the caller made in an organization they have left matches neither.
 */
export function personalOf(auth: AuthInfo): { user_id: string; organization_id: null } {
  return { user_id: auth.user.id, organization_id: null };
}

/** Owner scope for vector search filters (hits are checked with canRead afterwards: see search/service.ts). */
export function ownerScope(auth: AuthInfo): { userId: string; organizationIds: string[] } {
  return { userId: auth.user.id, organizationIds: auth.memberships.map((m) => m.organization_id) };
}

export function newOwned(auth: AuthInfo, organizationId?: string | null): Owned {
  assertCanCreateIn(auth, organizationId);
  return { user_id: auth.user.id, organization_id: organizationId ?? null };
}
