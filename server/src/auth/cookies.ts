import type { AppContext } from '../http/context.js';

/** The session cookie (HttpOnly) and the CSRF cookie (readable by the page, for the double-submit header). */
export const SESSION_COOKIE = 'quire_session';
export const CSRF_COOKIE = 'quire_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** Secure when the request came over https (directly or through a trusted proxy) or the public URL is https. */
function secure(ctx: AppContext): boolean {
  return ctx.secure || (ctx.quire.config.publicUrl ?? '').startsWith('https:');
}

function cookie(ctx: AppContext, name: string, value: string, maxAgeS: number, httpOnly: boolean): string {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(maxAgeS))}`, 'SameSite=Lax'];
  if (httpOnly) parts.push('HttpOnly');
  if (secure(ctx)) parts.push('Secure');
  return parts.join('; ');
}

export function setSessionCookies(ctx: AppContext, token: string, csrf: string, expiresAt: Date): void {
  const maxAge = (expiresAt.getTime() - ctx.quire.clock.now()) / 1000;
  ctx.append('Set-Cookie', [cookie(ctx, SESSION_COOKIE, token, maxAge, true), cookie(ctx, CSRF_COOKIE, csrf, maxAge, false)]);
  ctx.set('Cache-Control', 'no-store');
}

export function clearSessionCookies(ctx: AppContext): void {
  ctx.append('Set-Cookie', [cookie(ctx, SESSION_COOKIE, '', 0, true), cookie(ctx, CSRF_COOKIE, '', 0, false)]);
}
