import type Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { parseWith } from '@quire/engine';
import type { AppContext } from './context.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  method: Method;
  /** koa-style path, e.g. /v1/documents/:id */
  path: string;
  summary: string;
  tag: string;
  /** 'required' (default): a Bearer API key; 'optional': anonymous allowed; 'none': no auth (health, signed URLs) */
  auth?: 'required' | 'optional' | 'none';
  body?: B;
  query?: Q;
  /** the route reads a multipart body itself (documented as multipart/form-data) */
  multipart?: { fields: Record<string, string> };
  /** the route answers with a raw body (file download, event stream, html) */
  raw?: string;
  /** success status (default 200) */
  status?: number;
}

interface Registered {
  spec: RouteSpec<any, any>;
}
export const registeredRoutes: Registered[] = [];

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

/**
 * Declares a route: validation of query and JSON body with zod (the same schemas make /openapi.json),
 * auth mode, and a handler that returns the response body.
 */
export function route<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  router: Router<any, any>,
  spec: RouteSpec<B, Q>,
  handler: (ctx: AppContext, input: { body: Infer<B>; query: Infer<Q>; params: Record<string, string> }) => Promise<unknown> | unknown,
): void {
  registeredRoutes.push({ spec });
  const mw = async (ctx: AppContext) => {
    ctx.state.authMode = spec.auth ?? 'required';
    await ctx.state.authenticate();
    const query = spec.query ? parseWith(spec.query, ctx.query, 'query') : undefined;
    let body: unknown;
    if (spec.body) {
      const raw = (ctx.request as any).body;
      if (raw === undefined || raw === null || (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0 && !ctx.is('application/json'))) {
        if (!ctx.is('application/json') && ctx.request.length) throw errors.validation('Content-Type must be application/json');
      }
      body = parseWith(spec.body, raw ?? {}, 'body');
    }
    const out = await handler(ctx, { body: body as Infer<B>, query: query as Infer<Q>, params: ctx.params });
    if (out !== undefined && !spec.raw) {
      ctx.body = out;
      if (spec.status && ctx.status === 200) ctx.status = spec.status;
    }
  };
  (router as any)[spec.method](spec.path, mw);
}
