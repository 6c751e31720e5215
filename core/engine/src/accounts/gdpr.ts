/**
 * Privacy (spec §4.11): consents with their history, data exports, account deletion.
 *
 * Consents. Every decision is a row of `consents` (the history); a type's current state is its latest row.
 * `terms` and `privacy` are required: sign-up records them at the current policy version
 * (QUIRE_POLICY_VERSION), they cannot be revoked while the account exists (deleting the account is the way
 * out: 409 otherwise), and when the version changes GET /api/gdpr/consent/renewal-check says they need
 * renewing. `marketing` and `analytics` are optional. `data_processing` is given for an organization
 * (organization_id, by its owners or admins), never for a person alone.
 *
 * Export. POST makes a request and a `gdpr-export` job (accounts/gdpr-pipeline.ts) that writes one zip (yazl) of
 * everything the user owns: profile, documents (file, metadata, parsed content), extractions, chat history,
 * knowledge bases, API key metadata (never hashes), consent history, audit log entries. The zip is fetched
 * through a signed URL that expires with the export (QUIRE_EXPORT_TTL_H); then the zip is removed and the
 * request reads `expired`.
 *
 * Deletion. A request is `scheduled` for the end of the grace period (QUIRE_DELETION_GRACE_DAYS, 7) and can
 * be cancelled until then; `immediate` deletes at once. Deleting: organizations the user alone belongs to
 * are deleted with their resources; the user's resources in organizations that go on are handed to that
 * organization's owner (they are the organization's, spec §4.14), except their chat history, which is
 * erased; then eraseResources removes every row of the user (files, parsed content, chunks, vectors, keys,
 * sessions...) and the user; the audit log keeps the user's entries, anonymised. A user who is the only
 * owner of an organization with other members must transfer ownership first: the request waits as
 * `pending` until then.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { errors } from '@quire/core';
import type { ConsentRecord, DataExportRequestRecord, DeletionRequestRecord, Store, TableName } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { anonymiseAudit, auditOf, recordAudit } from './audit.js';
import { eraseResources, quiesceScope } from './erase.js';
import { submitJob } from '../infra/submit.js';
import { contentKey } from '../io/steps.js';
import { signLink } from '../infra/signing.js';
import { cleanFileName } from '../infra/file-names.js';
import { deleteDocument } from '../io/documents.js';
import { GENERATE_JOB_TYPE } from '../generation/jobs.js';

export const CONSENT_TYPES = ['terms', 'privacy', 'marketing', 'analytics', 'data_processing'] as const;
export type ConsentType = (typeof CONSENT_TYPES)[number];
export const REQUIRED_CONSENTS: ConsentType[] = ['terms', 'privacy'];
export const GDPR_EXPORT_PIPELINE = 'gdpr-export';
export const EXPORT_LINK_PURPOSE = 'gdpr-export';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

// ------------------------------------------------------------------------------------------ consents

function consentView(r: ConsentRecord) {
  return { granted: r.granted, ...(r.granted ? { granted_at: r.created_at.toISOString() } : { revoked_at: r.created_at.toISOString() }), version: r.version, ...(r.organization_id ? { organization_id: r.organization_id } : {}) };
}

async function consentRows(store: Store, userId: string): Promise<ConsentRecord[]> {
  return store.repo('consents').find({ user_id: userId }, { order: { created_at: 'ASC' } });
}

/** Latest decision per type (per organization for data_processing). */
function latest(rows: ConsentRecord[]): Map<string, ConsentRecord> {
  const out = new Map<string, ConsentRecord>();
  for (const r of rows) out.set(r.consent_type === 'data_processing' ? `data_processing:${r.organization_id}` : r.consent_type, r);
  return out;
}

/**
 * GET /api/gdpr/consent: {consents: {<type>: {granted, granted_at | revoked_at, version}}} for every type
 * decided; data_processing is the latest decision with `organizations` listing each organization's; with
 * `history`, every decision oldest first.
 */
