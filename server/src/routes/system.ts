import { readiness } from '@quire/engine';
import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import { requireAuth } from '../http/context.js';
import { route } from '../http/route.js';
import { openApiDocument } from '../http/openapi.js';
import { callbackSecret, verifyLink } from '@quire/engine';
import { jobParsedKey, loadParsed } from '@quire/engine';
import { toMarkdown } from '@quire/engine';
import { servedJob } from '@quire/engine';
import { STUDIO_CSP } from '../http/security.js';
import type { AuthInfo } from '../http/context.js';

/** The bootstrap admin, as ensureBootstrapKey makes it (QUIRE_BOOTSTRAP_API_KEY's user). */
const BOOTSTRAP_ADMIN_EMAIL = 'admin@quire.local';

/** The bootstrap admin: the one account that sees operational details. */
function isAdmin(auth: AuthInfo | null): boolean {
  return !!auth && auth.user.email === BOOTSTRAP_ADMIN_EMAIL;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function systemRoutes(router: Router<any, any>): void {
  route(router, { method: 'get', path: '/healthz', summary: 'The process is up', tag: 'System', auth: 'none' }, () => ({ status: 'ok' }));

  route(
    router,
    {
      method: 'get',
      path: '/readyz',
      summary: 'Database and queue reachable (status ready, 200), still being connected at start (connecting, 503) or not connectable (failed with the reason in error, 503: addresses, user names and paths masked; the full reason is in the log); which plugins are healthy. Without a key only ok per component; the bootstrap admin key also sees the details (dialect, transport, messages, which may name paths and versions)',
      tag: 'System',
      auth: 'optional',
    },
    async (ctx) => {
      // readiness is public; the details (and an unmasked failure) are for the operator
      const answer = await readiness(ctx.quire, { details: isAdmin(ctx.state.auth), stages: true });
      ctx.status = answer.status;
      if (answer.status !== 200) ctx.set('Cache-Control', 'no-store');
      return answer.body;
    },
  );

  route(router, { method: 'get', path: '/openapi.json', summary: 'This API as OpenAPI 3.1', tag: 'System', auth: 'none' }, (ctx) => openApiDocument(ctx.quire.config.publicUrl!));

  route(router, { method: 'get', path: '/api/webhooks/callback-secret', summary: 'The key that signs callbacks sent to per-request webhook_url addresses (X-Svc-Signature)', tag: 'Webhooks' }, (ctx) => {
    const auth = requireAuth(ctx);
    return {
      secret: callbackSecret(ctx.quire.signingSecret, auth.user.id),
      algorithm: 'HMAC-SHA256',
      header: 'X-Svc-Signature',
      format: 'sha256=<hex of HMAC over the raw request body>',
      timestamped: {
        headers: ['X-Svc-Timestamp', 'X-Svc-Signature-V2'],
        format: 't=<unix seconds>,v1=<hex of HMAC over "<t>.<raw request body>">',
        verify: 'recompute v1 from t and the raw body with this secret, compare in constant time, and refuse t more than 300 seconds from your clock',
      },
    };
  });

  route(
    router,
    { method: 'get', path: '/studio/jobs/:id', summary: 'Signed link to a stored parse result (studio_link): a browser navigating to it is sent to the studio\'s document view (/studio/shared/:id); other clients get a plain HTML view, or format=json / markdown', tag: 'Parse', auth: 'none', raw: 'text/html', query: z.object({ expires: z.coerce.number(), sig: z.string().min(1), format: z.enum(['html', 'json', 'markdown']).default('html') }) },
    async (ctx, { query }) => {
      const rt = ctx.quire;
      const id = ctx.params.id!;
      if (!verifyLink(rt.signingSecret, 'studio', id, query.expires, query.sig)) throw errors.unauthorized('Invalid or expired studio link');
      // a browser opening the link (a page navigation) gets the studio's document view; other clients this page
      if (query.format === 'html' && !ctx.query.format && ctx.get('sec-fetch-dest') === 'document') {
        ctx.redirect(`/studio/shared/${encodeURIComponent(id)}?expires=${query.expires}&sig=${encodeURIComponent(query.sig)}`);
        return;
      }
      // the result of a parse of a deleted document is gone with it
      const job = await servedJob(rt, id);
      if (!job) throw errors.notFound('job', id);
      ctx.set('Cache-Control', 'private, no-store');
      const doc = await loadParsed(rt, jobParsedKey(id)).catch(() => null);
      if (!doc) throw errors.notFound('parse result', id);
      if (query.format === 'json') {
        ctx.body = { job_id: id, document: doc, result: job.result };
        return;
      }
      if (query.format === 'markdown') {
        ctx.type = 'text/markdown; charset=utf-8';
        ctx.body = toMarkdown(doc);
        return;
      }
      const pages = doc.pages
        .map((p) => {
          const boxes = doc.blocks
            .filter((b) => b.page === p.number && b.bbox)
            .map((b) => `<div class="b ${b.type}" title="${esc(b.type)}" style="left:${(b.bbox!.x / p.width) * 100}%;top:${(b.bbox!.y / p.height) * 100}%;width:${(b.bbox!.width / p.width) * 100}%;height:${(b.bbox!.height / p.height) * 100}%"></div>`)
            .join('');
          const text = doc.blocks.filter((b) => b.page === p.number).map((b) => `<p class="${b.type}"><small>${b.type}</small> ${esc(b.text)}</p>`).join('');
          return `<section><h2>Page ${p.number}</h2><div class="page" style="aspect-ratio:${p.width}/${p.height}">${boxes}</div><div class="text">${text}</div></section>`;
        })
        .join('');
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Security-Policy', STUDIO_CSP);
      ctx.body = `<!doctype html><html><head><meta charset="utf-8"><title>${esc(doc.name)} — Quire studio</title><style>body{font-family:sans-serif;margin:2em}section{display:flex;gap:2em;margin-bottom:2em}.page{position:relative;width:420px;border:1px solid #999;background:#fff}.b{position:absolute;border:1px solid rgba(0,90,200,.6);background:rgba(0,90,200,.07)}.b.table{border-color:rgba(200,90,0,.8)}.b.heading{border-color:rgba(0,150,60,.8)}.text{flex:1}small{color:#888}</style></head><body><h1>${esc(doc.name)}</h1><p>${doc.pages.length} pages, ${doc.blocks.length} blocks, ${doc.tables.length} tables. <a href="?expires=${query.expires}&sig=${query.sig}&format=json">JSON</a> · <a href="?expires=${query.expires}&sig=${query.sig}&format=markdown">Markdown</a></p>${pages}</body></html>`;
    },
  );
}
