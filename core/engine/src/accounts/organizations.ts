/**
 * Organizations (spec §4.14): a named team with a unique slug, members with roles, and settings.
 *
 * - Roles: `owner` (everything, including deleting the organization and granting or taking ownership),
 *   `admin` (manage members below owner, settings, and all of the organization's resources), `member`
 *   (create resources in it and manage their own), `viewer` (read only). What a role may do to a resource
 *   is decided by infra/access.ts; this module decides what it may do to the organization itself.
 * - There is always at least one owner: the last owner can neither leave, be removed, nor be demoted.
 *   Ownership is transferred by an owner making another member owner (PATCH the member's role, or
 *   transferOwnership, which also steps the caller down to admin); then the old owner may leave.
 * - Nobody is made a member without consent: adding a member makes an invitation (by user id or email,
 *   answered the same whether or not such an account exists) that the invitee lists, accepts or declines
 *   (GET /api/user/invitations, POST …/<id>/accept|decline); admins list and revoke pending ones. A
 *   pending invitee has no access.
 * - Changes of memberships run in one transaction holding the organization's row lock (ownershipChange),
 *   so the last-owner rule holds when owners leave or demote each other at the same moment.
 * - `allowed_domains` limits who can join (the invitee's email domain); members already in stay.
 * - `require_2fa` is enforced where memberships are loaded (access.ts membershipsOf).
 * Every change of membership, role or settings, and the deletion, is written to the audit log.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StoreConflictError, errors } from '@quire/core';
import type { InvitationRecord, MembershipRecord, OrganizationRecord, Role, Store, UserRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { parseWith } from '../validation.js';
import { TWO_FACTOR_REQUIRED, assertNotLocked, canWrite, loadOwned, roleIn } from '../infra/access.js';
import type { AuthInfo } from '../infra/access.js';
import { recordAudit } from './audit.js';
import { eraseResources, quiesceScope } from './erase.js';

export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];
const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1, viewer: 0 };

/** Lowercase letters, digits and single hyphens between them, 2 to 64 characters: usable as is in a URL. */
export const SLUG = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,63}$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** The six settings of §4.14, each optional in a PATCH; unknown keys are refused. */
export const organizationSettingsSchema = z
  .object({
    default_knowledge_base_id: z.string().uuid().nullable().describe('knowledge base used where a request omits one (a knowledge base of this organization); null: none'),
    billing_email: z.string().trim().toLowerCase().email().max(255).nullable().describe('where invoices go; null: the owners'),
    allowed_domains: z
      .array(z.string().trim().toLowerCase().regex(DOMAIN, 'must be an email domain such as example.com'))
      .max(100)
      .describe('email domains whose users may be added as members; empty: any'),
    require_2fa: z.boolean().describe("members without two-factor authentication on are refused (403) on the organization's resources"),
    data_retention_days: z.number().int().min(1).max(36500).nullable().describe("resources of the organization older than this many days are deleted by the retention job; null: kept until deleted"),
    hipaa_enabled: z.boolean().describe('marks the organization as handling protected health information (stored and returned)'),
  })
  .partial()
  .strict();

export type OrganizationSettings = {
  default_knowledge_base_id: string | null;
  billing_email: string | null;
  allowed_domains: string[];
  require_2fa: boolean;
  data_retention_days: number | null;
  hipaa_enabled: boolean;
};

export const DEFAULT_SETTINGS: OrganizationSettings = {
  default_knowledge_base_id: null,
  billing_email: null,
  allowed_domains: [],
  require_2fa: false,
  data_retention_days: null,
  hipaa_enabled: false,
};

/** The settings of a row, with the defaults for what was never set. */
export function settingsOf(org: OrganizationRecord): OrganizationSettings {
  const s = (org.settings ?? {}) as Partial<OrganizationSettings>;
  const out = { ...DEFAULT_SETTINGS };
  for (const k of Object.keys(DEFAULT_SETTINGS) as (keyof OrganizationSettings)[]) if (s[k] !== undefined) (out as Record<string, unknown>)[k] = s[k];
  return out;
}

