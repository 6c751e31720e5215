import busboy from 'busboy';
import { errors } from '@quire/core';
import { cleanFileName } from '@quire/engine';
import type { BlobStorage } from '@quire/core';
import type { AppContext } from '../http/context.js';
import { MULTIPART_OVERHEAD, tooLarge } from '../http/limits.js';

export interface ReceivedFile {
  key: string;
  size: number;
  sha256: string;
  fileName: string;
  mimeType: string;
}

/**
 * Characters never kept in a file name: C0/C1 controls and DEL, bidirectional overrides, embeddings, isolates
 * and marks (U+202E and friends make "invoice\u202Efdp.exe" display as "invoiceexe.pdf"), zero-width
 * characters and the BOM, line and paragraph separators, and the characters Windows refuses.
 */
/**
 * Streams a multipart request: the `file` part goes straight to storage under `key` (counted and hashed
 * as it arrives, refused past maxBytes with nothing left behind, without waiting for the rest of the body);
 * text fields are collected. A refused body is read and discarded by the HTTP layer (drainUnreadBody), so
 * the client gets the 413.
 */
export async function receiveMultipart(ctx: AppContext, storage: BlobStorage, key: string, maxBytes: number): Promise<{ fields: Record<string, string>; file: ReceivedFile | null }> {
  if (!ctx.is('multipart/form-data')) throw errors.validation('Expected multipart/form-data with a "file" field', [{ field: 'file', message: 'required' }]);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxBytes + MULTIPART_OVERHEAD) throw tooLarge(maxBytes);
  const fields: Record<string, string> = {};
  let file: ReceivedFile | null = null;
  let pending: Promise<void> | null = null;
  let failure: unknown = null;

  await new Promise<void>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // file names are UTF-8 (browsers, curl, undici send raw UTF-8 bytes); filename*= (RFC 5987) names its own charset
      bb = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { fileSize: maxBytes, files: 1, fields: 50, fieldSize: 1024 * 1024, parts: 60 } });
    } catch (e) {
      reject(errors.validation(`Malformed multipart body: ${(e as Error).message}`));
      return;
    }
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || file || pending) {
        stream.resume();
        return;
      }
      stream.on('limit', () => {
        // over the limit: stop reading now (the rest of the body is drained, not parsed) and refuse
        ctx.req.unpipe(bb);
        stream.destroy(tooLarge(maxBytes));
        reject(tooLarge(maxBytes));
      });
      const fileName = cleanFileName(info.filename);
      const mimeType = info.mimeType || 'application/octet-stream';
      pending = storage
        .put(key, stream)
        .then((r) => {
          file = { key, size: r.size, sha256: r.sha256, fileName, mimeType };
        })
        .catch((e) => {
          failure = e;
          stream.resume();
        });
    });
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('error', (e) => reject(errors.validation(`Malformed multipart body: ${(e as Error).message}`)));
    bb.on('close', () => resolve());
    ctx.req.on('aborted', () => reject(errors.validation('Upload aborted by the client')));
    ctx.req.pipe(bb);
  }).catch(async (e) => {
    if (pending) await pending;
    await storage.delete(key).catch(() => {});
    throw e;
  });
  if (pending) await pending;
  if (failure) {
    await storage.delete(key).catch(() => {});
    throw failure;
  }
  return { fields, file };
}
