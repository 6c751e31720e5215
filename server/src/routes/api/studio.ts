import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { DocumentRecord } from '@quire/core';
import type { AppContext } from '../../http/context.js';
import { requireAuth } from '../../http/context.js';
import { route } from '../../http/route.js';
import { STUDIO_APP_CSP } from '../../http/security.js';
import { contentKey, exportRequestOf, exportView, jobParsedKey, loadChunks, loadOwned, loadParsed, pageImage, pageImageSupport, pageLayout, readableDocument, servedJob, toMarkdown, verifyLink } from '@quire/engine';
import { documentId } from '../v1/documents.js';

const TAG = 'Studio';
const uuid = z.string().uuid();
const pageQuery = z.object({ dpi: z.coerce.number().int().min(36).max(200).optional() });
const signedQuery = z.object({ expires: z.coerce.number(), sig: z.string().min(1) });

/**
 * The studio: the web dashboard under /studio (a single-page app built by Vite into dist/studio, served
 * here), and the two things it needs that the rest of the API does not give: a document's layout (pages,
 * blocks, tables, chunks) and page images. The signed studio_link of a parse (GET /studio/jobs/:id, in
 * routes/system.ts) sends a browser to the app's shared view, which loads the same through the signed
 * routes below, without a session.
 */
export function studioRoutes(router: Router<any, any>): void {
  route(
    router,
    {
      method: 'get',
      path: '/api/documents/:id/layout',
      summary:
        "A completed document's layout for the studio: pages (number, width, height in points, ocr, confidence), blocks (type, text, page, bbox {x, y, width, height} in points from the top-left corner, confidence), tables (cells), chunks (page, boxes, type, confidence, content), and page_images: 'as-is' (an image document: page 1 is the file), 'rendered' (GET .../pages/:n/image draws them) or null (no page images for this format). 409 while the document is not completed.",
      tag: TAG,
    },
    async (ctx) => {
      const auth = requireAuth(ctx);
      const doc = await loadOwned(ctx.quire.store, 'documents', documentId(ctx.params.id), auth, 'read');
      if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document is ${doc.status}; its layout is available once it is completed`, { status: doc.status });
      const parsed = await loadParsed(ctx.quire, contentKey(doc.id));
      const chunks = (await loadChunks(ctx.quire, doc.id)).map((c) => ({ id: c.id, index: c.index, page: c.page, bbox: c.bbox, type: c.metadata.type, confidence: c.metadata.confidence, content: c.content, boxes: c.metadata.boxes ?? (c.bbox ? [{ page: c.page, bbox: c.bbox }] : []), ...(c.metadata.role ? { role: c.metadata.role } : {}) }));
      return { id: doc.id, object: 'document.layout', name: doc.name, file_type: doc.file_type, page_images: pageImageSupport(ctx.quire, doc.file_type), ...pageLayout(parsed), chunks };
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/studio/privacy/export',
      summary:
        "The caller's latest data export request as GET /api/gdpr/export answers it, or null when there is none: {export}. (GET /api/gdpr/export answers 404 when there is none; the studio's privacy page asks this instead, so that a first visit is not an error.)",
      tag: TAG,
    },
    async (ctx) => {
      const auth = requireAuth(ctx);
      const last = await exportRequestOf(ctx.quire, auth.user.id);
      return { export: last ? exportView(ctx.quire, last) : null };
    },
  );

  route(
    router,
    { method: 'get', path: '/api/documents/:id/markdown', summary: "A completed document's parsed content as Markdown (text/markdown): headings, paragraphs, lists and tables in reading order. 409 while the document is not completed.", tag: TAG, raw: 'text/markdown' },
    async (ctx) => {
      const auth = requireAuth(ctx);
      const doc = await loadOwned(ctx.quire.store, 'documents', documentId(ctx.params.id), auth, 'read');
      if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document is ${doc.status}; its content is available once it is completed`, { status: doc.status });
      ctx.type = 'text/markdown; charset=utf-8';
      ctx.body = toMarkdown(await loadParsed(ctx.quire, contentKey(doc.id)));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api/documents/:id/pages/:n/image',
      summary:
        'Page n (1-based) of a document as an image: a PDF page drawn as PNG at `dpi` (default 110, at most 200; a very large page at fewer dots), an image document\'s page 1 as it was uploaded. 404 for a page that is not there or a format without page images (spreadsheets, text, TIFF); 503 when too many pages are being drawn at once.',
      tag: TAG,
      raw: 'image/png',
      query: pageQuery,
    },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const doc = await loadOwned(ctx.quire.store, 'documents', documentId(ctx.params.id), auth, 'read');
      await sendPage(ctx, doc, ctx.params.n, query.dpi);
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/studio/jobs/:id/layout',
      summary: 'The layout of a parse result for the studio\'s shared view, by the signed expires and sig of its studio_link (no API key): as GET /api/documents/:id/layout, without chunks; page_images is null unless the parse was of an svc:// document. Its Markdown: GET /studio/jobs/:id?format=markdown with the same signature.',
      tag: TAG,
      auth: 'none',
      query: signedQuery,
    },
    async (ctx, { query }) => {
      const { job, doc } = await signedJob(ctx, query);
      const parsed = await loadParsed(ctx.quire, jobParsedKey(job.id)).catch(() => null);
      if (!parsed) throw errors.notFound('parse result', job.id);
      ctx.set('Cache-Control', 'private, no-store');
      return { id: job.id, object: 'parse.layout', name: parsed.name, file_type: parsed.format, page_images: doc ? pageImageSupport(ctx.quire, doc.file_type) : null, ...pageLayout(parsed), chunks: [] };
    },
  );

  route(
    router,
    { method: 'get', path: '/studio/jobs/:id/pages/:n/image', summary: 'Page n of the document a signed parse result was made from (svc:// parses), by the expires and sig of its studio_link', tag: TAG, auth: 'none', raw: 'image/png', query: signedQuery.merge(pageQuery) },
    async (ctx, { query }) => {
      const { doc } = await signedJob(ctx, query);
      if (!doc) throw errors.notFound('page image (the parsed file was not kept)');
      await sendPage(ctx, doc, ctx.params.n, query.dpi);
    },
  );

  // the app itself: files of dist/studio, and index.html for the app's own paths
  router.get(/^\/studio(?:\/(?!jobs\/).*)?$/, (ctx: AppContext) => serveApp(ctx));
}