export async function consentState(rt: Engine, userId: string, withHistory: boolean) {
  const rows = await consentRows(rt.store, userId);
  const last = latest(rows);
  const consents: Record<string, unknown> = {};
  const orgs: Record<string, unknown> = {};
  let lastDp: ConsentRecord | null = null;
  for (const [k, r] of last) {
    if (k.startsWith('data_processing:')) {
      orgs[r.organization_id!] = consentView(r);
      if (!lastDp || r.created_at >= lastDp.created_at) lastDp = r;
    } else consents[k] = consentView(r);
  }
  if (lastDp) consents.data_processing = { ...consentView(lastDp), organizations: orgs };
  return {
    consents,
    current_version: rt.config.privacy.policyVersion,
    ...(withHistory ? { history: rows.map((r) => ({ id: r.id, type: r.consent_type, granted: r.granted, version: r.version, organization_id: r.organization_id, at: r.created_at.toISOString() })) } : {}),
  };
}

export interface ConsentChange {
  type: string;
  granted: boolean;
  organization_id?: string | null;
}

/** Records consent decisions (one history row each), audit-logged. Required consents cannot be revoked. */
export async function recordConsents(rt: Engine, auth: AuthInfo, changes: ConsentChange[], ip: string | null): Promise<void> {
  for (const c of changes) {
    if (!(CONSENT_TYPES as readonly string[]).includes(c.type)) throw errors.validation(`Unknown consent type ${c.type}; known: ${CONSENT_TYPES.join(', ')}`, [{ field: 'type', message: 'unknown consent type' }]);
    if (!c.granted && REQUIRED_CONSENTS.includes(c.type as ConsentType)) {
      throw errors.conflict(`The ${c.type} consent is required to use the service and cannot be withdrawn; delete the account instead (POST /api/gdpr/delete-account)`, { type: c.type });
    }
    if (c.type === 'data_processing') {
      if (!c.organization_id) throw errors.validation('data_processing consent is given for an organization: send organization_id', [{ field: 'organization_id', message: 'required for data_processing' }]);
      const role = auth.memberships.find((m) => m.organization_id === c.organization_id)?.role;
      if (!role) throw errors.notFound('organization', c.organization_id);
      if (role !== 'owner' && role !== 'admin') throw errors.forbidden('Only owners and admins decide data_processing for the organization');
    } else if (c.organization_id) {
      throw errors.validation(`organization_id applies to data_processing only, not ${c.type}`, [{ field: 'organization_id', message: 'only for data_processing' }]);
    }
  }
  const now = new Date();
  const rows: ConsentRecord[] = changes.map((c, i) => ({
    id: randomUUID(),
    user_id: auth.user.id,
    organization_id: c.type === 'data_processing' ? (c.organization_id ?? null) : null,
    consent_type: c.type,
    granted: c.granted,
    version: rt.config.privacy.policyVersion,
    ip,
    // distinct times keep the order of a batch in the history
    created_at: new Date(now.getTime() + i),
  }));
  await rt.store.repo('consents').insertMany(rows);
  for (const r of rows) {
    await recordAudit(rt.store, { actor: auth.user.id, organization_id: r.organization_id, action: r.granted ? 'gdpr.consent.granted' : 'gdpr.consent.revoked', target_type: 'consent', target_id: r.id, details: { type: r.consent_type, version: r.version }, ip });
  }
}

/** At sign-up: the account was made by accepting the terms and the privacy policy of the current version. */
export async function recordSignupConsents(rt: Engine, userId: string, ip: string | null): Promise<void> {
  const now = new Date();
  const rows: ConsentRecord[] = REQUIRED_CONSENTS.map((t, i) => ({ id: randomUUID(), user_id: userId, organization_id: null, consent_type: t, granted: true, version: rt.config.privacy.policyVersion, ip, created_at: new Date(now.getTime() + i) }));
  await rt.store.repo('consents').insertMany(rows);
  await recordAudit(rt.store, { actor: userId, action: 'gdpr.consent.granted', target_type: 'consent', details: { types: REQUIRED_CONSENTS, version: rt.config.privacy.policyVersion, at: 'signup' }, ip });
}

