import type { ParameterizedContext } from 'koa';
import type { ApiKeyRecord, Logger, UserRecord } from '@quire/core';
import type { QuireRuntime } from '../runtime.js';

export interface AuthInfo {
  user: UserRecord;
  key: ApiKeyRecord;
  /** organizations the user belongs to, with roles */
  memberships: { organization_id: string; role: 'owner' | 'admin' | 'member' | 'viewer' }[];
}

export interface AppState {
  requestId: string;
  log: Logger;
  auth: AuthInfo | null;
  authMode: 'required' | 'optional' | 'none';
  /** resolves the Authorization header per the route's auth mode (called by route()) */
  authenticate: () => Promise<void>;
}

export interface AppCustom {
  quire: QuireRuntime;
}

export type AppContext = ParameterizedContext<AppState, AppCustom & Record<string, any>> & { params: Record<string, string> };

/** The authenticated user (throws 401 when the route allowed anonymous access and there is none). */
export function requireAuth(ctx: AppContext): AuthInfo {
  if (!ctx.state.auth) throw Object.assign(new Error('unauthenticated'), { status: 401 });
  return ctx.state.auth;
}