export function apiOrganization(org: OrganizationRecord, role?: Role | null) {
  return {
    id: org.id,
    object: 'organization',
    name: org.name,
    slug: org.slug,
    settings: settingsOf(org),
    ...(role !== undefined ? { role } : {}),
    created_by: org.created_by,
    created_at: org.created_at.toISOString(),
    updated_at: org.updated_at.toISOString(),
  };
}

export function apiMember(m: MembershipRecord, user: Pick<UserRecord, 'email' | 'name'> | null) {
  return { id: m.id, object: 'organization_member', user_id: m.user_id, email: user?.email ?? null, name: user?.name ?? null, role: m.role, created_at: m.created_at.toISOString() };
}

/** Who acted, for the audit log. */
export interface Actor {
  auth: AuthInfo;
  ip?: string | null;
}

function audit(store: Store, a: Actor, orgId: string, action: string, targetType: string, targetId: string, details?: Record<string, unknown>) {
  return recordAudit(store, { actor: a.auth.user.id, organization_id: orgId, action, target_type: targetType, target_id: targetId, details: details ?? null, ip: a.ip ?? null });
}

function validSlug(slug: string): string {
  if (!SLUG.test(slug)) throw errors.validation('slug must be 2 to 64 lowercase letters, digits and single hyphens (not at either end), e.g. "acme-legal"', [{ field: 'slug', message: 'invalid slug' }]);
  return slug;
}

/** Turning require_2fa on without two-factor authentication of one's own would lock the caller out at once. */
async function assertOwn2fa(store: Store, auth: AuthInfo, s: Partial<OrganizationSettings>): Promise<void> {
  if (s.require_2fa !== true) return;
  if (!(await store.repo('user_totp').findOne({ user_id: auth.user.id }))?.enabled_at) {
    throw errors.conflict('Turn on two-factor authentication for yourself first (POST /api/user/2fa/enroll, then /api/user/2fa/verify): require_2fa would lock you out of this organization');
  }
}

/** A knowledge base may be the default only if it belongs to the organization. */
async function checkSettings(store: Store, orgId: string | null, s: Partial<OrganizationSettings>): Promise<void> {
  const kb = s.default_knowledge_base_id;
  if (!kb) return;
  const row = await store.repo('collections').get(kb);
  if (!row || !orgId || row.organization_id !== orgId) {
    throw errors.validation('default_knowledge_base_id must be a knowledge base of this organization', [{ field: 'settings.default_knowledge_base_id', message: 'not a knowledge base of this organization' }]);
  }
}

export function parseSettings(raw: unknown, where = 'settings'): Partial<OrganizationSettings> {
  return parseWith(organizationSettingsSchema, raw ?? {}, where) as Partial<OrganizationSettings>;
}

/** Creates an organization with the caller as its owner. 409 when the slug is taken. */
export async function createOrganization(store: Store, a: Actor, input: { name: string; slug: string; settings?: unknown }): Promise<{ org: OrganizationRecord; role: Role }> {
  const slug = validSlug(input.slug);
  const settings = parseSettings(input.settings);
  // a new organization has no knowledge base yet: a default one is set once it exists
  if (settings.default_knowledge_base_id) await checkSettings(store, null, settings);
  await assertOwn2fa(store, a.auth, settings);
  const now = new Date();
  const org: OrganizationRecord = { id: randomUUID(), name: input.name, slug, settings: { ...DEFAULT_SETTINGS, ...settings }, created_by: a.auth.user.id, created_at: now, updated_at: now };
  try {
    await store.transaction(async (tx) => {
      await tx.repo('organizations').insert(org);
      await tx.repo('memberships').insert({ id: randomUUID(), organization_id: org.id, user_id: a.auth.user.id, role: 'owner', created_at: now });
    });
  } catch (e) {
    if (e instanceof StoreConflictError || (e as Error).name === 'StoreConflictError') throw errors.conflict(`The slug "${slug}" is taken`, { field: 'slug' });
    throw e;
  }
  await audit(store, a, org.id, 'organization.created', 'organization', org.id, { name: org.name, slug });
  return { org, role: 'owner' };
}

