import type { ParameterizedContext } from 'koa';
import type { Logger } from '@quire/core';
import type { AuthInfo, Engine } from '@quire/engine';
import type { RateLimiter } from '../auth/ratelimit.js';

export type { AuthInfo };

export interface AppState {
  requestId: string;
  log: Logger;
  auth: AuthInfo | null;
  authMode: 'required' | 'optional' | 'none';
  /** resolves the Authorization header per the route's auth mode (called by route()) */
  authenticate: () => Promise<void>;
}

export interface AppCustom {
  quire: Engine;
  /** per-key request limits of this host (spec §8.1) */
  rateLimiter: RateLimiter;
}

export type AppContext = ParameterizedContext<AppState, AppCustom & Record<string, any>> & { params: Record<string, string> };

/** The authenticated user (throws 401 when the route allowed anonymous access and there is none). */
export function requireAuth(ctx: AppContext): AuthInfo {
  if (!ctx.state.auth) throw Object.assign(new Error('unauthenticated'), { status: 401 });
  return ctx.state.auth;
}