/** GET /api/gdpr/consent/renewal-check: required consents not granted at the current version, and granted optional ones of an older version. */
export async function renewalCheck(rt: Engine, userId: string) {
  const version = rt.config.privacy.policyVersion;
  const last = latest(await consentRows(rt.store, userId));
  const types: string[] = [];
  const reasons: string[] = [];
  for (const t of REQUIRED_CONSENTS) {
    const r = last.get(t);
    if (!r || !r.granted) {
      types.push(t);
      reasons.push(`${t} was never accepted`);
    } else if (r.version !== version) {
      types.push(t);
      reasons.push(`${t} was accepted for version ${r.version}`);
    }
  }
  for (const t of ['marketing', 'analytics']) {
    const r = last.get(t);
    if (r?.granted && r.version !== version) {
      types.push(t);
      reasons.push(`${t} was given for version ${r.version}`);
    }
  }
  return { needs_renewal: types.length > 0, types, reason: types.length ? `The policy is now version ${version}: ${reasons.join('; ')}` : null, current_version: version };
}

// ------------------------------------------------------------------------------------------ export

export function exportView(rt: Engine, r: DataExportRequestRecord) {
  const expired = r.status === 'expired' || (r.status === 'completed' && r.expires_at && r.expires_at.getTime() <= Date.now());
  let fileUrl: string | null = null;
  if (r.status === 'completed' && !expired && r.expires_at) {
    const exp = Math.floor(r.expires_at.getTime() / 1000);
    fileUrl = `${rt.config.publicUrl}/api/gdpr/export/download/${r.id}?expires=${exp}&sig=${signLink(rt.signingSecret, EXPORT_LINK_PURPOSE, r.id, exp)}`;
  }
  return {
    request_id: r.id,
    status: expired ? 'expired' : r.status,
    file_url: fileUrl,
    file_size: expired ? null : r.file_size,
    expires_at: iso(r.expires_at),
    created_at: r.created_at.toISOString(),
    completed_at: iso(r.completed_at),
    ...(r.status === 'failed' ? { error: r.error } : {}),
  };
}

/** A user's export request (by id, else their latest), or null when there is none or it is someone else's. */
export async function exportRequestOf(rt: Engine, userId: string, requestId?: string): Promise<DataExportRequestRecord | null> {
  const repo = rt.store.repo('data_export_requests');
  const r = requestId ? await repo.get(requestId) : (await repo.find({ user_id: userId }, { order: { created_at: 'DESC' }, limit: 1 }))[0];
  return r && r.user_id === userId ? r : null;
}

/** The export a signed download link names (the caller checked the signature) when its zip is there to send. */
export async function downloadableExport(rt: Engine, id: string): Promise<DataExportRequestRecord | null> {
  const r = await rt.store.repo('data_export_requests').get(id);
  return r && r.status === 'completed' && r.file_key && (await rt.storage.exists(r.file_key)) ? r : null;
}