/** The caller's organizations with their role; those that lock the caller out (require_2fa) say so. */
export async function listOrganizations(store: Store, auth: AuthInfo) {
  const rows = await store.repo('memberships').find({ user_id: auth.user.id });
  if (!rows.length) return [];
  const orgs = await store.repo('organizations').find({ id: rows.map((m) => m.organization_id) }, { order: { created_at: 'ASC' } });
  const role = new Map(rows.map((m) => [m.organization_id, m.role]));
  return orgs.map((o) => ({ ...apiOrganization(o, role.get(o.id) ?? null), ...(auth.locked?.includes(o.id) ? { two_factor_required: true } : {}) }));
}

/**
 * The organization with the caller's role, refusing callers below `least`: not a member → 404 (its existence
 * is not revealed); locked out by require_2fa → 403 saying so (unless `allowLocked`, for leaving); a role too
 * low → 403.
 */
export async function loadOrganization(store: Store, auth: AuthInfo, id: string, least: Role, opts: { allowLocked?: boolean } = {}): Promise<{ org: OrganizationRecord; role: Role }> {
  const m = z.string().uuid().safeParse(id).success ? await store.repo('memberships').findOne({ organization_id: id, user_id: auth.user.id }) : null;
  const org = m ? await store.repo('organizations').get(id) : null;
  if (!m || !org) throw errors.notFound('organization', id);
  if (!opts.allowLocked && auth.locked?.includes(id)) throw errors.forbidden(TWO_FACTOR_REQUIRED);
  if (RANK[m.role] < RANK[least]) throw errors.forbidden(`This needs the ${least} role in the organization (yours: ${m.role})`);
  return { org, role: m.role };
}

export async function updateOrganization(store: Store, a: Actor, id: string, patch: { name?: string; settings?: unknown }): Promise<{ org: OrganizationRecord; role: Role }> {
  const { org, role } = await loadOrganization(store, a.auth, id, 'admin');
  const settings = patch.settings === undefined ? null : parseSettings(patch.settings);
  if (settings) {
    await checkSettings(store, org.id, settings);
    if (!settingsOf(org).require_2fa) await assertOwn2fa(store, a.auth, settings);
  }
  const next: Partial<OrganizationRecord> = { updated_at: new Date() };
  if (patch.name !== undefined) next.name = patch.name;
  if (settings) next.settings = { ...settingsOf(org), ...settings };
  await store.repo('organizations').update(org.id, next);
  if (patch.name !== undefined && patch.name !== org.name) await audit(store, a, org.id, 'organization.updated', 'organization', org.id, { name: { from: org.name, to: patch.name } });
  if (settings && Object.keys(settings).length) await audit(store, a, org.id, 'organization.settings_changed', 'organization', org.id, changes(settingsOf(org), settings));
  return { org: { ...org, ...next }, role };
}

export async function updateSettings(store: Store, a: Actor, id: string, raw: unknown): Promise<OrganizationSettings> {
  const { org } = await updateOrganization(store, a, id, { settings: raw ?? {} });
  return settingsOf(org);
}

function changes(before: OrganizationSettings, patch: Partial<OrganizationSettings>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) out[k] = { from: before[k as keyof OrganizationSettings], to: v };
  return out;
}

export async function listMembers(store: Store, auth: AuthInfo, id: string) {
  const { org } = await loadOrganization(store, auth, id, 'viewer');
  const rows = await store.repo('memberships').find({ organization_id: org.id }, { order: { created_at: 'ASC' } });
  const users = new Map((await store.repo('users').find({ id: rows.map((m) => m.user_id) })).map((u) => [u.id, u]));
  return rows.map((m) => apiMember(m, users.get(m.user_id) ?? null));
}

/** Only an owner grants or takes the owner role; an admin manages the roles below it. */
function assertMayAssign(callerRole: Role, from: Role | null, to: Role | null): void {
  if (callerRole === 'owner') return;
  if (to === 'owner' || from === 'owner') throw errors.forbidden('Only an owner can grant, change or remove the owner role');
}

const INVITATION_TTL_MS = 14 * 86_400_000;

export function apiInvitation(i: InvitationRecord, org?: Pick<OrganizationRecord, 'name' | 'slug'> | null) {
  return {
    id: i.id,
    object: 'organization_invitation',
    organization_id: i.organization_id,
    ...(org ? { organization: { id: i.organization_id, name: org.name, slug: org.slug } } : {}),
    user_id: i.user_id,
    email: i.email,
    role: i.role,
    status: i.status !== 'pending' || i.expires_at.getTime() > Date.now() ? i.status : 'expired',
    invited_by: i.invited_by,
    expires_at: i.expires_at.toISOString(),
    created_at: i.created_at.toISOString(),
  };
}

