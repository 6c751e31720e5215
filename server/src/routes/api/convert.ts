import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { errors } from '@quire/core';
import type { ParsedDocument } from '@quire/core';
import type { AppContext } from '../../http/context.js';
import { route } from '../../http/route.js';
import { receiveMultipart } from '../../services/multipart.js';
import { detectStored } from '@quire/engine';
import { toJsonShape, toMarkdown } from '@quire/engine';
import { convertStored } from '@quire/engine';

const TAG = 'Conversion';

/** Reads an uploaded PDF; anonymous callers get the first pages only (spec §8.2). */
async function convert(ctx: AppContext): Promise<{ doc: ParsedDocument; fileName: string; pageCount: number; truncated: boolean }> {
  const rt = ctx.quire;
  if (!ctx.state.auth) {
    // anonymous callers are rate-limited per client address on the free plan
    await ctx.rateLimiter.check(ctx, { ids: [`ip:${ctx.ip}`], plan: 'free' });
  }
  const key = `tmp/convert-${randomUUID()}`;
  try {
    const { file } = await receiveMultipart(ctx, rt.storage, key, rt.config.limits.uploadBytes);
    if (!file) throw errors.validation('The multipart field "file" is required', [{ field: 'file', message: 'required' }]);
    const detected = await detectStored(rt, key, file.fileName);
    if (detected.format !== 'pdf') throw errors.unsupported(`Only PDF files are converted here (got ${detected.format})`);
    const maxPages = ctx.state.auth ? undefined : rt.config.limits.anonymousPages;
    // with a key the conversion is a parse, charged for the pages read (402 first when credits cannot cover it)
    const auth = ctx.state.auth;
    const doc = await convertStored(rt, auth ? { user_id: auth.user.id, organization_id: null } : null, key, { id: randomUUID(), name: file.fileName, size: file.size }, maxPages);
    const pageCount = Number(doc.metadata.numPages ?? doc.metadata.pageCount ?? doc.pages.length);
    return { doc, fileName: file.fileName, pageCount, truncated: doc.pages.length < pageCount };
  } finally {
    await rt.storage.delete(key).catch(() => {});
  }
}

export function convertRoutes(router: Router<any, any>): void {
  const multipart = { fields: { file: 'a PDF file' } };
  route(router, { method: 'post', path: '/api/pdf-to-text', summary: 'PDF to plain text (anonymous: first 2 pages)', tag: TAG, auth: 'optional', multipart }, async (ctx) => {
    const { doc, fileName, pageCount, truncated } = await convert(ctx);
    return { text: doc.text, pageCount, pagesExtracted: doc.pages.length, truncated, fileName };
  });
  route(router, { method: 'post', path: '/api/pdf-to-markdown', summary: 'PDF to markdown (anonymous: first 2 pages)', tag: TAG, auth: 'optional', multipart }, async (ctx) => {
    const { doc, fileName, pageCount, truncated } = await convert(ctx);
    return { markdown: toMarkdown(doc), pageCount, pagesExtracted: doc.pages.length, truncated, fileName };
  });
  route(router, { method: 'post', path: '/api/pdf-to-json', summary: 'PDF to structured JSON (anonymous: first 2 pages)', tag: TAG, auth: 'optional', multipart }, async (ctx) => {
    const { doc, fileName, pageCount, truncated } = await convert(ctx);
    const m = doc.metadata;
    return {
      metadata: {
        numPages: pageCount, title: m.title ?? null, author: m.author ?? null, creationDate: m.creationDate ?? null, fileName, pagesExtracted: doc.pages.length, truncated,
        // a PDF form's fields (name, type, value, options, page, box), when the reader found any
        ...(Array.isArray(m.form_fields) && m.form_fields.length ? { formFields: m.form_fields } : {}),
      },
      ...toJsonShape(doc),
    };
  });
}
