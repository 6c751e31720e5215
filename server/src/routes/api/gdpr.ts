import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import {
  CONSENT_TYPES,
  EXPORT_LINK_PURPOSE,
  cancelDeletion,
  consentState,
  deletionStatus,
  downloadableExport,
  exportRequestOf,
  exportView,
  recordAudit,
  recordConsents,
  renewalCheck,
  requestDeletion,
  requestExport,
  verifyLink,
} from '@quire/engine';

const TAG = 'Privacy';
const uuid = z.string().uuid();
const consentType = z.enum(CONSENT_TYPES);
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

const ConsentBody = z.union([
  z.object({ consentType, granted: z.boolean(), organization_id: uuid.optional() }).strict(),
  z.object({ consents: z.array(z.object({ type: consentType, granted: z.boolean(), organization_id: uuid.optional() }).strict()).min(1).max(20) }).strict(),
]);

/** Spec §4.11: consents, data export, account deletion. Every action is recorded in the audit log. */
export function gdprRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'get',
      path: '/api/gdpr/consent',
      summary:
        'Current consents: {consents: {<type>: {granted, granted_at | revoked_at, version}}, current_version}; types terms and privacy (required: recorded at sign-up), marketing and analytics (optional), data_processing (for an organization: its entry adds organization_id and `organizations`, the decision of each). With history=true, also `history`: every decision, oldest first.',
      tag: TAG,
      query: z.object({ history: flag.optional() }),
    },
    async (ctx, { query }) => consentState(ctx.quire, requireAuth(ctx).user.id, !!query.history),
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/gdpr/consent',
      summary:
        'Record consent decisions: {consentType, granted} or {consents: [{type, granted}]} at the current policy version (QUIRE_POLICY_VERSION); data_processing needs organization_id and an owner or admin of it. Withdrawing terms or privacy is 409: they are required for an account (delete the account instead). Answers the consents as GET does.',
      tag: TAG,
      body: ConsentBody,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const changes = 'consents' in body ? body.consents : [{ type: body.consentType, granted: body.granted, organization_id: body.organization_id }];
      await recordConsents(ctx.quire, auth, changes, ctx.ip);
      return { success: true, ...(await consentState(ctx.quire, auth.user.id, false)) };
    },
  );

  route(
    router,
    { method: 'delete', path: '/api/gdpr/consent', summary: 'Revoke one consent (query type; organization_id for data_processing). terms and privacy cannot be revoked (409).', tag: TAG, query: z.object({ type: consentType, organization_id: uuid.optional() }) },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      await recordConsents(ctx.quire, auth, [{ type: query.type, granted: false, organization_id: query.organization_id }], ctx.ip);
      return { success: true, ...(await consentState(ctx.quire, auth.user.id, false)) };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/gdpr/consent/renew',
      summary: 'Grant again, at the current policy version, the consents named in consentTypes (e.g. those renewal-check lists); answers the consents and the new renewal check.',
      tag: TAG,
      body: z.object({ consentTypes: z.array(consentType).min(1).max(5), organization_id: uuid.optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      await recordConsents(ctx.quire, auth, [...new Set(body.consentTypes)].map((type) => ({ type, granted: true, organization_id: type === 'data_processing' ? body.organization_id : undefined })), ctx.ip);
      return { success: true, ...(await consentState(ctx.quire, auth.user.id, false)), renewal: await renewalCheck(ctx.quire, auth.user.id) };
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/gdpr/consent/renewal-check',
      summary: '{needs_renewal, types, reason, current_version}: the required consents (terms, privacy) not accepted at the current policy version, and optional ones granted for an older version.',
      tag: TAG,
    },
    async (ctx) => renewalCheck(ctx.quire, requireAuth(ctx).user.id),
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/gdpr/export',
      summary:
        'Start an export of all your data (a background job): {request_id, status: pending, message, estimated_completion}. The zip holds profile.json, documents.json and documents/<id>/ (the file and its parsed content), extractions.json, schemas.json, chat_history.json, knowledge_bases.json, api_keys.json (metadata, never the keys), consents.json (the history) and audit_log.json. While one is under way it is answered again.',
      tag: TAG,
      status: 202,
    },
    async (ctx) => {
      ctx.status = 202;
      return requestExport(ctx.quire, requireAuth(ctx), ctx.ip);
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/gdpr/export',
      summary:
        'An export request (requestId; without it the latest): {request_id, status (pending, processing, completed, failed, expired), file_url (signed, works without a key until expires_at; null unless completed), file_size, expires_at, created_at, completed_at}.',
      tag: TAG,
      query: z.object({ requestId: uuid.optional() }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const r = await exportRequestOf(ctx.quire, auth.user.id, query.requestId);
      if (!r) throw errors.notFound('data export', query.requestId);
      return exportView(ctx.quire, r);
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/gdpr/export/download/:id',
      summary: 'Download an export zip through the signed link of GET /api/gdpr/export (no API key: the link is the credential; 401 once it expired).',
      tag: TAG,
      auth: 'none',
      raw: 'application/zip',
      query: z.object({ expires: z.coerce.number().int(), sig: z.string().max(128) }),
    },
    async (ctx, { query }) => {
      const rt = ctx.quire;
      const id = ctx.params.id!;
      if (!uuid.safeParse(id).success || !verifyLink(rt.signingSecret, EXPORT_LINK_PURPOSE, id, query.expires, query.sig)) throw errors.unauthorized('Invalid or expired download link');
      const r = await downloadableExport(rt, id);
      if (!r?.file_key) throw errors.notFound('data export', id);
      await recordAudit(rt.store, { actor: r.user_id, action: 'gdpr.export.downloaded', target_type: 'data_export', target_id: r.id, ip: ctx.ip });
      ctx.set('Content-Disposition', `attachment; filename="quire-export-${r.created_at.toISOString().slice(0, 10)}.zip"`);
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'application/zip';
      if (r.file_size) ctx.length = r.file_size;
      ctx.body = await rt.storage.stream(r.file_key);
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/gdpr/delete-account',
      summary:
        'Ask for the deletion of your account and all its data: {request_id, status, scheduled_at, grace_period_days, message}. Scheduled after the grace period (QUIRE_DELETION_GRACE_DAYS, 7; cancellable until then), or at once with immediate true (status completed). Files, parsed content, chunks, vectors, keys, sessions and every row of the account go; the audit log keeps your entries, anonymised. Organizations you alone belong to are deleted too; your resources in other organizations stay with them (handed to their owner), your chat history does not. 409 when you are the only owner of an organization with other members.',
      tag: TAG,
      body: z.object({ reason: z.string().max(2000).optional(), immediate: z.boolean().optional() }).strict(),
    },
    async (ctx, { body }) => requestDeletion(ctx.quire, requireAuth(ctx), body, ctx.ip),
  );

  route(
    router,
    { method: 'get', path: '/api/gdpr/delete-account', summary: 'Your latest deletion request: {request_id, status, scheduled_at, can_cancel} (nulls when there is none).', tag: TAG },
    async (ctx) => deletionStatus(ctx.quire, requireAuth(ctx).user.id),
  );

  route(
    router,
    { method: 'delete', path: '/api/gdpr/delete-account', summary: 'Cancel a scheduled deletion (query requestId); 409 once it is carried out or cancelled.', tag: TAG, query: z.object({ requestId: uuid }) },
    async (ctx, { query }) => cancelDeletion(ctx.quire, requireAuth(ctx).user.id, query.requestId, ctx.ip),
  );
}