const livePending = (i: InvitationRecord) => i.status === 'pending' && i.expires_at.getTime() > Date.now();

function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

function assertDomainAllowed(org: OrganizationRecord, email: string): void {
  const domains = settingsOf(org).allowed_domains;
  const domain = domainOf(email);
  if (domains.length && !domains.includes(domain)) {
    throw errors.forbidden(`This organization only admits members with an email address at ${domains.join(', ')} (allowed_domains); ${domain} is not one of them`);
  }
}

/**
 * Invites someone (by user id or email) with a role (admins and owners; only an owner invites an owner).
 * Nobody becomes a member without accepting: the answer is the pending invitation, the same whether or not
 * an account has that id or email (it echoes what was sent, nothing more). 409 when the named user is
 * already a member (members are listed to admins anyway); an invitation still pending for the same address
 * is answered again (with the role of the latest request). allowed_domains applies to an email here and to
 * the invitee's email on acceptance.
 */
export async function inviteMember(store: Store, a: Actor, id: string, input: { user_id?: string; email?: string; role: Role }) {
  const { org, role: callerRole } = await loadOrganization(store, a.auth, id, 'admin');
  assertMayAssign(callerRole, null, input.role);
  const email = input.email ? input.email.trim().toLowerCase() : null;
  const userId = input.user_id ?? null;
  if (email) assertDomainAllowed(org, email);
  const known = userId ? await store.repo('users').get(userId) : email ? await store.repo('users').findOne({ email }) : null;
  if (known && (await store.repo('memberships').findOne({ organization_id: org.id, user_id: known.id }))) {
    throw errors.conflict('This user is already a member: change their role with PATCH /api/organizations/<id>/members/<userId>', { ...(userId ? { user_id: userId } : { email }) });
  }
  const now = new Date();
  const same = (await store.repo('invitations').find({ organization_id: org.id, status: 'pending', ...(userId ? { user_id: userId } : { email }) })).find(livePending);
  let inv: InvitationRecord;
  if (same) {
    await store.repo('invitations').update(same.id, { role: input.role, invited_by: a.auth.user.id, updated_at: now });
    inv = { ...same, role: input.role, invited_by: a.auth.user.id, updated_at: now };
  } else {
    inv = { id: randomUUID(), organization_id: org.id, user_id: userId, email, role: input.role, status: 'pending', invited_by: a.auth.user.id, expires_at: new Date(now.getTime() + INVITATION_TTL_MS), created_at: now, updated_at: now };
    await store.repo('invitations').insert(inv);
  }
  await audit(store, a, org.id, 'organization.member.invited', 'invitation', inv.id, { role: input.role });
  return apiInvitation(inv);
}

/** Pending invitations of the organization (admins and owners). */
export async function listInvitations(store: Store, auth: AuthInfo, id: string) {
  const { org } = await loadOrganization(store, auth, id, 'admin');
  const rows = await store.repo('invitations').find({ organization_id: org.id, status: 'pending' }, { order: { created_at: 'ASC' } });
  return rows.filter(livePending).map((i) => apiInvitation(i));
}

/** Revokes a pending invitation (admins and owners; only an owner revokes an owner's). Idempotent. */
export async function revokeInvitation(store: Store, a: Actor, id: string, invitationId: string): Promise<void> {
  const { org, role } = await loadOrganization(store, a.auth, id, 'admin');
  const inv = z.string().uuid().safeParse(invitationId).success ? await store.repo('invitations').get(invitationId) : null;
  if (!inv || inv.organization_id !== org.id) throw errors.notFound('invitation', invitationId);
  assertMayAssign(role, null, inv.role);
  if (inv.status !== 'pending') return;
  await store.repo('invitations').update({ id: inv.id, status: 'pending' }, { status: 'revoked', updated_at: new Date() });
  await audit(store, a, org.id, 'organization.invitation.revoked', 'invitation', inv.id, { role: inv.role });
}

