import { createHash, randomBytes, randomUUID, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { errors } from '@quire/core';
import type { ApiKeyRecord, ApiKeyScope, Plan, Store, UserRecord } from '@quire/core';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

export const KEY_PATTERN = /^svc_[0-9a-f]{32,128}$/;

/** API keys are stored only as a SHA-256 hash: they are 128-bit random, so a slow hash adds nothing. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function newKey(): string {
  return `svc_${randomBytes(24).toString('hex')}`;
}

/** scrypt password hash: scrypt$N$r$p$salt$hash */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const N = 16384, r = 8, p = 1;
  const hash = await scrypt(password, salt, 32, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(expected, got);
}

export async function findOrCreateUser(store: Store, email: string, plan: Plan, name: string | null = null): Promise<UserRecord> {
  const users = store.repo('users');
  const existing = await users.findOne({ email });
  if (existing) {
    if (existing.plan !== plan) {
      await users.update(existing.id, { plan, updated_at: new Date() });
      existing.plan = plan;
    }
    return existing;
  }
  const now = new Date();
  return users.insert({ id: randomUUID(), email, name, password_hash: null, plan, avatar_url: null, created_at: now, updated_at: now });
}

/** Creates a key for a user; returns the plain key (shown once) and the stored record. */
export async function createKey(store: Store, userId: string, name: string, plain = newKey(), opts: { scopes?: ApiKeyScope[]; expiresAt?: Date | null } = {}): Promise<{ key: string; record: ApiKeyRecord }> {
  const record = await store.repo('api_keys').insert({
    id: randomUUID(),
    user_id: userId,
    name,
    prefix: plain.slice(0, 12),
    key_hash: hashKey(plain),
    created_at: new Date(),
    last_used_at: null,
    revoked_at: null,
    expires_at: opts.expiresAt ?? null,
    scopes: opts.scopes ?? ['full'],
  });
  return { key: plain, record };
}

/**
 * Creates a key for a user who holds fewer than `max` active keys (neither revoked nor expired): counted
 * and inserted in one transaction under the user's lock, so concurrent requests cannot pass the count
 * together. 409 CONFLICT at the limit (QUIRE_API_KEYS_<PLAN>), naming it.
 */
export async function createKeyWithin(store: Store, user: UserRecord, max: number, name: string, opts: { scopes?: ApiKeyScope[]; expiresAt?: Date | null } = {}): Promise<{ key: string; record: ApiKeyRecord }> {
  return store.transaction(async (tx) => {
    await tx.lock(`api-keys:${user.id}`);
    const now = Date.now();
    const active = (await tx.repo('api_keys').find({ user_id: user.id, revoked_at: null })).filter((k) => !k.expires_at || k.expires_at.getTime() > now).length;
    if (active >= max) throw errors.conflict(`You have ${active} active API keys, the most the ${user.plan} plan allows: revoke one (DELETE /api/keys/<id>) before making another`, { limit: max, active, plan: user.plan });
    return createKey(tx, user.id, name, undefined, opts);
  });
}

/** Makes sure `key` exists (not revoked) for the bootstrap admin user with the given plan. */
export async function ensureBootstrapKey(store: Store, key: string, plan: Plan): Promise<{ user: UserRecord; record: ApiKeyRecord }> {
  const user = await findOrCreateUser(store, 'admin@quire.local', plan, 'Bootstrap admin');
  const keys = store.repo('api_keys');
  const existing = await keys.findOne({ key_hash: hashKey(key) });
  if (existing) {
    if (existing.revoked_at || existing.user_id !== user.id) await keys.update(existing.id, { revoked_at: null, user_id: user.id });
    return { user, record: { ...existing, revoked_at: null, user_id: user.id } };
  }
  const { record } = await createKey(store, user.id, 'bootstrap', key);
  return { user, record };
}

export async function revokeKey(store: Store, id: string): Promise<boolean> {
  return (await store.repo('api_keys').update({ id, revoked_at: null }, { revoked_at: new Date() })) > 0;
}