async function signedJob(ctx: AppContext, query: { expires: number; sig: string }) {
  const rt = ctx.quire;
  const id = ctx.params.id!;
  if (!uuid.safeParse(id).success || !verifyLink(rt.signingSecret, 'studio', id, query.expires, query.sig)) throw errors.unauthorized('Invalid or expired studio link');
  const job = await servedJob(rt, id);
  if (!job) throw errors.notFound('job', id);
  const doc = job.document_id ? await readableDocument(rt, null, job.document_id) : null;
  return { job, doc };
}

async function sendPage(ctx: AppContext, doc: DocumentRecord, rawPage: string | undefined, dpi: number | undefined): Promise<void> {
  const n = Number(rawPage);
  if (!/^\d{1,6}$/.test(rawPage ?? '')) throw errors.notFound('page', rawPage);
  // a client that goes away stops the drawing
  const gone = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableEnded) gone.abort(new Error('client gone'));
  });
  const img = await pageImage(ctx.quire, doc, n, { dpi, signal: gone.signal });
  ctx.type = img.type;
  // the original never changes under its id: the browser keeps the image for the session
  ctx.set('Cache-Control', 'private, max-age=3600');
  if (img.size !== undefined) ctx.length = img.size;
  ctx.body = img.body;
}

/** Where the built app is: dist/studio next to dist/routes (built), or server/dist/studio (run from source). */
function appDir(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const dir of [path.resolve(here, '../../studio'), path.resolve(here, '../../../dist/studio')]) {
    if (fs.existsSync(path.join(dir, 'index.html'))) return dir;
  }
  return null;
}

let builtApp: string | null | undefined;

/**
 * A file of the built app, or index.html for any other path under /studio (the app routes in the browser).
 * Hashed assets are cached for a year; index.html is checked every time, so a new build shows at once.
 */
async function serveApp(ctx: AppContext): Promise<void> {
  builtApp ??= appDir();
  if (!builtApp) throw errors.notFound('studio (not built: run npm run build)');
  let rel: string;
  try {
    rel = decodeURIComponent(ctx.path.slice('/studio'.length)).replace(/^\/+/, '');
  } catch {
    throw errors.notFound('file', ctx.path);
  }
  let file = path.resolve(builtApp, rel);
  const inside = file.startsWith(builtApp + path.sep) && !rel.includes('\0');
  const isFile = inside && rel !== '' && (await fs.promises.stat(file).then((s) => s.isFile(), () => false));
  if (!isFile) {
    // a missing asset is a 404; any other path is a page of the app
    if (rel.startsWith('assets/') || /\.[a-z0-9]{1,5}$/i.test(rel)) throw errors.notFound('file', ctx.path);
    file = path.join(builtApp, 'index.html');
  }
  const stat = await fs.promises.stat(file);
  ctx.type = path.extname(file);
  ctx.set('Cache-Control', rel.startsWith('assets/') && isFile ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('Content-Security-Policy', STUDIO_APP_CSP);
  ctx.lastModified = stat.mtime;
  ctx.status = 200;
  // index.html asked again: 304 unless a new build came
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.length = stat.size;
  ctx.body = fs.createReadStream(file);
}