const addressedTo = (i: InvitationRecord, user: UserRecord) => i.user_id === user.id || (!!i.email && i.email === user.email.toLowerCase());

/** The caller's pending invitations (by their user id or their email), with the organization's name. */
export async function myInvitations(store: Store, auth: AuthInfo) {
  const [byId, byEmail] = await Promise.all([store.repo('invitations').find({ user_id: auth.user.id, status: 'pending' }), store.repo('invitations').find({ email: auth.user.email.toLowerCase(), status: 'pending' })]);
  const rows = [...new Map([...byId, ...byEmail].filter(livePending).map((i) => [i.id, i])).values()].sort((x, y) => x.created_at.getTime() - y.created_at.getTime());
  const orgs = new Map((rows.length ? await store.repo('organizations').find({ id: rows.map((i) => i.organization_id) }) : []).map((o) => [o.id, o]));
  return rows.filter((i) => orgs.has(i.organization_id)).map((i) => apiInvitation(i, orgs.get(i.organization_id)));
}

async function myInvitation(store: Store, auth: AuthInfo, invitationId: string): Promise<InvitationRecord> {
  const inv = z.string().uuid().safeParse(invitationId).success ? await store.repo('invitations').get(invitationId) : null;
  if (!inv || !addressedTo(inv, auth.user)) throw errors.notFound('invitation', invitationId);
  if (!livePending(inv)) throw errors.conflict(`This invitation is ${apiInvitation(inv).status}`, { status: apiInvitation(inv).status });
  return inv;
}

/**
 * The invitee accepts: they become a member with the invitation's role (in one transaction with the
 * invitation's change, under the organization's lock). allowed_domains is checked against their email.
 */
export async function acceptInvitation(store: Store, a: Actor, invitationId: string) {
  const inv = await myInvitation(store, a.auth, invitationId);
  const member = await ownershipChange(store, inv.organization_id, async (tx, org) => {
    if (!org) throw errors.notFound('invitation', invitationId);
    const fresh = await tx.repo('invitations').get(inv.id);
    if (!fresh || !livePending(fresh)) throw errors.conflict('This invitation is no longer pending');
    assertDomainAllowed(org, a.auth.user.email);
    if (await tx.repo('memberships').findOne({ organization_id: org.id, user_id: a.auth.user.id })) throw errors.conflict('You are already a member of this organization');
    const m: MembershipRecord = { id: randomUUID(), organization_id: org.id, user_id: a.auth.user.id, role: fresh.role, created_at: new Date() };
    await tx.repo('memberships').insert(m);
    await tx.repo('invitations').update(inv.id, { status: 'accepted', user_id: a.auth.user.id, updated_at: new Date() });
    return { org, m };
  });
  await audit(store, a, inv.organization_id, 'organization.member.added', 'user', a.auth.user.id, { role: inv.role, invitation_id: inv.id });
  return { organization: apiOrganization(member.org, member.m.role), member: apiMember(member.m, a.auth.user) };
}

/** The invitee declines: the invitation is closed; nothing else changes. */
export async function declineInvitation(store: Store, a: Actor, invitationId: string): Promise<void> {
  const inv = await myInvitation(store, a.auth, invitationId);
  await store.repo('invitations').update({ id: inv.id, status: 'pending' }, { status: 'declined', updated_at: new Date() });
  await audit(store, a, inv.organization_id, 'organization.invitation.declined', 'invitation', inv.id, { role: inv.role });
}

/**
 * Runs a change of the organization's memberships in one transaction holding the organization's row lock:
 * changes of the same organization (leave, remove, role change, transfer, acceptance) run one after the
 * other and each sees the memberships the previous one left, so that the last-owner rule holds under
 * concurrency (on MySQL too). `fn` gets the organization as it is then (null when it was deleted).
 */
async function ownershipChange<R>(store: Store, orgId: string, fn: (tx: Store, org: OrganizationRecord | null) => Promise<R>): Promise<R> {
  return store.transaction(async (tx) => {
    const exists = await tx.lockRow('organizations', orgId);
    return fn(tx, exists ? await tx.repo('organizations').get(orgId) : null);
  });
}