/** POST /api/gdpr/export: a request and its job; an export already under way is answered instead of a second one. */
export async function requestExport(rt: Engine, auth: AuthInfo, ip: string | null) {
  const open = await rt.store.repo('data_export_requests').find({ user_id: auth.user.id, status: ['pending', 'processing'] }, { order: { created_at: 'DESC' }, limit: 1 });
  const docs = await rt.store.repo('documents').count({ user_id: auth.user.id });
  // about a second to start, and a fraction of a second per document file copied
  const estimated = new Date(Date.now() + 5_000 + docs * 200);
  if (open[0]) return { request_id: open[0].id, status: open[0].status, message: 'An export of your data is already being prepared', estimated_completion: estimated.toISOString() };
  const now = new Date();
  const id = randomUUID();
  const jobId = randomUUID();
  const row: DataExportRequestRecord = { id, user_id: auth.user.id, organization_id: null, status: 'pending', job_id: jobId, file_key: null, file_size: null, error: null, expires_at: null, created_at: now, updated_at: now, completed_at: null };
  await submitJob(rt, GDPR_EXPORT_PIPELINE, { user_id: auth.user.id, organization_id: null }, { request_id: id }, {
    id: jobId,
    with: async (tx) => {
      await tx.repo('data_export_requests').insert(row);
    },
    beforeStart: () => recordAudit(rt.store, { actor: auth.user.id, action: 'gdpr.export.requested', target_type: 'data_export', target_id: id, ip }),
    payload: { requestId: id },
  });
  return { request_id: id, status: 'pending', message: 'Your data export is being prepared; poll GET /api/gdpr/export?requestId=<id> for the download link', estimated_completion: estimated.toISOString() };
}

const exportKey = (requestId: string) => `exports/${requestId}/export.zip`;
const json = (v: unknown) => Buffer.from(JSON.stringify(v, null, 2));
const apiKeyMeta = (k: { id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null; expires_at: Date | null; scopes?: unknown }) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes ?? ['full'],
  created_at: iso(k.created_at),
  last_used_at: iso(k.last_used_at),
  revoked_at: iso(k.revoked_at),
  expires_at: iso(k.expires_at),
});

/** The `build` stage of an export: every row of the user, with the files of their documents, into one zip. */
export async function buildExport(rt: Engine, requestId: string, signal?: AbortSignal): Promise<{ file_key: string; file_size: number; entries: number }> {
  const req = await rt.store.repo('data_export_requests').get(requestId);
  if (!req) throw errors.notFound('data export', requestId);
  await rt.store.repo('data_export_requests').update(requestId, { status: 'processing', updated_at: new Date() });
  const userId = req.user_id;
  const s = rt.store;
  const user = await s.repo('users').get(userId);
  if (!user) throw errors.notFound('user', userId);
  const zip = new yazl.ZipFile();
  let entries = 0;
  const add = (name: string, data: Buffer) => {
    zip.addBuffer(data, name);
    entries++;
  };
  const memberships = await s.repo('memberships').find({ user_id: userId });
  const { password_hash: _hash, ...profile } = user;
  add('profile.json', json({ ...profile, has_password: !!_hash, memberships: memberships.map((m) => ({ organization_id: m.organization_id, role: m.role, since: iso(m.created_at) })) }));

  const docs = await s.repo('documents').find({ user_id: userId }, { order: { created_at: 'ASC' } });
  add('documents.json', json(docs.map((d) => ({ id: d.id, name: d.name, status: d.status, file_type: d.file_type, mime_type: d.mime_type, file_size: d.file_size, sha256: d.sha256, pages: d.pages, organization_id: d.organization_id, knowledge_base_id: d.knowledge_base_id, parsing_config: d.parsing_config, created_at: iso(d.created_at), updated_at: iso(d.updated_at) }))));
  for (const d of docs) {
    signal?.throwIfAborted();
    const dir = `documents/${d.id}`;
    if (await rt.storage.exists(d.storage_key)) {
      zip.addReadStream(await rt.storage.stream(d.storage_key), `${dir}/${cleanFileName(d.name) || 'file'}`);
      entries++;
    }
    if (await rt.storage.exists(contentKey(d.id))) add(`${dir}/content.json`, await rt.storage.get(contentKey(d.id)));
  }
  const extractions = await s.repo('extractions').find({ user_id: userId }, { order: { created_at: 'ASC' } });
  add('extractions.json', json(extractions.map((x) => ({ ...x, created_at: iso(x.created_at), updated_at: iso(x.updated_at) }))));
  const schemas = await s.repo('schemas').find({ user_id: userId });
  add('schemas.json', json(schemas));

  const sessions = await s.repo('chat_sessions').find({ user_id: userId }, { order: { created_at: 'ASC' } });
  const messages = await s.repo('chat_messages').find({ user_id: userId }, { order: { created_at: 'ASC' } });
  const sessionIds = new Set(sessions.map((cs) => cs.id));
  const history: unknown[] = sessions.map((cs) => ({ ...cs, messages: messages.filter((m) => m.session_id === cs.id) }));
  // messages the user wrote in sessions that are not theirs (none today; kept so that nothing is left out)
  const elsewhere = messages.filter((m) => !sessionIds.has(m.session_id));
  if (elsewhere.length) history.push({ id: null, title: null, messages: elsewhere });
  add('chat_history.json', json(history));

  const kbs = await s.repo('collections').find({ user_id: userId });
  const links = kbs.length ? await s.repo('collection_documents').find({ collection_id: kbs.map((k) => k.id) }) : [];
  add('knowledge_bases.json', json(kbs.map((k) => ({ ...k, document_ids: links.filter((l) => l.collection_id === k.id).map((l) => l.document_id) }))));

  add('api_keys.json', json((await s.repo('api_keys').find({ user_id: userId })).map(apiKeyMeta)));
  add('consents.json', json((await s.repo('consents').find({ user_id: userId }, { order: { created_at: 'ASC' } })).map((c) => ({ type: c.consent_type, granted: c.granted, version: c.version, organization_id: c.organization_id, at: iso(c.created_at) }))));
  add('audit_log.json', json((await auditOf(s, userId, 100_000)).map((e) => ({ ...e, created_at: iso(e.created_at) }))));
  add('README.txt', Buffer.from(`Quire data export of ${user.email}, made ${new Date().toISOString()}.\nprofile.json, documents.json (and documents/<id>/ with each file and its parsed content), extractions.json, schemas.json, chat_history.json, knowledge_bases.json, api_keys.json (metadata only: the keys themselves are never stored), consents.json (every decision), audit_log.json.\n`));
  zip.end();
  const key = exportKey(requestId);
  const { size } = await rt.storage.put(key, zip.outputStream as unknown as Readable);
  return { file_key: key, file_size: size, entries };
}

