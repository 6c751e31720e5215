import Router from '@koa/router';
import { z } from 'zod';
import { QuireError, errors } from '@quire/core';
import type { UserRecord } from '@quire/core';
import type { AuthInfo } from '../../http/context.js';
import type { AppContext } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { creditPeriod, creditsReport, recordAudit, recordSignupConsents } from '@quire/engine';
import { LoginThrottle, changePassword, checkLogin, checkTotp, confirmTotp, createSession, csrfTokenFor, disableTotp, freshUser, endSession, enrolTotp, emailConfigured, normalizeEmail, sendNotice, signUpOrNotice, totpEnabled, updateProfile, verifyPassword } from '@quire/engine';
import type { ThrottleLimit } from '@quire/engine';
import { clearSessionCookies, setSessionCookies } from '../../auth/cookies.js';

const AUTH_TAG = 'Sessions';
const USER_TAG = 'User';
const WINDOW_MS = 15 * 60_000;

const email = z.string().trim().email().max(255);
const password = z.string().min(1).max(1024);

/**
 * Spec §4.12 profile. Self-hosted: the plan stands for the subscription, which never lapses; its period ends
 * when the credits renew (GET /api/user/credits subscription.renews_at).
 */
function profile(u: UserRecord) {
  return { id: u.id, email: u.email, name: u.name, avatar_url: u.avatar_url, created_at: u.created_at.toISOString(), subscription: { status: 'active', product_id: u.plan, period_end: creditPeriod().end.toISOString() } };
}

function sessionOnly(auth: AuthInfo, what: string) {
  if (!auth.session) throw errors.forbidden(`${what} takes a signed-in session (the session cookie), not an API key`);
  return auth.session;
}

/**
 * Counts an attempt at a secret before it is checked (429 with Retry-After when a subject is past its
 * limit); the caller calls succeeded() when the secret was right.
 */
async function attempt(ctx: AppContext, limits: ThrottleLimit[]): Promise<{ succeeded: () => Promise<void> }> {
  const taken = await new LoginThrottle(ctx.quire.store, WINDOW_MS).attempt(limits);
  if (taken.wait) {
    ctx.set('Retry-After', String(taken.wait));
    throw new QuireError('rate_limit_exceeded', `Too many failed attempts; retry in ${taken.wait} s`);
  }
  return taken;
}

/**
 * Login attempts: QUIRE_LOGIN_MAX_FAILURES per email from one client address, 5 times that per email from
 * all addresses (guessing spread over many) and 20 times per client address (many users behind one proxy
 * are not locked out by one of them).
 */
function loginLimits(ctx: AppContext, email: string): ThrottleLimit[] {
  const max = ctx.quire.config.accounts.loginMaxFailures;
  const e = `email:${normalizeEmail(email)}`;
  return [
    { subject: `${e}|ip:${ctx.ip}`, max },
    { subject: e, max: max * 5 },
    { subject: `ip:${ctx.ip}`, max: max * 20 },
  ];
}

/** Attempts at the signed-in user's own password (changing it, turning TOTP off). */
const passwordLimits = (ctx: AppContext, userId: string): ThrottleLimit[] => [{ subject: `password:${userId}`, max: ctx.quire.config.accounts.loginMaxFailures }];

/** Starts a session: the HttpOnly session cookie, the CSRF cookie, and the same proof in the body. */
async function signIn(ctx: AppContext, user: UserRecord) {
  const { token, record } = await createSession(ctx.quire.store, user.id, ctx.quire.config.accounts.sessionTtlMs, { ip: ctx.ip, userAgent: ctx.get('user-agent') || null }, ctx.quire.clock);
  const csrf = csrfTokenFor(token);
  setSessionCookies(ctx, token, csrf, record.expires_at);
  return { user: profile(user), csrf_token: csrf, expires_at: record.expires_at.toISOString() };
}

/**
 * Email + password accounts and browser sessions (§5: how a session is established is ours to design), and
 * the profile endpoints of §4.12.
 */
