import busboy from 'busboy';
import { errors } from '@quire/core';
import type { BlobStorage } from '@quire/core';
import type { AppContext } from '../http/context.js';

export interface ReceivedFile {
  key: string;
  size: number;
  sha256: string;
  fileName: string;
  mimeType: string;
}

/** A display name from a user's file name: base name only, no control or path characters, at most 255 chars. Never used as a path. */
export function cleanFileName(name: string | undefined, fallback = 'file'): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '').replace(/^\.+/, '').trim().slice(0, 255);
  return cleaned || fallback;
}

/**
 * Streams a multipart request: the `file` part goes straight to storage under `key` (counted and hashed
 * as it arrives, refused past maxBytes with nothing left behind); text fields are collected.
 */
export async function receiveMultipart(ctx: AppContext, storage: BlobStorage, key: string, maxBytes: number): Promise<{ fields: Record<string, string>; file: ReceivedFile | null }> {
  if (!ctx.is('multipart/form-data')) throw errors.validation('Expected multipart/form-data with a "file" field', [{ field: 'file', message: 'required' }]);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxBytes + 1024 * 1024) {
    ctx.set('Connection', 'close');
    ctx.req.resume();
    throw errors.tooLarge(maxBytes);
  }
  const fields: Record<string, string> = {};
  let file: ReceivedFile | null = null;
  let truncated = false;
  let pending: Promise<void> | null = null;
  let failure: unknown = null;

  await new Promise<void>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: ctx.req.headers, limits: { fileSize: maxBytes, files: 1, fields: 50, fieldSize: 1024 * 1024, parts: 60 } });
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
        truncated = true;
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
  if (truncated) {
    await storage.delete(key).catch(() => {});
    throw errors.tooLarge(maxBytes);
  }
  return { fields, file };
}