/**
 * Inside ownershipChange: the caller's and the target's memberships as they are now. The caller must
 * still hold at least `least` (a concurrent change may have demoted or removed them).
 */
async function currentMembers(tx: Store, orgId: string, callerId: string, targetId: string, least: Role): Promise<{ caller: MembershipRecord; target: MembershipRecord; owners: number }> {
  const rows = await tx.repo('memberships').find({ organization_id: orgId });
  const caller = rows.find((m) => m.user_id === callerId);
  const target = rows.find((m) => m.user_id === targetId);
  if (!caller) throw errors.notFound('organization', orgId);
  if (RANK[caller.role] < RANK[least]) throw errors.forbidden(`This needs the ${least} role in the organization (yours: ${caller.role})`);
  if (!target) throw errors.notFound('member', targetId);
  return { caller, target, owners: rows.filter((m) => m.role === 'owner').length };
}

function validMemberId(userId: string): void {
  if (!z.string().uuid().safeParse(userId).success) throw errors.notFound('member', userId);
}

/**
 * Changes a member's role. The last owner cannot be demoted (409): make another member owner first.
 * Checked under the organization's lock, with the memberships as they are then.
 */
export async function changeRole(store: Store, a: Actor, id: string, userId: string, role: Role) {
  const { org } = await loadOrganization(store, a.auth, id, 'admin');
  validMemberId(userId);
  const { from } = await ownershipChange(store, org.id, async (tx) => {
    const { caller, target, owners } = await currentMembers(tx, org.id, a.auth.user.id, userId, 'admin');
    assertMayAssign(caller.role, target.role, role);
    if (target.role !== role) {
      if (target.role === 'owner' && owners <= 1) throw lastOwner();
      await tx.repo('memberships').update(target.id, { role });
    }
    return { from: target };
  });
  if (from.role !== role) await audit(store, a, org.id, 'organization.member.role_changed', 'user', userId, { from: from.role, to: role });
  const user = await store.repo('users').get(userId);
  return apiMember({ ...from, role }, user);
}

function lastOwner() {
  return errors.conflict('An organization keeps at least one owner: make another member owner first (PATCH /api/organizations/<id>/members/<userId> {"role":"owner"}), then leave or step down');
}

/** Removes a member (admins: not owners). The last owner cannot be removed. */
export async function removeMember(rt: Pick<Engine, 'store'>, a: Actor, id: string, userId: string): Promise<void> {
  const store = rt.store;
  const { org } = await loadOrganization(store, a.auth, id, 'admin');
  validMemberId(userId);
  const m = await ownershipChange(store, org.id, async (tx) => {
    const { caller, target, owners } = await currentMembers(tx, org.id, a.auth.user.id, userId, 'admin');
    assertMayAssign(caller.role, target.role, null);
    if (target.role === 'owner' && owners <= 1) throw lastOwner();
    await tx.repo('memberships').delete(target.id);
    return target;
  });
  await audit(store, a, org.id, 'organization.member.removed', 'user', userId, { role: m.role });
}

/** The caller leaves. An owner may leave only while another owner remains (ownership transferred first). */
export async function leaveOrganization(store: Store, a: Actor, id: string): Promise<void> {
  const { org } = await loadOrganization(store, a.auth, id, 'viewer', { allowLocked: true });
  const m = await ownershipChange(store, org.id, async (tx) => {
    const { target, owners } = await currentMembers(tx, org.id, a.auth.user.id, a.auth.user.id, 'viewer');
    if (target.role === 'owner' && owners <= 1) throw lastOwner();
    await tx.repo('memberships').delete(target.id);
    return target;
  });
  await audit(store, a, org.id, 'organization.member.left', 'user', a.auth.user.id, { role: m.role });
}

/**
 * Owner only: makes another member owner and steps the caller down to admin, in one transaction (the
 * usual way to hand an organization over before leaving it).
 */
