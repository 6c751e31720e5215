// @services: API keys, sessions, login throttles and TOTP codes kept in the store
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { serverArgs } from '../helpers/built.js';
import type { TestServer } from '../helpers/server.js';
import { errorBody } from '../helpers/assertions.js';
import { Secret, TOTP } from 'otpauth';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSWORD = 'Harbour-Light7';

/** A browser's cookies for one server: what Set-Cookie said, sent back on every request. */
class Jar {
  cookies = new Map<string, string>();
  setCookies: string[] = [];
  constructor(private readonly s: TestServer) {}

  get csrf(): string {
    return this.cookies.get('quire_csrf') ?? '';
  }

  /** Signs up (202, the same answer for any email) and signs in: the login's answer. */
  async signUp(email: string, password = PASSWORD) {
    const up = await this.json('/api/auth/signup', { method: 'POST', json: { email, password } });
    assert.equal(up.status, 202, JSON.stringify(up.body));
    return this.json('/api/auth/login', { method: 'POST', json: { email, password } });
  }

  async json(pathname: string, init: { method?: string; json?: unknown; headers?: Record<string, string>; csrf?: boolean } = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    if (init.csrf) headers.set('x-csrf-token', this.csrf);
    let body: string | undefined;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const res = await fetch(this.s.url + pathname, { method: init.method ?? 'GET', headers, body });
    this.setCookies = res.headers.getSetCookie();
    for (const c of this.setCookies) {
      const [pair, ...attrs] = c.split(';').map((x) => x.trim());
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (attrs.some((a) => /^max-age=0$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let json: any = text;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, body: json, headers: res.headers };
  }
}

/** The `quire` command line against the server's database, with `input` on its stdin. */
async function quire(s: TestServer, args: string[], input = ''): Promise<{ code: number | null; out: string; err: string }> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), QUIRE_DATA_DIR: s.dataDir, QUIRE_LOG_LEVEL: 'silent' };
  delete env.QUIRE_DB_URL;
  if (s.runtime.config.db.url) env.QUIRE_DB_URL = s.runtime.config.db.url;
  if (s.runtime.config.queue.url) Object.assign(env, { QUIRE_QUEUE_URL: s.runtime.config.queue.url, QUIRE_QUEUE_PREFIX: s.runtime.config.queue.prefix });
  const child = spawn(process.execPath, serverArgs(...args), { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.stdin.end(input);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  return { code, out, err };
}

/** `quire keys create` on the command line; returns the key it prints. */
async function cliKey(s: TestServer, name: string): Promise<string> {
  const r = await quire(s, ['keys', 'create', '--name', name]);
  assert.equal(r.code, 0, r.err);
  return r.out.trim();
}

describe('accounts over HTTP: API keys, sign-up, sessions', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_LOGIN_MAX_FAILURES: '4' } });
  });
  after(async () => {
    await s?.close();
  });

  test('quire users set-password gives a command-line user (the bootstrap admin) a password to log in with', async () => {
    await cliKey(s, 'admin-key');
    const weak = await quire(s, ['users', 'set-password', '--email', 'admin@quire.local'], 'short\n');
    assert.equal(weak.code, 2);
    assert.match(weak.err, /needs/);
    assert.equal((await quire(s, ['users', 'set-password', '--email', 'nobody@quire.local'], 'Admin-pass-42\n')).code, 1);
    const set = await quire(s, ['users', 'set-password', '--email', 'admin@quire.local'], 'Admin-pass-42\n');
    assert.equal(set.code, 0, set.err);
    assert.ok(!set.out.includes('Admin-pass-42') && !set.err.includes('Admin-pass-42'), 'the password is not echoed');
    const login = await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'admin@quire.local', password: 'Admin-pass-42' } });
    assert.equal(login.status, 200, JSON.stringify(login.body));
  });

  test('API keys: created and shown once, listed without secrets, rotated (old key refused at once), revoked; the CLI key works', async () => {
    const made = await s.json('/api/keys', { method: 'POST', json: { name: 'ci' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const key: string = made.body.key;
    assert.match(key, /^svc_[0-9a-f]{32,}$/);
    assert.equal(made.body.prefix, key.slice(0, made.body.prefix.length));
    assert.deepEqual(made.body.scopes, ['full']);
    assert.equal(made.body.expires_at, null);
    assert.equal(made.body.key_hash, undefined);
    assert.equal((await s.json('/api/user/profile', { key })).status, 200);

    const list = await s.json('/api/keys');
    assert.equal(list.status, 200);
    const row = list.body.data.find((k: any) => k.id === made.body.id);
    assert.deepEqual(Object.keys(row).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'object', 'prefix', 'scopes', 'status']);
    assert.ok(!JSON.stringify(list.body).includes(key.slice(12)), 'the list never shows a key');
    assert.equal((await s.json(`/api/keys/${made.body.id}`)).body.key, undefined);

    const rotated = await s.json(`/api/keys/${made.body.id}/rotate`, { method: 'POST', key });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.key, key);
    assert.equal(rotated.body.name, 'ci');
    assert.equal(rotated.body.rotated_from, made.body.id);
    errorBody((await s.json('/api/user/profile', { key })).body, 'UNAUTHORIZED');
    assert.equal((await s.json('/api/user/profile', { key })).status, 401);
    assert.equal((await s.json('/api/user/profile', { key: rotated.body.key })).status, 200);
    const ids = (await s.json('/api/keys')).body.data.map((k: any) => k.id);
    assert.ok(ids.includes(rotated.body.id) && !ids.includes(made.body.id));
    assert.equal((await s.json(`/api/keys/${made.body.id}/rotate`, { method: 'POST' })).status, 404, 'a revoked key cannot be rotated again');

    const revoked = await s.json(`/api/keys/${rotated.body.id}`, { method: 'DELETE' });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.success, true);
    assert.equal((await s.json('/api/user/profile', { key: rotated.body.key })).status, 401);
    const again = await s.json(`/api/keys/${rotated.body.id}`, { method: 'DELETE' });
    assert.equal(again.status, 404);
    errorBody(again.body, 'NOT_FOUND');
    assert.equal((await s.json('/api/keys/not-a-key-id', { method: 'DELETE' })).status, 404);

    const cli = await cliKey(s, 'from-cli');
    assert.match(cli, /^svc_[0-9a-f]+$/);
    assert.equal((await s.json('/api/user/profile', { key: cli })).status, 200);
    assert.ok((await s.json('/api/keys', { key: cli })).body.data.some((k: any) => k.name === 'from-cli' && k.scopes[0] === 'full'));
  });

  test('API keys: expiry (401 once passed) and scopes (a read key is refused writes with 403)', async () => {
    errorBody((await s.json('/api/keys', { method: 'POST', json: { name: 'x', expires_at: new Date(Date.now() - 60_000).toISOString() } })).body, 'VALIDATION_ERROR');
    errorBody((await s.json('/api/keys', { method: 'POST', json: { name: 'x', scopes: ['admin'] } })).body, 'VALIDATION_ERROR');

    const later = new Date(Date.now() + 3_600_000).toISOString();
    const lasting = await s.json('/api/keys', { method: 'POST', json: { name: 'hour', expires_at: later } });
    assert.equal(lasting.status, 201);
    assert.equal(Date.parse(lasting.body.expires_at), Date.parse(later));
    assert.equal((await s.json('/api/user/profile', { key: lasting.body.key })).status, 200);

    // the server's clock stands still, then moves past the expiry (no waiting for the wall clock)
    s.clock.pin();
    const expiresAt = s.clock.now() + 1500;
    const short = await s.json('/api/keys', { method: 'POST', json: { name: 'short', expires_at: new Date(expiresAt).toISOString() } });
    assert.equal(short.status, 201);
    assert.equal((await s.json('/api/user/profile', { key: short.body.key })).status, 200, 'the key works until it expires');
    s.clock.advance(expiresAt - s.clock.now() + 200);
    s.clock.unpin();
    const expired = await s.json('/api/user/profile', { key: short.body.key });
    assert.equal(expired.status, 401);
    errorBody(expired.body, 'UNAUTHORIZED');
    assert.match(expired.body.error.message, /expired/);
    assert.equal((await s.json(`/api/keys/${short.body.id}`)).body.status, 'expired');

    const read = await s.json('/api/keys', { method: 'POST', json: { name: 'reader', scopes: ['read'] } });
    assert.equal(read.status, 201);
    assert.deepEqual(read.body.scopes, ['read']);
    const rk = read.body.key;
    assert.equal((await s.json('/api/keys', { key: rk })).status, 200);
    assert.equal((await s.json('/v1/collections', { key: rk })).status, 200);
    for (const [method, p, json] of [
      ['POST', '/api/keys', { name: 'escalate' }],
      ['POST', '/v1/collections', { name: 'c' }],
      ['PATCH', '/api/user/profile', { name: 'x' }],
      ['DELETE', `/api/keys/${read.body.id}`, undefined],
    ] as const) {
      const r = await s.json(p, { method, json, key: rk });
      assert.equal(r.status, 403, `${method} ${p}`);
      errorBody(r.body, 'FORBIDDEN');
    }
    assert.equal((await s.json(`/api/keys/${read.body.id}`)).body.status, 'active', 'the read key was not revoked by itself');
  });

  test('sign-up, login, logout with a cookie jar; password rules; wrong password; profile', async () => {
    const jar = new Jar(s);
    for (const weak of ['Sh0rt!', 'lowercase-only1', 'UPPERCASE-ONLY1', 'No-Digits-Here', 'NoSpecial123']) {
      const r = await jar.json('/api/auth/signup', { method: 'POST', json: { email: 'ada@example.com', password: weak } });
      assert.equal(r.status, 400, weak);
      errorBody(r.body, 'VALIDATION_ERROR');
    }
    errorBody((await jar.json('/api/auth/signup', { method: 'POST', json: { email: 'not-an-email', password: PASSWORD } })).body, 'VALIDATION_ERROR');

    const signup = await jar.json('/api/auth/signup', { method: 'POST', json: { email: 'Ada@Example.com', password: PASSWORD, name: 'Ada' } });
    assert.equal(signup.status, 202, JSON.stringify(signup.body));
    assert.equal(jar.cookies.size, 0, 'sign-up itself signs nobody in');
    const up = await jar.json('/api/auth/login', { method: 'POST', json: { email: 'Ada@Example.com', password: PASSWORD } });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.user.email, 'ada@example.com');
    assert.equal(up.body.user.name, 'Ada');
    const session = jar.setCookies.find((c) => c.startsWith('quire_session='))!;
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Lax/);
    assert.doesNotMatch(session, /Secure/, 'plain http: no Secure attribute');
    assert.doesNotMatch(jar.setCookies.find((c) => c.startsWith('quire_csrf='))!, /HttpOnly/);
    assert.equal(up.body.csrf_token, jar.csrf);
    // signing up again with a registered email answers exactly as for a new one: no second account, nothing revealed
    const fresh = await new Jar(s).json('/api/auth/signup', { method: 'POST', json: { email: 'someone-new@example.com', password: PASSWORD } });
    const again = new Jar(s);
    const taken = await again.json('/api/auth/signup', { method: 'POST', json: { email: 'ADA@example.com', password: 'Other-Pass9!' } });
    assert.deepEqual([taken.status, taken.body], [fresh.status, fresh.body]);
    assert.equal(again.cookies.size, 0);
    assert.equal(await s.runtime.store.repo('users').count({ email: 'ada@example.com' }), 1);
    assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'ada@example.com', password: 'Other-Pass9!' } })).status, 401, 'the second sign-up did not set a password');
    assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } })).status, 200, 'the original account still signs in');

    const me = await jar.json('/api/user/profile');
    assert.equal(me.status, 200);
    assert.deepEqual(Object.keys(me.body).sort(), ['avatar_url', 'created_at', 'email', 'id', 'name', 'subscription']);
    assert.equal(me.body.name, 'Ada');
    const patched = await jar.json('/api/user/profile', { method: 'PATCH', json: { name: 'Ada L.', avatar_url: 'https://example.com/a.png' }, csrf: true });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, 'Ada L.');
    assert.equal((await jar.json('/api/user/profile', { method: 'PATCH', json: { email: 'admin@quire.local' }, csrf: true })).status, 409);
    assert.equal((await jar.json('/api/auth/session')).body.csrf_token, jar.csrf);

    const wrong = await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'ada@example.com', password: 'Wrong-pass1' } });
    assert.equal(wrong.status, 401);
    errorBody(wrong.body, 'UNAUTHORIZED');
    assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'nobody@example.com', password: PASSWORD } })).status, 401);
    assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'admin@quire.local', password: PASSWORD } })).status, 401, 'a CLI-made user has no password');

    const other = new Jar(s);
    const login = await other.json('/api/auth/login', { method: 'POST', json: { email: 'ADA@example.com', password: PASSWORD } });
    assert.equal(login.status, 200);
    assert.equal((await other.json('/api/user/profile')).body.name, 'Ada L.');

    // the embed endpoint takes an API key only
    assert.equal((await jar.json('/api/v1/embed', { method: 'POST', json: { action: 'parse' }, csrf: true })).status, 401);

    const out = await other.json('/api/auth/logout', { method: 'POST', csrf: true });
    assert.equal(out.status, 200);
    assert.equal(other.cookies.size, 0, 'logout clears the cookies');
    assert.equal((await jar.json('/api/user/profile')).status, 200, 'the other session is still on');
  });

  test('CSRF: a forged cross-site POST with the session cookie is refused; the same request with the proof passes; API keys are not affected', async () => {
    const jar = new Jar(s);
    assert.equal((await jar.signUp('csrf@example.com')).status, 200);
    const forged = await jar.json('/api/keys', { method: 'POST', json: { name: 'forged' }, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    assert.equal(forged.status, 403);
    errorBody(forged.body, 'FORBIDDEN');
    assert.equal((await jar.json('/api/keys', { method: 'POST', json: { name: 'no-proof' } })).status, 403);
    assert.equal((await jar.json('/api/keys', { method: 'POST', json: { name: 'bad-proof' }, headers: { 'x-csrf-token': 'f'.repeat(64) } })).status, 403);
    assert.equal((await jar.json('/api/keys', { method: 'POST', json: { name: 'cross-site-with-proof' }, csrf: true, headers: { 'sec-fetch-site': 'cross-site' } })).status, 403);
    assert.equal((await jar.json('/api/keys')).body.data.length, 0, 'nothing was made');

    const ok = await jar.json('/api/keys', { method: 'POST', json: { name: 'dashboard' }, csrf: true, headers: { 'sec-fetch-site': 'same-origin' } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    // a Bearer request is not cookie-authenticated: no CSRF proof needed
    const bearer = await s.json('/api/keys', { method: 'POST', json: { name: 'by-key' }, key: ok.body.key, headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(bearer.status, 201);

    // keys are the owner's alone: another user's key id is 404 everywhere
    for (const [method, p] of [['GET', `/api/keys/${ok.body.id}`], ['DELETE', `/api/keys/${ok.body.id}`], ['POST', `/api/keys/${ok.body.id}/rotate`]] as const) {
      const r = await s.json(p, { method });
      assert.equal(r.status, 404, `${method} ${p}`);
      errorBody(r.body, 'NOT_FOUND');
    }
    assert.ok(!(await s.json('/api/keys')).body.data.some((k: any) => k.id === ok.body.id));
    assert.equal((await s.json('/api/user/profile', { key: ok.body.key })).body.email, 'csrf@example.com');
  });

  test('password change: session only, checked, ends the other sessions; login attempts are limited', async () => {
    const a = new Jar(s);
    const b = new Jar(s);
    assert.equal((await a.signUp('grace@example.com')).status, 200);
    assert.equal((await b.json('/api/auth/login', { method: 'POST', json: { email: 'grace@example.com', password: PASSWORD } })).status, 200);
    const key = (await a.json('/api/keys', { method: 'POST', json: { name: 'k' }, csrf: true })).body.key;

    const byKey = await s.json('/api/user/password', { method: 'POST', json: { current_password: PASSWORD, new_password: 'Another-Pass9' }, key });
    assert.equal(byKey.status, 403);
    errorBody(byKey.body, 'FORBIDDEN');
    errorBody((await a.json('/api/user/password', { method: 'POST', json: { current_password: 'Wrong-Pass9', new_password: 'Another-Pass9' }, csrf: true })).body, 'VALIDATION_ERROR');
    errorBody((await a.json('/api/user/password', { method: 'POST', json: { current_password: PASSWORD, new_password: 'weak' }, csrf: true })).body, 'VALIDATION_ERROR');
    assert.equal((await a.json('/api/user/password', { method: 'POST', json: { current_password: PASSWORD, new_password: 'Another-Pass9' } })).status, 403, 'CSRF proof needed');

    const changed = await a.json('/api/user/password', { method: 'POST', json: { current_password: PASSWORD, new_password: 'Another-Pass9' }, csrf: true });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.success, true);
    assert.equal(typeof changed.body.message, 'string');
    assert.equal((await b.json('/api/user/profile')).status, 401, 'the other session ended');
    assert.equal((await a.json('/api/user/profile')).status, 200, 'this session goes on');
    assert.equal((await s.json('/api/user/profile', { key })).status, 200, 'API keys are not sessions');
    assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'grace@example.com', password: PASSWORD } })).status, 401);
    assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'grace@example.com', password: 'Another-Pass9' } })).status, 200);

    // QUIRE_LOGIN_MAX_FAILURES=4: the fifth try is refused before the password is looked at, even the right one
    assert.equal((await new Jar(s).signUp('mallory-target@example.com')).status, 200);
    for (let i = 0; i < 4; i++) assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'mallory-target@example.com', password: `Guess-${i}-x` } })).status, 401);
    const limited = await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'mallory-target@example.com', password: PASSWORD } });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limit_exceeded');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });

  test('TOTP second factor: enrol, verify, required at login (each code once), disable with the password', async () => {
    const jar = new Jar(s);
    assert.equal((await jar.signUp('totp@example.com')).status, 200);
    assert.equal((await jar.json('/api/user/2fa')).body.enabled, false);
    const enrol = await jar.json('/api/user/2fa/enroll', { method: 'POST', csrf: true });
    assert.equal(enrol.status, 201, JSON.stringify(enrol.body));
    assert.match(enrol.body.otpauth_url, /^otpauth:\/\/totp\//);
    const app = new TOTP({ secret: Secret.fromBase32(enrol.body.secret), algorithm: 'SHA1', digits: 6, period: 30 });
    const wrongCode = String((Number(app.generate()) + 500_000) % 1_000_000).padStart(6, '0');
    errorBody((await jar.json('/api/user/2fa/verify', { method: 'POST', json: { code: wrongCode }, csrf: true })).body, 'VALIDATION_ERROR');
    const on = await jar.json('/api/user/2fa/verify', { method: 'POST', json: { code: app.generate() }, csrf: true });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal((await jar.json('/api/user/2fa')).body.enabled, true);
    assert.equal((await jar.json('/api/user/2fa/enroll', { method: 'POST', csrf: true })).status, 409);

    const login = (totp_code?: string) => new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'totp@example.com', password: PASSWORD, ...(totp_code ? { totp_code } : {}) } });
    const missing = await login();
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error.details.totp_required, true);
    assert.equal((await login(wrongCode)).status, 401);
    // the next 30-second step: later than the one used to verify, within the accepted drift
    const next = app.generate({ timestamp: Date.now() + 30_000 });
    assert.equal((await login(next)).status, 200);
    assert.equal((await login(next)).status, 401, 'a code is used once');

    assert.equal((await jar.json('/api/user/2fa/disable', { method: 'POST', json: { current_password: 'Wrong-Pass9' }, csrf: true })).status, 400);
    assert.equal((await jar.json('/api/user/2fa/disable', { method: 'POST', json: { current_password: PASSWORD }, csrf: true })).status, 200);
    assert.equal((await login()).status, 200, 'off again: the password alone signs in');
  });

  test('login throttle: attempts are counted before the check, per email and address', async () => {
    // QUIRE_LOGIN_MAX_FAILURES=4: of 60 concurrent wrong passwords, 4 reach the password check, the rest are 429
    assert.equal((await new Jar(s).signUp('burst-target@example.com')).status, 200);
    const guesses = await Promise.all(Array.from({ length: 60 }, (_, i) => new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'burst-target@example.com', password: `Guess-${i}-burst` } })));
    const statuses = guesses.map((g) => g.status);
    assert.equal(statuses.filter((x) => x === 401).length, 4, statuses.join(' '));
    assert.equal(statuses.filter((x) => x === 429).length, 56, statuses.join(' '));

    // the same for TOTP codes: right password, 60 concurrent wrong codes → 4 checked
    const jar = new Jar(s);
    assert.equal((await jar.signUp('burst-totp@example.com')).status, 200);
    const enrol = await jar.json('/api/user/2fa/enroll', { method: 'POST', csrf: true });
    const app = new TOTP({ secret: Secret.fromBase32(enrol.body.secret), algorithm: 'SHA1', digits: 6, period: 30 });
    assert.equal((await jar.json('/api/user/2fa/verify', { method: 'POST', json: { code: app.generate() }, csrf: true })).status, 200);
    const right = Number(app.generate());
    const codes = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'burst-totp@example.com', password: PASSWORD, totp_code: String((right + 1000 + i * 7919) % 1_000_000).padStart(6, '0') } }),
      ),
    );
    const totpStatuses = codes.map((c) => c.status);
    assert.equal(totpStatuses.filter((x) => x === 401).length, 4, totpStatuses.join(' '));
    assert.equal(totpStatuses.filter((x) => x === 429).length, 56, totpStatuses.join(' '));

    // the address is not locked for everyone else: another account signs in from it
    assert.equal((await new Jar(s).signUp('same-proxy@example.com')).status, 200);
    assert.equal((await new Jar(s).json('/api/auth/login', { method: 'POST', json: { email: 'same-proxy@example.com', password: PASSWORD } })).status, 200);
  });

  test('keys per user are capped by plan, and the rate limit counts all of a user\'s keys together', async (t) => {
    const jar = new Jar(s);
    assert.equal((await jar.signUp('many-keys@example.com')).status, 200);
    const keys: { id: string; key: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const made = await jar.json('/api/keys', { method: 'POST', json: { name: `k${i}` }, csrf: true });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      keys.push({ id: made.body.id, key: made.body.key });
    }
    // the free plan holds 5 active keys (QUIRE_API_KEYS_FREE): the sixth is refused, naming the limit
    const sixth = await jar.json('/api/keys', { method: 'POST', json: { name: 'k5' }, csrf: true });
    assert.equal(sixth.status, 409, JSON.stringify(sixth.body));
    errorBody(sixth.body, 'CONFLICT');
    assert.equal(sixth.body.error.details.limit, 5);
    assert.match(sixth.body.error.message, /free plan/);
    // a revoked key frees its place
    assert.ok((await jar.json(`/api/keys/${keys[0]!.id}`, { method: 'DELETE', csrf: true })).status < 300);
    const again = await jar.json('/api/keys', { method: 'POST', json: { name: 'k6' }, csrf: true });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    keys[0] = { id: again.body.id, key: again.body.key };

    // 100 requests a minute for the user over all five keys (spec §8.1 free plan), not 100 per key; the
    // server's clock stands still meanwhile, so that no new minute starts during the count
    s.clock.pin();
    t.after(() => s.clock.unpin());
    let firstRefused = -1;
    const perKey = [0, 0, 0, 0, 0];
    for (let i = 0; i < 130 && firstRefused < 0; i++) {
      const r = await s.api('/api/user/credits', { key: keys[i % 5]!.key });
      await r.arrayBuffer();
      perKey[i % 5]!++;
      if (r.status === 429) firstRefused = i;
      else assert.equal(r.status, 200);
    }
    assert.ok(firstRefused > 0 && firstRefused <= 100, `first 429 after ${firstRefused} requests`);
    assert.ok(Math.max(...perKey) <= 21, `no key reached its own limit: ${perKey.join(' ')}`);

  });

  test('/openapi.json documents the account endpoints', async () => {
    const spec = (await s.json('/openapi.json', { key: null })).body;
    const paths = Object.keys(spec.paths);
    for (const p of ['/api/auth/signup', '/api/auth/login', '/api/auth/logout', '/api/user/profile', '/api/user/password', '/api/keys', '/api/user/2fa', '/api/user/2fa/enroll', '/api/user/2fa/verify', '/api/user/2fa/disable']) assert.ok(paths.includes(p), p);
    assert.ok(paths.some((p) => p.startsWith('/api/keys/') && p.endsWith('/rotate')));
  });
});

describe('session expiry', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { QUIRE_SESSION_TTL_S: '1' } });
  });
  after(async () => {
    await s?.close();
  });

  test('a session ends at its expiry: the cookie is refused with 401', async () => {
    const jar = new Jar(s);
    // the server's clock stands still, then moves past the expiry (no waiting for the wall clock)
    s.clock.pin();
    const up = await jar.signUp('brief@example.com');
    assert.equal(up.status, 200);
    assert.match(jar.setCookies.find((c) => c.startsWith('quire_session='))!, /Max-Age=[01];/);
    assert.equal((await jar.json('/api/user/profile')).status, 200, 'the session works until it expires');
    s.clock.advance(Date.parse(up.body.expires_at) - s.clock.now() + 200);
    s.clock.unpin();
    const r = await jar.json('/api/user/profile');
    assert.equal(r.status, 401);
    errorBody(r.body, 'UNAUTHORIZED');
    assert.equal((await jar.json('/api/auth/login', { method: 'POST', json: { email: 'brief@example.com', password: PASSWORD } })).status, 200, 'signing in again works');
  });
});
