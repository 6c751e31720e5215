/**
 * File downloads: a Content-Disposition that carries any file name safely (RFC 6266 with the RFC 5987
 * filename* for non-ASCII names) and single byte-range requests (RFC 9110 §14), streamed from storage.
 */
import fs from 'node:fs';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import type { BlobStorage } from '@quire/core';
import type { AppContext } from './context.js';

/** RFC 5987 attr-char: what may stand unencoded in filename*=UTF-8''… */
const attrChar = /[A-Za-z0-9!#$&+\-.^_`|~]/;

export function encodeRfc5987(value: string): string {
  let out = '';
  for (const ch of value) {
    if (attrChar.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<encoded>`: control characters (CR, LF: no header
 * injection), quotes, backslashes and non-ASCII characters never reach the quoted fallback; path separators
 * are dropped from both forms.
 */
export function contentDisposition(name: string, type: 'attachment' | 'inline' = 'attachment'): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '').replace(/[/\\]/g, '_').trim() || 'download';
  const ascii = clean.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]|["\\%]/g, '_');
  if (ascii === clean) return `${type}; filename="${ascii}"`;
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(clean)}`;
}

/** A single range of a `Range: bytes=…` header: [start, end] inclusive, 'unsatisfiable', or null (ignore: whole file). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  // several ranges, other units or a malformed header: the whole file (a server may ignore Range)
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
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
