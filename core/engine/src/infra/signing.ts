import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { hmacHex, makePrivateSync, mkdirPrivateSync, safeEqualHex } from '@quire/core';

/** The signing secret: from config, else generated once into the data dir (0600) and reused. */
export function loadSigningSecret(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'signing.key');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    mkdirPrivateSync(dataDir);
    const secret = randomBytes(32).toString('hex');
    try {
      fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      makePrivateSync(file);
      return secret;
    } catch {
      return fs.readFileSync(file, 'utf8').trim(); // another process won the race
    }
  }
}

export { hmacHex, safeEqualHex };

/** Signs `purpose:id:expires` for links that work without an API key (studio links, downloads). */
export function signLink(secret: string, purpose: string, id: string, expiresAt: number): string {
  return hmacHex(secret, `${purpose}:${id}:${expiresAt}`);
}

export function verifyLink(secret: string, purpose: string, id: string, expiresAt: number, sig: string): boolean {
  if (!Number.isFinite(expiresAt) || expiresAt * 1000 < Date.now()) return false;
  return safeEqualHex(signLink(secret, purpose, id, expiresAt), sig);
}

/** Per-user key for callbacks sent to a per-request webhook_url (GET /api/webhooks/callback-secret shows it). */
export function callbackSecret(secret: string, userId: string): string {
  return `whsec_${hmacHex(secret, `callback:${userId}`)}`;
}
