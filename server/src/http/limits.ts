import { errors, formatBytes } from '@quire/core';

/** JSON request bodies: at most 1 MiB (after decompression) and 64 levels of arrays/objects. */
export const JSON_BODY_LIMIT = 1024 * 1024;
export const JSON_MAX_DEPTH = 64;
/** Slack over the file limit for the multipart framing and text fields of an upload. */
export const MULTIPART_OVERHEAD = 1024 * 1024;
/**
 * A request answered before its body was read (413, 401, 400...) has the rest of its body read and
 * discarded, so that clients that send the whole body before reading the answer (fetch/undici, most HTTP
 * libraries) get the answer instead of a reset: at most this long and this much (or twice the route's
 * limit, when that is more), then the connection is closed.
 */
export const DRAIN_MAX_MS = 10_000;
export const DRAIN_MIN_BYTES = 32 * 1024 * 1024;

export interface BodyLimitConfig {
  limits: { uploadBytes: number; presignedBytes: number };
}

/** The largest body a request may carry, by where it goes: presigned PUT, multipart upload, or JSON. */
export function bodyLimitFor(req: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> }, config: BodyLimitConfig): number {
  const path = (req.url ?? '/').split('?')[0]!;
  if (req.method === 'PUT' && path.startsWith('/api/upload/presigned/')) return config.limits.presignedBytes;
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return config.limits.uploadBytes + MULTIPART_OVERHEAD;
  return JSON_BODY_LIMIT;
}

/** 413 FILE_TOO_LARGE naming the limit that applied. */
export const tooLarge = (limit: number, what = 'File') => errors.tooLarge(limit, what);
export { formatBytes };