export async function transferOwnership(store: Store, a: Actor, id: string, userId: string) {
  const { org } = await loadOrganization(store, a.auth, id, 'owner');
  if (userId === a.auth.user.id) throw errors.validation('You already own this organization: name another member', [{ field: 'user_id', message: 'is the caller' }]);
  validMemberId(userId);
  const target = await ownershipChange(store, org.id, async (tx) => {
    const { caller, target } = await currentMembers(tx, org.id, a.auth.user.id, userId, 'owner');
    await tx.repo('memberships').update(target.id, { role: 'owner' });
    await tx.repo('memberships').update(caller.id, { role: 'admin' });
    return target;
  });
  await audit(store, a, org.id, 'organization.ownership_transferred', 'user', userId, { from_user: a.auth.user.id, previous_role: target.role });
  return listMembers(store, a.auth, org.id);
}

/**
 * Owner only: deletes every resource of the organization (documents with their files, chunks and vectors,
 * jobs, knowledge bases, schemas, extractions, presets, chat history, batches, webhooks, workflows, ...),
 * then its memberships and the organization. Returns how many rows of each table went.
 */
export async function deleteOrganization(rt: Engine, a: Actor, id: string): Promise<Record<string, number>> {
  const { org } = await loadOrganization(rt.store, a.auth, id, 'owner');
  // from here on no handler starts for the organization's events; its running jobs are cancelled, and the
  // stage runs, completion hooks and handlers under way end before the erase (their writes name it)
  const unmute = rt.events.mute((e) => e.organization_id === org.id);
  let erased: Record<string, number>, members: number;
  try {
    await quiesceScope(rt, { organization_id: org.id }, [{ organization_id: org.id }]);
    erased = await eraseResources(rt, { organization_id: org.id });
    // the erase removes the memberships with every other row of the organization; the delete under the
    // organization's lock removes one made meanwhile (an invitation accepted): the count is both
    members = (erased.memberships ?? 0) + (await ownershipChange(rt.store, org.id, async (tx) => {
      const n = await tx.repo('memberships').delete({ organization_id: org.id });
      await tx.repo('organizations').delete(org.id);
      return n;
    }));
  } finally {
    unmute();
  }
  await audit(rt.store, a, org.id, 'organization.deleted', 'organization', org.id, { name: org.name, slug: org.slug, memberships: members, erased });
  return { ...erased, memberships: members };
}

/**
 * The knowledge base to use when a request names none: the default of the organization the request names
 * (`organizationId`, one of the caller's). Without one there is none: a member's personal requests never
 * fall into an organization's knowledge base. Null when there is none (the caller then has to name one).
 */
export async function defaultKnowledgeBase(store: Store, auth: AuthInfo, organizationId?: string | null): Promise<string | null> {
  if (!organizationId || !roleIn(auth, organizationId)) return null;
  const org = await store.repo('organizations').get(organizationId);
  const named = org ? settingsOf(org).default_knowledge_base_id : null;
  // a default whose knowledge base was deleted since counts as none
  return named && (await store.repo('collections').get(named)) ? named : null;
}

/** The organization's default knowledge base when the caller may add to it, else null. */
export async function writableDefaultKnowledgeBase(store: Store, auth: AuthInfo, organizationId: string): Promise<string | null> {
  const id = await defaultKnowledgeBase(store, auth, organizationId);
  const row = id ? await store.repo('collections').get(id) : null;
  return row && canWrite(auth, row) ? row.id : null;
}

/**
 * The knowledge base of a request that may omit it (chat, embed chat): the one named; else that of the
 * session continued; else the default of the organization the request names (`organization_id`). 400 when
 * there is none.
 */
export async function knowledgeBaseFor(store: Store, auth: AuthInfo, req: { knowledge_base_id?: string | null; session_id?: string | null; organization_id?: string | null }, field = 'body.knowledge_base_id'): Promise<string> {
  if (req.knowledge_base_id) return req.knowledge_base_id;
  if (req.session_id) {
    const s = await loadOwned(store, 'chat_sessions', req.session_id, auth, 'read', 'chat session');
    if (s.knowledge_base_id) return s.knowledge_base_id;
  }
  if (req.organization_id) {
    assertNotLocked(auth, req.organization_id);
    if (!roleIn(auth, req.organization_id)) throw errors.notFound('organization', req.organization_id);
  }
  const kb = await defaultKnowledgeBase(store, auth, req.organization_id);
  if (!kb) throw errors.validation("knowledge_base_id is required: name one, or set the organization's default_knowledge_base_id and send organization_id", [{ field, message: 'Required' }]);
  return kb;
}