export async function completeExport(rt: Engine, requestId: string, out: { file_key: string; file_size: number }): Promise<void> {
  const now = new Date();
  const req = await rt.store.repo('data_export_requests').get(requestId);
  await rt.store.repo('data_export_requests').update(requestId, { status: 'completed', file_key: out.file_key, file_size: out.file_size, expires_at: new Date(now.getTime() + rt.config.privacy.exportTtlMs), completed_at: now, updated_at: now });
  if (req) await recordAudit(rt.store, { actor: req.user_id, action: 'gdpr.export.completed', target_type: 'data_export', target_id: requestId, details: { file_size: out.file_size } });
}

export async function failExport(rt: Engine, requestId: string, message: string): Promise<void> {
  await rt.store.repo('data_export_requests').update(requestId, { status: 'failed', error: message.slice(0, 2000), updated_at: new Date(), completed_at: new Date() });
  await rt.storage.deletePrefix(`exports/${requestId}/`).catch(() => {});
}

/** Removes the stored zip of an export (expired, or built for a user erased meanwhile). */
export const removeExport = (rt: Engine, requestId: string) => rt.storage.deletePrefix(`exports/${requestId}/`);

/** Exports past their time: zip removed, status expired. */
export async function expireExports(rt: Engine, now = new Date()): Promise<number> {
  const done = await rt.store.repo('data_export_requests').find({ status: 'completed' });
  let n = 0;
  for (const r of done) {
    if (!r.expires_at || r.expires_at.getTime() > now.getTime()) continue;
    await removeExport(rt, r.id).catch(() => {});
    await rt.store.repo('data_export_requests').update(r.id, { status: 'expired', file_key: null, updated_at: now });
    n++;
  }
  return n;
}

// ------------------------------------------------------------------------------------------ deletion

