import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { acceptInvitation, apiOrganization, declineInvitation, inviteMember, listInvitations, myInvitations, revokeInvitation, changeRole, createOrganization, deleteOrganization, leaveOrganization, listMembers, listOrganizations, loadOrganization, organizationSettingsSchema, removeMember, settingsOf, transferOwnership, updateOrganization, updateSettings } from '@quire/engine';
import { requireAuth } from '../../http/context.js';
import type { AppContext } from '../../http/context.js';
import { route } from '../../http/route.js';

const TAG = 'Organizations';
const role = z.enum(['owner', 'admin', 'member', 'viewer']).describe('owner: everything, incl. delete and ownership; admin: members and all resources; member: creates and manages own resources; viewer: read only');
const name = z.string().trim().min(1).max(255);
const slug = z.string().trim().min(1).max(64).describe('unique, URL-friendly: 2-64 lowercase letters, digits and single hyphens, e.g. acme-legal');
const settings = organizationSettingsSchema.describe('any of the six settings of §4.14; unknown keys are refused');
const uuid = z.string().uuid();

const actor = (ctx: AppContext) => ({ auth: requireAuth(ctx), ip: ctx.ip });
const ORG = '{organization: {id, name, slug, settings, role, created_by, created_at, updated_at}}';
const MEMBER = '{member: {id, user_id, email, name, role, created_at}}';
const INVITATION = '{invitation: {id, object, organization_id, user_id, email, role, status, invited_by, expires_at, created_at}}';

/**
 * Spec §4.14. Callers that are not members get 404 for an organization (its existence is not revealed);
 * members below the needed role get 403. Changes are recorded in the audit log.
 */
