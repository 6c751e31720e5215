/**
 * Presigned uploads: a URL whose random token is the credential (kept hashed), valid for an hour and until an
 * upload to it succeeds. One upload at a time holds the URL; a failed one gives it back.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { errors, safeEqualHex } from '@quire/core';
import type { PresignedUploadRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { UUID } from '../validation.js';
import { cleanFileName } from '../infra/file-names.js';

export const PRESIGNED_TTL_MS = 60 * 60 * 1000;
const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new presigned upload of a user: its id, the token of its URL (shown once), the future document's id and the expiry. */
export async function createPresignedUpload(rt: Engine, userId: string, file: { filename: string; contentType: string; maxBytes: number }): Promise<{ id: string; token: string; documentId: string; expires: Date }> {
  const token = randomBytes(24).toString('hex');
  const id = randomUUID();
  const documentId = randomUUID();
  const expires = new Date(Date.now() + PRESIGNED_TTL_MS);
  await rt.store.repo('presigned_uploads').insert({
    id,
    user_id: userId,
    organization_id: null,
    document_id: documentId,
    filename: cleanFileName(file.filename),
    content_type: file.contentType,
    file_size: file.maxBytes,
    token_hash: hash(token),
    expires_at: expires,
    used_at: null,
    created_at: new Date(),
  });
  return { id, token, documentId, expires };
}

/** The presigned upload of a URL when its token is right, unexpired and unused (401 / 409 otherwise). */
export async function openPresignedUpload(rt: Engine, id: string, token: string): Promise<PresignedUploadRecord> {
  const row = UUID.test(id) ? await rt.store.repo('presigned_uploads').get(id) : null;
  if (!row || !token || !safeEqualHex(row.token_hash, hash(token))) throw errors.unauthorized('Invalid upload URL');
  if (row.expires_at.getTime() < Date.now()) throw errors.unauthorized('Upload URL expired');
  if (row.used_at) throw errors.conflict('This upload URL was already used');
  return row;
}

/** Holds the URL while the bytes arrive (409 when another upload holds it or one succeeded). */
export async function claimPresignedUpload(rt: Engine, id: string): Promise<void> {
  if ((await rt.store.repo('presigned_uploads').update({ id, used_at: null }, { used_at: new Date() })) !== 1) throw errors.conflict('This upload URL was already used (or an upload to it is in progress)');
}

/** Gives the URL back after a failed upload, so that a retry works. */
export async function releasePresignedUpload(rt: Engine, id: string): Promise<void> {
  await rt.store.repo('presigned_uploads').update(id, { used_at: null });
}