export function deletionView(rt: Engine, r: DeletionRequestRecord) {
  return {
    request_id: r.id,
    status: r.status,
    scheduled_at: r.scheduled_at.toISOString(),
    can_cancel: r.status === 'scheduled' || r.status === 'pending',
    grace_period_days: r.immediate ? 0 : rt.config.privacy.deletionGraceDays,
    reason: r.reason,
    created_at: r.created_at.toISOString(),
    cancelled_at: iso(r.cancelled_at),
    completed_at: iso(r.completed_at),
  };
}

/**
 * Organizations that keep the user from leaving: those where they are the only owner and others remain.
 * Organizations they alone belong to are deleted with the account.
 */
async function blockingOrganizations(store: Store, userId: string): Promise<{ blocking: string[]; alone: string[] }> {
  const mine = await store.repo('memberships').find({ user_id: userId });
  const blocking: string[] = [];
  const alone: string[] = [];
  for (const m of mine) {
    const all = await store.repo('memberships').find({ organization_id: m.organization_id });
    if (all.length === 1) alone.push(m.organization_id);
    else if (m.role === 'owner' && !all.some((x) => x.user_id !== userId && x.role === 'owner')) blocking.push(m.organization_id);
  }
  return { blocking, alone };
}

/** Tables whose rows of a leaving user stay with the organization; chat history and privacy records do not. */
const PERSONAL_TABLES = new Set<string>(['chat_sessions', 'chat_messages', 'consents', 'data_export_requests', 'deletion_requests', 'audit_log', 'sessions', 'api_keys', 'user_totp', 'memberships', 'invitations']);

/**
 * Documents the user generated into an organization from their own personal documents are derived from
 * those documents: they go with them (with their generation job) rather than being handed to the organization.
 */
async function eraseGeneratedFromOwn(rt: Engine, userId: string): Promise<void> {
  const jobs = (await rt.store.repo('jobs').find({ user_id: userId, type: GENERATE_JOB_TYPE })).filter((j) => j.organization_id);
  if (!jobs.length) return;
  const own = new Set((await rt.store.repo('documents').find({ user_id: userId, organization_id: null })).map((d) => d.id));
  for (const j of jobs) {
    const input = (j.input ?? {}) as { source_document_ids?: string[]; document_id?: string };
    if (!(input.source_document_ids ?? []).some((id) => own.has(id))) continue;
    const out = input.document_id ? await rt.store.repo('documents').get(input.document_id) : null;
    if (out) await deleteDocument(rt, out);
    await rt.store.repo('jobs').delete(j.id);
  }
}

/** Deletes the account now; returns the erased row counts. Throws CONFLICT when an organization needs a new owner first. */
export async function deleteAccount(rt: Engine, userId: string, requestId: string | null): Promise<Record<string, number>> {
  const { blocking, alone } = await blockingOrganizations(rt.store, userId);
  if (blocking.length) throw errors.conflict('You are the only owner of organizations that have other members: transfer ownership (or delete them) first', { organization_ids: blocking });
  // from here on no handler starts for the user's events (their webhooks and workflows go too)
  const unmute = rt.events.mute((e) => e.user_id === userId);
  try {
    // the user's own jobs, and those of organizations that go with the account, are fenced (running ones
    // cancelled); those in organizations that go on are handed over, not erased
    await quiesceScope(rt, { user_id: userId }, [{ user_id: userId, organization_id: null }, ...alone.map((organization_id) => ({ organization_id }))]);
    return await eraseAccount(rt, userId, requestId, alone);
  } finally {
    unmute();
  }
}

