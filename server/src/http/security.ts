import type { Next } from 'koa';
import type { AppContext } from './context.js';

/**
 * Headers of every response. The API answers JSON, files and event streams, none of which needs to load
 * anything, be framed or send a referrer; pages that do need something (the studio viewer) widen the
 * Content-Security-Policy for themselves.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/** The studio viewer: its own inline styles (style element and attributes), nothing else; no scripts. */
export const STUDIO_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The studio app (/studio): its own scripts, styles, images and API calls, from this origin only; no inline script. */
export const STUDIO_APP_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export function securityHeaders() {
  return async (ctx: AppContext, next: Next) => {
    ctx.set(SECURITY_HEADERS as Record<string, string>);
    await next();
  };
}
