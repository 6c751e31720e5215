import { randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { errors } from '@quire/core';
import type { Store, TotpRecord, UserRecord } from '@quire/core';
import { decryptSecret, encryptSecret, secretsKey } from '../infra/secrets.js';
import type { SecretsKeyHolder } from '../infra/secrets.js';

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s), as authenticator apps expect; one step of clock drift either way. */
const PERIOD_S = 30;
const WINDOW = 1;

function totpOf(secret: string, label = 'user'): TOTP {
  return new TOTP({ issuer: 'Quire', label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

export interface TotpHost extends SecretsKeyHolder {
  store: Store;
}

async function rowOf(store: Store, userId: string): Promise<TotpRecord | null> {
  return store.repo('user_totp').findOne({ user_id: userId });
}

export async function totpEnabled(store: Store, userId: string): Promise<{ enabled: boolean; enabled_at: Date | null }> {
  const row = await rowOf(store, userId);
  return { enabled: !!row?.enabled_at, enabled_at: row?.enabled_at ?? null };
}

/** Starts (or restarts) an enrolment: a new secret, pending until verified. 409 when TOTP is already on. */
export async function enrolTotp(rt: TotpHost, user: UserRecord): Promise<{ secret: string; otpauth_url: string }> {
  const repo = rt.store.repo('user_totp');
  const row = await rowOf(rt.store, user.id);
  if (row?.enabled_at) throw errors.conflict('Two-factor authentication is already on; disable it first');
  if (row) await repo.delete(row.id);
  const secret = new Secret({ size: 20 }).base32;
  await repo.insert({ id: randomUUID(), user_id: user.id, secret: encryptSecret(secretsKey(rt), secret), enabled_at: null, last_step: null, created_at: new Date() });
  return { secret, otpauth_url: totpOf(secret, user.email).toString() };
}

/**
 * Checks a code against the user's secret (pending or enabled). A code is accepted once: its step must be
 * later than the last accepted one (claimed atomically, so two requests cannot both use it).
 */
async function acceptCode(rt: TotpHost, row: TotpRecord, code: string): Promise<boolean> {
  if (!/^[0-9]{6}$/.test(code)) return false;
  const now = Date.now();
  const delta = totpOf(decryptSecret(secretsKey(rt), row.secret)).validate({ token: code, timestamp: now, window: WINDOW });
  if (delta === null) return false;
  const step = Math.floor(now / 1000 / PERIOD_S) + delta;
  if (row.last_step !== null && step <= row.last_step) return false;
  return (await rt.store.repo('user_totp').update({ id: row.id, last_step: row.last_step }, { last_step: step })) === 1;
}

/** Turns TOTP on with a first code from the authenticator app. */
export async function confirmTotp(rt: TotpHost, userId: string, code: string): Promise<Date> {
  const row = await rowOf(rt.store, userId);
  if (!row) throw errors.notFound('two-factor enrolment');
  if (row.enabled_at) throw errors.conflict('Two-factor authentication is already on');
  if (!(await acceptCode(rt, row, code))) throw errors.validation('Wrong or reused code', { field: 'code' });
  const at = new Date();
  await rt.store.repo('user_totp').update(row.id, { enabled_at: at });
  return at;
}

/** The second factor at login: true when TOTP is off, or the code is right and unused. */
export async function checkTotp(rt: TotpHost, userId: string, code: string | undefined): Promise<'ok' | 'required' | 'wrong'> {
  const row = await rowOf(rt.store, userId);
  if (!row?.enabled_at) return 'ok';
  if (!code) return 'required';
  return (await acceptCode(rt, row, code)) ? 'ok' : 'wrong';
}

export async function disableTotp(store: Store, userId: string): Promise<boolean> {
  return (await store.repo('user_totp').delete({ user_id: userId })) > 0;
}