async function eraseAccount(rt: Engine, userId: string, requestId: string | null, alone: string[]): Promise<Record<string, number>> {
  await recordAudit(rt.store, { actor: userId, action: 'gdpr.account.deleted', target_type: 'user', target_id: null, details: { request_id: requestId, organizations_deleted: alone.length } });
  const counts: Record<string, number> = {};
  const addCounts = (c: Record<string, number>) => {
    for (const [k, v] of Object.entries(c)) counts[k] = (counts[k] ?? 0) + v;
  };
  // organizations of this user alone go with the account
  for (const orgId of alone) {
    addCounts(await eraseResources(rt, { organization_id: orgId }));
    await rt.store.repo('organizations').delete(orgId);
  }
  await eraseGeneratedFromOwn(rt, userId);
  // the user's resources in organizations that go on are the organization's: handed to its (first) owner
  const tables = rt.store.tables?.() ?? {};
  const memberships = await rt.store.repo('memberships').find({ user_id: userId });
  for (const m of memberships) {
    const owners = (await rt.store.repo('memberships').find({ organization_id: m.organization_id, role: 'owner' }, { order: { created_at: 'ASC' } })).filter((o) => o.user_id !== userId);
    const heir = owners[0]?.user_id;
    if (!heir) continue;
    // the search index keeps an owner per item too
    const vectors = rt.registry.tryGet('vector-store');
    if (vectors?.setOwner) for (const d of await rt.store.repo('documents').find({ user_id: userId, organization_id: m.organization_id })) await vectors.setOwner(d.id, { userId: heir, organizationId: m.organization_id });
    for (const [t, cols] of Object.entries(tables)) {
      if (PERSONAL_TABLES.has(t) || !cols.includes('user_id') || !cols.includes('organization_id')) continue;
      const repo = rt.store.repo(t as TableName) as unknown as { update(w: unknown, p: unknown): Promise<number> };
      const n = await repo.update({ user_id: userId, organization_id: m.organization_id }, { user_id: heir });
      if (n) counts[`${t} (handed to the organization)`] = (counts[`${t} (handed to the organization)`] ?? 0) + n;
    }
  }
  // invitations addressed to the user's email, and those they sent, name them: they go too
  const email = (await rt.store.repo('users').get(userId))?.email.toLowerCase();
  const invitations = (email ? await rt.store.repo('invitations').delete({ email }) : 0) + (await rt.store.repo('invitations').delete({ invited_by: userId }));
  if (invitations) counts.invitations = invitations;
  addCounts(await eraseResources(rt, { user_id: userId }));
  await rt.store.repo('users').delete(userId);
  counts.users = 1;
  counts.audit_log_anonymised = await anonymiseAudit(rt.store, userId);
  // handlers of other events that were under way while erasing (the user's own are muted) end before the checkpoint
  await rt.events.settle(() => true, rt.config.privacy.eraseWaitMs);
  // the deleted rows must not linger in write-ahead logs (free pages are zeroed: secure_delete)
  await rt.store.checkpoint?.();
  await rt.registry.tryGet('vector-store')?.checkpoint?.();
  return counts;
}