export function organizationRoutes(router: Router<any, any>): void {
  route(router, { method: 'get', path: '/api/organizations', summary: "The caller's organizations with the caller's `role` in each: {organizations: [...]}. One that requires two-factor authentication the caller has not turned on has `two_factor_required: true` (its resources answer 403 until then).", tag: TAG }, async (ctx) => ({
    organizations: await listOrganizations(ctx.quire.store, requireAuth(ctx)),
  }));

  route(
    router,
    {
      method: 'post',
      path: '/api/organizations',
      summary: `Create an organization; the caller becomes its owner. ${ORG}. 409 CONFLICT when the slug is taken; 400 for a slug that is not URL-friendly or an invalid setting.`,
      tag: TAG,
      status: 201,
      body: z.object({ name, slug, settings: settings.optional() }).strict(),
    },
    async (ctx, { body }) => {
      const { org, role: r } = await createOrganization(ctx.quire.store, actor(ctx), body);
      return { organization: apiOrganization(org, r) };
    },
  );

  route(router, { method: 'get', path: '/api/organizations/:id', summary: `One organization of the caller: ${ORG}`, tag: TAG }, async (ctx) => {
    const { org, role: r } = await loadOrganization(ctx.quire.store, requireAuth(ctx), ctx.params.id, 'viewer');
    return { organization: apiOrganization(org, r) };
  });

  route(
    router,
    {
      method: 'patch',
      path: '/api/organizations/:id',
      summary: `Rename the organization or change settings (owner or admin; 403 otherwise): ${ORG}`,
      tag: TAG,
      body: z.object({ name: name.optional(), settings: settings.optional() }).strict(),
    },
    async (ctx, { body }) => {
      const { org, role: r } = await updateOrganization(ctx.quire.store, actor(ctx), ctx.params.id, body);
      return { organization: apiOrganization(org, r) };
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/api/organizations/:id',
      summary:
        'Delete the organization (owner only; 403 for other roles) and every resource of it: documents with their files, parsed content, chunks and vectors, jobs, knowledge bases, schemas, extractions, presets, chat history, batches, webhooks, workflows, integrations; then its memberships. {success, id, deleted: {<table>: rows}}',
      tag: TAG,
    },
    async (ctx) => {
      const deleted = await deleteOrganization(ctx.quire, actor(ctx), ctx.params.id);
      return { success: true, id: ctx.params.id, object: 'organization', deleted };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/organizations/:id/leave',
      summary:
        'Leave the organization: {success, message}. The last owner cannot leave (409 CONFLICT): first make another member owner (PATCH …/members/<userId> {role: owner}, or POST …/transfer-ownership), then leave.',
      tag: TAG,
    },
    async (ctx) => {
      await leaveOrganization(ctx.quire.store, actor(ctx), ctx.params.id);
      return { success: true, message: 'You left the organization' };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/organizations/:id/transfer-ownership',
      summary: 'Owner only: make another member (`user_id`) owner and step down to admin, in one change. {members: [...]}',
      tag: TAG,
      body: z.object({ user_id: uuid }).strict(),
    },
    async (ctx, { body }) => ({ members: await transferOwnership(ctx.quire.store, actor(ctx), ctx.params.id, body.user_id) }),
  );

  route(router, { method: 'get', path: '/api/organizations/:id/members', summary: 'The members (any member may list): {members: [{id, user_id, email, name, role, created_at}]}', tag: TAG }, async (ctx) => ({
    members: await listMembers(ctx.quire.store, requireAuth(ctx), ctx.params.id),
  }));

  route(
    router,
    {
      method: 'post',
      path: '/api/organizations/:id/members',
      summary: `Invite someone (\`user_id\`, or \`email\`) with a role (owner or admin; only an owner invites an owner). Nobody becomes a member without accepting: the answer is the pending invitation, ${INVITATION}, the same whether or not an account has that id or email. The invitee lists their invitations with GET /api/user/invitations and accepts (POST /api/user/invitations/<id>/accept) or declines; until then they have no access. 409 when the named user is already a member, 403 when the email's domain is not in allowed_domains.`,
      tag: TAG,
      status: 201,
      body: z
        .object({ user_id: uuid.optional(), email: z.string().trim().email().max(255).optional().describe('instead of user_id'), role: role.default('member') })
        .strict()
        .refine((b) => !!b.user_id !== !!b.email, { message: 'send user_id or email (one of them)', path: ['user_id'] }),
    },
    async (ctx, { body }) => ({ invitation: await inviteMember(ctx.quire.store, actor(ctx), ctx.params.id, body) }),
  );

  route(router, { method: 'get', path: '/api/organizations/:id/invitations', summary: 'Pending invitations of the organization (owner or admin): {invitations: [...]}', tag: TAG }, async (ctx) => ({
    invitations: await listInvitations(ctx.quire.store, requireAuth(ctx), ctx.params.id),
  }));

  route(router, { method: 'delete', path: '/api/organizations/:id/invitations/:invitationId', summary: "Revoke a pending invitation (owner or admin; only an owner revokes an owner's). Idempotent: {success, id, revoked}", tag: TAG }, async (ctx) => {
    await revokeInvitation(ctx.quire.store, actor(ctx), ctx.params.id, ctx.params.invitationId);
    return { success: true, id: ctx.params.invitationId, revoked: true };
  });

  route(router, { method: 'get', path: '/api/user/invitations', summary: "The caller's pending invitations to organizations (addressed to their user id or email), with the organization's id, name and slug: {invitations: [...]}", tag: TAG }, async (ctx) => ({
    invitations: await myInvitations(ctx.quire.store, requireAuth(ctx)),
  }));

  route(router, { method: 'post', path: '/api/user/invitations/:invitationId/accept', summary: `Accept an invitation: the caller becomes a member with its role. {organization, member}. 404 for an invitation not addressed to the caller, 409 when it is no longer pending.`, tag: TAG }, async (ctx) =>
    acceptInvitation(ctx.quire.store, actor(ctx), ctx.params.invitationId),
  );

  route(router, { method: 'post', path: '/api/user/invitations/:invitationId/decline', summary: 'Decline an invitation: {success}. 404 for one not addressed to the caller, 409 when no longer pending.', tag: TAG }, async (ctx) => {
    await declineInvitation(ctx.quire.store, actor(ctx), ctx.params.invitationId);
    return { success: true, id: ctx.params.invitationId, declined: true };
  });

  route(
    router,
    {
      method: 'patch',
      path: '/api/organizations/:id/members/:userId',
      summary: `Change a member's role (owner or admin; only an owner grants or changes the owner role): ${MEMBER}. Making a member owner is how ownership is transferred; the last owner cannot be demoted (409).`,
      tag: TAG,
      body: z.object({ role }).strict(),
    },
    async (ctx, { body }) => ({ member: await changeRole(ctx.quire.store, actor(ctx), ctx.params.id, ctx.params.userId, body.role) }),
  );

  route(
    router,
    { method: 'delete', path: '/api/organizations/:id/members/:userId', summary: 'Remove a member (owner or admin; admins cannot remove owners; the last owner cannot be removed: 409). {success}', tag: TAG },
    async (ctx) => {
      await removeMember(ctx.quire, actor(ctx), ctx.params.id, ctx.params.userId);
      return { success: true, user_id: ctx.params.userId, removed: true };
    },
  );

  route(router, { method: 'get', path: '/api/organizations/:id/settings', summary: 'The settings (any member): {settings: {default_knowledge_base_id, billing_email, allowed_domains, require_2fa, data_retention_days, hipaa_enabled}}', tag: TAG }, async (ctx) => {
    const { org } = await loadOrganization(ctx.quire.store, requireAuth(ctx), ctx.params.id, 'viewer');
    return { settings: settingsOf(org) };
  });

  route(
    router,
    {
      method: 'patch',
      path: '/api/organizations/:id/settings',
      summary:
        'Change any of the settings (owner or admin; 403 otherwise): {settings}. default_knowledge_base_id must be a knowledge base of the organization; allowed_domains limits who can be added from now on (members already in stay); require_2fa refuses members without two-factor authentication (403) on the organization\'s resources; data_retention_days drives the retention job.',
      tag: TAG,
      body: settings,
    },
    async (ctx, { body }) => {
      if (!Object.keys(body).length) throw errors.validation('Send at least one setting');
      return { settings: await updateSettings(ctx.quire.store, actor(ctx), ctx.params.id, body) };
    },
  );
}