export function userRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'post',
      path: '/api/auth/signup',
      summary:
        'Create an account with email and password (rules of §4.12), then sign in with POST /api/auth/login. The answer is the same whether or not the email is registered already (202 {success, message}; it never tells): a registered email keeps its account and password unchanged, and its owner is told by email where SMTP is set up (QUIRE_SMTP_HOST). 400 for a password that breaks the rules, 403 when sign-up is turned off (QUIRE_SIGNUP=false).',
      tag: AUTH_TAG,
      auth: 'none',
      status: 202,
      body: z.object({ email, password, name: z.string().trim().min(1).max(255).optional() }).strict(),
    },
    async (ctx, { body }) => {
      const rt = ctx.quire;
      if (!rt.config.accounts.signup) throw errors.forbidden('Sign-up is turned off on this server: ask an administrator for an account');
      const user = await signUpOrNotice(rt.store, body, (existing) => {
        if (!emailConfigured(rt)) return;
        const text = `Someone tried to create a Quire account with ${existing.email} at ${rt.config.publicUrl}. You already have an account there: nothing was changed. If this was you, sign in (or reset your password); otherwise you can ignore this message.`;
        sendNotice(rt, { to: existing.email, subject: 'Sign-up attempt with your email address', text }).catch((err) => rt.logger.warn({ err: (err as Error).message }, 'sign-up notice not sent'));
      });
      // signing up accepts the terms and the privacy policy of the current version (spec §4.11 required consents)
      if (user) await recordSignupConsents(rt, user.id, ctx.ip);
      ctx.status = 202;
      return { success: true, message: 'If this email address can be used, its account is ready: sign in with POST /api/auth/login' };
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/auth/login',
      summary:
        'Sign in with email and password: sets the session cookies as sign-up does. 401 for a wrong email or password; when the account has two-factor authentication on, `totp_code` (6 digits from the authenticator app, each usable once) is needed too: without it the answer is 401 with details {totp_required: true}. 429 (with Retry-After) after too many failures for the email or the client address.',
      tag: AUTH_TAG,
      auth: 'none',
      body: z.object({ email: z.string().trim().max(255), password, totp_code: z.string().trim().max(16).optional() }).strict(),
    },
    async (ctx, { body }) => {
      // counted before the password (and the TOTP code) is checked; given back when both are right
      const tried = await attempt(ctx, loginLimits(ctx, body.email));
      const user = await checkLogin(ctx.quire.store, body.email, body.password);
      if (!user) throw errors.unauthorized('Wrong email or password');
      const second = await checkTotp(ctx.quire, user.id, body.totp_code);
      if (second === 'required') {
        await tried.succeeded(); // the password was right; no code was guessed
        throw new QuireError('UNAUTHORIZED', 'This account has two-factor authentication on: send totp_code', { totp_required: true });
      }
      if (second === 'wrong') throw new QuireError('UNAUTHORIZED', 'Wrong or reused two-factor code', { totp_required: true });
      await tried.succeeded();
      return signIn(ctx, user);
    },
  );

  route(router, { method: 'post', path: '/api/auth/logout', summary: 'End the current session and clear its cookies (session only; needs X-CSRF-Token)', tag: AUTH_TAG }, async (ctx) => {
    const session = sessionOnly(requireAuth(ctx), 'Logout');
    await endSession(ctx.quire.store, session.id);
    clearSessionCookies(ctx);
    return { success: true, message: 'Signed out' };
  });

  route(router, { method: 'get', path: '/api/auth/session', summary: 'The current session: user, expiry and the CSRF token to send as X-CSRF-Token (session only)', tag: AUTH_TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const session = sessionOnly(auth, 'This endpoint');
    ctx.set('Cache-Control', 'no-store');
    const token = ctx.cookies.get('quire_session')!;
    return { user: profile(auth.user), csrf_token: csrfTokenFor(token), session: { id: session.id, created_at: session.created_at.toISOString(), last_seen_at: session.last_seen_at.toISOString(), expires_at: session.expires_at.toISOString() } };
  });

  route(router, { method: 'get', path: '/api/user/profile', summary: "The caller's profile (session or API key)", tag: USER_TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    // profile access is a privacy action (spec §4.11): audit-logged
    await recordAudit(ctx.quire.store, { actor: auth.user.id, action: 'user.profile.viewed', target_type: 'user', target_id: auth.user.id, ip: ctx.ip });
    return profile(auth.user);
  });

  route(
    router,
    {
      method: 'get',
      path: '/api/user/credits',
      summary:
        "The caller's credits this calendar month (UTC; session or API key): the plan's monthly allocation (QUIRE_CREDITS_<PLAN>), what the usage ledger charged to the caller's own resources since the 1st, what is left (negative when a document had more pages than estimated), and the credits by operation. Resources of an organization are billed to the organization and are not counted here: with organization_id (an organization the caller belongs to) the answer is that organization's balance, whose allocation is the plan of its owner.",
      tag: USER_TAG,
      query: z.object({ organization_id: z.string().uuid().optional() }),
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      if (query.organization_id && !auth.memberships.some((m) => m.organization_id === query.organization_id)) throw errors.notFound('organization', query.organization_id);
      return creditsReport(ctx.quire, auth.user.id, new Date(), query.organization_id ?? null);
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/api/user/profile',
      summary: "Change the caller's name, email or avatar_url (session or API key); 409 when the email belongs to another account",
      tag: USER_TAG,
      body: z
        .object({
          name: z.string().trim().min(1).max(255).nullable().optional(),
          email: email.optional(),
          avatar_url: z.string().url().max(2048).refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL').nullable().optional(),
        })
        .strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const patch = await updateProfile(ctx.quire.store, auth.user.id, body);
      await recordAudit(ctx.quire.store, { actor: auth.user.id, action: 'user.profile.updated', target_type: 'user', target_id: auth.user.id, details: { fields: Object.keys(body) }, ip: ctx.ip });
      return profile({ ...auth.user, ...patch });
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api/user/password',
      summary: 'Change the password (session only, §5.4): current_password must be right and new_password follow the §4.12 rules; every other session of the user ends',
      tag: USER_TAG,
      body: z.object({ current_password: password, new_password: password }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const session = sessionOnly(auth, 'Changing the password');
      const tried = await attempt(ctx, passwordLimits(ctx, auth.user.id));
      const user = await freshUser(ctx.quire.store, auth.user);
      let ended: number;
      try {
        ended = await changePassword(ctx.quire.store, user, body.current_password, body.new_password, session.id);
      } catch (err) {
        if ((err as { details?: { field?: string } }).details?.field !== 'current_password') await tried.succeeded();
        throw err;
      }
      await tried.succeeded();
      return { success: true, message: `Password changed; ${ended} other session${ended === 1 ? '' : 's'} ended` };
    },
  );

  // ---- TOTP second factor
  route(router, { method: 'get', path: '/api/user/2fa', summary: 'Whether two-factor authentication (TOTP) is on for the caller', tag: USER_TAG }, async (ctx) => {
    const t = await totpEnabled(ctx.quire.store, requireAuth(ctx).user.id);
    return { enabled: t.enabled, enabled_at: t.enabled_at?.toISOString() ?? null };
  });

  route(
    router,
    {
      method: 'post',
      path: '/api/user/2fa/enroll',
      summary: 'Start turning on TOTP (session only): answers the secret (base32) and an otpauth:// URL for the authenticator app, shown once; nothing changes at login until POST /api/user/2fa/verify. 409 when it is already on.',
      tag: USER_TAG,
      status: 201,
    },
    async (ctx) => {
      const auth = requireAuth(ctx);
      sessionOnly(auth, 'Two-factor enrolment');
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 201;
      return enrolTotp(ctx.quire, auth.user);
    },
  );

  route(
    router,
    { method: 'post', path: '/api/user/2fa/verify', summary: 'Turn TOTP on with a first code from the authenticator app (session only); from then on login needs totp_code', tag: USER_TAG, body: z.object({ code: z.string().trim().max(16) }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      sessionOnly(auth, 'Two-factor enrolment');
      const at = await confirmTotp(ctx.quire, auth.user.id, body.code);
      return { success: true, enabled: true, enabled_at: at.toISOString() };
    },
  );

  route(
    router,
    { method: 'post', path: '/api/user/2fa/disable', summary: 'Turn TOTP off (session only; needs current_password)', tag: USER_TAG, body: z.object({ current_password: password }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      sessionOnly(auth, 'Turning two-factor authentication off');
      const tried = await attempt(ctx, passwordLimits(ctx, auth.user.id));
      const user = await freshUser(ctx.quire.store, auth.user);
      if (!user.password_hash || !(await verifyPassword(body.current_password, user.password_hash))) throw new QuireError('VALIDATION_ERROR', 'current_password is wrong', { field: 'current_password' });
      await tried.succeeded();
      if (!(await disableTotp(ctx.quire.store, user.id))) throw errors.notFound('two-factor authentication');
      return { success: true, enabled: false };
    },
  );
}
