/**
 * Secrets at rest (integration URLs and headers, webhook signing secrets): AES-256-GCM with a key from QUIRE_SECRETS_KEY (64 hex characters are used as
 * they are; any other passphrase is stretched with scrypt), else a key generated once into the data dir
 * (secrets.key, 0600), as the signing secret is. A stored value is base64 of iv (12) | tag (16) | ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errors, makePrivateSync, mkdirPrivateSync } from '@quire/core';
import type { PluginRegistry } from '@quire/core';

/** What holds the key of secrets at rest: the data dir and config, and the registry that keeps it loaded. */
export interface SecretsKeyHolder {
  config: { dataDir: string; workflows: { secretsKey?: string } };
  registry: Pick<PluginRegistry, 'service'>;
}

/** The key of secrets at rest (loaded once per registry). */
export function secretsKey(rt: SecretsKeyHolder): Buffer {
  return rt.registry.service('secrets-key', () => ({ value: loadSecretsKey(rt.config.dataDir, rt.config.workflows.secretsKey) }));
}

export function loadSecretsKey(dataDir: string, configured?: string): Buffer {
  if (configured) return /^[0-9a-f]{64}$/i.test(configured) ? Buffer.from(configured, 'hex') : scryptSync(configured, 'quire-integration-secrets', 32);
  const file = path.join(dataDir, 'secrets.key');
  const read = () => Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  try {
    return read();
  } catch {
    mkdirPrivateSync(dataDir);
    const key = randomBytes(32);
    try {
      fs.writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
      makePrivateSync(file);
      return key;
    } catch {
      return read(); // another process won the race
    }
  }
}

export function encryptSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function decryptSecret(key: Buffer, stored: string): string {
  const raw = Buffer.from(stored, 'base64');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    // the usual cause: a data dir restored without its secrets.key, or QUIRE_SECRETS_KEY changed
    throw errors.unavailable('A stored secret cannot be decrypted: the secrets key (secrets.key in the data dir, or QUIRE_SECRETS_KEY) is not the one it was stored with. Restore that key, or set the secret again');
  }
}

/** A URL as the API shows a secret one: its scheme and host, the rest hidden. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/****`;
  } catch {
    return '****';
  }
}
