import Koa from 'koa';
import Router from '@koa/router';
import { QuireError } from '@quire/core';
import type { AppCustom, AppState } from './http/context.js';
import { errorHandler, readinessGate, requestContext } from './http/middleware.js';
import { assertIdentityEncoding, drainUnreadBody, jsonBody } from './http/body.js';
import { securityHeaders } from './http/security.js';
import { httpMetrics, metricsEndpoint } from './http/metrics.js';
import { createHttpServer } from './http/server.js';
import { authentication } from './auth/authenticate.js';
import { RateLimiter } from './auth/ratelimit.js';
import type { Engine } from '@quire/engine';
import { systemRoutes } from './routes/system.js';
import { documentRoutes } from './routes/v1/documents.js';
import { jobRoutes } from './routes/v1/jobs.js';
import { uploadRoutes } from './routes/api/upload.js';
import { parseRoutes } from './routes/api/parse.js';
import { presetRoutes } from './routes/api/presets.js';
import { convertRoutes } from './routes/api/convert.js';
import { collectionRoutes } from './routes/v1/collections.js';
import { knowledgeBaseRoutes } from './routes/api/knowledge-bases.js';
import { schemaRoutes } from './routes/v1/schemas.js';
import { extractionRoutes } from './routes/v1/extractions.js';
import { extractRunRoutes } from './routes/api/extract.js';
import { extractSchemaRoutes } from './routes/api/extract-schemas.js';
import { extractBatchRoutes } from './routes/api/extract-batch.js';
import { extractTruthRoutes } from './routes/api/extract-truth.js';
import { chatRoutes } from './routes/api/chat.js';
import { chatCompletionRoutes } from './routes/v1/chat.js';
import { embedRoutes } from './routes/api/embed.js';
import { workflowRoutes } from './routes/api/workflows.js';
import { generateRoutes } from './routes/api/generate.js';
import { webhookRoutes } from './routes/api/webhooks.js';
import { keyRoutes } from './routes/api/keys.js';
import { userRoutes } from './routes/api/user.js';
import { analyticsRoutes } from './routes/api/analytics.js';
import { gdprRoutes } from './routes/api/gdpr.js';
import { organizationRoutes } from './routes/api/organizations.js';
import { studioRoutes } from './routes/api/studio.js';
import { editRoutes } from './routes/api/edit.js';
import { splitRoutes } from './routes/api/split.js';

/** Every route module, one per spec area. Later areas add themselves here. */
export const ROUTE_MODULES = [systemRoutes, documentRoutes, jobRoutes, uploadRoutes, parseRoutes, presetRoutes, convertRoutes, collectionRoutes, knowledgeBaseRoutes, chatRoutes, chatCompletionRoutes, embedRoutes, schemaRoutes, extractionRoutes, extractRunRoutes, extractSchemaRoutes, extractBatchRoutes, extractTruthRoutes, workflowRoutes, organizationRoutes, studioRoutes, generateRoutes, editRoutes, analyticsRoutes, gdprRoutes, splitRoutes];

/** The Koa host: thin — validate, authorise, start pipelines, shape responses. */
export function createApp(rt: Engine): Koa<AppState, AppCustom> {
  const app = new Koa<AppState, AppCustom>({ proxy: rt.config.http.trustProxy });
  app.context.quire = rt;
  // the store is there once the engine has connected (no request reaches the limiter before: readinessGate)
  app.context.rateLimiter = new RateLimiter(rt.config.rateLimit.store, () => rt.store, () => rt.clock.now());
  app.silent = true;

  const router = new Router<AppState, AppCustom>();
  for (const mod of ROUTE_MODULES) mod(router as any);
  keyRoutes(router as any);
  userRoutes(router as any);
  webhookRoutes(router as any, rt); // also sends the events of this process's bus to their subscribers

  const json = jsonBody();

  app.use(httpMetrics(rt) as any);
  app.use(securityHeaders() as any);
  app.use(drainUnreadBody(rt.config) as any);
  app.use(requestContext(rt.logger) as any);
  app.use(errorHandler() as any);
  app.use(readinessGate() as any);
  app.use(metricsEndpoint(rt) as any);
  app.use(authentication() as any);
  app.use(async (ctx, next) => {
    // multipart and presigned uploads are streamed by their routes, as sent; only JSON bodies are parsed here
    if (ctx.is('multipart/form-data') || ctx.path.startsWith('/api/upload/presigned/')) {
      assertIdentityEncoding(ctx.req);
      return next();
    }
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) && ctx.request.length && !ctx.is('application/json')) {
      const type = ctx.get('content-type') || '(none)';
      throw new QuireError('VALIDATION_ERROR', `Unsupported Content-Type ${type}: send application/json (or multipart/form-data for files)`);
    }
    return json(ctx as any, next);
  });
  app.use(router.routes() as any);
  // sets 405 + Allow (or 501); the error handler turns that into the error body
  app.use(router.allowedMethods() as any);
  // listen() makes a server that also answers Expect: 100-continue (413 before the body when it is too large)
  app.listen = ((...args: unknown[]) => createHttpServer(app.callback(), rt.config).listen(...(args as []))) as typeof app.listen;
  return app;
}