/** POST /api/gdpr/delete-account. */
export async function requestDeletion(rt: Engine, auth: AuthInfo, body: { reason?: string | null; immediate?: boolean }, ip: string | null) {
  const userId = auth.user.id;
  const open = (await rt.store.repo('deletion_requests').find({ user_id: userId, status: ['pending', 'scheduled', 'processing'] }, { order: { created_at: 'DESC' }, limit: 1 }))[0];
  const now = new Date();
  if (open && !body.immediate) {
    return { ...deletionView(rt, open), message: `A deletion is already ${open.status} for ${open.scheduled_at.toISOString()}` };
  }
  const { blocking } = await blockingOrganizations(rt.store, userId);
  if (blocking.length) throw errors.conflict('You are the only owner of organizations that have other members: transfer ownership (or delete them) first', { organization_ids: blocking });
  const graceDays = rt.config.privacy.deletionGraceDays;
  const row: DeletionRequestRecord = {
    id: open?.id ?? randomUUID(),
    user_id: userId,
    organization_id: null,
    status: body.immediate ? 'processing' : 'scheduled',
    reason: body.reason ?? null,
    immediate: !!body.immediate,
    scheduled_at: body.immediate ? now : new Date(now.getTime() + graceDays * 86_400_000),
    created_at: open?.created_at ?? now,
    updated_at: now,
    cancelled_at: null,
    completed_at: null,
  };
  if (open) await rt.store.repo('deletion_requests').update(open.id, { status: row.status, immediate: true, scheduled_at: row.scheduled_at, reason: row.reason ?? open.reason, updated_at: now });
  else await rt.store.repo('deletion_requests').insert(row);
  await recordAudit(rt.store, { actor: userId, action: body.immediate ? 'gdpr.deletion.immediate' : 'gdpr.deletion.scheduled', target_type: 'deletion_request', target_id: row.id, details: { scheduled_at: row.scheduled_at.toISOString() }, ip });
  if (body.immediate) {
    await deleteAccount(rt, userId, row.id);
    return { request_id: row.id, status: 'completed', scheduled_at: row.scheduled_at.toISOString(), grace_period_days: 0, message: 'Your account and all its data were deleted; the audit log keeps anonymised entries only' };
  }
  return { request_id: row.id, status: 'scheduled', scheduled_at: row.scheduled_at.toISOString(), grace_period_days: graceDays, message: `Your account will be deleted on ${row.scheduled_at.toISOString()}; cancel before then with DELETE /api/gdpr/delete-account?requestId=${row.id}` };
}

/** GET /api/gdpr/delete-account: the latest request, or nulls when there is none. */
export async function deletionStatus(rt: Engine, userId: string) {
  const last = (await rt.store.repo('deletion_requests').find({ user_id: userId }, { order: { created_at: 'DESC' }, limit: 1 }))[0];
  if (!last) return { request_id: null, status: null, scheduled_at: null, can_cancel: false };
  return deletionView(rt, last);
}

/** DELETE /api/gdpr/delete-account?requestId=: cancels a scheduled (or waiting) deletion. */
export async function cancelDeletion(rt: Engine, userId: string, requestId: string, ip: string | null) {
  const r = await rt.store.repo('deletion_requests').get(requestId);
  if (!r || r.user_id !== userId) throw errors.notFound('deletion request', requestId);
  if (r.status !== 'scheduled' && r.status !== 'pending') throw errors.conflict(`This deletion request is ${r.status} and can no longer be cancelled`, { status: r.status });
  const now = new Date();
  // only the request still waiting is cancelled: a sweep that took it meanwhile wins
  const n = await rt.store.repo('deletion_requests').update({ id: r.id, status: r.status }, { status: 'cancelled', cancelled_at: now, updated_at: now });
  if (!n) throw errors.conflict('This deletion request is being carried out and can no longer be cancelled');
  await recordAudit(rt.store, { actor: userId, action: 'gdpr.deletion.cancelled', target_type: 'deletion_request', target_id: r.id, ip });
  return { ...deletionView(rt, { ...r, status: 'cancelled', cancelled_at: now, updated_at: now }), message: 'The deletion was cancelled' };
}

/**
 * Carries out the deletions whose grace period is over (scheduled, or pending on an organization's owner).
 * Each is claimed by moving it to processing first, so that one process runs it.
 */
export async function runDueDeletions(rt: Engine, now = new Date()): Promise<number> {
  const due = (await rt.store.repo('deletion_requests').find({ status: ['scheduled', 'pending'] })).filter((r) => r.scheduled_at.getTime() <= now.getTime());
  let done = 0;
  for (const r of due) {
    if (!(await rt.store.repo('deletion_requests').update({ id: r.id, status: r.status }, { status: 'processing', updated_at: new Date() }))) continue;
    try {
      await deleteAccount(rt, r.user_id, r.id);
      done++;
    } catch (e) {
      // an organization still needs a new owner: the request waits as pending (and can still be cancelled)
      await rt.store.repo('deletion_requests').update(r.id, { status: 'pending', updated_at: new Date() });
      rt.logger.warn({ request: r.id, err: (e as Error).message }, 'account deletion postponed');
    }
  }
  return done;
}
