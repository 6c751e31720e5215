/**
 * File downloads: a Content-Disposition that carries any file name safely (RFC 6266 with the RFC 5987
 * filename* for non-ASCII names) and single byte-range requests (RFC 9110 §14), streamed from storage.
 */
import fs from 'node:fs';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import type { BlobStorage } from '@quire/core';
import type { AppContext } from './context.js';
import formatDisposition from 'content-disposition';
import rangeParser from 'range-parser';

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<encoded>` (the `content-disposition` package):
 * control characters (CR, LF: no header injection) are dropped and path separators become `_` before it sees
 * the name; the quoted fallback is plain ASCII without quotes, backslashes or `%` (which some clients decode).
 */
export function contentDisposition(name: string, type: 'attachment' | 'inline' = 'attachment'): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '').replace(/[/\\]/g, '_').trim() || 'download';
  const fallback = clean.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return formatDisposition(clean, { type, fallback });
}

/**
 * The one range of a `Range: bytes=…` header (the `range-parser` package): [start, end] inclusive,
 * 'unsatisfiable' (416), or null to send the whole file — for a malformed header, another unit or several
 * ranges (a server may ignore Range). A suffix longer than the file means the whole file (RFC 9110 §14.1.2).
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const suffix = /^\s*bytes\s*=\s*-\s*(\d+)\s*$/i.exec(header);
  if (suffix && Number(suffix[1]) > size && size > 0) return { start: 0, end: size - 1 };
  const ranges = rangeParser(size, header.replace(/\s+/g, ''));
  if (ranges === -2) return null;
  if (ranges === -1) return 'unsatisfiable';
  if (ranges.type.toLowerCase() !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0].start, end: ranges[0].end };
}

/** Bytes [start, end] of a stream (for storage without local files). */
function sliceStream(source: Readable, start: number, end: number): Readable {
  let pos = 0;
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      const from = Math.max(0, start - pos);
      const to = Math.min(chunk.length, end + 1 - pos);
      pos += chunk.length;
      if (to > from) this.push(chunk.subarray(from, to));
      if (pos > end) {
        this.push(null);
        source.unpipe(out);
        source.destroy();
      }
      cb();
    },
  });
  source.on('error', (e) => out.destroy(e));
  return source.pipe(out);
}

/**
 * Answers with the stored file: 200 with the whole file, 206 with one range, 416 when the range starts past
 * the end. Accept-Ranges: bytes always.
 */
export async function sendStoredFile(ctx: AppContext, storage: BlobStorage, f: { key: string; name: string; mime: string | null; size: number }): Promise<void> {
  const local = storage.localPath(f.key);
  const size = local ? (await fs.promises.stat(local)).size : f.size;
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Disposition', contentDisposition(f.name));
  const range = parseRange(ctx.get('range') || undefined, size);
  if (range === 'unsatisfiable') {
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${size}`);
    ctx.body = { error: { code: 'VALIDATION_ERROR', message: `The range is outside the file (${size} bytes)`, details: { size } } };
    return;
  }
  ctx.type = f.mime || 'application/octet-stream';
  if (!range) {
    ctx.status = 200;
    ctx.length = size;
    ctx.body = local ? fs.createReadStream(local) : await storage.stream(f.key);
    return;
  }
  ctx.status = 206;
  ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  ctx.length = range.end - range.start + 1;
  ctx.body = local ? fs.createReadStream(local, { start: range.start, end: range.end }) : sliceStream(await storage.stream(f.key), range.start, range.end);
}
