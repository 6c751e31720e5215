import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { QuireError, StoreConflictError, errors } from '@quire/core';
import type { ApiKeyRecord, ApiKeyScope, SessionRecord, Store, UserRecord } from '@quire/core';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { createKey, hashPassword, newKey, verifyPassword } from './keys.js';

/** Spec §4.12: at least 8 characters, one uppercase, one lowercase, one number, one special character. */
export function passwordProblems(pw: string): string[] {
  const out: string[] = [];
  if (pw.length < 8) out.push('at least 8 characters');
  if (!/[A-Z]/.test(pw)) out.push('an uppercase letter');
  if (!/[a-z]/.test(pw)) out.push('a lowercase letter');
  if (!/[0-9]/.test(pw)) out.push('a number');
  if (!/[^A-Za-z0-9]/.test(pw)) out.push('a special character');
  return out;
}

export function assertPasswordRules(pw: string, field = 'password'): void {
  const missing = passwordProblems(pw);
  if (missing.length) {
    throw new QuireError('VALIDATION_ERROR', `${field} needs ${missing.join(', ')}`, { field, rules: 'at least 8 characters, with an uppercase letter, a lowercase letter, a number and a special character', missing });
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Session tokens are 256-bit random; only their SHA-256 is stored. */
export function hashSessionToken(token: string): string {
  return sha256(`session:${token}`);
}

/** The CSRF proof of a session: derived from its token, so a page on another site cannot know it. */
export function csrfTokenFor(sessionToken: string): string {
  return sha256(`csrf:${sessionToken}`);
}

export const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function createSession(store: Store, userId: string, ttlMs: number, meta: { ip?: string | null; userAgent?: string | null } = {}, clock: Clock = systemClock): Promise<{ token: string; record: SessionRecord }> {
  const token = randomBytes(32).toString('base64url');
  const now = new Date(clock.now());
  // the user's sessions that expired unseen go now
  for (const old of await store.repo('sessions').find({ user_id: userId })) if (old.expires_at.getTime() <= now.getTime()) await store.repo('sessions').delete(old.id);
  const record = await store.repo('sessions').insert({
    id: randomUUID(),
    user_id: userId,
    token_hash: hashSessionToken(token),
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + ttlMs),
    ip: meta.ip?.slice(0, 64) ?? null,
    user_agent: meta.userAgent?.slice(0, 512) ?? null,
  });
  return { token, record };
}

/** The live session of a token (an expired one is removed and not returned); notes last_seen_at at most once a minute. */
export async function findSession(store: Store, token: string, clock: Clock = systemClock): Promise<SessionRecord | null> {
  if (!SESSION_TOKEN.test(token)) return null;
  const repo = store.repo('sessions');
  const row = await repo.findOne({ token_hash: hashSessionToken(token) });
  if (!row) return null;
  const now = clock.now();
  if (row.expires_at.getTime() <= now) {
    await repo.delete(row.id).catch(() => {});
    return null;
  }
  if (now - row.last_seen_at.getTime() > 60_000) repo.update(row.id, { last_seen_at: new Date(now) }).catch(() => {});
  return row;
}

export async function endSession(store: Store, id: string): Promise<void> {
  await store.repo('sessions').delete(id);
}

/** Ends every session of the user but `keepId` (after a password change); returns how many ended. */
export async function endOtherSessions(store: Store, userId: string, keepId: string | null): Promise<number> {
  const repo = store.repo('sessions');
  let n = 0;
  for (const s of await repo.find({ user_id: userId })) if (s.id !== keepId) n += await repo.delete(s.id);
  return n;
}

/** A password sign-up; the email must be free (a user made on the command line is not claimed by signing up). */
export async function signUp(store: Store, input: { email: string; password: string; name?: string | null }): Promise<UserRecord> {
  assertPasswordRules(input.password);
  const email = normalizeEmail(input.email);
  const users = store.repo('users');
  if (await users.findOne({ email })) throw errors.conflict('An account with this email already exists');
  const now = new Date();
  try {
    return await users.insert({ id: randomUUID(), email, name: input.name ?? null, password_hash: await hashPassword(input.password), plan: 'free', avatar_url: null, created_at: now, updated_at: now });
  } catch (e) {
    if (e instanceof StoreConflictError) throw errors.conflict('An account with this email already exists');
    throw e;
  }
}

/**
 * Self-service sign-up that does not tell whether the email is registered: a new email gets its account
 * (returned); a registered one gets nothing here (null), with the password hashed all the same so the
 * answer takes as long, and `notify` is told (it mails the account's owner where email is set up). Two
 * sign-ups of one new email at once make one account.
 */
export async function signUpOrNotice(store: Store, input: { email: string; password: string; name?: string | null }, notify: (existing: UserRecord) => void): Promise<UserRecord | null> {
  assertPasswordRules(input.password);
  const existing = await store.repo('users').findOne({ email: normalizeEmail(input.email) });
  if (!existing) {
    try {
      return await signUp(store, input);
    } catch (e) {
      if (!(e instanceof QuireError && e.code === 'CONFLICT')) throw e;
    }
  } else await hashPassword(input.password);
  const user = existing ?? (await store.repo('users').findOne({ email: normalizeEmail(input.email) }));
  if (user) notify(user);
  return null;
}

let dummyHash: Promise<string> | null = null;

/** The user whose password this is, or null; the same work is done when there is no such user. */
export async function checkLogin(store: Store, email: string, password: string): Promise<UserRecord | null> {
  const user = await store.repo('users').findOne({ email: normalizeEmail(email) });
  if (!user?.password_hash) {
    await verifyPassword(password, await (dummyHash ??= hashPassword(randomBytes(16).toString('hex'))));
    return null;
  }
  return (await verifyPassword(password, user.password_hash)) ? user : null;
}

/** Changes the password (checked against the current one and the rules) and ends the user's other sessions. */
export async function changePassword(store: Store, user: UserRecord, current: string, next: string, keepSessionId: string | null): Promise<number> {
  if (!user.password_hash || !(await verifyPassword(current, user.password_hash))) throw new QuireError('VALIDATION_ERROR', 'current_password is wrong', { field: 'current_password' });
  assertPasswordRules(next, 'new_password');
  await store.repo('users').update(user.id, { password_hash: await hashPassword(next), updated_at: new Date() });
  return endOtherSessions(store, user.id, keepSessionId);
}

/** A subject of the login throttle (e.g. `email:…|ip:…`) and how many failed attempts it may have per window. */
export interface ThrottleLimit {
  subject: string;
  max: number;
}

/**
 * Counts failed attempts at a secret (password, TOTP code) per subject in fixed windows, in the store so
 * that every API process sees them. An attempt is counted before the secret is checked: `attempt`
 * increments every subject's counter atomically and refuses when one goes past its limit (the refused
 * attempt is not counted), so concurrent guesses cannot all pass a check made before any of them counted;
 * an attempt that turns out right gives its count back (`succeeded`).
 */
export class LoginThrottle {
  constructor(private readonly store: Store, private readonly windowMs: number) {}

  private key(subject: string, now: number): { id: string; resetAt: Date } {
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    return { id: `login:${sha256(subject).slice(0, 32)}:${start}`, resetAt: new Date(start + this.windowMs) };
  }

  /**
   * Counts an attempt for every subject. `wait`: 0 when it may go ahead, else the seconds until it may be
   * tried again; `succeeded()` gives the count back when the secret was right.
   */
  async attempt(limits: ThrottleLimit[]): Promise<{ wait: number; succeeded: () => Promise<void> }> {
    const now = Date.now();
    const wait = await this.take(limits, now);
    return { wait, succeeded: () => this.giveBack(limits, now) };
  }

  private async take(limits: ThrottleLimit[], now: number): Promise<number> {
    let over: Date | null = null;
    const counted: ThrottleLimit[] = [];
    for (const l of limits) {
      const { id, resetAt } = this.key(l.subject, now);
      const n = await this.store.increment(id, 1, resetAt);
      counted.push(l);
      if (n > l.max) {
        over = resetAt;
        break;
      }
    }
    if (!over) return 0;
    await this.giveBack(counted, now);
    return Math.max(1, Math.ceil((over.getTime() - now) / 1000));
  }

  private async giveBack(limits: ThrottleLimit[], now: number): Promise<void> {
    for (const l of limits) {
      const { id, resetAt } = this.key(l.subject, now);
      await this.store.increment(id, -1, resetAt);
    }
  }
}

// ---- API keys managed by their owner

export function keyStatus(k: ApiKeyRecord, now = Date.now()): 'active' | 'expired' | 'revoked' {
  if (k.revoked_at) return 'revoked';
  return k.expires_at && k.expires_at.getTime() <= now ? 'expired' : 'active';
}

export function keyScopes(k: ApiKeyRecord): ApiKeyScope[] {
  return k.scopes?.length ? k.scopes : ['full'];
}

/** Only requests that change nothing (GET, HEAD, OPTIONS) are allowed to a read-only key. */
export function scopeAllows(k: ApiKeyRecord, method: string): boolean {
  return keyScopes(k).includes('full') || ['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

/** A user's API keys that are not revoked, the newest first. */
export async function activeKeys(store: Store, userId: string): Promise<ApiKeyRecord[]> {
  return store.repo('api_keys').find({ user_id: userId, revoked_at: null }, { order: { created_at: 'DESC' } });
}

/** The caller's key, not revoked; someone else's or a revoked one is not found. */
export async function ownKey(store: Store, userId: string, id: string): Promise<ApiKeyRecord> {
  const k = /^[0-9a-f-]{36}$/i.test(id) ? await store.repo('api_keys').get(id) : null;
  if (!k || k.user_id !== userId || k.revoked_at) throw errors.notFound('api_key', id);
  return k;
}

/**
 * Revokes the old key and makes its successor in one transaction: same name and scopes; the same expiry
 * unless one is given (none when the old one has passed).
 */
export async function rotateKey(store: Store, userId: string, id: string, expiresAt?: Date | null): Promise<{ key: string; record: ApiKeyRecord; revoked: ApiKeyRecord }> {
  return store.transaction(async (tx) => {
    const old = await ownKey(tx, userId, id);
    const now = new Date();
    if ((await tx.repo('api_keys').update({ id: old.id, revoked_at: null }, { revoked_at: now })) !== 1) throw errors.notFound('api_key', id);
    const made = await createKey(tx, userId, old.name, newKey(), { scopes: keyScopes(old), expiresAt: expiresAt !== undefined ? expiresAt : old.expires_at && old.expires_at.getTime() > now.getTime() ? old.expires_at : null });
    return { ...made, revoked: { ...old, revoked_at: now } };
  });
}

/** A user's profile change: a new email must be free (409 otherwise, also when another account takes it meanwhile). */
export async function updateProfile(store: Store, userId: string, change: { name?: string | null; email?: string; avatar_url?: string | null }): Promise<Partial<UserRecord>> {
  const patch: Partial<UserRecord> = { updated_at: new Date() };
  if (change.name !== undefined) patch.name = change.name;
  if (change.avatar_url !== undefined) patch.avatar_url = change.avatar_url;
  if (change.email !== undefined) {
    const e = normalizeEmail(change.email);
    const other = await store.repo('users').findOne({ email: e });
    if (other && other.id !== userId) throw errors.conflict('Another account uses this email');
    patch.email = e;
  }
  try {
    await store.repo('users').update(userId, patch);
  } catch (err) {
    if (err instanceof StoreConflictError) throw errors.conflict('Another account uses this email');
    throw err;
  }
  return patch;
}

/** The stored user (fresh: its password hash as it is now), else the one given. */
export async function freshUser(store: Store, user: UserRecord): Promise<UserRecord> {
  return (await store.repo('users').get(user.id)) ?? user;
}
